// The PostgreSQL Store: for installations that run several livechatd
// instances on one database (docs/operations.md, "Several instances on
// PostgreSQL"). Most embedders open a store through livechat/open_store.h,
// which picks the backend from the database setting.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "livechat/clock.h"
#include "livechat/mcp_sessions.h"
#include "livechat/metrics.h"
#include "livechat/rate_counters.h"
#include "livechat/result.h"
#include "livechat/store.h"

namespace livechat {

struct PostgresOptions {
  // A libpq connection URI: postgresql://user:password@host:5432/db?sslmode=require
  std::string url;
  // Read connections kept open (each Read holds one for its snapshot); the
  // store adds one write connection and one that listens for other
  // instances' writes.
  int readers = 4;
  MetricsRegistry* metrics = nullptr;

  // The clock lease and due times are measured on (docs/decisions.md, "Lease
  // times from the database clock"): the webhook deliveries' and summary
  // jobs' nextAttemptAt and leaseUntil, the Idempotency-Key records'
  // leaseUntil and expiresAt, and the `now` and `leaseUntil` that ListDue*,
  // Claim* and PurgeIdempotencyRecords take.
  enum class LeaseClock {
    // The database's: every instance compares against one clock, so a host
    // whose clock runs ahead cannot take over a live claim, nor one running
    // behind hold a dead one. Callers still pass times read from `clock`;
    // each write transaction measures how far the database's clock is from
    // it (a read reuses a measurement up to a second old when no `clock` is
    // given) and stores and compares those times on the database's clock,
    // and reads them back on `clock`'s.
    kDatabase,
    // The callers' times as they are, as the SQLite store takes them: for
    // tests that drive every component with one ManualClock on a single
    // process. Never for several instances.
    kCaller,
  };
  LeaseClock leaseClock = LeaseClock::kDatabase;
  // The clock the store's callers read their times from (the dispatcher's,
  // the summary worker's, the service's). Null: Clock::Default(), theirs too.
  Clock* clock = nullptr;
};

// Connects, and migrates the database to this build's schema (one instance
// migrates while others starting at the same moment wait). Errors: kInternal
// with the server's message; a schema newer than this build is refused.
Result<std::unique_ptr<Store>> OpenPostgresStore(const PostgresOptions& options);

// Schema version this build migrates to.
int PostgresSchemaVersion();

// The limits' counters kept in the database at `url` (migrated by
// OpenPostgresStore), so that several instances count each limit once:
// request windows of `windowMillis` (ServiceOptions::rateWindows) and cost
// buckets (GraphQLApiOptions::costBuckets). They connect on first use.
std::unique_ptr<RateWindows> OpenPostgresRateWindows(const std::string& url, std::int64_t windowMillis);
std::unique_ptr<CostBuckets> OpenPostgresCostBuckets(const std::string& url, std::int64_t capacity,
                                                     std::int64_t refillPerSecond);

// The tool server's sessions kept in the database at `url`
// (McpOptions::sessions), so a session opened on one instance works on all.
std::unique_ptr<McpSessions> OpenPostgresMcpSessions(const std::string& url);

// True for "postgresql://..." and "postgres://..." (libpq's URI forms).
bool IsPostgresUrl(std::string_view db);

}  // namespace livechat
