// A PostgreSQL database filled table by table by a copy
// (storage/common/table_copy.h). The whole copy is one transaction holding
// the store's write lock: an instance started meanwhile waits, and a failed
// copy leaves the database as empty as it was.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "storage/common/table_copy.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/pg_queries.h"
#include "storage/postgres/pg_schema.h"

namespace livechat::storage {
namespace {

// Tables that are not records: the schema's own version, and state shared
// by running instances (limits' counters, tool sessions), which an embedded
// SQLite installation keeps in memory. shop_customer_counts is kept by
// triggers as customers are inserted; event_feed is the change feed's
// pruning mark, which starts afresh (a feed cursor of the old database is
// still served, from the events copied); the search tables and their
// vocabulary are kept by triggers as messages, notes and conversations are.
bool IsRecordTable(const std::string& name) {
  static const char* const kNotRecords[] = {"livechat_schema", "rate_windows", "cost_buckets", "mcp_sessions",
                                            "shop_customer_counts", "event_feed", "conversation_text_search",
                                            "conversation_header_search", "conversation_search_lexemes"};
  return std::none_of(std::begin(kNotRecords), std::end(kNotRecords), [&](const char* n) { return name == n; });
}

// Rows per INSERT: fewer round trips, well under the 65,535 parameters a
// statement may carry.
constexpr std::size_t kMaxParams = 20000;
constexpr std::size_t kMaxRows = 500;

class PgTableSink final : public TableSink {
 public:
  explicit PgTableSink(std::unique_ptr<pg::Connection> conn) : conn_(std::move(conn)) {}
  ~PgTableSink() override {
    if (conn_->InTransaction()) (void)conn_->Exec("ROLLBACK");
  }

  Result<std::vector<std::string>> Tables() override {
    LC_ASSIGN_OR_RETURN(auto st, conn_->Prepare("SELECT tablename::text FROM pg_catalog.pg_tables "
                                                "WHERE schemaname = current_schema() ORDER BY tablename"));
    std::vector<std::string> out;
    for (;;) {
      LC_ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      if (IsRecordTable(st.Text(0))) out.push_back(st.Text(0));
    }
    // The store knowledge's tables reference shops without deferring the
    // check; every other reference is checked at commit.
    std::stable_partition(out.begin(), out.end(), [](const std::string& t) { return t == "shops"; });
    return out;
  }

  Result<std::vector<std::string>> Columns(const std::string& table) override {
    LC_RETURN_IF_ERROR(Describe(table));
    return tables_[table].columns;
  }

  Status Begin() override {
    LC_RETURN_IF_ERROR(conn_->Exec(std::string("BEGIN ISOLATION LEVEL READ COMMITTED; ") + pg::kWriteLock));
    LC_ASSIGN_OR_RETURN(auto tables, Tables());
    std::vector<std::string> used;
    for (const auto& t : tables) {
      LC_ASSIGN_OR_RETURN(std::int64_t any, conn_->QueryInt("SELECT count(*) FROM (SELECT 1 FROM " + QuoteIdentifier(t) +
                                                            " LIMIT 1) AS probe"));
      if (any != 0) used.push_back(t);
    }
    if (!used.empty()) {
      std::string names;
      for (const auto& t : used) names += (names.empty() ? "" : ", ") + t;
      return Error{ErrorCode::kConflict, "the PostgreSQL database is not empty (" + names +
                                             " hold rows); copy into a new, empty database"};
    }
    return Status::Ok();
  }

  Status Insert(const std::string& table, const std::vector<std::string>& columns, const CopyRow& row) override {
    if (pendingTable_ != table) {
      LC_RETURN_IF_ERROR(Flush());
      LC_RETURN_IF_ERROR(Describe(table));
      if (columns != tables_[table].columns)
        return Error{ErrorCode::kInternal, "postgres: copy into " + table + " with columns other than its own"};
      pendingTable_ = table;
    }
    pending_.push_back(row);
    const std::size_t perRow = columns.size() + (table == "catalog_items" ? 2 : 0);
    if (pending_.size() >= kMaxRows || (pending_.size() + 1) * perRow > kMaxParams) return Flush();
    return Status::Ok();
  }

