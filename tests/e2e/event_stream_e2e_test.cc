// The live change feed against real livechatd processes (issue 18): GET
// /chat/events with Accept: text/event-stream read from a raw socket, chunk
// by chunk, while other clients write. On SQLite (one instance) in the e2e
// entry of ctest and on PostgreSQL (three instances, the reader moving
// between them) in e2e_pg.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>
#include <httplib.h>

#include "e2e/e2e_helpers.h"
#include "support/sse.h"
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
using livechat::testing::SseParser;
using Steady = std::chrono::steady_clock;

// An SSE client on a raw socket: the request, the status and headers, then
// the chunked body decoded and parsed as it arrives.
class SseClient {
 public:
  // `rcvbuf` > 0: the socket's receive buffer, set before connecting (a small
  // window makes a client that stops reading back up quickly).
  explicit SseClient(int port, int rcvbuf = 0) {
    fd_ = e2e::ConnectLoopback(port, rcvbuf);
  }
  ~SseClient() { Close(); }
  SseClient(const SseClient&) = delete;
  SseClient& operator=(const SseClient&) = delete;

  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  // Sends the request and reads the head; the status. A non-streamed answer
  // (an error) is read whole into `body`.
  int Open(const std::string& target, const std::string& key, const std::string& lastEventId = "") {
    // Accept-Encoding as every browser sends it: a compressed stream would
    // hold its events in the compressor, so none may be compressed.
    std::string req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: " + key +
                      "\r\nAccept: text/event-stream\r\nAccept-Encoding: gzip, deflate, br\r\n";
    if (!lastEventId.empty()) req += "Last-Event-ID: " + lastEventId + "\r\n";
    req += "\r\n";
    REQUIRE(::send(fd_, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size()));
    std::size_t end;
    while ((end = raw_.find("\r\n\r\n")) == std::string::npos) REQUIRE(Receive(10s));
    head_ = raw_.substr(0, end + 2);
    raw_.erase(0, end + 4);
    status = std::stoi(head_.substr(9, 3));
    const std::string length = Header("content-length");
    if (!length.empty()) {
      while (raw_.size() < std::stoul(length)) REQUIRE(Receive(10s));
      body = raw_;
    }
    return status;
  }

  // The value of a response header (name lowercase), or "".
  std::string Header(const std::string& name) const {
    std::size_t at = 0;
    while ((at = head_.find("\r\n", at)) != std::string::npos) {
      at += 2;
      const std::size_t colon = head_.find(':', at);
      if (colon == std::string::npos) break;
      std::string n = head_.substr(at, colon - at);
      for (auto& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (n == name) {
        const std::size_t eol = head_.find("\r\n", colon);
        std::string v = head_.substr(colon + 1, eol - colon - 1);
        while (!v.empty() && v.front() == ' ') v.erase(0, 1);
        return v;
      }
    }
    return "";
  }

  // Reads until `done(sse)`, the end of the stream, or `limit`; whether
  // `done` came true.
  bool ReadUntil(const std::function<bool(const SseParser&)>& done, std::chrono::milliseconds limit = 20s) {
    const auto until = Steady::now() + limit;
    while (!done(sse)) {
      if (closed || Steady::now() >= until) return false;
      Receive(std::chrono::duration_cast<std::chrono::milliseconds>(until - Steady::now()));
    }
    return true;
  }
  // Reads to the end of the stream (the server closed it) within `limit`.
  bool ReadToEnd(std::chrono::milliseconds limit) {
    ReadUntil([&](const SseParser&) { return closed; }, limit);
    return closed;
  }

  std::vector<std::string> Ids() const {
    std::vector<std::string> out;
    for (const auto& e : sse.events) out.push_back(e.id);
    return out;
  }

  int status = 0;
  std::string body;
  SseParser sse;
  std::vector<Steady::time_point> commentTimes;  // when each comment arrived
  bool closed = false;    // the server closed the connection
  bool finished = false;  // the chunked body ended properly (the last, empty chunk)

 private:
  // One recv, waiting up to `limit`; false on timeout or end.
  bool Receive(std::chrono::milliseconds limit) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(limit.count(), 0))) <= 0) return false;
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) {
      closed = true;
      return false;
    }
    raw_.append(buf, static_cast<std::size_t>(n));
    if (!head_.empty() && body.empty()) Dechunk();
    return true;
  }

  void Dechunk() {
    for (;;) {
      const std::size_t eol = raw_.find("\r\n");
      if (eol == std::string::npos) return;
      const std::size_t size = std::stoul(raw_.substr(0, eol), nullptr, 16);
      if (raw_.size() < eol + 2 + size + 2) return;
      if (size == 0) finished = true;
      const std::size_t before = sse.comments.size();
      sse.Feed(std::string_view(raw_).substr(eol + 2, size));
      for (std::size_t i = before; i < sse.comments.size(); ++i) commentTimes.push_back(Steady::now());
      raw_.erase(0, eol + 2 + size + 2);
    }
  }

  int fd_ = -1;
  std::string raw_, head_;
};

