// Store conformance, conversations (ConversationReads, ConversationWrites in
// livechat/store/conversations.h): round trips, lookups, the list's order and
// keyset pages, every filter, tags. Every Store must pass it. Search has its
// own file (store_search_conformance).
#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

// ------------------------------ conversations (ConversationReads, ConversationWrites)

STORE_TEST("conversations: full and sparse round trip; pgConvoId assigned on insert") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation full = MakeFullConversation(kShopA, "c-full");
  Conversation sparse;
  sparse.id = "c-sparse";
  sparse.shopId = kShopA;
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertConversation(full));
    return w.InsertConversation(sparse);
  });
  REQUIRE(full.pgConvoId.has_value());
  REQUIRE(sparse.pgConvoId.has_value());
  CHECK(*full.pgConvoId > 0);
  CHECK(*sparse.pgConvoId > *full.pgConvoId);

  auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c-full"); });
  REQUIRE(got.has_value());
  CheckSame(*got, full);
  got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c-sparse"); });
  REQUIRE(got.has_value());
  CheckSame(*got, sparse);
  CHECK_FALSE(got->lastMessage.has_value());
  CHECK_FALSE(got->lastActive.has_value());
  CHECK(got->tags.empty());

  // A migrated record keeps the pg id it brings.
  Conversation migrated = MakeConversation(kShopA, "c-migrated", 50);
  migrated.pgConvoId = 9000;
  Put(s, [&](StoreWriter& w) { return w.InsertConversation(migrated); });
  CHECK(migrated.pgConvoId == std::optional<std::int64_t>(9000));
  got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "9000"); });
  REQUIRE(got.has_value());
  CHECK(got->id == "c-migrated");
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.InsertConversation(full); }));
}

STORE_TEST("conversations: FindConversation by id, firestoreId and pgConvoId, within the shop only") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation c = MakeFullConversation(kShopA, "c1");
  Put(s, [&](StoreWriter& w) { return w.InsertConversation(c); });
  const std::string pg = std::to_string(*c.pgConvoId);

  for (const std::string& form : {std::string("c1"), std::string("fs-c1"), pg}) {
    CAPTURE(form);
    auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, form); });
    REQUIRE(got.has_value());
    CHECK(got->id == "c1");
    CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindConversation(kShopB, form); }).has_value());
    // The id alone, by the same rules.
    CHECK(Get(s, [&](StoreReader& r) { return r.FindConversationId(kShopA, form); }) ==
          std::optional<std::string>("c1"));
    CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindConversationId(kShopB, form); }).has_value());
  }
  for (const std::string& missing : {std::string("nope"), std::string("987654321"), std::string(""),
                                     std::string("99999999999999999999999")}) {
    CAPTURE(missing);
    CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, missing); }).has_value());
    CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindConversationId(kShopA, missing); }).has_value());
  }
}

STORE_TEST("conversations: FindConversationId follows FindConversation's precedence when forms collide") {
  StoreFixture fx;
  Store& s = fx.store();
  // "b"'s firestoreId is "a"'s id: the id wins. "c"'s firestoreId is "a"'s
  // pgConvoId: the firestoreId wins over the pgConvoId.
  Conversation a = MakeConversation(kShopA, "a", 1);
  Put(s, [&](StoreWriter& w) { return w.InsertConversation(a); });
  Conversation b = MakeConversation(kShopA, "b", 2);
  b.firestoreId = "a";
  Conversation c = MakeConversation(kShopA, "c", 3);
  c.firestoreId = std::to_string(*a.pgConvoId);
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertConversation(b));
    return w.InsertConversation(c);
  });
  for (const std::string& form : {std::string("a"), std::to_string(*a.pgConvoId)}) {
    CAPTURE(form);
    auto whole = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, form); });
    REQUIRE(whole.has_value());
    CHECK(Get(s, [&](StoreReader& r) { return r.FindConversationId(kShopA, form); }) ==
          std::optional<std::string>(whole->id));
  }
  CHECK(Get(s, [&](StoreReader& r) { return r.FindConversationId(kShopA, "a"); }) == std::optional<std::string>("a"));
  CHECK(Get(s, [&](StoreReader& r) { return r.FindConversationId(kShopA, std::to_string(*a.pgConvoId)); }) ==
        std::optional<std::string>("c"));
}

