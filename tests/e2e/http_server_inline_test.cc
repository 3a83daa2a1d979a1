// livechatd's HTTP listener (hosts/livechatd/http_server.cc) in process, on
// real loopback sockets: what happens to a request the owner asked to run on
// the I/O thread (HttpHandlers::runsInline) when its answer turns out to be a
// stream or a deferred reply. livechatd's own routes never answer a bounded
// read that way today, so these branches are driven here directly.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "e2e/e2e_helpers.h"
#include "http_server.h"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Which thread ran what, by path.
struct Threads {
  std::mutex mu;
  std::thread::id worker;       // ran /worker/id (the one worker thread)
  std::thread::id streamHandle; // ran the handler of /inline/stream
  std::thread::id producer;     // ran the stream's producer
  std::thread::id deferHandle;  // ran the handler of /inline/deferred
  std::atomic<int> producers{0};  // streams under way
};

class Listener {
 public:
  // One worker by default: what runs there is easy to tell.
  explicit Listener(Threads& t, int workers = 1) : t_(t) {
    livechatd::HttpServerOptions o;
    o.name = "test";
    o.threads = workers;
    livechatd::HttpHandlers h;
    h.runsInline = [](const livechat::HttpRequest& r) { return r.target.rfind("/inline/", 0) == 0; };
    h.refuse = [](int status, std::string_view message, const livechat::HttpRequest&) {
      livechat::HttpResponse res;
      res.status = status;
      res.body = std::string(message);
      return res;
    };
    h.handle = [this](livechat::HttpRequest& r) { return Handle(r); };
    server_ = std::make_unique<livechatd::HttpServer>(o, h);
    std::string error;
    port_ = server_->Bind("127.0.0.1", 0, &error);
    REQUIRE_MESSAGE(port_ > 0, error);
    server_->Start();
  }
  ~Listener() {
    server_->Stop();
    server_->Wait();
  }
  int port() const { return port_; }

 private:
  livechat::HttpResponse Handle(livechat::HttpRequest& r) {
    livechat::HttpResponse res;
    res.status = 200;
    res.headers.emplace_back("Content-Type", "text/plain");
    if (r.target == "/worker/id") {
      std::lock_guard<std::mutex> lock(t_.mu);
      t_.worker = std::this_thread::get_id();
      res.body = "worker";
    } else if (r.target == "/inline/plain") {
      res.body = "plain";
    } else if (r.target == "/inline/stream") {
      {
        std::lock_guard<std::mutex> lock(t_.mu);
        t_.streamHandle = std::this_thread::get_id();
      }
      res.stream = [this](livechat::StreamSink& sink) {
        {
          std::lock_guard<std::mutex> lock(t_.mu);
          t_.producer = std::this_thread::get_id();
        }
        ++t_.producers;
        if (!sink.Write("first;")) return;
        std::this_thread::sleep_for(600ms);  // a live stream waits for what to send
        (void)sink.Write("second");
      };
    } else if (r.target == "/inline/deferred") {
      {
        std::lock_guard<std::mutex> lock(t_.mu);
        t_.deferHandle = std::this_thread::get_id();
      }
      res.deferred = [](livechat::HttpReply reply) {
        // The answer comes from elsewhere, later (a long-poll's wake-up).
        std::thread([reply = std::move(reply)]() mutable {
          std::this_thread::sleep_for(200ms);
          livechat::HttpResponse later;
          later.status = 202;
          later.body = "later";
          reply(std::move(later));
        }).detach();
      };
    } else {
      res.status = 404;
      res.body = "no such path";
    }
    return res;
  }

  Threads& t_;
  std::unique_ptr<livechatd::HttpServer> server_;
  int port_ = 0;
};

TEST_CASE("http server: a stream from an inline request runs on a worker, never on the I/O thread") {
  Threads t;
  Listener server(t);
  auto worker = e2e::MakeClient(server.port());
  REQUIRE(worker.Get("/worker/id"));

  auto client = e2e::MakeClient(server.port());
  auto res = client.Get("/inline/stream");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->body == "first;second");
  std::lock_guard<std::mutex> lock(t.mu);
  // Its handler ran inline (not on the worker); its producer, which waits for
  // as long as the stream lasts, was handed to the worker.
  CHECK(t.streamHandle != t.worker);
  CHECK(t.producer == t.worker);
  CHECK(t.producer != t.streamHandle);
}

TEST_CASE("http server: while inline requests' streams wait, other inline requests are answered at once") {
  // As many streams as the listener has I/O threads (one per core, up to 4),
  // and a worker for each: were a producer run on the I/O thread that read
  // its request, every I/O thread would be asleep in one.
  const int streams = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 4);
  Threads t;
  Listener server(t, /*workers=*/streams);
  std::vector<std::thread> streaming;
  for (int i = 0; i < streams; ++i)
    streaming.emplace_back([&] {
      auto client = e2e::MakeClient(server.port());
      auto res = client.Get("/inline/stream");
      REQUIRE(res);
      CHECK(res->body == "first;second");
    });
  for (int spins = 0; spins < 500 && t.producers.load() < streams; ++spins) std::this_thread::sleep_for(2ms);
  REQUIRE(t.producers.load() == streams);
  for (int i = 0; i < 4; ++i) {
    auto client = e2e::MakeClient(server.port());  // a new connection each: any I/O thread
    const auto start = Clock::now();
    auto res = client.Get("/inline/plain");
    const auto took = Clock::now() - start;
    REQUIRE(res);
    CHECK(res->body == "plain");
    CHECK(took < 250ms);  // each stream sleeps 600 ms between its writes
  }
  for (auto& th : streaming) th.join();
}

TEST_CASE("http server: an inline request deferred answers when its reply comes, from another thread") {
  Threads t;
  Listener server(t);
  auto worker = e2e::MakeClient(server.port());
  REQUIRE(worker.Get("/worker/id"));
  auto client = e2e::MakeClient(server.port());
  const auto start = Clock::now();
  auto res = client.Get("/inline/deferred");
  const auto took = Clock::now() - start;
  REQUIRE(res);
  CHECK(res->status == 202);
  CHECK(res->body == "later");
  CHECK(took >= 200ms);
  // The same keep-alive connection serves the next request.
  auto again = client.Get("/inline/plain");
  REQUIRE(again);
  CHECK(again->body == "plain");
  std::lock_guard<std::mutex> lock(t.mu);
  CHECK(t.deferHandle != t.worker);  // it ran inline, and held no worker while it waited
}

}  // namespace
