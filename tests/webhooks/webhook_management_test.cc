// Webhook management through the REST adapter (spec: Webhook management):
// /chat/webhooks with an API key, and the legacy /webhook/subscriptions.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "webhook_fixture.h"

namespace livechat::testing {
namespace {

const std::set<std::string> kSubscriptionKeys = {"id",       "shopId",   "url",       "events",    "isActive",
                                                 "secret",   "metadata", "createdAt", "updatedAt", "signatureFormat"};
const std::set<std::string> kLastDeliveryKeys = {"lastDeliveryAt", "lastDeliveryStatus", "lastDeliveryStatusCode",
                                                 "lastDeliveryError"};

std::string CreateBody(const std::string& url, const std::string& eventsJson = R"(["message.created"])") {
  return R"({"url":)" + JsonStr(url) + R"(,"events":)" + eventsJson + "}";
}

// A JSON object {"k":"xxx"} of exactly `bytes` bytes, serialized compactly.
std::string MetadataOfSize(std::size_t bytes) {
  const std::size_t overhead = std::string(R"({"k":""})").size();
  return R"({"k":")" + std::string(bytes - overhead, 'x') + R"("})";
}

TEST_CASE("create: 201 with a generated whsec_ secret; a secret in the body is ignored; list shows it in plain text") {
  WebhookFixture f;
  f.clock.Set(1767225600000);
  auto r = f.Call("POST", "/chat/webhooks",
                  R"({"url":"https://hooks.example.com/in","events":["message.created","conversation.created"],)"
                  R"("secret":"whsec_chosen_by_caller","metadata":{"crm":"acme","n":1}})");
  REQUIRE(r.status() == 201);
  const auto& d = r.data();
  CHECK(KeySet(d) == kSubscriptionKeys);  // no lastDelivery* before the first attempt
  const std::string secret = Str(At(d, "secret"));
  CHECK(secret.rfind("whsec_", 0) == 0);
  CHECK(secret.size() > 30);
  CHECK(secret != "whsec_chosen_by_caller");
  CHECK(Str(At(d, "shopId")) == f.shop.id);
  CHECK(Str(At(d, "url")) == kHookUrl);
  CHECK(StrList(At(d, "events")) == std::vector<std::string>{"message.created", "conversation.created"});
  CHECK(At(d, "isActive").GetBool());
  CHECK(Serialize(At(d, "metadata")) == R"({"crm":"acme","n":1})");
  CHECK(Str(At(d, "createdAt")) == "2026-01-01T00:00:00.000Z");
  CHECK(Str(At(d, "updatedAt")) == "2026-01-01T00:00:00.000Z");

  auto list = f.Call("GET", "/chat/webhooks");
  REQUIRE(list.status() == 200);
  REQUIRE(list.data().Size() == 1);
  CHECK(Str(At(At(list.data(), 0), "secret")) == secret);
  CHECK(Serialize(At(At(list.data(), 0), "metadata")) == R"({"crm":"acme","n":1})");
  auto one = f.Call("GET", "/chat/webhooks/" + Str(At(d, "id")));
  CHECK(one.status() == 200);
  CHECK(Serialize(one.data()) == Serialize(At(list.data(), 0)));

  // Without metadata: an empty object.
  auto bare = f.Call("POST", "/chat/webhooks", CreateBody("https://hooks.example.com/bare"));
  CHECK(bare.status() == 201);
  CHECK(Serialize(At(bare.data(), "metadata")) == "{}");
  CHECK(Str(At(bare.data(), "secret")) != secret);
}

TEST_CASE("upsert by url: same id and secret, re-activated, events replaced, no duplicate") {
  WebhookFixture f;
  auto first = f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl, R"(["message.created"])"));
  REQUIRE(first.status() == 201);
  const std::string id = Str(At(first.data(), "id"));
  const std::string secret = Str(At(first.data(), "secret"));
  REQUIRE(f.Call("PUT", "/chat/webhooks/" + id, R"({"isActive":false})").status() == 200);