STORE_TEST("conversations: legacy records are found but never listed and have no pgConvoId") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation legacy = MakeConversation(kShopA, "c-legacy", 5000);
  legacy.inNewDatastore = false;
  legacy.firestoreId = "legacy-fs";
  Conversation listed = MakeConversation(kShopA, "c-new", 1000);
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertConversation(legacy));
    return w.InsertConversation(listed);
  });
  CHECK_FALSE(legacy.pgConvoId.has_value());

  for (const char* form : {"c-legacy", "legacy-fs"}) {
    auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, form); });
    REQUIRE(got.has_value());
    CheckSame(*got, legacy);
  }
  CHECK(ListIds(s, Query(kShopA)) == std::vector<std::string>{"c-new"});
  ConversationQuery q = Query(kShopA);
  q.status = "open";
  CHECK(ListIds(s, q) == std::vector<std::string>{"c-new"});
}

STORE_TEST("conversations: legacy records in import order, counted per shop, and migrated by an update") {
  StoreFixture fx;
  Store& s = fx.store();
  std::vector<Conversation> legacy;
  for (const char* id : {"l-b", "l-a", "l-c"}) {
    Conversation c = MakeConversation(kShopA, id, 100);
    c.inNewDatastore = false;
    c.firestoreId = std::string("fs-") + id;
    legacy.push_back(c);
  }
  Conversation other = MakeConversation(kShopB, "l-other", 100);
  other.inNewDatastore = false;
  Conversation listed = MakeConversation(kShopA, "c-new", 1000);
  Put(s, [&](StoreWriter& w) -> Status {
    for (Conversation& c : legacy) LC_RETURN_IF_ERROR(w.InsertConversation(c));
    LC_RETURN_IF_ERROR(w.InsertConversation(other));
    return w.InsertConversation(listed);
  });
  auto ids = [&](int limit) {
    std::vector<std::string> out;
    for (const auto& c : Get(s, [&](StoreReader& r) { return r.ListLegacyConversations(kShopA, limit); }))
      out.push_back(c.id);
    return out;
  };
  CHECK(ids(10) == std::vector<std::string>{"l-b", "l-a", "l-c"});  // insertion order, not id order
  CHECK(ids(2) == std::vector<std::string>{"l-b", "l-a"});
  CHECK(ids(0).empty());
  CHECK(Get(s, [&](StoreReader& r) { return r.CountLegacyConversations(kShopA); }) == 3);
  CHECK(Get(s, [&](StoreReader& r) { return r.CountLegacyConversations(kShopB); }) == 1);
  CHECK(Get(s, [&](StoreReader& r) { return r.CountLegacyConversations("no-such-shop"); }) == 0);

  Conversation moved = legacy[1];
  moved.inNewDatastore = true;
  Put(s, [&](StoreWriter& w) -> Status {
    // The narrow update (with `before`) moves the row like the full one.
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(moved, legacy[1]));
    return ok ? Status::Ok() : Status(Error{ErrorCode::kInternal, "no row"});
  });
  CHECK(ids(10) == std::vector<std::string>{"l-b", "l-c"});
  CHECK(Get(s, [&](StoreReader& r) { return r.CountLegacyConversations(kShopA); }) == 2);
  auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "l-a"); });
  REQUIRE(got.has_value());
  CHECK(got->inNewDatastore);
  REQUIRE(got->pgConvoId.has_value());
  CHECK(ListIds(s, Query(kShopA)) == std::vector<std::string>{"c-new", "l-a"});
}

