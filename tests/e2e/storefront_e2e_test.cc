// The storefront on a real livechatd: /sdk.js, /demo/, the CORS origin
// flag, the waiter cap over real sockets, and a stop that does not wait for
// long-polls.
#include <chrono>
#include <future>
#include <string>
#include <thread>

#include <doctest/doctest.h>
#include <httplib.h>

#include "e2e/e2e_helpers.h"

namespace {

using namespace std::chrono_literals;
using e2e::Ctl;
using e2e::Daemon;
using e2e::MakeClient;
using e2e::ParseJson;
using e2e::StartDaemon;
using e2e::StopDaemon;
using e2e::Str;
using e2e::TempDir;

struct Visitor {
  std::string token;
};

Visitor StartVisitor(httplib::Client& cli, const std::string& appId) {
  auto res = cli.Post("/storefront/sessions", {{"X-App-Id", appId}}, "", "application/json");
  REQUIRE(res);
  REQUIRE_MESSAGE(res->status == 201, res->body);
  return Visitor{Str(ParseJson(res->body)["data"], "token")};
}

}  // namespace

TEST_CASE("livechatd storefront: sdk.js, CORS for the configured origin, waiter cap, prompt stop") {
  TempDir dir;
  const std::string db = dir.File("shop.db");
  auto shop = Ctl(db, {"store", "create", "--name", "Shop", "--plan", "free"});
  const std::string appId = Str(shop, "appId");
  Daemon daemon = StartDaemon(dir, db, {"--storefront-origin", "https://shop.example", "--storefront-waiters", "1"});
  std::future<httplib::Result> waiting;
  {
    httplib::Client cli = MakeClient(daemon.port);
    cli.set_keep_alive(true);  // so a "Connection: close" answer is the server's choice
    auto sdk = cli.Get("/sdk.js");
    REQUIRE(sdk);
    CHECK(sdk->status == 200);
    CHECK(sdk->get_header_value("Content-Type") == "application/javascript; charset=utf-8");
    CHECK(sdk->body.find("var VERSION = '1.1.0';") != std::string::npos);
    auto demo = cli.Get("/demo/");
    REQUIRE(demo);
    CHECK(demo->status == 404);  // only with --demo

    auto pre = cli.Options("/storefront/commands", {{"Origin", "https://shop.example"}});
    REQUIRE(pre);
    CHECK(pre->status == 204);
    CHECK(pre->get_header_value("Access-Control-Allow-Origin") == "https://shop.example");
    auto refused = cli.Post("/storefront/sessions", {{"X-App-Id", appId}, {"Origin", "https://evil.example"}}, "",
                            "application/json");
    REQUIRE(refused);
    CHECK(refused->status == 403);

    Visitor v = StartVisitor(cli, appId);
    httplib::Headers auth{{"X-App-Id", appId}, {"X-Session-Token", v.token}};
    auto sent = cli.Post("/storefront/commands", auth, R"({"command":"message:send","args":["Hello from a free store"]})",
                         "application/json");
    REQUIRE(sent);
    REQUIRE_MESSAGE(sent->status == 200, sent->body);
    // Shared with REST, and still kept alive: an open connection holds no
    // thread between requests (hosts/livechatd/http_server.h).
    CHECK(sent->get_header_value("Connection") != "close");
    auto rejected = cli.Post("/storefront/commands", auth, R"({"command":"typing:set","args":["yes"]})", "application/json");
    REQUIRE(rejected);
    CHECK(rejected->status == 400);
    CHECK(e2e::ErrorCodeOf(rejected->body) == "INVALID_PARAMS");

    // One poll waits (the cap is 1); a second is answered at once with a retry hint.
    waiting = std::async(std::launch::async, [&] {
      httplib::Client c = MakeClient(daemon.port);
      c.set_read_timeout(30, 0);
      return c.Get("/storefront/updates?after=1000000&wait=25", auth);
    });
    std::this_thread::sleep_for(300ms);
    auto started = std::chrono::steady_clock::now();
    auto capped = cli.Get("/storefront/updates?after=1000000&wait=25", auth);
    REQUIRE(capped);
    CHECK(capped->status == 200);
    CHECK(std::chrono::steady_clock::now() - started < 1s);
    CHECK(ParseJson(capped->body)["data"].HasMember("retryAfterMs"));
  }
  // SIGTERM releases the waiting poll: the stop does not wait out its 25 s.
  auto stopping = std::chrono::steady_clock::now();
  StopDaemon(daemon);
  CHECK(std::chrono::steady_clock::now() - stopping < 5s);
  auto answered = waiting.get();
  REQUIRE(answered);
  CHECK(answered->status == 200);
}

