// End to end: livechatctl and livechatd as real processes on one SQLite file,
// spoken to over real HTTP. What the in-process suites cannot see: the flag
// and environment handling, the cpp-httplib bridge, two processes sharing the
// database, signals and exit codes.
#include <cstdio>
#include <signal.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <httplib.h>
#include <rapidjson/document.h>

#include "e2e/child_process.h"
#include "e2e/e2e_helpers.h"
#include "support/test_store.h"

namespace {

using namespace std::chrono_literals;
using e2e::Ctl;
using e2e::Daemon;
using e2e::ErrorCodeOf;
using e2e::Keys;
using e2e::MakeClient;
using e2e::ParseJson;
using e2e::RunResult;
using e2e::Slurp;
using e2e::StartDaemon;
using e2e::StopDaemon;
using e2e::Str;
using e2e::TempDir;

// The list view of a conversation: the spec's 31 fields less the four
// "Detail only" ones, and the redaction label.
const std::set<std::string> kListConversationKeys = {
    "id",          "firestoreId",  "pgConvoId",        "shopId",         "sessionId",  "customerUuid",
    "customerName", "customerEmail", "customerType",    "status",         "isChatBot",  "hasChatBot",
    "isRead",      "isCustomerRead", "isOnline",        "isBlock",        "isStarred",  "hasFirstMsg",
    "hidePreChatMessage", "memberId", "channels",       "tags",           "messageCount", "lastMessage",
    "lastActive",  "createdAt",    "updatedAt",    "isRedacted"};

}  // namespace

