// The platform requests' HTTP adapter in-process (signature, limits, replay,
// audit), the redaction as the REST reads show it, the admin contact delete,
// and what an uninstall does to the admin paths. Every exchange is recorded
// for the contract check.
#include <doctest/doctest.h>

#include "livechat/platform.h"
#include "support/rest_fixture.h"

namespace livechat::testing {
namespace {

constexpr const char* kSecret = "platform-secret-for-tests";

struct PlatformFixture : RestFixture {
  explicit PlatformFixture(std::string secret = kSecret, std::size_t maxBody = 256 * 1024) {
    PlatformOptions o;
    o.appSecret = std::move(secret);
    o.maxBodyBytes = maxBody;
    platform = std::make_unique<PlatformApi>(service(), o);
  }

  std::string contentType = "application/json";  // of the platform requests sent
  Reply Platform(const std::string& method, const std::string& path, const std::string& body,
                 std::optional<std::string> signature, std::optional<std::string> deliveryId = std::nullopt) {
    HttpRequest req;
    req.method = method;
    req.target = path;
    req.body = body;
    req.peerIp = "198.51.100.9";
    req.headers.emplace_back("content-type", contentType);
    if (signature) req.headers.emplace_back("x-platform-hmac-sha256", *signature);
    if (deliveryId) req.headers.emplace_back("x-platform-webhook-id", *deliveryId);
    Reply r;
    r.raw = platform->Handle(req);
    RecordExchange(req, r.raw);
    r.json = ParseJson(r.raw.body);
    return r;
  }
  Reply Signed(const std::string& path, const std::string& body, std::optional<std::string> deliveryId = std::nullopt) {
    return Platform("POST", path, body, PlatformSignature(kSecret, body), std::move(deliveryId));
  }

  Reply Admin(const std::string& method, const std::string& target, const std::string& cookie) {
    HttpRequest req;
    req.method = method;
    req.target = target;
    req.peerIp = "203.0.113.7";
    req.headers.emplace_back("cookie", cookie);
    if (method != "GET") req.headers.emplace_back("x-livechat-csrf", "1");
    return Send(req);
  }
  Reply AdminLogin() {
    HttpRequest req;
    req.method = "POST";
    req.target = "/api/auth/login";
    req.peerIp = "203.0.113.7";
    req.headers.emplace_back("content-type", "application/json");
    req.body = R"({"email":"agent@example.com","password":"correct horse battery"})";
    return Send(req);
  }
  std::string Cookie() {
    Reply r = AdminLogin();
    REQUIRE(r.status() == 200);
    std::string set = r.header("Set-Cookie");
    return set.substr(0, set.find(';'));
  }

  std::string ShopBody() const { return R"({"shop_id":)" + JsonStr(shop.id) + R"(,"shop_domain":"main.example"})"; }
  std::string RedactBody(const std::string& email) const {
    return R"({"shop_id":)" + JsonStr(shop.id) + R"(,"customer":{"id":191167,"email":)" + JsonStr(email) +
           R"(,"phone":null},"orders_to_redact":[299938]})";
  }

