// End to end for webhooks: livechatd, with shortened retry delays, delivering
// to a real HTTPS receiver on loopback whose CA the test made. What the
// in-process suite (tests/webhooks) cannot see: TLS and the certificate
// check, the daemon's webhook flags, the dispatcher's threads woken by real
// writes from two processes, and a kill -9 between a write and its delivery.
#include <arpa/inet.h>
#include <netdb.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>
#include <httplib.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "e2e/child_process.h"
#include "e2e/e2e_helpers.h"
#include "e2e/https_receiver.h"
#include "e2e/tls_material.h"
#include "livechat/webhooks.h"

namespace {

using namespace std::chrono_literals;
using e2e::Ctl;
using e2e::Daemon;
using e2e::ErrorCodeOf;
using e2e::HttpsReceiver;
using e2e::Keys;
using e2e::ParseJson;
using e2e::ReceivedRequest;
using e2e::Slurp;
using e2e::StartDaemon;
using e2e::StopDaemon;
using e2e::Str;
using e2e::TempDir;

const std::vector<std::string> kAllEvents = {
    "message.created",           "message.updated",       "message.removed",
    "conversation.created",      "conversation.state_changed", "conversation.assigned",
    "conversation.tags_updated", "conversation.removed",  "customer.created"};

const std::set<std::string> kEnvelopeKeys = {"eventId", "type", "shopId", "conversationId", "occurredAt", "data"};

// The spec's `data` contents per event.
const std::map<std::string, std::set<std::string>> kDataKeys = {
    {"message.created", {"messageId", "text", "senderType", "memberId", "createdAt"}},
    {"conversation.created", {"type", "customerId", "channel", "isChatBot", "isFirstMessage"}},
    {"conversation.state_changed", {"status", "previousStatus"}},
    {"conversation.assigned", {"memberId", "previousMemberId"}},
    {"conversation.tags_updated", {"tags"}},
    {"customer.created",
     {"customerId", "email", "firstName", "lastName", "phone", "tags", "ordersCount", "totalSpent"}},
};

const char* const kFastRetries = "200ms,200ms,200ms,200ms,200ms,200ms";

using e2e::FirstLocalhostAddress;
using e2e::Loopback;

// Everything a webhook test needs: TLS material, a receiver, a store with a
// key (manage_conversations) and an agent.
struct World {
  TempDir dir;
  e2e::TlsMaterial tls;
  std::unique_ptr<HttpsReceiver> receiver;
  std::string hookUrl;
  std::string db;
  std::string storeId, apiKey, memberId;
};

std::unique_ptr<World> MakeWorld() {
  auto w = std::make_unique<World>();
  w->tls = e2e::MakeTlsMaterial(w->dir.path().string());
  Loopback lo = FirstLocalhostAddress();
  w->receiver = std::make_unique<HttpsReceiver>(w->tls, lo.bindAddress);
  if (!w->receiver->started() && lo.bindAddress != "127.0.0.1") {
    lo = {"127.0.0.1", "127.0.0.1"};
    w->receiver = std::make_unique<HttpsReceiver>(w->tls, lo.bindAddress);
  }
  REQUIRE(w->receiver->started());
  w->hookUrl = "https://" + lo.urlHost + ":" + std::to_string(w->receiver->port()) + "/hook";

  w->db = w->dir.File("webhooks.db");
  w->storeId = Str(Ctl(w->db, {"store", "create", "--name", "Hook Shop", "--plan", "pro"}), "id");
  w->apiKey = Str(Ctl(w->db, {"key", "create", "--store", w->storeId, "--name", "hooks", "--permissions",
                              "read_conversations,manage_conversations"}),
                  "key");
  w->memberId = Str(Ctl(w->db, {"member", "create", "--store", w->storeId, "--email", "ada@example.com",
                                "--first-name", "Ada", "--role", "admin"}),
                    "id");
  return w;
}

std::vector<std::string> DaemonFlags(const World& w, const char* retryDelays) {
  return {"--webhook-allow-private-targets", "--webhook-ca-file", w.tls.caCertPath, "--webhook-retry-delays",
          retryDelays};
}

struct Subscription {
  std::string id;
  std::string secret;
};

Subscription Subscribe(httplib::Client& cli, const World& w) {
  std::string events;
  for (const auto& e : kAllEvents) events += (events.empty() ? "\"" : ",\"") + e + "\"";
  auto res = cli.Post("/chat/webhooks", {{"X-Api-Key", w.apiKey}},
                      "{\"url\":\"" + w.hookUrl + "\",\"events\":[" + events + "],\"metadata\":{\"team\":\"e2e\"}}",
                      "application/json");
  REQUIRE(res);
  INFO("body: " << res->body);
  REQUIRE(res->status == 201);
  auto doc = ParseJson(res->body);
  Subscription s{Str(doc["data"], "id"), Str(doc["data"], "secret")};
  CHECK(s.secret.rfind("whsec_", 0) == 0);
  return s;
}

rapidjson::Document GetJson(httplib::Client& cli, const World& w, const std::string& path) {
  auto res = cli.Get(path, {{"X-Api-Key", w.apiKey}});
  REQUIRE(res);
  INFO("GET " << path << " -> " << res->body);
  REQUIRE(res->status == 200);
  return ParseJson(res->body);
}

void PostOk(httplib::Client& cli, const World& w, const std::string& path, const std::string& body, int status) {
  auto res = cli.Post(path, {{"X-Api-Key", w.apiKey}}, body, "application/json");
  REQUIRE(res);
  INFO("POST " << path << " -> " << res->body);
  CHECK(res->status == status);
}

std::string EventIdOf(const ReceivedRequest& r) { return r.Header("X-Webhook-Event-Id"); }

// Requests per event id, in arrival order.
std::map<std::string, std::vector<ReceivedRequest>> ByEvent(const std::vector<ReceivedRequest>& all) {
  std::map<std::string, std::vector<ReceivedRequest>> out;
  for (const auto& r : all) out[EventIdOf(r)].push_back(r);
  return out;
}

std::size_t CountAnswered(const std::vector<ReceivedRequest>& reqs, int status) {
  std::size_t n = 0;
  for (const auto& r : reqs) n += r.answeredWith == status ? 1 : 0;
  return n;
}

// Every event id in `ids` has been answered with `status` at least `times` times.
bool AllAnswered(const std::vector<ReceivedRequest>& all, const std::set<std::string>& ids, int status,
                 std::size_t times = 1) {
  auto by = ByEvent(all);
  for (const auto& id : ids) {
    auto it = by.find(id);
    if (it == by.end() || CountAnswered(it->second, status) < times) return false;
  }
  return true;
}

// One delivery request, checked against the spec's headers, signature and
// envelope. Returns the parsed envelope.
rapidjson::Document CheckDelivery(const ReceivedRequest& r, const Subscription& sub, const std::string& shopId) {
  INFO("delivery body: " << r.body);
  CHECK(r.method == "POST");
  CHECK(r.path == "/hook");
  CHECK(r.Header("Content-Type").rfind("application/json", 0) == 0);

  auto env = ParseJson(r.body);
  CHECK(Keys(env) == kEnvelopeKeys);
  const std::string type = Str(env, "type");
  CHECK(r.Header("X-Webhook-Event") == type);
  CHECK(r.Header("X-Webhook-Event-Id") == Str(env, "eventId"));
  CHECK(r.Header("X-Webhook-Delivery-Id").size() > 0);
  CHECK(Str(env, "shopId") == shopId);
  const std::string occurredAt = Str(env, "occurredAt");
  CHECK(occurredAt.size() >= 20);
  CHECK(occurredAt.back() == 'Z');
  CHECK(env["conversationId"].IsNull() == (type == "customer.created"));
  REQUIRE(env["data"].IsObject());
  auto keys = kDataKeys.find(type);
  REQUIRE(keys != kDataKeys.end());
  CHECK(Keys(env["data"]) == keys->second);
  CHECK(r.body.find("metadata") == std::string::npos);  // metadata never goes out

  const std::string ts = r.Header("X-Webhook-Timestamp");
  const std::string sig = r.Header("X-Webhook-Signature");
  REQUIRE_FALSE(ts.empty());
  CHECK(ts.find_first_not_of("0123456789") == std::string::npos);
  const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
  CHECK(std::llabs(std::stoll(ts) - now) < 300);
  CHECK(sig.size() == 64);
  CHECK(sig.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(sig == e2e::OpenSslHmacSha256Hex(sub.secret, ts + ";" + r.body));
  CHECK(livechat::VerifyWebhookSignature(sub.secret, ts, r.body, sig, now));
  CHECK_FALSE(livechat::VerifyWebhookSignature(sub.secret, ts, r.body + " ", sig, now));
  CHECK_FALSE(livechat::VerifyWebhookSignature("whsec_wrong", ts, r.body, sig, now));
  return env;
}

std::set<std::string> NewEventIds(const std::vector<ReceivedRequest>& all, std::size_t from) {
  std::set<std::string> ids;
  for (std::size_t i = from; i < all.size(); ++i) ids.insert(EventIdOf(all[i]));
  return ids;
}

// Polls GET /chat/webhooks/{id}/attempts until `done(data array)` holds.
bool WaitForAttempts(httplib::Client& cli, const World& w, const std::string& subId,
                     const std::function<bool(const rapidjson::Value&)>& done, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    auto doc = GetJson(cli, w, "/chat/webhooks/" + subId + "/attempts");
    REQUIRE(doc["data"].IsArray());
    if (done(doc["data"])) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
}

}  // namespace

TEST_CASE("webhooks: every event reaches a real HTTPS receiver, signed; 503s are retried until a 200") {
  auto w = MakeWorld();
  Daemon daemon = StartDaemon(w->dir, w->db, DaemonFlags(*w, kFastRetries));
  CHECK(Slurp(daemon.stderrPath).find("WARNING: --webhook-allow-private-targets is on") != std::string::npos);
  httplib::Client cli = e2e::MakeClient(daemon.port);
  const Subscription sub = Subscribe(cli, *w);

  // (a) Each operation tied to an event, through both processes.
  auto conv = Ctl(w->db, {"conversation", "start", "--store", w->storeId, "--channel", "online_store",
                          "--customer-name", "Casey Customer", "--customer-email", "casey@example.com", "--text",
                          "Where is my order?"});
  const std::string convId = Str(conv, "id");
  const std::string base = "/chat/conversations/" + convId;
  PostOk(cli, *w, base + "/messages", "{\"text\":\"It ships today.\",\"memberId\":\"" + w->memberId + "\"}", 201);
  PostOk(cli, *w, base + "/messages",
         "{\"text\":\"internal only\",\"memberId\":\"" + w->memberId + "\",\"isNote\":true}", 201);  // no event
  PostOk(cli, *w, base + "/state", "{\"status\":\"resolved\"}", 200);
  PostOk(cli, *w, base + "/assign", "{\"memberId\":\"" + w->memberId + "\"}", 200);
  PostOk(cli, *w, base + "/tags", "{\"tags\":[\"vip\",\"e2e\"]}", 200);
  {
    auto res = cli.Delete(base + "/tags/vip", {{"X-Api-Key", w->apiKey}});
    REQUIRE(res);
    CHECK(res->status == 200);
  }

  constexpr std::size_t kEvents = 8;  // 3 from the start, reply, state, assign, 2 tag writes
  bool all = w->receiver->WaitFor([&](const auto& reqs) { return ByEvent(reqs).size() >= kEvents; }, 10s);
  INFO("livechatd stderr: " << Slurp(daemon.stderrPath));
  REQUIRE(all);
  std::this_thread::sleep_for(100ms);  // nothing more is on its way
  const auto received = w->receiver->Requests();
  const auto byEvent = ByEvent(received);
  REQUIRE(byEvent.size() == kEvents);

  std::multiset<std::string> types;
  std::set<std::string> deliveryIds;
  std::vector<std::string> messageTexts, tagLists;
  for (const auto& [eventId, reqs] : byEvent) {
    const std::string& event = eventId;  // clang 14 cannot capture a structured binding
    CAPTURE(event);
    REQUIRE(reqs.size() == 1);  // answered 200 the first time: sent once
    CHECK(reqs[0].answeredWith == 200);
    auto env = CheckDelivery(reqs[0], sub, w->storeId);
    const std::string type = Str(env, "type");
    types.insert(type);
    deliveryIds.insert(reqs[0].Header("X-Webhook-Delivery-Id"));
    const auto& data = env["data"];
    if (type != "customer.created") CHECK(Str(env, "conversationId") == convId);
    if (type == "message.created") {
      messageTexts.push_back(Str(data, "text"));
      if (Str(data, "senderType") == "customer") {
        CHECK(data["memberId"].IsNull());
      } else {
        CHECK(Str(data, "senderType") == "agent");
        CHECK(Str(data, "memberId") == w->memberId);
      }
    } else if (type == "customer.created") {
      CHECK(Str(data, "email") == "casey@example.com");
    } else if (type == "conversation.created") {
      CHECK(Str(data, "channel") == "online_store");
    } else if (type == "conversation.state_changed") {
      CHECK(Str(data, "status") == "resolved");
      CHECK(Str(data, "previousStatus") == "open");
    } else if (type == "conversation.assigned") {
      CHECK(Str(data, "memberId") == w->memberId);
      CHECK(data["previousMemberId"].IsNull());
    } else if (type == "conversation.tags_updated") {
      std::string list;
      for (const auto& t : data["tags"].GetArray()) list += std::string(t.GetString()) + ",";
      tagLists.push_back(list);
    }
  }
  CHECK(types == std::multiset<std::string>{"customer.created", "conversation.created", "message.created",
                                            "message.created", "conversation.state_changed",
                                            "conversation.assigned", "conversation.tags_updated",
                                            "conversation.tags_updated"});
  CHECK(deliveryIds.size() == kEvents);
  CHECK(std::set<std::string>(messageTexts.begin(), messageTexts.end()) ==
        std::set<std::string>{"Where is my order?", "It ships today."});
  CHECK(std::set<std::string>(tagLists.begin(), tagLists.end()) == std::set<std::string>{"vip,e2e,", "e2e,"});

  {
    auto list = GetJson(cli, *w, "/chat/webhooks");
    REQUIRE(list["data"].Size() == 1);
    const auto& s = list["data"][0];
    CHECK(s["isActive"].IsTrue());
    CHECK(Str(s, "lastDeliveryStatus") == "succeeded");
    CHECK(s["lastDeliveryStatusCode"].GetInt() == 200);
    CHECK_FALSE(Str(s, "lastDeliveryAt").empty());
    CHECK(Str(s["metadata"], "team") == "e2e");
  }

  // (b) The receiver is down for a while (503), then back.
  w->receiver->AnswerWith(503);
  const std::size_t before = w->receiver->Requests().size();
  PostOk(cli, *w, base + "/state", "{\"status\":\"open\"}", 200);
  PostOk(cli, *w, base + "/messages", "{\"text\":\"Back soon.\",\"memberId\":\"" + w->memberId + "\"}", 201);
  std::set<std::string> retried;
  // Two 503s each, well before the seventh failure would disable the
  // subscription (five more waits of about 200 ms).
  bool failedTwice = w->receiver->WaitFor(
      [&](const auto& reqs) {
        retried = NewEventIds(reqs, before);
        return retried.size() == 2 && AllAnswered(reqs, retried, 503, 2);
      },
      5s);
  REQUIRE(failedTwice);
  w->receiver->AnswerWith(200);
  REQUIRE(w->receiver->WaitFor([&](const auto& reqs) { return AllAnswered(reqs, retried, 200); }, 5s));

  const auto after = ByEvent(w->receiver->Requests());
  for (const auto& eventId : retried) {
    CAPTURE(eventId);
    const auto& reqs = after.at(eventId);
    REQUIRE(reqs.size() >= 3);
    CHECK(reqs.back().answeredWith == 200);
    CHECK(CountAnswered(reqs, 200) == 1);
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      CheckDelivery(reqs[i], sub, w->storeId);
      CHECK(reqs[i].Header("X-Webhook-Delivery-Id") == reqs[0].Header("X-Webhook-Delivery-Id"));
      CHECK(reqs[i].body == reqs[0].body);
      if (i > 0) CHECK(reqs[i].at - reqs[i - 1].at >= 150ms);  // the 200 ms schedule, less jitter
    }
  }

