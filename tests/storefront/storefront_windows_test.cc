// Every storefront rate window counts accepted calls only: after refusals of
// each kind the window still takes its full N, and refuses the N + 1st.
// (Attachments: storefront_files_test.cc.)
#include <doctest/doctest.h>

#include <string>

#include "storefront_fixture.h"

namespace livechat::testing {
namespace {

TEST_CASE("storefront windows: refused messages do not count; 15 accepted, the 16th 429") {
  StorefrontFixture f;
  auto v = f.Start();
  for (const char* args : {"[\"\"]", "[\"   \"]", "[42]", "[]", "[\"a\",\"b\"]"}) {
    CAPTURE(args);
    CHECK(f.Command(v, "message:send", args).status() == 400);
  }
  CHECK(f.Command(v, "message:send", "[\"" + std::string(5001, 'a') + "\"]").status() == 400);
  for (int i = 0; i < 15; ++i) REQUIRE(f.Command(v, "message:send", "[\"m\"]").status() == 200);
  CHECK(f.Command(v, "message:send", "[\"m\"]").status() == 429);
}

TEST_CASE("storefront windows: refused typing calls do not count; 30 accepted, the 31st 429") {
  StorefrontFixture f;
  auto v = f.Start();
  for (const char* args : {"[]", "[\"yes\"]", "[1]", "[true,false]"}) {
    CAPTURE(args);
    CHECK(f.Command(v, "typing:set", args).status() == 400);
  }
  for (int i = 0; i < 30; ++i) REQUIRE(f.Command(v, "typing:set", "[true]").status() == 200);
  Reply limited = f.Command(v, "typing:set", "[false]");
  CHECK(limited.status() == 429);
  CHECK(limited.message() == "typing:set: rate limit of 30 typing calls per minute reached; try again in 60 s");
  f.clock.Advance(59'500);
  Reply later = f.Command(v, "typing:set", "[false]");
  CHECK(later.status() == 429);
  CHECK(later.header("Retry-After") == "1");  // 500 ms, rounded up
}

TEST_CASE("storefront windows: refused new sessions do not count; 30 accepted, the 31st 429") {
  StorefrontFixture f;
  Shop gone = f.NewShop("Uninstalled store");
  f.Must(f.service().privacy().SetShopInstalled(Principal::System(gone.id), false));
  auto start = [&](const std::string& appId) {
    HttpRequest req = f.StorefrontRequest("POST", "/storefront/sessions", "", appId, "");
    req.peerIp = "198.51.100.40";
    return f.SendStorefront(req);
  };
  Reply noAppId = start("");
  CHECK(noAppId.status() == 401);
  for (const std::string& appId : {std::string("app_unknown"), gone.appId}) {
    CAPTURE(appId);
    Reply r = start(appId);
    CHECK(r.status() == 404);
    CHECK(r.code() == "NOT_FOUND");
  }
  for (int i = 0; i < 30; ++i) REQUIRE(start(f.shop.appId).status() == 201);
  Reply limited = start(f.shop.appId);
  CHECK(limited.status() == 429);
  CHECK(limited.message() == "too many new chat sessions from this address; try again in 60 s");
}

TEST_CASE("storefront windows: logout refused by the session window changes nothing") {
  StorefrontFixture f;  // every request from one address
  auto start = [&] { return f.SendStorefront(f.StorefrontRequest("POST", "/storefront/sessions", "", f.shop.appId, "")); };
  auto v = f.Start();
  REQUIRE(f.Command(v, "message:send", "[\"hi\"]").status() == 200);
  for (int i = 1; i < 30; ++i) REQUIRE(start().status() == 201);

  for (const char* command : {"logout", "session:reset"}) {
    CAPTURE(command);
    Reply refused = f.Command(v, command);
    CHECK(refused.status() == 429);
    CHECK(refused.code() == "RATE_LIMITED");
    Reply still = f.Session(v);
    REQUIRE(still.status() == 200);
    CHECK_FALSE(At(still.data(), "conversationId").IsNull());
  }
  f.clock.Advance(60'000);
  Reply out = f.Command(v, "logout");
  REQUIRE(out.status() == 200);
  CHECK(f.Session(v).status() == 401);
  // The new session took a place: 29 more, then the address is refused.
  for (int i = 1; i < 30; ++i) REQUIRE(start().status() == 201);
  CHECK(start().status() == 429);
}

}  // namespace
}  // namespace livechat::testing
