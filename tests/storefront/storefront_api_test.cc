#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "livechat/crypto.h"
#include "storefront_fixture.h"

namespace livechat::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::string Repeat(char c, int n) { return std::string(static_cast<std::size_t>(n), c); }

TEST_CASE("storefront: a session needs the store's App ID, and only the token's hash is stored") {
  StorefrontFixture f;
  Reply missing = f.SendStorefront(f.StorefrontRequest("POST", "/storefront/sessions", "", "", ""));
  CHECK(missing.status() == 401);
  CHECK(missing.code() == "UNAUTHENTICATED");
  Reply unknown = f.SendStorefront(f.StorefrontRequest("POST", "/storefront/sessions", "", "app_nope", ""));
  CHECK(unknown.status() == 404);
  CHECK(unknown.code() == "NOT_FOUND");

  auto v = f.Start();
  CHECK(v.token.rfind("vs_", 0) == 0);
  CHECK(v.token.size() == 3 + 48);
  std::optional<VisitorSession> stored;
  f.Must(f.store().Read([&](StoreReader& r) -> Status {
    auto s = r.FindVisitorSession(livechat::Sha256Hex(v.token));
    if (!s.ok()) return s.take_error();
    stored = *s;
    return Status::Ok();
  }));
  REQUIRE(stored.has_value());
  CHECK(stored->id == v.sessionId);
  CHECK(stored->tokenHash == livechat::Sha256Hex(v.token));
  CHECK(stored->tokenHash != v.token);

  // Any plan: a Free store's widget works too.
  Shop free = f.Must(f.service().directory().CreateShop(CreateShopInput{"Free shop", Plan::kFree, false}));
  Reply freeStart = f.SendStorefront(f.StorefrontRequest("POST", "/storefront/sessions", "", free.appId, ""));
  CHECK(freeStart.status() == 201);

  // No token, a wrong token, or another store's token: 401, nothing read.
  Reply noToken = f.SendStorefront(f.StorefrontRequest("GET", "/storefront/session", "", f.shop.appId, ""));
  CHECK(noToken.status() == 401);
  Reply wrong = f.SendStorefront(f.StorefrontRequest("GET", "/storefront/session", "", f.shop.appId, "vs_x"));
  CHECK(wrong.status() == 401);
  CHECK(wrong.code() == "UNAUTHENTICATED");
  Reply crossStore = f.SendStorefront(
      f.StorefrontRequest("GET", "/storefront/session", "", free.appId, v.token));
  CHECK(crossStore.status() == 401);
}

TEST_CASE("storefront: the first message creates contact and conversation, with the three events in order") {
  StorefrontFixture f;
  auto v = f.Start();
  const auto before = f.EventTypes().size();
  Reply sent = f.Command(v, "message:send", "[\"Do you ship to Canada?\"]");
  REQUIRE_MESSAGE(sent.status() == 200, sent.raw.body);
  CHECK(Str(At(At(sent.data(), "message"), "text")) == "Do you ship to Canada?");
  CHECK(Str(At(At(sent.data(), "message"), "senderType")) == "customer");

  auto types = f.EventTypes();
  REQUIRE(types.size() == before + 3);
  CHECK(types[before] == "customer.created");
  CHECK(types[before + 1] == "conversation.created");
  CHECK(types[before + 2] == "message.created");

  // What an agent sees through the REST API.
  Reply list = f.Get("/chat/conversations?limit=5");
  REQUIRE(list.status() == 200);
  const auto& conv = At(list.data(), 0);
  CHECK(Str(At(conv, "sessionId")) == v.sessionId);
  CHECK(Str(At(conv, "customerType")) == "anonymous");
  CHECK(StrList(At(conv, "channels")) == std::vector<std::string>{"online_store"});
  const std::string convId = Str(At(conv, "id"));
  Reply msgs = f.Get("/chat/conversations/" + convId + "/messages");
  REQUIRE(msgs.data().Size() == 1);
  CHECK(Str(At(At(msgs.data(), 0), "text")) == "Do you ship to Canada?");

  // The second message continues the same conversation: only message.created.
  REQUIRE(f.Command(v, "message:send", "[\"Hello?\"]").status() == 200);
  types = f.EventTypes();
  REQUIRE(types.size() == before + 4);
  CHECK(types.back() == "message.created");
  CHECK(f.Get("/chat/conversations").data().Size() == 1);
}