  // The receiver sees the 200 before the dispatcher records the attempt:
  // wait for the record of each success.
  REQUIRE(WaitForAttempts(
      cli, *w, sub.id,
      [&](const rapidjson::Value& data) {
        std::size_t done = 0;
        for (const auto& a : data.GetArray())
          if (retried.count(Str(a, "eventId")) && Str(a, "outcome") == "succeeded") ++done;
        return done == retried.size();
      },
      5s));
  auto attempts = GetJson(cli, *w, "/chat/webhooks/" + sub.id + "/attempts");
  REQUIRE(attempts["data"].IsArray());
  for (const auto& eventId : retried) {
    CAPTURE(eventId);
    int retrying = 0, succeeded = 0;
    for (const auto& a : attempts["data"].GetArray()) {
      if (Str(a, "eventId") != eventId) continue;
      const std::string outcome = Str(a, "outcome");
      if (outcome == "retrying") {
        ++retrying;
        CHECK(a["statusCode"].GetInt() == 503);
        CHECK_FALSE(Str(a, "error").empty());
      } else if (outcome == "succeeded") {
        ++succeeded;
        CHECK(a["statusCode"].GetInt() == 200);
      }
      CHECK(a["durationMs"].GetInt64() >= 0);
    }
    CHECK(retrying >= 2);
    CHECK(succeeded == 1);
  }
  {
    auto list = GetJson(cli, *w, "/chat/webhooks");
    const auto& s = list["data"][0];
    CHECK(s["isActive"].IsTrue());
    CHECK(Str(s, "lastDeliveryStatus") == "succeeded");
    CHECK(s["lastDeliveryStatusCode"].GetInt() == 200);
  }

