// kill -9 under concurrent message sends: livechatd commits concurrent sends
// together (group commit, lib/storage/common/write_batcher.h) and answers
// each only after the commit that holds it. So whatever the moment of a
// SIGKILL, every send answered 201 is in the database afterwards, and the
// only messages without an answer are the ones in flight at the kill (at
// most one per sender). Checked with 16 and with 64 senders, on a SQLite
// file here and on PostgreSQL in ctest's e2e_pg.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <rapidjson/document.h>

#include "e2e/child_process.h"
#include "e2e/e2e_helpers.h"

using namespace std::chrono_literals;
using e2e::Ctl;
using e2e::Daemon;
using e2e::ParseJson;
using e2e::Slurp;
using e2e::StartDaemon;
using e2e::TempDir;
using e2e::Str;

namespace {

// Limits out of the way: 64 senders from one address, as fast as they can.
const std::vector<std::string> kFlags = {"--rate-limit-key", "1000000000", "--rate-limit-ip",
                                         "1000000000",       "--access-log", "off",
                                         "--threads",        "80",           "--max-connections-per-address",
                                         "0"};

// Every message id of a conversation, paging through the REST API.
std::set<std::string> MessageIds(int port, const std::string& key, const std::string& conv) {
  httplib::Client cli = e2e::MakeClient(port);
  std::set<std::string> ids;
  std::string cursor;
  for (int page = 0; page < 10000; ++page) {
    std::string path = "/chat/conversations/" + conv + "/messages?limit=50";
    if (!cursor.empty()) path += "&cursor=" + cursor;
    auto res = cli.Get(path, {{"X-Api-Key", key}});
    REQUIRE(res);
    REQUIRE(res->status == 200);
    auto doc = ParseJson(res->body);
    for (const auto& m : doc["data"].GetArray()) ids.insert(Str(m, "id"));
    if (!doc["paging"]["hasMore"].GetBool()) return ids;
    cursor = Str(doc["paging"], "nextCursor");
  }
  FAIL("more than 10,000 pages");
  return ids;
}

struct Round {
  std::map<std::string, std::set<std::string>> acked;  // conversation -> ids answered 201
  int attempted = 0;                                   // requests sent, answered or not
  double writes = 0, transactions = 0;                 // the store's counters before the kill
  std::vector<std::string> oddities;                   // answers other than a 201 with a message
};

// `senders` threads post to their own conversation until livechatd is
// killed, which happens once `before` sends have been answered.
Round SendThenKill(Daemon& d, const std::string& key, const std::string& member, const std::vector<std::string>& convs,
                   int before) {
  const int adminPort = e2e::AnnouncedPort(d, "admin listener on ");
  Round round;
  std::mutex mu;
  std::atomic<int> answered{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < convs.size(); ++t)
    threads.emplace_back([&, t] {
      httplib::Client cli = e2e::MakeClient(d.port);
      const std::string path = "/chat/conversations/" + convs[t] + "/messages";
      for (int i = 0; !stop; ++i) {
        {
          std::lock_guard lock(mu);
          ++round.attempted;
        }
        const std::string body =
            R"({"text":"sender )" + std::to_string(t) + " #" + std::to_string(i) + R"(","memberId":")" + member + R"("})";
        auto res = cli.Post(path, {{"X-Api-Key", key}}, body, "application/json");
        if (!res) return;  // the kill
        // No doctest assertion on this thread: a failed REQUIRE would throw
        // out of it. Oddities are collected and checked after the join.
        rapidjson::Document doc;
        doc.Parse(res->body.c_str());
        const bool good = res->status == 201 && !doc.HasParseError() && doc.IsObject() && doc.HasMember("data") &&
                          doc["data"].IsObject() && doc["data"].HasMember("id") && doc["data"]["id"].IsString();
        std::lock_guard lock(mu);
        if (!good) {
          round.oddities.push_back(std::to_string(res->status) + " " + res->body);
          return;
        }
        round.acked[convs[t]].insert(doc["data"]["id"].GetString());
        ++answered;
      }
    });
  const auto until = std::chrono::steady_clock::now() + 60s;
  while (answered < before && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
  round.writes = e2e::Metric(adminPort, "livechat_store_writes_total");
  round.transactions = e2e::Metric(adminPort, "livechat_store_write_transactions_total");
  d.process->Signal(SIGKILL);
  auto code = d.process->WaitExit(10s);
  stop = true;
  for (auto& th : threads) th.join();
  REQUIRE(code.has_value());
  CHECK(*code == 128 + SIGKILL);
  for (const auto& odd : round.oddities) FAIL_CHECK("a send answered " << odd);
  REQUIRE(answered >= before);
  return round;
}

}  // namespace

TEST_CASE("kill -9 under 16 and 64 concurrent senders loses no acknowledged message") {
  TempDir dir;
  const std::string db = dir.File("durable.db");
  auto shop = Ctl(db, {"store", "create", "--name", "Durable", "--plan", "pro"});
  const std::string storeId = Str(shop, "id");
  const std::string key = Str(Ctl(db, {"key", "create", "--store", storeId, "--name", "k", "--permissions",
                                       "read_conversations,manage_conversations"}),
                              "key");
  const std::string member = Str(Ctl(db, {"member", "create", "--store", storeId, "--email", "ada@example.com",
                                          "--first-name", "Ada", "--last-name", "Agent", "--role", "member"}),
                                 "id");

  for (int senders : {16, 64}) {
    CAPTURE(senders);
    std::vector<std::string> convs;
    for (int i = 0; i < senders; ++i)
      convs.push_back(Str(Ctl(db, {"conversation", "start", "--store", storeId, "--customer-email",
                                   "c" + std::to_string(senders) + "-" + std::to_string(i) + "@example.com", "--text",
                                   "hello"}),
                          "id"));
    std::map<std::string, std::set<std::string>> before;
    Daemon first = StartDaemon(dir, db, kFlags);
    for (const auto& c : convs) before[c] = MessageIds(first.port, key, c);
    Round round = SendThenKill(first, key, member, convs, 40 * senders);
    INFO("livechatd stderr: " << Slurp(first.stderrPath));

    // Concurrent sends shared transactions.
    MESSAGE(senders << " senders: " << round.writes << " writes in " << round.transactions
                    << " transactions before the kill");
    CHECK(round.transactions < round.writes);

    Daemon second = StartDaemon(dir, db, kFlags);
    int acked = 0, unanswered = 0;
    for (const auto& c : convs) {
      std::set<std::string> now = MessageIds(second.port, key, c);
      for (const auto& id : before[c]) CHECK(now.count(id) == 1);
      for (const auto& id : round.acked[c]) {
        CAPTURE(id);
        CHECK(now.count(id) == 1);
      }
      CHECK(now.size() >= before[c].size() + round.acked[c].size());
      // What was stored beyond the answered sends: at most the one request
      // this conversation's sender had in flight at the kill.
      const int extra = static_cast<int>(now.size() - before[c].size() - round.acked[c].size());
      CHECK(extra <= 1);
      acked += static_cast<int>(round.acked[c].size());
      unanswered += extra;
    }
    MESSAGE(senders << " senders: " << acked << " sends answered 201 before the kill, all present; " << unanswered
                    << " stored whose answer the kill cut off");
    CHECK(acked >= 40 * senders);
    e2e::StopDaemon(second);
  }
}
