// Lease times from the database clock (issue 16): several livechatd hosts on
// one PostgreSQL database whose clocks disagree by an hour. Each instance is
// a store of its own whose callers read a skewed host clock, as its
// dispatcher and summary worker would; the store is opened with the
// production default (PostgresOptions::LeaseClock::kDatabase).
//
// A host an hour ahead must not take over a claim before its lease ends on
// the database's clock, and a host an hour behind must take over one that
// has ended; a delivery queued or rescheduled on a skewed host must come due
// on the database's clock too. Every case fails when the store takes the
// callers' times as they are (LeaseClock::kCaller, or a skew of 0 in
// PostgresStore::Begin): the host ahead claims at once, the host behind
// waits an hour.
//
// Leases are short (500 ms) and every wait is bounded (3 s).
#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

using std::chrono::steady_clock;

constexpr Millis kHour = 3600 * 1000;
constexpr Millis kLease = 500;
// How far a time written through one host's skew and read or compared
// through another's may move: each skew is measured to within the travel
// time of one answer, and kept while within 5 ms (pg_store.cc).
constexpr Millis kSlack = 50;
constexpr Millis kPatience = 3000;
const std::string kShop = "shop-a";

// A host's clock, `offset` milliseconds off the system clock.
class SkewedClock final : public Clock {
 public:
  explicit SkewedClock(Millis offset) : offset_(offset) {}
  std::int64_t NowMillis() const override { return Clock::Default()->NowMillis() + offset_; }
  std::int64_t MonotonicMillis() const override { return Clock::Default()->MonotonicMillis(); }

 private:
  Millis offset_;
};

// One livechatd instance, as far as leases go: a store on the shared
// database, and the host clock its callers take their times from.
class Instance {
 public:
  Instance(const PgTestDatabase& db, Millis skew) : clock_(skew) {
    PostgresOptions options;
    options.url = db.url();
    options.readers = 1;
    options.clock = &clock_;
    auto r = OpenPostgresStore(options);
    if (!r.ok()) FAIL("OpenPostgresStore: " << r.error().message);
    store_ = std::move(r).value();
  }
  Store& store() { return *store_; }
  Millis Now() const { return clock_.NowMillis(); }

  // As the dispatcher does: its clock's now, a lease of kLease from it, a
  // run of the subscription's due deliveries; true when the run is just `id`.
  bool ClaimDelivery(const std::string& subscriptionId, const std::string& id) {
    const Millis now = Now();
    auto run = PutValue(*store_, [&](StoreWriter& w) {
      return w.ClaimDeliveries(kShop, subscriptionId, now, now + kLease, 8);
    });
    return run.size() == 1 && run[0].id == id;
  }
  std::vector<std::string> DueDeliveries() {
    const Millis now = Now();
    std::vector<std::string> ids;
    for (const auto& d : Get(*store_, [&](StoreReader& r) { return r.ListDueDeliveries(now, 10); }))
      ids.push_back(d.id);
    return ids;
  }
  // As the summary worker does.
  bool ClaimJob(const std::string& conversationId, const std::string& jobId) {
    const Millis now = Now();
    return PutValue(*store_, [&](StoreWriter& w) {
      return w.ClaimSummaryJob(kShop, conversationId, jobId, now, now + kLease);
    });
  }
  std::vector<std::string> DueJobs() {
    const Millis now = Now();
    std::vector<std::string> ids;
    for (const auto& j : Get(*store_, [&](StoreReader& r) { return r.ListDueSummaryJobs(now, 10); }))
      ids.push_back(j.id);
    return ids;
  }

 private:
  SkewedClock clock_;
  std::unique_ptr<Store> store_;
};

