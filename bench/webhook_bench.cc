// Webhook delivery throughput: events queued into a SQLite file store, then
// drained by WebhookDispatcher through livechatd's HTTPS transport to a local
// cpp-httplib SSLServer that answers 200 (keep-alive, loopback). Beside it,
// the same transport without the dispatcher (the network + TLS ceiling), and
// libsodium's HMAC-SHA256 over the same payload (the signing ceiling).
//
// usage: bench_webhook [--events N] [--subscriptions S] [--threads T]
//   Runs two scenarios: N events to one subscription (deliveries to one
//   endpoint are sequential by design), and N/S events to S subscriptions
//   (N deliveries in all, S endpoints in parallel). Prints a Markdown table.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include "e2e/tls_material.h"
#include "livechat/chat_service.h"
#include "livechat/https_webhook_transport.h"
#include "livechat/principal.h"
#include "livechat/sqlite_store.h"
#include "livechat/store.h"
#include "livechat/webhooks.h"

namespace {

using SteadyClock = std::chrono::steady_clock;

double Seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_webhook: %s\n", what.c_str());
  std::exit(1);
}

struct Receiver {
  std::unique_ptr<httplib::SSLServer> server;
  std::thread thread;
  std::atomic<std::uint64_t> requests{0};
  int port = 0;

