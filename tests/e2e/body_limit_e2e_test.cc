// livechatd's transport body limit is sized for uploads (10 MiB); every other
// route refuses a larger Content-Length before reading the body, so no
// unauthenticated request makes a server thread buffer megabytes.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include <doctest/doctest.h>

#include "e2e/child_process.h"
#include "e2e/e2e_helpers.h"

namespace {

// Sends only the request head (no body) and returns what the server answers
// before the connection closes or 5 s pass.
std::string HeadOnly(int port, const std::string& head) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::send(fd, head.data(), head.size(), 0) == static_cast<ssize_t>(head.size()));
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.find("\r\n\r\n") != std::string::npos && out.find("}}") != std::string::npos) break;
  }
  ::close(fd);
  return out;
}

std::string Post(const std::string& path, std::size_t contentLength) {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(contentLength) + "\r\n\r\n";
}

}  // namespace

TEST_CASE("livechatd refuses a command body over --max-body plus headroom before reading it; uploads may be larger") {
  e2e::TempDir dir;
  const std::string db = dir.File("limits.db");
  e2e::Daemon daemon = e2e::StartDaemon(dir, db, {"--max-body", "4096", "--platform-secret", "a-platform-secret-1"});
  const std::size_t limit = 4096 + 64 * 1024;  // --max-body plus the transport headroom
  for (const char* path : {"/mcp", "/graphql", "/platform/customers-redact", "/chat/conversations"}) {
    CAPTURE(path);
    const std::string over = HeadOnly(daemon.port, Post(path, limit + 1));
    CHECK(over.rfind("HTTP/1.1 413", 0) == 0);
    CHECK(over.find(R"("code":"PAYLOAD_TOO_LARGE")") != std::string::npos);
    CHECK(over.find("larger than " + std::to_string(limit) + " bytes") != std::string::npos);
  }
  // At the limit the bridge lets it through to the adapter, which answers
  // with its own limit (the body never comes: the read times out or the
  // adapter refuses; either way not the bridge's message).
  const std::string at = HeadOnly(daemon.port, Post("/mcp", limit) + std::string(limit, ' '));
  CHECK(at.find("larger than " + std::to_string(limit) + " bytes") == std::string::npos);
  // An upload route is not refused by the bridge at that size.
  const std::string upload = HeadOnly(daemon.port, Post("/storefront/files?name=a.png", limit + 1) +
                                                        std::string(limit + 1, 'x'));
  CHECK(upload.find("larger than " + std::to_string(limit) + " bytes") == std::string::npos);
  e2e::StopDaemon(daemon);
}