  f.clock.Advance(5000);
  auto again = f.Call("POST", "/chat/webhooks",
                      R"({"url":"https://hooks.example.com/in","events":["customer.created"],"secret":"whsec_x"})");
  CHECK(again.status() == 200);  // an existing subscription, not a new one
  CHECK(Str(At(again.data(), "id")) == id);
  CHECK(Str(At(again.data(), "secret")) == secret);
  CHECK(At(again.data(), "isActive").GetBool());
  CHECK(StrList(At(again.data(), "events")) == std::vector<std::string>{"customer.created"});
  CHECK(Str(At(again.data(), "createdAt")) == Str(At(first.data(), "createdAt")));
  CHECK(Str(At(again.data(), "updatedAt")) != Str(At(first.data(), "updatedAt")));
  CHECK(f.Call("GET", "/chat/webhooks").data().Size() == 1);

  // A different path is a different url.
  CHECK(f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl + std::string("/2"))).status() == 201);
  CHECK(f.Call("GET", "/chat/webhooks").data().Size() == 2);
}

TEST_CASE("update: events, isActive, url and metadata; validation as on create") {
  WebhookFixture f;
  auto c = f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl));
  const std::string id = Str(At(c.data(), "id"));
  const std::string path = "/chat/webhooks/" + id;

  auto r = f.Call("PUT", path, R"({"events":["conversation.assigned","conversation.tags_updated","conversation.assigned"]})");
  REQUIRE(r.status() == 200);
  CHECK(StrList(At(r.data(), "events")) == std::vector<std::string>{"conversation.assigned", "conversation.tags_updated"});
  CHECK(At(r.data(), "isActive").GetBool());

  r = f.Call("PUT", path, R"({"isActive":false})");
  CHECK(r.status() == 200);
  CHECK_FALSE(At(r.data(), "isActive").GetBool());
  CHECK(StrList(At(r.data(), "events")).size() == 2);  // untouched

  r = f.Call("PUT", path, R"({"isActive":true,"metadata":{"v":2}})");
  CHECK(r.status() == 200);
  CHECK(At(r.data(), "isActive").GetBool());
  CHECK(Serialize(At(r.data(), "metadata")) == R"({"v":2})");

  r = f.Call("PUT", path, R"({"url":"https://hooks.example.com/moved"})");
  CHECK(r.status() == 200);
  CHECK(Str(At(r.data(), "url")) == "https://hooks.example.com/moved");
  CHECK(Str(At(r.data(), "secret")) == Str(At(c.data(), "secret")));

  for (const char* bad : {R"({"events":[]})", R"({"events":["customer_message"]})", R"({"events":"message.created"})",
                          R"({"isActive":"yes"})", R"({"url":"http://hooks.example.com/x"})",
                          R"({"url":"https://10.0.0.1/x"})", R"({"metadata":[1]})"}) {
    CAPTURE(bad);
    auto e = f.Call("PUT", path, bad);
    CHECK(e.status() == 400);
    CHECK(e.code() == "INVALID_PARAMS");
  }
  CHECK(Str(At(f.Call("GET", path).data(), "url")) == "https://hooks.example.com/moved");
}

TEST_CASE("delete: 200 with the id; then 404") {
  WebhookFixture f;
  auto c = f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl));
  const std::string id = Str(At(c.data(), "id"));
  auto r = f.Call("DELETE", "/chat/webhooks/" + id);
  CHECK(r.status() == 200);
  CHECK(Serialize(r.data()) == R"({"id":")" + id + R"(","deleted":true})");
  CHECK(f.Call("GET", "/chat/webhooks").data().Size() == 0);
  CHECK(f.Call("DELETE", "/chat/webhooks/" + id).status() == 404);
  CHECK(f.Call("GET", "/chat/webhooks/" + id).status() == 404);
}

