// What livechatd shows operators: the probes (/healthz, /readyz), the
// Prometheus endpoint (/metrics, admin listener only), the published
// contract (/openapi.json), request ids, and the per-request metrics.
#pragma once

#include <functional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "host_routes.h"
#include "livechat/http.h"
#include "livechat/metrics.h"
#include "livechat/store.h"

namespace livechatd {

struct Observability {
  livechat::MetricsRegistry* metrics = nullptr;  // null: requests are not counted
  std::function<bool()> dispatcherRunning;       // /readyz; empty: not checked
  bool serveOpenApi = false;                     // GET /openapi.json (main listener)
};

// GET /healthz (the process answers) and GET /readyz (database reachable,
// schema migrated, writes not refused for full storage, webhook dispatcher
// running; 503 naming what is not).
void InstallProbes(Site& site, livechat::Store& store, const Observability& obs);

// GET /openapi.json: docs/api/openapi.yaml as JSON, embedded at build time.
void InstallOpenApi(Site& site);

// The admin listener: the probes and GET /metrics; anything else is 404.
void InstallAdmin(Site& site, livechat::Store& store, const Observability& obs);

// The client's X-Request-Id when it is 1..128 characters of [A-Za-z0-9._:-],
// otherwise a new random 32-hex-digit id.
std::string RequestIdFor(const livechat::HttpRequest& req);

// Counts served requests: requests by route template, method and status, and
// their latency by route template and method. Each (route, method, status)
// finds its two series in the registry once; after that a request costs a
// lookup in this table, not label vectors built and matched in the registry.
// The table is bounded: routes are templates (or "unmatched"), methods and
// statuses are from fixed sets.
class RequestMetrics {
 public:
  explicit RequestMetrics(livechat::MetricsRegistry& metrics) : metrics_(metrics) {}
  // `route` is the template the adapter reported; empty: derived from the
  // target (RouteLabel).
  void Count(std::string_view method, const std::string& target, int status, double seconds, const std::string& route);

 private:
  struct Series {
    livechat::Counter* requests;
    livechat::Histogram* duration;
  };
  livechat::MetricsRegistry& metrics_;
  std::shared_mutex mu_;
  std::unordered_map<std::string, Series> series_;
};

// The route label of a target: a REST route template, a fixed path of the
// daemon, or "unmatched" (keeps the label set bounded).
std::string RouteLabel(const std::string& target);

// Gauges read from the store when /metrics is scraped: webhook queue depth
// and how long the most overdue pending delivery has been due.
void RegisterOutboxGauges(livechat::MetricsRegistry& metrics, livechat::Store& store,
                          std::function<std::int64_t()> nowMillis);

}  // namespace livechatd