TEST_CASE("livechatctl builds a store; livechatd serves it over HTTP; SIGTERM exits 0") {
  TempDir dir;
  const std::string db = dir.File("e2e.db");

  auto shop = Ctl(db, {"store", "create", "--name", "E2E Shop", "--plan", "pro"});
  const std::string storeId = Str(shop, "id");
  CHECK_FALSE(Str(shop, "appId").empty());

  auto key = Ctl(db, {"key", "create", "--store", storeId, "--name", "e2e",
                      "--permissions", "read_conversations,manage_conversations,read_customers"});
  const std::string apiKey = Str(key, "key");
  REQUIRE(apiKey.size() == 35);
  CHECK(apiKey.rfind("sk_", 0) == 0);

  {
    RunResult list = e2e::Run({e2e::HostBinary("livechatctl"), "--db", e2e::DatabaseFor(db), "key", "list", "--store", storeId});
    REQUIRE(list.exitCode == 0);
    auto keys = ParseJson(list.out);
    REQUIRE(keys.IsArray());
    CHECK(keys.Size() == 1);
    CHECK(list.out.find(apiKey) == std::string::npos);  // the secret is shown once only
  }

  auto member = Ctl(db, {"member", "create", "--store", storeId, "--email", "ada@example.com", "--first-name", "Ada",
                         "--last-name", "Agent", "--role", "admin"});
  const std::string memberId = Str(member, "id");

  auto conv = Ctl(db, {"conversation", "start", "--store", storeId, "--channel", "online_store", "--customer-name",
                       "Casey Customer", "--customer-email", "casey@example.com", "--text", "Where is my order?"});
  const std::string convId = Str(conv, "id");
  const std::string customerUuid = Str(conv, "customerUuid");

  Daemon daemon = StartDaemon(dir, db, {"--max-body", "4096"});
  // The allocator the build linked is the one malloc calls reach (a linker
  // that drops an unreferenced library would leave glibc's in place).
  CHECK(Slurp(daemon.stderrPath).find(std::string("livechatd: allocator ") + LIVECHAT_EXPECTED_ALLOCATOR + "\n") !=
        std::string::npos);
  {
    httplib::Client cli = MakeClient(daemon.port);
    const httplib::Headers auth = {{"X-Api-Key", apiKey}};

    auto health = cli.Get("/healthz");
    REQUIRE(health);
    CHECK(health->status == 200);
    CHECK(health->body == "{\"status\":\"ok\"}");
    auto ready = cli.Get("/readyz");
    REQUIRE(ready);
    CHECK(ready->status == 200);
    CHECK(ready->body == R"({"status":"ready","checks":{"database":"ok","migrations":"ok","writes":"ok","dispatcher":"ok"}})");
    // The contract as served: the checked-in JSON, byte for byte.
    auto contract = cli.Get("/openapi.json");
    REQUIRE(contract);
    CHECK(contract->status == 200);
    CHECK(contract->get_header_value("Content-Type") == "application/json");
    CHECK(contract->body == Slurp(std::string(LIVECHAT_SOURCE_DIR) + "/docs/api/openapi.json"));

    auto anon = cli.Get("/chat/conversations");
    REQUIRE(anon);
    CHECK(anon->status == 401);
    CHECK(ErrorCodeOf(anon->body) == "UNAUTHENTICATED");

    auto wrong = cli.Get("/chat/conversations", {{"X-Api-Key", "sk_00000000000000000000000000000000"}});
    REQUIRE(wrong);
    CHECK(wrong->status == 401);
    CHECK(ErrorCodeOf(wrong->body) == "INVALID_API_KEY");

    auto list = cli.Get("/chat/conversations", auth);
    REQUIRE(list);
    INFO("body: " << list->body);
    REQUIRE(list->status == 200);
    CHECK(list->get_header_value("Content-Type").rfind("application/json", 0) == 0);
    CHECK(list->get_header_value("X-RateLimit-Limit") == "120");
    CHECK_FALSE(list->get_header_value("X-RateLimit-Remaining").empty());
    {
      auto doc = ParseJson(list->body);
      REQUIRE(doc["data"].IsArray());
      REQUIRE(doc["data"].Size() == 1);
      const auto& c = doc["data"][0];
      CHECK(Keys(c) == kListConversationKeys);
      CHECK(Str(c, "id") == convId);
      CHECK(Str(c, "shopId") == storeId);
      CHECK(Str(c, "customerUuid") == customerUuid);
      CHECK(Str(c, "customerName") == "Casey Customer");
      CHECK(Str(c, "customerEmail") == "casey@example.com");
      CHECK(Str(c, "status") == "open");
      CHECK(c["pgConvoId"].IsString());
      CHECK(c["memberId"].IsNull());
      REQUIRE(c["channels"].IsArray());
      REQUIRE(c["channels"].Size() == 1);
      CHECK(std::string(c["channels"][0].GetString()) == "online_store");
      CHECK(c["tags"].IsArray());
      REQUIRE(c["lastMessage"].IsObject());
      CHECK(Str(c["lastMessage"], "text") == "Where is my order?");
      CHECK(Str(c["lastMessage"], "senderType") == "customer");
      CHECK(c["isRead"].IsBool());
      REQUIRE(doc["paging"].IsObject());
      CHECK(doc["paging"]["hasMore"].IsFalse());
      CHECK(doc["paging"]["nextCursor"].IsNull());
    }

    auto sent = cli.Post("/chat/conversations/" + convId + "/messages", auth,
                         "{\"text\":\"It ships today.\",\"memberId\":\"" + memberId + "\"}", "application/json");
    REQUIRE(sent);
    INFO("body: " << sent->body);
    CHECK(sent->status == 201);
    {
      auto doc = ParseJson(sent->body);
      CHECK(Str(doc["data"], "text") == "It ships today.");
      CHECK(Str(doc["data"], "memberId") == memberId);
      CHECK(doc["data"]["isAdmin"].IsTrue());
    }

    auto messages = cli.Get("/chat/conversations/" + convId + "/messages", auth);
    REQUIRE(messages);
    CHECK(messages->status == 200);
    {
      auto doc = ParseJson(messages->body);
      REQUIRE(doc["data"].IsArray());
      REQUIRE(doc["data"].Size() == 2);
      CHECK(Str(doc["data"][0], "text") == "Where is my order?");
      CHECK(Str(doc["data"][1], "text") == "It ships today.");
    }

    auto unknown = cli.Get("/no/such/path", auth);
    REQUIRE(unknown);
    CHECK(unknown->status == 404);
    CHECK(ErrorCodeOf(unknown->body) == "NOT_FOUND");

    // Over --max-body: the adapter's 413 just above it, the transport's far above.
    for (std::size_t size : {std::size_t{5000}, std::size_t{200'000}}) {
      std::string body = "{\"text\":\"" + std::string(size, 'x') + "\",\"memberId\":\"" + memberId + "\"}";
      auto big = cli.Post("/chat/conversations/" + convId + "/messages", auth, body, "application/json");
      REQUIRE(big);
      INFO("size " << size << " body: " << big->body);
      CHECK(big->status == 413);
      CHECK(ErrorCodeOf(big->body) == "PAYLOAD_TOO_LARGE");
    }

    // livechatctl writes while livechatd holds the database open.
    auto second = Ctl(db, {"conversation", "start", "--store", storeId, "--channel", "email", "--customer-name",
                           "Robin Reader", "--customer-email", "robin@example.com", "--text", "Do you ship abroad?"});
    const std::string secondId = Str(second, "id");
    auto both = cli.Get("/chat/conversations", auth);
    REQUIRE(both);
    REQUIRE(both->status == 200);
    {
      auto doc = ParseJson(both->body);
      REQUIRE(doc["data"].Size() == 2);
      CHECK(Str(doc["data"][0], "id") == secondId);  // newest activity first
      CHECK(Str(doc["data"][1], "id") == convId);
    }
  }  // the client closes its keep-alive connection before the stop

  auto started = std::chrono::steady_clock::now();
  StopDaemon(daemon);
  CHECK(std::chrono::steady_clock::now() - started < 5s);

  const std::string log = Slurp(daemon.stderrPath);
  CHECK(log.find("\"path\":\"/chat/conversations\",\"status\":200") != std::string::npos);
  CHECK(log.find("\"peer\":\"127.0.0.1\"") != std::string::npos);
}

TEST_CASE("livechatd --demo prints a working key and reuses the demo on the next start") {
  TempDir dir;
  const std::string db = dir.File("demo.db");
  std::string firstKey;
  std::size_t firstCount = 0;

  for (int run = 0; run < 2; ++run) {
    CAPTURE(run);
    Daemon daemon = StartDaemon(dir, db, {"--demo"});
    auto keyLine = daemon.process->WaitForLine("demo API key: ", 1s);
    auto curlLine = daemon.process->WaitForLine("try: curl ", 1s);
    REQUIRE(keyLine);
    REQUIRE(curlLine);
    const std::string apiKey = keyLine->substr(std::string("demo API key: ").size());
    CHECK(apiKey.rfind("sk_", 0) == 0);
    CHECK(curlLine->find("X-Api-Key: " + apiKey) != std::string::npos);

    // Replay the printed curl line: its URL and its header.
    auto urlStart = curlLine->find("'http://");
    REQUIRE(urlStart != std::string::npos);
    std::string url = curlLine->substr(urlStart + 1, curlLine->find('\'', urlStart + 1) - urlStart - 1);
    std::string prefix = "http://127.0.0.1:" + std::to_string(daemon.port);
    REQUIRE(url.rfind(prefix, 0) == 0);
    std::string target = url.substr(prefix.size());
    {
      httplib::Client cli = MakeClient(daemon.port);
      auto res = cli.Get(target, {{"X-Api-Key", apiKey}});
      REQUIRE(res);
      INFO("body: " << res->body);
      CHECK(res->status == 200);
      auto doc = ParseJson(res->body);
      REQUIRE(doc["data"].IsArray());
      CHECK(doc["data"].Size() > 0);

      // The tool server sees the sample catalog and lists every tool to the
      // demo key (every permission; every switch on; a loyalty partner).
      auto appLine = daemon.process->WaitForLine("demo App ID: ", 1s);
      REQUIRE(appLine);
      const std::string appId = appLine->substr(std::string("demo App ID: ").size());
      auto tools = cli.Post("/mcp",
                            {{"X-App-Id", appId}, {"Authorization", "Bearer " + apiKey},
                             {"Accept", "application/json, text/event-stream"}},
                            R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", "application/json");
      REQUIRE(tools);
      REQUIRE(tools->status == 200);
      CHECK(ParseJson(tools->body)["result"]["tools"].Size() == 22);
      auto lookup = cli.Post("/mcp",
                             {{"X-App-Id", appId}, {"Authorization", "Bearer " + apiKey},
                              {"Accept", "application/json, text/event-stream"}},
                             R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_conversations"}})",
                             "application/json");
      REQUIRE(lookup);
      auto playground = ParseJson(lookup->body);
      REQUIRE(playground["result"]["structuredContent"]["conversations"].Size() == 1);

      auto all = cli.Get("/chat/conversations?limit=100", {{"X-Api-Key", apiKey}});
      REQUIRE(all);
      REQUIRE(all->status == 200);
      std::size_t count = ParseJson(all->body)["data"].Size();
      if (run == 0) {
        firstKey = apiKey;
        firstCount = count;
        CHECK(daemon.process->lines().front().find("demo store created") == 0);
      } else {
        CHECK(apiKey == firstKey);
        CHECK(count == firstCount);  // nothing was added by the second start
        CHECK(daemon.process->lines().front().find("demo store found") == 0);
      }
    }
    StopDaemon(daemon);
  }
}

TEST_CASE("host binaries: help, version and usage errors") {
  TempDir dir;
  const std::string db = dir.File("usage.db");

  RunResult help = e2e::Run({e2e::HostBinary("livechatd"), "--help"});
  CHECK(help.exitCode == 0);
  for (const char* env : {"LIVECHAT_DB", "LIVECHAT_LISTEN", "LIVECHAT_DEMO", "LIVECHAT_RATE_LIMIT_KEY",
                          "LIVECHAT_RATE_LIMIT_IP", "LIVECHAT_TRUSTED_PROXY", "LIVECHAT_THREADS",
                          "LIVECHAT_MAX_BODY", "LIVECHAT_WEBHOOK_RETRY_DELAYS", "LIVECHAT_WEBHOOK_TIMEOUT",
                          "LIVECHAT_WEBHOOK_ALLOW_PRIVATE_TARGETS", "LIVECHAT_WEBHOOK_CA_FILE",
                          "LIVECHAT_WEBHOOK_THREADS", "LIVECHAT_ACCESS_LOG", "LIVECHAT_SECURE_COOKIES",
                          "LIVECHAT_GRAPHQL_LISTEN", "LIVECHAT_GRAPHQL_BUCKET", "LIVECHAT_GRAPHQL_REFILL",
                          "LIVECHAT_ADMIN_LISTEN"}) {
    CAPTURE(env);
    CHECK(help.out.find(env) != std::string::npos);
  }
  CHECK(help.out.find("  --admin-listen HOST:PORT|none\n") != std::string::npos);
  CHECK(help.out.find("default: 127.0.0.1:9464; env: LIVECHAT_ADMIN_LISTEN\n") != std::string::npos);
  CHECK(e2e::Run({e2e::HostBinary("livechatd"), "--admin-listen", "9464"}).exitCode == 2);
  CHECK(e2e::Run({e2e::HostBinary("livechatd"), "--version"}).exitCode == 0);
  CHECK(e2e::Run({e2e::HostBinary("livechatd"), "--no-such-flag"}).exitCode == 2);
  CHECK(e2e::Run({e2e::HostBinary("livechatd"), "--listen", "nonsense"}).exitCode == 2);
  CHECK(e2e::Run({e2e::HostBinary("livechatd"), "--trusted-proxy", "not-a-cidr"}).exitCode == 2);
  // The read pool: 1 to 256 connections.
  for (const char* n : {"0", "257", "many"}) {
    CAPTURE(n);
    RunResult pool = e2e::Run({e2e::HostBinary("livechatd"), "--db", db, "--db-pool", n});
    CHECK(pool.exitCode == 2);
    CHECK(pool.err.find(std::string("--db-pool: expects a number of connections from 1 to 256, got \"") + n + "\"") !=
          std::string::npos);
  }
  // The change feed's retention: 1 to 365 days.
  for (const char* n : {"0", "366"}) {
    CAPTURE(n);
    RunResult days = e2e::Run({e2e::HostBinary("livechatd"), "--db", db, "--event-retention-days", n});
    CHECK(days.exitCode == 2);
    CHECK(days.err.find(std::string("--event-retention-days: expects a number of days from 1 to 365, got \"") + n +
                        "\"") != std::string::npos);
  }
  for (const char* n : {"1", "365"}) {
    CAPTURE(n);
    Daemon d = StartDaemon(dir, db, {"--event-retention-days", n});
    httplib::Client cli = MakeClient(d.port);
    auto res = cli.Get("/healthz");
    REQUIRE(res);
    CHECK(res->status == 200);
    StopDaemon(d);
  }
  if (!livechat::testing::TestOnPostgres()) {  // 256 connections to a shared test server would crowd it
    for (const char* n : {"1", "256"}) {
      CAPTURE(n);
      Daemon d = StartDaemon(dir, db, {"--db-pool", n});
      httplib::Client cli = MakeClient(d.port);
      auto res = cli.Get("/healthz");
      REQUIRE(res);
      CHECK(res->status == 200);
      StopDaemon(d);
    }
  }

  const std::string ctl = e2e::HostBinary("livechatctl");
  CHECK(e2e::Run({ctl, "--help"}).exitCode == 0);
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {ctl, "--db", e2e::DatabaseFor(db)},
           {ctl, "--db", e2e::DatabaseFor(db), "frobnicate"},
           {ctl, "--db", e2e::DatabaseFor(db), "store", "create"},
           {ctl, "--db", e2e::DatabaseFor(db), "store", "create", "--name", "X", "--colour", "red"},
           {ctl, "--db", e2e::DatabaseFor(db), "store", "create", "--name", "X", "--plan", "gold"},
           {ctl, "--db", e2e::DatabaseFor(db), "key", "create", "--store", "s", "--name", "k", "--permissions", "read_everything"},
       }) {
    RunResult r = e2e::Run(bad);
    INFO("args: " << bad.size() << " stdout: " << r.out);
    CHECK(r.exitCode == 2);
    CHECK(ErrorCodeOf(r.out) == "INVALID_PARAMS");
  }

  // A rule of the service, not of the command line: exit 1 with the service's code.
  auto freeShop = Ctl(db, {"store", "create", "--name", "Free Shop", "--plan", "free"});
  RunResult refused = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "key", "create", "--store", Str(freeShop, "id"), "--name", "k",
                                "--permissions", "read_conversations"});
  CHECK(refused.exitCode == 1);
  CHECK(ParseJson(refused.out).HasMember("error"));
}

