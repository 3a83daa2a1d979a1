// REST: the Conversations table of the spec (list, detail, related,
// browsed pages, summary, state, assign, read, typing).
#include <doctest/doctest.h>

#include <set>

#include "support/rest_fixture.h"

namespace livechat {
namespace {

using namespace livechat::testing;

std::string Path(const Conversation& c, const std::string& rest = "") { return "/chat/conversations/" + c.id + rest; }

TEST_CASE("GET /chat/conversations: envelope, list view of 28 keys (27 + isRedacted), content type") {
  RestFixture f;
  f.InboundFrom("maya@example.com", "Do you ship to Canada?");
  auto r = f.Get("/chat/conversations");
  REQUIRE(r.status() == 200);
  CHECK(r.header("Content-Type") == "application/json; charset=utf-8");
  CHECK(KeySet(r.json) == std::set<std::string>{"data", "paging"});
  CHECK(KeySet(At(r.json, "paging")) == std::set<std::string>{"nextCursor", "hasMore"});
  CHECK(At(At(r.json, "paging"), "nextCursor").IsNull());
  CHECK(At(At(r.json, "paging"), "hasMore").IsFalse());
  REQUIRE(r.data().Size() == 1);
  const auto& c = At(r.data(), 0);
  CHECK(KeySet(c) == Keys(kConversationListKeys));
  CHECK(KeySet(c).size() == 28);
  CHECK(Str(At(c, "shopId")) == f.shop.id);
  CHECK(Str(At(c, "customerEmail")) == "maya@example.com");
  CHECK(Str(At(c, "customerType")) == "guest");
  CHECK(Str(At(c, "status")) == "open");
  CHECK(At(c, "isRead").IsFalse());
  CHECK(At(c, "hasFirstMsg").IsTrue());
  CHECK(StrList(At(c, "channels")) == std::vector<std::string>{"online_store"});
  CHECK(At(c, "messageCount").GetInt64() == 1);
  CHECK(Str(At(At(c, "lastMessage"), "text")) == "Do you ship to Canada?");
  CHECK(Str(At(At(c, "lastMessage"), "senderType")) == "customer");
  CHECK(Str(At(c, "lastActive")) == "2026-01-01T00:00:00.000Z");
  CHECK(At(c, "pgConvoId").IsString());
  CHECK(At(c, "firestoreId").IsNull());
}

TEST_CASE("GET /chat/conversations/{id}: detail view of 32 keys (31 + isRedacted) with meta.source") {
  RestFixture f;
  auto conv = f.InboundFrom("maya@example.com", "hello");
  auto r = f.Get(Path(conv));
  REQUIRE(r.status() == 200);
  CHECK(KeySet(r.json) == std::set<std::string>{"data", "meta"});
  CHECK(KeySet(At(r.json, "meta")) == std::set<std::string>{"source"});
  CHECK(Str(At(At(r.json, "meta"), "source")) == "postgresql");
  CHECK(KeySet(r.data()) == Keys(kConversationListKeys, kConversationDetailOnlyKeys));
  CHECK(KeySet(r.data()).size() == 32);
  CHECK(At(r.data(), "customerPhone").IsNull());
  CHECK(At(r.data(), "memberName").IsNull());
  CHECK(At(r.data(), "teamId").IsNull());
  CHECK(At(r.data(), "unreadCount").GetInt() == 0);
  CHECK(Str(At(r.data(), "id")) == conv.id);
  CHECK(Str(At(r.data(), "pgConvoId")) == std::to_string(*conv.pgConvoId));
}

TEST_CASE("{id} accepts id, firestoreId and pgConvoId alike") {
  RestFixture f;
  auto conv = f.Inbound("migrated one");
  // A migrated record carries both the old and the new ids.
  RestFixture::Must(f.store().Write([&](StoreWriter& w) -> Status {
    Conversation c = conv;
    c.firestoreId = "fsMigrated0000000001";
    auto ok = w.UpdateConversation(c);
    if (!ok.ok()) return ok.take_error();
    return Status::Ok();
  }));
  auto byId = f.Get("/chat/conversations/" + conv.id);
  auto byFs = f.Get("/chat/conversations/fsMigrated0000000001");
  auto byPg = f.Get("/chat/conversations/" + std::to_string(*conv.pgConvoId));
  REQUIRE(byId.status() == 200);
  CHECK(byFs.raw.body == byId.raw.body);
  CHECK(byPg.raw.body == byId.raw.body);
  CHECK(Str(At(byId.data(), "firestoreId")) == "fsMigrated0000000001");
  // Sub-resources resolve every form too.
  CHECK(f.Get("/chat/conversations/fsMigrated0000000001/messages").status() == 200);
  CHECK(f.Get("/chat/conversations/" + std::to_string(*conv.pgConvoId) + "/messages").status() == 200);
}

TEST_CASE("An unmigrated conversation is readable by id but never listed") {
  RestFixture f;
  f.Inbound("new one");
  InboundMessageInput in;
  in.text = "old question";
  in.legacy = true;
  auto legacy = f.Inbound(in);
  REQUIRE(legacy.firestoreId.has_value());

  auto list = f.Get("/chat/conversations");
  REQUIRE(list.status() == 200);
  CHECK(list.data().Size() == 1);
  CHECK(Str(At(At(list.data(), 0), "lastMessage")["text"]) == "new one");

  auto r = f.Get("/chat/conversations/" + *legacy.firestoreId);
  REQUIRE(r.status() == 200);
  CHECK(Str(At(At(r.json, "meta"), "source")) == "firestore");
  CHECK(At(r.data(), "pgConvoId").IsNull());
  CHECK(Str(At(r.data(), "firestoreId")) == *legacy.firestoreId);
  CHECK(f.Get("/chat/conversations/" + legacy.id).status() == 200);
  auto msgs = f.Get("/chat/conversations/" + *legacy.firestoreId + "/messages");
  REQUIRE(msgs.status() == 200);
  CHECK(msgs.data().Size() == 1);
  // Browsed pages of an older conversation: an empty list.
  auto pages = f.Get("/chat/conversations/" + *legacy.firestoreId + "/browsed-pages");
  REQUIRE(pages.status() == 200);
  CHECK(pages.data().Size() == 0);
}

TEST_CASE("Missing and another store's conversation answer the identical 404") {
  RestFixture f;
  auto other = f.NewShop("Other store");
  InboundMessageInput in;
  in.text = "theirs";
  auto theirs = f.Inbound(in, other.id);
  f.Inbound("ours");

  for (const std::string suffix : {"", "/messages", "/related", "/browsed-pages", "/summary", "/notes",
                                   "/attributes"}) {
    CAPTURE(suffix);
    auto missing = f.Get("/chat/conversations/does-not-exist" + suffix);
    auto foreign = f.Get("/chat/conversations/" + theirs.id + suffix);
    auto foreignPg = f.Get("/chat/conversations/" + std::to_string(*theirs.pgConvoId) + suffix);
    CHECK(missing.status() == 404);
    CHECK(missing.code() == "NOT_FOUND");
    CHECK(foreign.status() == 404);
    CHECK(foreign.raw.body == missing.raw.body);
    CHECK(foreignPg.raw.body == missing.raw.body);
  }
  auto missing = f.Post("/chat/conversations/does-not-exist/state", R"({"status":"resolved"})");
  auto foreign = f.Post(Path(theirs, "/state"), R"({"status":"resolved"})");
  CHECK(missing.status() == 404);
  CHECK(foreign.raw.body == missing.raw.body);
  auto after = RestFixture::Must(f.service().conversations().GetConversation(Principal::System(other.id), theirs.id));
  CHECK(after.conversation.status == "open");
}

TEST_CASE("List order: newest activity first; a new message moves a conversation up") {
  RestFixture f;
  auto a = f.Inbound("a");
  f.clock.Advance(1000);
  auto b = f.Inbound("b");
  f.clock.Advance(1000);
  auto c = f.Inbound("c");
  auto r = f.Get("/chat/conversations");
  CHECK(Column(r.data(), "id") == std::vector<std::string>{c.id, b.id, a.id});

  f.clock.Advance(1000);
  InboundMessageInput more;
  more.text = "a again";
  more.conversationId = a.id;
  f.Inbound(more);
  r = f.Get("/chat/conversations");
  CHECK(Column(r.data(), "id") == std::vector<std::string>{a.id, c.id, b.id});
}

TEST_CASE("List filters: status, channel, assigneeId, isRead, tag, customerUuid, email") {
  RestFixture f;
  auto web = f.InboundFrom("maya@example.com", "web");
  f.clock.Advance(1000);
  auto mail = f.InboundFrom("liam@example.com", "mail", "email");
  f.clock.Advance(1000);
  InboundMessageInput wa;
  wa.channel = "whatsapp";
  wa.channelRecipient = "+391234";
  wa.text = "wa";
  auto whats = f.Inbound(wa);
  f.clock.Advance(1000);
  auto maya2 = f.InboundFrom("Maya@Example.com", "web again");

  RestFixture::Must(f.service().conversations().SetState(f.sys, mail.id, std::string("resolved")));
  RestFixture::Must(f.service().conversations().Assign(f.sys, whats.id, f.agent.id));
  RestFixture::Must(f.service().conversations().MarkRead(f.sys, web.id));
  RestFixture::Must(f.service().annotations().AddTags(f.sys, web.id, {"vip"}));
  RestFixture::Must(f.service().annotations().AddTags(f.sys, mail.id, {"refund", "vip"}));
  RestFixture::Must(f.service().annotations().AddTags(f.sys, whats.id, {"sizing"}));

  auto ids = [&](const std::string& query) {
    auto r = f.Get("/chat/conversations" + query);
    REQUIRE_MESSAGE(r.status() == 200, r.raw.body);
    auto v = Column(r.data(), "id");
    return std::set<std::string>(v.begin(), v.end());
  };
  using S = std::set<std::string>;
  CHECK(ids("") == S{web.id, mail.id, whats.id, maya2.id});
  CHECK(ids("?status=resolved") == S{mail.id});
  CHECK(ids("?status=open") == S{web.id, whats.id, maya2.id});
  CHECK(ids("?channel=email") == S{mail.id});
  CHECK(ids("?channel=whatsapp") == S{whats.id});
  CHECK(ids("?channel=online_store") == S{web.id, maya2.id});
  CHECK(ids("?channel=facebook").empty());
  CHECK(ids("?assigneeId=" + f.agent.id) == S{whats.id});
  CHECK(ids("?assigneeId=unassigned") == S{web.id, mail.id, maya2.id});
  CHECK(ids("?isRead=true") == S{web.id});
  CHECK(ids("?isRead=false") == S{mail.id, whats.id, maya2.id});
  CHECK(ids("?tag=vip") == S{web.id, mail.id});
  CHECK(ids("?tag=refund&tag=sizing") == S{mail.id, whats.id});
  CHECK(ids("?tag=nope").empty());
  CHECK(ids("?customerUuid=" + *web.customerUuid) == S{web.id, maya2.id});
  CHECK(ids("?email=maya%40example.com") == S{web.id, maya2.id});
  CHECK(ids("?email=MAYA@example.com") == S{web.id, maya2.id});
  CHECK(ids("?status=open&tag=vip") == S{web.id});
  CHECK(ids("?unknownParam=1") == S{web.id, mail.id, whats.id, maya2.id});

  auto bad = f.Get("/chat/conversations?isRead=yes");
  CHECK(bad.status() == 400);
  CHECK(bad.code() == "INVALID_PARAMS");
  CHECK(bad.message().find("isRead") != std::string::npos);
  CHECK(f.Get("/chat/conversations?status=closed").status() == 400);
  CHECK(f.Get("/chat/conversations?status=closed").code() == "INVALID_PARAMS");
  CHECK(f.Get("/chat/conversations?channel=sms").code() == "INVALID_PARAMS");
}

TEST_CASE("Cursor paging walks every conversation once, limit default 20 and max 100") {
  RestFixture f;
  std::vector<std::string> expected;  // newest first
  for (int i = 0; i < 150; ++i) {
    if (i % 3 == 0) f.clock.Advance(1000);  // ties on lastActive too
    expected.insert(expected.begin(), f.Inbound("m" + std::to_string(i)).id);
  }
  // Ties on lastActive are broken by pgConvoId descending, which is also insertion order reversed.

  auto first = f.Get("/chat/conversations");
  REQUIRE(first.status() == 200);
  CHECK(first.data().Size() == 20);
  CHECK(At(At(first.json, "paging"), "hasMore").IsTrue());
  CHECK(At(At(first.json, "paging"), "nextCursor").IsString());

  auto big = f.Get("/chat/conversations?limit=101");
  CHECK(big.data().Size() == 100);
  auto huge = f.Get("/chat/conversations?limit=99999999999999999999999");
  CHECK(huge.status() == 200);
  CHECK(huge.data().Size() == 100);
  auto rest = f.Get("/chat/conversations?limit=100&cursor=" + PercentEncode(Str(At(At(big.json, "paging"), "nextCursor"))));
  CHECK(rest.data().Size() == 50);
  CHECK(At(At(rest.json, "paging"), "hasMore").IsFalse());
  CHECK(At(At(rest.json, "paging"), "nextCursor").IsNull());

  std::vector<std::string> walked;
  std::string cursor;
  int pages = 0;
  while (true) {
    auto r = f.Get("/chat/conversations?limit=7" + (cursor.empty() ? "" : "&cursor=" + PercentEncode(cursor)));
    REQUIRE(r.status() == 200);
    ++pages;
    for (auto& id : Column(r.data(), "id")) walked.push_back(id);
    const auto& paging = At(r.json, "paging");
    if (At(paging, "hasMore").IsFalse()) {
      CHECK(At(paging, "nextCursor").IsNull());
      break;
    }
    cursor = Str(At(paging, "nextCursor"));
    REQUIRE(pages < 100);
  }
  CHECK(pages == 22);
  CHECK(walked == expected);
  CHECK(std::set<std::string>(walked.begin(), walked.end()).size() == 150);

  // An empty cursor is the first page.
  CHECK(Column(f.Get("/chat/conversations?limit=3&cursor=").data(), "id") ==
        std::vector<std::string>(expected.begin(), expected.begin() + 3));
}

TEST_CASE("limit must be a whole number of 1 or more; an undecodable cursor is 400") {
  RestFixture f;
  auto conv = f.Inbound("x");
  for (const std::string endpoint : {"/chat/conversations", "/chat/conversations/ID/related",
                                     "/chat/conversations/ID/messages", "/chat/customers/CUST/conversations"}) {
    std::string path = endpoint;
    if (auto p = path.find("ID"); p != std::string::npos) path.replace(p, 2, conv.id);
    if (auto p = path.find("CUST"); p != std::string::npos) path.replace(p, 4, *conv.customerUuid);
    for (const std::string bad : {"0", "-1", "abc", "1.5", "", "-", "+5", "1e2", " 5", "0x10"}) {
      CAPTURE(path);
      CAPTURE(bad);
      auto r = f.Get(path + "?limit=" + PercentEncode(bad));
      CHECK(r.status() == 400);
      CHECK(r.code() == "INVALID_PARAMS");
      CHECK(r.message() == "limit must be a whole number of 1 or more");
    }
    auto ok = f.Get(path + "?limit=1");
    CHECK(ok.status() == 200);
    auto badCursor = f.Get(path + "?cursor=%21%21not-a-cursor%21%21");
    CAPTURE(path);
    CHECK(badCursor.status() == 400);
    CHECK(badCursor.code() == "INVALID_PARAMS");
  }
}

TEST_CASE("POST state: resolve, same state unchanged, reopen") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  f.clock.Advance(5000);
  auto r = f.Post(Path(conv, "/state"), R"({"status":"resolved"})");
  REQUIRE(r.status() == 200);
  CHECK(KeySet(r.data()) == Keys(kConversationListKeys, kConversationDetailOnlyKeys));
  CHECK(Str(At(r.data(), "status")) == "resolved");
  CHECK(Str(At(r.data(), "updatedAt")) == "2026-01-01T00:00:05.000Z");

