// livechatd: the standalone server. Flags and environment in, one store
// (SQLite or PostgreSQL), the adapters behind the HTTP listeners
// (http_server.h), the webhook dispatcher on its own threads, graceful stop
// on SIGTERM/SIGINT.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemon_config.h"
#include "demo_store.h"
#include "http_bridge.h"
#include "http_server.h"
#include "inbox_routes.h"
#include "livechat/base/worker_loop.h"
#include "livechat/blob_store.h"
#include "livechat/chat_service.h"
#include "livechat/clock.h"
#include "livechat/file_server.h"
#include "livechat/https_webhook_transport.h"
#include "livechat/mcp.h"
#include "livechat/metrics.h"
#include "livechat/open_store.h"
#include "livechat/openai_summarizer.h"
#include "livechat/postgres_store.h"
#include "livechat/rest.h"
#include "livechat/sqlite_store.h"
#include "livechat/storefront.h"
#include "livechat/summarizer.h"
#include "livechat/webhooks.h"
#include "storefront_routes.h"

#ifndef LIVECHAT_VERSION
#define LIVECHAT_VERSION "unknown"
#endif

namespace {

// Bodies between maxBodyBytes and this much above reach the adapter, which
// answers 413 with its own message; beyond it the transport refuses them
// without reading them.
constexpr std::size_t kTransportBodyHeadroom = 64 * 1024;

std::string FormatHostPort(const std::string& host, int port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

// The address a local curl should use: a wildcard bind is reachable on loopback.
std::string ClientHost(const std::string& host) {
  if (host == "0.0.0.0") return "127.0.0.1";
  if (host == "::") return "::1";
  return host;
}

// `pageBase`: where /demo/ is served (the storefront's listener).
void PrintDemo(const livechatd::DemoStore& demo, const std::string& host, int port, const std::string& pageBase) {
  std::string base = "http://" + FormatHostPort(ClientHost(host), port);
  std::printf("demo store %s: \"%s\" (id %s)\n", demo.created ? "created" : "found", demo.shopName.c_str(),
              demo.shopId.c_str());
  std::printf("demo API key: %s\n", demo.apiKey.c_str());
  std::printf("try: curl -s -H 'X-Api-Key: %s' '%s/chat/conversations?limit=5'\n", demo.apiKey.c_str(),
              base.c_str());
  std::printf("demo App ID: %s\n", demo.appId.c_str());
  std::printf("mcp: POST %s/mcp with X-App-Id: %s and Authorization: Bearer %s\n", base.c_str(), demo.appId.c_str(),
              demo.apiKey.c_str());
  std::printf("demo shop page with the chat widget: %s/demo/\n", pageBase.empty() ? base.c_str() : pageBase.c_str());
  std::printf("agent inbox: %s/inbox/ (sign in as %s, password %s)\n", base.c_str(),
              livechat::DemoService::kDemoAgentEmail, livechat::DemoService::kDemoAgentPassword);
}

// Signals are blocked in every thread and taken here synchronously, so the
// handler may call anything.
class ShutdownWatcher {
 public:
  // `onSignal` runs once when a signal arrives, before `stop` (it releases
  // long-polls and live streams, which would otherwise hold the stop up).
  ShutdownWatcher(std::function<void()> onSignal, std::function<void()> stop)
      : onSignal_(std::move(onSignal)), stop_(std::move(stop)) {
    thread_ = std::thread([this] { Run(); });
  }
  ~ShutdownWatcher() {
    done_ = true;
    thread_.join();
  }
  ShutdownWatcher(const ShutdownWatcher&) = delete;
  ShutdownWatcher& operator=(const ShutdownWatcher&) = delete;

 private:
  void Run() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    const timespec tick{0, 100'000'000};
    while (!done_) {
      int sig = sigtimedwait(&set, nullptr, &tick);
      if (sig > 0) {
        std::fprintf(stderr, "livechatd: %s received, shutting down\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
        onSignal_();
        stop_();
        return;
      }
    }
  }

  std::function<void()> onSignal_;
  std::function<void()> stop_;
  std::thread thread_;
  std::atomic<bool> done_{false};
};

// Every connection is a file descriptor: the soft limit (often 1,024 under
// a service manager) is raised to the hard one, and an operator whose caps
// exceed it is told, since past it accepts fail before any cap refuses.
void RaiseOpenFilesLimit(const livechatd::DaemonConfig& cfg, int listeners) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return;
  if (lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
    getrlimit(RLIMIT_NOFILE, &lim);
  }
  constexpr rlim_t kReserve = 256;  // database, webhook, file and log descriptors
  const rlim_t wanted = static_cast<rlim_t>(cfg.maxConnections) * static_cast<rlim_t>(listeners) + kReserve;
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < wanted)
    std::fprintf(stderr,
                 "livechatd: warning: the open-files limit is %llu, below the %llu that --max-connections %d on %d "
                 "listeners needs; lower --max-connections or raise the limit (ulimit -n, LimitNOFILE=)\n",
                 static_cast<unsigned long long>(lim.rlim_cur), static_cast<unsigned long long>(wanted),
                 cfg.maxConnections, listeners);
}

