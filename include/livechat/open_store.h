// One factory for every Store, chosen by the database setting (livechatd's
// --db, LIVECHAT_DB, livechatctl's --db): a postgresql:// or postgres:// URL
// opens the PostgreSQL store, anything else is a SQLite file path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "livechat/metrics.h"
#include "livechat/result.h"
#include "livechat/store.h"

namespace livechat {

struct StoreConfig {
  // A SQLite file path (or ":memory:"), or a PostgreSQL connection URL.
  std::string db = "livechat.db";
  // Read connections in the pool.
  int readers = 4;
  MetricsRegistry* metrics = nullptr;
};

// Opens and migrates. Errors: kInternal with the database's message.
Result<std::unique_ptr<Store>> OpenStore(const StoreConfig& config);

// The setting as it may be printed or logged: a URL without its password.
std::string DescribeDatabase(const std::string& db);

// Moving an embedded installation to PostgreSQL (livechatctl copy-to-postgres):
// every record of the SQLite database at `sqlitePath` (migrated first, as
// opening it would) is copied into the PostgreSQL database at `postgresUrl`
// (migrated if new), keeping every id, sequence number and cursor; the
// counters continue after the copied ids. The source is read as one snapshot,
// so it may stay in use; the target is written in one transaction under the
// store's write lock, and the copy fails, changing nothing, unless every
// record table of the target is empty (kConflict) and every table's row
// count matches at the end (kInternal). Returns the rows copied per table.
struct CopiedTable {
  std::string table;
  std::int64_t rows = 0;
};
Result<std::vector<CopiedTable>> CopySqliteToPostgres(const std::string& sqlitePath, const std::string& postgresUrl);

}  // namespace livechat
