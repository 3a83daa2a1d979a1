// Events for each operation (spec: Events): the envelope, the exact `data`
// keys and values, and which subscriptions receive them.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "webhook_fixture.h"

namespace livechat::testing {
namespace {

const std::vector<std::string> kAllEvents = {
    "message.created",       "message.updated",         "message.removed",
    "conversation.created",  "conversation.state_changed", "conversation.assigned",
    "conversation.tags_updated", "conversation.removed", "customer.created"};

const std::set<std::string> kEnvelopeKeys = {"eventId", "type", "shopId", "conversationId", "occurredAt", "data"};
const std::set<std::string> kMessageDataKeys = {"messageId", "text", "senderType", "memberId", "createdAt"};

struct Delivered {
  WebhookRequest request;
  rapidjson::Document body;
  std::string type() const { return Str(At(body, "type")); }
  const rapidjson::Value& data() const { return At(body, "data"); }
};

// Runs the dispatcher and returns what it sent, in sending order.
std::vector<Delivered> Drain(WebhookFixture& f) {
  const std::size_t before = f.transport.count();
  f.Run();
  auto all = f.transport.requests();
  std::vector<Delivered> out;
  for (std::size_t i = before; i < all.size(); ++i) {
    Delivered d;
    d.request = all[i];
    d.body = ParseJson(all[i].body);
    CHECK(KeySet(d.body) == kEnvelopeKeys);
    CHECK(HeaderOf(all[i], "X-Webhook-Event") == d.type());
    CHECK(HeaderOf(all[i], "X-Webhook-Event-Id") == Str(At(d.body, "eventId")));
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::string> Types(const std::vector<Delivered>& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) out.push_back(d.type());
  return out;
}

std::multiset<std::string> TypeSet(const std::vector<Delivered>& ds) {
  auto v = Types(ds);
  return std::multiset<std::string>(v.begin(), v.end());
}

const Delivered& OfType(const std::vector<Delivered>& ds, const std::string& type) {
  const Delivered* found = nullptr;
  for (const auto& d : ds)
    if (d.type() == type) {
      REQUIRE_MESSAGE(found == nullptr, "two deliveries of " << type);
      found = &d;
    }
  REQUIRE_MESSAGE(found != nullptr, "no delivery of " << type);
  return *found;
}

bool IsNull(const rapidjson::Value& v) { return v.IsNull(); }

void CheckEnvelope(const WebhookFixture& f, const Delivered& d, const std::optional<std::string>& conversationId,
                   Millis occurredAt) {
  CHECK(Str(At(d.body, "eventId")).size() == 36);
  CHECK(Str(At(d.body, "shopId")) == f.shop.id);
  if (conversationId) {
    CHECK(Str(At(d.body, "conversationId")) == *conversationId);
  } else {
    CHECK(IsNull(At(d.body, "conversationId")));
  }
  CHECK(Str(At(d.body, "occurredAt")) == FormatIso8601(occurredAt));
}

TEST_CASE("an inbound message from a new contact: customer.created, conversation.created, message.created") {
  WebhookFixture f;
  f.Subscribe(kAllEvents);
  const Millis now = f.clock.NowMillis();
  InboundMessageInput in;
  in.customerName = "Casey Customer";
  in.customerEmail = "casey@example.com";
  in.customerPhone = "+15550100";
  in.text = "Where is my order?";
  auto conv = f.Must(f.service().conversations().ReceiveInbound(f.sys, in));
  auto sent = Drain(f);
  CHECK(TypeSet(sent) ==
        std::multiset<std::string>{"customer.created", "conversation.created", "message.created"});

  const auto& cust = OfType(sent, "customer.created");
  CheckEnvelope(f, cust, std::nullopt, now);  // conversationId null on customer.created
  CHECK(KeySet(cust.data()) == std::set<std::string>{"customerId", "email", "firstName", "lastName", "phone", "tags",
                                                     "ordersCount", "totalSpent"});
  CHECK(Str(At(cust.data(), "customerId")) == *conv.customerUuid);
  CHECK(Str(At(cust.data(), "email")) == "casey@example.com");
  CHECK(Str(At(cust.data(), "firstName")) == "Casey");
  CHECK(Str(At(cust.data(), "lastName")) == "Customer");
  CHECK(Str(At(cust.data(), "phone")) == "+15550100");
  CHECK(StrList(At(cust.data(), "tags")).empty());
  CHECK(At(cust.data(), "ordersCount").IsInt());
  CHECK(At(cust.data(), "ordersCount").GetInt() == 0);
  CHECK(At(cust.data(), "totalSpent").IsNumber());
  CHECK(At(cust.data(), "totalSpent").GetDouble() == 0.0);

  const auto& created = OfType(sent, "conversation.created");
  CheckEnvelope(f, created, conv.id, now);
  CHECK(KeySet(created.data()) == std::set<std::string>{"type", "customerId", "channel", "isChatBot", "isFirstMessage"});
  CHECK(Str(At(created.data(), "type")) == "guest");
  CHECK(Str(At(created.data(), "customerId")) == *conv.customerUuid);
  CHECK(Str(At(created.data(), "channel")) == "online_store");
  CHECK(At(created.data(), "isChatBot").GetBool() == false);
  CHECK(At(created.data(), "isFirstMessage").GetBool() == true);

  const auto& msg = OfType(sent, "message.created");
  CheckEnvelope(f, msg, conv.id, now);
  CHECK(KeySet(msg.data()) == kMessageDataKeys);
  CHECK(Str(At(msg.data(), "text")) == "Where is my order?");
  CHECK(Str(At(msg.data(), "senderType")) == "customer");
  CHECK(IsNull(At(msg.data(), "memberId")));  // null for customer messages
  CHECK(Str(At(msg.data(), "createdAt")) == FormatIso8601(now));
  auto page = f.Must(f.service().conversations().ListMessages(f.Caller(), conv.id, PageRequest{}, std::nullopt));
  REQUIRE(page.items.size() == 1);
  CHECK(Str(At(msg.data(), "messageId")) == page.items[0].id);

  // The same contact writing again in that conversation: message.created only.
  f.clock.Advance(1000);
  in.conversationId = conv.id;
  in.text = "Hello?";
  f.Must(f.service().conversations().ReceiveInbound(f.sys, in));
  auto again = Drain(f);
  CHECK(Types(again) == std::vector<std::string>{"message.created"});
  CHECK(Str(At(again[0].data(), "text")) == "Hello?");
  CheckEnvelope(f, again[0], conv.id, f.clock.NowMillis());
}

TEST_CASE("an anonymous contact: customer.created carries nulls, not missing keys") {
  WebhookFixture f;
  f.Subscribe({"customer.created", "conversation.created"});
  InboundMessageInput in;
  in.text = "hi";
  in.channel = "whatsapp";
  auto conv = f.Must(f.service().conversations().ReceiveInbound(f.sys, in));
  auto sent = Drain(f);
  CHECK(sent.size() == 2);
  const auto& cust = OfType(sent, "customer.created");
  CHECK(KeySet(cust.data()) == std::set<std::string>{"customerId", "email", "firstName", "lastName", "phone", "tags",
                                                     "ordersCount", "totalSpent"});
  for (const char* k : {"email", "firstName", "lastName", "phone"}) {
    CAPTURE(k);
    CHECK(IsNull(At(cust.data(), k)));
  }
  const auto& created = OfType(sent, "conversation.created");
  CHECK(Str(At(created.data(), "type")) == "anonymous");
  CHECK(Str(At(created.data(), "channel")) == "whatsapp");
  CHECK(Str(At(created.data(), "customerId")) == *conv.customerUuid);
}

TEST_CASE("agent replies fire message.created with senderType agent; notes fire nothing") {
  WebhookFixture f;
  auto conv = f.Inbound("hi");
  f.Subscribe(kAllEvents);
  f.clock.Advance(5000);
  auto m = f.AgentReply(conv.id, "On its way!");
  auto sent = Drain(f);
  REQUIRE(Types(sent) == std::vector<std::string>{"message.created"});
  CheckEnvelope(f, sent[0], conv.id, f.clock.NowMillis());
  CHECK(KeySet(sent[0].data()) == kMessageDataKeys);
  CHECK(Str(At(sent[0].data(), "messageId")) == m.id);
  CHECK(Str(At(sent[0].data(), "text")) == "On its way!");
  CHECK(Str(At(sent[0].data(), "senderType")) == "agent");
  CHECK(Str(At(sent[0].data(), "memberId")) == f.agent.id);

  const std::size_t events = f.Events().size();
  f.AgentReply(conv.id, "internal: check the warehouse", /*isNote=*/true);
  CHECK(Drain(f).empty());
  CHECK(f.Events().size() == events);  // not even an outbox row
}

TEST_CASE("an agent reply with auto-assignment also fires conversation.assigned") {
  WebhookFixture f;
  WebhookFixture::Must(f.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto s, w.GetShop(f.shop.id));
    s->autoAssign = true;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateShop(*s));
    (void)ok;
    return Status::Ok();
  }));
  auto conv = f.Inbound("hi");
  f.Subscribe(kAllEvents);
  f.AgentReply(conv.id, "Hello, I'm Ada");
  auto sent = Drain(f);
  CHECK(TypeSet(sent) ==
        std::multiset<std::string>{"conversation.assigned", "message.created"});
  const auto& as = OfType(sent, "conversation.assigned");
  CHECK(KeySet(as.data()) == std::set<std::string>{"memberId", "previousMemberId"});
  CHECK(Str(At(as.data(), "memberId")) == f.agent.id);
  CHECK(IsNull(At(as.data(), "previousMemberId")));
}