  std::unique_ptr<PlatformApi> platform;
};

std::vector<std::string> AuditOutcomes(RestFixture& f) {
  std::vector<std::string> out;
  for (const auto& r : RestFixture::Must(f.service().privacy().ListPlatformRequests(f.sys, 100))) out.push_back(r.outcome);
  return out;
}

}  // namespace

TEST_CASE("platform: customers-redact signed is applied; unsigned and badly signed are 401 and change nothing") {
  PlatformFixture f;
  Conversation c = f.InboundFrom("casey@example.com", "Where is my parcel?");
  const std::string body = f.RedactBody("casey@example.com");

  auto unsigned_ = f.Platform("POST", "/platform/customers-redact", body, std::nullopt);
  CHECK(unsigned_.status() == 401);
  CHECK(unsigned_.code() == "UNAUTHENTICATED");
  CHECK(unsigned_.message().find("X-Platform-Hmac-Sha256") != std::string::npos);
  auto forged = f.Platform("POST", "/platform/customers-redact", body, PlatformSignature("another-secret-000", body));
  CHECK(forged.status() == 401);
  CHECK(forged.message().find("invalid signature") != std::string::npos);
  // A signature of another body (the body was changed in transit).
  auto tampered = f.Platform("POST", "/platform/customers-redact", body, PlatformSignature(kSecret, body + " "));
  CHECK(tampered.status() == 401);
  // Nothing changed, nothing recorded.
  auto before = f.Get("/chat/customers/" + *c.customerUuid);
  CHECK(Str(At(before.data(), "email")) == "casey@example.com");
  CHECK(At(before.data(), "isRedacted").GetBool() == false);
  CHECK(AuditOutcomes(f).empty());

  auto ok = f.Signed("/platform/customers-redact", body, "wh-100");
  REQUIRE(ok.status() == 200);
  CHECK(Str(At(ok.data(), "outcome")) == "applied");
  CHECK(Str(At(ok.data(), "topic")) == "customers_redact");
  CHECK(Str(At(ok.data(), "deliveryId")) == "wh-100");
  CHECK(At(At(ok.data(), "changes"), "contacts").GetInt() == 1);
  CHECK(At(At(ok.data(), "changes"), "conversations").GetInt() == 1);
  CHECK(ok.raw.route == "/platform/customers-redact");

  // Visible as redacted on every REST read of the contact.
  auto customer = f.Get("/chat/customers/" + *c.customerUuid);
  REQUIRE(customer.status() == 200);
  CHECK(At(customer.data(), "isRedacted").GetBool());
  for (const char* k : {"name", "email", "phone", "shopifyId", "note", "ipAddress"}) {
    CAPTURE(k);
    CHECK(At(customer.data(), k).IsNull());
  }
  auto detail = f.Get("/chat/conversations/" + c.id);
  CHECK(At(detail.data(), "isRedacted").GetBool());
  CHECK(At(detail.data(), "customerName").IsNull());
  CHECK(At(detail.data(), "customerEmail").IsNull());
  auto list = f.Get("/chat/conversations");
  CHECK(At(At(list.data(), 0), "isRedacted").GetBool());
  auto mine = f.Get("/chat/customers/" + *c.customerUuid + "/conversations");
  CHECK(At(At(mine.data(), 0), "isRedacted").GetBool());
  auto msgs = f.Get("/chat/conversations/" + c.id + "/messages");
  CHECK(Str(At(At(msgs.data(), 0), "text")) == "Where is my parcel?");
  CHECK(Str(At(At(msgs.data(), 0), "senderName")) == "Redacted");

  // The same delivery again: 200, recorded as a replay, nothing more changed.
  auto replay = f.Signed("/platform/customers-redact", body, "wh-100");
  REQUIRE(replay.status() == 200);
  CHECK(Str(At(replay.data(), "outcome")) == "replay");
  CHECK(At(replay.data(), "changes").ObjectEmpty());
  CHECK(AuditOutcomes(f) == std::vector<std::string>{"replay", "applied"});
}

TEST_CASE("platform: limits, methods, bad JSON only after the signature, unknown store, no secret") {
  PlatformFixture f("platform-secret-for-tests", 200);
  // Body limit: exactly 200 bytes is accepted, 201 is 413 before any signature work.
  std::string at = f.ShopBody();
  REQUIRE(at.size() < 200);
  at.insert(at.size() - 1, std::string(200 - at.size(), ' '));
  REQUIRE(at.size() == 200);
  CHECK(f.Signed("/platform/app-uninstalled", at).status() == 200);
  std::string over = at;
  over.insert(over.size() - 1, " ");
  auto big = f.Signed("/platform/app-uninstalled", over);
  CHECK(big.status() == 413);
  CHECK(big.code() == "PAYLOAD_TOO_LARGE");

  auto get = f.Platform("GET", "/platform/shop-redact", "", std::nullopt);
  CHECK(get.status() == 405);
  CHECK(get.header("Allow") == "POST");

  // Malformed JSON: unsigned is 401 (nothing is read first); signed is 400.
  CHECK(f.Platform("POST", "/platform/customers-data-request", "{not json", std::nullopt).status() == 401);
  auto badJson = f.Signed("/platform/customers-data-request", "{not json");
  CHECK(badJson.status() == 400);
  CHECK(badJson.code() == "INVALID_PARAMS");
  auto noRequestId = f.Signed("/platform/customers-data-request",
                              R"({"shop_id":)" + JsonStr(f.shop.id) + R"(,"customer":{"email":"a@b.c"}})");
  CHECK(noRequestId.status() == 400);
  CHECK(noRequestId.message() == "data_request is required: an object {id}");
  auto noCustomer = f.Signed("/platform/customers-redact", f.ShopBody());
  CHECK(noCustomer.status() == 400);
  auto noShop = f.Signed("/platform/shop-redact", "{}");
  CHECK(noShop.status() == 400);
  CHECK(noShop.message().find("shop_id") != std::string::npos);
  auto unknown = f.Signed("/platform/shop-redact", R"({"shop_id":"shop_missing"})");
  CHECK(unknown.status() == 404);
  CHECK(unknown.code() == "NOT_FOUND");
  auto nowhere = f.Signed("/platform/nothing-here", f.ShopBody());
  CHECK(nowhere.status() == 404);
  CHECK(AuditOutcomes(f) == std::vector<std::string>{"applied"});  // only the 200-byte uninstall

  PlatformFixture closed("");
  auto refused = closed.Signed("/platform/app-uninstalled", closed.ShopBody());
  CHECK(refused.status() == 401);
  CHECK(refused.message().find("--platform-secret") != std::string::npos);
  CHECK(RestFixture::Must(closed.service().directory().GetShop(closed.shop.id)).installed);
}

TEST_CASE("platform: customers-redact naming only a phone reaches the WhatsApp contact with that number") {
  PlatformFixture f;
  InboundMessageInput in;
  in.channel = "whatsapp";
  in.customerName = "Wanda Whatsapp";
  in.customerPhone = "+1 (555) 010-0000";
  in.text = "Hola";
  Conversation wanda = f.Inbound(in);
  in.customerPhone = "+1 (555) 010-0001";
  Conversation other = f.Inbound(in);
  auto body = [&](const std::string& phone) {
    return R"({"shop_id":)" + JsonStr(f.shop.id) + R"(,"customer":{"id":null,"email":null,"phone":)" +
           JsonStr(phone) + "}}";
  };

  auto junk = f.Signed("/platform/customers-redact", body("ask at the desk"));
  CHECK(junk.status() == 400);
  CHECK(junk.code() == "INVALID_PARAMS");
  CHECK(junk.message().find("customer.phone is not a phone number") == 0);
  CHECK(AuditOutcomes(f).empty());

  auto ok = f.Signed("/platform/customers-redact", body("15550100000"));
  REQUIRE(ok.status() == 200);
  CHECK(At(At(ok.data(), "changes"), "contacts").GetInt() == 1);
  CHECK(At(At(ok.data(), "changes"), "webhookEvents").GetInt() == 1);
  auto customer = f.Get("/chat/customers/" + *wanda.customerUuid);
  CHECK(At(customer.data(), "isRedacted").GetBool());
  CHECK(At(customer.data(), "phone").IsNull());
  CHECK(At(customer.data(), "name").IsNull());
  auto kept = f.Get("/chat/customers/" + *other.customerUuid);
  CHECK_FALSE(At(kept.data(), "isRedacted").GetBool());
  CHECK(Str(At(kept.data(), "phone")) == "+1 (555) 010-0001");
}

TEST_CASE("platform: uninstall ends admin sessions and refuses login; shop redact 409 while installed, then applied") {
  PlatformFixture f;
  const std::string cookie = f.Cookie();
  CHECK(f.Admin("GET", "/api/chat/conversations", cookie).status() == 200);

  auto early = f.Signed("/platform/shop-redact", f.ShopBody());
  CHECK(early.status() == 409);
  CHECK(early.code() == "CONFLICT");
  CHECK(early.message().find("still installed") != std::string::npos);

  auto uninstall = f.Signed("/platform/app-uninstalled", f.ShopBody(), "wh-1");
  REQUIRE(uninstall.status() == 200);
  CHECK(At(At(uninstall.data(), "changes"), "sessions").GetInt() == 1);
  CHECK(At(At(uninstall.data(), "changes"), "channelsDisconnected").GetInt() == 4);
  CHECK(f.Admin("GET", "/api/chat/conversations", cookie).status() == 401);
  auto login = f.AdminLogin();
  CHECK(login.status() == 403);
  CHECK(login.code() == "FORBIDDEN");
  CHECK(login.header("Set-Cookie") == "<absent>");
  CHECK(f.Get("/chat/conversations").status() == 200);  // the API key still works

  auto redact = f.Signed("/platform/shop-redact", f.ShopBody());
  REQUIRE(redact.status() == 200);
  CHECK(At(At(redact.data(), "changes"), "members").GetInt() == 1);
  CHECK(f.Get("/chat/members").data().Empty());
  CHECK(AuditOutcomes(f) == std::vector<std::string>{"applied", "applied", "refused"});
}

TEST_CASE("platform: a data request is answered with its audit row and kept with its export") {
  PlatformFixture f;
  f.InboundFrom("dana@example.com", "Hi there");
  const std::string body = R"({"shop_id":)" + JsonStr(f.shop.id) +
                           R"(,"customer":{"id":"55","email":"dana@example.com"},"orders_requested":[1],"data_request":{"id":9999}})";
  auto ok = f.Signed("/platform/customers-data-request", body);
  REQUIRE(ok.status() == 200);
  CHECK(At(At(ok.data(), "changes"), "contacts").GetInt() == 1);
  DataRequest d = RestFixture::Must(f.service().privacy().GetDataRequest(f.sys, "9999"));
  CHECK(d.exportJson.find("Hi there") != std::string::npos);
  CHECK(d.exportJson.find(R"("ordersNotHeld":["1"])") != std::string::npos);
  CHECK(Str(At(f.Signed("/platform/customers-data-request", body).data(), "outcome")) == "replay");
}

TEST_CASE("admin contact delete: only under /api/chat with a session; /chat/customers has no DELETE") {
  PlatformFixture f;
  Conversation c = f.InboundFrom("erin@example.com", "Please forget me");
  const std::string id = *c.customerUuid;
  auto viaKey = f.Delete("/chat/customers/" + id);
  CHECK(viaKey.status() == 405);
  CHECK(viaKey.header("Allow") == "GET");

  const std::string cookie = f.Cookie();
  auto missing = f.Admin("DELETE", "/api/chat/customers/nobody", cookie);
  CHECK(missing.status() == 404);
  auto noSession = f.Admin("DELETE", "/api/chat/customers/" + id, "lc_session=forged");
  CHECK(noSession.status() == 401);
  CHECK(f.Get("/chat/customers/" + id).status() == 200);

  auto del = f.Admin("DELETE", "/api/chat/customers/" + id, cookie);
  REQUIRE(del.status() == 200);
  CHECK(Str(At(del.data(), "id")) == id);
  CHECK(At(del.data(), "deleted").GetBool());
  CHECK(del.raw.route == "/api/chat/customers/{customerUuid}");
  CHECK(f.Get("/chat/customers/" + id).status() == 404);
  auto conv = f.Get("/chat/conversations/" + c.id);
  REQUIRE(conv.status() == 200);
  CHECK(At(conv.data(), "customerUuid").IsNull());
  CHECK(At(conv.data(), "isRedacted").GetBool());
  CHECK(f.Get("/chat/conversations/" + c.id + "/messages").data().Size() == 1);
  CHECK(f.Admin("GET", "/api/chat/conversations/" + c.id, cookie).status() == 200);
}

TEST_CASE("platform: the body follows the shared JSON rule: any case of application/json, charset utf-8 only (415)") {
  PlatformFixture f;
  f.InboundFrom("casey@example.com", "Where is my parcel?");
  const std::string body = f.RedactBody("casey@example.com");
  for (const char* refused : {"text/plain", "application/json;charset=latin1"}) {
    CAPTURE(refused);
    f.contentType = refused;
    auto r = f.Signed("/platform/customers-redact", body, "wh-415");
    CHECK(r.status() == 415);
    CHECK(r.code() == "UNSUPPORTED_MEDIA_TYPE");
  }
  CHECK(AuditOutcomes(f).empty());
  f.contentType = "Application/JSON; charset=UTF-8";
  auto ok = f.Signed("/platform/customers-redact", body, "wh-415");
  CHECK(ok.status() == 200);
  CHECK(Str(At(ok.data(), "outcome")) == "applied");
  // A signed string with a byte that is not UTF-8 is refused, not stored.
  f.contentType = "application/json";
  std::string bad = body;
  bad.replace(bad.find("casey"), 1, "\xff");
  auto notUtf8 = f.Signed("/platform/customers-redact", bad, "wh-bad");
  CHECK(notUtf8.status() == 400);
  CHECK(notUtf8.message() == "the body must be a JSON object");
}

}  // namespace livechat::testing
