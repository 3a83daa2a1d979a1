// The live change feed, GET /chat/events with Accept: text/event-stream
// (issue 18), in process: the stream is the polled list as Server-Sent Events
// (id = cursor), resumes from Last-Event-ID, answers the polled form's errors
// as JSON before streaming, is capped in all and per key, wakes on local
// writes, and ends on a stop, at its end of life, or when a write fails. On
// SQLite here and on PostgreSQL in the rest_pg entry of ctest. Real
// processes and sockets: tests/e2e/event_stream_e2e_test.cc.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "livechat/json_codec.h"
#include "support/rest_fixture.h"
#include "support/sse.h"

namespace livechat {
namespace {

using namespace livechat::testing;
using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

RestOptions Streams(int max = 16, int perKey = 4, Millis heartbeat = 50, Millis poll = 50, Millis lifetime = 60'000) {
  RestOptions o;
  o.eventStreams.maxStreams = max;
  o.eventStreams.maxStreamsPerKey = perKey;
  o.eventStreams.heartbeatMillis = heartbeat;
  o.eventStreams.pollMillis = poll;
  o.eventStreams.lifetimeMillis = lifetime;
  return o;
}

HttpRequest LiveRequest(RestFixture& f, const std::string& query, const std::string& key = "") {
  HttpRequest req = f.Request("GET", "/chat/events" + query);
  if (!key.empty()) req.headers = {{"x-api-key", key}};
  req.headers.emplace_back("accept", "text/event-stream");
  return req;
}

SseParser Parse(const std::string& text) {
  SseParser p;
  p.Feed(text);
  return p;
}

// The polled feed from the start: each item's cursor and JSON text.
struct Polled {
  std::vector<std::string> cursors, types;
  rapidjson::Document doc;
};
Polled PollAll(RestFixture& f, const std::string& key = "") {
  Reply r = key.empty() ? f.Get("/chat/events?limit=500") : f.GetWithKey("/chat/events?limit=500", key);
  REQUIRE(r.status() == 200);
  Polled p;
  for (const auto& e : r.data().GetArray()) {
    p.cursors.push_back(Str(At(e, "cursor")));
    p.types.push_back(Str(At(e, "type")));
  }
  p.doc.CopyFrom(r.json, p.doc.GetAllocator());
  return p;
}

std::vector<std::string> Ids(const SseParser& p) {
  std::vector<std::string> ids;
  for (const auto& e : p.events) ids.push_back(e.id);
  return ids;
}

// One line per event, "type cursor": a failed comparison prints both feeds
// as text a person can compare.
std::string Listing(const SseParser& p) {
  std::string out;
  for (const auto& e : p.events) out += e.event + " " + e.id + "\n";
  return out;
}
std::string Listing(const Polled& p) {
  std::string out;
  for (std::size_t i = 0; i < p.cursors.size(); ++i) out += p.types[i] + " " + p.cursors[i] + "\n";
  return out;
}

// A stream consumed on a thread of its own, as a host would, readable while
// it runs.
class LiveReader {
 public:
  explicit LiveReader(HttpResponse resp) : resp_(std::move(resp)) {
    REQUIRE(resp_.stream);
    thread_ = std::thread([this] {
      Sink sink(*this);
      resp_.stream(sink);
      std::lock_guard<std::mutex> lock(mu_);
      ended_ = true;
      cv_.notify_all();
    });
  }
  ~LiveReader() {
    Close();
    thread_.join();
  }
  // The next Write fails, as when the client goes.
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  // Waits up to `limit` for `ready(parsed text)`; whether it came.
  template <typename Pred>
  bool WaitFor(Pred ready, std::chrono::milliseconds limit = 10s) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return ready(Parse(text_)); });
  }
  bool WaitEnd(std::chrono::milliseconds limit) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return ended_; });
  }
  SseParser Parsed() {
    std::lock_guard<std::mutex> lock(mu_);
    return Parse(text_);
  }

 private:
  struct Sink final : StreamSink {
    LiveReader& r;
    explicit Sink(LiveReader& reader) : r(reader) {}
    bool Write(std::string_view bytes) override {
      std::lock_guard<std::mutex> lock(r.mu_);
      if (r.closed_) return false;
      r.text_.append(bytes);
      r.cv_.notify_all();
      return true;
    }
  };
  HttpResponse resp_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string text_;
  bool closed_ = false, ended_ = false;
  std::thread thread_;
};

