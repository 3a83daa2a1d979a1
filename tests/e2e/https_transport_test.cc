// The HTTPS webhook transport (livechat::outbound) against real TLS servers on loopback:
// what a hostile or broken receiver can do to a sender, and what the
// transport promises about it (include/livechat/https_webhook_transport.h).
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
#include "livechat/https_webhook_transport.h"

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
  // POST `path` answers `status` with a body of `bytes` x's.
  void Answer(const std::string& path, int status, std::size_t bytes) {
    server.Post(path, [status, bytes](const httplib::Request&, httplib::Response& res) {
      res.status = status;
      res.set_content(std::string(bytes, 'x'), "text/plain");
    });
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

std::unique_ptr<livechat::HttpsWebhookTransport> MakeTransport(const std::string& caFile) {
  livechat::HttpsTransportOptions o;
  o.extraCaFile = caFile;
  auto t = livechat::HttpsWebhookTransport::Create(o);
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
  s.Answer("/huge", 200, 8 << 20);
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

TEST_CASE("https transport: the body is read up to the cap and no further; a cut-off connection is not reused") {
  e2e::TempDir dir;
  const auto tls = e2e::MakeTlsMaterial(dir.path().string());
  Server s(tls);
  s.Answer("/exact", 200, 100);
  s.Answer("/over", 202, 101);
  s.server.Post("/stalls", [](const httplib::Request&, httplib::Response& res) {
    // 5,000 bytes at once, then nothing for 1.5 s: a reader that wants more
    // than the cap waits out its timeout, one that stops at the cap does not.
    res.status = 201;
    res.set_chunked_content_provider("text/plain", [](std::size_t offset, httplib::DataSink& sink) {
      if (offset == 0) return sink.write(std::string(5000, 'x').data(), 5000);
      std::this_thread::sleep_for(1500ms);
      sink.done();
      return true;
    });
  });
  s.Start();
  livechat::HttpsTransportOptions o;
  o.extraCaFile = tls.caCertPath;
  o.maxResponseBodyBytes = 100;
  auto created = livechat::HttpsWebhookTransport::Create(o);
  REQUIRE(created.ok());
  auto& transport = *created;

  CHECK(transport->Send(RequestTo("localhost", s.port, "/exact")).status == 200);
  CHECK(transport->Send(RequestTo("localhost", s.port, "/exact")).status == 200);
  CHECK(transport->connectionsOpened() == 1);
  auto over = transport->Send(RequestTo("localhost", s.port, "/over"));
  CHECK(over.status == 202);
  CHECK(over.error.empty());
  CHECK(transport->connectionsOpened() == 1);
  CHECK(transport->Send(RequestTo("localhost", s.port, "/exact")).status == 200);
  CHECK(transport->connectionsOpened() == 2);  // the one cut off at 101 bytes was closed

  o.maxResponseBodyBytes = 4096;
  auto defaults = livechat::HttpsWebhookTransport::Create(o);
  REQUIRE(defaults.ok());
  const auto t0 = SteadyClock::now();
  auto stalls = (*defaults)->Send(RequestTo("localhost", s.port, "/stalls", 1000));
  CHECK(stalls.status == 201);
  CHECK(stalls.error.empty());
  CHECK(SteadyClock::now() - t0 < 800ms);
}

TEST_CASE("https transport: Retry-After and the extra CA file") {
  CHECK(livechat::ParseRetryAfterSeconds("120") == 120);
  CHECK(livechat::ParseRetryAfterSeconds(" 5 ") == 5);
  CHECK(livechat::ParseRetryAfterSeconds("0") == 0);
  CHECK_FALSE(livechat::ParseRetryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT").has_value());
  CHECK_FALSE(livechat::ParseRetryAfterSeconds("-1").has_value());
  CHECK_FALSE(livechat::ParseRetryAfterSeconds("1.5").has_value());
  CHECK_FALSE(livechat::ParseRetryAfterSeconds("").has_value());
  CHECK_FALSE(livechat::ParseRetryAfterSeconds("99999999999").has_value());

  e2e::TempDir dir;
  livechat::HttpsTransportOptions o;
  o.extraCaFile = dir.File("missing.pem");
  auto missing = livechat::HttpsWebhookTransport::Create(o);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("cannot read") == 0);
  {
    std::FILE* f = std::fopen(dir.File("junk.pem").c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs("not a certificate\n", f);
    std::fclose(f);
  }
  o.extraCaFile = dir.File("junk.pem");
  auto junk = livechat::HttpsWebhookTransport::Create(o);
  REQUIRE_FALSE(junk.ok());
  CHECK(junk.error().message.find("cannot load CA certificates from") == 0);
}
