#include "livechat/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace livechat {
namespace {

enum Type { kCounter = 0, kGauge = 1, kHistogram = 2, kCallbackGauge = 3 };

const char* TypeName(int t) {
  switch (t) {
    case kCounter: return "counter";
    case kHistogram: return "histogram";
    default: return "gauge";
  }
}

[[noreturn]] void Misuse(std::string_view name, const char* what) {
  std::fprintf(stderr, "livechat metrics: %.*s: %s\n", static_cast<int>(name.size()), name.data(), what);
  std::abort();
}

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

void AppendEscaped(std::string& out, std::string_view s, bool quote) {
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (quote && c == '"') out += "\\\"";
    else out += c;
  }
}

// {a="x",b="y"} plus an optional extra pair (the histogram's le).
std::string LabelText(const MetricLabels& labels, std::string_view extraName = {}, std::string_view extraValue = {}) {
  if (labels.empty() && extraName.empty()) return "";
  std::string out = "{";
  bool first = true;
  auto add = [&](std::string_view n, std::string_view v) {
    if (!first) out += ',';
    first = false;
    out.append(n);
    out += "=\"";
    AppendEscaped(out, v, true);
    out += '"';
  };
  for (const auto& [n, v] : labels) add(n, v);
  if (!extraName.empty()) add(extraName, extraValue);
  out += '}';
  return out;
}

