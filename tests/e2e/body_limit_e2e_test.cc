// livechatd's transport body limit is sized for uploads (10 MiB); every other
// route refuses a larger Content-Length before reading the body, so no
// unauthenticated request makes a server thread buffer megabytes.
#include <string>

#include <doctest/doctest.h>

#include "e2e/child_process.h"
#include "e2e/e2e_helpers.h"

namespace {

// `extraHeaders`: whole lines, each ending in CRLF.
std::string Post(const std::string& path, std::size_t contentLength, const std::string& extraHeaders = "") {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(contentLength) + "\r\n" + extraHeaders + "\r\n";
}

bool HasHeader(const std::string& response, const std::string& line) {
  return response.find("\r\n" + line + "\r\n") != std::string::npos;
}

}  // namespace

TEST_CASE("livechatd refuses a command body over --max-body plus headroom before reading it; uploads may be larger") {
  e2e::TempDir dir;
  const std::string db = dir.File("limits.db");
  e2e::Daemon daemon = e2e::StartDaemon(dir, db, {"--max-body", "4096", "--platform-secret", "a-platform-secret-1"});
  const std::size_t limit = 4096 + 64 * 1024;  // --max-body plus the transport headroom
  for (const char* path : {"/mcp", "/graphql", "/platform/customers-redact", "/chat/conversations"}) {
    CAPTURE(path);
    const std::string over = e2e::RawExchange(daemon.port, Post(path, limit + 1));
    CHECK(over.rfind("HTTP/1.1 413", 0) == 0);
    CHECK(over.find(R"("code":"PAYLOAD_TOO_LARGE")") != std::string::npos);
    CHECK(over.find("larger than " + std::to_string(limit) + " bytes") != std::string::npos);
  }
  // At the limit the bridge lets it through to the adapter, which answers
  // with its own limit (the body never comes: the read times out or the
  // adapter refuses; either way not the bridge's message).
  const std::string at = e2e::RawExchange(daemon.port, Post("/mcp", limit) + std::string(limit, ' '));
  CHECK(at.find("larger than " + std::to_string(limit) + " bytes") == std::string::npos);
  // An upload route is not refused by the bridge at that size.
  const std::string upload = e2e::RawExchange(daemon.port, Post("/storefront/files?name=a.png", limit + 1) +
                                                        std::string(limit + 1, 'x'));
  CHECK(upload.find("larger than " + std::to_string(limit) + " bytes") == std::string::npos);
  e2e::StopDaemon(daemon);
}