  f.clock.Advance(5000);
  auto same = f.Post(Path(conv, "/state"), R"({"status":"resolved"})");
  REQUIRE(same.status() == 200);
  CHECK(Str(At(same.data(), "status")) == "resolved");
  CHECK(Str(At(same.data(), "updatedAt")) == "2026-01-01T00:00:05.000Z");  // unchanged

  auto events = RestFixture::Must(f.service().feed().ListEvents(f.sys, 1000));
  int changes = 0;
  for (const auto& e : events) changes += e.type == "conversation.state_changed";
  CHECK(changes == 1);

  auto reopen = f.Post(Path(conv, "/state"), R"({"status":"open"})");
  REQUIRE(reopen.status() == 200);
  CHECK(Str(At(reopen.data(), "status")) == "open");

  for (const std::string body : {R"({"status":"closed"})", R"({})", R"({"status":5})", R"({"status":null})"}) {
    CAPTURE(body);
    auto bad = f.Post(Path(conv, "/state"), body);
    CHECK(bad.status() == 400);
    CHECK(bad.code() == "INVALID_PARAMS");
    CHECK(bad.message().find("status") != std::string::npos);
  }
  CHECK(f.Load(conv.id).status == "open");
}

TEST_CASE("POST assign: assign, reassign, unassign with null") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  auto grace = f.NewMember("grace@example.com");
  auto gone = f.NewMember("gone@example.com", /*active=*/false);