STORE_TEST("conversations: UpdateConversation writes every column except tags") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation c = MakeFullConversation(kShopA, "c1");
  Put(s, [&](StoreWriter& w) { return w.InsertConversation(c); });
  const std::vector<std::string> originalTags = c.tags;

  Conversation u = c;
  u.firestoreId.reset();
  u.sessionId = "sess-2";
  u.customerUuid.reset();
  u.customerName = "Other";
  u.customerEmail.reset();
  u.customerType = "customer";
  u.status = "open";
  u.isChatBot = false;
  u.hasChatBot = false;
  u.isRead = false;
  u.isCustomerRead = true;
  u.isOnline = false;
  u.isBlock = false;
  u.isStarred = false;
  u.hasFirstMsg = false;
  u.hidePreChatMessage = "";
  u.memberId.reset();
  u.channel = "email";
  u.channels = {"email"};
  u.tags = {"ignored-by-update"};
  u.messageCount.reset();
  u.lastMessage.reset();
  u.lastActive = 42;
  u.createdAt.reset();
  u.updatedAt = 43;
  u.lastCustomerMessageAt.reset();
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(u); }) == true);

  auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c1"); });
  REQUIRE(got.has_value());
  Conversation expected = u;
  expected.tags = originalTags;
  CheckSame(*got, expected);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListTagCatalog(kShopA); }).size() == originalTags.size());

  Conversation other = u;
  other.shopId = kShopB;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(other); }) == false);
  Conversation missing = u;
  missing.id = "c-missing";
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(missing); }) == false);
}

STORE_TEST("conversations: UpdateConversation(c, before) writes only the fields that differ from before") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation c = MakeFullConversation(kShopA, "c1");
  Put(s, [&](StoreWriter& w) { return w.InsertConversation(c); });

  // Every field changed: the row reads back as the full update writes it.
  Conversation u = c;
  u.sessionId = "sess-2";
  u.customerName = "Other";
  u.customerEmail.reset();
  u.status = "closed";
  u.isStarred = !c.isStarred;
  u.memberId.reset();
  u.channels = {"email", "sms"};
  u.messageCount = 7;
  u.lastMessage = LastMessage{"hi there", "agent", 41};
  u.lastActive = 42;
  u.updatedAt = 43;
  u.redactedAt = 44;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(u, c); }) == true);
  auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c1"); });
  REQUIRE(got.has_value());
  CheckSame(*got, u);

  // A field equal in `before` and in the new row is not written: the row
  // keeps what is stored, here a star set since `before` was read.
  Conversation starred = *got;
  starred.isStarred = true;
  starred.status = "open";
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(starred); }) == true);
  Conversation before = starred;  // read before the star was set
  before.isStarred = false;
  Conversation next = before;
  next.status = "closed";
  next.updatedAt = 50;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(next, before); }) == true);
  got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c1"); });
  REQUIRE(got.has_value());
  CHECK(got->isStarred == true);
  CHECK(got->status == "closed");
  CHECK(got->updatedAt == 50);

  // Nothing changed: the answer is still whether the row exists.
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(*got, *got); }) == true);
  Conversation missing = *got;
  missing.id = "c-missing";
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(missing, missing); }) == false);
  Conversation missingChanged = missing;
  missingChanged.status = "open";
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(missingChanged, missing); }) == false);
  Conversation other = next;
  other.shopId = kShopB;
  Conversation otherBefore = other;
  otherBefore.status = "open";
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(other, otherBefore); }) == false);
  got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c1"); });
  REQUIRE(got.has_value());
  CHECK(got->status == "closed");  // the other store's write touched nothing
}

// ------------------------------ list order and paging (ConversationReads)