bool ValidName(std::string_view n, bool label) {
  if (n.empty()) return false;
  for (std::size_t i = 0; i < n.size(); ++i) {
    char c = n[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!label && c == ':');
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return !(label && n.substr(0, 2) == "__");
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), buckets_(new std::atomic<std::uint64_t>[bounds_.size() + 1]) {
  for (std::size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::Observe(double v) {
  // Buckets are "less than or equal": the first bound >= v.
  std::size_t i = static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin());
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot s;
  s.bounds = bounds_;
  std::uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  // Read without a lock: a concurrent Observe may be half-applied. The
  // exposition must stay monotonic, so count is the buckets' own total.
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

const std::vector<double>& DefaultLatencyBuckets() {
  static const std::vector<double> k{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  return k;
}

struct MetricsRegistry::Family {
  std::string name;
  std::string help;
  int type = kCounter;
  std::vector<std::string> labelNames;
  std::vector<double> bounds;
  std::function<GaugeSamples()> read;  // kCallbackGauge

  struct Child {
    MetricLabels labels;
    std::unique_ptr<Counter> counter;
    std::unique_ptr<Gauge> gauge;
    std::unique_ptr<Histogram> histogram;
  };
  mutable std::shared_mutex mu;
  std::map<std::string, Child> children;  // keyed by the joined label values

  Child& ChildFor(const MetricLabels& labels) {
    if (labels.size() != labelNames.size()) Misuse(name, "label names differ from the first use");
    std::string key;
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (labels[i].first != labelNames[i]) Misuse(name, "label names differ from the first use");
      key += labels[i].second;
      key += '\x1f';
    }
    {
      std::shared_lock lock(mu);
      auto it = children.find(key);
      if (it != children.end()) return it->second;
    }
    std::unique_lock lock(mu);
    auto [it, inserted] = children.try_emplace(key);
    if (inserted) {
      Child& c = it->second;
      c.labels = labels;
      if (type == kCounter) c.counter = std::make_unique<Counter>();
      if (type == kGauge) c.gauge = std::make_unique<Gauge>();
      if (type == kHistogram) c.histogram = std::make_unique<Histogram>(bounds);
    }
    return it->second;
  }
};

MetricsRegistry::MetricsRegistry() = default;
MetricsRegistry::~MetricsRegistry() = default;

MetricsRegistry::Family& MetricsRegistry::FamilyFor(std::string_view name, std::string_view help, int type,
                                                    const MetricLabels& labels, const std::vector<double>* bounds) {
  {
    std::shared_lock lock(mu_);
    auto it = families_.find(name);
    if (it != families_.end()) {
      if (it->second->type != type) Misuse(name, "registered before with another type");
      if (bounds && *bounds != it->second->bounds) Misuse(name, "registered before with other buckets");
      return *it->second;
    }
  }
  if (!ValidName(name, false)) Misuse(name, "not a valid metric name");
  for (const auto& l : labels)
    if (!ValidName(l.first, true) || (type == kHistogram && l.first == "le")) Misuse(name, "invalid label name");
  if (bounds && !std::is_sorted(bounds->begin(), bounds->end())) Misuse(name, "buckets must ascend");
  std::unique_lock lock(mu_);
  auto [it, inserted] = families_.try_emplace(std::string(name));
  if (inserted) {
    auto f = std::make_unique<Family>();
    f->name = std::string(name);
    f->help = std::string(help);
    f->type = type;
    for (const auto& l : labels) f->labelNames.push_back(l.first);
    if (bounds) f->bounds = *bounds;
    it->second = std::move(f);
  } else if (it->second->type != type) {
    Misuse(name, "registered before with another type");
  }
  return *it->second;
}

Counter& MetricsRegistry::GetCounter(std::string_view name, std::string_view help, const MetricLabels& labels) {
  return *FamilyFor(name, help, kCounter, labels, nullptr).ChildFor(labels).counter;
}

Gauge& MetricsRegistry::GetGauge(std::string_view name, std::string_view help, const MetricLabels& labels) {
  return *FamilyFor(name, help, kGauge, labels, nullptr).ChildFor(labels).gauge;
}

Histogram& MetricsRegistry::GetHistogram(std::string_view name, std::string_view help,
                                         const std::vector<double>& bounds, const MetricLabels& labels) {
  return *FamilyFor(name, help, kHistogram, labels, &bounds).ChildFor(labels).histogram;
}

void MetricsRegistry::AddGaugeCallback(std::string_view name, std::string_view help,
                                       std::function<GaugeSamples()> read) {
  Family& f = FamilyFor(name, help, kCallbackGauge, {}, nullptr);
  std::unique_lock lock(f.mu);
  if (f.read) Misuse(name, "callback registered twice");
  f.read = std::move(read);
}

std::string MetricsRegistry::RenderPrometheusText() const {
  std::string out;
  std::shared_lock lock(mu_);
  for (const auto& [name, f] : families_) {
    // Children are copied out under the family lock so a callback or a slow
    // writer of `out` never holds it.
    std::vector<std::pair<MetricLabels, const Family::Child*>> children;
    GaugeSamples samples;
    {
      std::shared_lock flock(f->mu);
      for (const auto& [key, child] : f->children) children.emplace_back(child.labels, &child);
    }
    if (f->type == kCallbackGauge) {
      std::function<GaugeSamples()> read;
      {
        std::shared_lock flock(f->mu);
        read = f->read;
      }
      if (read) samples = read();
      std::sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    out += "# HELP " + name + " ";
    AppendEscaped(out, f->help, false);
    out += "\n# TYPE " + name + " " + TypeName(f->type) + "\n";
    for (const auto& [labels, child] : children) {
      if (child->counter) out += name + LabelText(labels) + " " + std::to_string(child->counter->Value()) + "\n";
      if (child->gauge) out += name + LabelText(labels) + " " + FormatValue(child->gauge->Value()) + "\n";
      if (child->histogram) {
        Histogram::Snapshot s = child->histogram->Read();
        for (std::size_t i = 0; i < s.bounds.size(); ++i)
          out += name + "_bucket" + LabelText(labels, "le", FormatValue(s.bounds[i])) + " " +
                 std::to_string(s.cumulative[i]) + "\n";
        out += name + "_bucket" + LabelText(labels, "le", "+Inf") + " " + std::to_string(s.count) + "\n";
        out += name + "_sum" + LabelText(labels) + " " + FormatValue(s.sum) + "\n";
        out += name + "_count" + LabelText(labels) + " " + std::to_string(s.count) + "\n";
      }
    }
    for (const auto& [labels, value] : samples) out += name + LabelText(labels) + " " + FormatValue(value) + "\n";
  }
  return out;
}

}  // namespace livechat