  auto r = f.Post(Path(conv, "/assign"), "{\"memberId\":" + JsonStr(f.agent.id) + "}");
  REQUIRE(r.status() == 200);
  CHECK(Str(At(r.data(), "memberId")) == f.agent.id);
  CHECK(At(r.data(), "memberName").IsNull());  // spec: never carries data

  r = f.Post(Path(conv, "/assign"), "{\"memberId\":" + JsonStr(grace.id) + "}");
  REQUIRE(r.status() == 200);
  CHECK(Str(At(r.data(), "memberId")) == grace.id);

  r = f.Post(Path(conv, "/assign"), R"({"memberId":null})");
  REQUIRE(r.status() == 200);
  CHECK(At(r.data(), "memberId").IsNull());
  CHECK_FALSE(f.Load(conv.id).memberId.has_value());

  int assigned = 0;
  for (const auto& e : RestFixture::Must(f.service().feed().ListEvents(f.sys, 1000))) assigned += e.type == "conversation.assigned";
  CHECK(assigned == 3);

  for (const std::string& body : {"{\"memberId\":" + JsonStr(gone.id) + "}", std::string(R"({"memberId":"mem_nope"})"),
                                 std::string(R"({})"), std::string(R"({"memberId":5})")}) {
    CAPTURE(body);
    auto bad = f.Post(Path(conv, "/assign"), body);
    CHECK(bad.status() == 400);
    CHECK(bad.code() == "INVALID_PARAMS");
    CHECK(bad.message().find("memberId") != std::string::npos);
  }
  CHECK_FALSE(f.Load(conv.id).memberId.has_value());
}