STORE_TEST("conversations: list order lastActive DESC, pgConvoId DESC; keyset pages of 100,100,50") {
  StoreFixture fx;
  Store& s = fx.store();
  std::vector<Conversation> all;
  Put(s, [&](StoreWriter& w) -> Status {
    for (int i = 0; i < 250; ++i) {
      // A scrambled lastActive shared by runs of three: order is not
      // insertion order, and ties must fall back to pgConvoId.
      Millis lastActive = 1'000'000 + ((i * 37) % 250 / 3) * 1000;
      Conversation c = MakeConversation(kShopA, "c" + std::to_string(i), lastActive);
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
      all.push_back(c);
    }
    return Status::Ok();
  });
  std::sort(all.begin(), all.end(), [](const Conversation& a, const Conversation& b) {
    if (*a.lastActive != *b.lastActive) return *a.lastActive > *b.lastActive;
    return *a.pgConvoId > *b.pgConvoId;
  });

  std::vector<std::string> seen;
  std::vector<size_t> pageSizes;
  ConversationQuery q = Query(kShopA, 100);
  for (int page = 0; page < 10; ++page) {
    auto rows = Get(s, [&](StoreReader& r) { return r.ListConversations(q); });
    if (rows.empty()) break;
    pageSizes.push_back(rows.size());
    for (const auto& c : rows) seen.push_back(c.id);
    q.after = ConversationKey{*rows.back().lastActive, *rows.back().pgConvoId};
  }
  CHECK(pageSizes == std::vector<size_t>{100, 100, 50});
  CHECK(Ids(all) == seen);
  CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == 250);
}

STORE_TEST("conversations: keyset position is exclusive and ties continue by pgConvoId") {
  StoreFixture fx;
  Store& s = fx.store();
  // Same lastActive for all three: the order is pgConvoId DESC.
  Put(s, [&](StoreWriter& w) -> Status {
    for (const char* id : {"a", "b", "c"}) {
      Conversation c = MakeConversation(kShopA, id, 777);
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
    }
    return Status::Ok();
  });
  CHECK(ListIds(s, Query(kShopA)) == std::vector<std::string>{"c", "b", "a"});
  auto b = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "b"); });
  REQUIRE(b.has_value());
  ConversationQuery q = Query(kShopA);
  q.after = ConversationKey{777, *b->pgConvoId};
  CHECK(ListIds(s, q) == std::vector<std::string>{"a"});
  q.after = ConversationKey{778, 0};
  CHECK(ListIds(s, q) == std::vector<std::string>{"c", "b", "a"});
  q.after = ConversationKey{777, 0};
  CHECK(ListIds(s, q).empty());
}

STORE_TEST("conversations: a missing lastActive sorts as 0") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation none;
  none.id = "no-activity";
  none.shopId = kShopA;
  Conversation some = MakeConversation(kShopA, "active", 5);
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertConversation(none));
    return w.InsertConversation(some);
  });
  CHECK(ListIds(s, Query(kShopA)) == std::vector<std::string>{"active", "no-activity"});
  ConversationQuery q = Query(kShopA);
  q.after = ConversationKey{5, *some.pgConvoId};
  CHECK(ListIds(s, q) == std::vector<std::string>{"no-activity"});
}

// ------------------------------ filters (ConversationReads)

struct FilterSet {
  std::string id;
  std::string status;
  std::string channel;
  std::optional<std::string> memberId;
  bool isRead;
  std::vector<std::string> tags;
  std::string customerUuid;
  std::optional<std::string> email;
  Millis lastActive;
};

