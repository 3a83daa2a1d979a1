// Conversation search, GET /chat/conversations?q= (issue 18): message and
// note text, the customer's name, email and phone, and tags; folded case and
// diacritics, the last word as a prefix, every list filter, relevance or
// lastActive order with keyset cursors, a highlight of where it matched, and
// nothing redacted or deleted ever found. On SQLite (FTS5) here and on
// PostgreSQL (tsvector, GIN) in the rest_pg entry of ctest.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "livechat/json_codec.h"
#include "support/rest_fixture.h"

namespace livechat {
namespace {

using namespace livechat::testing;

struct Hit {
  std::string id, field, text;
  std::vector<std::pair<int, int>> ranges;
};

struct SearchPage {
  int status = 0;
  std::string code;
  std::vector<Hit> hits;
  std::string nextCursor;
  bool hasMore = false;
};

std::string Encode(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

SearchPage Search(RestFixture& f, const std::string& q, const std::string& extra = "", const std::string& key = "") {
  const std::string target = "/chat/conversations?q=" + Encode(q) + extra;
  Reply r = key.empty() ? f.Get(target) : f.GetWithKey(target, key);
  SearchPage page;
  page.status = r.status();
  if (r.status() != 200) {
    page.code = Str(At(At(r.json, "error"), "code"));
    return page;
  }
  for (const auto& c : r.data().GetArray()) {
    Hit h;
    h.id = Str(At(c, "id"));
    const auto& hl = At(c, "highlight");
    h.field = Str(At(hl, "field"));
    h.text = Str(At(hl, "text"));
    for (const auto& range : At(hl, "ranges").GetArray()) h.ranges.emplace_back(range[0].GetInt(), range[1].GetInt());
    page.hits.push_back(std::move(h));
  }
  const auto& paging = At(r.json, "paging");
  page.nextCursor = paging["nextCursor"].IsNull() ? "" : Str(paging["nextCursor"]);
  page.hasMore = At(paging, "hasMore").GetBool();
  return page;
}

std::vector<std::string> Ids(const SearchPage& p) {
  std::vector<std::string> out;
  for (const auto& h : p.hits) out.push_back(h.id);
  return out;
}

// The substrings a hit's ranges mark (ASCII texts: UTF-16 offsets are bytes).
std::vector<std::string> Marked(const Hit& h) {
  std::vector<std::string> out;
  for (auto [from, to] : h.ranges) out.push_back(h.text.substr(static_cast<std::size_t>(from), static_cast<std::size_t>(to - from)));
  return out;
}

Conversation From(RestFixture& f, const std::string& name, const std::string& email, const std::string& text,
                  const std::string& phone = "") {
  InboundMessageInput in;
  in.customerName = name;
  in.customerEmail = email;
  if (!phone.empty()) in.customerPhone = phone;
  in.text = text;
  return f.Inbound(in);
}

TEST_CASE("search: finds a conversation by its messages, notes, customer name, email, phone and tags") {
  RestFixture f;
  auto ada = From(f, "Ada Lovelace", "ada@analytical.example", "Where is my parcel with the brass gears?", "+1 (555) 010-2000");
  auto bob = From(f, "Bob Builder", "bob@builder.example", "Can I return a hammer?");
  f.clock.Advance(1000);
  REQUIRE(f.Post("/chat/conversations/" + bob.id + "/notes", R"({"text":"Offered a voucher for the scaffolding"})").status() == 201);
  REQUIRE(f.Post("/chat/conversations/" + ada.id + "/tags", R"({"tags":["vip-gold"]})").status() == 200);

  auto message = Search(f, "brass gears");
  REQUIRE(message.status == 200);
  REQUIRE(Ids(message) == std::vector<std::string>{ada.id});
  CHECK(message.hits[0].field == "message");
  CHECK(message.hits[0].text == "Where is my parcel with the brass gears?");
  CHECK(Marked(message.hits[0]) == std::vector<std::string>{"brass", "gears"});

  auto note = Search(f, "scaffolding");
  REQUIRE(Ids(note) == std::vector<std::string>{bob.id});
  CHECK(note.hits[0].field == "note");
  CHECK(Marked(note.hits[0]) == std::vector<std::string>{"scaffolding"});

  auto name = Search(f, "lovelace");
  REQUIRE(Ids(name) == std::vector<std::string>{ada.id});
  CHECK(name.hits[0].field == "customerName");
  CHECK(name.hits[0].text == "Ada Lovelace");
  CHECK(name.hits[0].ranges == std::vector<std::pair<int, int>>{{4, 12}});

  auto email = Search(f, "bob@builder.example");
  REQUIRE(Ids(email) == std::vector<std::string>{bob.id});
  CHECK(email.hits[0].field == "customerEmail");
  CHECK(Marked(email.hits[0]) == std::vector<std::string>{"bob", "builder", "example"});

  // The phone as written, and as digits alone.
  CHECK(Ids(Search(f, "555 010")) == std::vector<std::string>{ada.id});
  auto digits = Search(f, "15550102000");
  REQUIRE(Ids(digits) == std::vector<std::string>{ada.id});
  CHECK(digits.hits[0].field == "customerPhone");
  CHECK(digits.hits[0].text == "+1 (555) 010-2000");

  auto tag = Search(f, "vip gold");
  REQUIRE(Ids(tag) == std::vector<std::string>{ada.id});
  CHECK(tag.hits[0].field == "tags");
  CHECK(tag.hits[0].text == "vip-gold");

  CHECK(Search(f, "submarine").hits.empty());
}

TEST_CASE("search: case and diacritics are folded both ways; the last word is a prefix, the others whole") {
  RestFixture f;
  auto a = From(f, "Zoë Núñez", "zoe@example.com", "Crème brûlée delivered to Zürich, refunding tomorrow");
  auto b = From(f, "Plain Name", "plain@example.com", "CREME BRULEE please");

  auto folded = Search(f, "creme BRULEE");
  const auto foldedIds = Ids(folded);
  CHECK(std::set<std::string>(foldedIds.begin(), foldedIds.end()) == std::set<std::string>{a.id, b.id});
  CHECK(foldedIds.size() == 2);
  CHECK(Ids(Search(f, "ZURICH")) == std::vector<std::string>{a.id});
  CHECK(Ids(Search(f, "zürich")) == std::vector<std::string>{a.id});
  CHECK(Ids(Search(f, "brûlée zuri")) == std::vector<std::string>{a.id});  // search as you type
  CHECK(Ids(Search(f, "nunez")) == std::vector<std::string>{a.id});

  auto accent = Search(f, "zurich");
  REQUIRE(accent.hits.size() == 1);
  // "Zürich" in UTF-16: the marked range covers its 6 units.
  const auto& text = accent.hits[0].text;
  CHECK(text == "Crème brûlée delivered to Zürich, refunding tomorrow");
  CHECK(accent.hits[0].ranges == std::vector<std::pair<int, int>>{{26, 32}});

  CHECK(Ids(Search(f, "refund")) == std::vector<std::string>{a.id});       // last word: prefix
  CHECK(Search(f, "refund tomorrow").hits.empty());                         // not last: whole word
  CHECK(Ids(Search(f, "refunding tomo")) == std::vector<std::string>{a.id});
  // One character is matched whole until a second is typed.
  CHECK(Search(f, "brulee t").hits.empty());
  CHECK(Ids(Search(f, "brulee to")) == std::vector<std::string>{a.id});
}

TEST_CASE("search: every word must be in one text of the conversation") {
  RestFixture f;
  auto c = From(f, "Cara", "cara@example.com", "the parcel is late");
  REQUIRE(f.Post("/chat/conversations/" + c.id + "/messages", R"({"text":"my invoice is wrong","memberId":")" + f.agent.id + "\"}").status() == 201);
  CHECK(Ids(Search(f, "parcel late")) == std::vector<std::string>{c.id});
  CHECK(Ids(Search(f, "invoice wrong")) == std::vector<std::string>{c.id});
  CHECK(Search(f, "parcel invoice").hits.empty());
}

TEST_CASE("search: combines with every list filter") {
  RestFixture f;
  auto open = From(f, "Olive", "olive@example.com", "warranty question");
  auto done = From(f, "Dora", "dora@example.com", "warranty claim");
  auto tagged = From(f, "Tess", "tess@example.com", "warranty again");
  REQUIRE(f.Post("/chat/conversations/" + done.id + "/state", R"({"status":"resolved"})").status() == 200);
  REQUIRE(f.Post("/chat/conversations/" + tagged.id + "/tags", R"({"tags":["priority"]})").status() == 200);
  REQUIRE(f.Post("/chat/conversations/" + open.id + "/assign", R"({"memberId":")" + f.agent.id + "\"}").status() == 200);

