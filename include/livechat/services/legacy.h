// LegacyService: conversations of the older chat system: import and
// migration (legacy_service.cc).
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include "livechat/services/common.h"
#include "livechat/services/directory.h"

namespace livechat {

// ---- Legacy conversations (livechatctl import legacy / migrate) ----
struct LegacyImportResult {
  std::int64_t imported = 0;         // conversations written
  std::int64_t skipped = 0;          // already imported (same firestoreId): left as they are
  std::int64_t messages = 0;         // messages written
  std::int64_t contactsCreated = 0;  // new contacts (the others matched by email)
};
struct LegacyMigrationResult {
  std::int64_t migrated = 0;
  std::int64_t remaining = 0;        // still in the older datastore after this run
};

class LegacyService {
 public:
  LegacyService(internal::ServiceContext& ctx, DirectoryService& directory);
  LegacyService(const LegacyService&) = delete;
  LegacyService& operator=(const LegacyService&) = delete;

  // ---- Legacy conversations (legacy_service.cc; operator only) ----
  // Loads an export of the older chat system (docs/operations.md, "Legacy
  // conversations"), all or nothing: one invalid record refuses the file
  // with INVALID_PARAMS naming it. The conversations keep their old id as
  // firestoreId, stay out of the newer datastore (never listed; spec rule 5)
  // and fire no webhook events: they are history, not news. A conversation
  // whose firestoreId is already in the store is skipped, so a file can be
  // loaded again safely.
  Result<LegacyImportResult> ImportLegacy(const Principal& p, std::string_view json);
  // Moves up to `limit` (all when empty) unmigrated conversations into the
  // newer datastore, oldest import first, in transactions of `batch`, so a
  // running server keeps answering in between. Each gets a pgConvoId and is
  // listed from then on. No events.
  Result<LegacyMigrationResult> MigrateLegacy(const Principal& p, std::optional<std::int64_t> limit, int batch = 500);

 private:
  internal::ServiceContext& ctx_;
  DirectoryService& directory_;
};

}  // namespace livechat
