// The metric registry and its Prometheus text rendering.
#include <doctest/doctest.h>

#include <thread>
#include <vector>

#include "livechat/metrics.h"

using livechat::MetricsRegistry;

TEST_CASE("counters, gauges and labelled children render in the Prometheus text format") {
  MetricsRegistry m;
  m.GetCounter("t_requests_total", "Requests.", {{"route", "/a"}, {"status", "200"}}).Inc();
  m.GetCounter("t_requests_total", "Requests.", {{"route", "/a"}, {"status", "200"}}).Inc(2);
  m.GetCounter("t_requests_total", "Requests.", {{"route", "/a"}, {"status", "404"}}).Inc();
  m.GetGauge("t_depth", "Depth.").Set(7.5);
  CHECK(m.GetCounter("t_requests_total", "Requests.", {{"route", "/a"}, {"status", "200"}}).Value() == 3);
  CHECK(m.RenderPrometheusText() ==
        "# HELP t_depth Depth.\n"
        "# TYPE t_depth gauge\n"
        "t_depth 7.5\n"
        "# HELP t_requests_total Requests.\n"
        "# TYPE t_requests_total counter\n"
        "t_requests_total{route=\"/a\",status=\"200\"} 3\n"
        "t_requests_total{route=\"/a\",status=\"404\"} 1\n");
}

TEST_CASE("histograms render cumulative buckets, +Inf, sum and count; a value on a bound falls in that bucket") {
  MetricsRegistry m;
  auto& h = m.GetHistogram("t_seconds", "Latency.", {0.1, 1}, {{"route", "/x"}});
  h.Observe(0.05);
  h.Observe(0.1);  // le="0.1" is inclusive
  h.Observe(0.5);
  h.Observe(3);
  CHECK(m.RenderPrometheusText() ==
        "# HELP t_seconds Latency.\n"
        "# TYPE t_seconds histogram\n"
        "t_seconds_bucket{route=\"/x\",le=\"0.1\"} 2\n"
        "t_seconds_bucket{route=\"/x\",le=\"1\"} 3\n"
        "t_seconds_bucket{route=\"/x\",le=\"+Inf\"} 4\n"
        "t_seconds_sum{route=\"/x\"} 3.65\n"
        "t_seconds_count{route=\"/x\"} 4\n");
}

TEST_CASE("label values and help text are escaped") {
  MetricsRegistry m;
  m.GetCounter("t_total", "Back\\slash and\nnewline.", {{"v", "q\"uote\\back\nline"}}).Inc();
  CHECK(m.RenderPrometheusText() ==
        "# HELP t_total Back\\\\slash and\\nnewline.\n"
        "# TYPE t_total counter\n"
        "t_total{v=\"q\\\"uote\\\\back\\nline\"} 1\n");
}

TEST_CASE("callback gauges are read at render time, sorted by labels; no samples renders only the header") {
  MetricsRegistry m;
  double depth = 1;
  m.AddGaugeCallback("t_queue", "Queue.", [&] {
    return MetricsRegistry::GaugeSamples{{{{"q", "b"}}, depth}, {{{"q", "a"}}, 2}};
  });
  m.AddGaugeCallback("t_empty", "Nothing.", [] { return MetricsRegistry::GaugeSamples{}; });
  depth = 4;
  CHECK(m.RenderPrometheusText() ==
        "# HELP t_empty Nothing.\n"
        "# TYPE t_empty gauge\n"
        "# HELP t_queue Queue.\n"
        "# TYPE t_queue gauge\n"
        "t_queue{q=\"a\"} 2\n"
        "t_queue{q=\"b\"} 4\n");
}

TEST_CASE("concurrent increments from many threads are all counted") {
  MetricsRegistry m;
  constexpr int kThreads = 8, kEach = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&m, t] {
      for (int i = 0; i < kEach; ++i) {
        m.GetCounter("t_total", "C.", {{"parity", (i + t) % 2 ? "odd" : "even"}}).Inc();
        m.GetHistogram("t_h", "H.", {1}).Observe(0.5);
      }
    });
  for (auto& th : threads) th.join();
  CHECK(m.GetCounter("t_total", "C.", {{"parity", "odd"}}).Value() +
            m.GetCounter("t_total", "C.", {{"parity", "even"}}).Value() ==
        kThreads * kEach);
  auto snap = m.GetHistogram("t_h", "H.", {1}).Read();
  CHECK(snap.count == kThreads * kEach);
  CHECK(snap.cumulative[0] == kThreads * kEach);
  CHECK(snap.sum == doctest::Approx(0.5 * kThreads * kEach));
}
