// The PostgreSQL dialect of the shared queries (storage/common/sql_queries.h),
// and the store knowledge's search in PostgreSQL's full-text terms
// (pg_queries.cc).
#pragma once

#include "storage/common/sql_queries.h"
#include "storage/postgres/pg_connection.h"

namespace livechat::pg {

struct PgDialect {
  using Connection = pg::Connection;
  using Statement = pg::Statement;
  // Ties in insertion order: the identity column every such table has.
  static constexpr const char* kRowOrder = "rid";
  // A conversation row's new version (migration 11): random, 53 bits (a
  // restored database rewinds no counter). A writer that does not set it
  // is caught by the schema's triggers.
  static constexpr const char* kNewRowVersion = "CAST(1 + floor(random() * 9007199254740990) AS BIGINT)";
  // The tags of a JSON array parameter :tags.
  static constexpr const char* kTagsOf = "(SELECT jsonb_array_elements_text(CAST(:tags AS jsonb)))";
  // The conversations whose rid is in the JSON array parameter :rids; a
  // WHERE clause follows.
  static constexpr const char* kConversationsOfRids =
      "jsonb_array_elements_text(CAST(:rids AS jsonb)) AS ids(value) CROSS JOIN conversations "
      "WHERE conversations.rid = CAST(ids.value AS bigint)";
  // The same for messages and :seqs.
  static constexpr const char* kMessagesOfSeqs =
      "jsonb_array_elements_text(CAST(:seqs AS jsonb)) AS ids(value) CROSS JOIN messages "
      "WHERE messages.seq = CAST(ids.value AS bigint)";
  // Events whose data_json.customerId is ?2: strpos() skips most rows before
  // any JSON is parsed; livechat_json_text (pg_schema.cc) reads a malformed
  // row as NULL.
  static constexpr const char* kEventOfCustomer =
      "strpos(data_json, ?2) > 0 AND livechat_json_text(data_json, 'customerId') = ?2";
  // The conversation search's matching texts (pg_queries.cc), one row per
  // conversation: conv_rid, score (higher is better), src, hit_ref.
  // The catalog's full-text column goes with its row: nothing to remove.
  static constexpr const char* kDeleteCatalogText = "";
  // Lease and due times (PostgresOptions::LeaseClock): moved from the
  // callers' clock to the database's as they are bound, and back as they are
  // read, by the skew the transaction measured as it began. 0 ("no lease")
  // stays 0.
  static Millis ToLeaseClock(Connection& c, Millis t) { return t == 0 ? 0 : t + c.leaseClockSkew(); }
  static Millis FromLeaseClock(Connection& c, Millis t) { return t == 0 ? 0 : t - c.leaseClockSkew(); }
  // A message's search row is written by its trigger (pg_schema.cc).
  static void MessageInserted(Connection&, std::int64_t) {}
  static const char* const kConversationHits;
  // The matched text of a row `page` of those hits.
  static const char* const kHitText;
  // Binds the tsquery kConversationHits reads, after looking up in `conn`
  // the lexemes a last-word prefix stands for. False, with nothing bound,
  // when no text can match (a prefix no text's word starts with).
  static Result<bool> BindSearchWords(Connection& conn, Statement& st, const std::string& shopId,
                                      const std::vector<std::string>& words, bool prefixLast);
};

// Text as the full-text index sees it (pg_queries.cc says why).
std::string FtsText(std::string_view text);
// The catalog's weighted tsvector, from the parameters `title` and `body`
// (each FtsText of the field): the title weighs most.
std::string CatalogFtsSql(const std::string& title, const std::string& body);

class PgQueries final : public storage::SqlQueries<PgDialect> {
 public:
  using SqlQueries::SqlQueries;

  // The store knowledge's full-text index (tsvector and GIN): items are written and
  // searched through it.
  Status PutCatalogItem(const CatalogItem& item, const std::vector<std::string>& keys) override;

 protected:
  Result<std::vector<CatalogHit>> Search(const std::string& shopId, const std::string& kind, const std::string& parentId,
                                         const std::vector<std::string>& terms, int limit) override;
};

}  // namespace livechat::pg