// c1..c5 listed in shop A (order by lastActive: c5, c4, c3, c2, c1), a legacy
// twin of c4 and a shop-B record that must never appear.
void AddFilterData(Store& s) {
  const std::vector<FilterSet> rows = {
      {"c1", "open", "online_store", "m1", false, {"vip"}, "u1", "Ann@Example.com", 100},
      {"c2", "resolved", "email", std::nullopt, true, {"vip", "refund"}, "u1", "ann@example.com", 200},
      {"c3", "open", "whatsapp", "m2", true, {"refund"}, "u2", "bob@example.com", 300},
      {"c4", "open", "online_store", std::nullopt, false, {}, "u2", std::nullopt, 400},
      {"c5", "resolved", "online_store", "m1", true, {"other"}, "u3", "ANN@EXAMPLE.COM", 500},
  };
  Put(s, [&](StoreWriter& w) -> Status {
    for (const auto& r : rows) {
      Conversation c = MakeConversation(kShopA, r.id, r.lastActive);
      c.status = r.status;
      c.channel = r.channel;
      c.memberId = r.memberId;
      c.isRead = r.isRead;
      c.tags = r.tags;
      c.customerUuid = r.customerUuid;
      c.customerEmail = r.email;
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
    }
    Conversation legacy = MakeConversation(kShopA, "c-legacy", 600);
    legacy.inNewDatastore = false;
    legacy.customerUuid = "u2";
    legacy.tags = {"vip"};
    LC_RETURN_IF_ERROR(w.InsertConversation(legacy));
    Conversation foreign = MakeConversation(kShopB, "c-b", 700);
    foreign.customerUuid = "u1";
    foreign.tags = {"vip"};
    foreign.memberId = "m1";
    foreign.customerEmail = "ann@example.com";
    return w.InsertConversation(foreign);
  });
}

STORE_TEST("conversations: each filter alone") {
  StoreFixture fx;
  Store& s = fx.store();
  AddFilterData(s);
  ConversationQuery q = Query(kShopA);
  CHECK(ListIds(s, q) == Ids_{"c5", "c4", "c3", "c2", "c1"});

  SUBCASE("status") {
    q.status = "open";
    CHECK(ListIds(s, q) == Ids_{"c4", "c3", "c1"});
    q.status = "resolved";
    CHECK(ListIds(s, q) == Ids_{"c5", "c2"});
  }
  SUBCASE("channel") {
    q.channel = "online_store";
    CHECK(ListIds(s, q) == Ids_{"c5", "c4", "c1"});
    q.channel = "whatsapp";
    CHECK(ListIds(s, q) == Ids_{"c3"});
    q.channel = "facebook";
    CHECK(ListIds(s, q).empty());
  }
  SUBCASE("assigneeId") {
    q.assigneeId = "m1";
    CHECK(ListIds(s, q) == Ids_{"c5", "c1"});
  }
  SUBCASE("unassignedOnly") {
    q.unassignedOnly = true;
    CHECK(ListIds(s, q) == Ids_{"c4", "c2"});
  }
  SUBCASE("isRead") {
    q.isRead = true;
    CHECK(ListIds(s, q) == Ids_{"c5", "c3", "c2"});
    q.isRead = false;
    CHECK(ListIds(s, q) == Ids_{"c4", "c1"});
  }
  SUBCASE("tagsAny") {
    q.tagsAny = {"vip"};
    CHECK(ListIds(s, q) == Ids_{"c2", "c1"});
    q.tagsAny = {"refund", "other"};
    CHECK(ListIds(s, q) == Ids_{"c5", "c3", "c2"});
    q.tagsAny = {"vip", "refund"};  // c2 carries both and appears once
    CHECK(ListIds(s, q) == Ids_{"c3", "c2", "c1"});
    q.tagsAny = {"VIP"};  // tags match exactly
    CHECK(ListIds(s, q).empty());
    q.tagsAny = {"none"};
    CHECK(ListIds(s, q).empty());
  }
  SUBCASE("customerUuid") {
    q.customerUuid = "u2";
    CHECK(ListIds(s, q) == Ids_{"c4", "c3"});
  }
  SUBCASE("email, case-insensitive") {
    q.email = "aNN@example.COM";
    CHECK(ListIds(s, q) == Ids_{"c5", "c2", "c1"});
    q.email = "bob@example.com";
    CHECK(ListIds(s, q) == Ids_{"c3"});
  }
  SUBCASE("excludeId") {
    q.excludeId = "c3";
    CHECK(ListIds(s, q) == Ids_{"c5", "c4", "c2", "c1"});
  }
  SUBCASE("limit") {
    q.limit = 2;
    CHECK(ListIds(s, q) == Ids_{"c5", "c4"});
    q.limit = 1;
    CHECK(ListIds(s, q) == Ids_{"c5"});
  }
  SUBCASE("other shop sees only its own") {
    CHECK(ListIds(s, Query(kShopB)) == Ids_{"c-b"});
    CHECK(ListIds(s, Query("shop-c")).empty());
  }
}

