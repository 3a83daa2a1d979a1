// The limits' counters in PostgreSQL (livechat/rate_counters.h), shared by
// every instance on the database: one call is one statement on a small pool
// of connections. A hit (every request counts one or two) is plain SQL; a
// take is a plpgsql function (pg_schema.cc, migration 2). Migration 10's
// hit functions are left in the schema for binaries that still call them.
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
#include <string>
#include <string_view>
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

// One hit of key ?1 in windows of ?2 ms: the window's start, its count
// after the hit, and the database's clock. A window that ended (or never
// counted) opens again with this hit (the same rule as livechat_rate_hit,
// pg_schema.cc migration 10).
constexpr const char* kHitUpsert =
    "INSERT INTO rate_windows AS w (key, start_ms, count) SELECT {key}, t.at, 1 FROM t{from} "
    "ON CONFLICT (key) DO UPDATE SET "
    "start_ms = CASE WHEN EXCLUDED.start_ms - w.start_ms >= {window} OR w.count = 0 THEN EXCLUDED.start_ms "
    "ELSE w.start_ms END, "
    "count = CASE WHEN EXCLUDED.start_ms - w.start_ms >= {window} OR w.count = 0 THEN 1 ELSE w.count + 1 END "
    "RETURNING w.start_ms, w.count";

std::string HitUpsert(std::string_view key, std::string_view from, std::string_view window) {
  std::string out = kHitUpsert;
  auto put = [&out](std::string_view name, std::string_view value) {
    for (std::size_t at = out.find(name); at != std::string::npos; at = out.find(name, at + value.size()))
      out.replace(at, name.size(), value);
  };
  put("{key}", key);
  put("{from}", from);
  put("{window}", window);
  return out;
}

const std::string kHit = "WITH t AS (SELECT livechat_now_ms() AS at), h AS (" +
                         HitUpsert("CAST(?1 AS text)", "", "CAST(?2 AS bigint)") +
                         ") SELECT h.start_ms, h.count, t.at FROM t, h";
// HitBoth: ?1 counted against ?2, then ?3 only if ?1 allowed, windows of
// ?4 ms (the second limit is applied by the caller: a hit counts refused
// calls too). The key's row is written from the address's RETURNING (b
// reads a), so the address row is always locked first.
const std::string kHitBoth = "WITH t AS (SELECT livechat_now_ms() AS at), a AS (" +
                             HitUpsert("CAST(?1 AS text)", "", "CAST(?4 AS bigint)") + "), b AS (" +
                             HitUpsert("CAST(?3 AS text)", ", a WHERE a.count <= CAST(?2 AS bigint)", "CAST(?4 AS bigint)") +
                             ") SELECT a.start_ms, a.count, b.start_ms, b.count, t.at FROM t CROSS JOIN a "
                             "LEFT JOIN b ON true";

class PgRateWindows final : public RateWindows {
 public:
  PgRateWindows(const std::string& url, std::int64_t windowMillis) : pool_(url, 4), window_(windowMillis) {}

  Outcome Hit(const std::string& key, int limit) override { return Count(key, limit, true); }
  Outcome Take(const std::string& key, int limit) override { return Count(key, limit, false); }
  Both HitBoth(const std::string& first, int firstLimit, const std::string& second, int secondLimit) override {
    Both out{Outcome{true, firstLimit, firstLimit, window_, 0}, Outcome{true, secondLimit, secondLimit, window_, 0}};
    Status st = pool_.With([&](Connection& c) -> Status {
      // One statement of plain SQL, not livechat_rate_count_both's three
      // plpgsql calls: measured with pgbench on this machine, 84-100 us of
      // the server's CPU per call against 140-159 us (bench/RESULTS.md).
      // The second row is written from the first's RETURNING, so the
      // address row is locked before the key's, as the function did.
      LC_ASSIGN_OR_RETURN(pg::Statement s, c.Prepare(kHitBoth));
      s.Add(first).Add(firstLimit).Add(second).Add(window_);
      LC_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return Error{ErrorCode::kInternal, "postgres: the rate windows' statement returned no row"};
      const std::int64_t at = s.Int(4);
      out.first = Read(s.Int(0), s.Int(1), firstLimit, at);
      out.second.reset();
      if (!s.IsNull(2)) out.second = Read(s.Int(2), s.Int(3), secondLimit, at);
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
      // A hit is one upsert; a take may leave the row as it was, which the
      // two-statement function (livechat_rate_count) tells apart.
      if (countRefused) {
        LC_ASSIGN_OR_RETURN(pg::Statement s, c.Prepare(kHit));
        s.Add(key).Add(window_);
        LC_ASSIGN_OR_RETURN(bool row, s.Step());
        if (!row) return Error{ErrorCode::kInternal, "postgres: the rate window's statement returned no row"};
        out = Read(s.Int(0), s.Int(1), limit, s.Int(2));
      } else {
        LC_ASSIGN_OR_RETURN(pg::Statement s,
                            c.Prepare("SELECT allowed, counted, reset_ms, now_ms FROM livechat_rate_count(?1, ?2, ?3, false)"));
        s.Add(key).Add(limit).Add(window_);
        LC_ASSIGN_OR_RETURN(bool row, s.Step());
        if (!row) return Error{ErrorCode::kInternal, "postgres: the rate window function returned no row"};
        const std::int64_t at = s.Int(3);
        out = Outcome{s.Bool(0), limit, static_cast<int>(std::max<std::int64_t>(0, limit - s.Int(1))), s.Int(2), at};
      }
      return Sweep(c, out.at);
    });
    if (!st.ok()) {
      Report("a request", st.error());
      return Outcome{true, limit, limit, window_, 0};
    }
    return out;
  }

  // A hit's outcome from its window's start and count after it.
  Outcome Read(std::int64_t start, std::int64_t counted, int limit, std::int64_t at) const {
    return Outcome{counted <= limit, limit, static_cast<int>(std::max<std::int64_t>(0, limit - counted)),
                   start + window_ - at, at};
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