// A store with a conversation, a key per permission set, one to three
// livechatd instances on its database.
struct Setup {
  TempDir dir;
  std::string db, storeId, allKey, conversationsKey, memberId, messages;
  std::vector<Daemon> daemons;
  int keys = 0;

  explicit Setup(int instances, const std::vector<std::string>& flags) {
    db = dir.File("stream.db");
    storeId = Str(Ctl(db, {"store", "create", "--name", "Stream Shop", "--plan", "pro"}), "id");
    allKey = Key("read_conversations,manage_conversations,read_customers");
    conversationsKey = Key("read_conversations");
    memberId = Str(Ctl(db, {"member", "create", "--store", storeId, "--email", "agent@stream.test", "--first-name",
                            "Ada", "--role", "member"}),
                   "id");
    const std::string id =
        Str(Ctl(db, {"conversation", "start", "--store", storeId, "--customer-name", "Streamer", "--text", "first"}),
            "id");
    messages = "/chat/conversations/" + id + "/messages";
    std::vector<std::string> all = {"--rate-limit-key", "1000000", "--rate-limit-ip", "1000000"};
    all.insert(all.end(), flags.begin(), flags.end());
    for (int i = 0; i < instances; ++i) daemons.push_back(StartDaemon(dir, db, all));
  }
  ~Setup() {
    for (auto& d : daemons)
      if (d.process) StopDaemon(d);
  }
  std::string Key(const std::string& permissions) {
    return Str(Ctl(db, {"key", "create", "--store", storeId, "--name", "key " + std::to_string(++keys), "--permissions",
                        permissions}),
               "key");
  }
  int Port(std::size_t i) const { return daemons[i % daemons.size()].port; }
  bool Reply(std::size_t instance, const std::string& text) {
    httplib::Client cli = e2e::MakeClient(Port(instance));
    auto res = cli.Post(messages, {{"X-Api-Key", allKey}},
                        "{\"text\":\"" + text + "\",\"memberId\":\"" + memberId + "\"}", "application/json");
    return res && res->status == 201;
  }
  // The polled feed from the start, every event's cursor in order.
  std::vector<std::string> Polled(const std::string& key) {
    std::vector<std::string> out;
    std::string cursor;
    httplib::Client cli = e2e::MakeClient(Port(0));
    for (;;) {
      auto res = cli.Get("/chat/events?limit=500" + (cursor.empty() ? std::string() : "&after=" + cursor),
                         {{"X-Api-Key", key}});
      REQUIRE(res);
      REQUIRE(res->status == 200);
      auto doc = ParseJson(res->body);
      for (const auto& e : doc["data"].GetArray()) out.push_back(e["cursor"].GetString());
      cursor = doc["paging"]["nextCursor"].GetString();
      if (!doc["paging"]["hasMore"].GetBool()) return out;
    }
  }
};

int Instances() { return livechat::testing::TestOnPostgres() ? 3 : 1; }

