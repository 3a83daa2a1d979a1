// A small, transport-free metric registry. The library's parts (core, rest,
// webhooks, sqlite) count into it through Counter/Gauge/Histogram handles and
// never see an exposition format; a host renders it (RenderPrometheusText)
// wherever it chooses to serve it.
//
// Thread-safe. Updating a handle is a relaxed atomic add. Looking a labelled
// child up takes a shared (reader) lock on its family, exclusive only the first
// time a label combination is seen; hot callers keep the handle when their
// labels are fixed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace livechat {

// Label name/value pairs, in the order the family declared the names.
using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  void Inc(std::uint64_t n = 1) { v_.fetch_add(n, std::memory_order_relaxed); }
  std::uint64_t Value() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> v_{0};
};

class Gauge {
 public:
  void Set(double v) { v_.store(v, std::memory_order_relaxed); }
  void Add(double d) { v_.fetch_add(d, std::memory_order_relaxed); }
  double Value() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> v_{0};
};

// Cumulative buckets with fixed upper bounds (ascending; +Inf is implicit).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void Observe(double v);

  struct Snapshot {
    std::vector<double> bounds;
    std::vector<std::uint64_t> cumulative;  // one per bound, then +Inf (== count)
    double sum = 0;
    std::uint64_t count = 0;
  };
  Snapshot Read() const;

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;  // per bucket, not cumulative; last is +Inf
  std::atomic<double> sum_{0};
  std::atomic<std::uint64_t> count_{0};
};

// Latency buckets in seconds, 1 ms to 10 s.
const std::vector<double>& DefaultLatencyBuckets();

class MetricsRegistry {
 public:
  MetricsRegistry();
  ~MetricsRegistry();
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // The handle for `name` with `labels`, created on first use. The same name
  // must keep its type, help, label names and (histograms) buckets; a
  // mismatch is a programming error and aborts. Handles live as long as the
  // registry.
  Counter& GetCounter(std::string_view name, std::string_view help, const MetricLabels& labels = {});
  Gauge& GetGauge(std::string_view name, std::string_view help, const MetricLabels& labels = {});
  Histogram& GetHistogram(std::string_view name, std::string_view help, const std::vector<double>& bounds,
                          const MetricLabels& labels = {});

  // A gauge read when rendered (queue depth from the store, ...). The
  // callback runs on the rendering thread and must be thread-safe; it returns
  // one value per label combination.
  using GaugeSamples = std::vector<std::pair<MetricLabels, double>>;
  void AddGaugeCallback(std::string_view name, std::string_view help, std::function<GaugeSamples()> read);

  // The Prometheus text exposition format (version 0.0.4): families sorted
  // by name, each with # HELP and # TYPE, children sorted by labels.
  std::string RenderPrometheusText() const;

 private:
  struct Family;
  Family& FamilyFor(std::string_view name, std::string_view help, int type, const MetricLabels& labels,
                    const std::vector<double>* bounds);
  mutable std::shared_mutex mu_;
  std::map<std::string, std::unique_ptr<Family>, std::less<>> families_;
};

// Metric names the library and livechatd use, in one place so the docs,
// the renderer's tests and the alert rules agree.
namespace metric {
inline constexpr std::string_view kHttpRequests = "livechat_http_requests_total";
inline constexpr std::string_view kHttpDuration = "livechat_http_request_duration_seconds";
inline constexpr std::string_view kRateLimitRefusals = "livechat_rate_limit_refusals_total";
// Counted from two places (ChatService, GraphQLApi); the first to register sets the help.
inline constexpr std::string_view kRateLimitRefusalsHelp =
    "Requests refused by a rate limit (scope ip or key: the REST windows; graphql: the query-cost bucket)";
inline constexpr std::string_view kLoginFailures = "livechat_login_failures_total";
inline constexpr std::string_view kLoginFailuresHelp =
    "Admin sign-ins refused with 401: the password was checked and matched no active member of that email";
inline constexpr std::string_view kLoginThrottled = "livechat_login_throttled_total";
inline constexpr std::string_view kLoginThrottledHelp =
    "Admin sign-ins refused with 429 before the password was checked (scope account: too many recent failures "
    "for the email; address: for the source address)";
inline constexpr std::string_view kWebhookQueueDepth = "livechat_webhook_queue_depth";
inline constexpr std::string_view kWebhookOldestAge = "livechat_webhook_oldest_pending_age_seconds";
inline constexpr std::string_view kWebhookDeliveries = "livechat_webhook_deliveries_total";
inline constexpr std::string_view kWebhookDuration = "livechat_webhook_delivery_duration_seconds";
// The lists' JSON caches (docs/operations.md), label list = conversations
// or messages: rows answered from a copy kept for the row's version, and
// rows built anew.
inline constexpr std::string_view kListCacheHits = "livechat_list_cache_hits_total";
inline constexpr std::string_view kListCacheHitsHelp = "List rows answered from the JSON cache";
inline constexpr std::string_view kListCacheMisses = "livechat_list_cache_misses_total";
inline constexpr std::string_view kListCacheMissesHelp =
    "List rows read and serialized anew (not cached, changed since, or with signed file URLs)";
// Both stores: Store::Write calls (counted when asked for), and the write
// transactions that carried them (concurrent writes are committed together:
// writes / transactions is how many per commit).
inline constexpr std::string_view kStoreWrites = "livechat_store_writes_total";
inline constexpr std::string_view kStoreWritesHelp = "Store writes asked for (each a request's change); concurrent ones share a transaction";
inline constexpr std::string_view kStoreWriteTransactions = "livechat_store_write_transactions_total";
inline constexpr std::string_view kStoreWriteTransactionsHelp =
    "Database write transactions run; concurrent store writes share one";
// Writes refused because the storage is full or unreachable (kUnavailable),
// and 1 while the last write was refused that way (0 once one commits):
// /readyz reads the gauge.
inline constexpr std::string_view kStoreWritesUnavailable = "livechat_store_writes_unavailable_total";
inline constexpr std::string_view kStoreWritesUnavailableHelp =
    "Store writes refused because the storage was full or unreachable (answered 503 UNAVAILABLE)";
inline constexpr std::string_view kStoreWritesRefusing = "livechat_store_writes_refusing";
inline constexpr std::string_view kStoreWritesRefusingHelp =
    "1 while the last store write was refused for full or unreachable storage, 0 once one commits";
inline constexpr std::string_view kSqliteBusyRetries = "livechat_sqlite_busy_retries_total";
inline constexpr std::string_view kSqliteCheckpointsBackground = "livechat_sqlite_checkpoints_background_total";
inline constexpr std::string_view kSqliteCheckpointsWriter = "livechat_sqlite_checkpoints_writer_total";
inline constexpr std::string_view kSqliteWalPages = "livechat_sqlite_wal_pages";
inline constexpr std::string_view kEventStreamsOpen = "livechat_event_streams_open";
inline constexpr std::string_view kStorefrontPollsWaiting = "livechat_storefront_polls_waiting";
// The HTTP listeners (livechatd), each labelled listener="api|storefront|graphql|admin".
inline constexpr std::string_view kHttpConnectionsRefused = "livechat_http_connections_refused_total";
inline constexpr std::string_view kHttpRequestTimeouts = "livechat_http_request_timeouts_total";
inline constexpr std::string_view kHttpConnectionsOpen = "livechat_http_connections_open";
}  // namespace metric

}  // namespace livechat
