// livechatd's HTTP transport (hosts/livechatd/http_server.cc) at the edges a
// client library does not reach: an answer that refuses a body the client is
// still sending, request framing that could smuggle a second request, chunked
// bodies, HEAD of a live stream, pipelining, HTTP/1.0 keep-alive. Raw
// sockets, so the bytes on the wire are what is checked.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string>

#include <doctest/doctest.h>

#include "e2e/child_process.h"
#include "e2e/e2e_helpers.h"

namespace {

class Socket {
 public:
  explicit Socket(int port) {
    fd_ = e2e::ConnectLoopback(port);
  }
  ~Socket() { ::close(fd_); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  // Sends all of `bytes`; false once the server has closed or reset.
  bool Send(const std::string& bytes) {
    std::size_t off = 0;
    while (off < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<std::size_t>(n);
    }
    return true;
  }

  // Everything received until the server closes, resets, or `ms` pass;
  // `reset` tells whether the end was a reset.
  std::string ReadAll(int ms, bool* reset = nullptr) {
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    if (reset) *reset = false;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      char buf[8192];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n < 0 && reset) *reset = errno == ECONNRESET;
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
  }

 private:
  int fd_ = -1;
};

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("transport: a body refused by its size is answered 413 even while the client is still sending it") {
  e2e::TempDir dir;
  const std::string db = dir.File("t.db");
  e2e::Daemon daemon = e2e::StartDaemon(dir, db, {"--max-body", "4096"});
  // 2 MiB, far over --max-body plus the 64 KiB headroom, sent right behind
  // the head as a browser's fetch does (no Expect: 100-continue): the server
  // answers from the head, closes, and the client must still read the
  // answer. (Linux keeps received bytes readable after a reset, so over
  // loopback this holds even without the server's draining close; clients
  // on other systems lose them, which is why the server drains.)
  const std::size_t size = 2 * 1024 * 1024;
  for (int attempt = 0; attempt < 5; ++attempt) {
    CAPTURE(attempt);
    Socket s(daemon.port);
    s.Send("POST /chat/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(size) + "\r\n\r\n");
    s.Send(std::string(size, ' '));  // may fail part way: the server stopped reading
    bool reset = false;
    const std::string answer = s.ReadAll(5'000, &reset);
    CHECK(answer.rfind("HTTP/1.1 413 ", 0) == 0);
    CHECK(answer.find(R"("code":"PAYLOAD_TOO_LARGE")") != std::string::npos);
    CHECK(answer.find("\r\nConnection: close\r\n") != std::string::npos);
    CHECK_FALSE(reset);
  }
  e2e::StopDaemon(daemon);
}

TEST_CASE("transport: framing that could smuggle a request is refused 400; chunked bodies and pipelining work") {
  e2e::TempDir dir;
  const std::string db = dir.File("t.db");
  const std::string storeId = e2e::Str(e2e::Ctl(db, {"store", "create", "--name", "Shop", "--plan", "pro"}), "id");
  const std::string key = e2e::Str(
      e2e::Ctl(db, {"key", "create", "--store", storeId, "--name", "k", "--permissions",
                    "read_conversations,manage_conversations"}),
      "key");
  e2e::Ctl(db, {"seed", "--store", storeId, "--conversations", "1", "--messages-per-conversation", "1"});
  e2e::Daemon daemon = e2e::StartDaemon(dir, db, {"--max-body", "4096"});
  std::string convId;
  {
    httplib::Client cli = e2e::MakeClient(daemon.port);
    auto list = cli.Get("/chat/conversations?limit=1", {{"X-Api-Key", key}});
    REQUIRE(list);
    REQUIRE(list->status == 200);
    convId = e2e::Str(e2e::ParseJson(list->body)["data"][0], "id");
  }
  const std::string sendPath = "/chat/conversations/" + convId + "/messages";

  SUBCASE("a Transfer-Encoding that does not end in chunked") {
    // Read as an empty body, its bytes would be taken for a second request.
    Socket s(daemon.port);
    s.Send("POST /chat/conversations HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\nX-Api-Key: " + key +
           "\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string answer = s.ReadAll(3'000);
    CHECK(answer.rfind("HTTP/1.1 400 ", 0) == 0);
    CHECK(answer.find("Transfer-Encoding must end in chunked") != std::string::npos);
    CHECK(Count(answer, "X-Request-Id: ") == 1);  // the smuggled GET was never served
  }
  SUBCASE("Transfer-Encoding in an HTTP/1.0 request") {
    Socket s(daemon.port);
    s.Send("POST /chat/conversations HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
    CHECK(s.ReadAll(3'000).rfind("HTTP/1.1 400 ", 0) == 0);
  }
  SUBCASE("a chunked body reaches the adapter whole; over the command limit it is 413") {
    const std::string body = R"({"text":"This reply was sent in chunks.","asCustomer":true})";
    const std::string half1 = body.substr(0, 30), half2 = body.substr(30);
    auto hex = [](std::size_t n) {
      char b[17];
      std::snprintf(b, sizeof b, "%zx", n);
      return std::string(b);
    };
    Socket s(daemon.port);
    s.Send("POST " + sendPath + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Api-Key: " + key +
           "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + hex(half1.size()) + "\r\n" + half1 +
           "\r\n" + hex(half2.size()) + "\r\n" + half2 + "\r\n0\r\n\r\n");
    const std::string answer = s.ReadAll(3'000);
    INFO(answer);
    CHECK(answer.rfind("HTTP/1.1 201 ", 0) == 0);
    CHECK(answer.find(R"("text":"This reply was sent in chunks.")") != std::string::npos);

    // 4096 + 64 KiB of headroom is the command limit; a chunked body has no
    // Content-Length to screen, so it is cut off as it arrives.
    Socket big(daemon.port);
    const std::string chunk(32 * 1024, ' ');
    std::string stream = "POST " + sendPath + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Api-Key: " +
                         key + "\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (int i = 0; i < 4; ++i) stream += hex(chunk.size()) + "\r\n" + chunk + "\r\n";
    big.Send(stream);
    const std::string refused = big.ReadAll(3'000);
    CHECK(refused.rfind("HTTP/1.1 413 ", 0) == 0);
    CHECK(refused.find("larger than " + std::to_string(4096 + 64 * 1024) + " bytes") != std::string::npos);
  }
  SUBCASE("pipelined requests are answered in order on one connection") {
    Socket s(daemon.port);
    s.Send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: one\r\n\r\n"
           "GET /nope HTTP/1.1\r\nHost: x\r\nX-Request-Id: two\r\n\r\n"
           "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: three\r\nConnection: close\r\n\r\n");
    const std::string answers = s.ReadAll(3'000);
    const auto one = answers.find("X-Request-Id: one"), two = answers.find("X-Request-Id: two"),
               three = answers.find("X-Request-Id: three");
    REQUIRE(three != std::string::npos);
    CHECK(one < two);
    CHECK(two < three);
    CHECK(Count(answers, "HTTP/1.1 200 ") == 2);
    CHECK(Count(answers, "HTTP/1.1 404 ") == 1);
  }
  SUBCASE("an HTTP/1.0 client that asks for keep-alive is told it is kept") {
    Socket s(daemon.port);
    s.Send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    const std::string first = s.ReadAll(500);
    CHECK(first.find("\r\nConnection: keep-alive\r\n") != std::string::npos);
    s.Send("GET /healthz HTTP/1.0\r\n\r\n");  // without it, 1.0 closes after the answer
    const std::string second = s.ReadAll(3'000);
    CHECK(second.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(second.find("\r\nConnection: close\r\n") != std::string::npos);
  }
  SUBCASE("HEAD of a live change feed sends its head and no stream") {
    Socket s(daemon.port);
    s.Send("HEAD /chat/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nX-Api-Key: " + key + "\r\n\r\n");
    const std::string answer = s.ReadAll(3'000);
    CHECK(answer.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(answer.find("Content-Type: text/event-stream") != std::string::npos);
    // The head ends the answer: no chunk, no event, and the connection closed.
    CHECK(answer.size() == answer.find("\r\n\r\n") + 4);
  }
  e2e::StopDaemon(daemon);
}

// Bounded reads (RestApi::IsBoundedRead) run on the I/O thread that read
// them when the store can read without waiting (a SQLite file with an idle
// reader), and on a worker when reads cross a network (PostgreSQL). The only
// worker is held by a live change feed (GET /chat/events as
// text/event-stream, which keeps its thread until it ends): on SQLite a
// bounded read is answered all the same, on PostgreSQL it waits; a search,
// the store-wide tag counts and a request that is not a read wait on both
// until the feed ends.
TEST_CASE("transport: bounded reads of a SQLite file need no worker; searches, PostgreSQL's reads and writes wait") {
  e2e::TempDir dir;
  const std::string db = dir.File("t.db");
  const bool sqlite = e2e::DatabaseFor(db) == db;
  const std::string storeId = e2e::Str(e2e::Ctl(db, {"store", "create", "--name", "Shop", "--plan", "pro"}), "id");
  const std::string key = e2e::Str(
      e2e::Ctl(db, {"key", "create", "--store", storeId, "--name", "k", "--permissions",
                    "read_conversations,manage_conversations"}),
      "key");
  e2e::Ctl(db, {"seed", "--store", storeId, "--conversations", "3", "--messages-per-conversation", "2"});
  e2e::Daemon daemon = e2e::StartDaemon(
      dir, db, {"--threads", "1", "--event-streams", "1", "--event-stream-lifetime", "8s"});
  auto get = [&](const std::string& target) {
    return "GET " + target + " HTTP/1.1\r\nHost: x\r\nX-Api-Key: " + key + "\r\nConnection: close\r\n\r\n";
  };
  auto body = [](const std::string& answer) { return answer.substr(answer.find("\r\n\r\n") + 4); };
  // The open conversations of a whole list (the seed resolves some).
  auto openCount = [&](const std::string& answer) {
    rapidjson::SizeType n = 0;
    const rapidjson::Document doc = e2e::ParseJson(body(answer));
    for (const auto& c : doc["data"].GetArray()) n += e2e::Str(c, "status") == "open" ? 1 : 0;
    return n;
  };

  Socket feed(daemon.port);
  REQUIRE(feed.Send("GET /chat/events HTTP/1.1\r\nHost: x\r\nX-Api-Key: " + key +
                    "\r\nAccept: text/event-stream\r\n\r\n"));
  const std::string feedHead = feed.ReadAll(1'000);  // the head is sent at once; the feed then stays open
  INFO(feedHead);
  REQUIRE(feedHead.rfind("HTTP/1.1 200 ", 0) == 0);
  REQUIRE(feedHead.find("Content-Type: text/event-stream") != std::string::npos);

  // Bounded: the list, the list by status (one indexed filter).
  Socket list(daemon.port), open(daemon.port);
  REQUIRE(list.Send(get("/chat/conversations?limit=5")));
  REQUIRE(open.Send(get("/chat/conversations?status=open&limit=5")));
  std::string listed = list.ReadAll(sqlite ? 3'000 : 1'000);
  std::string listedOpen = open.ReadAll(sqlite ? 3'000 : 1);
  if (sqlite) {
    INFO(listed);
    REQUIRE(listed.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(e2e::ParseJson(body(listed))["data"].Size() == 3);
    REQUIRE(listedOpen.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(e2e::ParseJson(body(listedOpen))["data"].Size() == openCount(listed));
  } else {
    CHECK(listed.empty());
    CHECK(listedOpen.empty());
  }

  // Not bounded, or not reads: a search, two filters, the tag counts, the webhooks.
  Socket search(daemon.port), twoFilters(daemon.port), tags(daemon.port), hooks(daemon.port);
  REQUIRE(search.Send(get("/chat/conversations?q=hello")));
  REQUIRE(twoFilters.Send(get("/chat/conversations?status=open&channel=email")));
  REQUIRE(tags.Send(get("/chat/tags")));
  REQUIRE(hooks.Send(get("/chat/webhooks")));
  CHECK(search.ReadAll(1'000).empty());  // the worker is still the feed's
  CHECK(twoFilters.ReadAll(1).empty());
  CHECK(tags.ReadAll(1).empty());
  CHECK(hooks.ReadAll(1).empty());

  // The feed ends at its lifetime; the worker then takes what waited.
  if (!sqlite) {
    listed = list.ReadAll(12'000);
    INFO(listed);
    REQUIRE(listed.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(e2e::ParseJson(body(listed))["data"].Size() == 3);
    listedOpen = open.ReadAll(5'000);
    REQUIRE(listedOpen.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(e2e::ParseJson(body(listedOpen))["data"].Size() == openCount(listed));
  }
  int which = 0;
  for (Socket* waited : {&search, &twoFilters, &tags, &hooks}) {
    CAPTURE(which++);
    const std::string answered = waited->ReadAll(12'000);
    INFO(answered);
    CHECK(answered.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(e2e::ParseJson(body(answered)).HasMember("data"));
  }
  e2e::StopDaemon(daemon);
}
