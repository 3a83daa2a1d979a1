#include <doctest/doctest.h>

#include <set>

#include "core_fixture.h"

namespace livechat {

using test::CoreFixture;

namespace {

std::vector<Event> Events(CoreFixture& f) {
  auto e = f.service->feed().ListEvents(f.sys, 1000);
  REQUIRE(e.ok());
  return *e;
}

SendMessageInput AgentReply(const Member& m, std::string text) {
  SendMessageInput in;
  in.memberId = m.id;
  in.text = std::move(text);
  return in;
}

}  // namespace

TEST_CASE("API keys: sk_ + 32 hex, hash stored, revocation effective on the next call") {
  CoreFixture f;
  auto k = f.service->directory().CreateApiKey(f.sys, {"ci", kPermReadConversations, false});
  REQUIRE(k.ok());
  CHECK(k->secret.size() == 35);
  CHECK(k->secret.rfind("sk_", 0) == 0);
  CHECK(k->key.keyHash.size() == 64);
  CHECK(k->key.keyHash.find(k->secret.substr(3)) == std::string::npos);
  auto p = f.service->auth().AuthenticateApiKey(k->secret);
  REQUIRE(p.ok());
  CHECK(p->shopId == f.shop.id);
  CHECK(p->permissions == kPermReadConversations);

  REQUIRE(f.service->directory().DeleteApiKey(f.sys, k->key.id).ok());
  auto after = f.service->auth().AuthenticateApiKey(k->secret);
  REQUIRE_FALSE(after.ok());
  CHECK(after.error().code == ErrorCode::kInvalidApiKey);

  auto missing = f.service->auth().AuthenticateApiKey("");
  CHECK(missing.error().code == ErrorCode::kUnauthenticated);
  auto unknown = f.service->auth().AuthenticateApiKey("sk_00000000000000000000000000000000");
  CHECK(unknown.error().code == ErrorCode::kInvalidApiKey);
  auto malformed = f.service->auth().AuthenticateApiKey("hello");
  CHECK(malformed.error().code == ErrorCode::kInvalidApiKey);
}

TEST_CASE("API keys: at most 5 active, name up to 50 characters, Pro or Plus plan only") {
  CoreFixture f;  // already holds one active key
  for (int i = 0; i < 4; ++i) REQUIRE(f.service->directory().CreateApiKey(f.sys, {"k" + std::to_string(i), 0, false}).ok());
  auto sixth = f.service->directory().CreateApiKey(f.sys, {"six", 0, false});
  REQUIRE_FALSE(sixth.ok());
  CHECK(sixth.error().code == ErrorCode::kConflict);
  // Deleting one frees a place.
  auto keys = f.service->directory().ListApiKeys(f.sys);
  REQUIRE(keys.ok());
  REQUIRE(keys->size() == 5);
  REQUIRE(f.service->directory().DeleteApiKey(f.sys, keys->front().id).ok());
  CHECK(f.service->directory().CreateApiKey(f.sys, {std::string(50, 'n'), 0, false}).ok());

  CoreFixture g;
  auto longName = g.service->directory().CreateApiKey(g.sys, {std::string(51, 'n'), 0, false});
  REQUIRE_FALSE(longName.ok());
  CHECK(longName.error().code == ErrorCode::kInvalidParams);
  auto noName = g.service->directory().CreateApiKey(g.sys, {"  ", 0, false});
  CHECK(noName.error().code == ErrorCode::kInvalidParams);

  for (Plan plan : {Plan::kFree, Plan::kBasic}) {
    CoreFixture h({}, plan);
    auto refused = h.service->directory().CreateApiKey(h.sys, {"x", 0, false});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::kForbidden);
  }
  CoreFixture plus({}, Plan::kPlus);
  CHECK(plus.service->directory().CreateApiKey(plus.sys, {"x", 0, false}).ok());
}

