// ConversationService: conversation search (GET /chat/conversations?q=). The rules
// of a search live here: what a word is, the limits of a query, when the
// last word is a prefix, the two orders and their cursors, and the
// highlight. The store finds the texts (livechat/store/conversations.h);
// each backend folds case and diacritics as FoldCodePoint does, so the
// highlight marks what the index matched.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/cursor.h"
#include "core/service_internal.h"
#include "livechat/base/utf8.h"
#include "livechat/chat_service.h"

namespace livechat {

using namespace internal;

namespace {

// A letter or digit, as FTS5's unicode61 sees it closely enough for the
// scripts a shop's customers write in: ASCII letters and digits, and every
// other character outside the punctuation, space and symbol blocks.
// Combining marks belong to the word they follow.
bool IsWordChar(std::uint32_t c) {
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  if (c <= 0xBF) return c == 0xAA || c == 0xB5 || c == 0xBA;
  if (c == 0xD7 || c == 0xF7) return false;
  if (c >= 0x2000 && c <= 0x2BFF) return false;  // punctuation, symbols, arrows, shapes
  if (c >= 0x2E00 && c <= 0x2E7F) return false;
  if (c >= 0x3000 && c <= 0x303F) return false;  // CJK punctuation
  if (c >= 0xFE30 && c <= 0xFE4F) return false;
  if (c >= 0xFF00 && c <= 0xFF0F) return false;  // fullwidth punctuation
  if (c >= 0xFF1A && c <= 0xFF20) return false;
  if (c >= 0xFF3B && c <= 0xFF40) return false;
  if (c >= 0xFF5B && c <= 0xFF65) return false;
  if (c >= 0x1F000) return false;  // emoji and pictographs
  return true;
}

bool IsCombiningMark(std::uint32_t c) { return c >= 0x0300 && c <= 0x036F; }

// Latin Extended-A (U+0100..U+017F) without its diacritics; '*' keeps the
// letter (ligatures, kra, eng).
constexpr std::string_view kLatinExtendedA =
    "aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiii**jjkk*llllllllllnnnnnn***oooooo**rrrrrrssssssss"
    "ttttttuuuuuuuuuuuuwwyyyzzzzzzs";
static_assert(kLatinExtendedA.size() == 0x80);

// One code point folded as the indexes fold it: lower case, diacritics
// removed (Latin-1 and Latin Extended-A), Greek and Cyrillic capitals
// lowered. 0: a combining mark, which folding drops.
std::uint32_t FoldCodePoint(std::uint32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c < 0xC0) return c;
  if (c <= 0xFF) {
    static constexpr std::string_view kLatin1 =
        "aaaaaaaceeeeiiiidnooooo*ouuuuyts"   // U+00C0..U+00DF
        "aaaaaaaceeeeiiiidnooooo*ouuuuyty";  // U+00E0..U+00FF
    const char f = kLatin1[c - 0xC0];
    if (f == '*') return c;
    if (c == 0xC6 || c == 0xE6) return 0xE6;  // æ stays one letter
    if (c == 0xDE || c == 0xFE) return 0xFE;  // þ
    if (c == 0xDF) return 0xDF;               // ß
    return static_cast<unsigned char>(f);
  }
  if (c <= 0x17F) {
    const char f = kLatinExtendedA[c - 0x100];
    return f == '*' ? (c % 2 == 0 && c != 0x138 && c != 0x149 ? c + 1 : c) : static_cast<unsigned char>(f);
  }
  if (IsCombiningMark(c)) return 0;
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;  // Greek capitals
  if (c >= 0x410 && c <= 0x42F) return c + 32;                // Cyrillic capitals
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

struct Token {
  std::size_t begin = 0, end = 0;  // bytes in the text
  std::string folded;
};

// The words of `text` with their byte ranges. Malformed bytes separate words.
std::vector<Token> Tokenize(std::string_view text) {
  std::vector<Token> out;
  Token cur;
  bool in = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::uint32_t c = 0;
    std::size_t n = DecodeUtf8(text, pos, c);
    const bool word = n > 0 && (IsWordChar(c) || (in && IsCombiningMark(c)));
    if (n == 0) n = 1;
    if (word) {
      if (!in) {
        cur = Token{};
        cur.begin = pos;
        in = true;
      }
      if (std::uint32_t f = FoldCodePoint(c)) AppendUtf8(cur.folded, f);
      cur.end = pos + n;
    } else if (in) {
      out.push_back(std::move(cur));
      in = false;
    }
    pos += n;
  }
  if (in) out.push_back(std::move(cur));
  return out;
}

struct Words {
  std::vector<std::string> raw;     // as typed, for the store
  std::vector<std::string> folded;  // for the highlight
  bool prefixLast = false;
};

Result<Words> ParseQuery(const std::string& q) {
  if (!IsValidUtf8(q)) return Invalid("q must be UTF-8 text");
  const std::size_t chars = Utf8Length(q);
  if (chars > kSearchMaxChars)
    return Invalid(fmt::format("q is {} characters long; at most {} are searched", chars, kSearchMaxChars));
  Words w;
  for (const Token& t : Tokenize(q)) {
    if (t.folded.empty()) continue;
    w.raw.emplace_back(q.substr(t.begin, t.end - t.begin));
    w.folded.push_back(t.folded);
  }
  if (w.raw.empty()) return Invalid("q has no words to search for: give at least one letter or digit");
  if (w.raw.size() > kSearchMaxWords)
    return Invalid(fmt::format("q has {} words; at most {} are searched", w.raw.size(), kSearchMaxWords));
  // A last word of one character would match most of the store's words as
  // a prefix: it is matched whole until a second character is typed.
  w.prefixLast = Utf8Length(w.folded.back()) >= kSearchPrefixMin;
  return w;
}

bool Matches(const Words& w, const std::string& folded) {
  for (std::size_t i = 0; i < w.folded.size(); ++i) {
    if (folded == w.folded[i]) return true;
    if (w.prefixLast && i + 1 == w.folded.size() && folded.rfind(w.folded[i], 0) == 0) return true;
  }
  return false;
}

// UTF-16 code units of well-formed UTF-8.
int Utf16Length(std::string_view s) {
  int units = 0;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::uint32_t c = 0;
    std::size_t n = DecodeUtf8(s, pos, c);
    if (n == 0) n = 1;
    units += c >= 0x10000 ? 2 : 1;
    pos += n;
  }
  return units;
}

