// A customer redact and the outbox: a delivery queued before the redact and
// sent after it carries the redacted payload (same event id and type, signed
// over the body sent); a delivery sent before it is history and is not sent
// again.
#include <doctest/doctest.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "livechat/json_codec.h"
#include "webhook_fixture.h"

namespace livechat::testing {
namespace {

constexpr const char* kOtherHost = "hooks2.example.com";
constexpr const char* kOtherUrl = "https://hooks2.example.com/in";

Conversation WhatsappInbound(WebhookFixture& f, const std::string& phone, const std::string& text) {
  InboundMessageInput in;
  in.channel = "whatsapp";
  in.customerName = "Wanda Whatsapp";
  in.customerPhone = phone;
  in.text = text;
  return WebhookFixture::Must(f.service().conversations().ReceiveInbound(f.sys, in));
}

PlatformRequestInput RedactByPhone(const std::string& phone) {
  PlatformRequestInput in;
  in.topic = platform_topic::kCustomersRedact;
  in.customerPhone = phone;
  in.bodyDigest = "redact-" + phone;
  return in;
}

std::string HostOf(const WebhookRequest& r) { return r.target.host; }

// The one request sent so far to `host` for `eventId`.
WebhookRequest SentFor(WebhookFixture& f, const std::string& host, const std::string& eventId) {
  std::optional<WebhookRequest> found;
  for (const auto& r : f.transport.requests()) {
    if (HostOf(r) != host || HeaderOf(r, "X-Webhook-Event-Id") != eventId) continue;
    REQUIRE_MESSAGE(!found, "sent twice to " << host << ": " << eventId);
    found = r;
  }
  REQUIRE_MESSAGE(found, "never sent to " << host << ": " << eventId);
  return *found;
}

// The customer.created events in the outbox, oldest first.
std::vector<std::string> CustomerCreatedIds(WebhookFixture& f) {
  std::vector<std::string> out;
  for (const auto& e : f.Events())
    if (e.type == "customer.created") out.push_back(e.id);
  return out;
}

}  // namespace

TEST_CASE("redact: a delivery queued before it is sent redacted after it; one already delivered is not sent again") {
  WebhookFixture f;
  f.resolver.Set(kOtherHost, {kPublicAddress});
  WebhookSubscription delivered = f.Subscribe({"customer.created"});
  WebhookSubscription queued = f.Subscribe({"customer.created"}, kOtherUrl);
  // The second receiver's name points at a private address for now: its
  // first attempt fails before anything is sent, and it waits for its retry.
  f.resolver.Set(kOtherHost, {"10.0.0.8"});

  Conversation wanda = WhatsappInbound(f, "+1 (555) 010-0000", "Hola");
  const std::string customerId = *wanda.customerUuid;
  WhatsappInbound(f, "+1 (555) 010-0001", "Hello");  // another number: its events stay as fired
  const Millis firedAt = f.clock.NowMillis();
  const auto ids = CustomerCreatedIds(f);
  REQUIRE(ids.size() == 2);
  const std::string eventId = ids[0], otherEventId = ids[1];
  CHECK(f.Run() == 4);  // two events, two subscriptions
  REQUIRE(f.transport.count() == 2);
  const WebhookRequest before = SentFor(f, kHookHost, eventId);
  auto original = ParseJson(before.body);
  CHECK(Serialize(At(original, "data")) ==
        R"({"customerId":")" + customerId +
            R"(","email":null,"firstName":"Wanda","lastName":"Whatsapp","phone":"+1 (555) 010-0000",)"
            R"("tags":[],"ordersCount":0,"totalSpent":0})");
  const WebhookDelivery sentBefore = f.Deliveries(delivered.id).back();  // the oldest: Wanda's
  CHECK(sentBefore.eventId == eventId);
  CHECK(sentBefore.state == "succeeded");
  CHECK(sentBefore.attempts == 1);
  for (const auto& d : f.Deliveries(queued.id)) {
    CHECK(d.state == "pending");
    CHECK(d.attempts == 1);
  }

  f.clock.Advance(5 * kSecond);
  auto rec = WebhookFixture::Must(f.service().privacy().ApplyPlatformRequest(f.sys, RedactByPhone("15550100000")));
  CHECK(rec.changesJson ==
        R"({"contacts":1,"conversations":1,"messages":1,"browsedPages":0,"visitorSessions":0,"webhookEvents":1,"orders":0})");

  // The retry comes due; the receiver's name is public again.
  f.resolver.Set(kOtherHost, {kPublicAddress});
  f.clock.Advance(kSchedule[0]);
  CHECK(f.Run() == 2);
  REQUIRE(f.transport.count() == 4);
  const WebhookRequest after = SentFor(f, kOtherHost, eventId);
  CHECK(HeaderOf(after, "X-Webhook-Event") == "customer.created");
  CHECK(HeaderOf(after, "X-Webhook-Event-Id") == eventId);
  auto body = ParseJson(after.body);
  CHECK(KeySet(body) == std::set<std::string>{"eventId", "type", "shopId", "conversationId", "occurredAt", "data"});
  CHECK(Str(At(body, "eventId")) == eventId);
  CHECK(Str(At(body, "type")) == "customer.created");
  CHECK(Str(At(body, "shopId")) == f.shop.id);
  CHECK(At(body, "conversationId").IsNull());
  CHECK(Str(At(body, "occurredAt")) == FormatIso8601(firedAt));
  // Exactly what a read of the redacted contact shows.
  CHECK(Serialize(At(body, "data")) ==
        R"({"customerId":")" + customerId +
            R"(","email":null,"firstName":null,"lastName":null,"phone":null,"tags":[],)"
            R"("ordersCount":null,"totalSpent":null})");
  CHECK(after.body.find("Wanda") == std::string::npos);
  CHECK(after.body.find("555") == std::string::npos);
  // Signed over the body actually sent, with the receiver's secret.
  const std::string ts = HeaderOf(after, "X-Webhook-Timestamp");
  CHECK(ts == std::to_string(f.clock.NowMillis() / 1000));
  CHECK(HeaderOf(after, "X-Webhook-Signature") == WebhookSignature(queued.secret, ts, after.body));
  CHECK(VerifyWebhookSignature(queued.secret, ts, after.body, HeaderOf(after, "X-Webhook-Signature"),
                               f.clock.NowMillis() / 1000));

  // The other contact's event goes out as fired.
  const WebhookRequest untouched = SentFor(f, kOtherHost, otherEventId);
  CHECK(untouched.body == SentFor(f, kHookHost, otherEventId).body);
  CHECK(untouched.body.find(R"("phone":"+1 (555) 010-0001")") != std::string::npos);

  // The delivery made before the redact is history: not sent again, its record as it was.
  CHECK(f.Run() == 0);
  CHECK(f.transport.count() == 4);
  const WebhookDelivery still = f.Deliveries(delivered.id).back();
  CHECK(still.id == sentBefore.id);
  CHECK(still.state == "succeeded");
  CHECK(still.attempts == 1);
  CHECK(still.lastAttemptAt == sentBefore.lastAttemptAt);
  CHECK(f.Attempts(delivered.id).size() == 2);

  SUBCASE("a redelivery of the delivered event after the redact sends the redacted form") {
    WebhookFixture::Must(f.service().webhooks().RedeliverWebhook(f.Caller(), delivered.id, sentBefore.id));
    CHECK(f.Run() == 1);
    REQUIRE(f.transport.count() == 5);
    CHECK(HostOf(f.transport.last()) == kHookHost);
    CHECK(HeaderOf(f.transport.last(), "X-Webhook-Event-Id") == eventId);
    CHECK(f.transport.last().body == after.body);  // every subscription receives the same bytes
    CHECK(HeaderOf(f.transport.last(), "X-Webhook-Delivery-Id") != sentBefore.id);
  }
}

}  // namespace livechat::testing