TEST_CASE("API keys: a brand-new key is refused until the activation delay passes") {
  Limits l;
  l.keyActivationDelayMillis = 30'000;
  CoreFixture f(l, Plan::kPlus);
  f.clock.Advance(30'000);  // let the fixture's own key activate
  auto k = f.service->directory().CreateApiKey(f.sys, {"new", kPermReadConversations, false});
  REQUIRE(k.ok());
  auto early = f.service->auth().AuthenticateApiKey(k->secret);
  REQUIRE_FALSE(early.ok());
  CHECK(early.error().code == ErrorCode::kInvalidApiKey);
  f.clock.Advance(29'999);
  CHECK_FALSE(f.service->auth().AuthenticateApiKey(k->secret).ok());
  f.clock.Advance(1);
  CHECK(f.service->auth().AuthenticateApiKey(k->secret).ok());
}

TEST_CASE("permissions: each call names the permission it lacks; legacy keys pass everything") {
  CoreFixture f;
  auto none = f.service->directory().CreateApiKey(f.sys, {"none", 0, false});
  auto read = f.service->directory().CreateApiKey(f.sys, {"read", kPermReadConversations, false});
  auto legacy = f.service->directory().CreateApiKey(f.sys, {"legacy", 0, true});
  REQUIRE((none.ok() && read.ok() && legacy.ok()));
  auto c = f.Inbound("online_store", "hello");
  auto pNone = f.Auth(none->secret);
  auto pRead = f.Auth(read->secret);
  auto pLegacy = f.Auth(legacy->secret);

  auto list = f.service->conversations().ListConversations(pNone, {}, {});
  REQUIRE_FALSE(list.ok());
  CHECK(list.error().code == ErrorCode::kForbidden);
  CHECK(list.error().message.find("Read conversations") != std::string::npos);

  CHECK(f.service->conversations().ListConversations(pRead, {}, {}).ok());
  auto write = f.service->conversations().SetState(pRead, c.id, std::string("resolved"));
  REQUIRE_FALSE(write.ok());
  CHECK(write.error().code == ErrorCode::kForbidden);
  CHECK(write.error().message.find("Manage conversations") != std::string::npos);
  auto customer = f.service->directory().GetCustomer(pRead, *c.customerUuid);
  CHECK(customer.error().code == ErrorCode::kForbidden);
  CHECK(customer.error().message.find("Read customers") != std::string::npos);

  CHECK(f.service->conversations().SetState(pLegacy, c.id, std::string("resolved")).ok());
  CHECK(f.service->directory().GetCustomer(pLegacy, *c.customerUuid).ok());
  // Operator calls are refused to every API key.
  CHECK(f.service->directory().CreateApiKey(pLegacy, {"x", 0, false}).error().code == ErrorCode::kForbidden);
}

TEST_CASE("inbound: first message creates contact, conversation and three events in order") {
  CoreFixture f;
  auto c = f.Inbound("email", "Where is my order?", std::string("casey@example.com"));
  CHECK(c.status == "open");
  CHECK(c.channel == "email");
  CHECK(c.channels == std::vector<std::string>{"email"});
  CHECK(c.messageCount == 1);
  CHECK(c.customerType == "guest");
  CHECK(c.pgConvoId.has_value());
  CHECK_FALSE(c.firestoreId.has_value());
  REQUIRE(c.lastMessage.has_value());
  CHECK(c.lastMessage->senderType == "customer");
  auto ev = Events(f);
  REQUIRE(ev.size() == 3);
  CHECK(ev[0].type == "customer.created");
  CHECK_FALSE(ev[0].conversationId.has_value());
  CHECK(ev[0].dataJson.find("\"customerId\":\"" + *c.customerUuid + "\"") != std::string::npos);
  CHECK(ev[0].dataJson.find("\"email\":\"casey@example.com\"") != std::string::npos);
  CHECK(ev[1].type == "conversation.created");
  CHECK(ev[1].conversationId == c.id);
  CHECK(ev[1].dataJson ==
        "{\"type\":\"guest\",\"customerId\":\"" + *c.customerUuid +
            "\",\"channel\":\"email\",\"isChatBot\":false,\"isFirstMessage\":true}");
  CHECK(ev[2].type == "message.created");
  CHECK(ev[2].dataJson.find("\"senderType\":\"customer\",\"memberId\":null") != std::string::npos);

  // The same email in the same store is the same contact: no second customer.created.
  auto again = f.Inbound("online_store", "Another question", std::string("CASEY@example.com"));
  CHECK(again.customerUuid == c.customerUuid);
  CHECK(again.id != c.id);
  auto ev2 = Events(f);
  REQUIRE(ev2.size() == 5);
  CHECK(ev2[3].type == "conversation.created");
  CHECK(ev2[4].type == "message.created");
}

TEST_CASE("state: resolve and reopen fire state_changed; naming the current state changes nothing") {
  CoreFixture f;
  auto p = f.Auth(f.key);
  auto c = f.Inbound("online_store", "hi");
  const auto before = Events(f).size();
  auto same = f.service->conversations().SetState(p, c.id, std::string("open"));
  REQUIRE(same.ok());
  CHECK(same->status == "open");
  CHECK(Events(f).size() == before);
  auto resolved = f.service->conversations().SetState(p, c.id, std::string("resolved"));
  REQUIRE(resolved.ok());
  CHECK(resolved->status == "resolved");
  auto reopened = f.service->conversations().SetState(p, c.id, std::string("open"));
  REQUIRE(reopened.ok());
  auto ev = Events(f);
  REQUIRE(ev.size() == before + 2);
  CHECK(ev[before].type == "conversation.state_changed");
  CHECK(ev[before].dataJson == "{\"status\":\"resolved\",\"previousStatus\":\"open\"}");
  CHECK(ev[before + 1].dataJson == "{\"status\":\"open\",\"previousStatus\":\"resolved\"}");
  auto bad = f.service->conversations().SetState(p, c.id, std::string("closed"));
  CHECK(bad.error().code == ErrorCode::kInvalidParams);
  CHECK(f.service->conversations().SetState(p, c.id, std::nullopt).error().code == ErrorCode::kInvalidParams);
}

TEST_CASE("assign: assigned, reassigned and unassigned fire conversation.assigned with the previous member") {
  CoreFixture f;
  auto p = f.Auth(f.key);
  auto other = f.service->directory().CreateMember(f.sys, {"b@shop.test", "Bo", "B", "member", std::nullopt, true, std::nullopt});
  auto inactive = f.service->directory().CreateMember(f.sys, {"c@shop.test", "Cy", "C", "member", std::nullopt, false, std::nullopt});
  REQUIRE((other.ok() && inactive.ok()));
  auto c = f.Inbound("online_store", "hi");
  const auto base = Events(f).size();
  REQUIRE(f.service->conversations().Assign(p, c.id, f.agent.id).ok());
  REQUIRE(f.service->conversations().Assign(p, c.id, other->id).ok());
  auto un = f.service->conversations().Assign(p, c.id, std::nullopt);
  REQUIRE(un.ok());
  CHECK_FALSE(un->memberId.has_value());
  auto ev = Events(f);
  REQUIRE(ev.size() == base + 3);
  CHECK(ev[base].dataJson == "{\"memberId\":\"" + f.agent.id + "\",\"previousMemberId\":null}");
  CHECK(ev[base + 1].dataJson == "{\"memberId\":\"" + other->id + "\",\"previousMemberId\":\"" + f.agent.id + "\"}");
  CHECK(ev[base + 2].dataJson == "{\"memberId\":null,\"previousMemberId\":\"" + other->id + "\"}");
  CHECK(f.service->conversations().Assign(p, c.id, inactive->id).error().code == ErrorCode::kInvalidParams);
  CHECK(f.service->conversations().Assign(p, c.id, std::string("mem_nope")).error().code == ErrorCode::kInvalidParams);
  CHECK(Events(f).size() == base + 3);
}

TEST_CASE("assign target: absent is INVALID_PARAMS and changes nothing, null unassigns, a member assigns") {
  using Target = ConversationService::AssignTarget;
  CoreFixture f;
  auto p = f.Auth(f.key);
  auto c = f.Inbound("online_store", "hi");
  const auto base = Events(f).size();
  auto assigned = f.service->conversations().Assign(p, c.id, Target::Member(f.agent.id));
  REQUIRE(assigned.ok());
  CHECK(assigned->memberId == f.agent.id);
  auto absent = f.service->conversations().Assign(p, c.id, Target::Absent());
  REQUIRE_FALSE(absent.ok());
  CHECK(absent.error().code == ErrorCode::kInvalidParams);
  CHECK(absent.error().message == "memberId is required: a member id, or null to unassign");
  CHECK(f.service->conversations().GetConversation(p, c.id)->conversation.memberId == f.agent.id);
  CHECK(Events(f).size() == base + 1);
  auto un = f.service->conversations().Assign(p, c.id, Target::Unassign());
  REQUIRE(un.ok());
  CHECK_FALSE(un->memberId.has_value());
  CHECK(Events(f).size() == base + 2);
}

TEST_CASE("messaging window: Messenger, Instagram and WhatsApp replies are refused after 24 hours") {
  for (const char* channel : {"facebook", "instagram", "whatsapp"}) {
    CAPTURE(channel);
    CoreFixture f;
    auto p = f.Auth(f.key);
    auto c = f.Inbound(channel, "hi", std::nullopt, std::string("recipient-1"));
    f.clock.Advance(24 * 3600 * 1000);  // exactly 24 h: still inside
    CHECK(f.service->conversations().SendMessage(p, c.id, AgentReply(f.agent, "inside")).ok());
    f.clock.Advance(1);
    auto late = f.service->conversations().SendMessage(p, c.id, AgentReply(f.agent, "too late"));
    REQUIRE_FALSE(late.ok());
    CHECK(late.error().code == ErrorCode::kChannelUnavailable);
    // A note is always accepted.
    SendMessageInput note = AgentReply(f.agent, "internal");
    note.isNote = true;
    CHECK(f.service->conversations().SendMessage(p, c.id, note).ok());
    // A new customer message reopens the window.
    InboundMessageInput in;
    in.channel = channel;
    in.conversationId = c.id;
    in.text = "back again";
    REQUIRE(f.service->conversations().ReceiveInbound(f.sys, in).ok());
    CHECK(f.service->conversations().SendMessage(p, c.id, AgentReply(f.agent, "welcome back")).ok());
  }
}

TEST_CASE("deliverability: email needs an address, social channels need a recipient") {
  CoreFixture f;
  auto p = f.Auth(f.key);
  auto noEmail = f.Inbound("email", "hi");
  CHECK(f.service->conversations().SendMessage(p, noEmail.id, AgentReply(f.agent, "x")).error().code == ErrorCode::kChannelUnavailable);
  auto withEmail = f.Inbound("email", "hi", std::string("a@b.test"));
  CHECK(f.service->conversations().SendMessage(p, withEmail.id, AgentReply(f.agent, "x")).ok());
  auto noRecipient = f.Inbound("facebook", "hi");
  CHECK(f.service->conversations().SendMessage(p, noRecipient.id, AgentReply(f.agent, "x")).error().code ==
        ErrorCode::kChannelUnavailable);
  auto store = f.Inbound("online_store", "hi");
  f.clock.Advance(7LL * 24 * 3600 * 1000);
  CHECK(f.service->conversations().SendMessage(p, store.id, AgentReply(f.agent, "widget has no window")).ok());
}

TEST_CASE("agent reply hands an AI conversation to the human and auto-assigns when the setting is on") {
  CoreFixture f({}, Plan::kPro, /*autoAssign=*/true);
  auto p = f.Auth(f.key);
  auto c = f.Inbound("online_store", "hi");
  REQUIRE(f.store->Write([&](StoreWriter& w) -> Status {
    auto found = w.FindConversation(f.shop.id, c.id);
    REQUIRE(found.ok());
    auto conv = **found;
    conv.isChatBot = true;
    conv.hasChatBot = true;
    return w.UpdateConversation(conv).ok() ? Status::Ok() : Status(MakeError(ErrorCode::kInternal, "x"));
  }).ok());
  // A note does not hand off.
  SendMessageInput note = AgentReply(f.agent, "looking");
  note.isNote = true;
  REQUIRE(f.service->conversations().SendMessage(p, c.id, note).ok());
  auto mid = f.service->conversations().GetConversation(p, c.id);
  CHECK(mid->conversation.isChatBot);
  CHECK(mid->conversation.isRead);
  CHECK_FALSE(mid->conversation.memberId.has_value());

  const auto base = Events(f).size();
  auto m = f.service->conversations().SendMessage(p, c.id, AgentReply(f.agent, "A human here"));
  REQUIRE(m.ok());
  CHECK(m->senderType == "agent");
  CHECK(m->isAdmin);
  auto after = f.service->conversations().GetConversation(p, c.id);
  CHECK_FALSE(after->conversation.isChatBot);
  CHECK(after->conversation.hasChatBot);
  CHECK(after->conversation.memberId == f.agent.id);
  auto ev = Events(f);
  REQUIRE(ev.size() == base + 2);
  CHECK(ev[base].type == "conversation.assigned");
  CHECK(ev[base + 1].type == "message.created");
}

TEST_CASE("without auto-assignment an agent reply leaves the conversation unassigned") {
  CoreFixture f;
  auto p = f.Auth(f.key);
  auto c = f.Inbound("online_store", "hi");
  REQUIRE(f.service->conversations().SendMessage(p, c.id, AgentReply(f.agent, "hello")).ok());
  CHECK_FALSE(f.service->conversations().GetConversation(p, c.id)->conversation.memberId.has_value());
}

TEST_CASE("a refused write changes nothing and fires nothing") {
  CoreFixture f;
  auto p = f.Auth(f.key);
  auto c = f.Inbound("email", "hi");  // no address: replies are undeliverable
  const auto events = Events(f).size();
  CHECK(f.service->conversations().SendMessage(p, c.id, AgentReply(f.agent, "x")).error().code == ErrorCode::kChannelUnavailable);
  SendMessageInput tooLong = AgentReply(f.agent, std::string(5001, 'a'));
  tooLong.isNote = true;
  CHECK(f.service->conversations().SendMessage(p, c.id, tooLong).error().code == ErrorCode::kInvalidParams);
  auto after = f.service->conversations().GetConversation(p, c.id);
  CHECK(after->conversation.messageCount == 1);
  CHECK(Events(f).size() == events);
  auto msgs = f.service->conversations().ListMessages(p, c.id, {}, std::nullopt);
  CHECK(msgs->items.size() == 1);
}

TEST_CASE("tags: append, dedupe, drop over 100 characters, events with the full list") {
  CoreFixture f;
  auto p = f.Auth(f.key);
  auto c = f.Inbound("online_store", "hi");
  const auto base = Events(f).size();
  auto t = f.service->annotations().AddTags(p, c.id, {"vip", "vip", std::string(100, 'x'), std::string(101, 'y')});
  REQUIRE(t.ok());
  CHECK(*t == std::vector<std::string>{"vip", std::string(100, 'x')});
  auto same = f.service->annotations().AddTags(p, c.id, {"vip"});
  CHECK(*same == std::vector<std::string>{"vip", std::string(100, 'x')});
  auto none = f.service->annotations().AddTags(p, c.id, {std::string(101, 'z')});
  CHECK(none.error().code == ErrorCode::kInvalidParams);
  auto removed = f.service->annotations().RemoveTag(p, c.id, "vip");
  CHECK(*removed == std::vector<std::string>{std::string(100, 'x')});
  auto again = f.service->annotations().RemoveTag(p, c.id, "vip");
  CHECK(*again == std::vector<std::string>{std::string(100, 'x')});
  auto ev = Events(f);
  REQUIRE(ev.size() == base + 2);  // only real changes fire
  CHECK(ev[base].dataJson == "{\"tags\":[\"vip\",\"" + std::string(100, 'x') + "\"]}");
  CHECK(ev[base + 1].dataJson == "{\"tags\":[\"" + std::string(100, 'x') + "\"]}");
}

TEST_CASE("seed: N conversations with M messages each, listed newest first") {
  CoreFixture f;
  auto p = f.Auth(f.key);
  REQUIRE(f.service->demo().Seed(f.sys, {1200, 3}).ok());
  PageRequest pr;
  pr.limit = 100;
  int total = 0;
  std::optional<Millis> prev;
  for (;;) {
    auto page = f.service->conversations().ListConversations(p, {}, pr);
    REQUIRE(page.ok());
    for (const auto& c : page->items) {
      CHECK(c.messageCount == 3);
      if (prev) CHECK(*c.lastActive <= *prev);
      prev = c.lastActive;
    }
    total += static_cast<int>(page->items.size());
    if (!page->hasMore) break;
    pr.cursor = page->nextCursor;
  }
  CHECK(total == 1200);
}

TEST_CASE("demo store: members, conversations on several channels, a legacy record and a working key") {
  ManualClock clock;
  auto opened = OpenSqliteStore({":memory:", 1, 5000});
  REQUIRE(opened.ok());
  ServiceOptions o;
  o.store = opened->get();
  o.clock = &clock;
  ChatService svc(o);
  auto key = svc.demo().CreateDemo("Demo shop");
  REQUIRE(key.ok());
  auto p = svc.auth().AuthenticateApiKey(key->secret);
  REQUIRE(p.ok());
  auto list = svc.conversations().ListConversations(*p, {}, {});
  REQUIRE(list.ok());
  CHECK(list->items.size() == 7);  // the legacy conversation is not listed
  std::set<std::string> channels;
  for (const auto& c : list->items) channels.insert(c.channel);
  CHECK(channels.size() == 5);
  auto members = svc.directory().ListMembers(*p);
  CHECK(members->size() == 3);
  auto login = svc.auth().Login("ada@demo.example", "demo-password", std::nullopt, "203.0.113.7");
  REQUIRE(login.ok());
  auto sp = svc.auth().AuthenticateSession(login->token);
  REQUIRE(sp.ok());
  CHECK(sp->shopId == p->shopId);
  CHECK(svc.auth().Login("ada@demo.example", "wrong-password", std::nullopt, "203.0.113.7").error().code ==
        ErrorCode::kUnauthenticated);
  REQUIRE(svc.auth().Logout(login->token).ok());
  CHECK(svc.auth().AuthenticateSession(login->token).error().code == ErrorCode::kUnauthenticated);
}

TEST_CASE("sessions expire") {
  CoreFixture f;
  auto m = f.service->directory().CreateMember(f.sys, {"admin@shop.test", "Ad", "Min", "admin", std::string("s3cret-pass"), true, std::nullopt});
  REQUIRE(m.ok());
  auto login = f.service->auth().Login("admin@shop.test", "s3cret-pass", std::nullopt, "203.0.113.7");
  REQUIRE(login.ok());
  f.clock.Advance(f.service->limits().sessionTtlMillis - 1);
  CHECK(f.service->auth().AuthenticateSession(login->token).ok());
  f.clock.Advance(1);
  CHECK(f.service->auth().AuthenticateSession(login->token).error().code == ErrorCode::kUnauthenticated);
}

}  // namespace livechat