TEST_CASE("POST read marks read on the agent side; the body is optional") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  CHECK_FALSE(f.Load(conv.id).isRead);
  // No body and no Content-Type at all.
  HttpRequest req = f.Request("POST", Path(conv, "/read"));
  auto r = f.Send(req);
  REQUIRE(r.status() == 200);
  CHECK(At(r.data(), "isRead").IsTrue());
  CHECK(f.Load(conv.id).isRead);
  // An empty JSON object is fine too.
  auto again = f.Post(Path(conv, "/read"), "{}");
  CHECK(again.status() == 200);
  CHECK(At(again.data(), "isRead").IsTrue());
  CHECK(f.Post("/chat/conversations/nope/read", "").status() == 404);
}

TEST_CASE("POST typing sets the indicator of an active member") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  f.clock.Advance(250);
  auto r = f.Post(Path(conv, "/typing"), "{\"memberId\":" + JsonStr(f.agent.id) + ",\"active\":true}");
  REQUIRE(r.status() == 200);
  CHECK(KeySet(r.data()) == std::set<std::string>{"conversationId", "memberId", "active", "updatedAt"});
  CHECK(Str(At(r.data(), "conversationId")) == conv.id);
  CHECK(Str(At(r.data(), "memberId")) == f.agent.id);
  CHECK(At(r.data(), "active").IsTrue());
  CHECK(Str(At(r.data(), "updatedAt")) == "2026-01-01T00:00:00.250Z");

  r = f.Post(Path(conv, "/typing"), "{\"memberId\":" + JsonStr(f.agent.id) + ",\"active\":false}");
  REQUIRE(r.status() == 200);
  CHECK(At(r.data(), "active").IsFalse());

  auto wrongType = f.Post(Path(conv, "/typing"), "{\"memberId\":" + JsonStr(f.agent.id) + ",\"active\":\"yes\"}");
  CHECK(wrongType.status() == 400);
  CHECK(wrongType.code() == "INVALID_PARAMS");
  CHECK(wrongType.message().find("active") != std::string::npos);
  auto missingActive = f.Post(Path(conv, "/typing"), "{\"memberId\":" + JsonStr(f.agent.id) + "}");
  CHECK(missingActive.status() == 400);
  CHECK(missingActive.code() == "INVALID_PARAMS");
  auto badMember = f.Post(Path(conv, "/typing"), R"({"memberId":"mem_nope","active":true})");
  CHECK(badMember.status() == 400);
  CHECK(badMember.code() == "INVALID_PARAMS");
}