TEST_CASE("conversation.state_changed {status, previousStatus}; naming the current state fires nothing") {
  WebhookFixture f;
  auto conv = f.Inbound("hi");
  f.Subscribe(kAllEvents);
  f.Must(f.service().conversations().SetState(f.Caller(), conv.id, std::string("resolved")));
  auto sent = Drain(f);
  REQUIRE(Types(sent) == std::vector<std::string>{"conversation.state_changed"});
  CheckEnvelope(f, sent[0], conv.id, f.clock.NowMillis());
  CHECK(Serialize(sent[0].data()) == R"({"status":"resolved","previousStatus":"open"})");

  f.Must(f.service().conversations().SetState(f.Caller(), conv.id, std::string("resolved")));
  CHECK(Drain(f).empty());

  f.Must(f.service().conversations().SetState(f.Caller(), conv.id, std::string("open")));
  sent = Drain(f);
  REQUIRE(sent.size() == 1);
  CHECK(Serialize(sent[0].data()) == R"({"status":"open","previousStatus":"resolved"})");
}

TEST_CASE("conversation.assigned {memberId, previousMemberId} for assign, reassign and unassign") {
  WebhookFixture f;
  auto conv = f.Inbound("hi");
  CreateMemberInput mi;
  mi.email = "bo@example.com";
  auto bo = f.Must(f.service().directory().CreateMember(f.sys, mi));
  f.Subscribe(kAllEvents);

  f.Must(f.service().conversations().Assign(f.Caller(), conv.id, f.agent.id));
  auto sent = Drain(f);
  REQUIRE(Types(sent) == std::vector<std::string>{"conversation.assigned"});
  CheckEnvelope(f, sent[0], conv.id, f.clock.NowMillis());
  CHECK(Serialize(sent[0].data()) == R"({"memberId":")" + f.agent.id + R"(","previousMemberId":null})");

  f.Must(f.service().conversations().Assign(f.Caller(), conv.id, f.agent.id));  // unchanged: no event
  CHECK(Drain(f).empty());

  f.Must(f.service().conversations().Assign(f.Caller(), conv.id, bo.id));
  sent = Drain(f);
  REQUIRE(sent.size() == 1);
  CHECK(Serialize(sent[0].data()) == R"({"memberId":")" + bo.id + R"(","previousMemberId":")" + f.agent.id + R"("})");

  f.Must(f.service().conversations().Assign(f.Caller(), conv.id, std::nullopt));
  sent = Drain(f);
  REQUIRE(sent.size() == 1);
  CHECK(Serialize(sent[0].data()) == R"({"memberId":null,"previousMemberId":")" + bo.id + R"("})");
}

