// A SQLite database read table by table for a copy (storage/common/table_copy.h).
// Everything is read in one read transaction: with WAL, a livechatd still
// writing meanwhile does not tear the copy, which sees one moment.
#include <charconv>
#include <string>
#include <vector>

#include "storage/common/table_copy.h"
#include "storage/sqlite/sqlite_connection.h"

namespace livechat::storage {
namespace {

// The first column of every row, as text.
Result<std::vector<std::string>> FirstColumn(sqlite::Statement& st) {
  std::vector<std::string> out;
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(st.Text(0));
  }
  return out;
}

class SqliteTableSource final : public TableSource {
 public:
  explicit SqliteTableSource(std::unique_ptr<sqlite::Connection> conn) : conn_(std::move(conn)) {}
  ~SqliteTableSource() override {
    if (conn_->InTransaction()) (void)conn_->Exec("ROLLBACK");
  }

  Status Start() { return conn_->Exec("BEGIN"); }

  Result<std::vector<std::string>> Tables() override {
    // FTS5 keeps its index in shadow tables named after the virtual table;
    // both are derived from catalog_items and rebuilt by the target.
    LC_ASSIGN_OR_RETURN(auto st, conn_->Prepare("SELECT name FROM sqlite_schema WHERE type = 'table' "
                                                "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                                                "AND (sql IS NULL OR sql NOT LIKE 'CREATE VIRTUAL TABLE%') "
                                                "AND name NOT IN (SELECT name || suffix FROM sqlite_schema "
                                                "CROSS JOIN (SELECT '_data' AS suffix UNION ALL SELECT '_idx' "
                                                "UNION ALL SELECT '_content' UNION ALL SELECT '_docsize' "
                                                "UNION ALL SELECT '_config') WHERE sql LIKE 'CREATE VIRTUAL TABLE%') "
                                                "ORDER BY name"));
    return FirstColumn(st);
  }

  Result<std::vector<std::string>> Columns(const std::string& table) override {
    LC_ASSIGN_OR_RETURN(auto st, conn_->Prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid"));
    st.Add(table);
    return FirstColumn(st);
  }

  Result<bool> HasRowId(const std::string& table) override {
    LC_ASSIGN_OR_RETURN(auto st, conn_->Prepare("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?1"));
    st.Add(table);
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return Error{ErrorCode::kInternal, "sqlite: no table " + table};
    return st.Int(0) == 0;
  }

  Status Scan(const std::string& table, const std::vector<std::string>& columns,
              const std::function<Status(const CopyRow&)>& emit) override {
    LC_ASSIGN_OR_RETURN(bool rowid, HasRowId(table));
    std::string sql = "SELECT ";
    for (std::size_t i = 0; i < columns.size(); ++i)
      sql += (i ? ", " : "") + (columns[i] == "rowid" ? std::string("rowid") : QuoteIdentifier(columns[i]));
    // Without a rowid the primary key orders the rows; the target's ids
    // do not depend on it.
    sql += " FROM " + QuoteIdentifier(table) + (rowid ? " ORDER BY rowid" : "");
    LC_ASSIGN_OR_RETURN(auto st, conn_->Prepare(sql));
    CopyRow values(columns.size());
    for (;;) {
      LC_ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      for (std::size_t i = 0; i < columns.size(); ++i) {
        const int col = static_cast<int>(i);
        switch (st.Type(col)) {
          case SQLITE_NULL:
            values[i].reset();
            break;
          case SQLITE_FLOAT: {
            // Shortest text that reads back as the same double.
            char buf[32];
            auto [end, ec] = std::to_chars(buf, buf + sizeof buf, st.Double(col));
            (void)ec;
            values[i] = std::string(buf, end);
            break;
          }
          case SQLITE_BLOB:
            return Error{ErrorCode::kInternal,
                         "sqlite: " + table + "." + columns[i] + " holds a blob, which no livechat column stores"};
          default:  // integers print as decimal text, text as itself
            values[i] = st.Text(col);
        }
      }
      LC_RETURN_IF_ERROR(emit(values));
    }
    return Status::Ok();
  }

  Result<std::int64_t> Count(const std::string& table) override {
    LC_ASSIGN_OR_RETURN(auto st, conn_->Prepare("SELECT count(*) FROM " + QuoteIdentifier(table)));
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    return row ? st.Int(0) : 0;
  }

  Result<std::int64_t> HighWater(const std::string& table) override {
    LC_ASSIGN_OR_RETURN(std::int64_t hasSequence,
                        conn_->QueryInt("SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_sequence'"));
    if (hasSequence == 0) return 0;
    LC_ASSIGN_OR_RETURN(auto st, conn_->Prepare("SELECT seq FROM sqlite_sequence WHERE name = ?1"));
    st.Add(table);
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    return row ? st.Int(0) : 0;
  }

 private:
  std::unique_ptr<sqlite::Connection> conn_;
};

}  // namespace

Result<std::unique_ptr<TableSource>> OpenSqliteTableSource(const std::string& path) {
  LC_ASSIGN_OR_RETURN(auto conn, sqlite::Connection::Open(path, sqlite::Connection::Mode::kReadOnly, 5000));
  auto source = std::make_unique<SqliteTableSource>(std::move(conn));
  LC_RETURN_IF_ERROR(source->Start());
  return std::unique_ptr<TableSource>(std::move(source));
}

}  // namespace livechat::storage