// One listener's settings, from the flags every listener shares.
livechatd::HttpServerOptions ListenerOptions(const livechatd::DaemonConfig& cfg, std::string name, int threads,
                                             std::size_t maxBody, livechat::MetricsRegistry* metrics,
                                             const std::vector<livechat::Cidr>& trustedProxies) {
  livechatd::HttpServerOptions o;
  o.name = std::move(name);
  o.threads = threads;
  o.maxBodyBytes = maxBody;
  o.requestTimeout = std::chrono::milliseconds(cfg.requestTimeoutMillis);
  o.keepAliveTimeout = std::chrono::milliseconds(cfg.keepAliveTimeoutMillis);
  o.writeTimeout = std::chrono::milliseconds(cfg.writeTimeoutMillis);
  o.maxConnectionsPerAddress = cfg.maxConnectionsPerAddress;
  o.maxConnections = cfg.maxConnections;
  o.exempt = trustedProxies;
  o.metrics = metrics;
  return o;
}

// The attachment-URL secret kept beside the files, made on first start:
// every livechatd on the same files directory then signs alike. Written to a
// temporary and linked into place, so two first starts agree on one secret.
std::optional<std::string> LoadOrCreateUrlSecret(const std::string& dir, std::string* error) {
  const std::string path = dir + "/.url-secret";
  for (int attempt = 0; attempt < 2; ++attempt) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      char buf[256];
      ssize_t n = ::read(fd, buf, sizeof buf);
      ::close(fd);
      std::string secret(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
      while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
      if (secret.size() >= 32) return secret;
      *error = path + " holds fewer than 32 characters; delete it to make a new one";
      return std::nullopt;
    }
    const std::string secret = livechat::Random::Default()->Hex(32);
    const std::string tmp = path + ".tmp-" + livechat::Random::Default()->Hex(6);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) break;
    bool ok = ::write(fd, secret.data(), secret.size()) == static_cast<ssize_t>(secret.size()) && ::fsync(fd) == 0;
    ::close(fd);
    bool linked = ok && ::link(tmp.c_str(), path.c_str()) == 0;
    ::unlink(tmp.c_str());
    if (linked) return secret;
    // Another process made it first: read theirs.
  }
  *error = "cannot create " + path;
  return std::nullopt;
}

int Fail(const std::string& message, int code) {
  std::fprintf(stderr, "livechatd: %s\n", message.c_str());
  return code;
}

// The summarizer --summarizer-url names, or null (extractive only). The key
// is read here and kept in the summarizer; no message ever contains it.
livechat::Result<std::unique_ptr<livechat::OpenAiSummarizer>> MakeSummarizer(const livechatd::DaemonConfig& cfg) {
  if (cfg.summarizerUrl.empty()) return std::unique_ptr<livechat::OpenAiSummarizer>();
  livechat::OpenAiSummarizerOptions o;
  o.url = cfg.summarizerUrl;
  o.model = cfg.summarizerModel;
  o.apiKey = cfg.summarizerApiKey;
  o.timeoutMillis = cfg.summarizerTimeoutMillis;
  o.allowPrivate = cfg.summarizerAllowPrivate;
  o.caFile = cfg.summarizerCaFile;
  if (!cfg.summarizerApiKeyFile.empty()) {
    std::ifstream in(cfg.summarizerApiKeyFile, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in)
      return livechat::MakeError(livechat::ErrorCode::kInvalidParams,
                                 "cannot read the summarizer key file " + cfg.summarizerApiKeyFile);
    o.apiKey = text.str();
    while (!o.apiKey.empty() && std::isspace(static_cast<unsigned char>(o.apiKey.back()))) o.apiKey.pop_back();
    if (o.apiKey.empty())
      return livechat::MakeError(livechat::ErrorCode::kInvalidParams,
                                 "the summarizer key file " + cfg.summarizerApiKeyFile + " is empty");
  }
  if (!cfg.summarizerCaFile.empty() && !std::ifstream(cfg.summarizerCaFile))
    return livechat::MakeError(livechat::ErrorCode::kInvalidParams, "cannot read " + cfg.summarizerCaFile);
  return livechat::OpenAiSummarizer::Create(std::move(o));
}

