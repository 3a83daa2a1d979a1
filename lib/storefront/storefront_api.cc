#include "livechat/storefront.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <optional>
#include <queue>
#include <random>
#include <thread>
#include <vector>
#include <cstdio>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "http/json_body.h"
#include "livechat/json_codec.h"
#include "livechat/rest.h"

namespace livechat {
namespace {

using rapidjson::Value;
using Steady = std::chrono::steady_clock;

constexpr int kTrackedKept = 50;  // tracked events (and trigger/article runs) kept per session

Error Invalid(std::string m) { return MakeError(ErrorCode::kInvalidParams, std::move(m)); }

std::string Compact(const Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return {buf.GetString(), buf.GetSize()};
}

std::string Str(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

std::string Data(std::string_view json) { return fmt::format("{{\"data\":{}}}", json); }

std::string SessionJson(const VisitorStart& s) {
  std::string out = "{\"sessionId\":";
  AppendJsonString(out, s.session.id);
  out += ",\"token\":";
  AppendJsonString(out, s.token);
  out += fmt::format(",\"sdkVersion\":\"{}\"}}", sdk::kSdkVersion);
  return out;
}

std::map<std::string, std::string> StringMap(const Value& obj) {
  std::map<std::string, std::string> out;
  for (const auto& m : obj.GetObject()) out[Str(m.name)] = Str(m.value);
  return out;
}

std::optional<std::string> OptStr(const Value& obj, const char* key) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return std::nullopt;
  if (it->value.IsString()) return Str(it->value);
  if (it->value.IsNumber()) return Compact(it->value);  // a numeric id
  return std::nullopt;
}

template <typename T>
Status Outcome(const Result<T>& r) {
  return r.ok() ? Status::Ok() : Status(r.error());
}

// The identity fields of a pre-chat form; the others become conversation attributes.
bool IsIdentityField(std::string_view name) { return name == "name" || name == "email" || name == "phone"; }

}  // namespace

struct StorefrontApi::Impl {
  ChatService& service;
  StorefrontOptions options;
  sdk::CommandValidator validator;
  std::atomic<int> waiting{0};

  // A poll waiting for a change to its conversation (or to its session
  // before one exists). It holds no thread: it is kept here until a change
  // to its key, its next fallback read or its deadline, and then a poller
  // thread reads it again and answers it or keeps it waiting.
  struct Waiter {
    VisitorSession session;
    std::string key;  // WaitKey(session)
    std::string origin;
    std::int64_t after = 0;
    std::string shown;  // the view the widget shows
    bool viewGiven = false;
    bool typingShown = false;
    bool capped = false;
    Steady::time_point deadline;
    // The answer the last read gave, for a wait that ends with no change
    // reported since (guarded by mu).
    std::string lastAnswer;
    std::uint64_t seen = 0;        // the key's generation the last read saw (guarded by mu)
    std::uint64_t timerEpoch = 0;  // timers of an older epoch are stale (guarded by mu)
    bool queued = false;           // in `ready`, or being read by a poller (guarded by mu)
    bool done = false;             // answered (guarded by mu)
    HttpReply reply;
  };
  // The polls waiting on one key. `holders` also counts a poll between
  // taking the generation and registering, so a change in that gap is seen.
  struct Slot {
    std::uint64_t generation = 0;
    int holders = 0;
    std::vector<std::shared_ptr<Waiter>> waiters;
  };
  struct Timer {
    Steady::time_point at;
    std::uint64_t epoch;
    std::shared_ptr<Waiter> waiter;
    bool operator>(const Timer& o) const { return at > o.at; }
  };
  std::mutex mu;  // guards everything below and the Waiter fields marked so
  std::condition_variable work;     // pollers: `ready` has a waiter, or closing
  std::condition_variable ticking;  // the timer thread: an earlier timer, or closing
  std::condition_variable drained;  // the destructor: no waiter left
  std::unordered_map<std::string, Slot> slots;
  std::deque<std::shared_ptr<Waiter>> ready;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers;
  int registered = 0;     // waiters in slots
  bool stopping = false;  // WakeAll: answer every waiter, wait no more
  bool closing = false;   // the destructor: the threads end
  std::vector<std::thread> threads;