TEST_CASE("conversation.tags_updated carries the full resulting list") {
  WebhookFixture f;
  auto conv = f.Inbound("hi");
  f.Subscribe(kAllEvents);
  f.Must(f.service().annotations().AddTags(f.Caller(), conv.id, {"vip", "refund"}));
  auto sent = Drain(f);
  REQUIRE(Types(sent) == std::vector<std::string>{"conversation.tags_updated"});
  CheckEnvelope(f, sent[0], conv.id, f.clock.NowMillis());
  CHECK(Serialize(sent[0].data()) == R"({"tags":["vip","refund"]})");

  f.Must(f.service().annotations().AddTags(f.Caller(), conv.id, {"vip"}));  // nothing new: no event
  CHECK(Drain(f).empty());

  f.Must(f.service().annotations().AddTags(f.Caller(), conv.id, {"late"}));
  sent = Drain(f);
  REQUIRE(sent.size() == 1);
  CHECK(Serialize(sent[0].data()) == R"({"tags":["vip","refund","late"]})");

  f.Must(f.service().annotations().RemoveTag(f.Caller(), conv.id, "vip"));
  sent = Drain(f);
  REQUIRE(sent.size() == 1);
  CHECK(Serialize(sent[0].data()) == R"({"tags":["refund","late"]})");

  f.Must(f.service().annotations().RemoveTag(f.Caller(), conv.id, "refund"));
  f.Must(f.service().annotations().RemoveTag(f.Caller(), conv.id, "late"));
  f.clock.Advance(1);
  sent = Drain(f);
  REQUIRE(sent.size() == 2);
  std::set<std::string> datas{Serialize(sent[0].data()), Serialize(sent[1].data())};
  CHECK(datas == std::set<std::string>{R"({"tags":["late"]})", R"({"tags":[]})"});
}

