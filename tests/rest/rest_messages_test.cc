// REST: the Messages table of the spec, with the AI handoff and the channel
// deliverability rules (409 CHANNEL_UNAVAILABLE).
#include <doctest/doctest.h>

#include "support/rest_fixture.h"

namespace livechat {
namespace {

using namespace livechat::testing;

std::string MsgPath(const Conversation& c, const std::string& rest = "") {
  return "/chat/conversations/" + c.id + "/messages" + rest;
}

std::string AgentReply(const RestFixture& f, const std::string& text, const std::string& extra = "") {
  return "{\"text\":" + JsonStr(text) + ",\"memberId\":" + JsonStr(f.agent.id) + extra + "}";
}

TEST_CASE("GET messages: list view of 19 keys (with senderType), ascending by default, desc on request") {
  RestFixture f;
  auto conv = f.Inbound("first");
  f.clock.Advance(1000);
  RestFixture::Must(f.service().conversations().SendMessage(f.sys, conv.id, SendMessageInput{std::string("second"), f.agent.id}));
  f.clock.Advance(1000);
  RestFixture::Must(f.service().conversations().SendMessage(f.sys, conv.id, SendMessageInput{std::string("a note"), f.agent.id, true}));

  auto r = f.Get(MsgPath(conv));
  REQUIRE(r.status() == 200);
  CHECK(KeySet(r.json) == std::set<std::string>{"data", "paging"});
  REQUIRE(r.data().Size() == 3);
  CHECK(Column(r.data(), "text") == std::vector<std::string>{"first", "second", "a note"});
  const auto& m0 = At(r.data(), 0);
  CHECK(KeySet(m0) == Keys(kMessageListKeys));
  CHECK(KeySet(m0).size() == 19);
  CHECK(At(m0, "isAdmin").IsFalse());
  CHECK(At(m0, "isFirst").IsTrue());
  CHECK(At(m0, "memberId").IsNull());
  CHECK(Str(At(m0, "senderName")) == "Customer");
  CHECK(Column(r.data(), "senderType") == std::vector<std::string>{"customer", "agent", "agent"});
  const auto& m1 = At(r.data(), 1);
  CHECK(At(m1, "isAdmin").IsTrue());
  CHECK(Str(At(m1, "memberId")) == f.agent.id);
  CHECK(Str(At(m1, "senderName")) == "Ada Agent");
  CHECK(Str(At(m1, "createdAt")) == "2026-01-01T00:00:01.000Z");
  CHECK(At(At(r.data(), 2), "isNote").IsTrue());

  auto desc = f.Get(MsgPath(conv, "?order=desc"));
  REQUIRE(desc.status() == 200);
  CHECK(Column(desc.data(), "text") == std::vector<std::string>{"a note", "second", "first"});
  CHECK(f.Get(MsgPath(conv, "?order=asc")).raw.body == r.raw.body);
  auto bad = f.Get(MsgPath(conv, "?order=sideways"));
  CHECK(bad.status() == 400);
  CHECK(bad.code() == "INVALID_PARAMS");
}

TEST_CASE("GET messages pages with a cursor: default 50, max 100, no duplicate or gap") {
  RestFixture f;
  auto conv = f.Inbound("m0");
  for (int i = 1; i < 130; ++i)
    RestFixture::Must(f.service().conversations().SendMessage(
        f.sys, conv.id, SendMessageInput{"m" + std::to_string(i), std::nullopt, false, /*asCustomer=*/true}));

  auto first = f.Get(MsgPath(conv));
  CHECK(first.data().Size() == 50);
  CHECK(At(At(first.json, "paging"), "hasMore").IsTrue());
  CHECK(f.Get(MsgPath(conv, "?limit=101")).data().Size() == 100);

  for (const std::string order : {"asc", "desc"}) {
    std::vector<std::string> seen;
    std::string cursor;
    for (int page = 0; page < 20; ++page) {
      auto r = f.Get(MsgPath(conv, "?limit=40&order=" + order + (cursor.empty() ? "" : "&cursor=" + PercentEncode(cursor))));
      REQUIRE(r.status() == 200);
      for (auto& t : Column(r.data(), "text")) seen.push_back(t);
      if (At(At(r.json, "paging"), "hasMore").IsFalse()) {
        CHECK(At(At(r.json, "paging"), "nextCursor").IsNull());
        break;
      }
      cursor = Str(At(At(r.json, "paging"), "nextCursor"));
    }
    REQUIRE(seen.size() == 130);
    for (int i = 0; i < 130; ++i) {
      int want = order == "asc" ? i : 129 - i;
      CHECK(seen[static_cast<std::size_t>(i)] == "m" + std::to_string(want));
    }
  }
}

TEST_CASE("GET one message by UUID or numeric id; deleted messages only singly, with isDeleted") {
  RestFixture f;
  auto conv = f.Inbound("keep me");
  auto gone = RestFixture::Must(f.service().conversations().SendMessage(f.sys, conv.id, SendMessageInput{std::string("delete me"), f.agent.id}));
  // There is no delete endpoint: mark it as the platform would.
  RestFixture::Must(f.store().Write([&](StoreWriter& w) -> Status {
    auto m = w.GetMessage(f.shop.id, conv.id, gone.id);
    if (!m.ok()) return m.take_error();
    REQUIRE(m->has_value());
    Message changed = **m;
    changed.isDeleted = true;
    auto ok = w.UpdateMessage(changed);
    if (!ok.ok()) return ok.take_error();
    return Status::Ok();
  }));

  auto list = f.Get(MsgPath(conv));
  CHECK(Column(list.data(), "text") == std::vector<std::string>{"keep me"});

  auto one = f.Get(MsgPath(conv, "/" + gone.id));
  REQUIRE(one.status() == 200);
  CHECK(KeySet(one.data()) == Keys(kMessageListKeys, {"isDeleted", "contentType"}));
  CHECK(KeySet(one.data()).size() == 21);
  CHECK(At(one.data(), "isDeleted").IsTrue());
  CHECK(Str(At(one.data(), "contentType")) == "text");
  CHECK(Str(At(one.data(), "id")) == gone.id);

  auto bySeq = f.Get(MsgPath(conv, "/" + std::to_string(gone.seq)));
  REQUIRE(bySeq.status() == 200);
  CHECK(bySeq.raw.body == one.raw.body);

  auto kept = f.Get(MsgPath(conv, "/" + Str(At(At(list.data(), 0), "id"))));
  REQUIRE(kept.status() == 200);
  CHECK(At(kept.data(), "isDeleted").IsFalse());

  auto missing = f.Get(MsgPath(conv, "/no-such-message"));
  CHECK(missing.status() == 404);
  CHECK(missing.code() == "NOT_FOUND");
  // A message exists, but not in this conversation.
  auto other = f.Inbound("other");
  CHECK(f.Get(MsgPath(other, "/" + gone.id)).status() == 404);
}

TEST_CASE("POST messages: 201 with the message; text up to 5000 characters") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  f.clock.Advance(1500);
  auto r = f.Post(MsgPath(conv), AgentReply(f, "Hello there"));
  REQUIRE(r.status() == 201);
  CHECK(KeySet(r.json) == std::set<std::string>{"data"});
  CHECK(KeySet(r.data()) == Keys(kMessageListKeys, {"isDeleted", "contentType"}));
  CHECK(Str(At(r.data(), "text")) == "Hello there");
  CHECK(Str(At(r.data(), "memberId")) == f.agent.id);
  CHECK(At(r.data(), "isAdmin").IsTrue());
  CHECK(At(r.data(), "isNote").IsFalse());
  CHECK(At(r.data(), "isFirst").IsFalse());
  CHECK(At(r.data(), "isDeleted").IsFalse());
  CHECK(Str(At(r.data(), "createdAt")) == "2026-01-01T00:00:01.500Z");
  auto conversation = f.Load(conv.id);
  CHECK(conversation.messageCount == 2);
  REQUIRE(conversation.lastMessage.has_value());
  CHECK(conversation.lastMessage->senderType == "agent");
  CHECK(conversation.lastMessage->text == "Hello there");