TEST_CASE("live feed e2e: while 3 writers write, a reader that disconnects twice and resumes with Last-Event-ID "
          "gets the polled feed exactly") {
  // On PostgreSQL each write lands on another instance than the reader's:
  // only the database poll brings it.
  Setup s(Instances(), {"--event-stream-poll", "200ms"});
  constexpr int kWriters = 3, kEach = 60;
  std::atomic<int> done{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      for (int i = 0; i < kEach; ++i)
        CHECK(s.Reply(static_cast<std::size_t>(w), "w" + std::to_string(w) + "-" + std::to_string(i)));
      done.fetch_add(1);
    });

  const std::size_t total = 3 + kWriters * kEach;  // the start's three events, then one per reply
  std::vector<std::string> seen;
  std::string last;
  for (std::size_t round = 0; round < 3 && seen.size() < total; ++round) {
    SseClient c(s.Port(round));
    REQUIRE(c.Open("/chat/events?limit=25", s.allKey, last) == 200);
    CHECK(c.Header("content-type") == "text/event-stream; charset=utf-8");
    CHECK(c.Header("cache-control") == "no-store");
    CHECK(c.Header("content-encoding").empty());
    // The first two connections go away mid-stream, the last reads to the end.
    const std::size_t want = round < 2 ? seen.size() + 40 : total;
    c.ReadUntil([&](const SseParser& p) { return seen.size() + p.events.size() >= want; }, 60s);
    for (const auto& id : c.Ids()) seen.push_back(id);
    if (!c.Ids().empty()) last = c.Ids().back();
  }
  for (auto& t : writers) t.join();
  const std::vector<std::string> polled = s.Polled(s.allKey);
  CHECK(polled.size() == total);
  CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == seen.size());
  CHECK(seen == polled);
}

TEST_CASE("live feed e2e: on PostgreSQL another instance's write reaches a stream at once, not at its next poll") {
  // One instance on SQLite: its own writes wake its streams (rest_event_stream_test.cc).
  if (!livechat::testing::TestOnPostgres()) return;
  Setup s(2, {"--event-stream-poll", "60s"});
  const std::string last = s.Polled(s.allKey).back();
  SseClient c(s.Port(0));
  REQUIRE(c.Open("/chat/events", s.allKey, last) == 200);
  // The stream has read once (nothing after `last`) and now waits for its
  // 60 s poll, or a wake-up.
  c.ReadUntil([](const SseParser& p) { return !p.retry.empty(); }, 5s);
  const auto start = Steady::now();
  REQUIRE(s.Reply(1, "written on the other instance"));
  REQUIRE(c.ReadUntil([](const SseParser& p) { return !p.events.empty(); }, 20s));
  CHECK(Steady::now() - start < 5s);
  CHECK(c.sse.events[0].event == "message.created");
  CHECK(c.sse.events[0].data.find("written on the other instance") != std::string::npos);
}