TEST_CASE("operations through REST fire their events") {
  WebhookFixture f;
  auto conv = f.Inbound("hi");
  f.Subscribe(kAllEvents);
  const std::string base = "/chat/conversations/" + conv.id;
  CHECK(f.Call("POST", base + "/messages", R"({"text":"From the API","memberId":")" + f.agent.id + R"("})").status() ==
        201);
  CHECK(f.Call("POST", base + "/messages", R"({"text":"a note","memberId":")" + f.agent.id + R"(","isNote":true})")
            .status() == 201);
  CHECK(f.Call("POST", base + "/state", R"({"status":"resolved"})").status() == 200);
  CHECK(f.Call("POST", base + "/assign", R"({"memberId":")" + f.agent.id + R"("})").status() == 200);
  CHECK(f.Call("POST", base + "/tags", R"({"tags":["vip"]})").status() / 100 == 2);
  CHECK(f.Call("DELETE", base + "/tags/vip").status() == 200);
  auto sent = Drain(f);
  CHECK(TypeSet(sent) ==
        std::multiset<std::string>{"message.created", "conversation.state_changed", "conversation.assigned",
                                   "conversation.tags_updated", "conversation.tags_updated"});
  CHECK(Str(At(OfType(sent, "message.created").data(), "senderType")) == "agent");
}

TEST_CASE("only subscribed events are delivered, and inactive subscriptions get no delivery rows") {
  WebhookFixture f;
  f.resolver.Set("b.example.com", {"151.101.1.69"});
  auto a = f.Subscribe({"message.created"});
  auto b = f.Subscribe({"conversation.state_changed"}, "https://b.example.com/x");
  auto conv = f.Inbound("hi");
  f.Must(f.service().conversations().SetState(f.Caller(), conv.id, std::string("resolved")));
  CHECK(f.Deliveries(a.id).size() == 1);
  CHECK(f.Deliveries(b.id).size() == 1);
  auto sent = Drain(f);
  REQUIRE(sent.size() == 2);
  for (const auto& d : sent) {
    if (d.request.target.host == kHookHost)
      CHECK(d.type() == "message.created");
    else
      CHECK(d.type() == "conversation.state_changed");
  }

  f.Pause(b.id);
  f.Must(f.service().conversations().SetState(f.Caller(), conv.id, std::string("open")));
  f.Inbound("again", std::nullopt, conv.id);
  CHECK(f.Deliveries(a.id).size() == 2);
  CHECK(f.Deliveries(b.id).size() == 1);  // paused: nothing queued
  CHECK(Types(Drain(f)) == std::vector<std::string>{"message.created"});

  // The events themselves are in the outbox regardless of subscriptions.
  std::multiset<std::string> types;
  for (const auto& e : f.Events()) types.insert(e.type);
  CHECK(types.count("conversation.state_changed") == 2);
  CHECK(types.count("message.created") == 2);
}

TEST_CASE("metadata is returned by list but never sent in deliveries") {
  WebhookFixture f;
  auto sub = f.Subscribe({"message.created"}, kHookUrl, std::string(R"({"crmTenant":"tenant-8841","note":"x"})"));
  auto listed = f.Call("GET", "/chat/webhooks");
  CHECK(Serialize(At(At(listed.data(), 0), "metadata")) == R"({"crmTenant":"tenant-8841","note":"x"})");
  f.Inbound("hi");
  auto sent = Drain(f);
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].request.body.find("tenant-8841") == std::string::npos);
  CHECK(sent[0].request.body.find("metadata") == std::string::npos);
  CHECK(sent[0].request.body.find(sub.secret) == std::string::npos);
  for (const auto& [k, v] : sent[0].request.headers) {
    CHECK(v.find("tenant-8841") == std::string::npos);
    CHECK(v.find(sub.secret) == std::string::npos);
  }
}

TEST_CASE("events of another store never reach this store's subscriptions") {
  WebhookFixture f;
  auto sub = f.Subscribe(kAllEvents);
  auto other = f.Must(f.service().directory().CreateShop(CreateShopInput{"Other", Plan::kPro, false}));
  InboundMessageInput in;
  in.text = "elsewhere";
  f.Must(f.service().conversations().ReceiveInbound(Principal::System(other.id), in));
  CHECK(f.Deliveries(sub.id).empty());
  CHECK(Drain(f).empty());
  CHECK(f.Events(other.id).size() == 3);
}

}  // namespace
}  // namespace livechat::testing