  // 5000 code points, each two bytes: the limit counts characters, not bytes.
  auto atLimit = f.Post(MsgPath(conv), AgentReply(f, Repeat("\xC3\xA9", 5000)));
  CHECK(atLimit.status() == 201);
  CHECK(f.MessageCount(conv.id) == 3);
  auto over = f.Post(MsgPath(conv), AgentReply(f, Repeat("a", 5001)));
  CHECK(over.status() == 400);
  CHECK(over.code() == "INVALID_PARAMS");
  CHECK(over.message().find("text") != std::string::npos);
  CHECK(f.MessageCount(conv.id) == 3);

  // Unknown keys are ignored.
  CHECK(f.Post(MsgPath(conv), AgentReply(f, "extra", ",\"attachments\":[1,2],\"foo\":{\"bar\":null}")).status() == 201);
  CHECK(f.MessageCount(conv.id) == 4);
  // No idempotency key: the same POST twice makes two messages.
  CHECK(f.Post(MsgPath(conv), AgentReply(f, "dup")).status() == 201);
  CHECK(f.Post(MsgPath(conv), AgentReply(f, "dup")).status() == 201);
  CHECK(f.MessageCount(conv.id) == 6);
}

TEST_CASE("POST messages: text and memberId rules") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  auto inactive = f.NewMember("off@example.com", /*active=*/false);
  auto other = f.NewShop("Other");
  CreateMemberInput foreign;
  foreign.email = "foreign@example.com";
  auto foreignMember = RestFixture::Must(f.service().directory().CreateMember(Principal::System(other.id), foreign));