TEST_CASE("event stream: Accept: text/event-stream gives the polled list as SSE, id the cursor, data the item") {
  RestFixture f(RelaxedLimits(), Streams());
  for (int i = 0; i < 5; ++i) f.InboundFrom("buyer" + std::to_string(i) + "@example.com", "question");
  const Polled polled = PollAll(f);
  REQUIRE(polled.cursors.size() == 15);

  Reply live = f.Send(LiveRequest(f, ""));
  REQUIRE(live.status() == 200);
  CHECK(live.header("Content-Type") == "text/event-stream; charset=utf-8");
  CHECK(live.header("Cache-Control") == "no-store");
  CHECK(live.raw.route == "/chat/events");
  const SseParser sse = Parse(live.raw.body);
  CHECK(sse.retry == "2000");
  REQUIRE(sse.events.size() == 15);
  CHECK(Ids(sse) == polled.cursors);
  for (std::size_t i = 0; i < sse.events.size(); ++i) {
    CHECK(sse.events[i].event == polled.types[i]);
    // The same object as the polled list's item, field for field.
    CHECK(ParseJson(sse.events[i].data) == At(polled.doc, "data")[static_cast<rapidjson::SizeType>(i)]);
  }
  CHECK(sse.comments == std::vector<std::string>{"heartbeat"});

  // Accept lists and parameters; q=0 refuses; anything else is the JSON list.
  HttpRequest listed = LiveRequest(f, "");
  listed.headers.back().second = "application/json;q=0.5, TEXT/Event-Stream;charset=utf-8";
  CHECK(f.Send(listed).header("Content-Type") == "text/event-stream; charset=utf-8");
  for (const char* accept : {"text/event-stream;q=0", "application/json", "*/*", "text/*"}) {
    HttpRequest other = LiveRequest(f, "");
    other.headers.back().second = accept;
    Reply r = f.Send(other);
    CHECK(r.status() == 200);
    CHECK(r.data().Size() == 15);
  }
}

TEST_CASE("event stream: Last-Event-ID resumes after that event and wins over after; types and limit apply") {
  RestFixture f(RelaxedLimits(), Streams());
  for (int i = 0; i < 4; ++i) f.InboundFrom("buyer" + std::to_string(i) + "@example.com", "question");
  const Polled polled = PollAll(f);
  REQUIRE(polled.cursors.size() == 12);

  HttpRequest resume = LiveRequest(f, "?after=" + polled.cursors[1] + "&limit=2");
  resume.headers.emplace_back("last-event-id", polled.cursors[6]);
  Reply r = f.Send(resume);
  REQUIRE(r.status() == 200);
  // limit is the size of each read, not of the stream: all five follow.
  CHECK(Ids(Parse(r.raw.body)) == std::vector<std::string>(polled.cursors.begin() + 7, polled.cursors.end()));

  Reply after = f.Send(LiveRequest(f, "?after=" + polled.cursors[9]));
  CHECK(Ids(Parse(after.raw.body)) == std::vector<std::string>(polled.cursors.begin() + 10, polled.cursors.end()));

  Reply typed = f.Send(LiveRequest(f, "?types=message.created"));
  for (const auto& e : Parse(typed.raw.body).events) CHECK(e.event == "message.created");
  CHECK(Parse(typed.raw.body).events.size() == 4);

  // The stream's end, resumed from: nothing new, then the heartbeat.
  HttpRequest atEnd = LiveRequest(f, "");
  atEnd.headers.emplace_back("last-event-id", polled.cursors.back());
  Reply idle = f.Send(atEnd);
  CHECK(Parse(idle.raw.body).events.empty());
  CHECK(Parse(idle.raw.body).comments == std::vector<std::string>{"heartbeat"});
}

