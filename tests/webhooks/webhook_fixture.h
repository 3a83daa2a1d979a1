// In-process webhook fixture: a real SQLite store at ":memory:", a ManualClock,
// seeded Randoms, a TableResolver (hooks.example.com -> a public address), a
// recording WebhookTransport whose answers the test scripts, the ChatService
// and RestApi in front of the store, and a WebhookDispatcher driven by RunOnce.
// Nothing sleeps and nothing touches the network.
#pragma once

#include <doctest/doctest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/rest_fixture.h"
#include "livechat/webhooks.h"
#include "support/test_store.h"

namespace livechat::testing {

inline constexpr const char* kHookHost = "hooks.example.com";
inline constexpr const char* kPublicAddress = "93.184.216.34";
inline constexpr const char* kHookUrl = "https://hooks.example.com/in";

inline constexpr Millis kSecond = 1000;
inline constexpr Millis kMinute = 60 * kSecond;
inline constexpr Millis kHour = 60 * kMinute;
// The spec's waits after failed attempts 1..6.
inline const std::vector<Millis> kSchedule = {10 * kSecond, kMinute, 5 * kMinute, 30 * kMinute, 2 * kHour, 6 * kHour};

// A transport that records every request and answers from a script (then 200).
class RecordingTransport final : public WebhookTransport {
 public:
  WebhookResponse Send(const WebhookRequest& request) override {
    testing::ExchangeRecorder::Instance().RecordDelivery(request.headers, request.body);
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request);
    if (script_.empty()) return WebhookResponse{200, "", std::nullopt};
    WebhookResponse r = script_.front();
    script_.pop_front();
    return r;
  }
  // Queues the answer to the next request that has none yet.
  void Answer(int status, std::optional<std::int64_t> retryAfterSeconds = std::nullopt, std::string error = "") {
    std::lock_guard<std::mutex> lock(mu_);
    script_.push_back(WebhookResponse{status, std::move(error), retryAfterSeconds});
  }
  void AnswerTimes(int n, int status) {
    for (int i = 0; i < n; ++i) Answer(status);
  }
  std::vector<WebhookRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  std::size_t count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_.size();
  }
  WebhookRequest last() const {
    std::lock_guard<std::mutex> lock(mu_);
    REQUIRE(!requests_.empty());
    return requests_.back();
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.clear();
  }

 private:
  mutable std::mutex mu_;
  std::vector<WebhookRequest> requests_;
  std::deque<WebhookResponse> script_;
};

// Compact JSON text of a parsed value.
inline std::string Serialize(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// The value of a request header (exact name), or "<absent>". Fails on a duplicate.
inline std::string HeaderOf(const WebhookRequest& r, const std::string& name) {
  std::optional<std::string> found;
  for (const auto& [k, v] : r.headers) {
    if (k != name) continue;
    REQUIRE_MESSAGE(!found, "header sent twice: " << name);
    found = v;
  }
  return found.value_or("<absent>");
}

class WebhookFixture {
 public:
  explicit WebhookFixture(Plan plan = Plan::kPro) : random_(NewSeededRandom(7)), dispatchRandom_(NewSeededRandom(1234)) {
    resolver.Set(kHookHost, {kPublicAddress});
    auto opened = testing::OpenTestStore();
    REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
    store_ = std::move(opened).value();
    ServiceOptions so;
    so.store = store_.get();
    so.clock = &clock;
    so.random = random_.get();
    so.resolver = &resolver;
    so.limits = RelaxedLimits();
    so.limits.webhookAttemptsKept = 1000;  // see the whole log unless a test says otherwise
    service_ = std::make_unique<ChatService>(so);
    RestOptions restOptions;
    restOptions.answerSendsLater = true;  // as in livechatd; Send waits (AwaitReply)
    api_ = std::make_unique<RestApi>(*service_, restOptions);
    ResetDispatcher();

    // Created on Pro (keys need it); SetPlan() moves the store later.
    shop = Must(service_->directory().CreateShop(CreateShopInput{"Main store", Plan::kPro, false}));
    sys = Principal::System(shop.id);
    key = NewKey(kAllRestPerms);
    CreateMemberInput mi;
    mi.email = "agent@example.com";
    mi.firstName = "Ada";
    mi.lastName = "Agent";
    agent = Must(service_->directory().CreateMember(sys, mi));
    if (plan != Plan::kPro) SetPlan(plan);
  }

  // Default options for exact schedules: no jitter, attempts log kept whole.
  DispatcherOptions Options() {
    DispatcherOptions o;
    o.store = store_.get();
    o.transport = &transport;
    o.clock = &clock;
    o.random = dispatchRandom_.get();
    o.resolver = &resolver;
    o.jitter = 0;
    o.attemptsKept = 1000;
    return o;
  }
  void ResetDispatcher(std::optional<DispatcherOptions> o = std::nullopt) {
    dispatcher_.reset();
    dispatcher_ = std::make_unique<WebhookDispatcher>(o ? std::move(*o) : Options());
  }

  ChatService& service() { return *service_; }
  Store& store() { return *store_; }
  RestApi& api() { return *api_; }
  WebhookDispatcher& dispatcher() { return *dispatcher_; }
  Random& random() { return *random_; }

  template <typename T>
  static T Must(Result<T> r) {
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    return std::move(r).value();
  }
  static void Must(Status s) { REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message)); }

  std::string NewKey(std::uint32_t permissions, std::string shopId = "") {
    CreateKeyInput in;
    in.name = "key " + std::to_string(++keys_);
    in.permissions = permissions;
    return Must(service_->directory().CreateApiKey(Principal::System(shopId.empty() ? shop.id : shopId), in)).secret;
  }
  Principal Caller() { return Must(service_->auth().AuthenticateApiKey(key)); }

  // A plan change after the keys exist (keys need Pro or Plus to be made).
  void SetPlan(Plan plan, std::string shopId = "") {
    Must(store_->Write([&](StoreWriter& w) -> Status {
      LC_ASSIGN_OR_RETURN(auto s, w.GetShop(shopId.empty() ? shop.id : shopId));
      if (!s) return MakeError(ErrorCode::kNotFound, "no such shop");
      s->plan = plan;
      LC_ASSIGN_OR_RETURN(bool ok, w.UpdateShop(*s));
      return ok ? Status::Ok() : Status(MakeError(ErrorCode::kNotFound, "no such shop"));
    }));
  }

  WebhookSubscription Subscribe(const std::vector<std::string>& events, const std::string& url = kHookUrl,
                                std::optional<std::string> metadataJson = std::nullopt) {
    CreateWebhookInput in;
    in.url = url;
    in.events = events;
    in.metadataJson = std::move(metadataJson);
    return Must(service_->webhooks().CreateWebhook(Caller(), in));
  }
  void Pause(const std::string& subId) {
    UpdateWebhookInput in;
    in.isActive = false;
    Must(service_->webhooks().UpdateWebhook(Caller(), subId, in));
  }