constexpr std::size_t kSnippetBefore = 40;   // characters shown before the first match
constexpr std::size_t kSnippetLength = 160;  // characters shown at most
constexpr std::string_view kEllipsis = "\u2026";

// A snippet of `text` around its first matching word, with every matching
// word in it marked; the whole text (up to kSnippetLength) when none does.
SearchHighlight Snippet(std::string field, std::string_view text, const Words& w) {
  SearchHighlight h;
  h.field = std::move(field);
  const std::vector<Token> tokens = Tokenize(text);
  std::size_t first = tokens.size();
  for (std::size_t i = 0; i < tokens.size() && first == tokens.size(); ++i)
    if (Matches(w, tokens[i].folded)) first = i;
  // Start at a word: back up from the first match by whole words while
  // they fit in kSnippetBefore characters.
  std::size_t start = 0;
  if (first < tokens.size()) {
    start = tokens[first].begin;
    for (std::size_t i = first; i-- > 0;) {
      if (Utf8Length(text.substr(tokens[i].begin, tokens[first].begin - tokens[i].begin)) > kSnippetBefore) break;
      start = tokens[i].begin;
    }
    if (first == 0 || start == tokens[0].begin) start = 0;
  }
  std::string body = TruncateUtf8(text.substr(start), kSnippetLength);
  std::size_t end = start + body.size();
  // End on a word boundary when the text goes on.
  if (end < text.size()) {
    for (const Token& t : tokens)
      if (t.begin < end && t.end > end && t.begin > start) end = t.begin;
    body = std::string(text.substr(start, end - start));
    while (!body.empty() && (body.back() == ' ' || body.back() == '\n')) body.pop_back();
  }
  if (start > 0) h.text = kEllipsis;
  const std::size_t lead = h.text.size();
  h.text += body;
  for (char& c : h.text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (start + body.size() < text.size()) h.text += kEllipsis;
  for (const Token& t : tokens) {
    if (t.begin < start || t.end > start + body.size() || !Matches(w, t.folded)) continue;
    const std::size_t at = lead + (t.begin - start);
    const int from = Utf16Length(std::string_view(h.text).substr(0, at));
    h.ranges.emplace_back(from, from + Utf16Length(text.substr(t.begin, t.end - t.begin)));
  }
  return h;
}

// How many of the query's words `text` holds.
std::size_t WordsFound(std::string_view text, const Words& w) {
  const std::vector<Token> tokens = Tokenize(text);
  std::size_t n = 0;
  for (std::size_t i = 0; i < w.folded.size(); ++i) {
    const bool prefix = w.prefixLast && i + 1 == w.folded.size();
    for (const Token& t : tokens) {
      if (t.folded == w.folded[i] || (prefix && t.folded.rfind(w.folded[i], 0) == 0)) {
        ++n;
        break;
      }
    }
  }
  return n;
}

// The highlight of a hit: its message or note text, or the header field
// that matched (name, email, phone, tags; one per line). A phone is shown
// only to a key that may read customers; the search finds by it either way
// (docs/decisions.md).
SearchHighlight HighlightOf(const ConversationHit& hit, const Words& w, bool mayReadCustomers) {
  if (hit.source != "header") return Snippet(hit.source, hit.text, w);
  static constexpr const char* kFields[] = {"customerName", "customerEmail", "customerPhone", "tags"};
  std::vector<std::string_view> lines;
  std::string_view rest = hit.text;
  for (int i = 0; i < 3; ++i) {
    auto nl = rest.find('\n');
    lines.push_back(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  lines.push_back(rest);
  // The field holding most of the words ("bob@builder.example" is the
  // email, though the name "Bob Builder" holds two of them).
  std::size_t pick = lines.size(), best = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t n = WordsFound(lines[i], w);
    if (n > best) {
      best = n;
      pick = i;
    }
  }
  // Found by the phone's digits alone ("5550102" for "+1 555-0102").
  if (pick == lines.size()) pick = 2;
  if (pick == 2 && !mayReadCustomers) return SearchHighlight{kFields[2], "", {}};
  return Snippet(kFields[pick], lines[pick], w);
}

}  // namespace

Result<Page<ConversationSearchHit>> ConversationService::SearchConversations(const Principal& p, const ConversationFilter& f,
                                                                     const ConversationSearchRequest& s,
                                                                     const PageRequest& page) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  LC_ASSIGN_OR_RETURN(int limit, ResolveLimit(page.limit, ctx_.limits().conversationsDefault, ctx_.limits().conversationsMax));
  LC_ASSIGN_OR_RETURN(ConversationQuery q, ConversationQueryOf(p, f));
  LC_ASSIGN_OR_RETURN(Words words, ParseQuery(s.q));
  ConversationSearch search;
  search.words = words.raw;
  search.prefixLast = words.prefixLast;
  const std::string sort = s.sort.value_or("relevance");
  if (sort != "relevance" && sort != "lastActive") return Invalid(kSortValuesMessage);
  search.byRelevance = sort == "relevance";
  if (page.cursor) {
    constexpr const char* kBadCursor =
        "cursor is not valid for this search: pass paging.nextCursor from the previous page, with the same sort";
    if (search.byRelevance) {
      auto key = DecodeRelevanceCursor(*page.cursor);
      if (!key) return Invalid(kBadCursor);
      search.after = *key;
    } else {
      auto key = DecodeConversationCursor(*page.cursor);
      if (!key) return Invalid(kBadCursor);
      q.after = *key;
    }
  }
  q.limit = limit + 1;
  LC_ASSIGN_OR_RETURN(auto rows, ReadValue<std::vector<ConversationHit>>(ctx_.store(), [&](StoreReader& r) {
                        return r.SearchConversations(q, search);
                      }));
  Page<ConversationSearchHit> out;
  out.hasMore = static_cast<int>(rows.size()) > limit;
  if (out.hasMore) rows.resize(static_cast<std::size_t>(limit));
  if (out.hasMore && !rows.empty()) {
    const auto& last = rows.back();
    const std::int64_t pg = last.conversation.pgConvoId.value_or(0);
    out.nextCursor = search.byRelevance
                         ? EncodeRelevanceCursor({last.relevance, pg})
                         : EncodeConversationCursor({last.conversation.lastActive.value_or(0), pg});
  }
  const bool mayReadCustomers = p.Has(kPermReadCustomers);
  out.items.reserve(rows.size());
  for (auto& hit : rows) {
    SearchHighlight h = HighlightOf(hit, words, mayReadCustomers);
    out.items.push_back({std::move(hit.conversation), std::move(h)});
  }
  return out;
}

}  // namespace livechat
