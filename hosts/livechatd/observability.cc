#include "observability.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <optional>
#include <random>
#include <string_view>

#include "livechat/graphql_api.h"
#include "livechat/json_codec.h"
#include "livechat/metrics.h"
#include "livechat/rest.h"

namespace livechatd {

// Generated at build time from docs/api/openapi.json (see hosts/CMakeLists.txt).
extern const char kOpenApiJson[];

namespace {

constexpr std::size_t kMaxRequestId = 128;

// One check of /readyz: "ok" or what is wrong.
struct Check {
  const char* name;
  std::string state;
};

livechat::HttpResponse Readyz(livechat::Store& store, const Observability& obs) {
  std::vector<Check> checks;
  // A real query, so a vanished or locked-out file shows up here.
  livechat::Status db = store.Read([](livechat::StoreReader& r) -> livechat::Status {
    auto stats = r.GetOutboxStats();
    return stats.ok() ? livechat::Status::Ok() : livechat::Status(stats.error());
  });
  checks.push_back({"database", db.ok() ? "ok" : "unreachable"});
  // Healthy() also compares PRAGMA user_version with this build's schema.
  checks.push_back({"migrations", !db.ok() ? "unknown" : (store.Healthy() ? "ok" : "not applied")});
  // Reads may still work while the disk is full; a load balancer should
  // still know that writes are refused (503) until space returns.
  if (obs.metrics != nullptr) {
    const double refusing =
        obs.metrics->GetGauge(livechat::metric::kStoreWritesRefusing, livechat::metric::kStoreWritesRefusingHelp).Value();
    checks.push_back({"writes", refusing > 0 ? "refused" : "ok"});
  }
  if (obs.dispatcherRunning) checks.push_back({"dispatcher", obs.dispatcherRunning() ? "ok" : "stopped"});
  bool ready = std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.state == "ok"; });
  std::string body = ready ? "{\"status\":\"ready\",\"checks\":{" : "{\"status\":\"not ready\",\"checks\":{";
  for (std::size_t i = 0; i < checks.size(); ++i) {
    if (i) body += ',';
    livechat::AppendJsonString(body, checks[i].name);
    body += ':';
    livechat::AppendJsonString(body, checks[i].state);
  }
  body += "}}";
  return JsonResponse(ready ? 200 : 503, std::move(body));
}

std::string_view MethodLabel(std::string_view m) {
  static constexpr std::string_view kKnown[] = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};
  for (auto k : kKnown)
    if (m == k) return k;
  return "OTHER";
}

}  // namespace

void InstallProbes(Site& site, livechat::Store& store, const Observability& obs) {
  site.ServeGet("/healthz", [&store](livechat::HttpRequest&) {
    return store.Healthy() ? JsonResponse(200, "{\"status\":\"ok\"}") : JsonResponse(503, "{\"status\":\"unavailable\"}");
  });
  site.ServeGet("/readyz", [&store, obs](livechat::HttpRequest&) { return Readyz(store, obs); });
}

void InstallOpenApi(Site& site) {
  site.ServeGet("/openapi.json", [](livechat::HttpRequest&) { return JsonResponse(200, kOpenApiJson); });
}

void InstallAdmin(Site& site, livechat::Store& store, const Observability& obs) {
  InstallProbes(site, store, obs);
  livechat::MetricsRegistry* metrics = obs.metrics;
  site.ServeGet("/metrics", [metrics](livechat::HttpRequest&) {
    livechat::HttpResponse res;
    res.status = 200;
    res.SetHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    res.body = metrics ? metrics->RenderPrometheusText() : std::string();
    return res;
  });
  site.SetNotFoundSuffix(" on the admin listener");
}

