// Several livechatd instances on one PostgreSQL database behave as one
// (issue 16): three processes, requests spread round-robin over them. Runs
// in the e2e_pg entry of ctest (LIVECHAT_TEST_BACKEND=postgres); on SQLite
// there is nothing shared to check.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <mutex>
#include <cstdio>
#include <future>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>
#include <httplib.h>
#include <rapidjson/document.h>

#include "e2e/e2e_helpers.h"
#include "e2e/https_receiver.h"
#include "e2e/tls_material.h"
#include "livechat/webhooks.h"
#include "support/test_store.h"

namespace {

using namespace std::chrono_literals;
using e2e::Ctl;
using e2e::Daemon;
using e2e::ParseJson;
using e2e::StartDaemon;
using e2e::StopDaemon;
using e2e::Str;
using e2e::TempDir;

struct Cluster {
  TempDir dir;
  std::string db;  // the path DatabaseFor maps to one PostgreSQL database
  std::string storeId, appId, apiKey, memberId;
  std::vector<Daemon> daemons;

  Cluster() {
    db = dir.File("cluster.db");
    auto shop = Ctl(db, {"store", "create", "--name", "Cluster Shop", "--plan", "pro"});
    storeId = Str(shop, "id");
    appId = Str(shop, "appId");
    apiKey = Str(Ctl(db, {"key", "create", "--store", storeId, "--name", "cluster", "--permissions",
                          "read_conversations,manage_conversations,read_customers"}),
                 "key");
    memberId = Str(Ctl(db, {"member", "create", "--store", storeId, "--email", "agent@cluster.test", "--first-name",
                            "Ada", "--role", "member"}),
                   "id");
  }
  // A reply by the agent, as a JSON body.
  std::string Reply(const std::string& text) const {
    return "{\"text\":\"" + text + "\",\"memberId\":\"" + memberId + "\"}";
  }
  void Start(int n, const std::vector<std::string>& flags) {
    for (int i = 0; i < n; ++i) daemons.push_back(StartDaemon(dir, db, flags));
  }
  void StopAll() {
    for (auto& d : daemons)
      if (d.process) StopDaemon(d);
    daemons.clear();
  }
  // Three instances with the rate limits out of the way, and a conversation
  // started by `customer`: the path of its messages.
  std::string StartThreeWithConversation(const std::string& customer) {
    Start(3, {"--rate-limit-key", "100000", "--rate-limit-ip", "100000"});
    const std::string id =
        Str(Ctl(db, {"conversation", "start", "--store", storeId, "--customer-name", customer, "--text", "first"}), "id");
    return "/chat/conversations/" + id + "/messages";
  }
  httplib::Client Client(std::size_t i) { return e2e::MakeClient(daemons[i % daemons.size()].port); }
  httplib::Headers Auth() const { return {{"X-Api-Key", apiKey}}; }
};

bool OnPostgres() {
  if (livechat::testing::TestOnPostgres()) return true;
  MESSAGE("runs on PostgreSQL only: the e2e_pg entry of ctest (scripts/test.sh) runs it");
  return false;
}

TEST_CASE("multi-instance: the per-key window, a GraphQL bucket and MCP sessions are shared by three instances") {
  if (!OnPostgres()) return;
  Cluster c;
  c.Start(3, {"--rate-limit-key", "10", "--graphql-bucket", "20", "--graphql-refill", "1"});

  // The key's window: 10 requests a minute, counted once whichever instance
  // serves each. Remaining falls 9..0 across the instances; the 11th is
  // refused wherever it lands.
  for (int i = 0; i < 11; ++i) {
    httplib::Client cli = c.Client(static_cast<std::size_t>(i));
    auto res = cli.Get("/chat/conversations?limit=1", c.Auth());
    REQUIRE(res);
    INFO("request " << i + 1 << " on instance " << i % 3);
    if (i < 10) {
      CHECK(res->status == 200);
      CHECK(res->get_header_value("X-RateLimit-Remaining") == std::to_string(9 - i));
    } else {
      CHECK(res->status == 429);
      CHECK(res->get_header_value("X-RateLimit-Remaining") == "0");
      CHECK_FALSE(res->get_header_value("Retry-After").empty());
    }
  }

  // GraphQL: one bucket of 20 points per key across the instances.
  const std::string query = R"({"query":"{ customers(first: 2) { nodes { id email } } }"})";
  httplib::Headers gql{{"X-Api-Id", c.appId}, {"X-Api-Secret", c.apiKey}};
  double cost = 0;
  std::vector<double> available;
  bool refused = false;
  for (int i = 0; i < 8 && !refused; ++i) {
    httplib::Client cli = c.Client(static_cast<std::size_t>(i));
    auto res = cli.Post("/graphql", gql, query, "application/json");
    REQUIRE(res);
    REQUIRE_MESSAGE(res->status == 200, res->body);
    auto doc = ParseJson(res->body);
    REQUIRE(doc.HasMember("extensions"));
    const auto& ext = doc["extensions"]["cost"];
    cost = ext["requestedQueryCost"].GetDouble();
    if (doc.HasMember("errors")) {
      CHECK(std::string(doc["errors"][0]["extensions"]["code"].GetString()) == "THROTTLED");
      refused = true;
    } else {
      available.push_back(ext["throttleStatus"]["currentlyAvailable"].GetDouble());
    }
  }
  REQUIRE(cost > 0);
  REQUIRE(refused);
  // Each allowed query took `cost` from the same bucket, whichever instance
  // ran it (a refill of 1 point a second adds at most a point or two).
  const auto allowed = static_cast<int>(available.size());
  CHECK(allowed == static_cast<int>(20 / cost));
  for (int i = 0; i < allowed; ++i) {
    CHECK(available[static_cast<std::size_t>(i)] >= 20 - cost * (i + 1));
    CHECK(available[static_cast<std::size_t>(i)] <= 20 - cost * (i + 1) + 2);
  }

  // MCP: initialize on one instance, use the session on another, end it on
  // the third; then it is unknown everywhere.
  httplib::Headers mcp{{"X-App-Id", c.appId}, {"Authorization", "Bearer " + c.apiKey},
                       {"Accept", "application/json, text/event-stream"}};
  std::string sessionId;
  {
    httplib::Client a = c.Client(0);
    auto init = a.Post("/mcp", mcp,
                       R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
                       R"("capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}})",
                       "application/json");
    REQUIRE(init);
    REQUIRE_MESSAGE(init->status == 200, init->body);
    sessionId = init->get_header_value("Mcp-Session-Id");
    REQUIRE(sessionId.size() == 32);
  }
  httplib::Headers withSession = mcp;
  withSession.emplace("Mcp-Session-Id", sessionId);
  withSession.emplace("MCP-Protocol-Version", "2025-06-18");
  {
    httplib::Client b = c.Client(1);
    auto list = b.Post("/mcp", withSession, R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", "application/json");
    REQUIRE(list);
    CHECK_MESSAGE(list->status == 200, list->body);
    CHECK(ParseJson(list->body)["result"]["tools"].Size() > 0);
  }
  {
    httplib::Client third = c.Client(2);
    auto ended = third.Delete("/mcp", withSession);
    REQUIRE(ended);
    CHECK(ended->status == 204);
  }
  {
    httplib::Client a = c.Client(0);
    auto gone = a.Post("/mcp", withSession, R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})", "application/json");
    REQUIRE(gone);
    CHECK(gone->status == 404);
  }
  c.StopAll();
}

