// The dispatcher's delivery rules (spec: Delivery rules), walked with a
// ManualClock and a scripted transport: the retry ladder, disabling, the
// status classes, Retry-After, jitter and the address policy per attempt.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <thread>

#include "webhook_fixture.h"

namespace livechat::testing {
namespace {

// One subscribed event queued now: an inbound customer message.
WebhookSubscription OneQueued(WebhookFixture& f) {
  auto sub = f.Subscribe({"message.created"});
  f.Inbound("hello");
  REQUIRE(f.Deliveries(sub.id).size() == 1);
  return sub;
}

// Moves to 1 ms before `due`: nothing is sent; then to `due`: exactly one send.
void ExpectSendAt(WebhookFixture& f, Millis due) {
  const std::size_t before = f.transport.count();
  f.clock.Set(due - 1);
  CHECK(f.Run() == 0);
  CHECK(f.transport.count() == before);
  f.clock.Set(due);
  CHECK(f.Run() == 1);
  CHECK(f.transport.count() == before + 1);
}

TEST_CASE("retry ladder: 10 s, 1 min, 5 min, 30 min, 2 h, 6 h; the 7th failure disables the subscription") {
  WebhookFixture f;
  auto sub = OneQueued(f);
  const Millis t0 = f.clock.NowMillis();
  f.transport.AnswerTimes(7, 500);

  CHECK(f.Run() == 1);  // attempt 1, due at once
  Millis at = t0;
  for (std::size_t i = 0; i < kSchedule.size(); ++i) {
    CAPTURE(i);
    auto d = f.OnlyDelivery(sub.id);
    CHECK(d.state == "pending");
    CHECK(d.attempts == static_cast<int>(i + 1));
    CHECK(d.nextAttemptAt == at + kSchedule[i]);
    CHECK(f.Sub(sub.id).isActive);
    CHECK(f.Sub(sub.id).lastDeliveryStatus == std::optional<std::string>("failed"));
    at += kSchedule[i];
    ExpectSendAt(f, at);
  }
  CHECK(f.transport.count() == 7);
  CHECK(at - t0 == 30'970 * kSecond);  // about 8.6 hours across the seven attempts

  auto d = f.OnlyDelivery(sub.id);
  CHECK(d.state == "failed");
  CHECK(d.attempts == 7);
  auto s = f.Sub(sub.id);
  CHECK_FALSE(s.isActive);
  CHECK(s.lastDeliveryStatus == std::optional<std::string>("disabled"));
  CHECK(s.lastDeliveryStatusCode == std::optional<int>(500));
  CHECK(s.lastDeliveryAt == std::optional<Millis>(at));

  auto attempts = f.Attempts(sub.id);  // newest first
  REQUIRE(attempts.size() == 7);
  CHECK(attempts.front().attempt == 7);
  CHECK(attempts.front().outcome == "disabled");
  for (std::size_t i = 1; i < 7; ++i) CHECK(attempts[i].outcome == "retrying");

  // Nothing further: no retry, and later events are not queued for it.
  f.clock.Advance(24 * kHour);
  CHECK(f.Run() == 0);
  f.Inbound("anyone there?");
  CHECK(f.Deliveries(sub.id).size() == 1);
  CHECK(f.Run() == 0);
  CHECK(f.transport.count() == 7);
}

TEST_CASE("a delivery that succeeds on a retry stops there; the subscription stays active") {
  WebhookFixture f;
  auto sub = OneQueued(f);
  const Millis t0 = f.clock.NowMillis();
  f.transport.Answer(503);
  f.transport.Answer(0, std::nullopt, "timed out after 10000 ms");
  f.transport.Answer(204);
  CHECK(f.Run() == 1);
  ExpectSendAt(f, t0 + 10 * kSecond);
  ExpectSendAt(f, t0 + 10 * kSecond + kMinute);
  auto d = f.OnlyDelivery(sub.id);
  CHECK(d.state == "succeeded");
  CHECK(d.attempts == 3);
  auto s = f.Sub(sub.id);
  CHECK(s.isActive);
  CHECK(s.lastDeliveryStatus == std::optional<std::string>("succeeded"));
  CHECK(s.lastDeliveryStatusCode == std::optional<int>(204));
  CHECK_FALSE(s.lastDeliveryError.has_value());
  auto a = f.Attempts(sub.id);
  REQUIRE(a.size() == 3);
  CHECK(a[1].statusCode == std::nullopt);  // the timeout: no HTTP status
  CHECK(a[1].error == std::optional<std::string>("timed out after 10000 ms"));
  CHECK(a[2].error == std::optional<std::string>("receiver answered HTTP 503"));
  f.clock.Advance(7 * kHour);
  CHECK(f.Run() == 0);
}

TEST_CASE("resuming a disabled subscription: Pro and Plus may, Free and Basic get 403; upsert by url always may") {
  for (Plan plan : {Plan::kPro, Plan::kPlus, Plan::kFree, Plan::kBasic}) {
    CAPTURE(PlanName(plan));
    WebhookFixture f;
    auto sub = OneQueued(f);
    f.transport.AnswerTimes(7, 502);
    f.Run();
    for (Millis wait : kSchedule) {
      f.clock.Advance(wait);
      f.Run();
    }
    REQUIRE_FALSE(f.Sub(sub.id).isActive);
    f.SetPlan(plan);

    // Through ChatService.
    UpdateWebhookInput resume;
    resume.isActive = true;
    auto r = f.service().webhooks().UpdateWebhook(f.Caller(), sub.id, resume);
    // And through REST.
    auto rest = f.Call("PUT", "/chat/webhooks/" + sub.id, R"({"isActive":true})");
    if (PlanAllowsApiKeys(plan)) {
      REQUIRE(r.ok());
      CHECK(r->isActive);
      CHECK(rest.status() == 200);
      CHECK(At(rest.data(), "isActive").GetBool());
      // Delivery resumes: a new event reaches it.
      f.Inbound("back again");
      CHECK(f.Deliveries(sub.id).size() == 2);
      CHECK(f.Run() == 1);
      CHECK(f.Sub(sub.id).lastDeliveryStatus == std::optional<std::string>("succeeded"));
      continue;
    }
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kForbidden);
    CHECK(rest.status() == 403);
    CHECK(rest.code() == "FORBIDDEN");
    CHECK_FALSE(f.Sub(sub.id).isActive);
    // Pausing is allowed on any plan, and so is an update that does not resume.
    CHECK(f.Call("PUT", "/chat/webhooks/" + sub.id, R"({"isActive":false})").status() == 200);
    CHECK(f.Call("PUT", "/chat/webhooks/" + sub.id, R"({"events":["message.created","conversation.created"]})")
              .status() == 200);

    // Upsert by url: re-activated with no plan check, same id and secret.
    auto up = f.Call("POST", "/chat/webhooks", R"({"url":"https://hooks.example.com/in","events":["message.created"]})");
    CHECK(up.status() == 200);
    CHECK(Str(At(up.data(), "id")) == sub.id);
    CHECK(Str(At(up.data(), "secret")) == sub.secret);
    CHECK(At(up.data(), "isActive").GetBool());
    CHECK(f.Sub(sub.id).isActive);
    CHECK(f.service().webhooks().ListWebhooks(f.Caller())->size() == 1);
  }
}

TEST_CASE("410 disables the subscription at once, with no retry") {
  WebhookFixture f;
  auto sub = OneQueued(f);
  f.Inbound("a second event, queued before the 410");
  f.transport.Answer(410);
  CHECK(f.Run() >= 1);
  CHECK(f.transport.count() == 1);
  auto s = f.Sub(sub.id);
  CHECK_FALSE(s.isActive);
  CHECK(s.lastDeliveryStatus == std::optional<std::string>("disabled"));
  CHECK(s.lastDeliveryStatusCode == std::optional<int>(410));
  auto a = f.Attempts(sub.id);
  REQUIRE(a.size() == 1);
  CHECK(a[0].outcome == "disabled");
  // The 410'd delivery is dropped; the other pending one is cancelled, not sent.
  std::multiset<std::string> states;
  for (const auto& d : f.Deliveries(sub.id)) states.insert(d.state);
  CHECK(states == std::multiset<std::string>{"cancelled", "dropped"});
  for (Millis wait : kSchedule) {
    f.clock.Advance(wait);
    CHECK(f.Run() == 0);
  }
  CHECK(f.transport.count() == 1);
}

TEST_CASE("disabling cancels the rest of the queue at once: a quick re-enable does not resurrect old retries") {
  for (int disablingStatus : {410, 500}) {
    CAPTURE(disablingStatus);
    WebhookFixture f;
    auto sub = f.Subscribe({"message.created"});
    const Millis t0 = f.clock.NowMillis();
    f.Inbound("A");
    f.transport.Answer(500);
    CHECK(f.Run() == 1);  // A waits for its retry at t0 + 10 s
    f.clock.Set(t0 + 1000);
    f.Inbound("B");
    if (disablingStatus == 410) {
      f.transport.Answer(410);  // B: gone
      CHECK(f.Run() == 1);
    } else {
      // B fails seven times in a row (A's retries interleave: answer them all 500).
      f.transport.AnswerTimes(100, 500);
      for (int i = 0; i < 12 && f.Sub(sub.id).isActive; ++i) {
        f.clock.Advance(7 * kHour);
        f.Run();
      }
    }
    REQUIRE_FALSE(f.Sub(sub.id).isActive);
    for (const auto& d : f.Deliveries(sub.id)) CHECK(d.state != "pending");
    const std::size_t sent = f.transport.count();
    UpdateWebhookInput resume;
    resume.isActive = true;
    REQUIRE(f.service().webhooks().UpdateWebhook(f.Caller(), sub.id, resume).ok());
    f.clock.Advance(24 * kHour);
    CHECK(f.Run() == 0);
    CHECK(f.transport.count() == sent);
  }
}

TEST_CASE("a subscription paused while an attempt is in flight schedules no retry") {
  WebhookFixture f;
  auto sub = OneQueued(f);
  // The owner pauses the subscription while the receiver is still answering.
  class PausingTransport final : public WebhookTransport {
   public:
    explicit PausingTransport(std::function<void()> pause) : pause_(std::move(pause)) {}
    WebhookResponse Send(const WebhookRequest&) override {
      pause_();
      return WebhookResponse{503, "", std::nullopt};
    }

   private:
    std::function<void()> pause_;
  } transport([&] { f.Pause(sub.id); });
  auto o = f.Options();
  o.transport = &transport;
  f.ResetDispatcher(o);
  CHECK(f.Run() == 1);
  auto d = f.OnlyDelivery(sub.id);
  CHECK(d.state == "cancelled");
  CHECK(d.attempts == 1);
  CHECK(f.Attempts(sub.id).size() == 1);  // the attempt that happened is logged
  CHECK(f.Sub(sub.id).lastDeliveryStatus == std::optional<std::string>("failed"));
  CHECK_FALSE(f.Sub(sub.id).isActive);
}

TEST_CASE("a subscription deleted while an attempt is in flight leaves no delivery or attempt rows") {
  WebhookFixture f;
  auto sub = OneQueued(f);
  class DeletingTransport final : public WebhookTransport {
   public:
    explicit DeletingTransport(std::function<void()> del) : del_(std::move(del)) {}
    WebhookResponse Send(const WebhookRequest&) override {
      del_();
      return WebhookResponse{200, "", std::nullopt};
    }

   private:
    std::function<void()> del_;
  } transport([&] { REQUIRE(f.service().webhooks().DeleteWebhook(f.Caller(), sub.id).ok()); });
  auto o = f.Options();
  o.transport = &transport;
  f.ResetDispatcher(o);
  CHECK(f.Run() == 1);
  CHECK(f.Deliveries(sub.id).empty());
  CHECK(f.Attempts(sub.id).empty());
}

TEST_CASE("3xx and 4xx drop the delivery with no retry; the subscription stays active") {
  for (int status : {301, 302, 307, 308, 400, 401, 403, 404, 413, 422}) {
    CAPTURE(status);
    WebhookFixture f;
    auto sub = OneQueued(f);
    f.transport.Answer(status);
    CHECK(f.Run() == 1);
    auto d = f.OnlyDelivery(sub.id);
    CHECK(d.state == "dropped");
    CHECK(d.attempts == 1);
    auto s = f.Sub(sub.id);
    CHECK(s.isActive);
    CHECK(s.lastDeliveryStatus == std::optional<std::string>("dropped"));
    CHECK(s.lastDeliveryStatusCode == std::optional<int>(status));
    CHECK(s.lastDeliveryError == std::optional<std::string>("receiver answered HTTP " + std::to_string(status)));
    f.clock.Advance(10 * kHour);
    CHECK(f.Run() == 0);
    CHECK(f.transport.count() == 1);
    // The subscription still receives later events.
    f.Inbound("next");
    CHECK(f.Run() == 1);
    CHECK(f.transport.count() == 2);
  }
}

TEST_CASE("429, 5xx, timeouts and network errors are retried after 10 s") {
  struct Case {
    int status;
    const char* error;
  };
  for (Case c : {Case{429, ""}, Case{500, ""}, Case{502, ""}, Case{503, ""}, Case{504, ""},
                 Case{0, "connect: connection refused"}, Case{0, "timed out after 10000 ms"},
                 Case{0, "TLS handshake failed"}}) {
    CAPTURE(c.status);
    CAPTURE(c.error);
    WebhookFixture f;
    auto sub = OneQueued(f);
    const Millis t0 = f.clock.NowMillis();
    f.transport.Answer(c.status, std::nullopt, c.error);
    CHECK(f.Run() == 1);
    auto d = f.OnlyDelivery(sub.id);
    CHECK(d.state == "pending");
    CHECK(d.nextAttemptAt == t0 + 10 * kSecond);
    auto s = f.Sub(sub.id);
    CHECK(s.isActive);
    CHECK(s.lastDeliveryStatus == std::optional<std::string>("failed"));
    if (c.status == 0) {
      CHECK_FALSE(s.lastDeliveryStatusCode.has_value());
      CHECK(s.lastDeliveryError == std::optional<std::string>(c.error));
    }
    ExpectSendAt(f, t0 + 10 * kSecond);
    CHECK(f.OnlyDelivery(sub.id).state == "succeeded");
  }
}

TEST_CASE("Retry-After is honoured within the schedule") {
  SUBCASE("120 s after the first failure: the next attempt at 120 s, then the ladder resumes") {
    WebhookFixture f;
    auto sub = OneQueued(f);
    const Millis t0 = f.clock.NowMillis();
    f.transport.Answer(503, 120);
    f.transport.Answer(500);
    CHECK(f.Run() == 1);
    CHECK(f.OnlyDelivery(sub.id).nextAttemptAt == t0 + 120 * kSecond);
    ExpectSendAt(f, t0 + 120 * kSecond);
    CHECK(f.OnlyDelivery(sub.id).nextAttemptAt == t0 + 120 * kSecond + kMinute);  // the 2nd wait
  }
  SUBCASE("a Retry-After shorter than the schedule's wait does not shorten it") {
    WebhookFixture f;
    auto sub = OneQueued(f);
    const Millis t0 = f.clock.NowMillis();
    f.transport.Answer(429, 1);
    CHECK(f.Run() == 1);
    CHECK(f.OnlyDelivery(sub.id).nextAttemptAt == t0 + 10 * kSecond);
  }
  SUBCASE("10 days is capped at the schedule's longest wait (6 h)") {
    WebhookFixture f;
    auto sub = OneQueued(f);
    const Millis t0 = f.clock.NowMillis();
    f.transport.Answer(503, 10 * 24 * 3600);
    CHECK(f.Run() == 1);
    CHECK(f.OnlyDelivery(sub.id).nextAttemptAt == t0 + 6 * kHour);
    ExpectSendAt(f, t0 + 6 * kHour);
  }
  SUBCASE("an absurd Retry-After (INT64_MAX seconds) is capped too, without overflow") {
    WebhookFixture f;
    auto sub = OneQueued(f);
    const Millis t0 = f.clock.NowMillis();
    f.transport.Answer(429, std::numeric_limits<std::int64_t>::max());
    CHECK(f.Run() == 1);
    CHECK(f.OnlyDelivery(sub.id).nextAttemptAt == t0 + 6 * kHour);
  }
  SUBCASE("zero or negative values are ignored") {
    WebhookFixture f;
    auto sub = OneQueued(f);
    const Millis t0 = f.clock.NowMillis();
    f.transport.Answer(503, -5);
    CHECK(f.Run() == 1);
    CHECK(f.OnlyDelivery(sub.id).nextAttemptAt == t0 + 10 * kSecond);
  }
}

TEST_CASE("jitter: every retry wait stays within +-10% of the schedule, and does vary") {
  WebhookFixture f;
  auto o = f.Options();
  o.jitter = 0.1;
  f.ResetDispatcher(o);
  auto sub = f.Subscribe({"message.created"});
  const Millis t0 = f.clock.NowMillis();
  constexpr int kEvents = 60;
  for (int i = 0; i < kEvents; ++i) f.Inbound("message " + std::to_string(i));
  f.transport.AnswerTimes(kEvents, 500);
  CHECK(f.Run() == kEvents);
  std::set<Millis> waits;
  for (const auto& d : f.Deliveries(sub.id)) {
    REQUIRE(d.state == "pending");
    Millis wait = d.nextAttemptAt - t0;
    CHECK(wait >= 9'000);
    CHECK(wait <= 11'000);
    waits.insert(wait);
  }
  CHECK(waits.size() > kEvents / 2);  // a spread, not one fixed value

  // The longest step too: after six failures the wait is 6 h +-10%.
  for (Millis wait : {kSchedule[0], kSchedule[1], kSchedule[2], kSchedule[3], kSchedule[4]}) {
    (void)wait;
    f.clock.Advance(kSchedule[4] * 2);  // beyond any jittered wait so far
    f.transport.AnswerTimes(kEvents, 500);
    CHECK(f.Run() == kEvents);
  }
  const Millis now = f.clock.NowMillis();
  for (const auto& d : f.Deliveries(sub.id)) {
    REQUIRE(d.attempts == 6);
    Millis wait = d.nextAttemptAt - now;
    CHECK(wait >= 19'440'000);  // 6 h - 10%
    CHECK(wait <= 23'760'000);  // 6 h + 10%
  }
}

TEST_CASE("the address policy is checked on every delivery; a refused address is a retried failure") {
  WebhookFixture f;
  auto sub = OneQueued(f);
  const Millis t0 = f.clock.NowMillis();
  f.transport.Answer(500);
  CHECK(f.Run() == 1);
  REQUIRE(f.transport.count() == 1);
  CHECK(f.transport.last().target.address == kPublicAddress);

  // DNS now points inside (rebinding): the attempt fails without any request.
  f.resolver.Set(kHookHost, {"10.0.0.1"});
  f.clock.Set(t0 + 10 * kSecond);
  CHECK(f.Run() == 1);
  CHECK(f.transport.count() == 1);
  auto d = f.OnlyDelivery(sub.id);
  CHECK(d.state == "pending");
  CHECK(d.attempts == 2);
  CHECK(d.nextAttemptAt == t0 + 10 * kSecond + kMinute);
  auto a = f.Attempts(sub.id);
  REQUIRE(a.size() == 2);
  CHECK(a[0].outcome == "retrying");
  CHECK_FALSE(a[0].statusCode.has_value());
  REQUIRE(a[0].error.has_value());
  CHECK(a[0].error->find("public address") != std::string::npos);
  CHECK(a[0].error->find("10.0.0.1") != std::string::npos);
  CHECK(f.Sub(sub.id).lastDeliveryError == a[0].error);

  // Any one private answer among several is refused too.
  f.resolver.Set(kHookHost, {kPublicAddress, "127.0.0.1"});
  f.clock.Set(t0 + 10 * kSecond + kMinute);
  CHECK(f.Run() == 1);
  CHECK(f.transport.count() == 1);

  // The name no longer resolves: also a retried failure.
  f.resolver.Set(kHookHost, {});
  f.clock.Advance(5 * kMinute);
  CHECK(f.Run() == 1);
  CHECK(f.transport.count() == 1);
  CHECK(f.Attempts(sub.id).front().error->find("no address") != std::string::npos);

  // Back to a public address: delivered, to the address just checked.
  f.resolver.Set(kHookHost, {"198.51.100.20" /* TEST-NET-2: not public */});
  f.clock.Advance(30 * kMinute);
  CHECK(f.Run() == 1);
  CHECK(f.transport.count() == 1);
  f.resolver.Set(kHookHost, {"151.101.1.69", kPublicAddress});
  f.clock.Advance(2 * kHour);
  CHECK(f.Run() == 1);
  REQUIRE(f.transport.count() == 2);
  auto req = f.transport.last();
  CHECK(req.target.address == "151.101.1.69");
  CHECK(req.target.host == kHookHost);
  CHECK(req.target.port == 443);
  CHECK(req.target.pathAndQuery == "/in");
  CHECK(req.timeoutMillis == 10'000);
  CHECK(f.OnlyDelivery(sub.id).state == "succeeded");
}

TEST_CASE("the transport gets the checked address, host, port and path of the subscription") {
  WebhookFixture f;
  f.resolver.Set("api.partner.example", {"2606:4700:4700::1111"});
  auto sub = f.Subscribe({"message.created"}, "https://API.partner.example:8443/hooks/in?tenant=7&x=%2F");
  f.Inbound("hi");
  CHECK(f.Run() == 1);
  auto req = f.transport.last();
  CHECK(req.target.address == "2606:4700:4700::1111");
  CHECK(req.target.host == "api.partner.example");
  CHECK(req.target.port == 8443);
  CHECK(req.target.pathAndQuery == "/hooks/in?tenant=7&x=%2F");
  CHECK(req.target.url == sub.url);
}

TEST_CASE("paused and deleted subscriptions: queued deliveries are cancelled, not sent") {
  WebhookFixture f;
  auto sub = OneQueued(f);
  f.Pause(sub.id);  // cancels the queue in the same transaction
  CHECK(f.OnlyDelivery(sub.id).state == "cancelled");
  CHECK(f.Run() == 0);
  CHECK(f.transport.count() == 0);
  CHECK(f.OnlyDelivery(sub.id).state == "cancelled");
  CHECK(f.Attempts(sub.id).empty());
  CHECK_FALSE(f.Sub(sub.id).lastDeliveryAt.has_value());

  // A retry scheduled before the pause is not sent after a resume either.
  WebhookFixture g;
  auto s2 = OneQueued(g);
  g.transport.Answer(500);
  CHECK(g.Run() == 1);
  g.Pause(s2.id);
  UpdateWebhookInput resume;
  resume.isActive = true;
  g.clock.Advance(5 * kSecond);
  REQUIRE(g.service().webhooks().UpdateWebhook(g.Caller(), s2.id, resume).ok());
  g.clock.Advance(kHour);
  CHECK(g.Run() == 0);
  CHECK(g.transport.count() == 1);
  CHECK(g.OnlyDelivery(s2.id).state == "cancelled");

  // Deleting removes the subscription's deliveries and log with it.
  WebhookFixture h;
  auto s3 = OneQueued(h);
  REQUIRE(h.service().webhooks().DeleteWebhook(h.Caller(), s3.id).ok());
  CHECK(h.Run() == 0);
  CHECK(h.transport.count() == 0);
  CHECK(h.Deliveries(s3.id).empty());
}

TEST_CASE("one subscription failing does not hold up another; one in-flight delivery per subscription") {
  WebhookFixture f;
  f.resolver.Set("other.example.com", {"151.101.1.69"});
  auto slow = f.Subscribe({"message.created"});
  auto fine = f.Subscribe({"message.created"}, "https://other.example.com/hook");
  for (int i = 0; i < 3; ++i) f.Inbound("m" + std::to_string(i));
  // Whatever order the dispatcher picks, hooks.example.com fails and other succeeds.
  class ByHost final : public WebhookTransport {
   public:
    WebhookResponse Send(const WebhookRequest& r) override {
      hosts.push_back(r.target.host);
      return WebhookResponse{r.target.host == kHookHost ? 503 : 200, "", std::nullopt};
    }
    std::vector<std::string> hosts;
  } transport;
  auto o = f.Options();
  o.transport = &transport;
  f.ResetDispatcher(o);
  CHECK(f.Run() == 6);
  for (const auto& d : f.Deliveries(fine.id)) CHECK(d.state == "succeeded");
  for (const auto& d : f.Deliveries(slow.id)) CHECK(d.state == "pending");
}

TEST_CASE("background threads deliver without RunOnce, and Stop() returns") {
  WebhookFixture f;
  auto o = f.Options();
  o.threads = 2;
  o.idlePollMillis = 5;
  f.ResetDispatcher(o);
  auto sub = f.Subscribe({"message.created"});
  f.dispatcher().Start();
  CHECK(f.dispatcher().running());
  for (int i = 0; i < 5; ++i) f.Inbound("m" + std::to_string(i));
  f.dispatcher().Notify();
  for (int spins = 0; spins < 2000 && f.transport.count() < 5; ++spins)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  f.dispatcher().Stop();
  CHECK_FALSE(f.dispatcher().running());
  CHECK(f.transport.count() == 5);
  for (const auto& d : f.Deliveries(sub.id)) CHECK(d.state == "succeeded");
}

// A transport that runs `during(n)` inside its n-th send (1-based), then
// answers 200.
class HookedTransport final : public WebhookTransport {
 public:
  explicit HookedTransport(std::function<void(int)> during) : during_(std::move(during)) {}
  WebhookResponse Send(const WebhookRequest& r) override {
    requests.push_back(r);
    during_(static_cast<int>(requests.size()));
    return WebhookResponse{200, "", std::nullopt};
  }
  std::vector<WebhookRequest> requests;

 private:
  std::function<void(int)> during_;
};

// Which of the messages "m0".."m9" the request carries ("" if none or several).
std::string MessageText(const WebhookRequest& r) {
  std::string found;
  for (int i = 0; i < 10; ++i) {
    const std::string text = "m" + std::to_string(i);
    if (r.body.find("\"" + text + "\"") == std::string::npos) continue;
    if (!found.empty()) return "";
    found = text;
  }
  return found;
}

// The lease the run in flight holds, as stored: every pending delivery it
// claimed carries it (0 when none is leased).
Millis RunLease(WebhookFixture& f, const std::string& subId) {
  for (const auto& d : f.Deliveries(subId))
    if (d.state == "pending" && d.leaseUntil > 0) return d.leaseUntil;
  return 0;
}

TEST_CASE("a run: one subscription's due deliveries go in queue order, each recorded before the next is sent") {
  WebhookFixture f;
  auto sub = f.Subscribe({"message.created"});
  for (int i = 0; i < 5; ++i) f.Inbound("m" + std::to_string(i));
  std::vector<int> succeededBefore;
  std::vector<int> unleasedDuring;
  HookedTransport transport([&](int) {
    int succeeded = 0, unleased = 0;
    for (const auto& d : f.Deliveries(sub.id)) {
      succeeded += d.state == "succeeded";
      // The rest of the run is leased with the one in flight.
      unleased += d.state == "pending" && d.leaseUntil == 0;
    }
    succeededBefore.push_back(succeeded);
    unleasedDuring.push_back(unleased);
  });
  auto o = f.Options();
  o.transport = &transport;
  f.ResetDispatcher(o);
  CHECK(f.Run() == 5);
  REQUIRE(transport.requests.size() == 5);
  for (int i = 0; i < 5; ++i) CHECK(MessageText(transport.requests[static_cast<std::size_t>(i)]) == "m" + std::to_string(i));
  // An answered delivery's outcome is stored before the next send: a crash
  // repeats at most the one in flight.
  CHECK(succeededBefore == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(unleasedDuring == std::vector<int>{0, 0, 0, 0, 0});
  for (const auto& d : f.Deliveries(sub.id)) {
    CHECK(d.state == "succeeded");
    CHECK(d.leaseUntil == 0);
  }
  CHECK(f.Attempts(sub.id).size() == 5);
}

TEST_CASE("a run sends no more once half its lease is gone; the rest is claimed again with a fresh lease") {
  WebhookFixture f;
  auto sub = f.Subscribe({"message.created"});
  for (int i = 0; i < 4; ++i) f.Inbound("m" + std::to_string(i));
  const Millis t0 = f.clock.NowMillis();
  std::vector<Millis> leaseDuring;
  HookedTransport transport([&](int n) {
    leaseDuring.push_back(RunLease(f, sub.id));
    // A slow receiver: after send 1 exactly half the 60 s lease is left (the
    // run goes on); after send 2, 1 ms less (it stops).
    if (n == 1) f.clock.Advance(30 * kSecond);
    if (n == 2) f.clock.Advance(1);
  });
  auto o = f.Options();
  o.transport = &transport;
  o.leaseMillis = 60 * kSecond;
  f.ResetDispatcher(o);
  CHECK(f.Run() == 4);
  REQUIRE(transport.requests.size() == 4);
  for (int i = 0; i < 4; ++i) CHECK(MessageText(transport.requests[static_cast<std::size_t>(i)]) == "m" + std::to_string(i));
  // Sends 1 and 2 under the first claim; 3 and 4 under a new one.
  CHECK(leaseDuring == std::vector<Millis>{t0 + 60 * kSecond, t0 + 60 * kSecond, t0 + 90 * kSecond + 1,
                                           t0 + 90 * kSecond + 1});
}

TEST_CASE("Stop() during a run: the send in flight finishes, the rest of the run goes back to the queue unsent") {
  WebhookFixture f;
  auto sub = f.Subscribe({"message.created"});
  for (int i = 0; i < 5; ++i) f.Inbound("m" + std::to_string(i));
  std::atomic<bool> inFirstSend{false};
  HookedTransport transport([&](int n) {
    if (n != 1) return;
    inFirstSend.store(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  });
  auto o = f.Options();
  o.transport = &transport;
  o.threads = 1;
  o.idlePollMillis = 5;
  f.ResetDispatcher(o);
  f.dispatcher().Start();
  f.dispatcher().Notify();
  for (int spins = 0; spins < 2000 && !inFirstSend.load(); ++spins)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  REQUIRE(inFirstSend.load());
  f.dispatcher().Stop();
  CHECK(transport.requests.size() == 1);
  int succeeded = 0, released = 0;
  for (const auto& d : f.Deliveries(sub.id)) {
    if (d.state == "succeeded") ++succeeded;
    if (d.state == "pending" && d.leaseUntil == 0 && d.attempts == 0) ++released;
  }
  CHECK(succeeded == 1);
  CHECK(released == 4);
  // Released at once, not after the lease: the next pass sends them.
  CHECK(f.Run() == 4);
  CHECK(transport.requests.size() == 5);
}

TEST_CASE("a run follows edits made during it: a new URL gets the next send; a pause cancels the rest unsent") {
  WebhookFixture f;
  f.resolver.Set("other.example.com", {"151.101.1.69"});
  auto sub = f.Subscribe({"message.created"});
  for (int i = 0; i < 4; ++i) f.Inbound("m" + std::to_string(i));
  HookedTransport transport([&](int n) {
    if (n == 1) {
      UpdateWebhookInput in;
      in.url = "https://other.example.com/moved";
      WebhookFixture::Must(f.service().webhooks().UpdateWebhook(f.Caller(), sub.id, in));
    }
    if (n == 2) f.Pause(sub.id);
  });
  auto o = f.Options();
  o.transport = &transport;
  f.ResetDispatcher(o);
  CHECK(f.Run() == 4);  // two sent, two cancelled
  REQUIRE(transport.requests.size() == 2);
  CHECK(transport.requests[0].target.host == kHookHost);
  CHECK(transport.requests[1].target.host == "other.example.com");
  std::map<std::string, int> states;
  for (const auto& d : f.Deliveries(sub.id)) ++states[d.state + "/" + std::to_string(d.attempts)];
  CHECK(states == std::map<std::string, int>{{"succeeded/1", 2}, {"cancelled/0", 2}});
  CHECK(f.Attempts(sub.id).size() == 2);
}

TEST_CASE("a subscription inactive with deliveries still queued: they are cancelled, not sent or claimed again") {
  // Rows from before pausing cancelled the queue: inactive, deliveries pending.
  WebhookFixture f;
  auto sub = f.Subscribe({"message.created"});
  for (int i = 0; i < 3; ++i) f.Inbound("m" + std::to_string(i));
  WebhookSubscription off = f.Sub(sub.id);
  off.isActive = false;
  WebhookFixture::Must(f.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateSubscription(off));
    return ok ? Status::Ok() : Status(MakeError(ErrorCode::kInternal, "no such subscription"));
  }));
  CHECK(f.Run() == 3);
  CHECK(f.transport.count() == 0);
  for (const auto& d : f.Deliveries(sub.id)) {
    CHECK(d.state == "cancelled");
    CHECK(d.attempts == 0);
  }
  CHECK(f.Run() == 0);
}

TEST_CASE("a pause and a resume during a send: the run sends nothing the pause cancelled") {
  WebhookFixture f;
  auto sub = f.Subscribe({"message.created"});
  for (int i = 0; i < 4; ++i) f.Inbound("m" + std::to_string(i));
  HookedTransport transport([&](int n) {
    if (n != 1) return;
    f.Pause(sub.id);
    UpdateWebhookInput resume;
    resume.isActive = true;
    WebhookFixture::Must(f.service().webhooks().UpdateWebhook(f.Caller(), sub.id, resume));
  });
  auto o = f.Options();
  o.transport = &transport;
  f.ResetDispatcher(o);
  CHECK(f.Run() == 1);
  REQUIRE(transport.requests.size() == 1);
  std::map<std::string, int> states;
  for (const auto& d : f.Deliveries(sub.id)) ++states[d.state + "/" + std::to_string(d.attempts)];
  // The one in flight is recorded; the three the pause cancelled stay so.
  CHECK(states == std::map<std::string, int>{{"succeeded/1", 1}, {"cancelled/0", 3}});
  // Resumed: what happens next is delivered.
  f.Inbound("m9");
  CHECK(f.Run() == 1);
  REQUIRE(transport.requests.size() == 2);
  CHECK(MessageText(transport.requests[1]) == "m9");
}

TEST_CASE("a run that outlived its lease leaves alone what another sender claimed since") {
  WebhookFixture f;
  auto sub = f.Subscribe({"message.created"});
  for (int i = 0; i < 4; ++i) f.Inbound("m" + std::to_string(i));
  std::vector<WebhookDelivery> theirs;
  HookedTransport transport([&](int n) {
    if (n != 1) return;
    // This send stalls past the whole lease; another process claims the
    // subscription's due deliveries meanwhile (all but the one in flight,
    // whose lease ran out too).
    f.clock.Advance(61 * kSecond);
    const Millis now = f.clock.NowMillis();
    WebhookFixture::Must(f.store().Write([&](StoreWriter& w) -> Status {
      LC_ASSIGN_OR_RETURN(theirs, w.ClaimDeliveries(f.shop.id, sub.id, now, now + 60 * kSecond, 32));
      return Status::Ok();
    }));
  });
  auto o = f.Options();
  o.transport = &transport;
  f.ResetDispatcher(o);
  f.Run();
  CHECK(transport.requests.size() == 1);
  REQUIRE(theirs.size() == 4);
  const Millis theirLease = theirs.front().leaseUntil;
  int held = 0;
  for (const auto& d : f.Deliveries(sub.id))
    if (d.state == "pending" && d.leaseUntil == theirLease) ++held;
  // The other sender's leases stand, also on the row whose attempt outlived
  // the lease (its attempt is logged, its row is theirs); the run sent none
  // of the rest.
  CHECK(held == 4);
  CHECK(f.Attempts(sub.id).size() == 1);
}

TEST_CASE("a pause and a resume while a failing attempt is in flight: no retry is scheduled for it") {
  WebhookFixture f;
  auto sub = OneQueued(f);
  class PauseResumeFail final : public WebhookTransport {
   public:
    explicit PauseResumeFail(std::function<void()> during) : during_(std::move(during)) {}
    WebhookResponse Send(const WebhookRequest&) override {
      ++sends;
      during_();
      return WebhookResponse{500, "", std::nullopt};
    }
    int sends = 0;

   private:
    std::function<void()> during_;
  } transport([&] {
    f.Pause(sub.id);
    UpdateWebhookInput resume;
    resume.isActive = true;
    WebhookFixture::Must(f.service().webhooks().UpdateWebhook(f.Caller(), sub.id, resume));
  });
  auto o = f.Options();
  o.transport = &transport;
  f.ResetDispatcher(o);
  CHECK(f.Run() == 1);
  auto d = f.OnlyDelivery(sub.id);
  CHECK(d.state == "cancelled");  // the pause cancelled it; the answer does not bring it back
  CHECK(d.attempts == 1);
  CHECK(f.Attempts(sub.id).size() == 1);
  CHECK(f.Sub(sub.id).isActive);
  f.clock.Advance(kHour);
  CHECK(f.Run() == 0);
  CHECK(transport.sends == 1);
}

TEST_CASE("a run's next send also needs two send timeouts of lease left, when that is more than half") {
  WebhookFixture f;
  auto sub = f.Subscribe({"message.created"});
  for (int i = 0; i < 3; ++i) f.Inbound("m" + std::to_string(i));
  const Millis t0 = f.clock.NowMillis();
  std::vector<Millis> leaseDuring;
  HookedTransport transport([&](int n) {
    leaseDuring.push_back(RunLease(f, sub.id));
    // 20 s timeouts: after send 1, 40 s of the 60 s lease are left (two
    // timeouts, the run goes on); after send 2, 39.999 s (it stops), though
    // more than half the lease is left.
    if (n == 1) f.clock.Advance(20 * kSecond);
    if (n == 2) f.clock.Advance(1);
  });
  auto o = f.Options();
  o.transport = &transport;
  o.leaseMillis = 60 * kSecond;
  o.timeoutMillis = 20 * kSecond;
  f.ResetDispatcher(o);
  CHECK(f.Run() == 3);
  CHECK(leaseDuring == std::vector<Millis>{t0 + 60 * kSecond, t0 + 60 * kSecond, t0 + 80 * kSecond + 1});
}

TEST_CASE("a run is at most runLength deliveries: N under one claim, the N+1th under the next") {
  WebhookFixture f;
  auto sub = f.Subscribe({"message.created"});
  for (int i = 0; i < 4; ++i) f.Inbound("m" + std::to_string(i));
  const Millis t0 = f.clock.NowMillis();
  std::vector<Millis> leaseDuring;
  HookedTransport transport([&](int) {
    leaseDuring.push_back(RunLease(f, sub.id));
    f.clock.Advance(1);  // so a later claim's lease tells itself apart
  });
  auto o = f.Options();
  o.transport = &transport;
  o.leaseMillis = 60 * kSecond;
  o.runLength = 3;
  f.ResetDispatcher(o);
  CHECK(f.Run() == 4);
  const Millis first = t0 + 60 * kSecond;
  CHECK(leaseDuring == std::vector<Millis>{first, first, first, first + 3});
}

}  // namespace
}  // namespace livechat::testing
