// CopySqliteToPostgres (livechat/open_store.h): the tables of one backend
// into the other through storage/common/table_copy.h. The copy is driven by
// the target's schema: every column it stores must come from the source, and
// every source table and column must land somewhere, so a record is never
// dropped silently when the two schemas drift apart.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "livechat/open_store.h"
#include "livechat/postgres_store.h"
#include "livechat/sqlite_store.h"
#include "storage/common/table_copy.h"

namespace livechat {
namespace {

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The SQLite tables a PostgreSQL database derives instead of storing: the
// per-shop customer count (its triggers count the copied customers).
// The feed's pruning mark starts afresh in the target.
bool DerivedInTarget(const std::string& table) { return table == "shop_customer_counts" || table == "event_feed"; }

Error Drift(const std::string& what) {
  return Error{ErrorCode::kInternal,
               what + ": the two schemas differ, so this build cannot copy every record (nothing was written)"};
}

}  // namespace

Result<std::vector<CopiedTable>> CopySqliteToPostgres(const std::string& sqlitePath, const std::string& postgresUrl) {
  if (IsPostgresUrl(sqlitePath) || sqlitePath == ":memory:")
    return Error{ErrorCode::kInvalidParams, "the source must be a SQLite file, not " + DescribeDatabase(sqlitePath)};
  if (!IsPostgresUrl(postgresUrl))
    return Error{ErrorCode::kInvalidParams,
                 "the target must be a postgresql:// or postgres:// URL, not \"" + postgresUrl + "\""};
  std::error_code ec;
  if (!std::filesystem::is_regular_file(sqlitePath, ec))
    return Error{ErrorCode::kNotFound, "no SQLite database at " + sqlitePath};
  {
    // Brings an older file to this build's schema, as livechatd would.
    SqliteOptions options;
    options.path = sqlitePath;
    options.readers = 1;
    LC_ASSIGN_OR_RETURN(auto migrated, OpenSqliteStore(options));
  }
  LC_ASSIGN_OR_RETURN(auto source, storage::OpenSqliteTableSource(sqlitePath));
  LC_ASSIGN_OR_RETURN(auto sink, storage::OpenPostgresTableSink(postgresUrl));
  LC_RETURN_IF_ERROR(sink->Begin());

  LC_ASSIGN_OR_RETURN(auto targetTables, sink->Tables());
  LC_ASSIGN_OR_RETURN(auto sourceTables, source->Tables());
  for (const auto& t : sourceTables)
    if (!DerivedInTarget(t) && !Contains(targetTables, t)) return Drift("the SQLite table " + t + " has no PostgreSQL table");
  for (const auto& t : targetTables)
    if (!Contains(sourceTables, t)) return Drift("the PostgreSQL table " + t + " has no SQLite table");

  std::vector<CopiedTable> copied;
  for (const auto& table : targetTables) {
    LC_ASSIGN_OR_RETURN(auto columns, sink->Columns(table));
    LC_ASSIGN_OR_RETURN(auto have, source->Columns(table));
    LC_ASSIGN_OR_RETURN(bool rowid, source->HasRowId(table));
    std::vector<std::string> read;
    for (const auto& c : columns) {
      if (Contains(have, c)) {
        read.push_back(c);
      } else if (c == "rid" && rowid) {
        // The target's insertion order column is SQLite's implicit rowid.
        read.push_back("rowid");
      } else {
        return Drift("the PostgreSQL column " + table + "." + c + " has no SQLite column");
      }
    }
    for (const auto& c : have)
      if (!Contains(columns, c)) return Drift("the SQLite column " + table + "." + c + " has no PostgreSQL column");

    LC_RETURN_IF_ERROR(source->Scan(table, read, [&](const storage::CopyRow& row) {
      return sink->Insert(table, columns, row);
    }));
    LC_ASSIGN_OR_RETURN(std::int64_t highWater, source->HighWater(table));
    LC_RETURN_IF_ERROR(sink->Finish(table, highWater));
    LC_ASSIGN_OR_RETURN(std::int64_t want, source->Count(table));
    LC_ASSIGN_OR_RETURN(std::int64_t got, sink->Count(table));
    if (want != got)
      return Error{ErrorCode::kInternal, "copy of " + table + ": " + std::to_string(want) + " rows in SQLite but " +
                                             std::to_string(got) + " in PostgreSQL (nothing was written)"};
    copied.push_back({table, got});
  }
  LC_RETURN_IF_ERROR(sink->Commit());
  return copied;
}

}  // namespace livechat
