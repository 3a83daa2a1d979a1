// REST: authentication, permissions, rate limits and the admin inbox paths.
#include <doctest/doctest.h>

#include <functional>

#include "support/rest_fixture.h"

namespace livechat {
namespace {

using namespace livechat::testing;

HttpRequest Bare(const std::string& method, const std::string& target, std::vector<std::pair<std::string, std::string>> headers,
                 std::string peer = "203.0.113.7", std::string body = "") {
  HttpRequest req;
  req.method = method;
  req.target = target;
  req.headers = std::move(headers);
  req.peerIp = std::move(peer);
  req.body = std::move(body);
  return req;
}

TEST_CASE("Missing key is 401 UNAUTHENTICATED; unknown, malformed and revoked keys are 401 INVALID_API_KEY") {
  RestFixture f;
  auto none = f.Send(Bare("GET", "/chat/conversations", {}));
  CHECK(none.status() == 401);
  CHECK(none.code() == "UNAUTHENTICATED");
  CHECK(KeySet(none.json) == std::set<std::string>{"error"});
  CHECK(KeySet(At(none.json, "error")) == std::set<std::string>{"code", "message"});
  auto empty = f.Send(Bare("GET", "/chat/conversations", {{"x-api-key", ""}}));
  CHECK(empty.status() == 401);
  CHECK(empty.code() == "UNAUTHENTICATED");

  for (const std::string& bad : std::vector<std::string>{"sk_00000000000000000000000000000000", "abc", "sk_123", "Bearer sk_x",
                                f.key + "0", f.key.substr(0, f.key.size() - 1)}) {
    CAPTURE(bad);
    auto r = f.GetWithKey("/chat/conversations", bad);
    CHECK(r.status() == 401);
    CHECK(r.code() == "INVALID_API_KEY");
  }

  auto created = RestFixture::Must(f.service().directory().CreateApiKey(f.sys, CreateKeyInput{"to revoke", kAllRestPerms}));
  CHECK(f.GetWithKey("/chat/conversations", created.secret).status() == 200);
  RestFixture::Must(f.service().directory().DeleteApiKey(f.sys, created.key.id));
  auto revoked = f.GetWithKey("/chat/conversations", created.secret);
  CHECK(revoked.status() == 401);
  CHECK(revoked.code() == "INVALID_API_KEY");
  CHECK(f.GetWithKey("/chat/conversations", f.key).status() == 200);  // other keys unaffected
}

TEST_CASE("A brand-new key may be refused for a while: 401 INVALID_API_KEY, then accepted") {
  Limits limits = RelaxedLimits();
  limits.keyActivationDelayMillis = 30'000;
  RestFixture f(limits);
  auto fresh = f.GetWithKey("/chat/members", f.key);
  CHECK(fresh.status() == 401);
  CHECK(fresh.code() == "INVALID_API_KEY");
  f.clock.Advance(29'999);
  CHECK(f.GetWithKey("/chat/members", f.key).code() == "INVALID_API_KEY");
  f.clock.Advance(1);
  CHECK(f.GetWithKey("/chat/members", f.key).status() == 200);
}

TEST_CASE("The key resolves the store: no store id is ever taken from the request") {
  RestFixture f;
  auto other = f.NewShop("Other");
  InboundMessageInput in;
  in.text = "theirs";
  f.Inbound(in, other.id);
  f.Inbound("ours");
  auto r = f.Get("/chat/conversations?shopId=" + other.id);
  REQUIRE(r.status() == 200);
  REQUIRE(r.data().Size() == 1);
  CHECK(Str(At(At(r.data(), 0), "shopId")) == f.shop.id);
}

struct Endpoint {
  std::string method;
  std::string target;
  std::string body;
  const char* permission;  // the display name a refusal must mention
};

// Every endpoint of the REST tables, with fresh record ids so each may succeed once.
std::vector<Endpoint> AllEndpoints(RestFixture& f) {
  auto conv = f.InboundFrom("perm" + std::to_string(f.clock.NowMillis()) + "@example.com", "hello");
  f.clock.Advance(1);
  const std::string c = "/chat/conversations/" + conv.id;
  auto note = RestFixture::Must(f.service().annotations().CreateNote(f.sys, conv.id, std::string("n")));
  auto attr = RestFixture::Must(f.service().annotations().UpsertAttribute(f.sys, conv.id, std::string("k"), std::string("v")));
  auto msgs = RestFixture::Must(f.service().conversations().ListMessages(f.sys, conv.id, {}, std::nullopt));
  RestFixture::Must(f.service().conversations().PutSummary(f.sys, conv.id, "s", "fixed"));
  RestFixture::Must(f.service().annotations().AddTags(f.sys, conv.id, {"vip"}));
  const std::string member = "{\"memberId\":" + JsonStr(f.agent.id);
  const char* kRead = "Read conversations";
  const char* kManage = "Manage conversations";
  return {
      {"GET", "/chat/conversations", "", kRead},
      {"GET", c, "", kRead},
      {"GET", c + "/related", "", kRead},
      {"GET", c + "/browsed-pages", "", kRead},
      {"GET", c + "/summary", "", kRead},
      {"GET", c + "/messages", "", kRead},
      {"GET", c + "/messages/" + msgs.items.at(0).id, "", kRead},
      {"GET", "/chat/tags", "", kRead},
      {"GET", c + "/notes", "", kRead},
      {"GET", c + "/attributes", "", kRead},
      {"GET", "/chat/customers/" + *conv.customerUuid + "/conversations", "", kRead},
      {"GET", "/chat/members", "", kRead},
      {"GET", "/chat/members/" + f.agent.id, "", kRead},
      {"POST", c + "/state", R"({"status":"resolved"})", kManage},
      {"POST", c + "/assign", member + "}", kManage},
      {"POST", c + "/read", "", kManage},
      {"POST", c + "/typing", member + ",\"active\":true}", kManage},
      {"POST", c + "/messages", member + ",\"text\":\"hi\"}", kManage},
      {"POST", c + "/tags", R"({"tags":["x"]})", kManage},
      {"DELETE", c + "/tags/vip", "", kManage},
      {"POST", c + "/notes", R"({"text":"t"})", kManage},
      {"PUT", c + "/notes/" + note.id, R"({"text":"t2"})", kManage},
      {"DELETE", c + "/notes/" + note.id, "", kManage},
      {"POST", c + "/attributes", R"({"name":"n","value":"v"})", kManage},
      {"PUT", c + "/attributes/" + attr.id, R"({"value":"v2"})", kManage},
      {"DELETE", c + "/attributes/" + attr.id, "", kManage},
      {"GET", "/chat/customers/" + *conv.customerUuid, "", "Read customers"},
  };
}

Reply CallAs(RestFixture& f, const Endpoint& e, const std::string& key) {
  HttpRequest req = f.Request(e.method, e.target, e.body);
  req.headers[0].second = key;
  return f.Send(req);
}

TEST_CASE("Permissions: 403 FORBIDDEN naming the missing one; Manage covers reads; legacy passes") {
  RestFixture f;
  struct KeyCase {
    const char* name;
    std::uint32_t perms;
    bool legacy;
    std::function<bool(const Endpoint&)> allowed;
  };
  auto isRead = [](const Endpoint& e) { return std::string(e.permission) == "Read conversations"; };
  auto isManage = [](const Endpoint& e) { return std::string(e.permission) == "Manage conversations"; };
  auto isCustomers = [](const Endpoint& e) { return std::string(e.permission) == "Read customers"; };
  const std::vector<KeyCase> cases = {
      {"read conversations", kPermReadConversations, false, isRead},
      {"manage conversations", kPermManageConversations, false,
       [&](const Endpoint& e) { return isRead(e) || isManage(e); }},
      {"read customers", kPermReadCustomers, false, isCustomers},
      {"nothing ticked", kPermNone, false, [](const Endpoint&) { return false; }},
      {"legacy", kPermNone, true, [](const Endpoint&) { return true; }},
      {"settings only", kPermReadSettings | kPermManageKnowledge, false, [](const Endpoint&) { return false; }},
  };
  for (const auto& kc : cases) {
    CAPTURE(kc.name);
    auto created = RestFixture::Must(f.service().directory().CreateApiKey(f.sys, CreateKeyInput{kc.name, kc.perms, kc.legacy}));
    for (const auto& e : AllEndpoints(f)) {
      CAPTURE(e.method);
      CAPTURE(e.target);
      auto r = CallAs(f, e, created.secret);
      if (kc.allowed(e)) {
        CHECK(r.status() >= 200);
        CHECK(r.status() < 300);
      } else {
        CHECK(r.status() == 403);
        CHECK(r.code() == "FORBIDDEN");
        CHECK(r.message().find(e.permission) != std::string::npos);
      }
    }
    // At most 5 active keys per store: make room for the next case.
    RestFixture::Must(f.service().directory().DeleteApiKey(f.sys, created.key.id));
  }
}

TEST_CASE("A permission change applies on the key's next request") {
  RestFixture f;
  auto created = RestFixture::Must(f.service().directory().CreateApiKey(f.sys, CreateKeyInput{"rotating", kPermReadCustomers, false}));
  auto before = f.GetWithKey("/chat/conversations", created.secret);
  CHECK(before.status() == 403);
  CHECK(before.code() == "FORBIDDEN");
  auto updated = RestFixture::Must(f.service().directory().UpdateApiKeyPermissions(f.sys, created.key.id, kPermReadConversations));
  CHECK(updated.permissions == kPermReadConversations);
  CHECK(f.GetWithKey("/chat/conversations", created.secret).status() == 200);
  // Ticking nothing refuses everything, from the next request on.
  RestFixture::Must(f.service().directory().UpdateApiKeyPermissions(f.sys, created.key.id, kPermNone));
  auto after = f.GetWithKey("/chat/conversations", created.secret);
  CHECK(after.status() == 403);
  CHECK(after.message().find("Read conversations") != std::string::npos);
  // A revoked key cannot be changed back to life.
  RestFixture::Must(f.service().directory().DeleteApiKey(f.sys, created.key.id));
  auto revived = f.service().directory().UpdateApiKeyPermissions(f.sys, created.key.id, kPermReadConversations);
  REQUIRE_FALSE(revived.ok());
  CHECK(revived.error().code == ErrorCode::kNotFound);
  CHECK(f.GetWithKey("/chat/conversations", created.secret).code() == "INVALID_API_KEY");
}

TEST_CASE("A refused write changes nothing") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  std::string readOnly = f.NewKey(kPermReadConversations);
  HttpRequest req = f.Request("POST", "/chat/conversations/" + conv.id + "/messages",
                              "{\"text\":\"x\",\"memberId\":" + JsonStr(f.agent.id) + "}");
  req.headers[0].second = readOnly;
  CHECK(f.Send(req).status() == 403);
  CHECK(f.MessageCount(conv.id) == 1);
  req = f.Request("POST", "/chat/conversations/" + conv.id + "/state", R"({"status":"resolved"})");
  req.headers[0].second = readOnly;
  CHECK(f.Send(req).status() == 403);
  CHECK(f.Load(conv.id).status == "open");
}

TEST_CASE("Rate limit per key: 120 per fixed 60 s window; blocked calls do not extend it") {
  RestFixture f(Limits{});
  for (int i = 1; i <= 120; ++i) {
    auto r = f.Get("/chat/members");
    REQUIRE(r.status() == 200);
    CHECK(r.header("X-RateLimit-Limit") == "120");
    CHECK(r.header("X-RateLimit-Remaining") == std::to_string(120 - i));
    // The IETF fields: both windows this request was counted in, the key's
    // first; the clock stands still, so each ends in 60 s.
    CHECK(r.header("RateLimit-Policy") == "\"key\";q=120;w=60, \"ip\";q=300;w=60");
    CHECK(r.header("RateLimit") == "\"key\";r=" + std::to_string(120 - i) + ";t=60, \"ip\";r=" +
                                       std::to_string(300 - i) + ";t=60");
  }
  auto blocked = f.Get("/chat/members");
  CHECK(blocked.status() == 429);
  CHECK(blocked.code() == "RATE_LIMITED");
  CHECK(blocked.header("X-RateLimit-Limit") == "120");
  CHECK(blocked.header("X-RateLimit-Remaining") == "0");
  CHECK(blocked.header("Retry-After") == "60");
  CHECK(blocked.header("RateLimit") == "\"key\";r=0;t=60, \"ip\";r=179;t=60");

  // Another key from the same address has its own window.
  std::string other = f.NewKey(kAllRestPerms);
  CHECK(f.GetWithKey("/chat/members", other).status() == 200);

  f.clock.Advance(30'000);
  auto still = f.Get("/chat/members");
  CHECK(still.status() == 429);
  CHECK(still.header("Retry-After") == "30");
  CHECK(still.header("RateLimit").rfind("\"key\";r=0;t=30, ", 0) == 0);
  f.clock.Advance(29'500);
  auto almost = f.Get("/chat/members");
  CHECK(almost.status() == 429);
  CHECK(almost.header("Retry-After") == "1");  // 500 ms, rounded up
  f.clock.Advance(500);  // 60 s after the window's first request
  auto again = f.Get("/chat/members");
  CHECK(again.status() == 200);
  CHECK(again.header("X-RateLimit-Remaining") == "119");
  CHECK(again.header("Retry-After") == "<absent>");
}

TEST_CASE("Rate limit per source IP: 300 across keys; failed authentications count") {
  SUBCASE("across keys") {
    RestFixture f(Limits{});
    std::vector<std::string> keys = {f.NewKey(kAllRestPerms), f.NewKey(kAllRestPerms), f.NewKey(kAllRestPerms)};
    for (const auto& k : keys)
      for (int i = 0; i < 100; ++i) REQUIRE(f.GetWithKey("/chat/members", k).status() == 200);
    auto fourth = f.GetWithKey("/chat/members", f.NewKey(kAllRestPerms));
    CHECK(fourth.status() == 429);
    CHECK(fourth.code() == "RATE_LIMITED");
    CHECK(fourth.header("X-RateLimit-Limit") == "300");
    CHECK(fourth.header("X-RateLimit-Remaining") == "0");
    CHECK(fourth.header("Retry-After") == "60");
    // Refused by the address's window before the key was counted: only it.
    CHECK(fourth.header("RateLimit-Policy") == "\"ip\";q=300;w=60");
    CHECK(fourth.header("RateLimit") == "\"ip\";r=0;t=60");
    HttpRequest elsewhere = f.Request("GET", "/chat/members");
    elsewhere.peerIp = "198.51.100.99";
    CHECK(f.Send(elsewhere).status() == 200);
  }
  SUBCASE("bad keys") {
    RestFixture f(Limits{});
    for (int i = 0; i < 300; ++i) {
      auto r = f.GetWithKey("/chat/members", "sk_00000000000000000000000000000000");
      REQUIRE(r.status() == 401);
      CHECK(r.header("X-RateLimit-Limit") == "300");
    }
    auto good = f.Get("/chat/members");
    CHECK(good.status() == 429);
    auto unauth = f.Send(Bare("GET", "/chat/members", {}));
    CHECK(unauth.status() == 429);
    HttpRequest elsewhere = f.Request("GET", "/chat/members");
    elsewhere.peerIp = "198.51.100.99";
    CHECK(f.Send(elsewhere).status() == 200);
  }
}

TEST_CASE("Every /chat response carries the rate-limit headers") {
  RestFixture f(Limits{}, RestOptions{64, {}, "lc_session", false, {}});
  auto conv = f.Inbound("hi");
  std::vector<Reply> replies;
  replies.push_back(f.Get("/chat/members"));                                          // 200
  replies.push_back(f.Post("/chat/conversations/" + conv.id + "/notes", R"({"text":"n"})"));  // 201
  replies.push_back(f.Get("/chat/conversations?limit=abc"));                          // 400
  replies.push_back(f.Get("/chat/conversations/%zz"));                                // 400 (target)
  replies.push_back(f.Send(Bare("GET", "/chat/members", {})));                        // 401
  replies.push_back(f.GetWithKey("/chat/members", "nope"));                           // 401
  replies.push_back(f.GetWithKey("/chat/customers/x", f.NewKey(kPermReadConversations)));  // 403
  replies.push_back(f.Get("/chat/nothing-here"));                                     // 404
  replies.push_back(f.Delete("/chat/members"));                                       // 405
  replies.push_back(f.Post("/chat/conversations/" + conv.id + "/notes", Repeat("x", 65)));  // 413
  HttpRequest noType = f.Request("POST", "/chat/conversations/" + conv.id + "/notes", R"({"text":"n"})");
  noType.headers.pop_back();
  replies.push_back(f.Send(noType));  // 415
  std::vector<int> statuses;
  for (const auto& r : replies) {
    statuses.push_back(r.status());
    CHECK(r.header("X-RateLimit-Limit") != "<absent>");
    CHECK(r.header("X-RateLimit-Remaining") != "<absent>");
    CHECK(r.header("RateLimit-Policy") != "<absent>");
    CHECK(r.header("RateLimit") != "<absent>");
  }
  CHECK(statuses == std::vector<int>{200, 201, 400, 400, 401, 401, 403, 404, 405, 413, 415});
}

TEST_CASE("X-Forwarded-For is honoured only from a trusted proxy") {
  Limits limits;
  limits.rateLimitPerIp = 3;
  limits.rateLimitPerKey = 1000;
  RestOptions options;
  options.trustedProxies = {*Cidr::Parse("10.0.0.0/8")};
  RestFixture f(limits, options);
  auto via = [&](const std::string& peer, const std::string& xff) {
    HttpRequest req = f.Request("GET", "/chat/members");
    req.peerIp = peer;
    req.headers.emplace_back("x-forwarded-for", xff);
    return f.Send(req).status();
  };
  // Behind our proxy: each client has its own window.
  for (int i = 0; i < 3; ++i) CHECK(via("10.0.0.1", "198.51.100.1") == 200);
  CHECK(via("10.0.0.2", "198.51.100.1") == 429);
  CHECK(via("10.0.0.1", "198.51.100.2") == 200);
  CHECK(via("10.0.0.1", "6.6.6.6, 198.51.100.1") == 429);  // a spoofed left part changes nothing

  // An untrusted peer cannot choose its address by header.
  CHECK(via("192.0.2.5", "1.1.1.1") == 200);
  CHECK(via("192.0.2.5", "1.1.1.2") == 200);
  CHECK(via("192.0.2.5", "1.1.1.3") == 200);
  CHECK(via("192.0.2.5", "1.1.1.4") == 429);
}

// ---- Admin inbox (/api/...) ----

std::string CookieFrom(const Reply& r) {
  std::string set = r.header("Set-Cookie");
  return set.substr(0, set.find(';'));
}

Reply Login(RestFixture& f, const std::string& body, const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  auto headers = extra;
  headers.emplace_back("content-type", "application/json");
  return f.Send(Bare("POST", "/api/auth/login", headers, "203.0.113.7", body));
}

TEST_CASE("Admin paths refuse API keys and need a session") {
  RestFixture f;
  auto withKey = f.Get("/api/chat/conversations");  // the fixture sends X-Api-Key
  CHECK(withKey.status() == 401);
  CHECK(withKey.code() == "UNAUTHENTICATED");
  CHECK(withKey.message().find("API key") != std::string::npos);
  auto loginWithKey = Login(f, R"({"email":"agent@example.com","password":"correct horse battery"})",
                            {{"x-api-key", f.key}});
  CHECK(loginWithKey.status() == 401);
  CHECK(loginWithKey.message().find("API key") != std::string::npos);

  auto noSession = f.Send(Bare("GET", "/api/chat/conversations", {}));
  CHECK(noSession.status() == 401);
  CHECK(noSession.code() == "UNAUTHENTICATED");
  auto badSession = f.Send(Bare("GET", "/api/chat/conversations", {{"cookie", "lc_session=forged"}}));
  CHECK(badSession.status() == 401);
  CHECK(badSession.code() == "UNAUTHENTICATED");
}

TEST_CASE("Admin login sets the session cookie; /api/chat mirrors /chat; logout ends it") {
  RestFixture f;
  auto conv = f.InboundFrom("maya@example.com", "hello");

  auto wrong = Login(f, R"({"email":"agent@example.com","password":"nope nope nope"})");
  CHECK(wrong.status() == 401);
  CHECK(wrong.code() == "UNAUTHENTICATED");
  CHECK(wrong.header("Set-Cookie") == "<absent>");
  CHECK(Login(f, R"({"email":5,"password":"x"})").code() == "INVALID_PARAMS");
  CHECK(Login(f, R"({"password":"x"})").code() == "INVALID_PARAMS");
  auto noType = f.Send(Bare("POST", "/api/auth/login", {}, "203.0.113.7", R"({"email":"a","password":"b"})"));
  CHECK(noType.status() == 415);

  auto ok = Login(f, R"({"email":"AGENT@example.com","password":"correct horse battery"})");
  REQUIRE(ok.status() == 200);
  CHECK(KeySet(ok.data()) == Keys(kMemberKeys));
  CHECK(Str(At(ok.data(), "id")) == f.agent.id);
  CHECK(ok.raw.body.find("password") == std::string::npos);
  const std::string setCookie = ok.header("Set-Cookie");
  CHECK(setCookie.rfind("lc_session=", 0) == 0);
  CHECK(setCookie.find("; Path=/api") != std::string::npos);
  CHECK(setCookie.find("; HttpOnly") != std::string::npos);
  CHECK(setCookie.find("; SameSite=Strict") != std::string::npos);
  CHECK(setCookie.find("Max-Age=604800") != std::string::npos);
  CHECK(setCookie.find("Secure") == std::string::npos);
  const std::string cookie = CookieFrom(ok);
  REQUIRE(cookie.size() > std::string("lc_session=").size());

  auto admin = f.Send(Bare("GET", "/api/chat/conversations", {{"cookie", "theme=dark; " + cookie}}));
  REQUIRE(admin.status() == 200);
  CHECK(admin.raw.body == f.Get("/chat/conversations").raw.body);
  auto detail = f.Send(Bare("GET", "/api/chat/conversations/" + conv.id, {{"cookie", cookie}}));
  CHECK(detail.raw.body == f.Get("/chat/conversations/" + conv.id).raw.body);

  // An inbox session replies as its own member.
  auto sent = f.Send(Bare("POST", "/api/chat/conversations/" + conv.id + "/messages",
                          {{"cookie", cookie}, {"content-type", "application/json"}, {"x-livechat-csrf", "1"}},
                          "203.0.113.7",
                          R"({"text":"from the inbox"})"));
  REQUIRE(sent.status() == 201);
  CHECK(Str(At(sent.data(), "memberId")) == f.agent.id);
  CHECK(f.Send(Bare("GET", "/api/chat/members", {{"cookie", cookie}})).status() == 200);
  CHECK(f.Send(Bare("GET", "/api/chat/nothing", {{"cookie", cookie}})).status() == 404);
  CHECK(f.Send(Bare("GET", "/api/other", {{"cookie", cookie}})).status() == 404);
  CHECK(f.Send(Bare("DELETE", "/api/chat/members", {{"cookie", cookie}})).status() == 405);
  auto loginGet = f.Send(Bare("GET", "/api/auth/login", {}));
  CHECK(loginGet.status() == 405);
  CHECK(loginGet.header("Allow") == "POST");

  // The cookie is not a credential on the public API.
  auto publicWithCookie = f.Send(Bare("GET", "/chat/conversations", {{"cookie", cookie}}));
  CHECK(publicWithCookie.status() == 401);
  CHECK(publicWithCookie.code() == "UNAUTHENTICATED");

  auto out = f.Send(Bare("POST", "/api/auth/logout", {{"cookie", cookie}, {"x-livechat-csrf", "1"}}));
  REQUIRE(out.status() == 200);
  CHECK(out.header("Set-Cookie").find("Max-Age=0") != std::string::npos);
  auto after = f.Send(Bare("GET", "/api/chat/conversations", {{"cookie", cookie}}));
  CHECK(after.status() == 401);
  CHECK(after.code() == "UNAUTHENTICATED");
  CHECK(f.Send(Bare("POST", "/api/auth/logout", {{"x-livechat-csrf", "1"}})).status() == 200);  // already logged out

  // Sessions expire.
  auto again = Login(f, R"({"email":"agent@example.com","password":"correct horse battery"})");
  const std::string cookie2 = CookieFrom(again);
  CHECK(f.Send(Bare("GET", "/api/chat/members", {{"cookie", cookie2}})).status() == 200);
  f.clock.Advance(7LL * 24 * 3600 * 1000);
  CHECK(f.Send(Bare("GET", "/api/chat/members", {{"cookie", cookie2}})).status() == 401);
}

TEST_CASE("Admin login: after 5 wrong passwords 429 with Retry-After, even for the right one, until the wait ends") {
  RestFixture f;
  const std::string right = R"({"email":"agent@example.com","password":"correct horse battery"})";
  const std::string wrong = R"({"email":"agent@example.com","password":"guess"})";
  for (int i = 0; i < 5; ++i) {
    auto r = Login(f, wrong);
    CHECK(r.status() == 401);
    CHECK(r.code() == "UNAUTHENTICATED");
    CHECK(r.message() == "wrong email or password");
    CHECK(r.header("Retry-After") == "<absent>");
  }
  auto locked = Login(f, right);
  CHECK(locked.status() == 429);
  CHECK(locked.code() == "RATE_LIMITED");
  CHECK(locked.message() == "too many failed sign-ins: try again in 1 s");
  CHECK(locked.header("Retry-After") == "1");
  CHECK(locked.header("Set-Cookie") == "<absent>");
  // Another address is refused too: the account is what is being guessed.
  auto elsewhere =
      f.Send(Bare("POST", "/api/auth/login", {{"content-type", "application/json"}}, "198.51.100.9", right));
  CHECK(elsewhere.status() == 429);
  CHECK(elsewhere.header("Retry-After") == "1");

  f.clock.Advance(1'000);
  CHECK(Login(f, wrong).status() == 401);
  auto longer = Login(f, right);
  CHECK(longer.status() == 429);
  CHECK(longer.header("Retry-After") == "2");
  f.clock.Advance(1'500);
  CHECK(Login(f, right).header("Retry-After") == "1");  // 500 ms, rounded up
  f.clock.Advance(500);
  auto ok = Login(f, right);
  CHECK(ok.status() == 200);
  CHECK(ok.header("Set-Cookie").rfind("lc_session=", 0) == 0);
  CHECK(Login(f, wrong).status() == 401);  // the success started the account over
}

TEST_CASE("Admin cookie options: name and Secure") {
  RestOptions options;
  options.sessionCookieName = "inbox";
  options.secureCookies = true;
  RestFixture f(RelaxedLimits(), options);
  auto ok = Login(f, R"({"email":"agent@example.com","password":"correct horse battery"})");
  REQUIRE(ok.status() == 200);
  CHECK(ok.header("Set-Cookie").rfind("inbox=", 0) == 0);
  CHECK(ok.header("Set-Cookie").find("; Secure") != std::string::npos);
  const std::string cookie = CookieFrom(ok);
  CHECK(f.Send(Bare("GET", "/api/chat/members", {{"cookie", cookie}})).status() == 200);
  std::string asDefault = "lc_session=" + cookie.substr(cookie.find('=') + 1);
  CHECK(f.Send(Bare("GET", "/api/chat/members", {{"cookie", asDefault}})).status() == 401);
}

}  // namespace
}  // namespace livechat