// The storefront listener's threads (--storefront-threads, else the default).
int StorefrontThreads(const livechatd::DaemonConfig& cfg) {
  return cfg.storefrontThreads > 0 ? cfg.storefrontThreads : livechatd::DefaultThreadCount();
}

// Everything livechatd runs besides its listeners, in the order it is built:
// each part is declared after what it uses, so it is destroyed before it.
struct Parts {
  std::unique_ptr<livechat::HttpsWebhookTransport> transport;
  // Outlives everything that counts into it.
  livechat::MetricsRegistry metrics;
  bool postgres = false;
  std::unique_ptr<livechat::Store> store;
  std::string filesDir;
  std::unique_ptr<livechat::BlobStore> blobs;
  std::string fileUrlSecret;
  std::unique_ptr<livechat::WebhookDispatcher> dispatcher;
  std::unique_ptr<livechat::OpenAiSummarizer> summarizer;  // null: extractive summaries only
  std::unique_ptr<livechat::SummaryWorker> summaryWorker;
  // Set once the REST adapter exists; read by writers on any thread.
  std::atomic<livechat::RestApi*> liveFeeds{nullptr};
  // On a shared database every instance counts the limits in it, so each
  // holds across instances; alone on a SQLite file, in this process (null).
  std::unique_ptr<livechat::RateWindows> sharedWindows;
  std::unique_ptr<livechat::CostBuckets> sharedBuckets;
  std::unique_ptr<livechat::McpSessions> sharedSessions;
  std::unique_ptr<livechat::ChatService> service;
  std::unique_ptr<livechat::WorkerLoop> eventPruner;
  std::optional<livechatd::DemoStore> demo;
  std::size_t transportMaxBody = 0;
  int httpThreads = 0;
  std::vector<livechat::Cidr> trustedProxies;
  std::unique_ptr<livechat::RestApi> rest;
  std::unique_ptr<livechat::GraphQLApi> graphql;
  std::unique_ptr<livechat::McpServer> mcp;
  std::unique_ptr<livechat::PlatformApi> platform;
  std::unique_ptr<livechat::StorefrontApi> storefront;
  std::unique_ptr<livechat::FileServer> files;
  bool started = false;

  Parts() = default;
  Parts(const Parts&) = delete;
  Parts& operator=(const Parts&) = delete;

  // Deliveries queued before this start (or before a crash) go out now, and
  // so do the summaries of resolves.
  void StartBackground() {
    dispatcher->Start();
    summaryWorker->Start();
    eventPruner->Start();
    started = true;
  }

  // After the listeners (and their threads) are gone. Sends in flight
  // finish (each bounded by --webhook-timeout); a delivery interrupted by a
  // crash instead is sent again once its lease runs out. The members then
  // go in reverse declaration order: the adapters before the service they
  // call, the service before the workers and the store it uses.
  ~Parts() {
    if (started) {
      dispatcher->Stop();
      summaryWorker->Stop();
      eventPruner->Stop();
    }
    liveFeeds.store(nullptr);
  }
};

// The library whose malloc this process calls, as the dynamic linker bound
// it: the allocator in effect, whatever the build meant to link. "tcmalloc",
// "glibc", or "built-in" (a sanitizer's, linked into the binary itself).
std::string AllocatorInEffect() {
  Dl_info info{};
  Dl_info self{};
  void* (*fn)(std::size_t) = &malloc;
  if (dladdr(reinterpret_cast<void*>(fn), &info) == 0 || info.dli_fname == nullptr) return "unknown";
  if (dladdr(reinterpret_cast<void*>(&AllocatorInEffect), &self) != 0 && self.dli_fbase == info.dli_fbase)
    return "built-in";
  std::string file = info.dli_fname;
  file = file.substr(file.find_last_of('/') + 1);
  if (file.find("tcmalloc") != std::string::npos) return "tcmalloc";
  if (file.rfind("libc.so", 0) == 0) return "glibc";
  return file;
}