  void Notify(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = slots.find(key);
    if (it == slots.end()) return;
    ++it->second.generation;
    for (auto& w : it->second.waiters) Enqueue(w);
  }

  // Under mu.
  void Enqueue(const std::shared_ptr<Waiter>& w) {
    if (w->queued || w->done) return;
    w->queued = true;
    ready.push_back(w);
    work.notify_one();
  }
  // Under mu.
  void Schedule(const std::shared_ptr<Waiter>& w, Steady::time_point at) {
    const bool earliest = timers.empty() || at < timers.top().at;
    timers.push(Timer{at, ++w->timerEpoch, w});
    if (earliest) ticking.notify_one();
  }
  // Under mu. How long a waiter goes without a fallback read: at least
  // fallbackPollMillis, and longer when so many wait that the reads would
  // pass fallbackReadsPerSecond in all (they are for writes the observer
  // cannot see, not for the changes it reports).
  Steady::duration FallbackEvery() const {
    const Millis spread = options.fallbackReadsPerSecond > 0
                              ? static_cast<Millis>(registered) * 1000 / options.fallbackReadsPerSecond
                              : 0;
    return std::chrono::milliseconds(std::max<Millis>(options.fallbackPollMillis, spread));
  }
  // Under mu: a poll that took a slot's generation no longer holds it.
  void Release(const std::string& key) {
    auto it = slots.find(key);
    if (it != slots.end() && --it->second.holders == 0) slots.erase(it);
  }

  // On the thread that got the deferred answer: the poll waits from now.
  void Register(const std::shared_ptr<Waiter>& w, HttpReply reply) {
    std::lock_guard<std::mutex> lock(mu);
    w->reply = std::move(reply);
    Slot& slot = slots[w->key];
    slot.waiters.push_back(w);
    ++registered;
    if (stopping || slot.generation != w->seen) {
      Enqueue(w);
    } else {
      Schedule(w, std::min(w->deadline, Steady::now() + FallbackEvery()));
    }
  }