TEST_CASE("livechatd --demo serves /demo/ with the demo store's App ID") {
  TempDir dir;
  const std::string db = dir.File("demo.db");
  Daemon daemon = StartDaemon(dir, db, {"--demo"});
  REQUIRE(daemon.process->WaitForLine("demo shop page with the chat widget: ", 1s));
  {
    httplib::Client cli = MakeClient(daemon.port);
    auto page = cli.Get("/demo/");
    REQUIRE(page);
    CHECK(page->status == 200);
    auto at = page->body.find("data-app-id=\"app_");
    REQUIRE(at != std::string::npos);
    const std::string appId = page->body.substr(at + 13, page->body.find('"', at + 13) - at - 13);
    auto start = cli.Post("/storefront/sessions", {{"X-App-Id", appId}}, "", "application/json");
    REQUIRE(start);
    CHECK(start->status == 201);  // any origin: no --storefront-origin given
  }
  StopDaemon(daemon);
}

TEST_CASE("livechatd storefront flags: bad values exit 2") {
  for (const char* origin : {"shop.example", "https://shop.example/path", "ftp://x.example", "https://"}) {
    CAPTURE(origin);
    CHECK(e2e::Run({e2e::HostBinary("livechatd"), "--storefront-origin", origin}).exitCode == 2);
  }
  CHECK(e2e::Run({e2e::HostBinary("livechatd"), "--storefront-waiters", "0"}).exitCode == 2);
  CHECK(e2e::Run({e2e::HostBinary("livechatd"), "--storefront-sessions-per-ip", "0"}).exitCode == 2);
  CHECK(e2e::Run({e2e::HostBinary("livechatd"), "--storefront-threads", "0"}).exitCode == 2);
  CHECK(e2e::Run({e2e::HostBinary("livechatd"), "--storefront-listen", "nonsense"}).exitCode == 2);
  e2e::RunResult help = e2e::Run({e2e::HostBinary("livechatd"), "--help"});
  CHECK(help.out.find("LIVECHAT_STOREFRONT_ORIGIN") != std::string::npos);
  for (const char* env : {"LIVECHAT_STOREFRONT_WAITERS", "LIVECHAT_STOREFRONT_LISTEN", "LIVECHAT_STOREFRONT_THREADS",
                          "LIVECHAT_STOREFRONT_SESSIONS_PER_IP"}) {
    CAPTURE(env);
    CHECK(help.out.find(env) != std::string::npos);
  }
}

TEST_CASE("livechatd --storefront-listen: widgets on a listener of their own, REST elsewhere") {
  TempDir dir;
  const std::string db = dir.File("apart.db");
  auto shop = Ctl(db, {"store", "create", "--name", "Shop", "--plan", "pro"});
  const std::string appId = Str(shop, "appId");
  Daemon daemon = StartDaemon(dir, db, {"--storefront-listen", "127.0.0.1:0", "--storefront-threads", "4", "--demo"});
  auto line = daemon.process->WaitForLine("storefront listening on ", 1s);
  REQUIRE(line);
  const int storefrontPort = std::stoi(line->substr(line->rfind(':') + 1));
  REQUIRE(storefrontPort != daemon.port);
  auto demoLine = daemon.process->WaitForLine("demo shop page with the chat widget: ", 1s);
  REQUIRE(demoLine);
  CHECK(demoLine->find("http://127.0.0.1:" + std::to_string(storefrontPort) + "/demo/") != std::string::npos);
  {
    httplib::Client main = MakeClient(daemon.port);
    httplib::Client widgets = MakeClient(storefrontPort);
    // Not the REST listener: its answers (404 for /chat/...) are no REST
    // exchanges for the contract check to replay.
    widgets.set_logger(httplib::Logger());
    widgets.set_keep_alive(true);
    auto onMain = main.Post("/storefront/sessions", {{"X-App-Id", appId}}, "", "application/json");
    REQUIRE(onMain);
    CHECK(onMain->status == 404);
    CHECK(main.Get("/sdk.js")->status == 404);
    auto started = widgets.Post("/storefront/sessions", {{"X-App-Id", appId}}, "", "application/json");
    REQUIRE(started);
    CHECK(started->status == 201);
    CHECK(started->get_header_value("Connection") != "close");  // its own threads: keep-alive is fine
    CHECK(widgets.Get("/sdk.js")->status == 200);
    CHECK(widgets.Get("/demo/")->status == 200);
    auto rest = widgets.Get("/chat/conversations", {{"X-Api-Key", "sk_00000000000000000000000000000000"}});
    REQUIRE(rest);
    CHECK(rest->status == 404);
    CHECK(widgets.Get("/healthz")->status == 200);
  }
  StopDaemon(daemon);
}