TEST_CASE("storefront: a rejected command is a 4xx with the validator's warning and changes nothing") {
  StorefrontFixture f;
  auto v = f.Start();
  const auto events = f.EventTypes().size();

  Reply tooLong = f.Command(v, "message:send", "[\"" + Repeat('a', 5001) + "\"]");
  CHECK(tooLong.status() == 400);
  CHECK(tooLong.code() == "INVALID_PARAMS");
  CHECK(tooLong.message() == "message:send: text must be at most 5000 characters (got 5001)");
  Reply atLimit = f.Command(v, "message:send", "[\"" + Repeat('a', 5000) + "\"]");
  CHECK(atLimit.status() == 200);
  const auto afterOne = f.EventTypes().size();
  CHECK(afterOne == events + 3);

  Reply unknown = f.Command(v, "chat:explode");
  CHECK(unknown.status() == 400);
  CHECK(unknown.message().find("unknown command \"chat:explode\"") != std::string::npos);
  Reply badIdentify = f.Command(v, "identify", "[{\"email\":\"not-an-email\"}]");
  CHECK(badIdentify.status() == 400);
  CHECK(badIdentify.message() == "identify: user.email must be an email address like name@example.com");
  Reply bigProduct = f.Command(v, "product", "[{\"id\":1,\"pad\":\"" + Repeat('x', 8200) + "\"}]");
  CHECK(bigProduct.status() == 400);
  CHECK(bigProduct.message().find("product: product must be at most 8192 bytes as JSON") != std::string::npos);
  Reply notArray = f.SendStorefront(f.StorefrontRequest("POST", "/storefront/commands",
                                                        "{\"command\":\"message:send\",\"args\":\"hi\"}", f.shop.appId,
                                                        v.token));
  CHECK(notArray.status() == 400);

  CHECK(f.EventTypes().size() == afterOne);
  Reply session = f.Session(v);
  CHECK(At(session.data(), "state").IsObject());
  CHECK_FALSE(At(session.data(), "state").HasMember("product"));
  CHECK(f.MessageCount(Str(At(session.data(), "conversationId"))) == 1);
}