  CHECK(Ids(Search(f, "warranty")).size() == 3);
  CHECK(Ids(Search(f, "warranty", "&status=resolved")) == std::vector<std::string>{done.id});
  CHECK(Ids(Search(f, "warranty", "&tag=priority")) == std::vector<std::string>{tagged.id});
  CHECK(Ids(Search(f, "warranty", "&assigneeId=" + f.agent.id)) == std::vector<std::string>{open.id});
  CHECK(Ids(Search(f, "warranty", "&email=DORA@example.com")) == std::vector<std::string>{done.id});
  CHECK(Ids(Search(f, "warranty", "&customerUuid=" + *tagged.customerUuid)) == std::vector<std::string>{tagged.id});
  CHECK(Search(f, "warranty", "&status=resolved&tag=priority").hits.empty());
}

TEST_CASE("search: relevance order by default, lastActive on request, both paged by cursor without gaps") {
  RestFixture f;
  // Oldest: the word three times in a short text ranks first by relevance.
  auto strong = From(f, "Sam", "sam@example.com", "voucher voucher voucher");
  f.clock.Advance(1000);
  auto weak = From(f, "Wes", "wes@example.com",
                   "I have a long question about many things, one of which is a voucher that I received last "
                   "month along with a parcel, a letter and several other items I did not order at all");
  f.clock.Advance(1000);
  auto rel = Search(f, "voucher");
  REQUIRE(Ids(rel) == std::vector<std::string>{strong.id, weak.id});
  auto recent = Search(f, "voucher", "&sort=lastActive");
  REQUIRE(Ids(recent) == std::vector<std::string>{weak.id, strong.id});

  std::set<std::string> all{strong.id, weak.id};
  for (int i = 0; i < 23; ++i) {
    f.clock.Advance(1000);
    all.insert(From(f, "N" + std::to_string(i), "n" + std::to_string(i) + "@example.com",
                    "voucher number " + std::to_string(i) + std::string(static_cast<std::size_t>(i % 5), '!'))
                   .id);
  }
  for (const std::string sort : {"", "&sort=relevance", "&sort=lastActive"}) {
    CAPTURE(sort);
    std::vector<std::string> seen;
    std::string cursor;
    int pages = 0;
    for (;;) {
      auto p = Search(f, "voucher", "&limit=10" + sort + (cursor.empty() ? "" : "&cursor=" + cursor));
      REQUIRE(p.status == 200);
      ++pages;
      for (const auto& id : Ids(p)) seen.push_back(id);
      if (!p.hasMore) {
        CHECK(p.nextCursor.empty());
        break;
      }
      cursor = p.nextCursor;
    }
    CHECK(pages == 3);
    CHECK(seen.size() == 25);
    CHECK(std::set<std::string>(seen.begin(), seen.end()) == all);
  }
  // A cursor belongs to its order.
  auto first = Search(f, "voucher", "&limit=5");
  REQUIRE(first.hasMore);
  auto crossed = Search(f, "voucher", "&limit=5&sort=lastActive&cursor=" + first.nextCursor);
  CHECK(crossed.status == 400);
  CHECK(crossed.code == "INVALID_PARAMS");
}

TEST_CASE("search: edited and deleted notes, redacted customers and other stores are never found") {
  RestFixture f;
  auto c = From(f, "Rita Redact", "rita@example.com", "hello there", "+44 20 7946 0000");
  Reply note = f.Post("/chat/conversations/" + c.id + "/notes", R"({"text":"suspicious chargeback pattern"})");
  REQUIRE(note.status() == 201);
  const std::string noteId = Str(At(note.data(), "id"));
  CHECK(Ids(Search(f, "chargeback")) == std::vector<std::string>{c.id});

  REQUIRE(f.Call("PUT", "/chat/conversations/" + c.id + "/notes/" + noteId, R"({"text":"all clear now"})").status() == 200);
  CHECK(Search(f, "chargeback").hits.empty());
  CHECK(Ids(Search(f, "clear")) == std::vector<std::string>{c.id});
  REQUIRE(f.Call("DELETE", "/chat/conversations/" + c.id + "/notes/" + noteId).status() == 200);
  CHECK(Search(f, "clear").hits.empty());

  CHECK(Ids(Search(f, "rita")) == std::vector<std::string>{c.id});
  CHECK(Ids(Search(f, "442079460000")) == std::vector<std::string>{c.id});
  PlatformRequestInput redact;
  redact.topic = platform_topic::kCustomersRedact;
  redact.customerEmail = "rita@example.com";
  redact.bodyDigest = "d";
  auto applied = f.service().privacy().ApplyPlatformRequest(f.sys, redact);
  REQUIRE(applied.ok());
  REQUIRE(applied->outcome == "applied");
  CHECK(Search(f, "rita").hits.empty());
  CHECK(Search(f, "redact").hits.empty());
  CHECK(Search(f, "example").hits.empty());
  CHECK(Search(f, "442079460000").hits.empty());
  // The messages are the history the redaction keeps (spec rule 8).
  CHECK(Ids(Search(f, "hello")) == std::vector<std::string>{c.id});

  // Another store's conversation with the same words is not this store's.
  Shop other = f.NewShop("Other store");
  InboundMessageInput in;
  in.customerName = "Otto";
  in.customerEmail = "otto@example.com";
  in.text = "hello there from elsewhere";
  f.Inbound(in, other.id);
  CHECK(Ids(Search(f, "hello")) == std::vector<std::string>{c.id});
  CHECK(Search(f, "elsewhere").hits.empty());
  CHECK(Search(f, "otto").hits.empty());
}

TEST_CASE("search: a long message is shown as a snippet around the first match") {
  RestFixture f;
  std::string lead;
  for (int i = 0; i < 20; ++i) lead += "filler" + std::to_string(i) + " ";
  std::string tail;
  for (int i = 0; i < 40; ++i) tail += " trailing" + std::to_string(i);
  auto c = From(f, "Long", "long@example.com", lead + "the tracking number changed" + tail);
  auto p = Search(f, "tracking");
  REQUIRE(Ids(p) == std::vector<std::string>{c.id});
  const Hit& h = p.hits[0];
  CHECK(h.text.rfind("\u2026", 0) == 0);                               // starts with an ellipsis
  CHECK(h.text.size() >= 3);
  CHECK(h.text.substr(h.text.size() - 3) == "\u2026");                 // and ends with one
  CHECK(Marked(h).size() == 1);
  // The ellipsis is one UTF-16 unit and three bytes: the range is in units.
  const std::size_t at = h.text.find("tracking");
  REQUIRE(at != std::string::npos);
  CHECK(h.ranges[0] == std::pair<int, int>{static_cast<int>(at) - 2, static_cast<int>(at) - 2 + 8});
  CHECK(h.text.find("filler19 the tracking number") != std::string::npos);
}

TEST_CASE("search: limits and bad input answer 400 and say what to fix") {
  RestFixture f;
  From(f, "Lim", "lim@example.com", "word");
  CHECK(Search(f, std::string(200, 'w')).status == 200);
  auto longer = Search(f, std::string(201, 'w'));
  CHECK(longer.status == 400);
  CHECK(longer.code == "INVALID_PARAMS");
  CHECK(Search(f, "a b c d e f g h i word").status == 200);  // 10 words
  CHECK(Search(f, "a b c d e f g h i j word").status == 400);  // 11
  CHECK(Search(f, "?!  --").status == 400);
  CHECK(Search(f, "").status == 400);
  CHECK(Search(f, "word", "&sort=newest").status == 400);
  CHECK(Search(f, "word", "&cursor=nope").status == 400);
  Reply relevanceWithoutQ = f.Get("/chat/conversations?sort=relevance");
  CHECK(relevanceWithoutQ.status() == 400);
  CHECK(relevanceWithoutQ.code() == "INVALID_PARAMS");
  CHECK(relevanceWithoutQ.message() == "sort=relevance needs q: relevance is the order of a search");
  Reply unknownWithoutQ = f.Get("/chat/conversations?sort=newest");
  CHECK(unknownWithoutQ.status() == 400);
  CHECK(unknownWithoutQ.message() == "sort must be relevance or lastActive");
  CHECK(f.Get("/chat/conversations?sort=lastActive").status() == 200);
  // FTS and tsquery syntax in the words is text, not syntax.
  CHECK(Search(f, "word\" OR \"x").status == 200);
  CHECK(Search(f, "word' & !x:*").status == 200);
  CHECK(Search(f, "NEAR(word x) body:word *").status == 200);
}

TEST_CASE("search: the key needs Read conversations; the phone is shown only to keys that may read customers") {
  RestFixture f;
  auto c = From(f, "Pia", "pia@example.com", "hi", "+1 555 777 1234");
  const std::string noRead = f.NewKey(kPermReadCustomers);
  CHECK(Search(f, "pia", "", noRead).status == 403);
  const std::string convOnly = f.NewKey(kPermReadConversations);
  auto p = Search(f, "15557771234", "", convOnly);
  REQUIRE(Ids(p) == std::vector<std::string>{c.id});
  CHECK(p.hits[0].field == "customerPhone");
  CHECK(p.hits[0].text.empty());
  CHECK(p.hits[0].ranges.empty());
  auto full = Search(f, "15557771234");
  REQUIRE(full.hits.size() == 1);
  CHECK(full.hits[0].text == "+1 555 777 1234");
}

}  // namespace
}  // namespace livechat