TEST_CASE("404 NOT_FOUND \"subscription not found\" for unknown and other-store ids, with identical bodies") {
  WebhookFixture f;
  auto other = f.Must(f.service().directory().CreateShop(CreateShopInput{"Other", Plan::kPro, false}));
  const std::string otherKey = f.NewKey(kAllRestPerms, other.id);
  auto theirs = f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl), otherKey);
  REQUIRE(theirs.status() == 201);
  const std::string theirId = Str(At(theirs.data(), "id"));
  // A real delivery of theirs, to try through our key.
  InboundMessageInput in;
  in.text = "theirs";
  f.Must(f.service().conversations().ReceiveInbound(Principal::System(other.id), in));
  auto theirDeliveries = f.Call("GET", "/chat/webhooks/" + theirId + "/deliveries", "", otherKey);
  REQUIRE(theirDeliveries.data().Size() == 1);
  const std::string theirDelivery = Str(At(At(theirDeliveries.data(), 0), "id"));

  struct Req {
    const char* method;
    std::string suffix;
    std::string body;
  };
  for (const Req& q : {Req{"GET", "", ""}, Req{"PUT", "", R"({"isActive":false})"}, Req{"DELETE", "", ""},
                       Req{"GET", "/attempts", ""}, Req{"GET", "/deliveries", ""},
                       Req{"POST", "/deliveries/" + theirDelivery + "/redeliver", ""}}) {
    CAPTURE(q.method);
    CAPTURE(q.suffix);
    auto unknown = f.Call(q.method, "/chat/webhooks/wh_doesnotexist" + q.suffix, q.body);
    auto foreign = f.Call(q.method, "/chat/webhooks/" + theirId + q.suffix, q.body);
    CHECK(unknown.status() == 404);
    CHECK(unknown.code() == "NOT_FOUND");
    CHECK(unknown.message() == "subscription not found");
    CHECK(foreign.status() == 404);
    CHECK(foreign.raw.body == unknown.raw.body);
  }
  // Theirs is untouched.
  auto still = f.Call("GET", "/chat/webhooks/" + theirId, "", otherKey);
  CHECK(still.status() == 200);
  CHECK(At(still.data(), "isActive").GetBool());
  CHECK(f.Call("GET", "/chat/webhooks").data().Size() == 0);
}

TEST_CASE("10 subscriptions per store; the 11th is 409 CONFLICT; upsert of an existing url still works") {
  WebhookFixture f;
  for (int i = 0; i < 10; ++i) {
    CAPTURE(i);
    CHECK(f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl + std::string("/") + std::to_string(i))).status() == 201);
  }
  auto eleventh = f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl + std::string("/10")));
  CHECK(eleventh.status() == 409);
  CHECK(eleventh.code() == "CONFLICT");
  CHECK(eleventh.message().find("10") != std::string::npos);
  CHECK(f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl + std::string("/3"))).status() == 200);
  // Paused ones count too.
  auto list = f.Call("GET", "/chat/webhooks");
  REQUIRE(list.data().Size() == 10);
  CHECK(f.Call("PUT", "/chat/webhooks/" + Str(At(At(list.data(), 0), "id")), R"({"isActive":false})").status() == 200);
  CHECK(f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl + std::string("/10"))).status() == 409);
  // Deleting one frees a place.
  CHECK(f.Call("DELETE", "/chat/webhooks/" + Str(At(At(list.data(), 0), "id"))).status() == 200);
  CHECK(f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl + std::string("/10"))).status() == 201);
  // Another store has its own ten.
  auto other = f.Must(f.service().directory().CreateShop(CreateShopInput{"Other", Plan::kPro, false}));
  CHECK(f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl + std::string("/x")), f.NewKey(kAllRestPerms, other.id))
            .status() == 201);
}

TEST_CASE("event names: all nine accepted; anything else, old underscore names included, is 400 INVALID_PARAMS") {
  WebhookFixture f;
  auto all = f.Call("POST", "/chat/webhooks",
                    CreateBody(kHookUrl, R"(["message.created","message.updated","message.removed",)"
                                         R"("conversation.created","conversation.state_changed",)"
                                         R"("conversation.assigned","conversation.tags_updated",)"
                                         R"("conversation.removed","customer.created"])"));
  REQUIRE(all.status() == 201);
  CHECK(StrList(At(all.data(), "events")).size() == 9);
  CHECK(WebhookEventNames().size() == 9);

  for (const char* bad : {"customer_message", "ai_response", "message_created", "conversation_created",
                          "agent_message", "conversation_resolved", "Message.Created", "message.created ",
                          "message.*", "*", "", "message", "customer.updated"}) {
    CAPTURE(bad);
    auto r = f.Call("POST", "/chat/webhooks",
                    CreateBody(kHookUrl + std::string("/b"), R"(["message.created",)" + JsonStr(bad) + "]"));
    CHECK(r.status() == 400);
    CHECK(r.code() == "INVALID_PARAMS");
  }
  for (const char* bad : {R"([])", R"("message.created")", R"([1])", R"(null)", R"({"a":1})"}) {
    CAPTURE(bad);
    auto r = f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl + std::string("/b"), bad));
    CHECK(r.status() == 400);
    CHECK(r.code() == "INVALID_PARAMS");
  }
  auto missing = f.Call("POST", "/chat/webhooks", R"({"url":"https://hooks.example.com/b"})");
  CHECK(missing.status() == 400);
  CHECK(f.Call("GET", "/chat/webhooks").data().Size() == 1);
}