TEST_CASE("storefront: 15 messages a minute per session, the 16th is 429; typing 30") {
  StorefrontFixture f;
  auto v = f.Start();
  for (int i = 1; i <= 15; ++i) REQUIRE(f.Command(v, "message:send", "[\"m" + std::to_string(i) + "\"]").status() == 200);
  Reply limited = f.Command(v, "message:send", "[\"m16\"]");
  CHECK(limited.status() == 429);
  CHECK(limited.code() == "RATE_LIMITED");
  CHECK(limited.message() == "message:send: rate limit of 15 messages per minute reached; try again in 60 s");
  CHECK(limited.header("Retry-After") == "60");
  Reply session = f.Session(v);
  const std::string conv = Str(At(session.data(), "conversationId"));
  CHECK(f.MessageCount(conv) == 15);

  // Another visitor is not affected; after the window the first one may write again.
  auto other = f.Start();
  CHECK(f.Command(other, "message:send", "[\"hi\"]").status() == 200);
  f.clock.Advance(60'000);
  CHECK(f.Command(v, "message:send", "[\"m16\"]").status() == 200);

  for (int i = 0; i < 30; ++i) REQUIRE(f.Command(v, "typing:set", "[true]").status() == 200);
  CHECK(f.Command(v, "typing:set", "[false]").status() == 429);
}

TEST_CASE("storefront: an agent reply reaches a waiting poll well within 2 seconds") {
  StorefrontFixture f;
  auto v = f.Start();
  Reply first = f.Command(v, "message:send", "[\"Where is my order?\"]");
  REQUIRE(first.status() == 200);
  const std::int64_t cursor = At(first.data(), "seq").GetInt64();
  const std::string conv = Str(At(f.Session(v).data(), "conversationId"));

  // Nothing new: a poll without wait answers at once, empty.
  Reply idle = f.Updates(v, "?after=" + std::to_string(cursor));
  REQUIRE(idle.status() == 200);
  CHECK(At(idle.data(), "messages").Size() == 0);
  CHECK(At(idle.data(), "cursor").GetInt64() == cursor);

  std::thread agent([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    Reply r = f.Post("/chat/conversations/" + conv + "/messages",
                     "{\"text\":\"It ships tomorrow.\",\"memberId\":\"" + f.agent.id + "\"}");
    CHECK(r.status() == 201);
  });
  const auto t0 = Clock::now();
  Reply got = f.Updates(v, "?after=" + std::to_string(cursor) + "&wait=10");
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  agent.join();
  REQUIRE(got.status() == 200);
  REQUIRE(At(got.data(), "messages").Size() == 1);
  const auto& m = At(At(At(got.data(), "messages"), 0), "message");
  CHECK(Str(At(m, "text")) == "It ships tomorrow.");
  CHECK(Str(At(m, "senderType")) == "agent");
  CHECK(At(got.data(), "cursor").GetInt64() > cursor);
  CHECK(waited >= 250);
  CHECK(waited < 2000);

  // Notes are internal: never delivered to the widget.
  REQUIRE(f.Post("/chat/conversations/" + conv + "/messages",
                 "{\"text\":\"VIP\",\"memberId\":\"" + f.agent.id + "\",\"isNote\":true}").status() == 201);
  Reply afterNote = f.Updates(v, "?after=" + std::to_string(At(got.data(), "cursor").GetInt64()));
  CHECK(At(afterNote.data(), "messages").Size() == 0);
}

TEST_CASE("storefront: typing both ways") {
  StorefrontFixture f;
  auto v = f.Start();
  REQUIRE(f.Command(v, "message:send", "[\"hi\"]").status() == 200);
  const std::string conv = Str(At(f.Session(v).data(), "conversationId"));
  REQUIRE(f.Post("/chat/conversations/" + conv + "/typing",
                 "{\"memberId\":\"" + f.agent.id + "\",\"active\":true}").status() == 200);
  Reply shown = f.Updates(v, "?after=0&typing=0&wait=1");
  REQUIRE(At(shown.data(), "typing").Size() == 1);
  CHECK(Str(At(At(At(shown.data(), "typing"), 0), "memberId")) == f.agent.id);

  // The customer's own indicator is stored for the inbox, never echoed back.
  REQUIRE(f.Command(v, "typing:set", "[true]").status() == 200);
  std::vector<TypingState> rows;
  f.Must(f.store().Read([&](StoreReader& r) -> Status {
    auto t = r.ListTyping(f.shop.id, conv);
    if (!t.ok()) return t.take_error();
    rows = *t;
    return Status::Ok();
  }));
  bool customerTyping = false;
  for (const auto& t : rows) customerTyping = customerTyping || (t.memberId == "customer" && t.active);
  CHECK(customerTyping);
  Reply again = f.Updates(v, "?after=0&typing=1");
  CHECK(At(again.data(), "typing").Size() == 1);
}

TEST_CASE("storefront: identify, user attributes and conversation attributes land on the records") {
  StorefrontFixture f;
  auto v = f.Start();
  // Before any message: the attributes wait on the session for the conversation.
  REQUIRE(f.Command(v, "conversation:attributes", "[{\"orderNumber\":\"#1001\"}]").status() == 200);
  Reply id = f.Command(v, "identify", "[{\"email\":\"ana@example.com\",\"name\":\"Ana Lima\",\"id\":\"cust_42\"}]");
  REQUIRE_MESSAGE(id.status() == 200, id.raw.body);
  const std::string customerId = Str(At(id.data(), "customerId"));
  REQUIRE(f.Command(v, "user:attributes", "[{\"plan\":\"gold\"}]").status() == 200);
  REQUIRE(f.Command(v, "message:send", "[\"hi\"]").status() == 200);

  Reply customer = f.Get("/chat/customers/" + customerId);
  REQUIRE(customer.status() == 200);
  CHECK(Str(At(customer.data(), "email")) == "ana@example.com");
  CHECK(Str(At(customer.data(), "name")) == "Ana Lima");
  CHECK(Str(At(customer.data(), "firstName")) == "Ana");
  CHECK(Str(At(customer.data(), "lastName")) == "Lima");
  CHECK(Str(At(customer.data(), "shopifyId")) == "cust_42");
  CHECK(Str(At(customer.data(), "type")) == "customer");
  CHECK(Str(At(At(customer.data(), "customAttributes"), "plan")) == "gold");

  const std::string conv = Str(At(f.Session(v).data(), "conversationId"));
  Reply c = f.Get("/chat/conversations/" + conv);
  CHECK(Str(At(c.data(), "customerUuid")) == customerId);
  CHECK(Str(At(c.data(), "customerEmail")) == "ana@example.com");
  Reply attrs = f.Get("/chat/conversations/" + conv + "/attributes");
  REQUIRE(attrs.data().Size() == 1);
  CHECK(Str(At(At(attrs.data(), 0), "name")) == "orderNumber");
  CHECK(Str(At(At(attrs.data(), 0), "value")) == "#1001");

  // After the conversation exists: upsert by name, straight away.
  REQUIRE(f.Command(v, "conversation:attributes", "[{\"orderNumber\":\"#1002\",\"size\":\"M\"}]").status() == 200);
  attrs = f.Get("/chat/conversations/" + conv + "/attributes");
  CHECK(attrs.data().Size() == 2);

  // Renaming later follows to the conversation's copy of the contact.
  REQUIRE(f.Command(v, "user:name", "[\"Ana B. Lima\"]").status() == 200);
  CHECK(Str(At(f.Get("/chat/conversations/" + conv).data(), "customerName")) == "Ana B. Lima");
}

TEST_CASE("storefront: page views fill browsed-pages, the 50 most recent") {
  StorefrontFixture f;
  auto v = f.Start();
  // Viewed before chatting: kept on the session, written with the conversation.
  REQUIRE(f.PageView(v, "https://shop.example/", "Home").status() == 201);
  f.clock.Advance(1000);
  REQUIRE(f.PageView(v, "https://shop.example/products/tee", "Tee").status() == 201);
  REQUIRE(f.Command(v, "message:send", "[\"hi\"]").status() == 200);
  const std::string conv = Str(At(f.Session(v).data(), "conversationId"));
  Reply pages = f.Get("/chat/conversations/" + conv + "/browsed-pages");
  REQUIRE(pages.status() == 200);
  REQUIRE(pages.data().Size() == 2);
  CHECK(Str(At(At(pages.data(), 0), "url")) == "https://shop.example/products/tee");
  CHECK(Str(At(At(pages.data(), 1), "title")) == "Home");

  for (int i = 0; i < 49; ++i) {
    f.clock.Advance(1000);
    REQUIRE(f.PageView(v, "https://shop.example/p/" + std::to_string(i)).status() == 201);
  }
  pages = f.Get("/chat/conversations/" + conv + "/browsed-pages");
  CHECK(pages.data().Size() == 50);  // 51 viewed: the oldest dropped
  CHECK(Str(At(At(pages.data(), 0), "url")) == "https://shop.example/p/48");
  CHECK(Str(At(At(pages.data(), 49), "url")) == "https://shop.example/products/tee");

  Reply bad = f.PageView(v, "javascript:alert(1)");
  CHECK(bad.status() == 400);
  CHECK(bad.message() == "url must be an http or https address");
  CHECK(f.Get("/chat/conversations/" + conv + "/browsed-pages").data().Size() == 50);
}

TEST_CASE("storefront: escalate, pre-chat, commerce context and locale") {
  StorefrontFixture f;
  auto v = f.Start();
  Reply early = f.Command(v, "escalate", "[\"refund\"]");
  CHECK(early.status() == 409);
  CHECK(early.message() == "there is no conversation to escalate yet: send a message first");

  Reply pre = f.Command(v, "prechat:submit", "[{\"name\":\"Bo\",\"email\":\"bo@example.com\",\"topic\":\"Returns\"}]");
  REQUIRE_MESSAGE(pre.status() == 200, pre.raw.body);
  REQUIRE(f.Command(v, "product", "[{\"id\":7,\"title\":\"Tee\",\"price\":19.99,\"currency\":\"EUR\"}]").status() == 200);
  REQUIRE(f.Command(v, "locale", "[\"pt-BR\"]").status() == 200);
  REQUIRE(f.Command(v, "event:track", "[\"viewed_size_guide\",{\"sku\":\"T1\"}]").status() == 200);
  Reply state = f.Session(v);
  const auto& st = At(state.data(), "state");
  CHECK(At(At(st, "prechat"), "submitted").GetBool());
  CHECK(At(At(st, "product"), "id").GetInt() == 7);
  CHECK(Str(At(st, "locale")) == "pt-BR");
  CHECK(Str(At(At(At(st, "events"), 0), "name")) == "viewed_size_guide");
  CHECK_FALSE(st.HasMember("pendingAttributes"));  // the service's own keys stay private

  REQUIRE(f.Command(v, "product", "[null]").status() == 200);
  CHECK_FALSE(At(f.Session(v).data(), "state").HasMember("product"));

  REQUIRE(f.Command(v, "message:send", "[\"I want to return a tee\"]").status() == 200);
  const std::string conv = Str(At(f.Session(v).data(), "conversationId"));
  Reply c = f.Get("/chat/conversations/" + conv);
  CHECK(Str(At(c.data(), "customerEmail")) == "bo@example.com");
  CHECK(Str(At(c.data(), "customerName")) == "Bo");
  Reply attrs = f.Get("/chat/conversations/" + conv + "/attributes");
  REQUIRE(attrs.data().Size() == 1);
  CHECK(Str(At(At(attrs.data(), 0), "name")) == "topic");

  Reply esc = f.Command(v, "escalate", "[\"refund\"]");
  REQUIRE(esc.status() == 200);
  c = f.Get("/chat/conversations/" + conv);
  CHECK(At(c.data(), "isChatBot").GetBool() == false);
  CHECK(At(c.data(), "isRead").GetBool() == false);
  Reply msgs = f.Get("/chat/conversations/" + conv + "/messages");
  const auto& last = At(msgs.data(), static_cast<int>(msgs.data().Size()) - 1);
  CHECK(Str(At(last, "senderType")) == "system");
  CHECK(Str(At(last, "text")) == "The customer asked for a human agent: refund");

  // Skipping the form marks the new conversation hidePreChatMessage by-user.
  auto w = f.Start();
  REQUIRE(f.Command(w, "prechat:skip").status() == 200);
  REQUIRE(f.Command(w, "message:send", "[\"hi\"]").status() == 200);
  Reply wc = f.Get("/chat/conversations/" + Str(At(f.Session(w).data(), "conversationId")));
  CHECK(Str(At(wc.data(), "hidePreChatMessage")) == "by-user");
}

TEST_CASE("storefront: logout and session:reset end the token and hand out a new session") {
  StorefrontFixture f;
  for (const char* command : {"logout", "session:reset"}) {
    CAPTURE(command);
    auto v = f.Start();
    REQUIRE(f.Command(v, "message:send", "[\"hi\"]").status() == 200);
    Reply out = f.Command(v, command);
    REQUIRE(out.status() == 200);
    StorefrontFixture::Visitor fresh{Str(At(At(out.data(), "session"), "sessionId")),
                                     Str(At(At(out.data(), "session"), "token"))};
    CHECK(fresh.sessionId != v.sessionId);
    CHECK(f.Session(v).status() == 401);
    Reply s = f.Session(fresh);
    REQUIRE(s.status() == 200);
    CHECK(At(s.data(), "conversationId").IsNull());
    CHECK(At(s.data(), "customerId").IsNull());
  }
}

TEST_CASE("storefront: CORS for shop origins") {
  StorefrontOptions o;
  o.allowedOrigins = {"https://shop.example"};
  StorefrontFixture f(o);
  HttpRequest pre = f.StorefrontRequest("OPTIONS", "/storefront/commands", "", "", "");
  pre.headers.emplace_back("origin", "https://shop.example");
  HttpResponse r = f.storefront().Handle(pre);
  CHECK(r.status == 204);
  CHECK(r.Header("access-control-allow-origin").value_or("") == "https://shop.example");
  CHECK(r.Header("access-control-allow-headers").value_or("") == "Content-Type, X-App-Id, X-Session-Token");

  HttpRequest other = f.StorefrontRequest("POST", "/storefront/sessions", "", f.shop.appId, "");
  other.headers.emplace_back("origin", "https://evil.example");
  Reply refused = f.SendStorefront(other);
  CHECK(refused.status() == 403);
  CHECK(refused.code() == "FORBIDDEN");
  CHECK_FALSE(refused.raw.Header("access-control-allow-origin").has_value());

  // Without a list every origin may call (no cookies are involved).
  StorefrontFixture open;
  HttpRequest any = open.StorefrontRequest("POST", "/storefront/sessions", "", open.shop.appId, "");
  any.headers.emplace_back("origin", "https://any.example");
  HttpResponse ok = open.storefront().Handle(any);
  CHECK(ok.status == 201);
  CHECK(ok.Header("access-control-allow-origin").value_or("") == "*");
}

TEST_CASE("storefront: a waiting poll holds no thread; 200 wait at once and each is answered at its own change") {
  StorefrontFixture f;
  constexpr int kWidgets = 200;
  struct Widget {
    StorefrontFixture::Visitor visitor;
    std::string conversation;
    std::int64_t seq = 0;
  };
  std::vector<Widget> widgets;
  for (int i = 0; i < kWidgets; ++i) {
    // Twenty shoppers per address: under the sessions-per-address window.
    HttpRequest start = f.StorefrontRequest("POST", "/storefront/sessions", "", f.shop.appId, "");
    start.peerIp = "203.0.113." + std::to_string(1 + i / 20);
    Reply started = f.SendStorefront(start);
    REQUIRE_MESSAGE(started.status() == 201, started.raw.body);
    Widget w{{Str(At(started.data(), "sessionId")), Str(At(started.data(), "token"))}, "", 0};
    Reply sent = f.Command(w.visitor, "message:send", "[\"question " + std::to_string(i) + "\"]");
    REQUIRE(sent.status() == 200);
    w.seq = At(sent.data(), "seq").GetInt64();
    w.conversation = Str(At(f.Session(w.visitor).data(), "conversationId"));
    widgets.push_back(std::move(w));
  }
  // One thread asks for all of them: each answer is deferred, none blocks.
  std::vector<HttpResponse> later;
  const auto t0 = Clock::now();
  for (const Widget& w : widgets) {
    later.push_back(f.storefront().Handle(f.StorefrontRequest(
        "GET", "/storefront/updates?after=" + std::to_string(w.seq) + "&wait=20", "", f.shop.appId, w.visitor.token)));
    REQUIRE(later.back().deferred);
  }
  CHECK(Clock::now() - t0 < std::chrono::seconds(5));
  CHECK(f.storefront().waiters() == kWidgets);

  std::mutex mu;
  std::condition_variable cv;
  std::map<int, HttpResponse> answers;
  for (int i = 0; i < kWidgets; ++i)
    std::move(later[i].deferred)([&, i](HttpResponse r) {
      std::lock_guard<std::mutex> lock(mu);
      answers[i] = std::move(r);
      cv.notify_all();
    });
  auto answeredWithin = [&](std::size_t count, std::chrono::milliseconds within) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, within, [&] { return answers.size() >= count; });
  };
  CHECK_FALSE(answeredWithin(1, std::chrono::milliseconds(200)));

  // The agent answers widget 42: it alone is answered, with the reply.
  Reply reply = f.Post("/chat/conversations/" + widgets[42].conversation + "/messages", R"({"text":"It ships today.","memberId":")" + f.agent.id + R"("})");
  REQUIRE_MESSAGE(reply.status() == 201, reply.raw.body);
  REQUIRE(answeredWithin(1, std::chrono::seconds(2)));
  {
    std::lock_guard<std::mutex> lock(mu);
    REQUIRE(answers.size() == 1);
    REQUIRE(answers.count(42) == 1);
    CHECK(answers[42].status == 200);
    CHECK_FALSE(answers[42].deferred);
    auto body = ParseJson(answers[42].body);
    const auto& messages = At(At(body, "data"), "messages");
    REQUIRE(messages.Size() == 1);
    CHECK(Str(At(At(messages[0], "message"), "text")) == "It ships today.");
  }
  CHECK(f.storefront().waiters() == kWidgets - 1);

  // Shutdown answers the others at once, with nothing new.
  f.storefront().WakeAll();
  REQUIRE(answeredWithin(kWidgets, std::chrono::seconds(5)));
  std::lock_guard<std::mutex> lock(mu);
  for (auto& [i, r] : answers) {
    if (i == 42) continue;
    CHECK(r.status == 200);
    CHECK(At(At(ParseJson(r.body), "data"), "messages").Size() == 0);
  }
  CHECK(f.storefront().waiters() == 0);
}

