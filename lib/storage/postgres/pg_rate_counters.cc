// The limits' counters in PostgreSQL (livechat/rate_counters.h), shared by
// every instance on the database: one call is one statement of a plpgsql
// function (pg_schema.cc, migrations 2 and 10) on a small pool of
// connections.
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
  Both HitBoth(const std::string& first, int firstLimit, const std::string& second, int secondLimit) override {
    Both out{Outcome{true, firstLimit, firstLimit, window_, 0}, Outcome{true, secondLimit, secondLimit, window_, 0}};
    Status st = pool_.With([&](Connection& c) -> Status {
      LC_ASSIGN_OR_RETURN(pg::Statement s, c.Prepare("SELECT allowed1, counted1, reset1_ms, allowed2, counted2, "
                                                     "reset2_ms, now_ms FROM livechat_rate_count_both(?1, ?2, ?3, ?4, ?5)"));
      s.Add(first).Add(firstLimit).Add(second).Add(secondLimit).Add(window_);
      LC_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return Error{ErrorCode::kInternal, "postgres: livechat_rate_count_both returned no row"};
      const std::int64_t at = s.Int(6);
      out.first = Read(s, 0, firstLimit, at);
      out.second.reset();
      if (!s.IsNull(3)) out.second = Read(s, 3, secondLimit, at);
      return Sweep(c, at);
    });
    if (!st.ok()) Report("a request", st.error());
    return out;
  }
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
      // A hit is one upsert (livechat_rate_hit); a take may leave the row as
      // it was, which the two-statement function tells apart.
      LC_ASSIGN_OR_RETURN(
          pg::Statement s,
          c.Prepare(countRefused ? "SELECT allowed, counted, reset_ms, now_ms FROM livechat_rate_hit(?1, ?2, ?3)"
                                 : "SELECT allowed, counted, reset_ms, now_ms FROM livechat_rate_count(?1, ?2, ?3, false)"));
      s.Add(key).Add(limit).Add(window_);
      LC_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return Error{ErrorCode::kInternal, "postgres: the rate window function returned no row"};
      out = Read(s, 0, limit, s.Int(3));
      return Sweep(c, out.at);
    });
    if (!st.ok()) {
      Report("a request", st.error());
      return Outcome{true, limit, limit, window_, 0};
    }
    return out;
  }

  // allowed, counted, reset_ms from column `col` on.
  Outcome Read(const pg::Statement& s, int col, int limit, std::int64_t at) const {
    const std::int64_t counted = s.Int(col + 1);
    return Outcome{s.Bool(col), limit, static_cast<int>(std::max<std::int64_t>(0, limit - counted)), s.Int(col + 2),
                   at};
  }

  // The old sweep of the in-process version, done by the database: a key
  // idle for a whole window is gone, so the table holds only the callers of
  // the last window. Once in about 500 calls.
  Status Sweep(Connection& c, std::int64_t at) const {
    if (at % 500 != 0) return Status::Ok();
    LC_ASSIGN_OR_RETURN(pg::Statement d, c.Prepare("DELETE FROM rate_windows WHERE start_ms < ?1"));
    d.Add(at - window_);
    return d.Run();
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
