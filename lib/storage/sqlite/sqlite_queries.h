// The SQLite dialect of the shared queries (storage/common/sql_queries.h),
// and the store knowledge's FTS5 search (sqlite_queries.cc).
#pragma once

#include "storage/common/sql_queries.h"
#include "storage/sqlite/sqlite_connection.h"

namespace livechat::sqlite {

struct SqliteDialect {
  using Connection = sqlite::Connection;
  using Statement = sqlite::Statement;
  // Ties in insertion order.
  static constexpr const char* kRowOrder = "rowid";
  // A conversation row's new version (migration 18): random, as processes
  // sharing the file share no counter (and a restored file rewinds none); a
  // repeat for the same row is a 1-in-2^64 chance. A writer that does not
  // set it (an older build still running, SQL by hand) is caught by the
  // schema's trigger.
  static constexpr const char* kNewRowVersion = "random()";
  // The tags of a JSON array parameter :tags.
  static constexpr const char* kTagsOf = "(SELECT value FROM json_each(:tags))";
  // The conversations whose rid is in the JSON array parameter :rids, each
  // found by its primary key (CROSS JOIN keeps the ids the outer loop); a
  // WHERE clause follows.
  static constexpr const char* kConversationsOfRids =
      "json_each(:rids) AS ids CROSS JOIN conversations WHERE conversations.rid = ids.value";
  // The same for messages and :seqs.
  static constexpr const char* kMessagesOfSeqs =
      "json_each(:seqs) AS ids CROSS JOIN messages WHERE messages.seq = ids.value";
  // Events whose data_json.customerId is ?2: instr() skips most rows before
  // any JSON is parsed; the CASE keeps one malformed row from failing the scan.
  static constexpr const char* kEventOfCustomer =
      "instr(data_json, ?2) > 0 AND CASE WHEN json_valid(data_json) THEN json_extract(data_json, '$.customerId') END "
      "= ?2";
  // The conversation search's matching texts (sqlite_queries.cc), one row
  // per conversation: conv_rid, score (higher is better), src, hit_ref.
  // Removes a catalog item's full-text row (catalog_fts shares its rowid).
  static constexpr const char* kDeleteCatalogText = "DELETE FROM catalog_fts WHERE rowid = ?1";
  // Lease and due times are the callers' as they are: a SQLite database is
  // shared by the processes of one host only, which read one clock.
  static Millis ToLeaseClock(Connection&, Millis t) { return t; }
  static Millis FromLeaseClock(Connection&, Millis t) { return t; }
  // A new message is indexed for search at its transaction's end, not by a
  // trigger: FTS5 writes its pending terms out at every savepoint, and a
  // batch of sends holds one savepoint per send (docs/decisions.md).
  static void MessageInserted(Connection& conn, std::int64_t seq) { conn.deferredMessageSearch().push_back(seq); }
  static const char* const kConversationHits;
  // The matched text of a row `page` of those hits.
  static const char* const kHitText;
  // Binds the FTS5 queries kConversationHits reads; always true (the
  // PostgreSQL dialect may know beforehand that nothing matches).
  static Result<bool> BindSearchWords(Connection& conn, Statement& st, const std::string& shopId,
                                      const std::vector<std::string>& words, bool prefixLast);
};

class SqliteQueries final : public storage::SqlQueries<SqliteDialect> {
 public:
  using SqlQueries::SqlQueries;

  // The store knowledge's full-text index (FTS5): items are written and
  // searched through it.
  Status PutCatalogItem(const CatalogItem& item, const std::vector<std::string>& keys) override;

 protected:
  Result<std::vector<CatalogHit>> Search(const std::string& shopId, const std::string& kind, const std::string& parentId,
                                         const std::vector<std::string>& terms, int limit) override;
};

// Indexes for search the messages the open write transaction inserted
// (SqliteDialect::MessageInserted), then forgets them. Called with no
// savepoint open, just before COMMIT, so FTS5 writes the batch's terms out
// once. A message rolled back since is not found and is skipped; one edited
// or deleted since is indexed as it now is.
Status FlushDeferredMessageSearch(Connection& conn);

}  // namespace livechat::sqlite