// --list-cache-mb at its bounds: 0 (off) and 65536 are taken (parsing goes
// on to the next flag, whose error is then the one reported), -1 and 65537
// are refused with the range.
TEST_CASE("livechatd --list-cache-mb: 0 and 65536 taken, -1 and 65537 refused") {
  const std::string d = e2e::HostBinary("livechatd");
  for (const char* ok : {"0", "65536"}) {
    CAPTURE(ok);
    RunResult r = e2e::Run({d, "--list-cache-mb", ok, "--listen", "nonsense"});
    CHECK(r.exitCode == 2);
    CHECK(r.err.find("livechatd: --listen: expects HOST:PORT") != std::string::npos);
  }
  for (const char* bad : {"-1", "65537", "lots"}) {
    CAPTURE(bad);
    RunResult r = e2e::Run({d, "--list-cache-mb", bad});
    CHECK(r.exitCode == 2);
    CHECK(r.err == std::string("livechatd: --list-cache-mb: expects a size in MiB from 0 to 65536, got \"") + bad +
                       "\" (see livechatd --help)\n");
  }
  CHECK(e2e::Run({d, "--help"}).out.find("LIVECHAT_LIST_CACHE_MB") != std::string::npos);
}

TEST_CASE("livechatctl catalog import and settings: success, a refused file, usage errors") {
  TempDir dir;
  const std::string db = dir.File("catalog.db");
  const std::string ctl = e2e::HostBinary("livechatctl");
  auto shop = Ctl(db, {"store", "create", "--name", "Catalog", "--plan", "pro"});
  const std::string storeId = Str(shop, "id");

  auto imported = Ctl(db, {"catalog", "import", "--store", storeId, "--file",
                           std::string(LIVECHAT_SOURCE_DIR) + "/examples/catalog/sample_catalog.json"});
  CHECK(imported["written"]["product"].GetInt() == 8);
  CHECK(imported["written"]["knowledge"].GetInt() == 8);
  CHECK(imported["sizeChart"].GetBool());

  const std::string bad = dir.File("bad.json");
  {
    std::FILE* f = std::fopen(bad.c_str(), "w");
    REQUIRE(f);
    std::fputs(R"({"products":[{"id":"p","title":"x","variants":[{"id":"v","price":"cheap"}]}]})", f);
    std::fclose(f);
  }
  RunResult refused = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "catalog", "import", "--store", storeId, "--file", bad});
  CHECK(refused.exitCode == 1);
  auto err = ParseJson(refused.out);
  CHECK(std::string(err["error"]["code"].GetString()) == "INVALID_PARAMS");
  CHECK(std::string(err["error"]["message"].GetString()) ==
        "products[0].variants[0].price: must be a decimal amount like \"19.99\"");

  auto shown = Ctl(db, {"settings", "show", "--store", storeId});
  CHECK_FALSE(shown["trainingData"]["products"].GetBool());
  auto set = Ctl(db, {"settings", "set", "--store", storeId, "--set", "trainingData.products=on,loyaltyPartner=Smile.io"});
  CHECK(set["trainingData"]["products"].GetBool());
  CHECK(std::string(set["loyaltyPartner"].GetString()) == "Smile.io");
  CHECK(set["skills"]["orderTracking"].GetBool());

  RunResult unknown = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "settings", "set", "--store", storeId, "--set", "skills.flying=on"});
  CHECK(unknown.exitCode == 2);
  CHECK(std::string(ParseJson(unknown.out)["error"]["message"].GetString()) ==
        "unknown setting \"skills.flying\" (trainingData.products|collections|discounts, "
        "skills.sizeGuide|orderTracking|afterSaleSupport|humanAgentTransfer, loyaltyPartner)");
  RunResult value = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "settings", "set", "--store", storeId, "--set", "skills.sizeGuide=yes"});
  CHECK(value.exitCode == 2);
  CHECK(value.out.find("skills.sizeGuide takes on or off") != std::string::npos);
  RunResult missing = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "catalog", "import", "--store", storeId, "--file", dir.File("none.json")});
  CHECK(missing.exitCode == 2);
}

