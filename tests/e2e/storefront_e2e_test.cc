// The storefront on a real livechatd: /sdk.js, /demo/, the CORS origin
// flag, the waiter cap over real sockets, and a stop that does not wait for
// long-polls.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

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

// A connection to 127.0.0.1:PORT that has sent one request and may not have
// its answer yet.
class Pending {
 public:
  Pending(int port, const std::string& request) : fd_(e2e::ConnectLoopback(port)) {
    REQUIRE(::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
  }
  ~Pending() {
    if (fd_ >= 0) ::close(fd_);
  }
  Pending(Pending&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;

  // Whether an answer (or the close) has begun to arrive within `within`.
  bool Answered(std::chrono::milliseconds within) const {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(within.count())) == 1;
  }
  // The answer's head and as much of its body as came within 5 s.
  std::string Read() const {
    std::string out;
    char buf[8192];
    const auto until = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < until && out.find("\"cursor\"") == std::string::npos) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) != 1) continue;
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
  }

 private:
  int fd_;
};

}  // namespace

TEST_CASE("livechatd storefront: 300 waiting widgets hold no thread; each wakes at its own reply, and a stop answers all") {
  TempDir dir;
  const std::string db = dir.File("waiting.db");
  auto shop = Ctl(db, {"store", "create", "--name", "Shop", "--plan", "pro"});
  const std::string storeId = Str(shop, "id");
  const std::string appId = Str(shop, "appId");
  const std::string key = Str(Ctl(db, {"key", "create", "--store", storeId, "--name", "agent", "--permissions",
                                       "read_conversations,manage_conversations"}),
                              "key");
  const std::string member = Str(Ctl(db, {"member", "create", "--store", storeId, "--email", "ada@example.com",
                                          "--first-name", "Ada", "--last-name", "Agent", "--role", "member"}),
                                 "id");
  // Two threads serve the widgets' listener: with a thread per waiting poll
  // the third widget would wait for a thread, and a fourth request never be
  // answered.
  Daemon daemon = StartDaemon(dir, db, {"--storefront-listen", "127.0.0.1:0", "--storefront-threads", "2",
                                        "--storefront-sessions-per-ip", "100000",
                                        "--max-connections-per-address", "0"});
  const int storefrontPort = e2e::AnnouncedPort(daemon, "storefront listening on ");
  const int adminPort = e2e::AnnouncedPort(daemon, "admin listener on ");

  constexpr int kWidgets = 300;
  struct Widget {
    std::string token, conversation;
    std::int64_t seq = 0;
  };
  std::vector<Widget> widgets(kWidgets);
  {
    httplib::Client cli = MakeClient(storefrontPort);
    cli.set_keep_alive(true);
    for (int i = 0; i < kWidgets; ++i) {
      widgets[i].token = StartVisitor(cli, appId).token;
      httplib::Headers auth{{"X-App-Id", appId}, {"X-Session-Token", widgets[i].token}};
      auto sent = cli.Post("/storefront/commands", auth,
                           R"({"command":"message:send","args":["Widget )" + std::to_string(i) + R"( asks"]})",
                           "application/json");
      REQUIRE(sent);
      REQUIRE_MESSAGE(sent->status == 200, sent->body);
      widgets[i].seq = ParseJson(sent->body)["data"]["seq"].GetInt64();
      auto session = cli.Get("/storefront/session", auth);
      REQUIRE(session);
      widgets[i].conversation = Str(ParseJson(session->body)["data"], "conversationId");
    }
  }
  std::vector<Pending> polls;
  polls.reserve(kWidgets);
  for (const Widget& w : widgets)
    polls.emplace_back(storefrontPort, "GET /storefront/updates?after=" + std::to_string(w.seq) +
                                           "&wait=25 HTTP/1.1\r\nHost: shop\r\nX-App-Id: " + appId +
                                           "\r\nX-Session-Token: " + w.token + "\r\n\r\n");
  double waiting = 0;
  for (int i = 0; i < 100 && waiting < kWidgets; ++i) {
    std::this_thread::sleep_for(50ms);
    waiting = e2e::Metric(adminPort, "livechat_storefront_polls_waiting");
  }
  REQUIRE(waiting == kWidgets);
  for (const Pending& p : polls) CHECK_FALSE(p.Answered(0ms));

  // The widgets' listener still answers at once.
  {
    httplib::Client cli = MakeClient(storefrontPort);
    for (int i = 0; i < 5; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      auto sdk = cli.Get("/sdk.js");
      REQUIRE(sdk);
      CHECK(sdk->status == 200);
      CHECK(std::chrono::steady_clock::now() - t0 < 1s);
    }
  }

  // An agent replies to widget 123: that widget, and only it, is answered,
  // with the reply.
  {
    httplib::Client rest = MakeClient(daemon.port);
    const auto t0 = std::chrono::steady_clock::now();
    auto reply = rest.Post("/chat/conversations/" + widgets[123].conversation + "/messages", {{"X-Api-Key", key}},
                           R"({"text":"Yes, it is waterproof.","memberId":")" + member + R"("})", "application/json");
    REQUIRE(reply);
    REQUIRE_MESSAGE(reply->status == 201, reply->body);
    REQUIRE(polls[123].Answered(1s));
    CHECK(std::chrono::steady_clock::now() - t0 < 1s);
    const std::string answer = polls[123].Read();
    CHECK(answer.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(answer.find("Yes, it is waterproof.") != std::string::npos);
  }
  for (int i = 0; i < kWidgets; ++i)
    if (i != 123) CHECK_FALSE_MESSAGE(polls[i].Answered(0ms), "widget " << i << " was answered without news");
  CHECK(e2e::Metric(adminPort, "livechat_storefront_polls_waiting") == kWidgets - 1);

  // SIGTERM answers every other waiting widget, with nothing new.
  const auto stopping = std::chrono::steady_clock::now();
  StopDaemon(daemon);
  CHECK(std::chrono::steady_clock::now() - stopping < 5s);
  int answered = 0;
  for (int i = 0; i < kWidgets; ++i) {
    if (i == 123) continue;
    const std::string answer = polls[i].Read();
    if (answer.rfind("HTTP/1.1 200 ", 0) == 0 && answer.find("\"messages\":[]") != std::string::npos) ++answered;
  }
  CHECK(answered == kWidgets - 1);
}

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