TEST_CASE("url must be https and resolve to public addresses only: else 400 INVALID_PARAMS") {
  WebhookFixture f;
  f.resolver.Set("internal.example.com", {"10.1.2.3"});
  f.resolver.Set("mixed.example.com", {kPublicAddress, "192.168.1.10"});
  f.resolver.Set("v6private.example.com", {"fd00::1"});
  f.resolver.Set("mapped.example.com", {"::ffff:127.0.0.1"});
  for (const char* bad :
       {"http://hooks.example.com/in", "ftp://hooks.example.com/in", "hooks.example.com/in", "https://",
        "https://localhost/in", "https://127.0.0.1/in", "https://10.0.0.1/in", "https://169.254.169.254/latest",
        "https://100.64.0.1/", "https://[::1]/in", "https://[fe80::1]/in", "https://[::ffff:10.0.0.1]/in",
        "https://0.0.0.0/", "https://internal.example.com/in", "https://mixed.example.com/in",
        "https://v6private.example.com/", "https://mapped.example.com/", "https://nowhere.example.net/in",
        "https://user:pass@hooks.example.com/in", "https://hooks.example.com:0/in", "https://hooks.example.com:70000/"}) {
    CAPTURE(bad);
    auto r = f.Call("POST", "/chat/webhooks", CreateBody(bad));
    CHECK(r.status() == 400);
    CHECK(r.code() == "INVALID_PARAMS");
  }
  auto noUrl = f.Call("POST", "/chat/webhooks", R"({"events":["message.created"]})");
  CHECK(noUrl.status() == 400);
  CHECK(noUrl.code() == "INVALID_PARAMS");
  CHECK(f.Call("POST", "/chat/webhooks", CreateBody("https://93.184.216.34/in")).status() == 201);
  CHECK(f.Call("POST", "/chat/webhooks", CreateBody("https://hooks.example.com:8443/in?x=1")).status() == 201);
  CHECK(f.Call("GET", "/chat/webhooks").data().Size() == 2);
}

TEST_CASE("metadata: 2,048 serialized bytes accepted, 2,049 refused; must be an object") {
  WebhookFixture f;
  CHECK(MetadataOfSize(2048).size() == 2048);
  auto ok = f.Call("POST", "/chat/webhooks",
                   R"({"url":"https://hooks.example.com/a","events":["message.created"],"metadata":)" +
                       MetadataOfSize(2048) + "}");
  CHECK(ok.status() == 201);
  CHECK(Serialize(At(ok.data(), "metadata")) == MetadataOfSize(2048));
  // Whitespace in the request does not count: the serialized form does.
  std::string spaced = MetadataOfSize(2048);
  spaced.insert(1, "   ");
  CHECK(f.Call("POST", "/chat/webhooks",
               R"({"url":"https://hooks.example.com/b","events":["message.created"],"metadata":)" + spaced + "}")
            .status() == 201);
  auto big = f.Call("POST", "/chat/webhooks",
                    R"({"url":"https://hooks.example.com/c","events":["message.created"],"metadata":)" +
                        MetadataOfSize(2049) + "}");
  CHECK(big.status() == 400);
  CHECK(big.code() == "INVALID_PARAMS");
  const std::string id = Str(At(ok.data(), "id"));
  CHECK(f.Call("PUT", "/chat/webhooks/" + id, R"({"metadata":)" + MetadataOfSize(2049) + "}").status() == 400);
  CHECK(f.Call("PUT", "/chat/webhooks/" + id, R"({"metadata":)" + MetadataOfSize(2048) + "}").status() == 200);
  for (const char* bad : {R"("text")", R"([1,2])", R"(7)"}) {
    CAPTURE(bad);
    CHECK(f.Call("POST", "/chat/webhooks",
                 R"({"url":"https://hooks.example.com/d","events":["message.created"],"metadata":)" + std::string(bad) +
                     "}")
              .status() == 400);
  }
}

TEST_CASE("permissions: Manage conversations is required for every webhook call, reads included") {
  WebhookFixture f;
  auto c = f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl));
  const std::string id = Str(At(c.data(), "id"));
  const std::string readOnly = f.NewKey(kPermReadConversations | kPermReadCustomers);
  const std::string manage = f.NewKey(kPermManageConversations);
  struct Req {
    const char* method;
    std::string target;
    std::string body;
  };
  for (const Req& q : {Req{"GET", "/chat/webhooks", ""}, Req{"POST", "/chat/webhooks", CreateBody(kHookUrl + std::string("/z"))},
                       Req{"GET", "/chat/webhooks/" + id, ""}, Req{"PUT", "/chat/webhooks/" + id, R"({"isActive":true})"},
                       Req{"GET", "/chat/webhooks/" + id + "/attempts", ""},
                       Req{"GET", "/chat/webhooks/" + id + "/deliveries", ""}, Req{"DELETE", "/chat/webhooks/" + id, ""}}) {
    CAPTURE(q.method);
    CAPTURE(q.target);
    auto denied = f.Call(q.method, q.target, q.body, readOnly);
    CHECK(denied.status() == 403);
    CHECK(denied.code() == "FORBIDDEN");
    CHECK(denied.message().find("Manage conversations") != std::string::npos);
  }
  CHECK(f.Call("GET", "/chat/webhooks", "", manage).status() == 200);
  CHECK(f.Call("GET", "/chat/webhooks/" + id + "/attempts", "", manage).status() == 200);
  CHECK(f.Call("DELETE", "/chat/webhooks/" + id, "", manage).status() == 200);
  auto none = f.Call("GET", "/chat/webhooks", "", std::string(""));
  CHECK(none.status() == 401);
  CHECK(none.code() == "UNAUTHENTICATED");
}