STORE_TEST("conversations: filters combined, with keyset continuation") {
  StoreFixture fx;
  Store& s = fx.store();
  AddFilterData(s);
  ConversationQuery q = Query(kShopA);

  SUBCASE("status + isRead") {
    q.status = "open";
    q.isRead = false;
    CHECK(ListIds(s, q) == Ids_{"c4", "c1"});
  }
  SUBCASE("related: customerUuid + excludeId") {
    q.customerUuid = "u1";
    q.excludeId = "c1";
    CHECK(ListIds(s, q) == Ids_{"c2"});
  }
  SUBCASE("tagsAny + status") {
    q.tagsAny = {"vip", "refund"};
    q.status = "open";
    CHECK(ListIds(s, q) == Ids_{"c3", "c1"});
  }
  SUBCASE("channel + assignee + status") {
    q.channel = "online_store";
    q.assigneeId = "m1";
    q.status = "resolved";
    CHECK(ListIds(s, q) == Ids_{"c5"});
  }
  SUBCASE("unassignedOnly + tagsAny") {
    q.unassignedOnly = true;
    q.tagsAny = {"refund"};
    CHECK(ListIds(s, q) == Ids_{"c2"});
  }
  SUBCASE("email + tagsAny + after, paged by one") {
    q.email = "ann@example.com";
    q.tagsAny = {"vip", "other"};
    q.limit = 1;
    std::vector<std::string> seen;
    for (int i = 0; i < 5; ++i) {
      auto rows = Get(s, [&](StoreReader& r) { return r.ListConversations(q); });
      if (rows.empty()) break;
      REQUIRE(rows.size() == 1);
      seen.push_back(rows[0].id);
      q.after = ConversationKey{*rows[0].lastActive, *rows[0].pgConvoId};
    }
    CHECK(seen == Ids_{"c5", "c2", "c1"});
  }
  SUBCASE("every filter at once") {
    q.status = "open";
    q.channel = "online_store";
    q.assigneeId = "m1";
    q.isRead = false;
    q.tagsAny = {"vip"};
    q.customerUuid = "u1";
    q.email = "ANN@example.com";
    q.excludeId = "c2";
    CHECK(ListIds(s, q) == Ids_{"c1"});
    q.excludeId = "c1";
    CHECK(ListIds(s, q).empty());
  }
}

// ------------------------------ tags (ConversationReads, ConversationWrites)

// ------------------------------ row versions (the REST list's JSON cache)

std::vector<ConversationVersion> Versions(Store& s, const ConversationQuery& q) {
  auto listed = Get(s, [&](StoreReader& r) { return r.ListConversationVersions(q); });
  REQUIRE(listed.has_value());
  return *listed;
}

std::int64_t VersionOf(Store& s, const Conversation& c) {
  for (const ConversationVersion& v : Versions(s, Query(c.shopId, 1000)))
    if (v.pgConvoId == *c.pgConvoId) return v.version;
  FAIL("not listed: " << c.id);
  return 0;
}