// Tries `claim` every 20 ms from `since` until it succeeds or kPatience has
// passed; how long after `since` it first succeeded (kPatience + 1: never).
Millis ClaimedAfter(steady_clock::time_point since, const std::function<bool()>& claim) {
  for (;;) {
    const bool got = claim();
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(steady_clock::now() - since).count();
    if (got) return elapsed;
    if (elapsed > kPatience) return kPatience + 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// The first instance's queue: one subscription, one delivery due now.
void QueueDelivery(Instance& on, const std::string& subscriptionId, const std::string& id) {
  Put(on.store(), [&](StoreWriter& w) -> Status {
    WebhookSubscription s;
    s.id = subscriptionId;
    s.shopId = kShop;
    s.url = "https://hooks.example.com/" + subscriptionId;
    s.events = {"message.created"};
    s.secret = "whsec_" + subscriptionId;
    s.secretHash = "hash-" + subscriptionId;
    s.createdAt = s.updatedAt = on.Now();
    LC_RETURN_IF_ERROR(w.InsertSubscription(s));
    WebhookDelivery d;
    d.id = id;
    d.shopId = kShop;
    d.subscriptionId = subscriptionId;
    d.eventId = "ev-" + id;
    d.nextAttemptAt = d.createdAt = on.Now();
    return w.InsertDelivery(d);
  });
}

void QueueJob(Instance& on, const std::string& conversationId, const std::string& jobId) {
  Put(on.store(), [&](StoreWriter& w) -> Status {
    Conversation c = MakeConversation(kShop, conversationId, on.Now());
    LC_RETURN_IF_ERROR(w.InsertConversation(c));
    return w.PutSummaryJob(SummaryJob{jobId, kShop, conversationId, on.Now(), 0, on.Now(), 0});
  });
}

bool Has(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// True once `ready` is, within kSlack: "due now" on one host is due a few
// milliseconds either side of now on another (kSlack), not an hour.
bool Soon(const std::function<bool()>& ready) {
  const auto until = steady_clock::now() + std::chrono::milliseconds(kSlack);
  for (;;) {
    if (ready()) return true;
    if (steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// A piece of work due now: `onTime` claims it. The host an hour ahead, by
// whose clock the lease ended long ago, neither lists nor claims it until
// the lease ends on the database's clock, then claims it. The host an hour
// behind, by whose clock that lease runs for another hour, takes it over
// when it ends on the database's clock.
void CheckTakeovers(Instance& onTime, Instance& ahead, Instance& behind, const std::function<bool(Instance&)>& listed,
                    const std::function<bool(Instance&)>& claim) {
  REQUIRE(Soon([&] { return listed(onTime); }));
  const auto claimed = steady_clock::now();
  REQUIRE(claim(onTime));
  CHECK_FALSE(listed(ahead));
  const Millis tookOver = ClaimedAfter(claimed, [&] { return claim(ahead); });
  CHECK(tookOver >= kLease - kSlack);
  CHECK(tookOver <= kPatience);

  const auto claimedAgain = steady_clock::now();
  CHECK_FALSE(listed(behind));
  CHECK_FALSE(claim(behind));
  const Millis tookOverAgain = ClaimedAfter(claimedAgain, [&] { return claim(behind); });
  // claimedAgain is read a round trip after the lease began.
  CHECK(tookOverAgain >= kLease - kSlack - 20);
  CHECK(tookOverAgain <= kPatience);
}

}  // namespace

TEST_CASE("lease clock: a delivery's lease ends on the database's clock, whichever host's clock runs ahead or behind") {
  PgTestDatabase db;
  Instance onTime(db, 0), ahead(db, kHour), behind(db, -kHour);
  QueueDelivery(onTime, "s1", "d1");

  CheckTakeovers(onTime, ahead, behind, [](Instance& i) { return Has(i.DueDeliveries(), "d1"); },
                 [](Instance& i) { return i.ClaimDelivery("s1", "d1"); });

  // Read back on each host's clock: the lease ends kLease after the claim,
  // and the two hosts' readings are their clocks' two hours apart.
  const auto seenBehind = Get(behind.store(), [&](StoreReader& r) { return r.GetDelivery(kShop, "d1"); });
  const auto seenAhead = Get(ahead.store(), [&](StoreReader& r) { return r.GetDelivery(kShop, "d1"); });
  REQUIRE(seenBehind.has_value());
  REQUIRE(seenAhead.has_value());
  CHECK(seenBehind->leaseUntil > behind.Now());
  CHECK(seenBehind->leaseUntil <= behind.Now() + kLease + kSlack);
  CHECK(seenAhead->leaseUntil - seenBehind->leaseUntil > 2 * kHour - kSlack);
  CHECK(seenAhead->leaseUntil - seenBehind->leaseUntil < 2 * kHour + kSlack);
}

TEST_CASE("lease clock: a delivery queued or rescheduled on a skewed host comes due on the database's clock") {
  PgTestDatabase db;
  Instance onTime(db, 0), ahead(db, kHour), behind(db, -kHour);
  // Queued by the host ahead, "now" by its clock: due now for everyone, not
  // in an hour.
  QueueDelivery(ahead, "s1", "d1");
  CHECK(Soon([&] { return Has(onTime.DueDeliveries(), "d1"); }));
  CHECK(Soon([&] { return Has(behind.DueDeliveries(), "d1"); }));

  // The host behind sends one of its own, fails, and schedules the retry
  // 1 s from its now: not due an hour early on the host ahead, due in 1 s
  // for all.
  QueueDelivery(behind, "s2", "d2");
  REQUIRE(Soon([&] { return behind.ClaimDelivery("s2", "d2"); }));
  auto d = *Get(behind.store(), [&](StoreReader& r) { return r.GetDelivery(kShop, "d2"); });
  const auto failed = steady_clock::now();
  d.attempts = 1;
  d.lastAttemptAt = behind.Now();
  d.nextAttemptAt = behind.Now() + 1000;
  d.leaseUntil = 0;
  CHECK(PutValue(behind.store(), [&](StoreWriter& w) { return w.UpdateDelivery(d); }));
  CHECK_FALSE(Has(ahead.DueDeliveries(), "d2"));
  CHECK_FALSE(ahead.ClaimDelivery("s2", "d2"));
  const Millis retried = ClaimedAfter(failed, [&] { return ahead.ClaimDelivery("s2", "d2"); });
  CHECK(retried >= 1000 - kSlack);
  CHECK(retried <= kPatience);

  // The queue's age (the metrics' oldest pending) reads the same on every host.
  QueueDelivery(onTime, "s3", "d3");
  const auto statsAhead = Get(ahead.store(), [](StoreReader& r) { return r.GetOutboxStats(); });
  REQUIRE(statsAhead.oldestDueAt.has_value());
  CHECK(ahead.Now() - *statsAhead.oldestDueAt < 5000);  // d1, queued first
  CHECK(ahead.Now() - *statsAhead.oldestDueAt >= 0);
}

TEST_CASE("lease clock: a summary job's lease ends on the database's clock; a job queued ahead is due at once") {
  PgTestDatabase db;
  Instance onTime(db, 0), ahead(db, kHour), behind(db, -kHour);
  QueueJob(onTime, "c1", "j1");

  CheckTakeovers(onTime, ahead, behind, [](Instance& i) { return Has(i.DueJobs(), "j1"); },
                 [](Instance& i) { return i.ClaimJob("c1", "j1"); });

  QueueJob(ahead, "c2", "j2");
  CHECK(Soon([&] { return Has(behind.DueJobs(), "j2"); }));
  CHECK(Soon([&] { return Has(onTime.DueJobs(), "j2"); }));
}

TEST_CASE("lease clock: an Idempotency-Key record's lease and expiry read the same on every host") {
  PgTestDatabase db;
  Instance onTime(db, 0), ahead(db, kHour), behind(db, -kHour);
  IdempotencyRecord running;
  running.shopId = kShop;
  running.scope = "key:k1";
  running.key = "retry-1";
  running.fingerprint = "f";
  running.createdAt = onTime.Now();
  running.leaseUntil = onTime.Now() + kLease;
  running.expiresAt = onTime.Now() + 24 * kHour;
  Put(onTime.store(), [&](StoreWriter& w) { return w.PutIdempotencyRecord(running); });

  // ChatService compares the lease with its own clock: on the host ahead the
  // first request is still running, as it is on the database's clock.
  auto seen = Get(ahead.store(), [&](StoreReader& r) { return r.GetIdempotencyRecord(kShop, "key:k1", "retry-1"); });
  REQUIRE(seen.has_value());
  CHECK(seen->leaseUntil > ahead.Now());
  CHECK(seen->leaseUntil - ahead.Now() <= kLease + kSlack);
  // The host ahead's purge removes nothing that has a day to live.
  CHECK(PutValue(ahead.store(), [&](StoreWriter& w) { return w.PurgeIdempotencyRecords(ahead.Now(), 16); }) == 0);

  // After the lease, the host behind may run the request again, as the
  // database's clock says.
  std::this_thread::sleep_for(std::chrono::milliseconds(kLease + kSlack));
  seen = Get(behind.store(), [&](StoreReader& r) { return r.GetIdempotencyRecord(kShop, "key:k1", "retry-1"); });
  REQUIRE(seen.has_value());
  CHECK(seen->leaseUntil <= behind.Now());
  CHECK(seen->expiresAt > behind.Now() + 23 * kHour);

  // A record that has expired is purged by the host behind too.
  running.key = "retry-2";
  running.leaseUntil = 0;
  running.expiresAt = onTime.Now() - 1000;
  Put(onTime.store(), [&](StoreWriter& w) { return w.PutIdempotencyRecord(running); });
  CHECK(PutValue(behind.store(), [&](StoreWriter& w) { return w.PurgeIdempotencyRecords(behind.Now(), 16); }) == 1);
}

}  // namespace livechat::testing
