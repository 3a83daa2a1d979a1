// What a delivery carries: the body (envelope, truncation), the five headers,
// and the signature, checked against OpenSSL's HMAC computed independently.
#include <doctest/doctest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cctype>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/service_internal.h"
#include "livechat/json_codec.h"
#include "webhook_fixture.h"

namespace livechat::testing {
namespace {

// Lowercase hex HMAC-SHA256, by OpenSSL (the product signs with libsodium).
std::string OpenSslHmacSha256Hex(const std::string& key, const std::string& message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  REQUIRE(HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
               reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &len) != nullptr);
  REQUIRE(len == 32);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[mac[i] >> 4];
    out += kHex[mac[i] & 0xF];
  }
  return out;
}

bool IsLowerHex(const std::string& s) {
  return s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

Event SampleEvent(std::string dataJson) {
  Event e;
  e.id = "0b9f6f5e-3c1d-4c52-9a4e-1f2d3c4b5a69";
  e.shopId = "shop-1";
  e.type = "message.created";
  e.conversationId = "conv-1";
  e.occurredAt = 1767225600123;
  e.dataJson = std::move(dataJson);
  return e;
}

// An event whose serialized envelope is exactly `size` bytes.
Event EventOfSize(std::size_t size) {
  const std::size_t base = EventEnvelopeJson(SampleEvent(R"({"text":""})")).size();
  REQUIRE(size >= base);
  return SampleEvent(R"({"text":")" + std::string(size - base, 'x') + R"("})");
}

TEST_CASE("truncation: above 80,000 bytes data becomes {truncated, originalSize}; the envelope is kept") {
  WebhookFixture f;
  auto& d = f.dispatcher();

  SUBCASE("exactly 80,000 bytes: sent whole") {
    Event e = EventOfSize(80'000);
    std::string body = d.BuildPayload(e);
    CHECK(body.size() == 80'000);
    CHECK(body == EventEnvelopeJson(e));
  }
  SUBCASE("80,001 bytes: data replaced") {
    Event e = EventOfSize(80'001);
    std::string body = d.BuildPayload(e);
    auto json = ParseJson(body);
    CHECK(KeySet(json) == std::set<std::string>{"eventId", "type", "shopId", "conversationId", "occurredAt", "data"});
    CHECK(Str(At(json, "eventId")) == e.id);
    CHECK(Str(At(json, "type")) == "message.created");
    CHECK(Str(At(json, "shopId")) == "shop-1");
    CHECK(Str(At(json, "conversationId")) == "conv-1");
    CHECK(Str(At(json, "occurredAt")) == "2026-01-01T00:00:00.123Z");
    CHECK(Serialize(At(json, "data")) == R"({"truncated":true,"originalSize":80001})");
    CHECK(body.size() < 300);
  }
  SUBCASE("a configured limit applies the same way") {
    auto o = f.Options();
    o.maxPayloadBytes = 1000;
    WebhookDispatcher small(o);
    CHECK(small.BuildPayload(EventOfSize(1000)) == EventEnvelopeJson(EventOfSize(1000)));
    CHECK(small.BuildPayload(EventOfSize(1001)).find(R"("data":{"truncated":true,"originalSize":1001})") !=
          std::string::npos);
  }
}

TEST_CASE("truncation end to end: a 200,000-byte event is delivered truncated and signed over what was sent") {
  WebhookFixture f;
  auto sub = f.Subscribe({"conversation.tags_updated"});
  // Larger than any one operation can make: inject it through the outbox fan-out.
  Event big = SampleEvent(R"({"tags":[")" + std::string(200'000, 't') + R"("]})");
  big.shopId = f.shop.id;
  big.type = "conversation.tags_updated";
  big.occurredAt = f.clock.NowMillis();
  const std::size_t original = EventEnvelopeJson(big).size();
  WebhookFixture::Must(f.store().Write(
      [&](StoreWriter& w) { return internal::EmitEvents(w, f.random(), std::vector<Event>{big}); }));
  CHECK(f.Run() == 1);
  auto req = f.transport.last();
  auto json = ParseJson(req.body);
  CHECK(Serialize(At(json, "data")) == R"({"truncated":true,"originalSize":)" + std::to_string(original) + "}");
  CHECK(Str(At(json, "eventId")) == big.id);
  CHECK(HeaderOf(req, "X-Webhook-Signature") ==
        OpenSslHmacSha256Hex(sub.secret, HeaderOf(req, "X-Webhook-Timestamp") + ";" + req.body));
}

TEST_CASE("headers: event, timestamp, signature, event id, delivery id; signature = HMAC-SHA256(secret, ts;body)") {
  WebhookFixture f;
  f.clock.Set(1767225600987);  // Unix seconds 1767225600, with a fraction that must be dropped
  auto sub = f.Subscribe({"message.created"});
  f.Inbound("Où est ma commande ? \"quoted\" \\ ✓");
  CHECK(f.Run() == 1);
  auto req = f.transport.last();

  std::map<std::string, std::string> headers(req.headers.begin(), req.headers.end());
  CHECK(headers.size() == req.headers.size());  // no header twice
  CHECK(HeaderOf(req, "Content-Type") == "application/json");
  CHECK(HeaderOf(req, "X-Webhook-Event") == "message.created");
  CHECK(HeaderOf(req, "X-Webhook-Timestamp") == "1767225600");
  const std::string sig = HeaderOf(req, "X-Webhook-Signature");
  CHECK(sig.size() == 64);
  CHECK(IsLowerHex(sig));
  CHECK(sig == OpenSslHmacSha256Hex(sub.secret, "1767225600;" + req.body));
  CHECK(sig == WebhookSignature(sub.secret, "1767225600", req.body));

  auto events = f.Events();
  REQUIRE(events.size() == 3);  // customer.created, conversation.created, message.created
  const Event* msg = nullptr;
  for (const auto& e : events)
    if (e.type == "message.created") msg = &e;
  REQUIRE(msg != nullptr);
  CHECK(HeaderOf(req, "X-Webhook-Event-Id") == msg->id);
  CHECK(HeaderOf(req, "X-Webhook-Delivery-Id") == f.OnlyDelivery(sub.id).id);
  // The body is the event's envelope, byte for byte.
  CHECK(req.body == EventEnvelopeJson(*msg));

  // A receiver's check passes, and fails on any change.
  CHECK(VerifyWebhookSignature(sub.secret, "1767225600", req.body, sig, 1767225600));
  CHECK(VerifyWebhookSignature(sub.secret, "1767225600", req.body, sig, 1767225600 + 300));
  CHECK_FALSE(VerifyWebhookSignature(sub.secret, "1767225600", req.body, sig, 1767225600 + 301));
  CHECK_FALSE(VerifyWebhookSignature(sub.secret, "1767225600", req.body, sig, 1767225600 - 301));
  CHECK_FALSE(VerifyWebhookSignature(sub.secret, "1767225600", req.body + " ", sig, 1767225600));
  CHECK_FALSE(VerifyWebhookSignature(sub.secret, "1767225601", req.body, sig, 1767225600));
  CHECK_FALSE(VerifyWebhookSignature(sub.secret + "x", "1767225600", req.body, sig, 1767225600));
  std::string upper = sig;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK_FALSE(VerifyWebhookSignature(sub.secret, "1767225600", req.body, upper, 1767225600));
  CHECK_FALSE(VerifyWebhookSignature(sub.secret, "1767225600", req.body, sig.substr(0, 63), 1767225600));
  CHECK_FALSE(VerifyWebhookSignature(sub.secret, "17672256OO", req.body, sig, 1767225600));
}

TEST_CASE("HMAC vectors: libsodium signer equals OpenSSL for empty, long and binary inputs") {
  const std::string longKey(200, 'k');  // longer than the block size: hashed first (RFC 2104)
  for (const auto& [key, ts, body] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"whsec_0123456789abcdef", "0", ""},
           {"whsec_x", "1767225600", "{}"},
           {longKey, "1767225600", std::string(100'000, 'b')},
           {"", "1", std::string("\0\x01\xff", 3)}}) {
    CHECK(WebhookSignature(key, ts, body) == OpenSslHmacSha256Hex(key, ts + ";" + body));
  }
  // RFC 4231 test case 2 as a sanity check on the independent side.
  CHECK(OpenSslHmacSha256Hex("Jefe", "what do ya want for nothing?") ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST_CASE("event id: the same across retries and subscriptions; delivery id: stable across retries, one per subscription") {
  WebhookFixture f;
  auto a = f.Subscribe({"message.created"}, "https://hooks.example.com/a");
  auto b = f.Subscribe({"message.created"}, "https://hooks.example.com/b");
  CHECK(a.secret != b.secret);
  f.Inbound("one event, two subscriptions");
  // Fail whichever is sent first, succeed the second; then retry the first.
  f.transport.Answer(500);
  CHECK(f.Run() == 2);
  f.clock.Advance(10 * kSecond);
  CHECK(f.Run() == 1);
  auto reqs = f.transport.requests();
  REQUIRE(reqs.size() == 3);
  const std::string eventId = HeaderOf(reqs[0], "X-Webhook-Event-Id");
  for (const auto& r : reqs) CHECK(HeaderOf(r, "X-Webhook-Event-Id") == eventId);
  // reqs[0] and reqs[2] go to the same subscription (the retry), reqs[1] to the other.
  CHECK(reqs[0].target.pathAndQuery == reqs[2].target.pathAndQuery);
  CHECK(reqs[0].target.pathAndQuery != reqs[1].target.pathAndQuery);
  CHECK(HeaderOf(reqs[0], "X-Webhook-Delivery-Id") == HeaderOf(reqs[2], "X-Webhook-Delivery-Id"));
  CHECK(HeaderOf(reqs[0], "X-Webhook-Delivery-Id") != HeaderOf(reqs[1], "X-Webhook-Delivery-Id"));
  // Each is signed with its own subscription's secret; the retry has a new timestamp.
  auto secretOf = [&](const WebhookRequest& r) { return r.target.pathAndQuery == "/a" ? a.secret : b.secret; };
  for (const auto& r : reqs)
    CHECK(HeaderOf(r, "X-Webhook-Signature") ==
          OpenSslHmacSha256Hex(secretOf(r), HeaderOf(r, "X-Webhook-Timestamp") + ";" + r.body));
  CHECK(std::stoll(HeaderOf(reqs[2], "X-Webhook-Timestamp")) == std::stoll(HeaderOf(reqs[0], "X-Webhook-Timestamp")) + 10);
  CHECK(reqs[0].body == reqs[2].body);  // the same bytes on a retry
  CHECK(reqs[0].body == reqs[1].body);  // and to every subscription (no metadata, no subscription data)
}

}  // namespace
}  // namespace livechat::testing