TEST_CASE("multi-instance: a widget waiting on one instance wakes within 200 ms of a reply sent to another") {
  if (!OnPostgres()) return;
  Cluster c;
  c.Start(2, {});
  httplib::Client a = c.Client(0);
  httplib::Client b = c.Client(1);
  auto started = a.Post("/storefront/sessions", {{"X-App-Id", c.appId}}, "", "application/json");
  REQUIRE(started);
  REQUIRE_MESSAGE(started->status == 201, started->body);
  httplib::Headers visitor{{"X-App-Id", c.appId},
                           {"X-Session-Token", Str(ParseJson(started->body)["data"], "token")}};
  auto sent = a.Post("/storefront/commands", visitor, R"({"command":"message:send","args":["Is this in stock?"]})",
                     "application/json");
  REQUIRE(sent);
  REQUIRE_MESSAGE(sent->status == 200, sent->body);
  auto first = a.Get("/storefront/updates?after=0", visitor);
  REQUIRE(first);
  REQUIRE(first->status == 200);
  auto firstDoc = ParseJson(first->body);
  REQUIRE(firstDoc["data"]["conversation"].IsObject());
  const std::string conversationId = Str(firstDoc["data"]["conversation"], "id");
  std::string cursor = std::to_string(firstDoc["data"]["cursor"].GetInt64());
  std::string view = Str(firstDoc["data"], "view");

  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    // The widget waits on A; the agent answers on B.
    auto waiting = std::async(std::launch::async, [&] {
      httplib::Client w = c.Client(0);
      w.set_read_timeout(30);
      auto res = w.Get("/storefront/updates?after=" + cursor + "&wait=20&view=" + view, visitor);
      return std::make_pair(std::chrono::steady_clock::now(), res ? res->body : std::string());
    });
    std::this_thread::sleep_for(300ms);  // the poll is waiting
    const std::string text = "Yes, reply " + std::to_string(round);
    auto reply = b.Post("/chat/conversations/" + conversationId + "/messages", c.Auth(),
                        c.Reply(text), "application/json");
    const auto replied = std::chrono::steady_clock::now();
    REQUIRE(reply);
    REQUIRE_MESSAGE(reply->status == 201, reply->body);
    auto [answeredAt, body] = waiting.get();
    const auto late = std::chrono::duration_cast<std::chrono::milliseconds>(answeredAt - replied).count();
    std::printf("multi-instance: widget on instance A answered %lld ms after the reply on instance B returned\n",
                static_cast<long long>(late));
    CHECK(late < 200);
    auto doc = ParseJson(body);
    bool found = false;
    for (const auto& m : doc["data"]["messages"].GetArray())
      found = found || std::string(m["message"]["text"].GetString()) == text;
    CHECK(found);
    cursor = std::to_string(doc["data"]["cursor"].GetInt64());
    view = Str(doc["data"], "view");
  }
  c.StopAll();
}

}  // namespace

