// FileService: uploaded files: logos, icons, avatars, contact imports and
// attachments (file_service.cc; docs/operations.md "Files").
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include "livechat/services/common.h"
#include "livechat/services/knowledge.h"

namespace livechat {

// ---- Uploaded files (file_service.cc) ----
struct FileUpload {
  std::string kind;         // import | logo | avatar | icon | attachment
  std::string name;         // the uploader's file name; a path is cut to its last part, controls dropped
  std::string contentType;  // as declared; must be allowed for the kind and match the bytes' magic
  std::string bytes;
  std::optional<std::string> memberId;  // avatar: whose (operator); an admin session's is its own
};
struct FileContent {
  FileRecord file;
  std::string bytes;
};
// How a download proves its right to a file: a credential (already
// authenticated, any store's) and/or a signed URL's query values.
struct FileAccess {
  std::optional<Principal> principal;
  std::optional<std::string> expires;    // Unix seconds
  std::optional<std::string> signature;  // lowercase hex HMAC-SHA256
};
struct CsvImportResult {
  FileRecord file;           // the CSV, kept as a contact import
  std::int64_t rows = 0;     // data rows read
  std::int64_t created = 0;  // new contacts
  std::int64_t updated = 0;  // existing contacts (same email) updated
};

class FileService {
 public:
  // `knowledge` takes a logo's or icon's URL into the widget settings.
  FileService(internal::ServiceContext& ctx, KnowledgeService& knowledge);
  FileService(const FileService&) = delete;
  FileService& operator=(const FileService&) = delete;

  // ---- Uploaded files (file_service.cc; docs/operations.md "Files") ----
  // Every upload is checked before anything is stored: size against the
  // kind's limit (PAYLOAD_TOO_LARGE naming it), declared type allowed for the
  // kind and matching the bytes (INVALID_PARAMS naming the allowed types).
  //
  // A logo, icon or avatar ("Manage widget settings" for logo and icon; an
  // admin session for its own avatar, the operator for any member's). The
  // widget settings' logoUrl / iconUrl, or the member's avatarUrl, then point
  // at the file's URL. Imports and attachments have calls of their own.
  Result<FileRecord> UploadFile(const Principal& p, const FileUpload& in);
  // The shop's files of one kind, oldest first (operator and admin sessions).
  Result<std::vector<FileRecord>> ListFiles(const Principal& p, const std::string& kind);
  // Logos, icons, avatars and imports; an attachment is conversation history
  // (CONFLICT). Operator and admin sessions.
  Status DeleteFile(const Principal& p, const std::string& fileId);
  // A download. Logos, icons and avatars are public. An attachment needs a
  // credential of its store that may read conversations, or an unexpired
  // URL signature; an import a credential of its store that may read
  // customers. Missing, another store's, no right at all, or a bad
  // signature: NOT_FOUND (one answer for all). A valid but expired signature:
  // FORBIDDEN saying so. A store credential without the permission: FORBIDDEN.
  Result<FileContent> OpenFile(const std::string& fileId, const FileAccess& access);
  // The URL of a file as reads show it: public kinds plain, the others signed
  // until `expiresAt`.
  std::string FileUrl(const FileRecord& f, Millis expiresAt) const;
  // Shop redact (spec rule 8): deletes the store's contact imports, logos,
  // avatars and icons, records and bytes. Widget attachments stay: they are
  // conversation history, which redaction keeps. Idempotent. Operator only
  // (no principal: the platform request names the shop).
  Status PurgeShopUploads(const std::string& shopId);
  // Contact import (operator or admin session): a CSV with a header row
  // (docs/operations.md, "Contact import"), RFC 4180 quoting. All or nothing:
  // the first bad cell refuses the file with INVALID_PARAMS naming its row
  // and column. A row whose email matches a contact updates it (non-empty
  // cells only); the others create contacts. The CSV is kept as an import.
  Result<CsvImportResult> ImportCustomersCsv(const Principal& p, const FileUpload& in);

 private:
  internal::ServiceContext& ctx_;
  KnowledgeService& knowledge_;
};

}  // namespace livechat
