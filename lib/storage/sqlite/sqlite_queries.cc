// The shared queries (storage/common/sql_queries_impl.h) compiled for
// SQLite, and what only SQLite does: the FTS5 side of the store knowledge's
// search and of the conversation search.
#include <algorithm>
#include <string>

#include "storage/common/sql_queries_impl.h"
#include "storage/sqlite/sqlite_queries.h"

template class livechat::storage::SqlQueries<livechat::sqlite::SqliteDialect>;

namespace livechat::sqlite {

using storage::ReadItem;

namespace {

// The one FTS token that names a shop and a kind: hex keeps it a single
// token under every tokenizer option, whatever characters the ids hold.
std::string HexToken(char tag, const std::string& raw) {
  static const char* kHex = "0123456789abcdef";
  std::string out(1, tag);
  for (unsigned char c : raw) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}
std::string ScopeToken(const std::string& shopId, const std::string& kind) { return HexToken('s', kind + "/" + shopId); }
std::string ParentToken(const std::string& shopId, const std::string& kind, const std::string& parentId) {
  return parentId.empty() ? "" : HexToken('p', kind + "/" + shopId + "/" + parentId);
}

// A term as an FTS5 string literal: double quotes doubled, so no user text
// is ever read as query syntax (column filters, NEAR, operators).
std::string QuoteTerm(const std::string& t) {
  std::string out = "\"";
  for (char c : t) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace

// Per conversation, its best text among the newest kSearchCandidates
// matching message and note texts and the newest as many matching headers
// (ORDER BY rowid DESC lets FTS5 stop there), ranked by livechat_rank
// (sqlite_connection.cc); SQLite's max() takes the other columns from the
// row with the best score. The text itself is read for the page's rows
// only (kHitText).
const char* const SqliteDialect::kConversationHits =
    "(SELECT conv_rid, max(score) AS score, src, hit_ref FROM ("
    " SELECT * FROM (SELECT conv AS conv_rid, livechat_rank(conversation_text_fts) AS score,"
    "   CASE rowid & 1 WHEN 0 THEN 'message' ELSE 'note' END AS src, rowid AS hit_ref"
    "   FROM conversation_text_fts WHERE conversation_text_fts MATCH :text_match ORDER BY rowid DESC LIMIT :cap)"
    " UNION ALL"
    " SELECT * FROM (SELECT rowid AS conv_rid, livechat_rank(conversation_header_fts) AS score,"
    "   'header' AS src, rowid AS hit_ref"
    "   FROM conversation_header_fts WHERE conversation_header_fts MATCH :header_match ORDER BY rowid DESC LIMIT :cap)"
    ") GROUP BY conv_rid)";

const char* const SqliteDialect::kHitText =
    "CASE page.src WHEN 'header' THEN (SELECT name || char(10) || email || char(10) || phone || char(10) || tags"
    " FROM conversation_header_fts WHERE rowid = page.hit_ref)"
    " ELSE (SELECT body FROM conversation_text_fts WHERE rowid = page.hit_ref) END";

Result<bool> SqliteDialect::BindSearchWords(Connection&, Statement& st, const std::string& shopId,
                                            const std::vector<std::string>& words, bool prefixLast) {
  std::string all;
  for (std::size_t i = 0; i < words.size(); ++i) {
    all += (all.empty() ? "" : " AND ") + QuoteTerm(words[i]);
    if (prefixLast && i + 1 == words.size()) all += " *";
  }
  const std::string shop = "shop : " + HexToken('h', shopId);
  st.Named(":text_match", shop + " AND body : (" + all + ")");
  st.Named(":header_match", shop + " AND {name email phone phone_digits tags} : (" + all + ")");
  return true;
}

Result<std::vector<CatalogHit>> SqliteQueries::Search(const std::string& shopId, const std::string& kind,
                                                      const std::string& parentId,
                                                      const std::vector<std::string>& terms, int limit) {
  std::vector<CatalogHit> out;
  std::vector<std::string> quoted;
  for (const auto& t : terms)
    if (!t.empty()) quoted.push_back(QuoteTerm(t));
  if (quoted.empty() || limit < 1) return out;
  auto join = [&](const char* op) {
    std::string any;
    for (const auto& q : quoted) any += (any.empty() ? "" : op) + q;
    std::string m = "scope : " + ScopeToken(shopId, kind);
    if (!parentId.empty()) m += " AND parent : " + ParentToken(shopId, kind, parentId);
    return m + " AND {title body} : (" + any + ")";
  };
  // The FTS table ranks and limits on its own (bm25 weights: scope and
  // parent 0, title 10, body 1), so only the top rows are joined back to their records; the
  // join re-checks shop and kind on the record itself, so a token collision
  // could never leak one. livechat_bm25 is bm25 that does not count the
  // rows of the match's leading scope (and parent) phrases, ?5 of them
  // (sqlite_connection.cc).
  static const std::string sql =
      "SELECT i.shop_id, i.kind, i.id, i.parent_id, i.title, i.body, i.data_json, i.updated_at, f.score "
      "FROM (SELECT rowid, livechat_bm25(catalog_fts, ?5, 0.0, 0.0, 10.0, 1.0) AS score FROM catalog_fts "
      "      WHERE catalog_fts MATCH ?1 ORDER BY score LIMIT ?2) f "
      "JOIN catalog_items i ON i.rowid = f.rowid WHERE i.shop_id = ?3 AND i.kind = ?4 ORDER BY f.score, i.id";
  const int filters = parentId.empty() ? 1 : 2;
  auto run = [&](const std::string& match, int n) -> Status {
    LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
    st.Add(match).Add(n).Add(shopId).Add(kind).Add(filters);
    for (;;) {
      LC_ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      CatalogHit h;
      h.item = ReadItem(st);
      h.relevance = -st.Double(8);
      bool seen = false;
      for (const auto& o : out) seen = seen || o.item.id == h.item.id;
      if (!seen && static_cast<int>(out.size()) < limit) out.push_back(std::move(h));
    }
    return Status::Ok();
  };
  // Records with every word first: few rows to rank, and the best answers.
  // Then, when that leaves room, records with any of the words. Ranking
  // every record that shares one common word costs milliseconds per query
  // (bench/RESULTS.md); the second query runs only when the first is short.
  LC_RETURN_IF_ERROR(run(join(" AND "), limit));
  if (quoted.size() > 1 && static_cast<int>(out.size()) < limit) LC_RETURN_IF_ERROR(run(join(" OR "), limit + static_cast<int>(out.size())));
  return out;
}

Status SqliteQueries::PutCatalogItem(const CatalogItem& item, const std::vector<std::string>& keys) {
  static const std::string upsert =
      "INSERT INTO catalog_items (shop_id, kind, id, parent_id, title, body, data_json, updated_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
      "ON CONFLICT (shop_id, kind, id) DO UPDATE SET parent_id = excluded.parent_id, title = excluded.title, "
      "body = excluded.body, data_json = excluded.data_json, updated_at = excluded.updated_at "
      "RETURNING rowid";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(upsert));
  st.Add(item.shopId).Add(item.kind).Add(item.id).Add(item.parentId).Add(item.title).Add(item.body)
      .Add(item.dataJson).Add(item.updatedAt);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Error{ErrorCode::kInternal, "sqlite: catalog upsert returned no row"};
  const std::int64_t rowid = st.Int(0);
  LC_ASSIGN_OR_RETURN(bool more, st.Step());
  (void)more;

  static const std::string delFts = "DELETE FROM catalog_fts WHERE rowid = ?1";
  LC_ASSIGN_OR_RETURN(Statement d, conn_.Prepare(delFts));
  d.Add(rowid);
  LC_RETURN_IF_ERROR(d.Run());
  static const std::string insFts =
      "INSERT INTO catalog_fts (rowid, scope, parent, title, body) VALUES (?1, ?2, ?3, ?4, ?5)";
  LC_ASSIGN_OR_RETURN(Statement f, conn_.Prepare(insFts));
  f.Add(rowid).Add(ScopeToken(item.shopId, item.kind)).Add(ParentToken(item.shopId, item.kind, item.parentId))
      .Add(item.title).Add(item.body);
  LC_RETURN_IF_ERROR(f.Run());

  static const std::string delKeys = "DELETE FROM catalog_keys WHERE shop_id = ?1 AND kind = ?2 AND item_id = ?3";
  LC_ASSIGN_OR_RETURN(Statement dk, conn_.Prepare(delKeys));
  dk.Add(item.shopId).Add(item.kind).Add(item.id);
  LC_RETURN_IF_ERROR(dk.Run());
  // A key names one item: a later item claiming it takes it over.
  static const std::string insKey =
      "INSERT INTO catalog_keys (shop_id, kind, key, item_id) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT (shop_id, kind, key) DO UPDATE SET item_id = excluded.item_id";
  for (const auto& k : keys) {
    if (k.empty()) continue;
    LC_ASSIGN_OR_RETURN(Statement ik, conn_.Prepare(insKey));
    ik.Add(item.shopId).Add(item.kind).Add(k).Add(item.id);
    LC_RETURN_IF_ERROR(ik.Run());
  }
  return Status::Ok();
}

Status FlushDeferredMessageSearch(Connection& conn) {
  std::vector<std::int64_t>& seqs = conn.deferredMessageSearch();
  if (seqs.empty()) return Status::Ok();
  // A seq freed by a savepoint's rollback can be taken again in the batch.
  std::sort(seqs.begin(), seqs.end());
  seqs.erase(std::unique(seqs.begin(), seqs.end()), seqs.end());
  // Read, then insert one row with VALUES: an INSERT ... SELECT into the
  // FTS5 table would open a statement savepoint, and FTS5 writes its pending
  // terms out at each one, the cost this deferral avoids. OR REPLACE: a
  // message edited since its insert was indexed again by its update trigger.
  Status st = [&]() -> Status {
    for (std::int64_t seq : seqs) {
      LC_ASSIGN_OR_RETURN(Statement read,
                          conn.Prepare("SELECT 'h' || lower(hex(m.shop_id)), m.text, c.rid FROM messages m "
                                       "JOIN conversations c ON c.shop_id = m.shop_id AND c.id = m.conversation_id "
                                       "WHERE m.seq = ?1 AND m.is_deleted = 0 AND m.text <> ''"));
      read.Add(seq);
      LC_ASSIGN_OR_RETURN(bool row, read.Step());
      if (!row) continue;
      LC_ASSIGN_OR_RETURN(Statement insert, conn.Prepare("INSERT OR REPLACE INTO conversation_text_fts "
                                                         "(rowid, shop, body, conv) VALUES (?1, ?2, ?3, ?4)"));
      insert.Add(seq * 2).Add(read.TextView(0)).Add(read.TextView(1)).Add(read.Int(2));
      LC_RETURN_IF_ERROR(insert.Run());
    }
    return Status::Ok();
  }();
  seqs.clear();
  return st;
}

}  // namespace livechat::sqlite