TEST_CASE("GET related: the same customer's other conversations, paginated, default 6, max 50") {
  RestFixture f;
  std::vector<std::string> mine;
  for (int i = 0; i < 55; ++i) {
    f.clock.Advance(1000);
    mine.insert(mine.begin(), f.InboundFrom("maya@example.com", "visit " + std::to_string(i)).id);
  }
  f.InboundFrom("someone@example.com", "unrelated");
  const std::string self = mine.front();  // the newest one

  auto r = f.Get("/chat/conversations/" + self + "/related");
  REQUIRE(r.status() == 200);
  CHECK(KeySet(r.json) == std::set<std::string>{"data", "paging"});
  CHECK(r.data().Size() == 6);
  CHECK(KeySet(At(r.data(), 0)) == Keys(kConversationListKeys));
  CHECK(Column(r.data(), "id") == std::vector<std::string>(mine.begin() + 1, mine.begin() + 7));
  CHECK(At(At(r.json, "paging"), "hasMore").IsTrue());

  auto max = f.Get("/chat/conversations/" + self + "/related?limit=51");
  CHECK(max.data().Size() == 50);
  auto next = f.Get("/chat/conversations/" + self + "/related?limit=50&cursor=" +
                    PercentEncode(Str(At(At(max.json, "paging"), "nextCursor"))));
  CHECK(next.data().Size() == 4);
  CHECK(At(At(next.json, "paging"), "hasMore").IsFalse());
  auto all = Column(max.data(), "id");
  for (auto& id : Column(next.data(), "id")) all.push_back(id);
  CHECK(all == std::vector<std::string>(mine.begin() + 1, mine.end()));

  // A conversation whose customer has no other conversation.
  auto alone = f.InboundFrom("alone@example.com", "solo");
  auto none = f.Get("/chat/conversations/" + alone.id + "/related");
  REQUIRE(none.status() == 200);
  CHECK(none.data().Size() == 0);
  CHECK(At(At(none.json, "paging"), "hasMore").IsFalse());
}