  auto started = std::chrono::steady_clock::now();
  StopDaemon(daemon);
  CHECK(std::chrono::steady_clock::now() - started < 5s);
}

TEST_CASE("webhooks: kill -9 with deliveries pending; the restarted livechatd still delivers them") {
  auto w = MakeWorld();
  w->receiver->AnswerWith(503);
  // One-second waits: the kill lands between attempts, never inside one, so
  // no delivery is left leased to the dead process.
  const std::vector<std::string> flags = DaemonFlags(*w, "1s,1s,1s,1s,1s,1s");
  Daemon first = StartDaemon(w->dir, w->db, flags);
  Subscription sub;
  std::set<std::string> pending;
  {
    httplib::Client cli = e2e::MakeClient(first.port);
    sub = Subscribe(cli, *w);
    Ctl(w->db, {"conversation", "start", "--store", w->storeId, "--customer-email", "kim@example.com", "--text",
                "Hello?"});
    // Each of the three events failed once and that failure is recorded
    // (the delivery is back to pending, unleased).
    bool recorded = WaitForAttempts(
        cli, *w, sub.id, [](const rapidjson::Value& a) { return a.Size() >= 3; }, 5s);
    INFO("livechatd stderr: " << Slurp(first.stderrPath));
    REQUIRE(recorded);
  }
  first.process->Signal(SIGKILL);
  auto code = first.process->WaitExit(5s);
  REQUIRE(code.has_value());
  CHECK(*code == 128 + SIGKILL);
  pending = NewEventIds(w->receiver->Requests(), 0);
  REQUIRE(pending.size() == 3);

  // Written while no livechatd runs: acknowledged means queued.
  Ctl(w->db, {"conversation", "start", "--store", w->storeId, "--customer-email", "lee@example.com", "--text",
              "Anyone there?"});

  w->receiver->AnswerWith(200);
  Daemon second = StartDaemon(w->dir, w->db, flags);
  std::set<std::string> delivered;
  bool arrived = w->receiver->WaitFor(
      [&](const auto& reqs) {
        delivered.clear();
        for (const auto& r : reqs)
          if (r.answeredWith == 200) delivered.insert(EventIdOf(r));
        return delivered.size() >= 6;
      },
      10s);
  INFO("livechatd stderr: " << Slurp(second.stderrPath));
  REQUIRE(arrived);
  for (const auto& id : pending) CHECK(delivered.count(id) == 1);

  const auto byEvent = ByEvent(w->receiver->Requests());
  for (const auto& id : pending) {
    CAPTURE(id);
    const auto& reqs = byEvent.at(id);
    REQUIRE(reqs.size() >= 2);
    CHECK(reqs.front().answeredWith == 503);
    CHECK(reqs.back().answeredWith == 200);
    CHECK(reqs.back().Header("X-Webhook-Delivery-Id") == reqs.front().Header("X-Webhook-Delivery-Id"));
    CHECK(reqs.back().body == reqs.front().body);
    CheckDelivery(reqs.back(), sub, w->storeId);
  }
  StopDaemon(second);
}

