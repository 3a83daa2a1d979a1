// livechatd's HTTPS webhook transport against real TLS servers on loopback:
// what a hostile or broken receiver can do to a sender, and what the
// transport promises about it (hosts/livechatd/https_webhook_transport.h).
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include <doctest/doctest.h>
#include <httplib.h>

#include "e2e/child_process.h"
#include "e2e/https_receiver.h"
#include "e2e/tls_material.h"
#include "https_webhook_transport.h"

namespace {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

// A TLS server with handlers chosen per test.
struct Server {
  httplib::SSLServer server;
  std::thread thread;
  int port = 0;

  explicit Server(const e2e::TlsMaterial& tls) : server(tls.certPath.c_str(), tls.keyPath.c_str()) {
    REQUIRE(server.is_valid());
    server.set_keep_alive_max_count(1000);
    server.set_keep_alive_timeout(1);
  }
  void Start() {
    port = server.bind_to_any_port("127.0.0.1");
    REQUIRE(port > 0);
    thread = std::thread([this] { server.listen_after_bind(); });
    while (!server.is_running()) std::this_thread::sleep_for(1ms);
  }
  ~Server() {
    server.stop();
    if (thread.joinable()) thread.join();
  }
};

livechat::WebhookRequest RequestTo(const std::string& host, int port, const std::string& path,
                                   std::int64_t timeoutMillis = 2000) {
  livechat::WebhookRequest r;
  r.target.url = "https://" + host + ":" + std::to_string(port) + path;
  r.target.host = host;
  r.target.port = port;
  r.target.pathAndQuery = path;
  r.target.address = "127.0.0.1";
  r.headers = {{"Content-Type", "application/json"}, {"X-Webhook-Event", "message.created"}};
  r.body = "{\"hello\":\"world\"}";
  r.timeoutMillis = timeoutMillis;
  return r;
}

std::unique_ptr<livechatd::HttpsWebhookTransport> MakeTransport(const std::string& caFile) {
  livechatd::HttpsTransportOptions o;
  o.extraCaFile = caFile;
  auto t = livechatd::HttpsWebhookTransport::Create(o);
  REQUIRE(t.ok());
  return std::move(t).value();
}

}  // namespace

TEST_CASE("https transport: keep-alive, Host and SNI from the host name, the checked address, no redirects") {
  e2e::TempDir dir;
  const auto tls = e2e::MakeTlsMaterial(dir.path().string());
  Server s(tls);
  std::string lastHost, lastBody;
  s.server.Post("/hook", [&](const httplib::Request& req, httplib::Response& res) {
    lastHost = req.get_header_value("Host");
    lastBody = req.body;
    res.set_header("Retry-After", "7");
    res.status = 503;
  });
  s.server.Post("/moved", [](const httplib::Request&, httplib::Response& res) {
    res.set_redirect("https://127.0.0.1:1/elsewhere");
  });
  s.Start();
  auto transport = MakeTransport(tls.caCertPath);

  for (int i = 0; i < 10; ++i) {
    auto r = transport->Send(RequestTo("localhost", s.port, "/hook"));
    CHECK(r.status == 503);
    CHECK(r.error.empty());
    REQUIRE(r.retryAfterSeconds.has_value());
    CHECK(*r.retryAfterSeconds == 7);
  }
  CHECK(transport->connectionsOpened() == 1);
  CHECK(lastHost == "localhost:" + std::to_string(s.port));
  CHECK(lastBody == "{\"hello\":\"world\"}");

  auto moved = transport->Send(RequestTo("localhost", s.port, "/moved"));
  CHECK(moved.status == 302);  // reported, not followed

  // The host name is only a name: the socket goes to target.address.
  auto mapped = RequestTo("localhost", s.port, "/hook");
  mapped.target.address = "127.0.0.2";  // nothing listens there
  auto refused = transport->Send(mapped);
  CHECK(refused.status == 0);
  CHECK(refused.error.find("cannot connect to localhost:" + std::to_string(s.port) + " (127.0.0.2)") == 0);
}

TEST_CASE("https transport: a kept-alive connection the receiver closed is replaced, not reported") {
  e2e::TempDir dir;
  const auto tls = e2e::MakeTlsMaterial(dir.path().string());
  Server s(tls);  // closes connections idle for 1 s
  s.server.Post("/hook", [](const httplib::Request&, httplib::Response& res) { res.status = 200; });
  s.Start();
  auto transport = MakeTransport(tls.caCertPath);
  REQUIRE(transport->Send(RequestTo("localhost", s.port, "/hook")).status == 200);
  const auto idleUntil = SteadyClock::now() + 1500ms;
  while (SteadyClock::now() < idleUntil) std::this_thread::sleep_for(50ms);
  auto again = transport->Send(RequestTo("localhost", s.port, "/hook"));
  CHECK(again.status == 200);
  CHECK(again.error.empty());
  CHECK(transport->connectionsOpened() == 2);
}