// Changes that the widget does not show (agent notes) arrive while 300
// polls of one visitor are being read again on two poller threads, and the
// shutdown comes in the middle of them: each poll must stay with
// one poller at a time, and be answered exactly once.
TEST_CASE("storefront: a storm of changes while polls are re-read answers each poll once") {
  StorefrontFixture f;
  auto v = f.Start();
  Reply sent = f.Command(v, "message:send", "[\"hello\"]");
  REQUIRE(sent.status() == 200);
  const std::int64_t seq = At(sent.data(), "seq").GetInt64();
  const std::string conversation = Str(At(f.Session(v).data(), "conversationId"));
  const std::string view = Str(At(f.Updates(v, "?after=" + std::to_string(seq)).data(), "view"));
  constexpr int kTabs = 300;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> replies(kTabs, 0);
  int total = 0;
  for (int i = 0; i < kTabs; ++i) {
    HttpResponse later = f.storefront().Handle(f.StorefrontRequest(
        "GET", "/storefront/updates?after=" + std::to_string(seq) + "&wait=20&view=" + view, "", f.shop.appId,
        v.token));
    REQUIRE(later.deferred);
    std::move(later.deferred)([&, i](HttpResponse r) {
      CHECK(r.status == 200);
      std::lock_guard<std::mutex> lock(mu);
      ++replies[i];
      ++total;
      cv.notify_all();
    });
  }
  // Notes on one thread; halfway through, with polls queued and being read,
  // the shutdown answers every poll while the notes go on.
  std::atomic<int> notes{0};
  std::thread writer([&] {
    for (int n = 0; n < 200; ++n) {
      Reply note = f.Post("/chat/conversations/" + conversation + "/messages",
                          R"({"text":"note )" + std::to_string(n) + R"(","isNote":true,"memberId":")" + f.agent.id + R"("})");
      if (note.status() != 201) return;
      ++notes;
    }
  });
  while (notes < 100) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  {
    std::lock_guard<std::mutex> lock(mu);
    CHECK(total == 0);  // notes are not shown: every poll still waits
  }
  f.storefront().WakeAll();
  writer.join();
  CHECK(notes == 200);
  std::unique_lock<std::mutex> lock(mu);
  REQUIRE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return total >= kTabs; }));
  lock.unlock();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a second answer would come now
  lock.lock();
  CHECK(total == kTabs);
  for (int i = 0; i < kTabs; ++i) CHECK_MESSAGE(replies[i] == 1, "tab " << i);
  CHECK(f.storefront().waiters() == 0);
}