STORE_TEST("conversations: the versions list is the list's rows, order and pages, with each row's sort key") {
  StoreFixture fx;
  Store& s = fx.store();
  Put(s, [&](StoreWriter& w) -> Status {
    for (int i = 0; i < 25; ++i) {
      Conversation c = MakeConversation(kShopA, "c" + std::to_string(i), 1'000'000 + (i * 7 % 25 / 2) * 1000);
      if (i % 3 == 0) c.status = "resolved";
      if (i == 4) c.lastActive.reset();  // sorts as 0
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
    }
    Conversation legacy = MakeConversation(kShopA, "c-legacy", 9'000'000);
    legacy.inNewDatastore = false;
    LC_RETURN_IF_ERROR(w.InsertConversation(legacy));
    Conversation other = MakeConversation(kShopB, "c-other", 9'000'000);
    return w.InsertConversation(other);
  });
  for (const bool filtered : {false, true}) {
    CAPTURE(filtered);
    ConversationQuery q = Query(kShopA, 4);
    if (filtered) q.status = "open";
    int pages = 0;
    std::size_t rowsSeen = 0;
    for (;; ++pages) {
      auto rows = Get(s, [&](StoreReader& r) { return r.ListConversations(q); });
      auto versions = Versions(s, q);
      REQUIRE(versions.size() == rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i) {
        CHECK(versions[i].pgConvoId == *rows[i].pgConvoId);
        CHECK(versions[i].lastActive == rows[i].lastActive.value_or(0));
      }
      rowsSeen += rows.size();
      if (rows.size() < 4) break;
      q.after = ConversationKey{versions.back().lastActive, versions.back().pgConvoId};
    }
    CHECK(rowsSeen == (filtered ? 16u : 25u));
  }
  ConversationQuery none = Query(kShopA, 0);
  CHECK(Versions(s, none).empty());
}

STORE_TEST("conversations: every write of a row gives it a new version; a write that changes nothing keeps it") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation a = MakeConversation(kShopA, "c-a", 1'000'000);
  Conversation b = MakeConversation(kShopA, "c-b", 2'000'000);
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertConversation(a));
    return w.InsertConversation(b);
  });
  std::int64_t va = VersionOf(s, a);
  std::int64_t vb = VersionOf(s, b);
  CHECK(va != vb);

  // Only the changed columns (UpdateConversation(c, before)).
  Conversation read = a;
  a.isRead = !a.isRead;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(a, read); }) == true);
  std::int64_t now = VersionOf(s, a);
  CHECK(now != va);
  CHECK(VersionOf(s, b) == vb);
  va = now;

  // Nothing differs: no statement runs, and a copy of the row stays current.
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(a, a); }) == true);
  CHECK(VersionOf(s, a) == va);

  // The whole row.
  a.status = "resolved";
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(a); }) == true);
  now = VersionOf(s, a);
  CHECK(now != va);
  va = now;

  // Tags are written apart from the row's other columns.
  Put(s, [&](StoreWriter& w) { return w.ReplaceConversationTags(kShopA, "c-a", {"vip"}); });
  now = VersionOf(s, a);
  CHECK(now != va);
  CHECK(VersionOf(s, b) == vb);

  // A new row has a version of its own.
  Conversation again = MakeConversation(kShopA, "c-a2", 1'000'000);
  again.pgConvoId = *b.pgConvoId + 100;
  Put(s, [&](StoreWriter& w) { return w.InsertConversation(again); });
  CHECK(VersionOf(s, again) != VersionOf(s, a));
}

STORE_TEST("conversations: ListConversationsByPgId reads the listed rows of the shop only") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation a = MakeFullConversation(kShopA, "c-a");
  Conversation b = MakeConversation(kShopA, "c-b", 2'000'000);
  Conversation c = MakeConversation(kShopA, "c-c", 3'000'000);
  Conversation other = MakeConversation(kShopB, "c-other", 4'000'000);
  Conversation legacy = MakeConversation(kShopA, "c-legacy", 5'000'000);
  legacy.inNewDatastore = false;
  legacy.pgConvoId = 777;
  Put(s, [&](StoreWriter& w) -> Status {
    for (Conversation* x : {&a, &b, &c, &other}) LC_RETURN_IF_ERROR(w.InsertConversation(*x));
    return w.InsertConversation(legacy);
  });
  Put(s, [&](StoreWriter& w) { return w.ReplaceConversationTags(kShopA, "c-a", {"one", "two"}); });
  a.tags = {"one", "two"};
  auto rows = Get(s, [&](StoreReader& r) {
    return r.ListConversationsByPgId(kShopA, {*c.pgConvoId, *other.pgConvoId, 777, *a.pgConvoId, 987654321});
  });
  std::sort(rows.begin(), rows.end(), [](const Conversation& x, const Conversation& y) { return x.id < y.id; });
  REQUIRE(rows.size() == 2);
  CheckSame(rows[0], a);
  CheckSame(rows[1], c);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListConversationsByPgId(kShopA, {}); }).empty());
  CHECK(Get(s, [&](StoreReader& r) { return r.ListConversationsByPgId(kShopB, {*a.pgConvoId}); }).empty());
}