TEST_CASE("webhooks: private targets refused without the flag; an untrusted certificate is never sent to") {
  auto w = MakeWorld();
  {
    Daemon daemon = StartDaemon(w->dir, w->db);
    CHECK(Slurp(daemon.stderrPath).find("WARNING") == std::string::npos);
    httplib::Client cli = e2e::MakeClient(daemon.port);
    const std::string port = std::to_string(w->receiver->port());
    for (const std::string& url : {"https://localhost:" + port + "/hook", "https://127.0.0.1:" + port + "/hook",
                                  "https://[::1]:" + port + "/hook", std::string("http://example.com/hook")}) {
      CAPTURE(url);
      auto res = cli.Post("/chat/webhooks", {{"X-Api-Key", w->apiKey}},
                          "{\"url\":\"" + url + "\",\"events\":[\"message.created\"]}", "application/json");
      REQUIRE(res);
      CHECK(res->status == 400);
      CHECK(ErrorCodeOf(res->body) == "INVALID_PARAMS");
    }
    CHECK(GetJson(cli, *w, "/chat/webhooks")["data"].Size() == 0);
    StopDaemon(daemon);
  }
  {
    // Private targets allowed, but the test's CA not trusted: the TLS
    // handshake fails, so the receiver never sees a request.
    Daemon daemon = StartDaemon(w->dir, w->db, {"--webhook-allow-private-targets"});
    httplib::Client cli = e2e::MakeClient(daemon.port);
    const Subscription sub = Subscribe(cli, *w);
    Ctl(w->db, {"conversation", "start", "--store", w->storeId, "--customer-email", "sam@example.com", "--text", "Hi"});
    std::string error;
    bool attempted = WaitForAttempts(
        cli, *w, sub.id,
        [&](const rapidjson::Value& a) {
          if (a.Size() == 0) return false;
          CHECK(a[0]["statusCode"].IsNull());
          error = Str(a[0], "error");
          return true;
        },
        5s);
    REQUIRE(attempted);
    CHECK(error.find("certificate") != std::string::npos);
    CHECK(error.find("not trusted") != std::string::npos);
    CHECK(w->receiver->Requests().empty());
    StopDaemon(daemon);
  }

  // Bad webhook flags stop livechatd before it listens.
  const std::string d = e2e::HostBinary("livechatd");
  auto bad = e2e::Run({d, "--db", w->db, "--webhook-retry-delays", "1s,2s"});
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("exactly 6") != std::string::npos);
  CHECK(e2e::Run({d, "--db", w->db, "--webhook-retry-delays", "1s,2s,3,4s,5s,6s"}).exitCode == 2);
  CHECK(e2e::Run({d, "--db", w->db, "--webhook-timeout", "10"}).exitCode == 2);
  CHECK(e2e::Run({d, "--db", w->db, "--webhook-threads", "0"}).exitCode == 2);
  auto noCa = e2e::Run({d, "--db", w->db, "--webhook-ca-file", w->dir.File("missing.pem")});
  CHECK(noCa.exitCode == 1);
  CHECK(noCa.err.find("cannot read") != std::string::npos);
}

