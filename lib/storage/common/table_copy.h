// The seam `livechatctl copy-to-postgres` moves an installation through
// (storage/any/copy_database.cc): a backend that can be read table by table
// (SQLite) and one that can be filled table by table (PostgreSQL), each
// implemented next to its database's header, so the copier itself sees
// neither. Values cross as text (NULL as nullopt), which both databases
// convert losslessly for the column types the schemas use (integers, text,
// doubles printed shortest round-trip).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "livechat/result.h"

namespace livechat::storage {

using CopyRow = std::vector<std::optional<std::string>>;

// A table or column name as an SQL identifier, quoted for both databases.
inline std::string QuoteIdentifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

class TableSource {
 public:
  virtual ~TableSource() = default;
  // Every table holding records (no index or full-text shadow tables).
  virtual Result<std::vector<std::string>> Tables() = 0;
  virtual Result<std::vector<std::string>> Columns(const std::string& table) = 0;
  // True when the table's rows have an implicit row id (SQLite's rowid),
  // which the target keeps as its `rid` column.
  virtual Result<bool> HasRowId(const std::string& table) = 0;
  // `columns` in that order for every row, in insertion order. A column
  // named "rowid" reads the implicit row id.
  virtual Status Scan(const std::string& table, const std::vector<std::string>& columns,
                      const std::function<Status(const CopyRow&)>& row) = 0;
  virtual Result<std::int64_t> Count(const std::string& table) = 0;
  // The highest id ever drawn for the table's counter (SQLite's
  // AUTOINCREMENT keeps it past deleted rows), or 0.
  virtual Result<std::int64_t> HighWater(const std::string& table) = 0;
};

class TableSink {
 public:
  virtual ~TableSink() = default;
  // Every table holding records, parents before children.
  virtual Result<std::vector<std::string>> Tables() = 0;
  // The columns a copy writes (not the generated or derived ones).
  virtual Result<std::vector<std::string>> Columns(const std::string& table) = 0;
  // Starts the one transaction the whole copy runs in; fails unless every
  // table is empty.
  virtual Status Begin() = 0;
  virtual Status Insert(const std::string& table, const std::vector<std::string>& columns, const CopyRow& row) = 0;
  // Flushes the table's rows and moves its counters past `highWater` and the
  // largest id copied, so the next record gets a new id.
  virtual Status Finish(const std::string& table, std::int64_t highWater) = 0;
  virtual Result<std::int64_t> Count(const std::string& table) = 0;
  virtual Status Commit() = 0;
};

// Defined by each backend (sqlite_table_source.cc, pg_table_sink.cc).
Result<std::unique_ptr<TableSource>> OpenSqliteTableSource(const std::string& path);
Result<std::unique_ptr<TableSink>> OpenPostgresTableSink(const std::string& url);

}  // namespace livechat::storage