// A write straight to the store (as another process on the same database
// makes it) is not reported to the service's observer: only the fallback
// re-read finds it. The re-reads are spread so that they stay under
// fallbackReadsPerSecond in all: with 4 waiting polls and 2 reads a second,
// each poll is re-read every 2 s, not every fallbackPollMillis.
TEST_CASE("storefront: the fallback re-read finds an unreported write, spread to fallbackReadsPerSecond") {
  for (const int readsPerSecond : {0, 2}) {
    CAPTURE(readsPerSecond);
    StorefrontOptions o;
    o.fallbackPollMillis = 200;
    o.fallbackReadsPerSecond = readsPerSecond;
    StorefrontFixture f(o);
    std::vector<std::string> conversations;
    std::vector<HttpResponse> later;
    for (int i = 0; i < 4; ++i) {
      auto v = f.Start();
      Reply sent = f.Command(v, "message:send", "[\"hello\"]");
      REQUIRE(sent.status() == 200);
      conversations.push_back(Str(At(f.Session(v).data(), "conversationId")));
      Reply now = f.Updates(v, "?after=" + std::to_string(At(sent.data(), "seq").GetInt64()));
      later.push_back(f.storefront().Handle(f.StorefrontRequest(
          "GET", "/storefront/updates?after=" + std::to_string(At(sent.data(), "seq").GetInt64()) +
                     "&wait=10&view=" + Str(At(now.data(), "view")),
          "", f.shop.appId, v.token)));
      REQUIRE(later.back().deferred);
    }
    std::mutex mu;
    std::condition_variable cv;
    std::map<int, Clock::time_point> answered;
    const auto registered = Clock::now();
    for (int i = 0; i < 4; ++i)
      std::move(later[i].deferred)([&, i](HttpResponse r) {
        CHECK(r.status == 200);
        std::lock_guard<std::mutex> lock(mu);
        answered[i] = Clock::now();
        cv.notify_all();
      });
    // The last poll to register: resolved behind the service's back.
    f.Must(f.store().Write([&](StoreWriter& w) -> Status {
      LC_ASSIGN_OR_RETURN(auto c, w.FindConversation(f.shop.id, conversations[3]));
      REQUIRE(c);
      c->status = "resolved";
      LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(*c));
      REQUIRE(ok);
      return Status::Ok();
    }));
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return answered.count(3) == 1; }));
    const auto after = std::chrono::duration_cast<std::chrono::milliseconds>(answered[3] - registered).count();
    CHECK(answered.size() == 1);
    if (readsPerSecond == 0) {
      CHECK(after < 1000);  // every 200 ms
    } else {
      CHECK(after >= 1500);  // its first re-read came 4 polls / 2 per second after it registered
      CHECK(after < 4000);
    }
    lock.unlock();
    f.storefront().WakeAll();
    lock.lock();
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return answered.size() == 4; }));
  }
}