TEST_CASE("lastDeliveryAt / Status / Error: absent before the first attempt, present after") {
  WebhookFixture f;
  auto c = f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl));
  const std::string id = Str(At(c.data(), "id"));
  f.Inbound("one");
  auto before = f.Call("GET", "/chat/webhooks/" + id);
  for (const auto& k : kLastDeliveryKeys) CHECK(KeySet(before.data()).count(k) == 0);

  f.clock.Set(1767225660000);
  f.transport.Answer(503);
  CHECK(f.Run() == 1);
  auto failed = f.Call("GET", "/chat/webhooks/" + id);
  std::set<std::string> withLast = kSubscriptionKeys;
  withLast.insert(kLastDeliveryKeys.begin(), kLastDeliveryKeys.end());
  CHECK(KeySet(failed.data()) == withLast);
  CHECK(Str(At(failed.data(), "lastDeliveryAt")) == "2026-01-01T00:01:00.000Z");
  CHECK(Str(At(failed.data(), "lastDeliveryStatus")) == "failed");
  CHECK(At(failed.data(), "lastDeliveryStatusCode").GetInt() == 503);
  CHECK(Str(At(failed.data(), "lastDeliveryError")) == "receiver answered HTTP 503");

  f.clock.Advance(10 * kSecond);
  CHECK(f.Run() == 1);
  auto good = f.Call("GET", "/chat/webhooks");
  const auto& s = At(good.data(), 0);
  CHECK(Str(At(s, "lastDeliveryAt")) == "2026-01-01T00:01:10.000Z");
  CHECK(Str(At(s, "lastDeliveryStatus")) == "succeeded");
  CHECK(At(s, "lastDeliveryStatusCode").GetInt() == 200);
  CHECK(At(s, "lastDeliveryError").IsNull());
}