TEST_CASE("the transport's 413 on /chat and /webhook/subscriptions is counted and carries the rate-limit headers") {
  e2e::TempDir dir;
  const std::string db = dir.File("metered.db");
  const std::string storeId = e2e::Str(e2e::Ctl(db, {"store", "create", "--name", "Shop", "--plan", "pro"}), "id");
  const std::string key = e2e::Str(
      e2e::Ctl(db, {"key", "create", "--store", storeId, "--name", "k", "--permissions", "read_conversations"}), "key");
  e2e::Daemon daemon = e2e::StartDaemon(
      dir, db, {"--max-body", "4096", "--rate-limit-key", "3", "--rate-limit-ip", "1000"});
  const std::size_t over = 4096 + 64 * 1024 + 1;  // one byte over --max-body plus the transport headroom
  const std::string withKey = "X-Api-Key: " + key + "\r\n";

  // The key's window is 3: two refused bodies count, as every request does.
  for (const char* remaining : {"2", "1"}) {
    CAPTURE(remaining);
    const std::string refused = e2e::RawExchange(daemon.port, Post("/chat/conversations/c1/messages", over, withKey));
    CHECK(refused.rfind("HTTP/1.1 413", 0) == 0);
    CHECK(refused.find(R"("code":"PAYLOAD_TOO_LARGE")") != std::string::npos);
    CHECK(HasHeader(refused, "X-RateLimit-Limit: 3"));
    CHECK(HasHeader(refused, std::string("X-RateLimit-Remaining: ") + remaining));
    CHECK(refused.find("Retry-After") == std::string::npos);
  }
  {
    httplib::Client cli = e2e::MakeClient(daemon.port);
    auto third = cli.Get("/chat/members", {{"X-Api-Key", key}});
    REQUIRE(third);
    CHECK(third->status == 200);
    CHECK(third->get_header_value("X-RateLimit-Remaining") == "0");
  }
  // The window is spent: an over-size body is refused like any other request.
  const std::string spent = e2e::RawExchange(daemon.port, Post("/chat/conversations/c1/messages", over, withKey));
  CHECK(spent.rfind("HTTP/1.1 429", 0) == 0);
  CHECK(spent.find(R"("code":"RATE_LIMITED")") != std::string::npos);
  CHECK(HasHeader(spent, "X-RateLimit-Limit: 3"));
  CHECK(HasHeader(spent, "X-RateLimit-Remaining: 0"));
  CHECK(spent.find("\r\nRetry-After: ") != std::string::npos);

  // Without a key only the source IP's window counts it (4 requests so far).
  const std::string anonymous = e2e::RawExchange(daemon.port, Post("/chat/conversations", over));
  CHECK(anonymous.rfind("HTTP/1.1 413", 0) == 0);
  CHECK(HasHeader(anonymous, "X-RateLimit-Limit: 1000"));
  CHECK(HasHeader(anonymous, "X-RateLimit-Remaining: 995"));
  const std::string legacy = e2e::RawExchange(daemon.port, Post("/webhook/subscriptions", over));
  CHECK(legacy.rfind("HTTP/1.1 413", 0) == 0);
  CHECK(HasHeader(legacy, "X-RateLimit-Limit: 1000"));
  CHECK(HasHeader(legacy, "X-RateLimit-Remaining: 994"));
  // Surfaces without rate-limit headers stay without them.
  for (const char* path : {"/graphql", "/mcp", "/api/auth/login", "/storefront/commands"}) {
    CAPTURE(path);
    const std::string other = e2e::RawExchange(daemon.port, Post(path, over, withKey));
    CHECK(other.rfind("HTTP/1.1 413", 0) == 0);
    CHECK(other.find("X-RateLimit-") == std::string::npos);
  }
  e2e::StopDaemon(daemon);
}

TEST_CASE("a POST, PUT or PATCH with neither Content-Length nor Transfer-Encoding has an empty body (RFC 9112 6.3)") {
  // `curl -X PUT URL` sends such a request; cpp-httplib alone answers it 400
  // "could not be parsed" before any route.
  e2e::TempDir dir;
  e2e::Daemon daemon = e2e::StartDaemon(dir, dir.File("framing.db"), {});
  auto bare = [](const std::string& method, const std::string& path) {
    return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  };
  const std::string put = e2e::RawExchange(daemon.port, bare("PUT", "/storefront/sessions"));
  CHECK(put.rfind("HTTP/1.1 405 ", 0) == 0);
  CHECK(HasHeader(put, "Allow: POST, OPTIONS"));
  CHECK(put.find("\"METHOD_NOT_ALLOWED\"") != std::string::npos);
  const std::string patch = e2e::RawExchange(daemon.port, bare("PATCH", "/storefront/updates"));
  CHECK(patch.rfind("HTTP/1.1 405 ", 0) == 0);
  CHECK(HasHeader(patch, "Allow: GET, OPTIONS"));
  // A path that has the method gets its own answer, here the missing App ID.
  const std::string post = e2e::RawExchange(daemon.port, bare("POST", "/storefront/sessions"));
  CHECK(post.rfind("HTTP/1.1 401 ", 0) == 0);
  CHECK(post.find("\"UNAUTHENTICATED\"") != std::string::npos);
  e2e::StopDaemon(daemon);
}