TEST_CASE("storefront: waiting polls are capped; the rest answer at once with retryAfterMs") {
  StorefrontOptions o;
  o.maxWaiters = 1;
  StorefrontFixture f(o);
  auto v = f.Start();
  REQUIRE(f.Command(v, "message:send", "[\"hi\"]").status() == 200);
  std::thread waiter([&] {
    Reply r = f.Updates(v, "?after=1000&wait=3");
    CHECK(r.status() == 200);
    CHECK_FALSE(r.data().HasMember("retryAfterMs"));
  });
  for (int i = 0; i < 200 && f.storefront().waiters() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(f.storefront().waiters() == 1);
  const auto t0 = Clock::now();
  Reply capped = f.Updates(v, "?after=1000&wait=3");
  CHECK(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count() < 500);
  CHECK(capped.status() == 200);
  CHECK(At(capped.data(), "retryAfterMs").GetInt() == 1000);
  f.storefront().WakeAll();  // shutdown releases the waiter at once
  waiter.join();
  CHECK(f.storefront().waiters() == 0);
}

}  // namespace
}  // namespace livechat::testing

namespace livechat::testing {
namespace {

TEST_CASE("storefront: 30 new sessions a minute per address, the 31st is 429") {
  StorefrontFixture f;
  auto start = [&](const std::string& ip) {
    HttpRequest req = f.StorefrontRequest("POST", "/storefront/sessions", "", f.shop.appId, "");
    req.peerIp = ip;
    return f.SendStorefront(req);
  };
  for (int i = 0; i < 30; ++i) REQUIRE(start("198.51.100.30").status() == 201);
  Reply refused = start("198.51.100.30");
  CHECK(refused.status() == 429);
  CHECK(refused.code() == "RATE_LIMITED");
  CHECK(refused.message() == "too many new chat sessions from this address; try again in 60 s");
  CHECK(refused.header("Retry-After") == "60");
  CHECK(start("198.51.100.31").status() == 201);  // another address has its own window
  f.clock.Advance(60'000);
  CHECK(start("198.51.100.30").status() == 201);
}

TEST_CASE("storefront: every path answers a preflight, and another method is 405 naming its own") {
  StorefrontFixture f;
  const std::vector<std::pair<std::string, std::string>> routes = {
      {"/storefront/sessions", "POST, OPTIONS"}, {"/storefront/session", "GET, OPTIONS"},
      {"/storefront/commands", "POST, OPTIONS"}, {"/storefront/pageviews", "POST, OPTIONS"},
      {"/storefront/updates", "GET, OPTIONS"}};
  for (const auto& [path, allow] : routes) {
    const std::string& route = path;  // clang 14 cannot capture a structured binding
    CAPTURE(route);
    HttpRequest pre = f.StorefrontRequest("OPTIONS", path, "", "", "");
    pre.headers.emplace_back("origin", "https://shop.example");
    Reply r = f.SendStorefront(pre);
    CHECK(r.status() == 204);
    CHECK(r.raw.body.empty());
    CHECK(r.raw.Header("access-control-allow-origin").value_or("") == "*");
    CHECK(r.raw.Header("access-control-allow-methods").value_or("") == "GET, POST, OPTIONS");
    CHECK(r.raw.Header("access-control-max-age").value_or("") == "600");

    Reply wrong = f.SendStorefront(f.StorefrontRequest("DELETE", path, "", f.shop.appId, ""));
    CHECK(wrong.status() == 405);
    CHECK(wrong.code() == "METHOD_NOT_ALLOWED");
    CHECK(wrong.raw.Header("allow").value_or("") == allow);
  }
  Reply unknown = f.SendStorefront(f.StorefrontRequest("GET", "/storefront/nope", "", f.shop.appId, ""));
  CHECK(unknown.status() == 404);
  CHECK(unknown.code() == "NOT_FOUND");
  CHECK_FALSE(unknown.raw.Header("allow").has_value());
}


TEST_CASE("storefront: bodies are JSON of at most 256 KiB (413 over, 415 without the type)") {
  StorefrontFixture f;
  auto v = f.Start();
  const std::string head = "{\"url\":\"https://shop.example/";
  const std::string tail = "\"}";
  auto body = [&](std::size_t total) {
    return head + Repeat('a', static_cast<int>(total - head.size() - tail.size())) + tail;
  };
  const std::size_t max = 256 * 1024;
  // At the limit the body is read (and its over-long url refused); one byte more is not read.
  Reply atLimit =
      f.SendStorefront(f.StorefrontRequest("POST", "/storefront/pageviews", body(max), f.shop.appId, v.token));
  CHECK(atLimit.status() == 400);
  CHECK(atLimit.code() == "INVALID_PARAMS");
  Reply over =
      f.SendStorefront(f.StorefrontRequest("POST", "/storefront/commands", body(max + 1), f.shop.appId, v.token));
  CHECK(over.status() == 413);
  CHECK(over.code() == "PAYLOAD_TOO_LARGE");

  HttpRequest untyped = f.StorefrontRequest("POST", "/storefront/pageviews", "{\"url\":\"https://shop.example/\"}",
                                            f.shop.appId, v.token);
  untyped.headers.pop_back();  // the content-type
  Reply refused = f.SendStorefront(untyped);
  CHECK(refused.status() == 415);
  CHECK(refused.code() == "UNSUPPORTED_MEDIA_TYPE");
  CHECK(At(f.Session(v).data(), "conversationId").IsNull());
}

TEST_CASE("storefront: Content-Type is matched case-insensitively, charset utf-8 only (the shared JSON rule)") {
  StorefrontFixture f;
  auto v = f.Start();
  auto typed = [&](const char* type) {
    HttpRequest req = f.StorefrontRequest("POST", "/storefront/pageviews", "{\"url\":\"https://shop.example/\"}",
                                          f.shop.appId, v.token);
    req.headers.back().second = type;  // the content-type
    return f.SendStorefront(req);
  };
  // Used to be 415: the type was compared case-sensitively.
  CHECK(typed("Application/JSON").status() == 201);
  CHECK(typed("APPLICATION/JSON; charset=UTF-8").status() == 201);
  // Used to pass: the type was only a prefix match.
  for (const char* refused : {"application/jsonx", "application/json;charset=latin1", "text/plain"}) {
    CAPTURE(refused);
    Reply r = typed(refused);
    CHECK(r.status() == 415);
    CHECK(r.code() == "UNSUPPORTED_MEDIA_TYPE");
  }
}

}  // namespace
}  // namespace livechat::testing