namespace {

struct Hook {
  std::unique_ptr<e2e::HttpsReceiver> receiver;
  std::string id, secret;
};

TEST_CASE("multi-instance: 2,000 messages across three instances, one killed and restarted; every event delivered") {
  if (!OnPostgres()) return;
  Cluster c;
  const e2e::TlsMaterial tls = e2e::MakeTlsMaterial(c.dir.path().string());
  e2e::Loopback lo = e2e::FirstLocalhostAddress();
  std::vector<Hook> hooks(4);
  for (auto& h : hooks) {
    h.receiver = std::make_unique<e2e::HttpsReceiver>(tls, lo.bindAddress);
    if (!h.receiver->started()) {
      lo = {"127.0.0.1", "127.0.0.1"};
      h.receiver = std::make_unique<e2e::HttpsReceiver>(tls, lo.bindAddress);
    }
    REQUIRE(h.receiver->started());
  }
  // A short send timeout keeps the lease of a killed instance's claims short
  // (3x the timeout), so the takeover happens within the test.
  const std::vector<std::string> flags = {"--webhook-allow-private-targets", "--webhook-ca-file", tls.caCertPath,
                                          "--webhook-retry-delays", "200ms,200ms,200ms,200ms,200ms,200ms",
                                          "--webhook-timeout", "1s", "--rate-limit-key", "100000",
                                          "--rate-limit-ip", "100000"};
  c.Start(3, flags);
  {
    httplib::Client cli = c.Client(0);
    for (std::size_t i = 0; i < hooks.size(); ++i) {
      const std::string url = "https://" + lo.urlHost + ":" + std::to_string(hooks[i].receiver->port()) + "/hook";
      auto res = cli.Post("/chat/webhooks", c.Auth(), "{\"url\":\"" + url + "\",\"events\":[\"message.created\"]}",
                          "application/json");
      REQUIRE(res);
      REQUIRE_MESSAGE(res->status == 201, res->body);
      auto doc = ParseJson(res->body);
      hooks[i].id = Str(doc["data"], "id");
      hooks[i].secret = Str(doc["data"], "secret");
    }
  }
  const std::string conversationId =
      Str(Ctl(c.db, {"conversation", "start", "--store", c.storeId, "--channel", "online_store", "--customer-name",
                     "Load", "--text", "first"}),
          "id");

  // Four senders post 500 messages each, round-robin over the instances.
  // Halfway, instance 2 is killed with SIGKILL and started again; a post
  // that fails on the way (connection reset or refused) goes to the next
  // instance, so it may have been stored twice: the stored messages, not
  // the posts, are what every receiver must see.
  constexpr int kSenders = 4, kEach = 500;
  std::atomic<int> posted{0}, retried{0};
  std::mutex portsMu;
  std::vector<int> ports;
  for (auto& d : c.daemons) ports.push_back(d.port);
  auto portOf = [&](std::size_t i) {
    std::lock_guard lock(portsMu);
    return ports[i % ports.size()];
  };
  std::vector<std::thread> senders;
  for (int s = 0; s < kSenders; ++s) {
    senders.emplace_back([&, s] {
      for (int i = 0; i < kEach; ++i) {
        const std::string body = c.Reply("m-" + std::to_string(s) + "-" + std::to_string(i));
        for (std::size_t attempt = 0;; ++attempt) {
          httplib::Client cli = e2e::MakeClient(portOf(static_cast<std::size_t>(s + i) + attempt));
          auto res = cli.Post("/chat/conversations/" + conversationId + "/messages", c.Auth(), body,
                              "application/json");
          if (res && res->status == 201) break;
          ++retried;
          if (attempt > 50) return;  // gives up; the count below then fails
          std::this_thread::sleep_for(20ms);
        }
        ++posted;
      }
    });
  }
  const auto halfwayBy = std::chrono::steady_clock::now() + 120s;
  while (posted.load() < kSenders * kEach / 2 && std::chrono::steady_clock::now() < halfwayBy)
    std::this_thread::sleep_for(10ms);
  c.daemons[2].process->Signal(SIGKILL);
  (void)c.daemons[2].process->WaitExit(10s);
  c.daemons[2] = StartDaemon(c.dir, c.db, flags);
  {
    std::lock_guard lock(portsMu);
    ports[2] = c.daemons[2].port;
  }
  for (auto& t : senders) t.join();
  REQUIRE(posted.load() == kSenders * kEach);

  // The stored messages (the first one came with the conversation).
  std::set<std::string> stored;
  {
    httplib::Client cli = c.Client(0);
    std::string cursor;
    for (;;) {
      auto res = cli.Get("/chat/conversations/" + conversationId + "/messages?limit=100" +
                             (cursor.empty() ? "" : "&cursor=" + cursor),
                         c.Auth());
      REQUIRE(res);
      REQUIRE_MESSAGE(res->status == 200, res->body);
      auto doc = ParseJson(res->body);
      for (const auto& m : doc["data"].GetArray()) stored.insert(m["id"].GetString());
      if (!doc["paging"]["nextCursor"].IsString()) break;
      cursor = doc["paging"]["nextCursor"].GetString();
    }
  }
  CHECK(stored.size() >= static_cast<std::size_t>(kSenders * kEach + 1));
  CHECK(stored.size() <= static_cast<std::size_t>(kSenders * kEach + 1 + retried.load()));

  // Every stored message's event reaches every receiver, signed with that
  // subscription's secret; a second delivery of one event is only an
  // attempt that was in flight at the kill.
  const auto deadline = 120s;
  int duplicates = 0;
  for (auto& h : hooks) {
    const bool all = h.receiver->WaitFor(
        [&](const std::vector<e2e::ReceivedRequest>& reqs) {
          std::set<std::string> seen;
          for (const auto& r : reqs) seen.insert(r.Header("X-Webhook-Event-Id"));
          return seen.size() >= stored.size();
        },
        deadline);
    CHECK(all);
    std::map<std::string, int> perEvent;
    std::set<std::string> messages;
    const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
    int badSignatures = 0;
    for (const auto& r : h.receiver->Requests()) {
      if (!livechat::VerifyWebhookSignature(h.secret, r.Header("X-Webhook-Timestamp"), r.body,
                                            r.Header("X-Webhook-Signature"), now))
        ++badSignatures;
      ++perEvent[r.Header("X-Webhook-Event-Id")];
      messages.insert(ParseJson(r.body)["data"]["messageId"].GetString());
    }
    CHECK(badSignatures == 0);
    CHECK(messages == stored);
    int dup = 0;
    for (const auto& [id, n] : perEvent) dup += n - 1;
    duplicates += dup;
    // At most the one delivery per subscription in flight at the kill. Not
    // under sanitizers (LIVECHAT_TEST_SANITIZED, docs/testing.md): there a
    // delivery can outlast its lease, and the lease's expiry sending it again
    // is the guarantee working (at least once), not a fault.
    if (!std::getenv("LIVECHAT_TEST_SANITIZED")) CHECK(dup <= 1);
  }
  std::printf("multi-instance: %zu messages stored (%d posts retried after the kill), delivered to 4 receivers; "
              "%d deliveries repeated (in flight at the SIGKILL)\n",
              stored.size(), retried.load(), duplicates);
  c.StopAll();
}

}  // namespace