#ifdef LIVECHAT_NODE
namespace {

// One delivery as the reference library's check receives it.
struct StandardCase {
  std::string secret;
  const ReceivedRequest* delivery;
  std::string body;  // what the receiver got, or a tampered copy
};

// Runs tests/node/webhooks/verify.mjs (npm standardwebhooks, unmodified)
// over the cases; its lines, one per case.
std::vector<std::string> VerifyWithReferenceLibrary(const TempDir& dir, const std::vector<StandardCase>& cases) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> out(buf);
  out.StartObject();
  out.Key("cases");
  out.StartArray();
  for (const auto& c : cases) {
    out.StartObject();
    out.Key("secret");
    out.String(c.secret.c_str());
    out.Key("body");
    out.String(c.body.data(), static_cast<rapidjson::SizeType>(c.body.size()));
    out.Key("headers");
    out.StartObject();
    for (const char* name : {"webhook-id", "webhook-timestamp", "webhook-signature"}) {
      out.Key(name);
      out.String(c.delivery->Header(name).c_str());
    }
    out.EndObject();
    out.EndObject();
  }
  out.EndArray();
  out.EndObject();
  const std::string file = dir.File("standard-cases.json");
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    REQUIRE(f);
    std::fputs(buf.GetString(), f);
    std::fclose(f);
  }
  const std::string script = std::string(LIVECHAT_SOURCE_DIR) + "/tests/node/webhooks/verify.mjs";
  e2e::RunResult r = e2e::Run({LIVECHAT_NODE, script, file});
  INFO("node stderr: " << r.err);
  REQUIRE(r.exitCode == 0);
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < r.out.size()) {
    std::size_t nl = r.out.find('\n', start);
    if (nl == std::string::npos) nl = r.out.size();
    lines.push_back(r.out.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

}  // namespace
#endif

TEST_CASE("webhooks: Standard Webhooks deliveries verify with the reference library, across two rotations") {
#ifndef LIVECHAT_NODE
  FAIL("node is needed: scripts/deps.sh installs it (Debian: apt-get install nodejs npm)");
#else
  auto w = MakeWorld();
  Daemon daemon = StartDaemon(w->dir, w->db, DaemonFlags(*w, kFastRetries));
  httplib::Client cli = e2e::MakeClient(daemon.port);
  auto created = cli.Post("/chat/webhooks", {{"X-Api-Key", w->apiKey}},
                          "{\"url\":\"" + w->hookUrl + "\",\"events\":[\"message.created\"],"
                          "\"signatureFormat\":\"standard\"}",
                          "application/json");
  REQUIRE(created);
  REQUIRE(created->status == 201);
  const std::string subId = Str(ParseJson(created->body)["data"], "id");
  const std::string first = Str(ParseJson(created->body)["data"], "secret");

  auto conv = Ctl(w->db, {"conversation", "start", "--store", w->storeId, "--customer-name", "Casey", "--text",
                          "Is it in stock?"});
  const std::string messages = "/chat/conversations/" + Str(conv, "id") + "/messages";
  auto waitFor = [&](std::size_t n) {
    REQUIRE(w->receiver->WaitFor([&](const auto& reqs) { return reqs.size() >= n; }, 10s));
  };
  waitFor(1);

  // Rotate with an hour's grace: the next delivery carries both signatures.
  auto rotate = [&](const std::string& body) {
    auto res = cli.Post("/chat/webhooks/" + subId + "/rotate-secret", {{"X-Api-Key", w->apiKey}}, body,
                        "application/json");
    REQUIRE(res);
    REQUIRE(res->status == 200);
    return Str(ParseJson(res->body)["data"], "secret");
  };
  const std::string second = rotate("{\"gracePeriodSeconds\":3600}");
  PostOk(cli, *w, messages, "{\"text\":\"Yes, two left.\",\"memberId\":\"" + w->memberId + "\"}", 201);
  waitFor(2);
  // Rotate again, no grace: only the newest secret signs.
  const std::string third = rotate("{\"gracePeriodSeconds\":0}");
  PostOk(cli, *w, messages, "{\"text\":\"Shall I hold one?\",\"memberId\":\"" + w->memberId + "\"}", 201);
  waitFor(3);
  const auto got = w->receiver->Requests();
  REQUIRE(got.size() == 3);
  for (const auto& r : got) CHECK(r.Header("X-Webhook-Signature").empty());

  const std::vector<StandardCase> cases = {
      {first, &got[0], got[0].body},                     // 0: before any rotation
      {second, &got[0], got[0].body},                    // 1: a secret made later
      {second, &got[1], got[1].body},                    // 2: grace period, the new secret
      {first, &got[1], got[1].body},                     // 3: grace period, the old secret
      {third, &got[2], got[2].body},                     // 4: after a rotation without grace
      {second, &got[2], got[2].body},                    // 5: ... the secret it replaced
      {first, &got[0], got[0].body + " "},               // 6: a changed body
  };
  const std::vector<std::string> expected = {
      "0 verified", "1 refused: No matching signature found", "2 verified", "3 verified",
      "4 verified", "5 refused: No matching signature found", "6 refused: No matching signature found"};
  CHECK(VerifyWithReferenceLibrary(w->dir, cases) == expected);
#endif
}