std::string RequestIdFor(const livechat::HttpRequest& req) {
  const std::string given = req.Header("x-request-id").value_or(std::string());
  bool ok = !given.empty() && given.size() <= kMaxRequestId &&
            std::all_of(given.begin(), given.end(), [](unsigned char c) {
              return std::isalnum(c) || c == '.' || c == '_' || c == ':' || c == '-';
            });
  if (ok) return given;
  // Correlation ids, not secrets: a per-thread PRNG seeded once is enough.
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(32, '0');
  for (std::size_t i = 0; i < id.size(); i += 16) {
    std::uint64_t v = rng();
    for (std::size_t j = 0; j < 16; ++j) id[i + j] = kHex[(v >> (4 * j)) & 0xf];
  }
  return id;
}

std::string RouteLabel(const std::string& target) {
  std::string path = target.substr(0, target.find('?'));
  if (path == "/healthz" || path == "/readyz" || path == "/metrics" || path == "/openapi.json") return path;
  if (livechat::GraphQLApi::Owns(target)) return "/graphql";
  if (auto t = livechat::RestApi::RouteTemplate(target)) return *t;
  return "unmatched";
}

void RequestMetrics::Count(std::string_view requestMethod, const std::string& target, int status, double seconds,
                           const std::string& adapterRoute) {
  const std::string route = adapterRoute.empty() ? RouteLabel(target) : adapterRoute;
  const std::string_view method = MethodLabel(requestMethod);
  // The key: route, method and status, each ended by a byte no label holds.
  thread_local std::string key;
  key.assign(route).push_back('\n');
  key.append(method).push_back('\n');
  char digits[12];
  key.append(digits, std::to_chars(digits, digits + sizeof digits, status).ptr);
  Series found{};
  {
    std::shared_lock lock(mu_);
    if (auto it = series_.find(key); it != series_.end()) found = it->second;
  }
  if (found.requests == nullptr) {
    // The registry hands out series that live as long as it does.
    found.requests = &metrics_.GetCounter(livechat::metric::kHttpRequests,
                                          "HTTP requests served, by route template, method and status",
                                          {{"route", route}, {"method", std::string(method)}, {"status", std::to_string(status)}});
    found.duration = &metrics_.GetHistogram(livechat::metric::kHttpDuration,
                                            "HTTP request latency (routing to response), by route template",
                                            livechat::DefaultLatencyBuckets(),
                                            {{"route", route}, {"method", std::string(method)}});
    std::unique_lock lock(mu_);
    series_.emplace(key, found);
  }
  found.requests->Inc();
  found.duration->Observe(seconds);
}

void RegisterOutboxGauges(livechat::MetricsRegistry& metrics, livechat::Store& store,
                          std::function<std::int64_t()> nowMillis) {
  // Each gauge queries on its own (one indexed COUNT per scrape each): a
  // shared cached read would depend on the order the families render in.
  auto read = [&store]() -> std::optional<livechat::StoreReader::OutboxStats> {
    livechat::StoreReader::OutboxStats s;
    livechat::Status st = store.Read([&](livechat::StoreReader& r) -> livechat::Status {
      auto got = r.GetOutboxStats();
      if (!got.ok()) return got.error();
      s = *got;
      return livechat::Status::Ok();
    });
    if (!st.ok()) return std::nullopt;  // the sample is left out; /readyz says why
    return s;
  };
  metrics.AddGaugeCallback(livechat::metric::kWebhookQueueDepth, "Webhook deliveries pending (due now or later)",
                           [read]() -> livechat::MetricsRegistry::GaugeSamples {
                             auto s = read();
                             if (!s) return {};
                             return {{{}, static_cast<double>(s->pending)}};
                           });
  metrics.AddGaugeCallback(
      livechat::metric::kWebhookOldestAge,
      "Seconds the most overdue pending webhook delivery has been due (0 when none is overdue)",
      [read, nowMillis]() -> livechat::MetricsRegistry::GaugeSamples {
        auto s = read();
        if (!s) return {};
        double age = 0;
        if (s->oldestDueAt) age = std::max<double>(0, static_cast<double>(nowMillis() - *s->oldestDueAt) / 1000.0);
        return {{{}, age}};
      });
}

}  // namespace livechatd