// Each step below returns what stops the start, as the line to print, or
// nothing. The webhook transport, the store and the uploaded files' directory.
std::optional<std::string> OpenStorage(const livechatd::DaemonConfig& cfg, Parts& p) {
  livechat::HttpsTransportOptions transportOptions;
  transportOptions.extraCaFile = cfg.webhookCaFile;
  auto created = livechat::HttpsWebhookTransport::Create(transportOptions);
  if (!created.ok()) return created.error().message + " (--webhook-ca-file)";
  p.transport = std::move(created).value();

  p.postgres = livechat::IsPostgresUrl(cfg.dbPath);
  livechat::StoreConfig storeConfig;
  storeConfig.db = cfg.dbPath;
  storeConfig.readers = cfg.dbPool;
  storeConfig.metrics = &p.metrics;
  auto opened = livechat::OpenStore(storeConfig);
  if (!opened.ok())
    return "cannot open database " + livechat::DescribeDatabase(cfg.dbPath) + ": " + opened.error().message;
  p.store = std::move(opened).value();
  std::fprintf(stderr, "livechatd: database %s\n", livechat::DescribeDatabase(cfg.dbPath).c_str());
  std::fprintf(stderr, "livechatd: allocator %s\n", AllocatorInEffect().c_str());

  p.filesDir = cfg.filesDir.empty() ? cfg.dbPath + ".files" : cfg.filesDir;
  auto blobsOpened = livechat::OpenLocalDirBlobStore(p.filesDir);
  if (!blobsOpened.ok()) return blobsOpened.error().message + " (--files-dir)";
  p.blobs = std::move(blobsOpened).value();
  p.fileUrlSecret = cfg.fileUrlSecret;
  if (p.fileUrlSecret.empty()) {
    std::string error;
    auto secret = LoadOrCreateUrlSecret(p.filesDir, &error);
    if (!secret) return error + " (--file-url-secret)";
    p.fileUrlSecret = *secret;
  }
  return std::nullopt;
}

// The webhook dispatcher and the summary worker (not started yet).
std::optional<std::string> MakeWorkers(const livechatd::DaemonConfig& cfg, Parts& p) {
  livechat::DispatcherOptions dispatcherOptions;
  dispatcherOptions.store = p.store.get();
  dispatcherOptions.transport = p.transport.get();
  dispatcherOptions.retryDelays.assign(cfg.webhookRetryDelaysMillis.begin(), cfg.webhookRetryDelaysMillis.end());
  dispatcherOptions.timeoutMillis = cfg.webhookTimeoutMillis;
  dispatcherOptions.allowPrivateTargets = cfg.webhookAllowPrivateTargets;
  dispatcherOptions.threads = cfg.webhookThreads;
  dispatcherOptions.metrics = &p.metrics;
  // A lease shorter than a send would let a second sender (or a second
  // livechatd on the file) send the same delivery while the first waits.
  dispatcherOptions.leaseMillis =
      std::max<livechat::Millis>(dispatcherOptions.leaseMillis, 3 * cfg.webhookTimeoutMillis);
  p.dispatcher = std::make_unique<livechat::WebhookDispatcher>(dispatcherOptions);

  auto summarizer = MakeSummarizer(cfg);
  if (!summarizer.ok()) return summarizer.error().message + " (--summarizer-*)";
  p.summarizer = std::move(summarizer).value();
  if (cfg.summarizerAllowPrivate)
    std::fprintf(stderr,
                 "livechatd: WARNING: --summarizer-allow-private is on: the summarizer url may reach loopback and "
                 "private addresses (a local model server).\n");
  if (p.summarizer)
    std::fprintf(stderr, "livechatd: summaries by %s at %s; the extractive summarizer when it fails\n",
                 p.summarizer->name().c_str(), cfg.summarizerUrl.c_str());
  livechat::SummaryWorkerOptions summaryOptions;
  summaryOptions.store = p.store.get();
  summaryOptions.summarizer = p.summarizer.get();
  // A lease shorter than a request would let a second worker run the same job.
  summaryOptions.leaseMillis = std::max<livechat::Millis>(summaryOptions.leaseMillis, 3 * cfg.summarizerTimeoutMillis);
  summaryOptions.log = [](const std::string& line) { std::fprintf(stderr, "livechatd: %s\n", line.c_str()); };
  p.summaryWorker = std::make_unique<livechat::SummaryWorker>(summaryOptions);
  return std::nullopt;
}