TEST_CASE("live feed e2e: heartbeats at the configured interval; no customer.created without Read customers; "
          "SIGTERM with streams open stops at once") {
  Setup s(1, {"--event-stream-heartbeat", "300ms"});
  SseClient limited(s.Port(0));
  REQUIRE(limited.Open("/chat/events", s.conversationsKey) == 200);
  REQUIRE(limited.ReadUntil([](const SseParser& p) { return p.events.size() == 2; }));
  CHECK(limited.sse.events[0].event == "conversation.created");
  CHECK(limited.sse.events[1].event == "message.created");
  CHECK(limited.sse.retry == "2000");

  // Idle now: a comment every 300 ms.
  REQUIRE(limited.ReadUntil([](const SseParser& p) { return p.comments.size() >= 5; }, 5s));
  for (const auto& c : limited.sse.comments) CHECK(c == "heartbeat");
  for (std::size_t i = 1; i < limited.commentTimes.size(); ++i) {
    const auto gap = limited.commentTimes[i] - limited.commentTimes[i - 1];
    INFO("heartbeat " << i << " after " << std::chrono::duration_cast<std::chrono::milliseconds>(gap).count() << " ms");
    CHECK(gap >= 250ms);
    CHECK(gap <= 800ms);
  }
  // A customer's first message later: its customer.created stays out too.
  Ctl(s.db, {"conversation", "start", "--store", s.storeId, "--customer-name", "Later", "--text", "hello"});
  REQUIRE(limited.ReadUntil([](const SseParser& p) { return p.events.size() == 4; }, 5s));
  for (const auto& e : limited.sse.events) CHECK(e.event != "customer.created");
  SseClient everything(s.Port(0));
  REQUIRE(everything.Open("/chat/events", s.allKey) == 200);
  REQUIRE(everything.ReadUntil([](const SseParser& p) { return p.events.size() == 6; }, 5s));
  CHECK(everything.sse.events[0].event == "customer.created");

  const auto stop = Steady::now();
  s.daemons[0].process->Signal(SIGTERM);
  auto code = s.daemons[0].process->WaitExit(5s);
  INFO("livechatd stderr: " << e2e::Slurp(s.daemons[0].stderrPath));
  REQUIRE(code.has_value());
  CHECK(*code == 0);
  CHECK(Steady::now() - stop < 2s);
  s.daemons[0].process.reset();
  // Each stream ended properly: the client resumes from its last id.
  CHECK(limited.ReadToEnd(2s));
  CHECK(limited.finished);
  CHECK(everything.ReadToEnd(2s));
  CHECK(everything.finished);
}

TEST_CASE("live feed e2e: a reader that stops reading is closed after the write timeout and resumes with "
          "Last-Event-ID; the server keeps answering meanwhile") {
  Setup s(1, {"--write-timeout", "1s", "--event-streams", "1"});
  // A small receive window, and events of about 15 KB (5,000 three-byte
  // characters): a few megabytes fill every buffer between the two ends.
  SseClient slow(s.Port(0), 4096);
  REQUIRE(slow.Open("/chat/events", s.allKey) == 200);
  REQUIRE(slow.ReadUntil([](const SseParser& p) { return p.events.size() == 3; }));
  std::string big;
  for (int i = 0; i < 5000; ++i) big += "\xe2\x82\xac";  // €
  constexpr int kReplies = 600;
  const auto start = Steady::now();
  for (int i = 0; i < kReplies; ++i) REQUIRE(s.Reply(0, big));
  // Every reply was answered while the stream was stuck; the stuck stream
  // gave up after 1 s without progress.
  std::this_thread::sleep_for(2s);
  INFO("the replies took " << std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - start).count()
                           << " ms");
  REQUIRE(slow.ReadToEnd(30s));
  CHECK_FALSE(slow.finished);  // cut off, not ended
  const std::vector<std::string> polled = s.Polled(s.allKey);
  REQUIRE(polled.size() == 3 + kReplies);
  const std::vector<std::string> got = slow.Ids();
  CHECK(got.size() < polled.size());
  REQUIRE_FALSE(got.empty());
  CHECK(got == std::vector<std::string>(polled.begin(), polled.begin() + static_cast<std::ptrdiff_t>(got.size())));

  // Its place is free again (--event-streams 1), and the rest follows.
  SseClient resumed(s.Port(0));
  REQUIRE(resumed.Open("/chat/events", s.allKey, got.back()) == 200);
  REQUIRE(resumed.ReadUntil([&](const SseParser& p) { return got.size() + p.events.size() >= polled.size(); }, 30s));
  std::vector<std::string> all = got;
  for (const auto& id : resumed.Ids()) all.push_back(id);
  CHECK(all == polled);
}