TEST_CASE("https transport: certificate checks") {
  e2e::TempDir dir;
  const auto tls = e2e::MakeTlsMaterial(dir.path().string());
  Server s(tls);
  int hits = 0;
  s.server.Post("/hook", [&](const httplib::Request&, httplib::Response& res) {
    ++hits;
    res.status = 200;
  });
  s.Start();

  SUBCASE("a CA not trusted") {
    auto r = MakeTransport("")->Send(RequestTo("localhost", s.port, "/hook"));
    CHECK(r.status == 0);
    CHECK(r.error.find("is not trusted") != std::string::npos);
  }
  SUBCASE("a name the certificate does not carry") {
    auto r = MakeTransport(tls.caCertPath)->Send(RequestTo("hooks.example.com", s.port, "/hook"));
    CHECK(r.status == 0);
    CHECK(r.error.find("does not match the host name hooks.example.com") != std::string::npos);
  }
  SUBCASE("an IP address in the certificate") {
    auto r = MakeTransport(tls.caCertPath)->Send(RequestTo("127.0.0.1", s.port, "/hook"));
    CHECK(r.status == 200);
    CHECK(hits == 1);
  }
  CHECK(hits <= 1);
}

TEST_CASE("https transport: a hostile receiver costs at most the timeout and a few KB") {
  e2e::TempDir dir;
  const auto tls = e2e::MakeTlsMaterial(dir.path().string());
  Server s(tls);
  s.server.Post("/huge", [](const httplib::Request&, httplib::Response& res) {
    res.status = 200;
    res.set_content(std::string(8 << 20, 'x'), "text/plain");
  });
  s.server.Post("/trickle", [](const httplib::Request&, httplib::Response& res) {
    // A byte every 100 ms for ever: each read succeeds, the exchange never ends.
    res.status = 200;
    res.set_chunked_content_provider("text/plain", [](std::size_t, httplib::DataSink& sink) {
      std::this_thread::sleep_for(100ms);
      return sink.write("x", 1);
    });
  });
  s.server.Post("/silent", [](const httplib::Request&, httplib::Response& res) {
    std::this_thread::sleep_for(1500ms);
    res.status = 200;
  });
  s.Start();
  auto transport = MakeTransport(tls.caCertPath);

  auto t0 = SteadyClock::now();
  auto huge = transport->Send(RequestTo("localhost", s.port, "/huge"));
  CHECK(huge.status == 200);  // the status line counts; the body is abandoned
  CHECK(SteadyClock::now() - t0 < 1s);

  t0 = SteadyClock::now();
  auto trickle = transport->Send(RequestTo("localhost", s.port, "/trickle", 600));
  auto took = SteadyClock::now() - t0;
  CHECK(trickle.status == 0);
  CHECK(trickle.error.find("within 600 ms") != std::string::npos);
  CHECK(took >= 550ms);
  CHECK(took < 1500ms);

  t0 = SteadyClock::now();
  auto silent = transport->Send(RequestTo("localhost", s.port, "/silent", 400));
  took = SteadyClock::now() - t0;
  CHECK(silent.status == 0);
  CHECK_FALSE(silent.error.empty());
  CHECK(took < 1200ms);

  // Still usable afterwards.
  CHECK(transport->Send(RequestTo("localhost", s.port, "/huge")).status == 200);
}

TEST_CASE("https transport: Retry-After and the extra CA file") {
  CHECK(livechatd::ParseRetryAfterSeconds("120") == 120);
  CHECK(livechatd::ParseRetryAfterSeconds(" 5 ") == 5);
  CHECK(livechatd::ParseRetryAfterSeconds("0") == 0);
  CHECK_FALSE(livechatd::ParseRetryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT").has_value());
  CHECK_FALSE(livechatd::ParseRetryAfterSeconds("-1").has_value());
  CHECK_FALSE(livechatd::ParseRetryAfterSeconds("1.5").has_value());
  CHECK_FALSE(livechatd::ParseRetryAfterSeconds("").has_value());
  CHECK_FALSE(livechatd::ParseRetryAfterSeconds("99999999999").has_value());

  e2e::TempDir dir;
  livechatd::HttpsTransportOptions o;
  o.extraCaFile = dir.File("missing.pem");
  auto missing = livechatd::HttpsWebhookTransport::Create(o);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("cannot read") == 0);
  {
    std::FILE* f = std::fopen(dir.File("junk.pem").c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs("not a certificate\n", f);
    std::fclose(f);
  }
  o.extraCaFile = dir.File("junk.pem");
  auto junk = livechatd::HttpsWebhookTransport::Create(o);
  REQUIRE_FALSE(junk.ok());
  CHECK(junk.error().message.find("cannot load CA certificates from") == 0);
}