TEST_CASE("event stream: the polled form's errors come as JSON before any stream; unreadable types are left out") {
  RestFixture f(RelaxedLimits(), Streams());
  f.InboundFrom("old@example.com", "old news");
  const std::string start = PollAll(f).cursors[0];

  HttpRequest bad = LiveRequest(f, "");
  bad.headers.emplace_back("last-event-id", "not-a-cursor");
  Reply invalid = f.Send(bad);
  CHECK(invalid.status() == 400);
  CHECK(invalid.code() == "INVALID_PARAMS");
  CHECK(f.Send(LiveRequest(f, "?types=nope")).status() == 400);

  Reply forbidden = f.Send(LiveRequest(f, "", f.NewKey(kPermReadCustomers)));
  CHECK(forbidden.status() == 403);
  CHECK(forbidden.code() == "FORBIDDEN");

  // Without Read customers, customer.created is not in the stream.
  Reply convOnly = f.Send(LiveRequest(f, "", f.NewKey(kPermReadConversations)));
  REQUIRE(convOnly.status() == 200);
  std::vector<std::string> types;
  for (const auto& e : Parse(convOnly.raw.body).events) types.push_back(e.event);
  CHECK(types == std::vector<std::string>{"conversation.created", "message.created"});

  f.clock.Advance(8LL * 24 * 3600 * 1000);  // past the default 7 days
  f.InboundFrom("new@example.com", "fresh");
  CHECK(RestFixture::Must(f.service().feed().PruneEventFeed()) == 3);
  HttpRequest expired = LiveRequest(f, "");
  expired.headers.emplace_back("last-event-id", start);
  Reply gone = f.Send(expired);
  CHECK(gone.status() == 410);
  CHECK(gone.code() == "CURSOR_EXPIRED");
  CHECK(gone.header("Content-Type").rfind("application/json", 0) == 0);
  CHECK(f.api().OpenEventStreams() == 0);  // a refused stream holds no place
}

TEST_CASE("event stream: N streams open, the N+1th is 429 with Retry-After, in all and per key; a place comes back") {
  RestFixture f(RelaxedLimits(), Streams(/*max=*/3, /*perKey=*/2));
  const std::string a = f.NewKey(kPermReadConversations), b = f.NewKey(kPermReadConversations),
                    c = f.NewKey(kPermReadConversations);
  std::vector<HttpResponse> open;
  for (int i = 0; i < 2; ++i) {
    open.push_back(f.api().Handle(LiveRequest(f, "", a)));
    REQUIRE(open.back().status == 200);
  }
  Reply thirdOfA = f.Send(LiveRequest(f, "", a));
  CHECK(thirdOfA.status() == 429);
  CHECK(thirdOfA.code() == "RATE_LIMITED");
  CHECK(thirdOfA.message() == "this key has 2 event streams open on this server, its most: close one, or retry later");
  CHECK(thirdOfA.header("Retry-After") == "2");
  open.push_back(f.api().Handle(LiveRequest(f, "", b)));
  REQUIRE(open.back().status == 200);
  CHECK(f.api().OpenEventStreams() == 3);
  Reply full = f.Send(LiveRequest(f, "", c));
  CHECK(full.status() == 429);
  CHECK(full.message() == "this server has 3 event streams open, its most: poll GET /chat/events, or retry later");
  CHECK(full.header("Retry-After") == "2");
  // The polled form is never capped.
  CHECK(f.GetWithKey("/chat/events", c).status() == 200);

  open.erase(open.begin());  // a stream of `a` ends
  CHECK(f.api().OpenEventStreams() == 2);
  open.push_back(f.api().Handle(LiveRequest(f, "", c)));
  CHECK(open.back().status == 200);
  CHECK(f.Send(LiveRequest(f, "", a)).status() == 429);  // the server is full again
  open.clear();
  CHECK(f.api().OpenEventStreams() == 0);
}