TEST_CASE("attempt log: newest first, bounded, with status, error, duration and outcome") {
  WebhookFixture f;
  auto o = f.Options();
  o.attemptsKept = 3;
  f.ResetDispatcher(o);
  auto c = f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl));
  const std::string id = Str(At(c.data(), "id"));
  f.Inbound("one");
  f.transport.AnswerTimes(4, 500);
  f.transport.Answer(0, std::nullopt, "connect: connection refused");
  f.Run();
  for (int i = 0; i < 4; ++i) {
    f.clock.Advance(kSchedule[static_cast<std::size_t>(i)]);
    CHECK(f.Run() == 1);
  }
  auto r = f.Call("GET", "/chat/webhooks/" + id + "/attempts");
  REQUIRE(r.status() == 200);
  REQUIRE(r.data().Size() == 3);
  CHECK(KeySet(At(r.data(), 0)) == std::set<std::string>{"deliveryId", "eventId", "eventType", "attempt", "at",
                                                          "statusCode", "error", "durationMs", "outcome"});
  CHECK(At(At(r.data(), 0), "attempt").GetInt() == 5);
  CHECK(At(At(r.data(), 1), "attempt").GetInt() == 4);
  CHECK(At(At(r.data(), 2), "attempt").GetInt() == 3);
  CHECK(At(At(r.data(), 0), "statusCode").IsNull());
  CHECK(Str(At(At(r.data(), 0), "error")) == "connect: connection refused");
  CHECK(At(At(r.data(), 1), "statusCode").GetInt() == 500);
  CHECK(Str(At(At(r.data(), 0), "outcome")) == "retrying");
  CHECK(Str(At(At(r.data(), 0), "eventType")) == "message.created");
  CHECK(At(At(r.data(), 0), "durationMs").GetInt() == 0);  // the ManualClock does not move during a send

  auto ds = f.Call("GET", "/chat/webhooks/" + id + "/deliveries");
  REQUIRE(ds.data().Size() == 1);
  const auto& d = At(ds.data(), 0);
  CHECK(KeySet(d) == std::set<std::string>{"id", "subscriptionId", "eventId", "state", "attempts", "nextAttemptAt",
                                           "lastAttemptAt", "createdAt"});
  CHECK(Str(At(d, "state")) == "pending");
  CHECK(At(d, "attempts").GetInt() == 5);
  CHECK(Str(At(d, "subscriptionId")) == id);
  CHECK(Str(At(d, "eventId")) == Str(At(At(r.data(), 0), "eventId")));
}

TEST_CASE("redeliver: a new delivery of the same event id, sent again") {
  WebhookFixture f;
  auto c = f.Call("POST", "/chat/webhooks", CreateBody(kHookUrl));
  const std::string id = Str(At(c.data(), "id"));
  f.Inbound("one");
  f.transport.Answer(404);
  CHECK(f.Run() == 1);  // dropped
  auto first = f.transport.last();
  const std::string deliveryId = HeaderOf(first, "X-Webhook-Delivery-Id");
  CHECK(f.OnlyDelivery(id).state == "dropped");

  auto r = f.Call("POST", "/chat/webhooks/" + id + "/deliveries/" + deliveryId + "/redeliver");
  REQUIRE(r.status() == 202);
  CHECK(Str(At(r.data(), "eventId")) == HeaderOf(first, "X-Webhook-Event-Id"));
  CHECK(Str(At(r.data(), "id")) != deliveryId);
  CHECK(Str(At(r.data(), "state")) == "pending");
  CHECK(At(r.data(), "attempts").GetInt() == 0);
  CHECK(f.Run() == 1);
  auto second = f.transport.last();
  CHECK(HeaderOf(second, "X-Webhook-Event-Id") == HeaderOf(first, "X-Webhook-Event-Id"));
  CHECK(HeaderOf(second, "X-Webhook-Delivery-Id") == Str(At(r.data(), "id")));
  CHECK(second.body == first.body);
  CHECK(f.Deliveries(id).size() == 2);

  auto missing = f.Call("POST", "/chat/webhooks/" + id + "/deliveries/dlv_nope/redeliver");
  CHECK(missing.status() == 404);
  CHECK(missing.code() == "NOT_FOUND");
  CHECK(missing.message() == "delivery not found");

  CHECK(f.Call("PUT", "/chat/webhooks/" + id, R"({"isActive":false})").status() == 200);
  auto paused = f.Call("POST", "/chat/webhooks/" + id + "/deliveries/" + deliveryId + "/redeliver");
  CHECK(paused.status() == 409);
  CHECK(paused.code() == "CONFLICT");
}

// ---- Legacy /webhook/subscriptions ----

HttpRequest LegacyRequest(const std::string& method, const std::string& target, const std::string& body,
                          std::vector<std::pair<std::string, std::string>> headers) {
  HttpRequest req;
  req.method = method;
  req.target = target;
  req.body = body;
  req.peerIp = "203.0.113.9";
  req.headers = std::move(headers);
  if (!body.empty()) req.headers.emplace_back("content-type", "application/json");
  return req;
}

