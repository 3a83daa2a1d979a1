// The shared queries (storage/common/sql_queries_impl.h) compiled for
// PostgreSQL, and what only PostgreSQL does: the tsvector side of the store
// knowledge's search and of the conversation search.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
// text itself is read for the page's rows only (kHitText). The query is
// :tsq (the words, folded by the configuration) AND :alts (the whole
// lexemes a last-word prefix stands for, already folded: read as written).
const char* const PgDialect::kConversationHits =
    "(SELECT DISTINCT ON (conv_rid) conv_rid, score, src, hit_ref FROM ("
    " (SELECT conv_rid, ts_rank(fts, sq.q, 1)::float8 AS score, src, rid AS hit_ref"
    "  FROM conversation_text_search,"
    "  (SELECT to_tsquery('livechat_search', :tsq) && CAST(:alts AS tsquery) AS q) AS sq"
    "  WHERE shop_id = :shop AND fts @@ sq.q ORDER BY rid DESC LIMIT :cap)"
    " UNION ALL"
    " (SELECT conv_rid, ts_rank(fts, sq.q, 1)::float8, 'header', conv_rid"
    "  FROM conversation_header_search,"
    "  (SELECT to_tsquery('livechat_search', :tsq) && CAST(:alts AS tsquery) AS q) AS sq"
    "  WHERE shop_id = :shop AND fts @@ sq.q ORDER BY conv_rid DESC LIMIT :cap)"
    ") AS m ORDER BY conv_rid, score DESC)";

const char* const PgDialect::kHitText =
    "CASE page.src WHEN 'header' THEN (SELECT name || chr(10) || email || chr(10) || phone || chr(10) || tags"
    " FROM conversation_header_search WHERE conv_rid = page.hit_ref)"
    " ELSE (SELECT body FROM conversation_text_search WHERE rid = page.hit_ref) END";

namespace {

// The most lexemes a prefix is expanded into; a prefix standing for more
// (two or three letters typed) is searched as a prefix. Each lexeme of the
// OR is one more posting list the GIN scan merges, where the prefix's
// bitmap reads them all at once: on 200,000 seeded messages the OR of 4 to
// 7 common words was faster than their prefix, 9 already slower, 13 and 19
// much slower (docs/decisions.md has the figures).
constexpr std::int64_t kMaxPrefixLexemes = 8;

// The vocabulary's lexemes that start with the folded `word`
// (conversation_search_lexemes, pg_schema.cc migration 9): in byte order
// those are adjacent, so at most kMaxPrefixLexemes + 1 keys from the prefix
// on are read, and kept while they start with it. `n` is how many lexemes
// the word itself folds to; only a word that is one lexeme is expanded.
constexpr const char* kPrefixLexemes =
    "SELECT w.n, v.lexeme FROM"
    " (SELECT cardinality(a) AS n, a[1] AS p FROM tsvector_to_array(livechat_search_vector(?1)) AS a) AS w"
    " LEFT JOIN LATERAL (SELECT lexeme FROM"
    "  (SELECT lexeme FROM conversation_search_lexemes WHERE lexeme >= w.p ORDER BY lexeme LIMIT ?2) AS next"
    "  WHERE starts_with(lexeme, w.p)) AS v ON w.n = 1";

// The whole lexemes `prefix` (FtsText of the last word) stands for: empty
// when no searched text holds a word starting so; nullopt when it is to be
// searched as a prefix (more than kMaxPrefixLexemes, or a word that does
// not fold to one lexeme).
Result<std::optional<std::vector<std::string>>> PrefixLexemes(Connection& conn, const std::string& prefix) {
  LC_ASSIGN_OR_RETURN(Statement st, conn.Prepare(kPrefixLexemes));
  st.Add(prefix).Add(kMaxPrefixLexemes + 1);
  std::vector<std::string> out;
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    if (st.Int(0) != 1) return std::optional<std::vector<std::string>>();
    if (!st.IsNull(1)) out.push_back(st.Text(1));
  }
  if (static_cast<std::int64_t>(out.size()) > kMaxPrefixLexemes) return std::optional<std::vector<std::string>>();
  return std::optional<std::vector<std::string>>(std::move(out));
}

// A lexeme as a tsquery operand. The texts' ASCII punctuation was turned
// into spaces before indexing, so no lexeme holds a quote or backslash; the
// escape keeps that an assumption about the data, not about the syntax.
std::string QuoteLexeme(const std::string& lexeme) {
  std::string out = "'";
  for (char c : lexeme) {
    if (c == '\'' || c == '\\') out += c;
    out += c;
  }
  return out + "'";
}

}  // namespace

// Each word quoted as a tsquery lexeme: the caller's words hold no ASCII
// punctuation, so no quote, backslash or operator of the user's reaches the
// query syntax; the configuration folds them as it folded the texts.
//
// The last word, typed as the user searches, is a prefix. GIN evaluates
// `parc:*` by reading every lexeme that starts so into one bitmap before the
// AND, 13-18 ms on 1,000,000 messages where `parcel` alone takes 5
// (bench/RESULTS.md); so a prefix standing for a few lexemes is replaced by
// their OR, found in the vocabulary, and the GIN scan skips through them
// beside the other words. The vocabulary may hold lexemes of texts since
// edited, deleted or redacted: they only widen the OR, and the rows' own
// tsvectors decide what matches, so nothing gone is found. The lookup is
// one indexed query on the read's snapshot; the tsquery stays a constant
// the planner sees, which it needs to know a rare word as rare (pg_schema.cc
// migration 7).
Result<bool> PgDialect::BindSearchWords(Connection& conn, Statement& st, const std::string& shopId,
                                        const std::vector<std::string>& words, bool prefixLast) {
  // A prepared statement may be switched to a generic plan after five runs,
  // and a generic plan cannot know a rare word is rare: `?q=wa` took 40 ms at
  // p50 with plan_cache_mode = force_generic_plan against 8 ms with custom
  // plans (150,000 messages). Custom plans are what the default chose there
  // too, so this costs nothing; it keeps a pooled connection from switching.
  // LOCAL: until this read's transaction ends.
  LC_RETURN_IF_ERROR(conn.Exec("SET LOCAL plan_cache_mode = force_custom_plan"));
  std::string q;
  std::string alternatives;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string w = FtsText(words[i]);
    if (w.find_first_not_of(' ') == std::string::npos) continue;
    const bool prefix = prefixLast && i + 1 == words.size();
    if (prefix) {
      LC_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> lexemes, PrefixLexemes(conn, w));
      // No text of any shop holds a word starting so: none can match.
      if (lexemes && lexemes->empty()) return false;
      if (lexemes) {
        for (const auto& l : *lexemes) alternatives += (alternatives.empty() ? "" : " | ") + QuoteLexeme(l);
        continue;
      }
    }
    if (!q.empty()) q += " & ";
    q += "'" + w + "'";
    if (prefix) q += ":*";
  }
  st.Named(":tsq", q);
  st.Named(":alts", alternatives);
  st.Named(":shop", shopId);
  return true;
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
