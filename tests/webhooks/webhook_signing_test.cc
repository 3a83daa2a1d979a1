// Standard Webhooks signing (signatureFormat "standard") and secret rotation
// with a grace period, for both formats. Signatures are recomputed with
// OpenSSL (HMAC and base64) independently of the libsodium signer; the
// Standard Webhooks reference library checks real deliveries in
// tests/e2e/webhooks_e2e_test.cc.
#include <doctest/doctest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <regex>
#include <string>
#include <vector>

#include "webhook_fixture.h"

namespace livechat::testing {
namespace {

std::string OpenSslBase64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string OpenSslUnbase64(const std::string& text) {
  std::string out(text.size(), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  REQUIRE(n >= 0);
  std::size_t len = static_cast<std::size_t>(n);
  for (std::size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) --len;  // DecodeBlock counts padding
  out.resize(len);
  return out;
}

std::string OpenSslHmac(const std::string& key, const std::string& message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  REQUIRE(HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
               reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &len) != nullptr);
  return std::string(reinterpret_cast<const char*>(mac), len);
}

std::string Hex(const std::string& bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 0xF];
  }
  return out;
}

// What the Standard Webhooks specification says a signature is.
std::string ExpectedStandard(const std::string& secret, const std::string& id, const std::string& ts,
                             const std::string& body) {
  REQUIRE(secret.rfind("whsec_", 0) == 0);
  return "v1," + OpenSslBase64(OpenSslHmac(OpenSslUnbase64(secret.substr(6)), id + "." + ts + "." + body));
}

std::string ExpectedLivechat(const std::string& secret, const std::string& ts, const std::string& body) {
  return Hex(OpenSslHmac(secret, ts + ";" + body));
}

// A subscription to message.created signed the Standard Webhooks way.
Reply CreateStandard(WebhookFixture& f) {
  Reply created = f.Call("POST", "/chat/webhooks",
                         R"({"url":"https://hooks.example.com/std","events":["message.created"],)"
                         R"("signatureFormat":"standard"})");
  REQUIRE(created.status() == 201);
  return created;
}

// Makes one message.created delivery and checks it is signed by `secret`
// alone, in the Standard Webhooks format.
void ExpectStandardSignedBy(WebhookFixture& f, const std::string& secret, const std::string& text) {
  f.Inbound(text);
  CHECK(f.Run() == 1);
  auto req = f.transport.last();
  CHECK(HeaderOf(req, "webhook-signature") ==
        ExpectedStandard(secret, HeaderOf(req, "webhook-id"), HeaderOf(req, "webhook-timestamp"), req.body));
}

TEST_CASE("signatureFormat standard: webhook-id, webhook-timestamp, webhook-signature v1; a whsec_ base64 secret") {
  WebhookFixture f;
  f.clock.Set(1767225600987);
  Reply created = CreateStandard(f);
  CHECK(Str(At(created.data(), "signatureFormat")) == "standard");
  const std::string secret = Str(At(created.data(), "secret"));
  // 32 random bytes in standard base64: 43 characters and one '='.
  CHECK(std::regex_match(secret, std::regex("whsec_[A-Za-z0-9+/]{43}=")));
  CHECK(OpenSslUnbase64(secret.substr(6)).size() == 32);

  f.Inbound("Où est ma commande ?");
  CHECK(f.Run() == 1);
  auto req = f.transport.last();
  const std::string eventId = HeaderOf(req, "X-Webhook-Event-Id");
  CHECK(HeaderOf(req, "webhook-id") == eventId);
  CHECK(HeaderOf(req, "webhook-timestamp") == "1767225600");
  CHECK(HeaderOf(req, "webhook-signature") == ExpectedStandard(secret, eventId, "1767225600", req.body));
  CHECK(HeaderOf(req, "webhook-signature") == StandardWebhookSignature(secret, eventId, "1767225600", req.body));
  // The spec's headers are not sent: one signature scheme per subscription.
  CHECK(HeaderOf(req, "X-Webhook-Signature") == "<absent>");
  CHECK(HeaderOf(req, "X-Webhook-Timestamp") == "<absent>");
  CHECK(HeaderOf(req, "X-Webhook-Event") == "message.created");

  // A retry keeps webhook-id (receivers de-duplicate on it) and signs its own timestamp.
  f.Inbound("second");
  f.transport.Answer(500);
  CHECK(f.Run() == 1);
  const auto first = f.transport.last();
  f.transport.Answer(200);
  f.clock.Advance(10 * kSecond);
  CHECK(f.Run() == 1);
  const auto retry = f.transport.last();
  CHECK(HeaderOf(retry, "webhook-id") == HeaderOf(first, "webhook-id"));
  CHECK(HeaderOf(retry, "webhook-timestamp") == "1767225610");
  CHECK(HeaderOf(retry, "webhook-signature") ==
        ExpectedStandard(secret, HeaderOf(retry, "webhook-id"), "1767225610", retry.body));
}

