// The conversation search's last word, a prefix (search as you type): what
// it matches is the same on every backend, whatever a backend does to make
// it cheap. PostgreSQL expands a prefix into the few whole words it stands
// for, read from a vocabulary every shop's texts fill (pg_queries.cc), so
// these cases cover what that could get wrong: one word, several, none, a
// word of another shop, a word written after the first search, a word no
// longer in any text, and more words than it expands.
#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

// More words with one prefix than PostgreSQL expands (kMaxPrefixLexemes in
// pg_queries.cc is 8): that prefix is searched as a prefix.
constexpr int kManyWords = 40;

void AddConversation(Store& s, const std::string& shop, const std::string& id, Millis lastActive,
                     const std::vector<std::string>& texts, const std::string& customerName = "") {
  Put(s, [&](StoreWriter& w) -> Status {
    Conversation c = MakeConversation(shop, id, lastActive);
    if (!customerName.empty()) c.customerName = customerName;
    LC_RETURN_IF_ERROR(w.InsertConversation(c));
    for (std::size_t i = 0; i < texts.size(); ++i) {
      Message m = MakeMessage(shop, id, id + "-m" + std::to_string(i), lastActive);
      m.text = texts[i];
      LC_RETURN_IF_ERROR(w.InsertMessage(m));
    }
    return Status::Ok();
  });
}

// The ids of the conversations found, newest first (the list's order, so
// every backend answers in the same order).
std::vector<std::string> Find(Store& s, const std::string& shop, std::vector<std::string> words) {
  ConversationQuery q;
  q.shopId = shop;
  q.limit = 100;
  ConversationSearch search;
  search.words = std::move(words);
  search.byRelevance = false;
  auto hits = Get(s, [&](StoreReader& r) { return r.SearchConversations(q, search); });
  std::vector<Conversation> found;
  for (auto& h : hits) found.push_back(std::move(h.conversation));
  return Ids(found);
}

}  // namespace

STORE_TEST("search: a last-word prefix matches every word it starts, one or several, and none") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversation(s, kShopA, "c1", 100, {"the parcel arrived damaged"});
  AddConversation(s, kShopA, "c2", 200, {"two parcels are late"});
  AddConversation(s, kShopA, "c3", 300, {"a parchment invoice"});
  AddConversation(s, kShopA, "c4", 400, {"the part is missing"});

  CHECK(Find(s, kShopA, {"parchm"}) == std::vector<std::string>{"c3"});               // one word
  CHECK(Find(s, kShopA, {"parc"}) == std::vector<std::string>{"c3", "c2", "c1"});     // three words
  CHECK(Find(s, kShopA, {"parcel"}) == std::vector<std::string>{"c2", "c1"});         // itself and a longer one
  CHECK(Find(s, kShopA, {"par"}) == std::vector<std::string>{"c4", "c3", "c2", "c1"});
  CHECK(Find(s, kShopA, {"damaged", "parc"}) == std::vector<std::string>{"c1"});
  CHECK(Find(s, kShopA, {"PARC"}) == std::vector<std::string>{"c3", "c2", "c1"});     // folded as the texts
  CHECK(Find(s, kShopA, {"parq"}).empty());                                           // no word starts so
  CHECK(Find(s, kShopA, {"damaged", "parq"}).empty());
  // Only the last word is a prefix.
  CHECK(Find(s, kShopA, {"parc", "damaged"}).empty());
}

STORE_TEST("search: a prefix whose words are only in another shop finds nothing in this one") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversation(s, kShopA, "a1", 100, {"the parcel arrived damaged"});
  AddConversation(s, kShopB, "b1", 200, {"a quokka parcel, damaged"}, "Quentin Quokkason");

  CHECK(Find(s, kShopA, {"quok"}).empty());
  CHECK(Find(s, kShopA, {"damaged", "quok"}).empty());
  CHECK(Find(s, kShopA, {"quentin"}).empty());
  CHECK(Find(s, kShopB, {"quok"}) == std::vector<std::string>{"b1"});
  CHECK(Find(s, kShopB, {"quen"}) == std::vector<std::string>{"b1"});
  // A prefix both shops' words start with: each shop finds its own.
  CHECK(Find(s, kShopA, {"damaged", "parc"}) == std::vector<std::string>{"a1"});
  CHECK(Find(s, kShopB, {"damaged", "parc"}) == std::vector<std::string>{"b1"});
}