// The rules livechatctl checks before it calls the core are the core's, with
// the core's words (the option's dashes added) and exit code 2.
TEST_CASE("livechatctl usage errors: channel, role and audit limit") {
  TempDir dir;
  const std::string db = dir.File("usage.db");
  const std::string ctl = e2e::HostBinary("livechatctl");
  auto shop = Ctl(db, {"store", "create", "--name", "Usage", "--plan", "pro"});
  const std::string storeId = Str(shop, "id");
  auto message = [](const RunResult& r) { return std::string(ParseJson(r.out)["error"]["message"].GetString()); };

  RunResult channel = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "conversation", "start", "--store", storeId, "--channel", "sms",
                                "--text", "hi"});
  CHECK(channel.exitCode == 2);
  CHECK(message(channel) == "--channel must be one of online_store, email, facebook, instagram, whatsapp, playground");
  RunResult role = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "member", "create", "--store", storeId, "--email", "a@b.test", "--role",
                             "owner"});
  CHECK(role.exitCode == 2);
  CHECK(message(role) == "--role must be admin or member");
  CHECK(e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "audit", "--store", storeId, "--limit", "1000"}).exitCode == 0);
  RunResult over = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "audit", "--store", storeId, "--limit", "1001"});
  CHECK(over.exitCode == 2);
  CHECK(message(over) == "--limit expects a whole number from 1 to 1000");
  RunResult zero = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "audit", "--store", storeId, "--limit", "0"});
  CHECK(zero.exitCode == 2);
}