// ChatService, the change feed's pruner and the demo store.
std::optional<std::string> MakeService(const livechatd::DaemonConfig& cfg, Parts& p) {
  livechat::ServiceOptions serviceOptions;
  serviceOptions.store = p.store.get();
  serviceOptions.allowPrivateWebhookTargets = cfg.webhookAllowPrivateTargets;
  serviceOptions.onEventsQueued = [&liveFeeds = p.liveFeeds] {
    // Live change feeds read now instead of at their next poll.
    if (livechat::RestApi* r = liveFeeds.load()) r->WakeEventStreams();
  };
  serviceOptions.onDeliveriesQueued = [d = p.dispatcher.get()] { d->Notify(); };
  serviceOptions.onSummaryQueued = [w = p.summaryWorker.get()] { w->Notify(); };
  serviceOptions.eventRetentionDays = cfg.eventRetentionDays;
  serviceOptions.limits.rateLimitPerKey = cfg.rateLimitPerKey;
  serviceOptions.limits.rateLimitPerIp = cfg.rateLimitPerIp;
  serviceOptions.limits.visitorSessionsPerIp = cfg.storefrontSessionsPerIp;
  serviceOptions.metrics = &p.metrics;
  serviceOptions.listCacheBytes = static_cast<std::size_t>(cfg.listCacheMb) << 20;
  if (p.postgres) {
    p.sharedSessions = livechat::OpenPostgresMcpSessions(cfg.dbPath);
    p.sharedWindows = livechat::OpenPostgresRateWindows(cfg.dbPath, serviceOptions.limits.rateWindowMillis);
    p.sharedBuckets = livechat::OpenPostgresCostBuckets(cfg.dbPath, cfg.graphqlBucket, cfg.graphqlRefill);
    serviceOptions.rateWindows = p.sharedWindows.get();
  }
  serviceOptions.blobs = p.blobs.get();
  serviceOptions.fileUrlSecret = p.fileUrlSecret;
  serviceOptions.fileBaseUrl = cfg.publicUrl;
  p.service = std::make_unique<livechat::ChatService>(serviceOptions);
  // Uploads (widget attachments, logos, imports) are bodies larger than
  // --max-body; each adapter still refuses what is over its own limit.
  p.transportMaxBody =
      std::max<std::size_t>(cfg.maxBodyBytes,
                            static_cast<std::size_t>(std::max({serviceOptions.limits.attachmentMaxBytes,
                                                                serviceOptions.limits.imageMaxBytes,
                                                                serviceOptions.limits.importMaxBytes}))) +
      kTransportBodyHeadroom;
  // The change feed's retention: every minute, events past it that no
  // delivery waits for are removed, 1,000 at a time until none is left.
  p.eventPruner = std::make_unique<livechat::WorkerLoop>(
      [s = p.service.get()] {
        auto removed = s->feed().PruneEventFeed(1000);
        if (!removed.ok()) std::fprintf(stderr, "livechatd: event feed pruning: %s\n", removed.error().message.c_str());
        return removed.ok() && *removed > 0;
      },
      60'000);

  if (cfg.demo) {
    // The demo's marker file lives beside a SQLite file, or in the shared
    // files directory when the database is a server.
    auto d = livechatd::EnsureDemoStore(*p.service, p.postgres ? p.filesDir + "/livechat" : cfg.dbPath);
    if (!d.ok()) return "cannot create the demo store: " + d.error().message;
    p.demo = std::move(d).value();
  }
  return std::nullopt;
}

// The adapters every listener serves from.
void MakeAdapters(const livechatd::DaemonConfig& cfg, Parts& p) {
  livechat::RestOptions restOptions;
  restOptions.maxBodyBytes = cfg.maxBodyBytes;
  restOptions.secureCookies = cfg.secureCookies;
  restOptions.answerSendsLater = true;  // the transport handles deferred answers
  for (const auto& text : cfg.trustedProxies) p.trustedProxies.push_back(*livechat::Cidr::Parse(text));
  restOptions.trustedProxies = p.trustedProxies;
  p.httpThreads = cfg.threads > 0 ? cfg.threads : livechatd::DefaultThreadCount();
  // Each live change feed holds one of the listener's threads for its life.
  restOptions.eventStreams.maxStreams = cfg.eventStreams > 0 ? cfg.eventStreams : std::max(1, p.httpThreads / 4);
  restOptions.eventStreams.maxStreamsPerKey = cfg.eventStreamsPerKey;
  restOptions.eventStreams.heartbeatMillis = cfg.eventStreamHeartbeatMillis;
  restOptions.eventStreams.pollMillis = cfg.eventStreamPollMillis;
  restOptions.eventStreams.lifetimeMillis = cfg.eventStreamLifetimeMillis;
  p.rest = std::make_unique<livechat::RestApi>(*p.service, restOptions);
  p.liveFeeds.store(p.rest.get());
  livechat::GraphQLApiOptions graphqlOptions;
  graphqlOptions.maxBodyBytes = cfg.maxBodyBytes;
  graphqlOptions.bucketCapacity = cfg.graphqlBucket;
  graphqlOptions.refillPerSecond = cfg.graphqlRefill;
  graphqlOptions.costBuckets = p.sharedBuckets.get();
  graphqlOptions.trustedProxies = p.trustedProxies;
  graphqlOptions.metrics = &p.metrics;
  p.graphql = std::make_unique<livechat::GraphQLApi>(*p.service, graphqlOptions);
  livechat::McpOptions mcpOptions;
  mcpOptions.maxBodyBytes = cfg.maxBodyBytes;
  mcpOptions.allowedOrigins = cfg.mcpAllowedOrigins;
  mcpOptions.serverVersion = LIVECHAT_VERSION;
  mcpOptions.sessions = p.sharedSessions.get();
  p.mcp = std::make_unique<livechat::McpServer>(*p.service, mcpOptions);
  livechat::PlatformOptions platformOptions;
  platformOptions.appSecret = cfg.platformSecret;
  p.platform = std::make_unique<livechat::PlatformApi>(*p.service, platformOptions);
  livechat::StorefrontOptions storefrontOptions;
  storefrontOptions.allowedOrigins = cfg.storefrontOrigins;
  storefrontOptions.trustedProxies = p.trustedProxies;
  if (cfg.storefrontWaiters > 0) storefrontOptions.maxWaiters = cfg.storefrontWaiters;
  p.storefront = std::make_unique<livechat::StorefrontApi>(*p.service, storefrontOptions);
  p.files = std::make_unique<livechat::FileServer>(*p.service);
}

// The listeners: bound, announced on stdout (scripts read the API port from
// "listening on"), served until SIGTERM or SIGINT. Returns the exit code.
int Serve(const livechatd::DaemonConfig& cfg, Parts& p) {
  const bool storefrontApart = cfg.storefrontPort >= 0;
  std::optional<std::string> demoAppId;
  if (p.demo) {
    auto shop = p.service->directory().GetShop(p.demo->shopId);
    if (shop.ok()) demoAppId = shop->appId;
  }
  livechatd::Observability obs;
  obs.metrics = &p.metrics;
  obs.dispatcherRunning = [d = p.dispatcher.get()] { return d->running(); };
  livechatd::RegisterOutboxGauges(p.metrics, *p.store, [] { return livechat::Clock::Default()->NowMillis(); });
  // What holds this instance's HTTP threads for long: live change feeds
  // and storefront polls waiting for news (both capped by flags).
  p.metrics.AddGaugeCallback(livechat::metric::kEventStreamsOpen,
                           "Live change feeds (GET /chat/events as Server-Sent Events) open on this instance",
                           [r = p.rest.get()]() -> livechat::MetricsRegistry::GaugeSamples {
                             return {{{}, static_cast<double>(r->OpenEventStreams())}};
                           });
  p.metrics.AddGaugeCallback(livechat::metric::kStorefrontPollsWaiting,
                           "Storefront update polls waiting for news on this instance",
                           [s = p.storefront.get()]() -> livechat::MetricsRegistry::GaugeSamples {
                             return {{{}, static_cast<double>(s->waiters())}};
                           });
  const std::size_t commandMaxBody = cfg.maxBodyBytes + kTransportBodyHeadroom;
  const auto& proxies = p.trustedProxies;
  RaiseOpenFilesLimit(cfg, 1 + (cfg.graphqlPort >= 0) + storefrontApart + (cfg.adminPort >= 0));
  std::string bindError;

  // Each site is declared before its server, so the server is destroyed
  // (stopped and joined) first.
  livechatd::Site site;
  if (!storefrontApart) livechatd::InstallStorefront(site, *p.storefront, demoAppId);
  livechatd::InstallInbox(site);
  livechatd::BridgeOptions mainOptions{cfg.accessLog, obs};
  mainOptions.commandMaxBody = commandMaxBody;
  mainOptions.mcp = p.mcp.get();
  mainOptions.files = p.files.get();
  mainOptions.platform = p.platform.get();
  mainOptions.obs.serveOpenApi = true;
  mainOptions.inlineReads = p.store.get();
  livechatd::InstallBridge(site, p.rest.get(), p.graphql.get(), *p.store, mainOptions);
  livechatd::HttpServer server(ListenerOptions(cfg, "api", p.httpThreads, p.transportMaxBody, &p.metrics, proxies),
                               livechatd::MakeHandlers(site, mainOptions, p.rest.get()));

  // --graphql-listen: a second listener with the GraphQL endpoint only.
  livechatd::Site graphqlSite;
  livechatd::BridgeOptions graphqlBridge{cfg.accessLog, obs};
  std::unique_ptr<livechatd::HttpServer> graphqlServer;
  if (cfg.graphqlPort >= 0) {
    livechatd::InstallBridge(graphqlSite, nullptr, p.graphql.get(), *p.store, graphqlBridge);
    graphqlServer = std::make_unique<livechatd::HttpServer>(
        ListenerOptions(cfg, "graphql", p.httpThreads, commandMaxBody, &p.metrics, proxies),
        livechatd::MakeHandlers(graphqlSite, graphqlBridge));
    int gport = graphqlServer->Bind(cfg.graphqlHost, cfg.graphqlPort, &bindError);
    if (gport < 0)
      return Fail(
          "cannot listen on " + FormatHostPort(cfg.graphqlHost, cfg.graphqlPort) + " (graphql): " + bindError, 1);
    std::printf("graphql listening on %s\n", FormatHostPort(cfg.graphqlHost, gport).c_str());
    graphqlServer->Start();
  }
  // --storefront-listen: the widgets' listener, with threads of its own.
  livechatd::Site storefrontSite;
  livechatd::BridgeOptions storefrontBridge{cfg.accessLog, obs};
  std::unique_ptr<livechatd::HttpServer> storefrontServer;
  std::string storefrontBase;
  if (storefrontApart) {
    livechatd::InstallStorefront(storefrontSite, *p.storefront, demoAppId);
    storefrontBridge.commandMaxBody = commandMaxBody;
    storefrontBridge.files = p.files.get();  // the widget shows attachments and logos from its own origin
    livechatd::InstallBridge(storefrontSite, nullptr, nullptr, *p.store, storefrontBridge);
    storefrontServer = std::make_unique<livechatd::HttpServer>(
        ListenerOptions(cfg, "storefront", StorefrontThreads(cfg), p.transportMaxBody, &p.metrics, proxies),
        livechatd::MakeHandlers(storefrontSite, storefrontBridge));
    int sport = storefrontServer->Bind(cfg.storefrontHost, cfg.storefrontPort, &bindError);
    if (sport < 0)
      return Fail("cannot listen on " + FormatHostPort(cfg.storefrontHost, cfg.storefrontPort) +
                      " (storefront): " + bindError,
                  1);
    std::printf("storefront listening on %s\n", FormatHostPort(cfg.storefrontHost, sport).c_str());
    storefrontBase = "http://" + FormatHostPort(ClientHost(cfg.storefrontHost), sport);
    storefrontServer->Start();
  }

  // --admin-listen: metrics and probes, never the API.
  livechatd::Site adminSite;
  livechatd::BridgeOptions adminBridge{cfg.accessLog, obs};
  std::unique_ptr<livechatd::HttpServer> adminServer;
  std::string adminLine;  // printed after "listening on" (scripts read the API port from that line)
  if (cfg.adminPort >= 0) {
    livechatd::InstallAdmin(adminSite, *p.store, obs);
    adminServer = std::make_unique<livechatd::HttpServer>(
        ListenerOptions(cfg, "admin", 2, kTransportBodyHeadroom, &p.metrics, proxies),
        livechatd::MakeHandlers(adminSite, adminBridge));
    int aport = adminServer->Bind(cfg.adminHost, cfg.adminPort, &bindError);
    if (aport < 0)
      return Fail("cannot listen on " + FormatHostPort(cfg.adminHost, cfg.adminPort) +
                      " (--admin-listen; in use? pass another port, or none): " + bindError,
                  1);
    adminLine = "admin listener on " + FormatHostPort(cfg.adminHost, aport) + " (/metrics, /healthz, /readyz)\n";
    adminServer->Start();
  }

  const int port = server.Bind(cfg.host, cfg.port, &bindError);
  if (port < 0)
    return Fail("cannot listen on " + FormatHostPort(cfg.host, cfg.port) + ": " + bindError +
                    (cfg.port == 0 ? "" : " (in use, or not a local address?)"),
                1);

  if (p.demo) PrintDemo(*p.demo, cfg.host, port, storefrontBase);
  std::printf("listening on %s\n", FormatHostPort(cfg.host, port).c_str());
  std::fputs(adminLine.c_str(), stdout);
  std::fflush(stdout);

  ShutdownWatcher watcher(
      [&p] {
        p.storefront->WakeAll();
        p.rest->StopEventStreams();
      },
      [&] {
        server.Stop();
        if (graphqlServer) graphqlServer->Stop();
        if (storefrontServer) storefrontServer->Stop();
        if (adminServer) adminServer->Stop();
      });
  p.StartBackground();
  server.Start();
  server.Wait();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread or store exists (docs/decisions.md, "SQLite without
  // memory statistics").
  if (!livechat::DisableSqliteMemoryStatistics())
    std::fprintf(stderr, "livechatd: warning: SQLite was in use before main; its memory statistics stay on\n");
  // docs/decisions.md, "Savepoint journals in memory".
  if (!livechat::SetSqliteJournalSpillBytes(livechat::kSqliteServerJournalSpillBytes))
    std::fprintf(stderr, "livechatd: warning: SQLite was in use before main; its journals spill at 64 KiB\n");
  std::vector<std::string> args(argv + 1, argv + argc);
  auto parsed = livechatd::ParseDaemonArgs(args, [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  });
  switch (parsed.outcome) {
    case livechatd::ParseOutcome::kHelp: std::fputs(livechatd::DaemonUsage().c_str(), stdout); return 0;
    case livechatd::ParseOutcome::kVersion: std::printf("livechatd %s\n", LIVECHAT_VERSION); return 0;
    case livechatd::ParseOutcome::kError:
      return Fail(parsed.error + " (see livechatd --help)", 2);
    case livechatd::ParseOutcome::kRun: break;
  }
  const livechatd::DaemonConfig& cfg = parsed.config;

  // Before any thread exists, so every thread inherits the mask and only the
  // watcher sees these signals.
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGINT);
  pthread_sigmask(SIG_BLOCK, &blocked, nullptr);
  // A receiver closing its end while OpenSSL writes (SSL_write sends without
  // MSG_NOSIGNAL) must fail that write, not kill the server.
  signal(SIGPIPE, SIG_IGN);

  if (cfg.webhookAllowPrivateTargets)
    std::fprintf(stderr,
                 "livechatd: WARNING: --webhook-allow-private-targets is on: webhook urls may reach loopback and "
                 "private addresses. For local development and tests only; never in production.\n");
  int code = 0;
  {
    Parts parts;
    for (auto step : {OpenStorage, MakeWorkers, MakeService}) {
      if (auto error = step(cfg, parts)) return Fail(*error, 1);
    }
    MakeAdapters(cfg, parts);
    code = Serve(cfg, parts);
  }
  if (code == 0) std::fprintf(stderr, "livechatd: stopped\n");
  return code;
}