STORE_TEST("tags: insert writes them, replace rewrites list, filter and catalog") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation c1 = MakeConversation(kShopA, "c1", 100);
  c1.tags = {"zeta", "alpha"};
  Conversation c2 = MakeConversation(kShopA, "c2", 200);
  c2.tags = {"alpha", "beta"};
  Conversation cb = MakeConversation(kShopB, "c1", 300);  // same id, other shop
  cb.tags = {"alpha", "foreign"};
  Put(s, [&](StoreWriter& w) -> Status {
    for (Conversation* c : {&c1, &c2, &cb}) LC_RETURN_IF_ERROR(w.InsertConversation(*c));
    return Status::Ok();
  });

  auto catalog = Get(s, [&](StoreReader& r) { return r.ListTagCatalog(kShopA); });
  REQUIRE(catalog.size() == 3);
  CHECK(catalog[0].name == "alpha");
  CHECK(catalog[0].conversationCount == 2);
  CHECK(catalog[1].name == "beta");
  CHECK(catalog[1].conversationCount == 1);
  CHECK(catalog[2].name == "zeta");
  CHECK(catalog[2].conversationCount == 1);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListTagCatalog("shop-c"); }).empty());

  // Order of insertion is kept; duplicates collapse to the first.
  Put(s, [&](StoreWriter& w) { return w.ReplaceConversationTags(kShopA, "c1", {"gamma", "beta", "gamma"}); });
  auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c1"); });
  REQUIRE(got.has_value());
  CHECK(got->tags == std::vector<std::string>{"gamma", "beta"});
  got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopB, "c1"); });
  REQUIRE(got.has_value());
  CHECK(got->tags == std::vector<std::string>{"alpha", "foreign"});

  ConversationQuery q = Query(kShopA);
  q.tagsAny = {"zeta"};
  CHECK(ListIds(s, q).empty());
  q.tagsAny = {"beta"};
  CHECK(ListIds(s, q) == Ids_{"c2", "c1"});

  catalog = Get(s, [&](StoreReader& r) { return r.ListTagCatalog(kShopA); });
  REQUIRE(catalog.size() == 3);
  CHECK(catalog[0].name == "alpha");
  CHECK(catalog[0].conversationCount == 1);
  CHECK(catalog[1].name == "beta");
  CHECK(catalog[1].conversationCount == 2);
  CHECK(catalog[2].name == "gamma");
  CHECK(catalog[2].conversationCount == 1);

  Put(s, [&](StoreWriter& w) { return w.ReplaceConversationTags(kShopA, "c1", {}); });
  got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c1"); });
  REQUIRE(got.has_value());
  CHECK(got->tags.empty());
  CHECK(Get(s, [&](StoreReader& r) { return r.ListTagCatalog(kShopA); }).size() == 2);

  // Another shop's conversation (or none) cannot be tagged through this shop.
  Status st = s.Write([&](StoreWriter& w) { return w.ReplaceConversationTags(kShopA, "c-missing", {"x"}); });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kNotFound);
  st = s.Write([&](StoreWriter& w) { return w.ReplaceConversationTags("shop-c", "c1", {"x"}); });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kNotFound);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListTagCatalog("shop-c"); }).empty());
}

}  // namespace
}  // namespace livechat::testing
