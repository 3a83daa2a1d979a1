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

// A send is answered later (HttpResponse::deferred, its write handed to the
// store's writer): the later answer carries what Handle adds to every answer,
// and a send with an Idempotency-Key, whose answer is recorded as the request
// ends, is answered at once.
TEST_CASE("a message send answers later, with its route and rate headers; with an Idempotency-Key at once") {
  RestFixture f;
  Conversation c = f.Inbound("hello");
  const std::string body = R"({"text":"On its way","memberId":")" + f.agent.id + R"("})";
  HttpRequest send = f.Request("POST", "/chat/conversations/" + c.id + "/messages", body);
  CHECK(RestApi::IsHandedToWriter(send));
  HttpResponse first = f.api().Handle(send);
  REQUIRE(static_cast<bool>(first.deferred));
  HttpResponse later = AwaitReply(std::move(first));
  CHECK(later.status == 201);
  CHECK(later.route == "/chat/conversations/{conversationId}/messages");
  CHECK(later.Header("X-RateLimit-Limit") == std::optional<std::string>("1000000"));  // the fixture's limits
  CHECK(later.Header("X-RateLimit-Remaining") == std::optional<std::string>("999999"));
  CHECK(later.body.find(R"("text":"On its way")") != std::string::npos);
  CHECK(f.MessageCount(c.id) == 2);

  // Refused by a rule read in the write: the same 404 as ever, later.
  HttpRequest missing = f.Request("POST", "/chat/conversations/no-such-id/messages", body);
  HttpResponse gone = AwaitReply(f.api().Handle(missing));
  CHECK(gone.status == 404);
  CHECK(gone.route == "/chat/conversations/{conversationId}/messages");
  CHECK(gone.Header("X-RateLimit-Remaining") == std::optional<std::string>("999998"));
  // Refused before the write (no text): at once.
  HttpRequest empty = f.Request("POST", "/chat/conversations/" + c.id + "/messages", R"({"text":""})");
  HttpResponse invalid = AwaitReply(f.api().Handle(empty));
  CHECK(invalid.status == 400);

  send.headers.push_back({"idempotency-key", "send-once-1"});
  CHECK_FALSE(RestApi::IsHandedToWriter(send));
  HttpResponse once = f.api().Handle(send);
  CHECK_FALSE(static_cast<bool>(once.deferred));
  CHECK(once.status == 201);
  HttpResponse replay = f.api().Handle(send);
  CHECK(replay.status == 201);
  CHECK(replay.Header("Idempotent-Replayed") == std::optional<std::string>("true"));
  CHECK(replay.body == once.body);
  CHECK(f.MessageCount(c.id) == 3);

  // A host that did not ask for later answers (RestOptions::answerSendsLater
  // off) gets every answer from Handle itself.
  RestApi plain(f.service(), RestOptions{});
  HttpRequest direct = f.Request("POST", "/chat/conversations/" + c.id + "/messages", body);
  HttpResponse now = plain.Handle(direct);
  CHECK_FALSE(static_cast<bool>(now.deferred));
  CHECK(now.status == 201);
  CHECK(f.MessageCount(c.id) == 4);

  // Not handed over: another method, another route, no key.
  HttpRequest get = f.Request("GET", "/chat/conversations/" + c.id + "/messages");
  CHECK_FALSE(RestApi::IsHandedToWriter(get));
  HttpRequest note = f.Request("POST", "/chat/conversations/" + c.id + "/notes", R"({"text":"n"})");
  CHECK_FALSE(RestApi::IsHandedToWriter(note));
  send.headers = {};
  CHECK_FALSE(RestApi::IsHandedToWriter(send));
}