TEST_CASE("live feed e2e: a client that hangs up frees its place within the poll interval, not at the next "
          "heartbeat") {
  // A browser reloading the inbox drops its EventSource and opens a new one
  // at once. With 15 s heartbeats the server used to notice the old one only
  // at its next write, so a few reloads hit --event-streams-per-key (429).
  Setup s(1, {"--event-streams-per-key", "2", "--event-stream-heartbeat", "15s", "--event-stream-poll", "500ms"});
  // Each round opens the key's 2 places, then hangs up on both; the next
  // round gets them again within 3 s (about one poll interval, 500 ms), far
  // sooner than the 15 s heartbeat that used to find them gone.
  for (int round = 0; round < 4; ++round) {
    CAPTURE(round);
    std::vector<std::unique_ptr<SseClient>> open;
    const auto until = Steady::now() + 3s;
    int refused = 0;
    while (open.size() < 2 && Steady::now() < until) {
      auto c = std::make_unique<SseClient>(s.Port(0));
      if (c->Open("/chat/events", s.allKey) == 200) {
        open.push_back(std::move(c));
      } else {
        ++refused;
        std::this_thread::sleep_for(100ms);
      }
    }
    CHECK(open.size() == 2);
    if (round == 0) CHECK(refused == 0);
  }
}

TEST_CASE("live feed e2e: --event-streams and --event-streams-per-key: N open, the N+1th is 429 with Retry-After; "
          "a closed stream's place comes back; a bad cursor or key is answered before streaming") {
  Setup s(1, {"--event-streams", "3", "--event-streams-per-key", "2", "--event-stream-heartbeat", "200ms",
              "--threads", "8"});
  const std::string other = s.Key("read_conversations"), third = s.Key("read_conversations");
  std::vector<std::unique_ptr<SseClient>> open;
  auto openOne = [&](const std::string& key) {
    auto c = std::make_unique<SseClient>(s.Port(0));
    const int status = c->Open("/chat/events", key);
    if (status == 200) open.push_back(std::move(c));
    return status;
  };
  REQUIRE(openOne(s.allKey) == 200);
  REQUIRE(openOne(s.allKey) == 200);
  {
    SseClient refused(s.Port(0));
    CHECK(refused.Open("/chat/events", s.allKey) == 429);
    CHECK(refused.Header("retry-after") == "2");
    CHECK(e2e::ErrorCodeOf(refused.body) == "RATE_LIMITED");
    CHECK(ParseJson(refused.body)["error"]["message"].GetString() ==
          std::string("this key has 2 event streams open on this server, its most: close one, or retry later"));
  }
  REQUIRE(openOne(other) == 200);
  {
    SseClient refused(s.Port(0));
    CHECK(refused.Open("/chat/events", third) == 429);
    CHECK(refused.Header("retry-after") == "2");
    CHECK(ParseJson(refused.body)["error"]["message"].GetString() ==
          std::string("this server has 3 event streams open, its most: poll GET /chat/events, or retry later"));
  }
  // The streams hold 3 of the 8 threads: the API still answers.
  httplib::Client cli = e2e::MakeClient(s.Port(0));
  auto polled = cli.Get("/chat/events", {{"X-Api-Key", third}});
  REQUIRE(polled);
  CHECK(polled->status == 200);

  // A client goes; the server notices at its next heartbeat and frees the place.
  open.erase(open.begin());
  int status = 0;
  const auto until = Steady::now() + 5s;
  while (Steady::now() < until && (status = openOne(third)) != 200) std::this_thread::sleep_for(100ms);
  CHECK(status == 200);

  // The polled form's refusals, as JSON, before any stream (the place is
  // not taken: the server is full).
  open.erase(open.begin());
  std::this_thread::sleep_for(500ms);
  SseClient bad(s.Port(0));
  CHECK(bad.Open("/chat/events", third, "not-a-cursor") == 400);
  CHECK(e2e::ErrorCodeOf(bad.body) == "INVALID_PARAMS");
  SseClient forbidden(s.Port(0));
  CHECK(forbidden.Open("/chat/events", s.Key("read_customers")) == 403);
  CHECK(e2e::ErrorCodeOf(forbidden.body) == "FORBIDDEN");
  open.clear();
}

}  // namespace
