// The limits' counters in PostgreSQL (livechat/rate_counters.h), shared by
// every instance on the database: one call is one statement of a plpgsql
// function (pg_schema.cc, migration 2) on a small pool of connections.
//
// A counter that cannot reach the database lets the request through (and
// says so on stderr, once a minute at most): the request itself needs the
// database and fails on its own, and refusing everything because a counter
// is unreachable would turn a database hiccup into a full outage.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <functional>
#include <vector>

#include "livechat/postgres_store.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/pg_pool.h"

namespace livechat {
namespace {

using pg::Connection;
using pg::ConnectionPool;

void Report(const char* what, const Error& e) {
  static std::mutex mu;
  static std::chrono::steady_clock::time_point last{};
  std::lock_guard lock(mu);
  const auto now = std::chrono::steady_clock::now();
  if (last != std::chrono::steady_clock::time_point{} && now - last < std::chrono::minutes(1)) return;
  last = now;
  std::fprintf(stderr, "livechat: %s could not be counted in the database, let through: %s\n", what,
               e.message.c_str());
}

class PgRateWindows final : public RateWindows {
 public:
  PgRateWindows(const std::string& url, std::int64_t windowMillis) : pool_(url, 4), window_(windowMillis) {}

  Outcome Hit(const std::string& key, int limit) override { return Count(key, limit, true); }
  Outcome Take(const std::string& key, int limit) override { return Count(key, limit, false); }
  void Return(const std::string& key, std::int64_t at) override {
    Status st = pool_.With([&](Connection& c) -> Status {
      LC_ASSIGN_OR_RETURN(pg::Statement s, c.Prepare("SELECT livechat_rate_return(?1, ?2, ?3)"));
      s.Add(key).Add(at).Add(window_);
      return s.Run();
    });
    if (!st.ok()) Report("a rate-limit return", st.error());
  }

 private:
  Outcome Count(const std::string& key, int limit, bool countRefused) {
    Outcome out{true, limit, limit, window_, 0};
    Status st = pool_.With([&](Connection& c) -> Status {
      LC_ASSIGN_OR_RETURN(pg::Statement s,
                          c.Prepare("SELECT allowed, counted, reset_ms, now_ms FROM livechat_rate_count(?1, ?2, ?3, ?4)"));
      s.Add(key).Add(limit).Add(window_).Add(countRefused ? "true" : "false");
      LC_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return Error{ErrorCode::kInternal, "postgres: livechat_rate_count returned no row"};
      out.allowed = s.Bool(0);
      const std::int64_t counted = s.Int(1);
      out.remaining = static_cast<int>(std::max<std::int64_t>(0, limit - counted));
      out.resetInMillis = s.Int(2);
      out.at = s.Int(3);
      // The old sweep of the in-process version, done by the database: a
      // key idle for a whole window is gone, so the table holds only the
      // callers of the last window. Once in about 500 calls.
      if (out.at % 500 == 0) {
        LC_ASSIGN_OR_RETURN(pg::Statement d, c.Prepare("DELETE FROM rate_windows WHERE start_ms < ?1"));
        d.Add(out.at - window_);
        LC_RETURN_IF_ERROR(d.Run());
      }
      return Status::Ok();
    });
    if (!st.ok()) {
      Report("a request", st.error());
      return Outcome{true, limit, limit, window_, 0};
    }
    return out;
  }

  ConnectionPool pool_;
  const std::int64_t window_;
};

class PgCostBuckets final : public CostBuckets {
 public:
  PgCostBuckets(const std::string& url, std::int64_t capacity, std::int64_t refillPerSecond)
      : pool_(url, 4), capacity_(capacity), refill_(refillPerSecond) {}

  Outcome Take(const std::string& key, std::int64_t cost) override {
    Outcome out{true, static_cast<double>(capacity_)};
    Status st = pool_.With([&](Connection& c) -> Status {
      LC_ASSIGN_OR_RETURN(pg::Statement s,
                          c.Prepare("SELECT allowed, left_tokens FROM livechat_bucket_take(?1, ?2, ?3, ?4)"));
      s.Add(key).Add(cost).Add(capacity_).Add(refill_);
      LC_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return Error{ErrorCode::kInternal, "postgres: livechat_bucket_take returned no row"};
      out.allowed = s.Bool(0);
      out.left = s.Double(1);
      // A bucket idle for a full refill period is full again, the same as
      // one never seen: dropped, once in about 500 calls.
      if (++calls_ % 500 == 0 && refill_ > 0) {
        LC_ASSIGN_OR_RETURN(pg::Statement d,
                            c.Prepare("DELETE FROM cost_buckets WHERE at_ms < livechat_now_ms() - ?1"));
        d.Add((capacity_ * 1000 + refill_ - 1) / refill_);
        LC_RETURN_IF_ERROR(d.Run());
      }
      return Status::Ok();
    });
    if (!st.ok()) {
      Report("a query's cost", st.error());
      return Outcome{true, static_cast<double>(capacity_)};
    }
    return out;
  }

 private:
  ConnectionPool pool_;
  const std::int64_t capacity_;
  const std::int64_t refill_;
  std::atomic<std::int64_t> calls_{0};
};

}  // namespace

std::unique_ptr<RateWindows> OpenPostgresRateWindows(const std::string& url, std::int64_t windowMillis) {
  return std::make_unique<PgRateWindows>(url, windowMillis);
}

std::unique_ptr<CostBuckets> OpenPostgresCostBuckets(const std::string& url, std::int64_t capacity,
                                                     std::int64_t refillPerSecond) {
  return std::make_unique<PgCostBuckets>(url, capacity, refillPerSecond);
}

}  // namespace livechat