  explicit Receiver(const e2e::TlsMaterial& tls) {
    server = std::make_unique<httplib::SSLServer>(tls.certPath.c_str(), tls.keyPath.c_str());
    if (!server->is_valid()) Die("cannot start the TLS receiver");
    server->set_tcp_nodelay(true);
    server->set_keep_alive_max_count(1'000'000);
    server->new_task_queue = [] { return new httplib::ThreadPool(16); };
    server->Post(".*", [this](const httplib::Request&, httplib::Response& res) {
      requests.fetch_add(1);
      res.set_content("ok", "text/plain");
    });
    port = server->bind_to_any_port("127.0.0.1");
    if (port <= 0) Die("cannot bind the receiver");
    thread = std::thread([this] { server->listen_after_bind(); });
    while (!server->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~Receiver() {
    server->stop();
    thread.join();
  }
};

struct Scenario {
  int events = 0;
  int subscriptions = 0;
  int threads = 0;
  double fillSeconds = 0;
  std::uint64_t deliveries = 0;
  double drainSeconds = 0;
  std::uint64_t connections = 0;
};

// Fills a fresh store with `events` message.created events fanned out to
// `subscriptions` subscriptions, then times the dispatcher draining them.
Scenario RunDispatcher(const std::string& dir, const e2e::TlsMaterial& tls, Receiver& receiver, int events,
                       int subscriptions, int threads) {
  Scenario s{events, subscriptions, threads};
  const std::string db = dir + "/bench-" + std::to_string(subscriptions) + ".db";
  livechat::SqliteOptions so;
  so.path = db;
  auto opened = livechat::OpenSqliteStore(so);
  if (!opened.ok()) Die("open store: " + opened.error().message);
  std::unique_ptr<livechat::Store> store = std::move(opened).value();

  livechat::ServiceOptions svcOptions;
  svcOptions.store = store.get();
  svcOptions.allowPrivateWebhookTargets = true;
  livechat::ChatService service(svcOptions);
  auto shop = service.directory().CreateShop({"Bench Shop", livechat::Plan::kPro, false});
  if (!shop.ok()) Die("create shop: " + shop.error().message);
  const livechat::Principal p = livechat::Principal::System(shop->id);
  for (int i = 0; i < subscriptions; ++i) {
    livechat::CreateWebhookInput in;
    in.url = "https://127.0.0.1:" + std::to_string(receiver.port) + "/hook/" + std::to_string(i);
    in.events = std::vector<std::string>{"message.created"};
    auto sub = service.webhooks().CreateWebhook(p, in);
    if (!sub.ok()) Die("create webhook: " + sub.error().message);
  }

  // One conversation, one customer message per event: the common webhook.
  const auto f0 = SteadyClock::now();
  std::string conversationId;
  for (int i = 0; i < events; ++i) {
    livechat::InboundMessageInput m;
    m.customerName = "Bench Customer";
    m.customerEmail = "customer@bench.test";
    m.text = "Hello, is order #" + std::to_string(100000 + i) + " on its way? It was due on Monday.";
    if (!conversationId.empty()) m.conversationId = conversationId;
    auto c = service.conversations().ReceiveInbound(p, m);
    if (!c.ok()) Die("receive inbound: " + c.error().message);
    conversationId = c->id;
  }
  s.fillSeconds = Seconds(SteadyClock::now() - f0);
  s.deliveries = static_cast<std::uint64_t>(events) * static_cast<std::uint64_t>(subscriptions);

  livechat::HttpsTransportOptions to;
  to.extraCaFile = tls.caCertPath;
  auto transport = livechat::HttpsWebhookTransport::Create(to);
  if (!transport.ok()) Die("transport: " + transport.error().message);
  livechat::DispatcherOptions d;
  d.store = store.get();
  d.transport = transport->get();
  d.allowPrivateTargets = true;
  d.threads = threads;
  livechat::WebhookDispatcher dispatcher(d);

  const std::uint64_t before = receiver.requests.load();
  const auto t0 = SteadyClock::now();
  dispatcher.Start();
  const auto deadline = t0 + std::chrono::minutes(10);
  while (receiver.requests.load() - before < s.deliveries) {
    if (SteadyClock::now() > deadline) Die("the dispatcher did not drain within 10 minutes");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  s.drainSeconds = Seconds(SteadyClock::now() - t0);
  dispatcher.Stop();
  s.connections = (*transport)->connectionsOpened();

  auto stats = store->Read([&](livechat::StoreReader& r) -> livechat::Status {
    auto st = r.GetOutboxStats();
    if (!st.ok()) return st.error();
    if (st->pending != 0) Die("deliveries still pending after the drain: " + std::to_string(st->pending));
    return livechat::Status::Ok();
  });
  if (!stats.ok()) Die("outbox stats: " + stats.error().message);
  return s;
}

// The transport alone: `threads` senders, `perThread` POSTs each, the same
// signed payload, no store.
double RunTransport(const e2e::TlsMaterial& tls, Receiver& receiver, const std::string& payload, int threads,
                    int perThread, std::uint64_t* connections) {
  livechat::HttpsTransportOptions to;
  to.extraCaFile = tls.caCertPath;
  auto transport = livechat::HttpsWebhookTransport::Create(to);
  if (!transport.ok()) Die("transport: " + transport.error().message);
  auto target = livechat::ParseHttpsUrl("https://127.0.0.1:" + std::to_string(receiver.port) + "/hook");
  if (!target.ok()) Die("url");
  target->address = "127.0.0.1";
  std::atomic<int> failures{0};
  const auto t0 = SteadyClock::now();
  std::vector<std::thread> senders;
  for (int t = 0; t < threads; ++t) {
    senders.emplace_back([&] {
      livechat::WebhookRequest req;
      req.target = *target;
      req.body = payload;
      req.headers = {{"Content-Type", "application/json"},
                     {"X-Webhook-Signature", livechat::WebhookSignature("whsec_bench", "1700000000", payload)}};
      for (int i = 0; i < perThread; ++i)
        if ((*transport)->Send(req).status != 200) failures.fetch_add(1);
    });
  }
  for (auto& t : senders) t.join();
  const double secs = Seconds(SteadyClock::now() - t0);
  if (failures.load() != 0) Die(std::to_string(failures.load()) + " transport sends failed");
  *connections = (*transport)->connectionsOpened();
  return static_cast<double>(threads) * perThread / secs;
}

double RunHmac(const std::string& payload, std::uint64_t* iterations) {
  const std::string secret = "whsec_0123456789abcdef0123456789abcdef0123456789abcdef";
  std::uint64_t n = 0;
  std::size_t sink = 0;
  const auto t0 = SteadyClock::now();
  SteadyClock::duration elapsed{};
  do {
    for (int i = 0; i < 1000; ++i) sink += livechat::WebhookSignature(secret, "1700000000", payload)[0];
    n += 1000;
    elapsed = SteadyClock::now() - t0;
  } while (elapsed < std::chrono::seconds(2));
  if (sink == 0) std::puts("");  // keeps the loop from being optimized away
  *iterations = n;
  return static_cast<double>(n) / Seconds(elapsed);
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  int events = 20'000, subscriptions = 4, threads = 4;
  if (argc % 2 == 0) Die("usage: bench_webhook [--events N] [--subscriptions S] [--threads T]");
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    int v = std::atoi(argv[i + 1]);
    if (v <= 0) Die("bad value for " + flag);
    if (flag == "--events") events = v;
    else if (flag == "--subscriptions") subscriptions = v;
    else if (flag == "--threads") threads = v;
    else Die("unknown flag " + flag);
  }

  std::string dir = (std::filesystem::temp_directory_path() / "livechat-whbench-XXXXXX").string();
  if (::mkdtemp(dir.data()) == nullptr) Die("mkdtemp");
  const e2e::TlsMaterial tls = e2e::MakeTlsMaterial(dir);
  Receiver receiver(tls);

  // The payload every scenario sends: a message.created envelope.
  livechat::Event sample{"3f1c2d4e-0000-4000-8000-000000000001", "shop_bench", "message.created",
                         std::string("c_bench"), 1'700'000'000'000,
                         "{\"messageId\":\"m_1\",\"text\":\"Hello, is order #100000 on its way? It was due on "
                         "Monday.\",\"senderType\":\"customer\",\"memberId\":null,\"createdAt\":\"2023-11-14T22:13:"
                         "20.000Z\"}"};
  // BuildPayload needs neither the store nor the transport.
  const std::string payload = livechat::WebhookDispatcher(livechat::DispatcherOptions{}).BuildPayload(sample);

  std::uint64_t hmacIterations = 0;
  const double hmacRate = RunHmac(payload, &hmacIterations);
  std::uint64_t rawConnections = 0;
  const double transportRate = RunTransport(tls, receiver, payload, threads, 5000, &rawConnections);
  const Scenario one = RunDispatcher(dir, tls, receiver, events, 1, threads);
  const Scenario many = RunDispatcher(dir, tls, receiver, events / subscriptions, subscriptions, threads);

  std::error_code ec;
  std::filesystem::remove_all(dir, ec);

  auto rate = [](const Scenario& s) { return static_cast<double>(s.deliveries) / s.drainSeconds; };
  std::printf("machine: %u cores (nproc), %s\n", std::thread::hardware_concurrency(), CpuModel().c_str());
  std::printf("payload: %zu bytes (message.created envelope)\n\n", payload.size());
  std::printf("| Measure | Work | Time | Rate |\n|---|---|---|---|\n");
  std::printf("| HMAC-SHA256 signature (libsodium, WebhookSignature) | %llu signatures | 2.0 s | %.0f /s |\n",
              static_cast<unsigned long long>(hmacIterations), hmacRate);
  std::printf("| HTTPS transport alone, %d threads, keep-alive | %d POSTs, %llu connections | %.2f s | %.0f /s |\n",
              threads, threads * 5000, static_cast<unsigned long long>(rawConnections),
              threads * 5000 / transportRate, transportRate);
  for (const Scenario* s : {&one, &many}) {
    std::printf("| Dispatcher, %d subscription%s, %d threads | %llu deliveries, %llu connections | %.2f s | "
                "%.0f /s |\n",
                s->subscriptions, s->subscriptions == 1 ? "" : "s", s->threads,
                static_cast<unsigned long long>(s->deliveries), static_cast<unsigned long long>(s->connections),
                s->drainSeconds, rate(*s));
  }
  std::printf("\nqueueing (ReceiveInbound, outbox rows in the same transaction): %d events in %.2f s (%.0f /s), "
              "%d events in %.2f s (%.0f /s)\n",
              one.events, one.fillSeconds, one.events / one.fillSeconds, many.events, many.fillSeconds,
              many.events / many.fillSeconds);
  std::printf("signing ceiling / best dispatcher rate: %.0fx\n", hmacRate / std::max(rate(one), rate(many)));
  return 0;
}