TEST_CASE("legacy POST: App ID + sk_ key, Pro or Plus only; wrong credentials 401") {
  for (Plan plan : {Plan::kPro, Plan::kPlus, Plan::kFree, Plan::kBasic}) {
    CAPTURE(PlanName(plan));
    WebhookFixture f(plan);
    auto r = f.Send(LegacyRequest("POST", "/webhook/subscriptions", CreateBody(kHookUrl),
                                  {{"x-webhook-app-id", f.shop.appId}, {"x-webhook-secret", f.key}}));
    if (PlanAllowsApiKeys(plan)) {
      CHECK(r.status() == 201);
      CHECK(Str(At(r.data(), "secret")).rfind("whsec_", 0) == 0);
      CHECK(KeySet(r.data()) == kSubscriptionKeys);
      // The same store's /chat/webhooks sees it; a second POST upserts (200).
      CHECK(f.Call("GET", "/chat/webhooks").data().Size() == 1);
      auto again = f.Send(LegacyRequest("POST", "/webhook/subscriptions", CreateBody(kHookUrl),
                                        {{"x-webhook-app-id", f.shop.appId}, {"x-webhook-secret", f.key}}));
      CHECK(again.status() == 200);
      CHECK(Str(At(again.data(), "id")) == Str(At(r.data(), "id")));
    } else {
      CHECK(r.status() == 403);
      CHECK(r.code() == "FORBIDDEN");
      CHECK(f.Call("GET", "/chat/webhooks").data().Size() == 0);
    }
  }
  WebhookFixture f;
  auto wrongKey = f.Send(LegacyRequest("POST", "/webhook/subscriptions", CreateBody(kHookUrl),
                                       {{"x-webhook-app-id", f.shop.appId},
                                        {"x-webhook-secret", "sk_00000000000000000000000000000000"}}));
  CHECK(wrongKey.status() == 401);
  CHECK(wrongKey.code() == "INVALID_API_KEY");
  auto wrongApp = f.Send(LegacyRequest("POST", "/webhook/subscriptions", CreateBody(kHookUrl),
                                       {{"x-webhook-app-id", "app_other"}, {"x-webhook-secret", f.key}}));
  CHECK(wrongApp.status() == 401);
  auto missing = f.Send(LegacyRequest("POST", "/webhook/subscriptions", CreateBody(kHookUrl), {}));
  CHECK(missing.status() == 401);
  CHECK(missing.code() == "UNAUTHENTICATED");
  // Another store's key with this store's App ID.
  auto other = f.Must(f.service().directory().CreateShop(CreateShopInput{"Other", Plan::kPro, false}));
  auto crossed = f.Send(LegacyRequest("POST", "/webhook/subscriptions", CreateBody(kHookUrl),
                                      {{"x-webhook-app-id", f.shop.appId},
                                       {"x-webhook-secret", f.NewKey(kAllRestPerms, other.id)}}));
  CHECK(crossed.status() == 401);
  // Validation is the same as /chat/webhooks.
  auto bad = f.Send(LegacyRequest("POST", "/webhook/subscriptions", CreateBody(kHookUrl, R"(["customer_message"])"),
                                  {{"x-webhook-app-id", f.shop.appId}, {"x-webhook-secret", f.key}}));
  CHECK(bad.status() == 400);
  CHECK(bad.code() == "INVALID_PARAMS");
}