STORE_TEST("search: a word written after a search is found by its prefix at once; one no longer written is not") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversation(s, kShopA, "c1", 100, {"hello there"});
  CHECK(Find(s, kShopA, {"womb"}).empty());
  CHECK(Find(s, kShopA, {"ferdin"}).empty());
  CHECK(Find(s, kShopA, {"nautil"}).empty());

  Put(s, [&](StoreWriter& w) {
    Message m = MakeMessage(kShopA, "c1", "c1-later", 150);
    m.text = "wombats everywhere";
    return w.InsertMessage(m);
  });
  CHECK(Find(s, kShopA, {"womb"}) == std::vector<std::string>{"c1"});
  AddConversation(s, kShopA, "c2", 200, {"ahoy"}, "Ferdinand Magellan");  // a header's word
  CHECK(Find(s, kShopA, {"ferdin"}) == std::vector<std::string>{"c2"});
  Put(s, [&](StoreWriter& w) { return w.InsertNote(Note{"n1", kShopA, "c2", "nautilus sighted", false, 210, 210}); });
  CHECK(Find(s, kShopA, {"nautil"}) == std::vector<std::string>{"c2"});

  // Deleted and edited texts: their words stay known to PostgreSQL's
  // vocabulary, and still nothing matches them.
  auto gone = Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", "c1-later"); });
  REQUIRE(gone.has_value());
  gone->isDeleted = true;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateMessage(*gone); }) == true);
  CHECK(Find(s, kShopA, {"womb"}).empty());
  CHECK(PutValue(s, [&](StoreWriter& w) {
          return w.UpdateNote(Note{"n1", kShopA, "c2", "kraken sighted", false, 210, 220});
        }) == true);
  CHECK(Find(s, kShopA, {"nautil"}).empty());
  CHECK(Find(s, kShopA, {"krak"}) == std::vector<std::string>{"c2"});
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteNote(kShopA, "c2", "n1"); }) == true);
  CHECK(Find(s, kShopA, {"krak"}).empty());
}

STORE_TEST("search: a prefix standing for more words than are expanded still matches every one") {
  StoreFixture fx;
  Store& s = fx.store();
  std::vector<std::string> all;
  for (int i = 0; i < kManyWords; ++i) {
    const std::string id = "c" + std::to_string(100 + i);
    const std::string word = "zqa" + std::string(1, static_cast<char>('0' + i / 10)) + std::to_string(i % 10);
    AddConversation(s, kShopA, id, 1000 + i, {"item " + word});
    all.insert(all.begin(), id);
  }
  CHECK(Find(s, kShopA, {"zqa"}) == all);
  CHECK(Find(s, kShopA, {"item", "zqa"}) == all);
  // zqa10 to zqa19: ten words.
  CHECK(Find(s, kShopA, {"item", "zqa1"}) ==
        std::vector<std::string>{"c119", "c118", "c117", "c116", "c115", "c114", "c113", "c112", "c111", "c110"});
  CHECK(Find(s, kShopA, {"item", "zqa19"}) == std::vector<std::string>{"c119"});
  CHECK(Find(s, kShopA, {"item", "zqa4"}).empty());
  CHECK(Find(s, kShopB, {"zqa"}).empty());
}

STORE_TEST("search: a message edited, deleted or removed in the write that inserted it is found as it ended") {
  // SQLite indexes a new message as its transaction commits, not as it is
  // inserted (FlushDeferredMessageSearch): what the write did to it after
  // the insert must be what the index holds.
  StoreFixture fx;
  Store& s = fx.store();
  AddConversation(s, kShopA, "c1", 100, {});
  Put(s, [&](StoreWriter& w) -> Status {
    Message edited = MakeMessage(kShopA, "c1", "m1", 101);
    edited.text = "draft wording";
    LC_RETURN_IF_ERROR(w.InsertMessage(edited));
    edited.text = "final wording";
    LC_ASSIGN_OR_RETURN(bool changed, w.UpdateMessage(edited));
    if (!changed) return Error{ErrorCode::kInternal, "m1 not updated"};
    Message deleted = MakeMessage(kShopA, "c1", "m2", 102);
    deleted.text = "withdrawn remark";
    LC_RETURN_IF_ERROR(w.InsertMessage(deleted));
    deleted.isDeleted = true;
    LC_ASSIGN_OR_RETURN(changed, w.UpdateMessage(deleted));
    if (!changed) return Error{ErrorCode::kInternal, "m2 not updated"};
    Message kept = MakeMessage(kShopA, "c1", "m3", 103);
    kept.text = "kept sentence";
    return w.InsertMessage(kept);
  });
  CHECK(Find(s, kShopA, {"final"}) == std::vector<std::string>{"c1"});
  CHECK(Find(s, kShopA, {"wording"}) == std::vector<std::string>{"c1"});
  CHECK(Find(s, kShopA, {"draft"}).empty());
  CHECK(Find(s, kShopA, {"withdrawn"}).empty());
  CHECK(Find(s, kShopA, {"kept"}) == std::vector<std::string>{"c1"});
  // A write that fails undoes its message's search row with the message.
  Status refused = s.Write([&](StoreWriter& w) -> Status {
    Message m = MakeMessage(kShopA, "c1", "m4", 104);
    m.text = "vanishing phrase";
    LC_RETURN_IF_ERROR(w.InsertMessage(m));
    return Error{ErrorCode::kConflict, "refused after writing"};
  });
  CHECK_FALSE(refused.ok());
  CHECK(Find(s, kShopA, {"vanishing"}).empty());
  // The next write's message is found, and only it.
  AddConversation(s, kShopA, "c2", 200, {"vanishing act"});
  CHECK(Find(s, kShopA, {"vanishing"}) == std::vector<std::string>{"c2"});
}

}  // namespace livechat::testing