TEST_CASE("multi-instance: 50 concurrent POSTs with one Idempotency-Key across three instances make one message") {
  if (!OnPostgres()) return;
  Cluster c;
  const std::string path = c.StartThreeWithConversation("Race");

  constexpr int kPosts = 50;
  std::vector<int> statuses(kPosts, 0);
  std::vector<std::string> replayed(kPosts), retryAfter(kPosts), bodies(kPosts);
  std::atomic<int> ready{0};
  std::vector<std::thread> posts;
  for (int i = 0; i < kPosts; ++i) {
    posts.emplace_back([&, i] {
      httplib::Client cli = c.Client(static_cast<std::size_t>(i));  // round-robin over the three
      httplib::Headers headers = c.Auth();
      headers.emplace("Idempotency-Key", "race-across-instances");
      ready.fetch_add(1);
      while (ready.load() < kPosts) std::this_thread::yield();
      // A post that got no answer (a connection refused or reset under the
      // burst) is sent again with the same key: what the header is for.
      auto res = cli.Post(path, headers, c.Reply("exactly once"), "application/json");
      for (int attempt = 1; !res && attempt < 5; ++attempt) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50 * attempt));
        res = cli.Post(path, headers, c.Reply("exactly once"), "application/json");
      }
      if (!res) return;
      const auto n = static_cast<std::size_t>(i);
      statuses[n] = res->status;
      replayed[n] = res->get_header_value("Idempotent-Replayed");
      retryAfter[n] = res->get_header_value("Retry-After");
      bodies[n] = res->body;
    });
  }
  for (auto& t : posts) t.join();

  int first = 0, replays = 0, busy = 0;
  std::string firstBody;
  for (int i = 0; i < kPosts; ++i) {
    const auto n = static_cast<std::size_t>(i);
    CAPTURE(i);
    if (statuses[n] == 201 && replayed[n].empty()) {
      ++first;
      firstBody = bodies[n];
    } else if (statuses[n] == 201) {
      CHECK(replayed[n] == "true");
      ++replays;
    } else {
      CHECK(statuses[n] == 409);
      CHECK(retryAfter[n] == "1");
      ++busy;
    }
  }
  MESSAGE("first runs: " << first << ", replays: " << replays << ", 409 while running: " << busy);
  CHECK(first == 1);
  CHECK(first + replays + busy == kPosts);
  for (int i = 0; i < kPosts; ++i)
    if (replayed[static_cast<std::size_t>(i)] == "true") CHECK(bodies[static_cast<std::size_t>(i)] == firstBody);

  // One message with that text, whichever instance is asked.
  for (std::size_t i = 0; i < 3; ++i) {
    httplib::Client cli = c.Client(i);
    auto res = cli.Get(path + "?limit=100", c.Auth());
    REQUIRE(res);
    REQUIRE(res->status == 200);
    auto doc = ParseJson(res->body);
    int same = 0;
    for (const auto& m : doc["data"].GetArray())
      if (std::string(m["text"].GetString()) == "exactly once") ++same;
    CHECK(same == 1);
  }
  c.StopAll();
}