  // A poller thread: reads each ready waiter again, and answers it or lets
  // it wait on.
  void PollLoop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      work.wait(lock, [&] { return closing || !ready.empty(); });
      if (ready.empty()) return;
      // `queued` stays set while this thread has the waiter: a change
      // reported meanwhile does not queue it again for another poller (it
      // is seen below, by the generation), so one poll is answered once.
      std::shared_ptr<Waiter> w = std::move(ready.front());
      ready.pop_front();
      if (w->done) continue;
      const std::uint64_t seen = slots[w->key].generation;  // before the read: a change during it is not missed
      const bool last = stopping;
      // A wait that ended with no change reported since the last read is
      // answered with what that read gave: the widget asks again at once,
      // and its next poll reads afresh. A read saved per waiting widget and
      // wait, when thousands wait.
      if (!last && seen == w->seen && !w->lastAnswer.empty() && Steady::now() >= w->deadline) {
        std::string body = std::move(w->lastAnswer);
        Finish(w);
        HttpReply reply = std::move(w->reply);
        lock.unlock();
        reply(Json(200, std::move(body), w->origin));
        lock.lock();
        continue;
      }
      lock.unlock();
      auto u = service.storefront().VisitorPoll(w->session, w->after);
      std::optional<HttpResponse> answer;
      std::string unchanged;
      if (!u.ok()) {
        answer = Fail(u.error(), w->origin);
      } else if (last || Changed(*u, *w) || Steady::now() >= w->deadline) {
        answer = Json(200, Data(UpdatesJson(*u, w->after, w->capped)), w->origin);
      } else {
        unchanged = Data(UpdatesJson(*u, w->after, w->capped));
      }
      lock.lock();
      if (answer) {
        Finish(w);
        HttpReply reply = std::move(w->reply);
        lock.unlock();
        reply(std::move(*answer));
        lock.lock();
        continue;
      }
      w->queued = false;
      w->seen = seen;
      w->lastAnswer = std::move(unchanged);
      if (stopping || slots[w->key].generation != seen) {
        Enqueue(w);
      } else {
        Schedule(w, std::min(w->deadline, Steady::now() + FallbackEvery()));
      }
    }
  }
  // Under mu: the waiter leaves its slot.
  void Finish(const std::shared_ptr<Waiter>& w) {
    w->done = true;
    auto it = slots.find(w->key);
    if (it != slots.end()) {
      auto& list = it->second.waiters;
      list.erase(std::remove(list.begin(), list.end(), w), list.end());
    }
    Release(w->key);
    --registered;
    waiting.fetch_sub(1);
    if (registered == 0) drained.notify_all();
  }

  // The timer thread: a waiter whose deadline or fallback read came is ready.
  void TimerLoop() {
    std::unique_lock<std::mutex> lock(mu);
    while (!closing) {
      if (timers.empty()) {
        ticking.wait(lock);
        continue;
      }
      const Steady::time_point at = timers.top().at;
      if (at > Steady::now()) {
        ticking.wait_until(lock, at);
        continue;
      }
      Timer t = timers.top();
      timers.pop();
      if (t.epoch == t.waiter->timerEpoch) Enqueue(t.waiter);
    }
  }

  // How much earlier than asked a long wait ends: up to a fifth of it (at
  // most 5 s), at random, for waits over 5 s. Widgets that began together
  // (a deploy, a campaign) would otherwise come back together every wait,
  // each wave a burst of requests; this spreads them within a few waits.
  static Millis Jitter(Millis wait) {
    if (wait <= 5'000) return 0;
    thread_local std::minstd_rand random(std::random_device{}());
    return std::uniform_int_distribution<Millis>(0, std::min<Millis>(wait / 5, 5'000))(random);
  }

  // Whether a read has something the widget does not show yet.
  static bool Changed(const VisitorUpdates& u, const Waiter& w) {
    return !u.messages.empty() || u.view != w.shown || (!w.viewGiven && u.typing.empty() == w.typingShown);
  }

  Impl(ChatService& s, StorefrontOptions o)
      : service(s), options(std::move(o)), validator(s.clock(), options.sdkLimits) {
    threads.emplace_back([this] { TimerLoop(); });
    for (int i = 0; i < std::max(1, options.pollThreads); ++i) threads.emplace_back([this] { PollLoop(); });
  }
  ~Impl() {
    std::unique_lock<std::mutex> lock(mu);
    stopping = true;
    for (auto& [key, slot] : slots)
      for (auto& w : slot.waiters) Enqueue(w);
    drained.wait(lock, [&] { return registered == 0; });
    closing = true;
    work.notify_all();
    ticking.notify_all();
    lock.unlock();
    for (auto& t : threads) t.join();
  }

  HttpResponse Json(int status, std::string body, const std::string& origin) {
    HttpResponse r;
    r.status = status;
    r.SetHeader("Content-Type", "application/json; charset=utf-8");
    r.SetHeader("Cache-Control", "no-store");
    Cors(r, origin);
    r.body = std::move(body);
    return r;
  }
  HttpResponse Fail(const Error& e, const std::string& origin) {
    if (IsServerFault(e)) std::fprintf(stderr, "livechat storefront: %s: %s\n", PublicMessage(e).data(), e.message.c_str());
    HttpResponse r = Json(RestStatusFor(e.code), RestErrorBody(e), origin);
    if (std::string wait = RetryAfterFor(e); !wait.empty()) r.SetHeader("Retry-After", wait);
    return r;
  }

  bool OriginAllowed(const std::string& origin) const {
    if (options.allowedOrigins.empty() || origin.empty()) return true;
    return std::find(options.allowedOrigins.begin(), options.allowedOrigins.end(), origin) !=
           options.allowedOrigins.end();
  }
  void Cors(HttpResponse& r, const std::string& origin) const {
    if (origin.empty() || !OriginAllowed(origin)) return;
    r.SetHeader("Access-Control-Allow-Origin", options.allowedOrigins.empty() ? "*" : origin);
    if (!options.allowedOrigins.empty()) r.SetHeader("Vary", "Origin");
  }

  Result<rapidjson::Document> Body(const HttpRequest& req) {
    rapidjson::Document d;
    const JsonBodyStatus status = http::ReadJsonBody(req, options.maxBodyBytes, d).status;
    if (status == JsonBodyStatus::kTooLarge)
      return MakeError(ErrorCode::kPayloadTooLarge,
                       fmt::format("the request body is larger than {} bytes", options.maxBodyBytes));
    if (status == JsonBodyStatus::kUnsupportedMediaType)
      return MakeError(ErrorCode::kUnsupportedMediaType, "send the body as Content-Type: application/json");
    // Empty, not UTF-8, not JSON or not an object: one answer, as before.
    if (status != JsonBodyStatus::kOk || !d.IsObject()) return Invalid("the body must be a JSON object");
    return d;
  }

  Result<VisitorSession> Visitor(const HttpRequest& req) {
    return service.storefront().AuthenticateVisitor(req.Header("x-app-id").value_or(""), req.Header("x-session-token").value_or(""));
  }

  HttpResponse Handle(const HttpRequest& req) {
    const std::string origin = req.Header("origin").value_or("");
    auto target = ParseTarget(req.target);
    if (!target) return Fail(Invalid("the request target is malformed"), origin);
    if (!OriginAllowed(origin))
      return Fail(MakeError(ErrorCode::kForbidden, "this origin may not use the storefront API: " + origin), origin);
    if (req.method == "OPTIONS") return Preflight(origin);
    const auto& seg = target->segments;
    auto m = MatchRoute(Routes(), req.method, [&](const Route& r) { return seg.size() == 2 && seg[1] == r.name; });
    if (m.pathRow == nullptr)
      return Fail(MakeError(ErrorCode::kNotFound, "No resource at " + target->path + "."), origin);
    if (m.row == nullptr) {
      // Every path also answers the preflight (above), so Allow names it.
      const std::string allow = m.allow + ", OPTIONS";
      HttpResponse r = Fail(MethodNotAllowedError(req.method, allow), origin);
      r.SetHeader("Allow", allow);
      return r;
    }
    return m.row->serve ? (this->*m.row->serve)(req, origin) : (this->*m.row->serveTarget)(req, *target, origin);
  }

  // /storefront/<name>: the table both dispatch and the 405's Allow come from.
  // A route's handler reads the request, or the parsed target too.
  struct Route {
    std::string_view name;
    std::string_view method;
    HttpResponse (Impl::*serve)(const HttpRequest&, const std::string& origin) = nullptr;
    HttpResponse (Impl::*serveTarget)(const HttpRequest&, const ParsedTarget&, const std::string& origin) = nullptr;
  };
  static const std::vector<Route>& Routes() {
    static const std::vector<Route> kRoutes = {
        {"sessions", "POST", &Impl::Start},
        {"session", "GET", &Impl::Session},
        {"commands", "POST", &Impl::Command},
        {"pageviews", "POST", &Impl::PageView},
        {"updates", "GET", nullptr, &Impl::Updates},
        {"files", "POST", nullptr, &Impl::SendFile},
    };
    return kRoutes;
  }

  HttpResponse Preflight(const std::string& origin) {
    HttpResponse r;
    r.status = 204;
    Cors(r, origin);
    r.SetHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    r.SetHeader("Access-Control-Allow-Headers", "Content-Type, X-App-Id, X-Session-Token");
    r.SetHeader("Access-Control-Max-Age", "600");
    return r;
  }

  HttpResponse Start(const HttpRequest& req, const std::string& origin) {
    auto started = service.storefront().StartVisitorSession(req.Header("x-app-id").value_or(""), ClientIp(req, options.trustedProxies));
    if (!started.ok()) return Fail(started.error(), origin);
    return Json(201, Data(SessionJson(*started)), origin);
  }

  HttpResponse Session(const HttpRequest& req, const std::string& origin) {
    auto s = Visitor(req);
    if (!s.ok()) return Fail(s.error(), origin);
    std::string out = "{\"sessionId\":";
    AppendJsonString(out, s->id);
    out += ",\"customerId\":";
    s->customerId ? AppendJsonString(out, *s->customerId) : void(out += "null");
    out += ",\"conversationId\":";
    s->conversationId ? AppendJsonString(out, *s->conversationId) : void(out += "null");
    out += ",\"state\":" + PublicState(s->stateJson) + "}";
    return Json(200, Data(out), origin);
  }

  // The session state without the service's own pending lists.
  static std::string PublicState(const std::string& stateJson) {
    rapidjson::Document d;
    d.Parse(stateJson.c_str(), stateJson.size());
    if (d.HasParseError() || !d.IsObject()) return "{}";
    d.RemoveMember("pendingPages");
    d.RemoveMember("pendingAttributes");
    return Compact(d);
  }

  // An attachment: the raw bytes as the body, their type as Content-Type,
  // ?name= the file name and ?caption= optional text. Counted against the
  // same per-session message window as message:send.
  HttpResponse SendFile(const HttpRequest& req, const ParsedTarget& t, const std::string& origin) {
    auto s = Visitor(req);
    if (!s.ok()) return Fail(s.error(), origin);
    FileUpload upload;
    upload.kind = "attachment";
    upload.name = t.Query("name").value_or("");
    upload.contentType = req.Header("content-type").value_or("");
    std::optional<std::string> caption = t.Query("caption");
    std::string args = "[";
    AppendJsonString(args, caption && !caption->empty() ? *caption : upload.name.empty() ? "file" : upload.name);
    args += "]";
    upload.bytes = req.body;
    Result<Message> m = MakeError(ErrorCode::kInternal, "the attachment was not sent");
    Status verdict = validator.Apply(s->id, "message:send", args, [&]() -> Status {
      m = service.storefront().VisitorSendFile(*s, upload, caption);
      return Outcome(m);
    });
    if (!verdict.ok()) return Fail(verdict.error(), origin);
    Notify(WaitKey(*s));  // the same visitor's other tabs, before the conversation exists
    return Json(201, Data(fmt::format("{{\"seq\":{},\"message\":{}}}", m->seq, ToJson(*m, JsonView::kList))), origin);
  }

  HttpResponse PageView(const HttpRequest& req, const std::string& origin) {
    auto s = Visitor(req);
    if (!s.ok()) return Fail(s.error(), origin);
    auto body = Body(req);
    if (!body.ok()) return Fail(body.error(), origin);
    const Value& b = *body;
    if (!b.HasMember("url") || !b["url"].IsString()) return Fail(Invalid("url is required (a string)"), origin);
    BrowsedPage page{Str(b["url"]), std::nullopt, 0};
    if (b.HasMember("title") && !b["title"].IsNull()) {
      if (!b["title"].IsString()) return Fail(Invalid("title must be a string"), origin);
      page.title = Str(b["title"]);
    }
    Status st = service.storefront().VisitorRecordPageView(*s, page);
    if (!st.ok()) return Fail(st.error(), origin);
    return Json(201, Data("{\"recorded\":true}"), origin);
  }

  HttpResponse Command(const HttpRequest& req, const std::string& origin) {
    auto s = Visitor(req);
    if (!s.ok()) return Fail(s.error(), origin);
    auto body = Body(req);
    if (!body.ok()) return Fail(body.error(), origin);
    const Value& b = *body;
    if (!b.HasMember("command") || !b["command"].IsString())
      return Fail(Invalid("command is required (a string)"), origin);
    const std::string command = Str(b["command"]);
    std::string argsJson = "[]";
    if (b.HasMember("args")) {
      if (!b["args"].IsArray()) return Fail(Invalid(command + ": args must be an array"), origin);
      argsJson = Compact(b["args"]);
    }
    // The one gate: a rejected command is a 4xx with the warning and changes
    // nothing, and counts against no window (nor does one the service refuses).
    Result<std::string> out = std::string();
    Status verdict = validator.Apply(s->id, command, argsJson, [&]() -> Status {
      rapidjson::Document args;
      args.Parse(argsJson.c_str(), argsJson.size());
      out = Run(*s, command, args, ClientIp(req, options.trustedProxies));
      return Outcome(out);
    });
    if (!verdict.ok()) return Fail(verdict.error(), origin);
    Notify(WaitKey(*s));  // the same visitor's other tabs
    return Json(200, Data(*out), origin);
  }

  // A validated command, applied. Returns the `data` JSON.
  // `peer`: the client's address (a new session after logout counts against it).
  Result<std::string> Run(const VisitorSession& s, const std::string& command, const Value& a, const std::string& peer) {
    const auto n = a.Size();
    auto done = [&](Status st, std::string_view extra = "") -> Result<std::string> {
      if (!st.ok()) return st.take_error();
      return fmt::format("{{\"command\":\"{}\",\"applied\":true{}}}", command, extra);
    };
    if (command == "message:send") {
      auto m = service.storefront().VisitorSendMessage(s, Str(a[0]));
      if (!m.ok()) return m.take_error();
      return fmt::format("{{\"command\":\"message:send\",\"applied\":true,\"seq\":{},\"message\":{}}}", m->seq,
                         ToJson(*m, JsonView::kList));
    }
    if (command == "typing:set") return done(service.storefront().VisitorSetTyping(s, a[0].GetBool()));
    if (command == "identify" || command == "user:email" || command == "user:name" || command == "user:phone") {
      VisitorIdentity who;
      if (command == "identify") {
        const Value& u = a[0];
        who.id = OptStr(u, "id");
        who.email = OptStr(u, "email");
        who.name = OptStr(u, "name");
        who.firstName = OptStr(u, "firstName");
        who.lastName = OptStr(u, "lastName");
        who.phone = OptStr(u, "phone");
      } else if (command == "user:email") {
        who.email = Str(a[0]);
      } else if (command == "user:name") {
        who.name = Str(a[0]);
      } else {
        who.phone = Str(a[0]);
      }
      auto c = service.storefront().VisitorIdentify(s, who);
      if (!c.ok()) return c.take_error();
      std::string extra = ",\"customerId\":";
      AppendJsonString(extra, c->id);
      return done(Status::Ok(), extra);
    }
    if (command == "logout" || command == "session:reset") {
      auto fresh = service.storefront().RenewVisitorSession(s, peer);
      if (!fresh.ok()) return fresh.take_error();
      return done(Status::Ok(), ",\"session\":" + SessionJson(*fresh));
    }
    if (command == "escalate") {
      auto c = service.storefront().VisitorEscalate(s, n > 0 ? std::optional(Str(a[0])) : std::nullopt);
      if (!c.ok()) return c.take_error();
      return done(Status::Ok());
    }
    if (command == "prechat:submit") return PrechatSubmit(s, a[0], done);
    if (command == "prechat:skip") return done(service.storefront().VisitorSetState(s, "prechat", "{\"skipped\":true}"));
    if (command == "event:track" || command == "trigger:run" || command == "article:show") {
      std::string entry = "{\"name\":";
      AppendJsonString(entry, command == "event:track" ? Str(a[0]) : command);
      if (command != "event:track") {
        entry += ",\"properties\":{\"id\":";
        AppendJsonString(entry, Str(a[0]));
        entry += "}";
      } else if (n > 1) {
        entry += ",\"properties\":" + Compact(a[1]);
      }
      entry += fmt::format(",\"at\":\"{}\"}}", FormatIso8601(service.clock().NowMillis()));
      return done(service.storefront().VisitorAppendState(s, "events", entry, kTrackedKept));
    }
    if (command == "user:attributes") {
      auto c = service.storefront().VisitorSetCustomerAttributes(s, StringMap(a[0]));
      if (!c.ok()) return c.take_error();
      return done(Status::Ok());
    }
    if (command == "conversation:attributes") return done(service.storefront().VisitorSetConversationAttributes(s, StringMap(a[0])));
    if (command == "product" || command == "cart" || command == "order" || command == "locale")
      return done(service.storefront().VisitorSetState(s, command, Compact(a[0])));
    if (command == "user:context") return done(service.storefront().VisitorSetState(s, "userContext", Compact(a[0])));
    if (command == "shop:data") return done(service.storefront().VisitorSetState(s, "shopData", Compact(a[0])));
    // Visibility, composer text and pre-chat prefill live in the page only.
    return fmt::format("{{\"command\":\"{}\",\"applied\":false,\"reason\":\"handled in the browser\"}}", command);
  }

  template <typename Done>
  Result<std::string> PrechatSubmit(const VisitorSession& s, const Value& fields, Done& done) {
    VisitorIdentity who;
    std::map<std::string, std::string> rest;
    for (const auto& f : fields.GetObject()) {
      std::string name = Str(f.name), value = Str(f.value);
      if (IsIdentityField(name)) {
        if (value.empty()) continue;
        (name == "name" ? who.name : name == "email" ? who.email : who.phone) = value;
      } else {
        rest[name] = value;
      }
    }
    if (who.name || who.email || who.phone) {
      auto c = service.storefront().VisitorIdentify(s, who);
      if (!c.ok()) return c.take_error();
    }
    if (!rest.empty()) LC_RETURN_IF_ERROR(service.storefront().VisitorSetConversationAttributes(s, rest));
    return done(service.storefront().VisitorSetState(s, "prechat", "{\"submitted\":true}"));
  }

  HttpResponse Updates(const HttpRequest& req, const ParsedTarget& t, const std::string& origin) {
    auto s = Visitor(req);
    if (!s.ok()) return Fail(s.error(), origin);
    std::int64_t after = 0;
    Millis wait = 0;
    // What the widget shows: `view` from its last answer. Without it, what
    // this poll reads first, and the agent typing that `typing` says.
    std::optional<std::string> shown = t.Query("view");
    if (shown && !IsView(*shown))
      return Fail(Invalid("view must be the view of an earlier answer (16 hex characters)"), origin);
    const bool viewGiven = shown.has_value();
    const bool typingShown = t.Query("typing").value_or("0") == "1";
    if (auto v = t.Query("after")) {
      auto parsed = ParseInt(*v);
      if (!parsed || *parsed < 0) return Fail(Invalid("after must be a whole number of 0 or more"), origin);
      after = *parsed;
    }
    if (auto v = t.Query("wait")) {
      auto parsed = ParseInt(*v);
      if (!parsed || *parsed < 0) return Fail(Invalid("wait must be a whole number of seconds, 0 or more"), origin);
      wait = std::min<Millis>(*parsed * 1000, options.maxWaitMillis);
    }
    // Over the cap a poll answers at once and tells the widget when to ask
    // again: waiting polls hold no thread, but each holds memory and a
    // connection.
    bool capped = false;
    const std::string key = WaitKey(*s);
    if (wait > 0) {
      std::lock_guard<std::mutex> lock(mu);
      if (stopping) {
        wait = 0;
      } else if (waiting.fetch_add(1) >= options.maxWaiters) {
        waiting.fetch_sub(1);
        capped = true;
        wait = 0;
      }
    }
    std::uint64_t seen = 0;
    if (wait > 0) {
      std::lock_guard<std::mutex> lock(mu);
      Slot& slot = slots[key];
      ++slot.holders;
      seen = slot.generation;  // taken before the read: a change during it is not missed
    }
    auto u = service.storefront().VisitorPoll(*s, after);
    auto w = std::make_shared<Waiter>();
    w->shown = shown ? *shown : (u.ok() ? u->view : std::string());
    w->viewGiven = viewGiven;
    w->typingShown = typingShown;
    if (!u.ok() || wait == 0 || Changed(*u, *w)) {
      if (wait > 0) {
        std::lock_guard<std::mutex> lock(mu);
        Release(key);
        waiting.fetch_sub(1);
      }
      if (!u.ok()) return Fail(u.error(), origin);
      return Json(200, Data(UpdatesJson(*u, after, capped)), origin);
    }
    w->session = std::move(*s);
    w->key = key;
    w->origin = origin;
    w->after = after;
    w->capped = capped;
    w->deadline = Steady::now() + std::chrono::milliseconds(wait - Jitter(wait));
    w->seen = seen;
    w->lastAnswer = Data(UpdatesJson(*u, after, capped));
    HttpResponse later;
    later.deferred = [this, w](HttpReply reply) { Register(w, std::move(reply)); };
    return later;
  }

  // What a waiting poll listens to: its conversation, or its session before one exists.
  static std::string WaitKey(const VisitorSession& s) {
    return s.conversationId ? *s.conversationId : "session:" + s.id;
  }

  static bool IsView(const std::string& v) {
    return v.size() == 16 && std::all_of(v.begin(), v.end(), [](char ch) {
             return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
           });
  }

  static std::optional<std::int64_t> ParseInt(const std::string& v) {
    if (v.empty() || v.size() > 15) return std::nullopt;
    std::int64_t n = 0;
    for (char ch : v) {
      if (ch < '0' || ch > '9') return std::nullopt;
      n = n * 10 + (ch - '0');
    }
    return n;
  }

  std::string UpdatesJson(const VisitorUpdates& u, std::int64_t after, bool capped) {
    std::int64_t cursor = after;
    std::string out = "{\"messages\":[";
    for (std::size_t i = 0; i < u.messages.size(); ++i) {
      if (i) out += ',';
      out += fmt::format("{{\"seq\":{},\"message\":{}}}", u.messages[i].seq, ToJson(u.messages[i], JsonView::kList));
      cursor = std::max(cursor, u.messages[i].seq);
    }
    out += "],\"typing\":[";
    for (std::size_t i = 0; i < u.typing.size(); ++i) {
      if (i) out += ',';
      out += "{\"memberId\":";
      AppendJsonString(out, u.typing[i].memberId);
      out += fmt::format(",\"updatedAt\":\"{}\"}}", FormatIso8601(u.typing[i].updatedAt));
    }
    out += "],\"conversation\":";
    if (u.conversation) {
      out += "{\"id\":";
      AppendJsonString(out, u.conversation->id);
      out += ",\"status\":";
      AppendJsonString(out, u.conversation->status);
      out += fmt::format(",\"isChatBot\":{},\"assigned\":{}}}", u.conversation->isChatBot ? "true" : "false",
                         u.conversation->memberId ? "true" : "false");
    } else {
      out += "null";
    }
    out += ",\"view\":";
    AppendJsonString(out, u.view);
    out += fmt::format(",\"cursor\":{}", cursor);
    if (capped) out += fmt::format(",\"retryAfterMs\":{}", options.retryAfterMillis);
    out += "}";
    return out;
  }
};

StorefrontApi::StorefrontApi(ChatService& service, StorefrontOptions options)
    : impl_(std::make_unique<Impl>(service, std::move(options))) {
  service.SetConversationObserver([impl = impl_.get()](const std::string& id) { impl->Notify(id); });
}

StorefrontApi::~StorefrontApi() {
  impl_->service.SetConversationObserver(nullptr);
  WakeAll();
}

bool StorefrontApi::Owns(std::string_view target) {
  return target == "/storefront" || target.rfind("/storefront/", 0) == 0 || target.rfind("/storefront?", 0) == 0;
}

HttpResponse StorefrontApi::Handle(const HttpRequest& req) { return impl_->Handle(req); }

int StorefrontApi::waiters() const { return impl_->waiting.load(); }

void StorefrontApi::WakeAll() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->stopping = true;
  for (auto& [key, slot] : impl_->slots)
    for (auto& w : slot.waiters) impl_->Enqueue(w);
}

}  // namespace livechat
