// The shared queries (storage/common/sql_queries_impl.h) compiled for
// PostgreSQL, and what only PostgreSQL does: the tsvector side of the store
// knowledge's search and of the conversation search.
#include <string>

#include "storage/common/sql_queries_impl.h"
#include "storage/postgres/pg_queries.h"

template class livechat::storage::SqlQueries<livechat::pg::PgDialect>;

namespace livechat::pg {

using storage::ReadItem;

// Text as the full-text index sees it: every ASCII character that is not a
// letter or digit becomes a space, so "e-mail", "foo.bar" and "a@b.c" split
// into words as FTS5's unicode61 tokenizer splits them (PostgreSQL's parser
// would otherwise keep them whole as host, email or hyphenated tokens).
// Bytes of multi-byte UTF-8 characters are kept; unaccent folds them.
std::string FtsText(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    const bool keep = u >= 0x80 || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z');
    if (!keep) c = ' ';
  }
  return out;
}

// Per conversation, its best text among the newest kSearchCandidates
// matching texts and the newest as many matching headers: the GIN index
// finds the rows, the planner may instead walk `rid` backwards when a word
// is in most of them. ts_rank is real; float8 keeps cursors exact. The
// text itself is read for the page's rows only (kHitText).
const char* const PgDialect::kConversationHits =
    "(SELECT DISTINCT ON (conv_rid) conv_rid, score, src, hit_ref FROM ("
    " (SELECT conv_rid, ts_rank(fts, sq.q, 1)::float8 AS score, src, rid AS hit_ref"
    "  FROM conversation_text_search, (SELECT to_tsquery('livechat_search', :tsq) AS q) AS sq"
    "  WHERE shop_id = :shop AND fts @@ sq.q ORDER BY rid DESC LIMIT :cap)"
    " UNION ALL"
    " (SELECT conv_rid, ts_rank(fts, sq.q, 1)::float8, 'header', conv_rid"
    "  FROM conversation_header_search, (SELECT to_tsquery('livechat_search', :tsq) AS q) AS sq"
    "  WHERE shop_id = :shop AND fts @@ sq.q ORDER BY conv_rid DESC LIMIT :cap)"
    ") AS m ORDER BY conv_rid, score DESC)";

const char* const PgDialect::kHitText =
    "CASE page.src WHEN 'header' THEN (SELECT name || chr(10) || email || chr(10) || phone || chr(10) || tags"
    " FROM conversation_header_search WHERE conv_rid = page.hit_ref)"
    " ELSE (SELECT body FROM conversation_text_search WHERE rid = page.hit_ref) END";

// Each word quoted as a tsquery lexeme: the caller's words hold no ASCII
// punctuation, so no quote, backslash or operator of the user's reaches the
// query syntax; the configuration folds them as it folded the texts.
void PgDialect::BindSearchWords(Statement& st, const std::string& shopId, const std::vector<std::string>& words,
                                bool prefixLast) {
  std::string q;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string w = FtsText(words[i]);
    if (w.find_first_not_of(' ') == std::string::npos) continue;
    if (!q.empty()) q += " & ";
    q += "'" + w + "'";
    if (prefixLast && i + 1 == words.size()) q += ":*";
  }
  st.Named(":tsq", q);
  st.Named(":shop", shopId);
}

std::string CatalogFtsSql(const std::string& title, const std::string& body) {
  return "setweight(to_tsvector('livechat_fts', " + title + "), 'A') || setweight(to_tsvector('livechat_fts', " +
         body + "), 'D')";
}

Result<std::vector<CatalogHit>> PgQueries::Search(const std::string& shopId, const std::string& kind,
                                                      const std::string& parentId,
                                                      const std::vector<std::string>& terms, int limit) {
  std::vector<CatalogHit> out;
  std::string words;
  std::size_t n = 0;
  for (const auto& t : terms) {
    const std::string w = FtsText(t);
    if (w.find_first_not_of(' ') == std::string::npos) continue;
    words += (words.empty() ? "" : " ") + w;
    ++n;
  }
  if (n == 0 || limit < 1) return out;
  // plainto_tsquery reads user text as words only (no query syntax) and ANDs
  // them; the OR form swaps its operators. Ranked with ts_rank, title (A)
  // weighing ten times the body (D), as FTS5's bm25 weights do; the GIN
  // index finds the rows, shop and kind (and parent) filter them.
  static const std::string all =
      "SELECT shop_id, kind, id, parent_id, title, body, data_json, updated_at, "
      "ts_rank('{0.1,0,0,1.0}', fts, q, 1) AS score "
      "FROM catalog_items CROSS JOIN (SELECT plainto_tsquery('livechat_fts', ?1) AS q) AS query "
      "WHERE shop_id = ?3 AND kind = ?4 AND (?5 = '' OR parent_id = ?5) AND fts @@ q "
      "ORDER BY score DESC, id LIMIT ?2";
  static const std::string any =
      "SELECT shop_id, kind, id, parent_id, title, body, data_json, updated_at, "
      "ts_rank('{0.1,0,0,1.0}', fts, q, 1) AS score "
      "FROM catalog_items CROSS JOIN "
      "(SELECT replace(plainto_tsquery('livechat_fts', ?1)::text, ' & ', ' | ')::tsquery AS q) AS query "
      "WHERE shop_id = ?3 AND kind = ?4 AND (?5 = '' OR parent_id = ?5) AND fts @@ q "
      "ORDER BY score DESC, id LIMIT ?2";
  auto run = [&](const std::string& sql, int max) -> Status {
    LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
    st.Add(words).Add(max).Add(shopId).Add(kind).Add(parentId);
    for (;;) {
      LC_ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      CatalogHit h;
      h.item = ReadItem(st);
      h.relevance = st.Double(8);
      bool seen = false;
      for (const auto& o : out) seen = seen || o.item.id == h.item.id;
      if (!seen && static_cast<int>(out.size()) < limit) out.push_back(std::move(h));
    }
    return Status::Ok();
  };
  // Records with every word first, then, when that leaves room, records
  // with any of them (as the SQLite store does).
  LC_RETURN_IF_ERROR(run(all, limit));
  if (n > 1 && static_cast<int>(out.size()) < limit) LC_RETURN_IF_ERROR(run(any, limit + static_cast<int>(out.size())));
  return out;
}

Status PgQueries::PutCatalogItem(const CatalogItem& item, const std::vector<std::string>& keys) {
  static const std::string upsert =
      "INSERT INTO catalog_items (shop_id, kind, id, parent_id, title, body, data_json, updated_at, fts) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, " + CatalogFtsSql("?9", "?10") + ") "
      "ON CONFLICT (shop_id, kind, id) DO UPDATE SET parent_id = excluded.parent_id, title = excluded.title, "
      "body = excluded.body, data_json = excluded.data_json, updated_at = excluded.updated_at, fts = excluded.fts";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(upsert));
  st.Add(item.shopId).Add(item.kind).Add(item.id).Add(item.parentId).Add(item.title).Add(item.body)
      .Add(item.dataJson).Add(item.updatedAt);
  st.Add(FtsText(item.title)).Add(FtsText(item.body));
  LC_RETURN_IF_ERROR(st.Run());

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

}  // namespace livechat::pg