TEST_CASE("event stream: events written while it is open follow in order, each once; a local write wakes it") {
  // The poll is long, so only the wake-up can bring an event quickly.
  RestFixture f(RelaxedLimits(), Streams(16, 4, /*heartbeat=*/60'000, /*poll=*/60'000));
  f.InboundFrom("first@example.com", "hello");
  LiveReader reader(f.api().Handle(LiveRequest(f, "")));
  REQUIRE(reader.WaitFor([](const SseParser& p) { return p.events.size() == 3; }));

  const auto before = Steady::now();
  f.InboundFrom("second@example.com", "again");
  f.api().WakeEventStreams();
  CHECK(reader.WaitFor([](const SseParser& p) { return p.events.size() == 6; }, 5s));
  CHECK(Steady::now() - before < 5s);

  constexpr int kWriters = 4, kEach = 25;
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      for (int i = 0; i < kEach; ++i) {
        f.InboundFrom("w" + std::to_string(w) + "@example.com", "message " + std::to_string(i));
        f.api().WakeEventStreams();
      }
    });
  for (auto& t : writers) t.join();
  // Per writer: customer.created once, then a conversation (an inbound
  // message without a conversation id starts one) with its message.created
  // per message. The wait is for that exact count, so the stream has caught
  // up with every write when the feeds are compared.
  const std::size_t total = 6 + kWriters * (1 + 2 * kEach);
  REQUIRE(reader.WaitFor([&](const SseParser& p) { return p.events.size() >= total; }));
  CHECK(Listing(reader.Parsed()) == Listing(PollAll(f)));
  // The stream would otherwise notice its closed client only at the next
  // heartbeat, a minute away.
  f.api().StopEventStreams();
  CHECK(reader.WaitEnd(5s));
}

TEST_CASE("event stream: it ends on a stop, at the end of its life, and when a write fails; each gives its place back") {
  RestFixture f(RelaxedLimits(), Streams(16, 4, /*heartbeat=*/60'000, /*poll=*/60'000, /*lifetime=*/400));
  f.InboundFrom("first@example.com", "hello");

  // The end of its life: the stream returns by itself.
  const auto start = Steady::now();
  Reply aged = f.Send(LiveRequest(f, ""), [](const std::string&) { return false; });
  CHECK(Steady::now() - start >= 400ms);
  CHECK(Steady::now() - start < 5s);
  CHECK(Parse(aged.raw.body).events.size() == 3);

  // A write the client does not take: the producer returns at once.
  Reply gone = f.Send(LiveRequest(f, ""), [](const std::string&) { return true; });
  CHECK(gone.raw.body.rfind("retry: 2000\n\n", 0) == 0);
  CHECK(f.api().OpenEventStreams() == 0);

  RestFixture g(RelaxedLimits(), Streams(16, 4, 60'000, 60'000, 600'000));
  auto reader = std::make_unique<LiveReader>(g.api().Handle(LiveRequest(g, "")));
  REQUIRE(reader->WaitFor([](const SseParser& p) { return p.retry == "2000"; }));
  CHECK(g.api().OpenEventStreams() == 1);
  const auto stop = Steady::now();
  g.api().StopEventStreams();
  CHECK(reader->WaitEnd(2s));
  CHECK(Steady::now() - stop < 2s);
  reader.reset();
  CHECK(g.api().OpenEventStreams() == 0);
  Reply refused = g.Send(LiveRequest(g, ""));
  CHECK(refused.status() == 429);
  CHECK(refused.message() == "the server is stopping: reconnect to another instance");
}

}  // namespace
}  // namespace livechat