TEST_CASE("multi-instance: a reader following GET /chat/events on one instance while three write sees every event once") {
  if (!OnPostgres()) return;
  Cluster c;
  const std::string path = c.StartThreeWithConversation("Feed");

  // Three writers, one per instance, 60 replies each.
  constexpr int kWriters = 3, kEach = 60;
  std::atomic<int> done{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      httplib::Client cli = c.Client(static_cast<std::size_t>(w));
      for (int i = 0; i < kEach; ++i) {
        auto res = cli.Post(path, c.Auth(), c.Reply("w" + std::to_string(w) + "-" + std::to_string(i)),
                            "application/json");
        CHECK((res && res->status == 201));
      }
      done.fetch_add(1);
    });
  }
  // Reads the feed from `cursor` to its end, `limit` a page, asking a
  // different instance each page; appends the ids to `ids`.
  std::size_t page = 0;
  auto readToEnd = [&](int limit, std::string& cursor, std::vector<std::string>& ids) {
    for (;;) {
      httplib::Client cli = c.Client(page++);
      auto res = cli.Get("/chat/events?limit=" + std::to_string(limit) +
                             (cursor.empty() ? std::string() : "&after=" + cursor),
                         c.Auth());
      REQUIRE(res);
      REQUIRE(res->status == 200);
      auto doc = ParseJson(res->body);
      for (const auto& e : doc["data"].GetArray()) ids.push_back(e["id"].GetString());
      cursor = doc["paging"]["nextCursor"].GetString();
      if (!doc["paging"]["hasMore"].GetBool()) return;
    }
  };
  std::vector<std::string> seen;
  std::string cursor;
  while (done.load() < kWriters) readToEnd(25, cursor, seen);
  for (auto& t : writers) t.join();
  readToEnd(25, cursor, seen);

  // The whole feed, read again from the start in large pages, is the truth.
  std::vector<std::string> all;
  std::string from;
  readToEnd(500, from, all);
  CHECK(all.size() == static_cast<std::size_t>(3 + kWriters * kEach));  // the start's 3, then one per reply
  CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == seen.size());
  CHECK(seen == all);
  c.StopAll();
}
