// One factory for every Store, chosen by the database setting (livechatd's
// --db, LIVECHAT_DB, livechatctl's --db): a postgresql:// or postgres:// URL
// opens the PostgreSQL store, anything else is a SQLite file path.
#pragma once

#include <memory>
#include <string>

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

}  // namespace livechat