  struct Case {
    std::string body;
    std::string mentions;
  };
  const std::vector<Case> cases = {
      {"{\"memberId\":" + JsonStr(f.agent.id) + "}", "text"},
      {"{\"text\":\"\",\"memberId\":" + JsonStr(f.agent.id) + "}", "text"},
      {"{\"text\":5,\"memberId\":" + JsonStr(f.agent.id) + "}", "text"},
      {R"({"text":"hello"})", "memberId"},
      {R"({"text":"hello","memberId":7})", "memberId"},
      {R"({"text":"hello","memberId":"mem_nope"})", "memberId"},
      {"{\"text\":\"hello\",\"memberId\":" + JsonStr(inactive.id) + "}", "memberId"},
      {"{\"text\":\"hello\",\"memberId\":" + JsonStr(foreignMember.id) + "}", "memberId"},
      {"{\"text\":\"hello\",\"memberId\":" + JsonStr(f.agent.id) + ",\"isNote\":\"yes\"}", "isNote"},
      {R"({"text":"hello","asCustomer":1})", "asCustomer"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.body);
    auto r = f.Post(MsgPath(conv), c.body);
    CHECK(r.status() == 400);
    CHECK(r.code() == "INVALID_PARAMS");
    CHECK(r.message().find(c.mentions) != std::string::npos);
  }
  CHECK(f.MessageCount(conv.id) == 1);
}

TEST_CASE("POST messages asCustomer relays an inbound message; memberId and isNote are ignored") {
  RestFixture f;
  auto conv = f.InboundFrom("maya@example.com", "hi");
  RestFixture::Must(f.service().conversations().MarkRead(f.sys, conv.id));
  auto r = f.Post(MsgPath(conv), R"({"text":"from the customer","asCustomer":true})");
  REQUIRE(r.status() == 201);
  CHECK(At(r.data(), "isAdmin").IsFalse());
  CHECK(At(r.data(), "memberId").IsNull());
  CHECK(Str(At(r.data(), "senderName")) == "Cust maya");
  auto c = f.Load(conv.id);
  CHECK_FALSE(c.isRead);
  CHECK(c.lastMessage->senderType == "customer");

  auto ignored = f.Post(MsgPath(conv), R"({"text":"again","asCustomer":true,"memberId":"mem_nope","isNote":true})");
  REQUIRE(ignored.status() == 201);
  CHECK(At(ignored.data(), "isNote").IsFalse());
  CHECK(At(ignored.data(), "memberId").IsNull());
}

TEST_CASE("POST messages isNote: an internal note, marks read, no handoff, no event") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  RestFixture::Must(f.store().Write([&](StoreWriter& w) -> Status {
    Conversation c = f.Load(conv.id);
    c.isChatBot = true;
    c.hasChatBot = true;
    auto ok = w.UpdateConversation(c);
    return ok.ok() ? Status::Ok() : Status(ok.take_error());
  }));
  auto eventsBefore = RestFixture::Must(f.service().feed().ListEvents(f.sys, 1000)).size();
  auto r = f.Post(MsgPath(conv), AgentReply(f, "internal", ",\"isNote\":true"));
  REQUIRE(r.status() == 201);
  CHECK(At(r.data(), "isNote").IsTrue());
  auto c = f.Load(conv.id);
  CHECK(c.isRead);
  CHECK(c.isChatBot);  // a note does not take over from the AI agent
  CHECK(RestFixture::Must(f.service().feed().ListEvents(f.sys, 1000)).size() == eventsBefore);
}