TEST_CASE("signatureFormat: the default is livechat; an unknown value is 400 and changes nothing; PUT switches it") {
  WebhookFixture f;
  auto plain = f.Call("POST", "/chat/webhooks", R"({"url":"https://hooks.example.com/a","events":["message.created"]})");
  REQUIRE(plain.status() == 201);
  CHECK(Str(At(plain.data(), "signatureFormat")) == "livechat");
  const std::string id = Str(At(plain.data(), "id"));
  const std::string secret = Str(At(plain.data(), "secret"));
  CHECK(std::regex_match(secret, std::regex("whsec_[0-9a-f]{48}")));

  auto bad = f.Call("POST", "/chat/webhooks",
                    R"({"url":"https://hooks.example.com/b","events":["message.created"],"signatureFormat":"svix"})");
  CHECK(bad.status() == 400);
  CHECK(bad.code() == "INVALID_PARAMS");
  CHECK(bad.message() == "signatureFormat must be \"livechat\" or \"standard\", got \"svix\"");
  CHECK(f.Call("GET", "/chat/webhooks").data().Size() == 1);
  auto badPut = f.Call("PUT", "/chat/webhooks/" + id, R"({"signatureFormat":"Standard"})");
  CHECK(badPut.status() == 400);
  auto notString = f.Call("PUT", "/chat/webhooks/" + id, R"({"signatureFormat":1})");
  CHECK(notString.status() == 400);

  // Switching keeps the secret: a 48-hex-character secret is valid base64 too.
  auto put = f.Call("PUT", "/chat/webhooks/" + id, R"({"signatureFormat":"standard"})");
  REQUIRE(put.status() == 200);
  CHECK(Str(At(put.data(), "signatureFormat")) == "standard");
  CHECK(Str(At(put.data(), "secret")) == secret);
  ExpectStandardSignedBy(f, secret, "after the switch");
}

TEST_CASE("rotate-secret, spec format: both signatures during the grace period, then only the new one") {
  WebhookFixture f;
  f.clock.Set(1767225600000);
  auto sub = f.Subscribe({"message.created"});
  const std::string oldSecret = sub.secret;

  auto rotated = f.Call("POST", "/chat/webhooks/" + sub.id + "/rotate-secret", R"({"gracePeriodSeconds":3600})");
  REQUIRE(rotated.status() == 200);
  const std::string newSecret = Str(At(rotated.data(), "secret"));
  CHECK(newSecret != oldSecret);
  CHECK(std::regex_match(newSecret, std::regex("whsec_[0-9a-f]{48}")));
  CHECK(Str(At(rotated.data(), "previousSecretExpiresAt")) == "2026-01-01T01:00:00.000Z");
  CHECK(Str(At(At(f.Call("GET", "/chat/webhooks").data(), 0), "secret")) == newSecret);

  f.Inbound("during the grace period");
  CHECK(f.Run() == 1);
  auto during = f.transport.last();
  const std::string ts = HeaderOf(during, "X-Webhook-Timestamp");
  CHECK(HeaderOf(during, "X-Webhook-Signature") == ExpectedLivechat(newSecret, ts, during.body));
  CHECK(HeaderOf(during, "X-Webhook-Signature-Previous") == ExpectedLivechat(oldSecret, ts, during.body));

  // One millisecond before the end, still both; at the end, only the new one.
  f.clock.Advance(3600 * kSecond - 1);
  f.Inbound("last moment of the grace period");
  CHECK(f.Run() == 1);
  CHECK(HeaderOf(f.transport.last(), "X-Webhook-Signature-Previous") != "<absent>");
  f.clock.Advance(1);
  f.Inbound("after the grace period");
  CHECK(f.Run() == 1);
  auto after = f.transport.last();
  CHECK(HeaderOf(after, "X-Webhook-Signature") ==
        ExpectedLivechat(newSecret, HeaderOf(after, "X-Webhook-Timestamp"), after.body));
  CHECK(HeaderOf(after, "X-Webhook-Signature-Previous") == "<absent>");
  CHECK_FALSE(At(f.Call("GET", "/chat/webhooks").data(), 0).HasMember("previousSecretExpiresAt"));
}

TEST_CASE("rotate-secret, standard format: webhook-signature lists the new and the old signature") {
  WebhookFixture f;
  f.clock.Set(1767225600000);
  Reply created = CreateStandard(f);
  const std::string id = Str(At(created.data(), "id"));
  const std::string oldSecret = Str(At(created.data(), "secret"));
  // No body: the default grace period of 24 hours.
  auto rotated = f.Call("POST", "/chat/webhooks/" + id + "/rotate-secret");
  REQUIRE(rotated.status() == 200);
  const std::string newSecret = Str(At(rotated.data(), "secret"));
  CHECK(std::regex_match(newSecret, std::regex("whsec_[A-Za-z0-9+/]{43}=")));
  CHECK(Str(At(rotated.data(), "previousSecretExpiresAt")) == "2026-01-02T00:00:00.000Z");

  f.Inbound("signed twice");
  CHECK(f.Run() == 1);
  auto req = f.transport.last();
  const std::string msgId = HeaderOf(req, "webhook-id"), ts = HeaderOf(req, "webhook-timestamp");
  CHECK(HeaderOf(req, "webhook-signature") ==
        ExpectedStandard(newSecret, msgId, ts, req.body) + " " + ExpectedStandard(oldSecret, msgId, ts, req.body));

  // Rotating again during the grace period: the oldest secret stops at once.
  auto again = f.Call("POST", "/chat/webhooks/" + id + "/rotate-secret", R"({"gracePeriodSeconds":0})");
  REQUIRE(again.status() == 200);
  const std::string newest = Str(At(again.data(), "secret"));
  CHECK_FALSE(again.data().HasMember("previousSecretExpiresAt"));
  ExpectStandardSignedBy(f, newest, "one signature again");
}

TEST_CASE("rotate-secret: grace 0 to 604,800 s; outside, not a whole number, or another store's id changes nothing") {
  WebhookFixture f;
  auto sub = f.Subscribe({"message.created"});
  const std::string path = "/chat/webhooks/" + sub.id + "/rotate-secret";
  for (const char* body : {R"({"gracePeriodSeconds":604801})", R"({"gracePeriodSeconds":-1})"}) {
    CAPTURE(body);
    auto r = f.Call("POST", path, body);
    CHECK(r.status() == 400);
    CHECK(r.code() == "INVALID_PARAMS");
  }
  CHECK(f.Call("POST", path, R"({"gracePeriodSeconds":604801})").message() ==
        "gracePeriodSeconds must be 0 to 604800 (7 days), got 604801");
  CHECK(f.Call("POST", path, R"({"gracePeriodSeconds":1.5})").message() == "gracePeriodSeconds must be a whole number");
  CHECK(f.Call("POST", path, R"({"gracePeriodSeconds":"60"})").status() == 400);
  CHECK(Str(At(At(f.Call("GET", "/chat/webhooks").data(), 0), "secret")) == sub.secret);

  auto longest = f.Call("POST", path, R"({"gracePeriodSeconds":604800})");
  CHECK(longest.status() == 200);
  CHECK(Str(At(longest.data(), "secret")) != sub.secret);

  auto missing = f.Call("POST", "/chat/webhooks/wh_nope/rotate-secret");
  CHECK(missing.status() == 404);
  CHECK(missing.message() == "subscription not found");
  CHECK(f.Call("GET", path).status() == 405);
}

}  // namespace
}  // namespace livechat::testing