// GCC 12 at -O2 reports the optional<string> members of a freshly built
// InboundMessageInput as "maybe uninitialized" once it inlines this (a known
// false positive of -Wmaybe-uninitialized with std::optional).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
  Conversation Inbound(const std::string& text, std::optional<std::string> email = std::nullopt,
                       std::optional<std::string> conversationId = std::nullopt) {
    InboundMessageInput in;
    in.customerName = "Casey Customer";
    in.customerEmail = std::move(email);
    in.conversationId = std::move(conversationId);
    in.text = text;
    return Must(service_->conversations().ReceiveInbound(sys, in));
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  Message AgentReply(const std::string& conversationId, const std::string& text, bool isNote = false) {
    SendMessageInput in;
    in.text = text;
    in.memberId = agent.id;
    in.isNote = isNote;
    return Must(service_->conversations().SendMessage(Caller(), conversationId, in));
  }

  int Run() { return dispatcher_->RunOnce(); }

  // ---- Store reads ----
  WebhookSubscription Sub(const std::string& id) {
    std::optional<WebhookSubscription> s;
    Must(store_->Read([&](StoreReader& r) -> Status {
      LC_ASSIGN_OR_RETURN(s, r.GetSubscription(shop.id, id));
      return Status::Ok();
    }));
    REQUIRE(s.has_value());
    return *s;
  }
  // Newest first.
  std::vector<WebhookDelivery> Deliveries(const std::string& subId) {
    std::vector<WebhookDelivery> out;
    Must(store_->Read([&](StoreReader& r) -> Status {
      LC_ASSIGN_OR_RETURN(out, r.ListDeliveries(shop.id, subId, 100000));
      return Status::Ok();
    }));
    return out;
  }
  WebhookDelivery OnlyDelivery(const std::string& subId) {
    auto all = Deliveries(subId);
    REQUIRE(all.size() == 1);
    return all.front();
  }
  // Newest first.
  std::vector<DeliveryAttempt> Attempts(const std::string& subId) {
    std::vector<DeliveryAttempt> out;
    Must(store_->Read([&](StoreReader& r) -> Status {
      LC_ASSIGN_OR_RETURN(out, r.ListAttempts(shop.id, subId, 100000));
      return Status::Ok();
    }));
    return out;
  }
  std::vector<Event> Events(const std::string& shopId = "") {
    std::vector<Event> out;
    Must(store_->Read([&](StoreReader& r) -> Status {
      LC_ASSIGN_OR_RETURN(out, r.ListEvents(shopId.empty() ? shop.id : shopId, 100000));
      return Status::Ok();
    }));
    return out;
  }

  // ---- HTTP ----
  HttpRequest Request(const std::string& method, const std::string& target, const std::string& body = "",
                      std::optional<std::string> apiKey = std::nullopt) const {
    HttpRequest req;
    req.method = method;
    req.target = target;
    req.body = body;
    req.peerIp = "203.0.113.7";
    req.headers.emplace_back("x-api-key", apiKey.value_or(key));
    if (!body.empty()) req.headers.emplace_back("content-type", "application/json");
    return req;
  }
  testing::Reply Send(const HttpRequest& req) {
    testing::Reply r;
    r.raw = AwaitReply(api_->Handle(req));  // a send answers later (HttpResponse::deferred)
    testing::RecordExchange(req, r.raw);
    r.json = ParseJson(r.raw.body);
    return r;
  }
  testing::Reply Call(const std::string& method, const std::string& target, const std::string& body = "",
                      std::optional<std::string> apiKey = std::nullopt) {
    return Send(Request(method, target, body, std::move(apiKey)));
  }

  ManualClock clock;
  TableResolver resolver;
  RecordingTransport transport;
  Shop shop;
  Principal sys;
  std::string key;
  Member agent;

 private:
  std::unique_ptr<Random> random_;
  std::unique_ptr<Random> dispatchRandom_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<ChatService> service_;
  std::unique_ptr<RestApi> api_;
  std::unique_ptr<WebhookDispatcher> dispatcher_;
  int keys_ = 0;
};

}  // namespace livechat::testing
