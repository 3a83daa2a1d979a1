#include "livechat/open_store.h"

#include "livechat/postgres_store.h"
#include "livechat/sqlite_store.h"

namespace livechat {

Result<std::unique_ptr<Store>> OpenStore(const StoreConfig& config) {
  if (IsPostgresUrl(config.db)) {
    PostgresOptions options;
    options.url = config.db;
    options.readers = config.readers;
    options.metrics = config.metrics;
    return OpenPostgresStore(options);
  }
  SqliteOptions options;
  options.path = config.db;
  options.readers = config.readers;
  options.metrics = config.metrics;
  return OpenSqliteStore(options);
}

std::string DescribeDatabase(const std::string& db) {
  if (!IsPostgresUrl(db)) return "sqlite " + db;
  // postgresql://user:password@host/db: the password is between the first
  // ':' after the scheme and the '@' of the authority.
  const std::size_t start = db.find("://") + 3;
  const std::size_t at = db.find('@', start);
  const std::size_t slash = db.find('/', start);
  std::string shown = db;
  if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
    const std::size_t colon = db.find(':', start);
    if (colon != std::string::npos && colon < at) shown = db.substr(0, colon + 1) + "***" + db.substr(at);
  }
  // A password can also be a query parameter.
  const std::size_t pw = shown.find("password=");
  if (pw != std::string::npos) {
    const std::size_t end = shown.find('&', pw);
    shown = shown.substr(0, pw) + "password=***" + (end == std::string::npos ? "" : shown.substr(end));
  }
  return "postgresql " + shown;
}

}  // namespace livechat