TEST_CASE("legacy GET, PUT, DELETE: the whsec_ secret acts on its own subscription only") {
  WebhookFixture f;
  auto a = f.Subscribe({"message.created"}, "https://hooks.example.com/a");
  auto b = f.Subscribe({"message.created"}, "https://hooks.example.com/b");
  auto with = [&](const std::string& secret) {
    return std::vector<std::pair<std::string, std::string>>{{"x-webhook-secret", secret}};
  };

  auto got = f.Send(LegacyRequest("GET", "/webhook/subscriptions", "", with(a.secret)));
  CHECK(got.status() == 200);
  CHECK(Str(At(got.data(), "id")) == a.id);
  auto byId = f.Send(LegacyRequest("GET", "/webhook/subscriptions/" + a.id, "", with(a.secret)));
  CHECK(byId.status() == 200);
  CHECK(Str(At(byId.data(), "id")) == a.id);
  auto other = f.Send(LegacyRequest("GET", "/webhook/subscriptions/" + b.id, "", with(a.secret)));
  CHECK(other.status() == 404);
  CHECK(other.code() == "NOT_FOUND");

  auto put = f.Send(LegacyRequest("PUT", "/webhook/subscriptions", R"({"events":["customer.created"]})", with(a.secret)));
  CHECK(put.status() == 200);
  CHECK(StrList(At(put.data(), "events")) == std::vector<std::string>{"customer.created"});
  CHECK(f.Sub(b.id).events == std::vector<std::string>{"message.created"});
  CHECK(f.Send(LegacyRequest("PUT", "/webhook/subscriptions/" + b.id, R"({"isActive":false})", with(a.secret)))
            .status() == 404);
  CHECK(f.Sub(b.id).isActive);

  for (const std::string& wrong : {std::string("whsec_wrong"), a.secret + "0", std::string("sk_") + "0"}) {
    CAPTURE(wrong);
    auto r = f.Send(LegacyRequest("GET", "/webhook/subscriptions", "", with(wrong)));
    CHECK(r.status() == 401);
  }
  CHECK(f.Send(LegacyRequest("GET", "/webhook/subscriptions", "", {})).status() == 401);
  CHECK(f.Send(LegacyRequest("DELETE", "/webhook/subscriptions", "", with("whsec_wrong"))).status() == 401);

  auto del = f.Send(LegacyRequest("DELETE", "/webhook/subscriptions", "", with(a.secret)));
  CHECK(del.status() == 200);
  CHECK(Serialize(del.data()) == R"({"id":")" + a.id + R"(","deleted":true})");
  CHECK(f.Send(LegacyRequest("GET", "/webhook/subscriptions", "", with(a.secret))).status() == 401);
  auto left = f.Call("GET", "/chat/webhooks");
  REQUIRE(left.data().Size() == 1);
  CHECK(Str(At(At(left.data(), 0), "id")) == b.id);
}

TEST_CASE("legacy id form: DELETE by its own id; unsupported methods are 405 naming the id form's methods") {
  WebhookFixture f;
  auto a = f.Subscribe({"message.created"}, "https://hooks.example.com/a");
  auto b = f.Subscribe({"message.created"}, "https://hooks.example.com/b");
  std::vector<std::pair<std::string, std::string>> h{{"x-webhook-secret", a.secret}};

  auto post = f.Send(LegacyRequest("POST", "/webhook/subscriptions/" + a.id, CreateBody(kHookUrl), h));
  CHECK(post.status() == 405);
  CHECK(post.code() == "METHOD_NOT_ALLOWED");
  CHECK(post.header("Allow") == "GET, PUT, DELETE");
  auto patchOne = f.Send(LegacyRequest("PATCH", "/webhook/subscriptions/" + a.id, "", h));
  CHECK(patchOne.status() == 405);
  CHECK(patchOne.header("Allow") == "GET, PUT, DELETE");
  auto patchAll = f.Send(LegacyRequest("PATCH", "/webhook/subscriptions", "", h));
  CHECK(patchAll.status() == 405);
  CHECK(patchAll.header("Allow") == "GET, POST, PUT, DELETE");

  CHECK(f.Send(LegacyRequest("DELETE", "/webhook/subscriptions/" + b.id, "", h)).status() == 404);
  auto del = f.Send(LegacyRequest("DELETE", "/webhook/subscriptions/" + a.id, "", h));
  CHECK(del.status() == 200);
  CHECK(Serialize(del.data()) == R"({"id":")" + a.id + R"(","deleted":true})");
  auto left = f.Call("GET", "/chat/webhooks");
  REQUIRE(left.data().Size() == 1);
  CHECK(Str(At(At(left.data(), 0), "id")) == b.id);
}

TEST_CASE("legacy PUT resuming a paused subscription follows the same plan rule") {
  WebhookFixture f;
  auto a = f.Subscribe({"message.created"});
  f.Pause(a.id);
  f.SetPlan(Plan::kBasic);
  std::vector<std::pair<std::string, std::string>> h{{"x-webhook-secret", a.secret}};
  auto r = f.Send(LegacyRequest("PUT", "/webhook/subscriptions", R"({"isActive":true})", h));
  CHECK(r.status() == 403);
  CHECK(r.code() == "FORBIDDEN");
  f.SetPlan(Plan::kPlus);
  CHECK(f.Send(LegacyRequest("PUT", "/webhook/subscriptions", R"({"isActive":true})", h)).status() == 200);
  CHECK(f.Sub(a.id).isActive);
}

}  // namespace
}  // namespace livechat::testing