TEST_CASE("An agent reply takes over a conversation the AI agent is handling") {
  RestFixture f;
  auto conv = f.Inbound("hi bot");
  RestFixture::Must(f.store().Write([&](StoreWriter& w) -> Status {
    Conversation c = f.Load(conv.id);
    c.isChatBot = true;
    c.hasChatBot = true;
    auto ok = w.UpdateConversation(c);
    return ok.ok() ? Status::Ok() : Status(ok.take_error());
  }));
  CHECK(At(f.Get("/chat/conversations/" + conv.id).data(), "isChatBot").IsTrue());
  auto eventsBefore = RestFixture::Must(f.service().feed().ListEvents(f.sys, 1000)).size();
  REQUIRE(f.Post(MsgPath(conv), AgentReply(f, "A human here")).status() == 201);
  auto after = f.Get("/chat/conversations/" + conv.id);
  CHECK(At(after.data(), "isChatBot").IsFalse());
  CHECK(At(after.data(), "hasChatBot").IsTrue());
  auto events = RestFixture::Must(f.service().feed().ListEvents(f.sys, 1000));
  REQUIRE(events.size() == eventsBefore + 1);
  CHECK(events.back().type == "message.created");
}

TEST_CASE("With auto-assignment on, an agent reply assigns the replier") {
  RestFixture f;
  auto shop = f.NewShop("Auto", /*autoAssign=*/true);
  std::string key = f.NewKey(kAllRestPerms, false, shop.id);
  CreateMemberInput mi;
  mi.email = "auto@example.com";
  auto member = RestFixture::Must(f.service().directory().CreateMember(Principal::System(shop.id), mi));
  InboundMessageInput in;
  in.text = "hi";
  auto conv = f.Inbound(in, shop.id);
  HttpRequest req = f.Request("POST", MsgPath(conv), "{\"text\":\"on it\",\"memberId\":" + JsonStr(member.id) + "}");
  req.headers[0].second = key;
  REQUIRE(f.Send(req).status() == 201);
  auto c = RestFixture::Must(f.service().conversations().GetConversation(Principal::System(shop.id), conv.id)).conversation;
  CHECK(c.memberId == std::optional<std::string>(member.id));
}

TEST_CASE("409 CHANNEL_UNAVAILABLE when the channel cannot deliver; notes are always accepted") {
  RestFixture f;
  auto check409 = [&](const Conversation& conv, const char* what) {
    CAPTURE(what);
    auto before = f.MessageCount(conv.id);
    auto r = f.Post(MsgPath(conv), AgentReply(f, "reply"));
    CHECK(r.status() == 409);
    CHECK(r.code() == "CHANNEL_UNAVAILABLE");
    CHECK(f.MessageCount(conv.id) == before);
    auto note = f.Post(MsgPath(conv), AgentReply(f, "note", ",\"isNote\":true"));
    CHECK(note.status() == 201);
    CHECK(f.MessageCount(conv.id) == before + 1);
  };

  SUBCASE("email without a customer email") {
    InboundMessageInput in;
    in.channel = "email";
    in.text = "no address";
    check409(f.Inbound(in), "email");
    auto withEmail = f.InboundFrom("liam@example.com", "has address", "email");
    CHECK(f.Post(MsgPath(withEmail), AgentReply(f, "reply")).status() == 201);
  }
  SUBCASE("messaging channels: within 24 hours ok, after that refused") {
    for (const std::string channel : {"whatsapp", "facebook", "instagram"}) {
      CAPTURE(channel);
      ManualClock& clock = f.clock;
      InboundMessageInput in;
      in.channel = channel;
      in.channelRecipient = "recipient-" + channel;
      in.text = "hello";
      auto conv = f.Inbound(in);
      clock.Advance(23LL * 3600 * 1000);
      CHECK(f.Post(MsgPath(conv), AgentReply(f, "within the window")).status() == 201);
      clock.Advance(1LL * 3600 * 1000 + 1);  // 24 h and 1 ms after the customer's message
      check409(conv, channel.c_str());
      // A new customer message reopens the window.
      InboundMessageInput again = in;
      again.conversationId = conv.id;
      f.Inbound(again);
      CHECK(f.Post(MsgPath(conv), AgentReply(f, "window reopened")).status() == 201);
    }
  }
  SUBCASE("messaging channel without a recipient") {
    InboundMessageInput in;
    in.channel = "facebook";
    in.text = "who am I";
    check409(f.Inbound(in), "no recipient");
  }
  SUBCASE("online_store always delivers") {
    auto conv = f.Inbound("widget");
    f.clock.Advance(72LL * 3600 * 1000);
    CHECK(f.Post(MsgPath(conv), AgentReply(f, "late but fine")).status() == 201);
  }
}

}  // namespace
}  // namespace livechat
