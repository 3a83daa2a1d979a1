// Route templates: what livechatd labels request metrics with. The adapter
// reports the template it matched (HttpResponse::route); RestApi::RouteTemplate
// derives the same from a target for answers given before routing.
#include <doctest/doctest.h>

#include "support/rest_fixture.h"

using namespace livechat;
using namespace livechat::testing;

TEST_CASE("the adapter reports the matched route template, whatever the outcome of the call") {
  RestFixture f;
  Conversation c = f.Inbound("hello");
  CHECK(f.Get("/chat/conversations?limit=2").raw.route == "/chat/conversations");
  CHECK(f.Get("/chat/conversations/" + c.id).raw.route == "/chat/conversations/{conversationId}");
  auto missing = f.Get("/chat/conversations/no-such-id/messages/7");
  CHECK(missing.status() == 404);
  CHECK(missing.raw.route == "/chat/conversations/{conversationId}/messages/{messageId}");
  auto tag = f.Delete("/chat/conversations/" + c.id + "/tags/a%2Fb");
  CHECK(tag.raw.route == "/chat/conversations/{conversationId}/tags/{tag}");
  auto badBody = f.Post("/chat/conversations/" + c.id + "/notes", "[1]");
  CHECK(badBody.status() == 400);
  CHECK(badBody.raw.route == "/chat/conversations/{conversationId}/notes");
  auto wrongMethod = f.Call("PATCH", "/chat/members");
  CHECK(wrongMethod.status() == 405);
  CHECK(wrongMethod.raw.route == "/chat/members");
  CHECK(f.Post("/chat/webhooks/wh_x/deliveries/dlv_y/redeliver", "").raw.route ==
        "/chat/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver");

  // No route: an unknown path, or an answer given before routing.
  auto unknown = f.Get("/chat/nothing-here");
  CHECK(unknown.status() == 404);
  CHECK(unknown.raw.route.empty());
  auto anon = f.GetWithKey("/chat/members", "");
  CHECK(anon.status() == 401);
  CHECK(anon.raw.route.empty());
}

TEST_CASE("legacy and admin answers carry their surface's template") {
  RestFixture f;
  HttpRequest legacy = f.Request("GET", "/webhook/subscriptions");
  legacy.headers = {{"x-webhook-secret", "whsec_wrong"}};
  auto r = f.Send(legacy);
  CHECK(r.status() == 401);
  CHECK(r.raw.route == "/webhook/subscriptions");
  legacy.target = "/webhook/subscriptions/wh_1";
  CHECK(f.Send(legacy).raw.route == "/webhook/subscriptions/{id}");

  HttpRequest login = f.Request("POST", "/api/auth/login", R"({"email":"agent@example.com","password":"nope"})");
  login.headers = {{"content-type", "application/json"}};
  auto denied = f.Send(login);
  CHECK(denied.status() == 401);
  CHECK(denied.raw.route == "/api/auth/login");
  login.body = R"({"email":"agent@example.com","password":"correct horse battery"})";
  auto in = f.Send(login);
  REQUIRE(in.status() == 200);
  std::string cookie = in.header("Set-Cookie");
  HttpRequest mirror = f.Request("GET", "/api/chat/members");
  mirror.headers = {{"cookie", cookie.substr(0, cookie.find(';'))}};
  auto members = f.Send(mirror);
  CHECK(members.status() == 200);
  CHECK(members.raw.route == "/api/chat/members");
}

TEST_CASE("RouteTemplate derives the same templates from a target, for any method") {
  CHECK(RestApi::RouteTemplate("/chat/conversations?status=open") == "/chat/conversations");
  CHECK(RestApi::RouteTemplate("/chat/conversations/abc/notes/n1") == "/chat/conversations/{conversationId}/notes/{noteId}");
  CHECK(RestApi::RouteTemplate("/chat/customers/c1/conversations") == "/chat/customers/{customerUuid}/conversations");
  CHECK(RestApi::RouteTemplate("/api/chat/members/m1") == "/api/chat/members/{memberId}");
  CHECK(RestApi::RouteTemplate("/api/auth/logout") == "/api/auth/logout");
  CHECK(RestApi::RouteTemplate("/webhook/subscriptions") == "/webhook/subscriptions");
  CHECK(RestApi::RouteTemplate("/webhook/subscriptions/wh_1") == "/webhook/subscriptions/{id}");
  CHECK_FALSE(RestApi::RouteTemplate("/chat/nothing").has_value());
  CHECK_FALSE(RestApi::RouteTemplate("/chat/conversations/a/b/c/d").has_value());
  CHECK_FALSE(RestApi::RouteTemplate("/webhook/subscriptions/a/b").has_value());
  CHECK_FALSE(RestApi::RouteTemplate("/api/other").has_value());
  CHECK_FALSE(RestApi::RouteTemplate("/graphql").has_value());
  CHECK_FALSE(RestApi::RouteTemplate("/chat/conversations/%zz").has_value());
}