  Status Finish(const std::string& table, std::int64_t highWater) override {
    LC_RETURN_IF_ERROR(Flush());
    LC_RETURN_IF_ERROR(Describe(table));
    for (const auto& col : tables_[table].identities) {
      LC_ASSIGN_OR_RETURN(std::int64_t max,
                          conn_->QueryInt("SELECT coalesce(max(" + QuoteIdentifier(col) + "), 0) FROM " + QuoteIdentifier(table)));
      const std::int64_t next = std::max(max, highWater);
      if (next <= 0) continue;
      LC_ASSIGN_OR_RETURN(auto st, conn_->Prepare("SELECT setval(pg_get_serial_sequence(?1, ?2), ?3)"));
      st.Add(QuoteIdentifier(table)).Add(col).Add(next);
      LC_RETURN_IF_ERROR(st.Run());
    }
    return Status::Ok();
  }

  Result<std::int64_t> Count(const std::string& table) override {
    LC_RETURN_IF_ERROR(Flush());
    return conn_->QueryInt("SELECT count(*) FROM " + QuoteIdentifier(table));
  }

  Status Commit() override {
    LC_RETURN_IF_ERROR(Flush());
    return conn_->Exec("COMMIT");
  }

 private:
  struct TableInfo {
    std::vector<std::string> columns;     // what a copy writes
    std::vector<std::string> identities;  // their counters move past the copied ids
    int title = -1, body = -1;            // catalog_items: the fields its full-text column is built from
  };

  Status Describe(const std::string& table) {
    if (tables_.count(table) != 0) return Status::Ok();
    LC_ASSIGN_OR_RETURN(auto st, conn_->Prepare("SELECT column_name::text, is_identity::text FROM "
                                                "information_schema.columns WHERE table_schema = current_schema() "
                                                "AND table_name = ?1 AND is_generated = 'NEVER' "
                                                "ORDER BY ordinal_position"));
    st.Add(table);
    TableInfo info;
    for (;;) {
      LC_ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      std::string name = st.Text(0);
      // The full-text column is derived from the title and body, as the
      // store computes it on every write.
      if (table == "catalog_items" && name == "fts") continue;
      if (st.Text(1) == "YES") info.identities.push_back(name);
      if (table == "catalog_items" && name == "title") info.title = static_cast<int>(info.columns.size());
      if (table == "catalog_items" && name == "body") info.body = static_cast<int>(info.columns.size());
      info.columns.push_back(std::move(name));
    }
    if (info.columns.empty()) return Error{ErrorCode::kInternal, "postgres: no table " + table};
    tables_[table] = std::move(info);
    return Status::Ok();
  }

  Status Flush() {
    if (pending_.empty()) return Status::Ok();
    const TableInfo& info = tables_[pendingTable_];
    const bool catalog = pendingTable_ == "catalog_items";
    std::string sql = "INSERT INTO " + QuoteIdentifier(pendingTable_) + " (";
    for (std::size_t i = 0; i < info.columns.size(); ++i) sql += (i ? ", " : "") + QuoteIdentifier(info.columns[i]);
    if (catalog) sql += ", fts";
    sql += ")";
    if (!info.identities.empty()) sql += " OVERRIDING SYSTEM VALUE";
    sql += " VALUES ";
    int n = 0;
    for (std::size_t r = 0; r < pending_.size(); ++r) {
      sql += r ? ", (" : "(";
      for (std::size_t i = 0; i < info.columns.size(); ++i) sql += (i ? ", ?" : "?") + std::to_string(++n);
      if (catalog) {
        const std::string title = "?" + std::to_string(++n);
        const std::string body = "?" + std::to_string(++n);
        sql += ", " + pg::CatalogFtsSql(title, body);
      }
      sql += ")";
    }
    LC_ASSIGN_OR_RETURN(auto st, conn_->Prepare(sql));
    for (const auto& row : pending_) {
      for (const auto& v : row) st.Add(v);
      if (catalog) {
        st.Add(pg::FtsText(row[static_cast<std::size_t>(info.title)].value_or("")));
        st.Add(pg::FtsText(row[static_cast<std::size_t>(info.body)].value_or("")));
      }
    }
    pending_.clear();
    return st.Run();
  }

  std::unique_ptr<pg::Connection> conn_;
  std::unordered_map<std::string, TableInfo> tables_;
  std::string pendingTable_;
  std::vector<CopyRow> pending_;
};

}  // namespace

Result<std::unique_ptr<TableSink>> OpenPostgresTableSink(const std::string& url) {
  LC_ASSIGN_OR_RETURN(auto conn, pg::Connection::Open(url));
  LC_RETURN_IF_ERROR(pg::Migrate(*conn));
  return std::unique_ptr<TableSink>(std::make_unique<PgTableSink>(std::move(conn)));
}

}  // namespace livechat::storage