TEST_CASE("GET browsed-pages: newest first, at most 50, about 24 hours") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  RestFixture::Must(f.service().conversations().RecordBrowsedPage(f.sys, conv.id, {"https://s/old", std::string("Old"), f.clock.NowMillis()}));
  f.clock.Advance(23LL * 3600 * 1000);
  RestFixture::Must(f.service().conversations().RecordBrowsedPage(f.sys, conv.id, {"https://s/new", std::string("New"), f.clock.NowMillis()}));
  auto both = f.Get(Path(conv, "/browsed-pages"));
  REQUIRE(both.status() == 200);
  CHECK(Column(both.data(), "url") == std::vector<std::string>{"https://s/new", "https://s/old"});
  CHECK(Str(At(At(both.data(), 0), "title")) == "New");
  CHECK(Str(At(At(both.data(), 1), "viewedAt")) == "2026-01-01T00:00:00.000Z");
  f.clock.Advance(2LL * 3600 * 1000);  // the first page is now 25 hours old
  auto aged = f.Get(Path(conv, "/browsed-pages"));
  CHECK(Column(aged.data(), "url") == std::vector<std::string>{"https://s/new"});

  for (int i = 0; i < 55; ++i)
    RestFixture::Must(f.service().conversations().RecordBrowsedPage(
        f.sys, conv.id, {"https://s/p" + std::to_string(i), std::nullopt, f.clock.NowMillis() + i}));
  auto r = f.Get(Path(conv, "/browsed-pages"));
  REQUIRE(r.status() == 200);
  CHECK(KeySet(r.json) == std::set<std::string>{"data"});
  REQUIRE(r.data().Size() == 50);
  CHECK(KeySet(At(r.data(), 0)) == std::set<std::string>{"url", "title", "viewedAt"});
  CHECK(Str(At(At(r.data(), 0), "url")) == "https://s/p54");
  CHECK(Str(At(At(r.data(), 49), "url")) == "https://s/p5");
  CHECK(At(At(r.data(), 0), "title").IsNull());
  for (auto& url : Column(r.data(), "url")) CHECK(url.find("https://s/p") == 0);
}

TEST_CASE("GET summary: 404 until generated, then the record") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  auto missing = f.Get(Path(conv, "/summary"));
  CHECK(missing.status() == 404);
  CHECK(missing.code() == "NOT_FOUND");
  RestFixture::Must(f.service().conversations().PutSummary(f.sys, conv.id, "Customer asked about shipping.", "extractive"));
  auto r = f.Get(Path(conv, "/summary"));
  REQUIRE(r.status() == 200);
  CHECK(KeySet(r.data()) == std::set<std::string>{"conversationId", "text", "summarizer", "generatedAt"});
  CHECK(Str(At(r.data(), "conversationId")) == conv.id);
  CHECK(Str(At(r.data(), "text")) == "Customer asked about shipping.");
  CHECK(Str(At(r.data(), "summarizer")) == "extractive");
  CHECK(Str(At(r.data(), "generatedAt")) == "2026-01-01T00:00:00.000Z");
  // By pgConvoId too.
  CHECK(f.Get("/chat/conversations/" + std::to_string(*conv.pgConvoId) + "/summary").raw.body == r.raw.body);
}

}  // namespace
}  // namespace livechat
