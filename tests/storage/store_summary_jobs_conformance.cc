// Summary jobs (migration 10): every Store queues, claims and removes them the same way.
#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

void AddConversation(Store& s, const std::string& shopId, const std::string& id) {
  Put(s, [&](StoreWriter& w) -> Status {
    Conversation c = MakeConversation(shopId, id, 1000);
    return w.InsertConversation(c);
  });
}

SummaryJob Job(const std::string& shop, const std::string& conv, const std::string& id, Millis due) {
  return SummaryJob{id, shop, conv, due - 5, 0, due, 0};
}

std::vector<std::string> DueIds(Store& s, Millis now, int limit = 10) {
  std::vector<std::string> ids;
  for (const auto& j : Get(s, [&](StoreReader& r) { return r.ListDueSummaryJobs(now, limit); }))
    ids.push_back(j.shopId + "/" + j.conversationId + "/" + j.id);
  return ids;
}

}  // namespace

STORE_TEST("summary jobs: one per conversation, replaced whole, scoped by shop") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversation(s, kShopA, "c1");
  AddConversation(s, kShopB, "c1");
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetSummaryJob(kShopA, "c1"); }).has_value());

  Put(s, [&](StoreWriter& w) { return w.PutSummaryJob(Job(kShopA, "c1", "j1", 100)); });
  SummaryJob replaced{"j2", kShopA, "c1", 150, 2, 300, 40};
  Put(s, [&](StoreWriter& w) { return w.PutSummaryJob(replaced); });
  auto got = Get(s, [&](StoreReader& r) { return r.GetSummaryJob(kShopA, "c1"); });
  REQUIRE(got.has_value());
  CHECK(got->id == "j2");
  CHECK(got->shopId == kShopA);
  CHECK(got->conversationId == "c1");
  CHECK(got->requestedAt == 150);
  CHECK(got->attempts == 2);
  CHECK(got->nextAttemptAt == 300);
  CHECK(got->leaseUntil == 40);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetSummaryJob(kShopB, "c1"); }).has_value());

  auto stats = Get(s, [&](StoreReader& r) { return r.GetSummaryQueueStats(); });
  CHECK(stats.pending == 1);
  CHECK(stats.oldestDueAt == std::optional<Millis>(300));

  // Another shop's delete, or another job id, removes nothing.
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteSummaryJob(kShopB, "c1", ""); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteSummaryJob(kShopA, "c1", "j1"); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteSummaryJob(kShopA, "c1", "j2"); }) == true);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetSummaryJob(kShopA, "c1"); }).has_value());
  Put(s, [&](StoreWriter& w) { return w.PutSummaryJob(Job(kShopA, "c1", "j3", 100)); });
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteSummaryJob(kShopA, "c1", ""); }) == true);
  stats = Get(s, [&](StoreReader& r) { return r.GetSummaryQueueStats(); });
  CHECK(stats.pending == 0);
  CHECK_FALSE(stats.oldestDueAt.has_value());
}

STORE_TEST("summary jobs: due across shops in due order, claimed once under a lease") {
  StoreFixture fx;
  Store& s = fx.store();
  for (const char* c : {"c1", "c2", "c3"}) AddConversation(s, kShopA, c);
  AddConversation(s, kShopB, "c1");
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.PutSummaryJob(Job(kShopA, "c1", "a1", 300)));
    LC_RETURN_IF_ERROR(w.PutSummaryJob(Job(kShopA, "c2", "a2", 100)));
    LC_RETURN_IF_ERROR(w.PutSummaryJob(Job(kShopB, "c1", "b1", 200)));
    return w.PutSummaryJob(Job(kShopA, "c3", "a3", 1000));  // not due yet
  });
  CHECK(DueIds(s, 300) == std::vector<std::string>{"shop-a/c2/a2", "shop-b/c1/b1", "shop-a/c1/a1"});
  CHECK(DueIds(s, 300, 2) == std::vector<std::string>{"shop-a/c2/a2", "shop-b/c1/b1"});
  CHECK(DueIds(s, 99).empty());
  CHECK(DueIds(s, 300, 0).empty());

  // Claimed: no longer due until the lease runs out; a second claim fails.
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.ClaimSummaryJob(kShopA, "c2", "a2", 300, 400); }) == true);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.ClaimSummaryJob(kShopA, "c2", "a2", 300, 400); }) == false);
  CHECK(DueIds(s, 300) == std::vector<std::string>{"shop-b/c1/b1", "shop-a/c1/a1"});
  CHECK(DueIds(s, 399) == std::vector<std::string>{"shop-b/c1/b1", "shop-a/c1/a1"});
  CHECK(DueIds(s, 400) == std::vector<std::string>{"shop-a/c2/a2", "shop-b/c1/b1", "shop-a/c1/a1"});
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.ClaimSummaryJob(kShopA, "c2", "a2", 400, 500); }) == true);

  // Not due, another job id, another shop: refused.
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.ClaimSummaryJob(kShopA, "c3", "a3", 999, 2000); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.ClaimSummaryJob(kShopA, "c1", "old", 300, 400); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.ClaimSummaryJob(kShopB, "c1", "a1", 300, 400); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.ClaimSummaryJob(kShopA, "c3", "a3", 1000, 2000); }) == true);
}

STORE_TEST("summary jobs: a job for a missing conversation is refused at commit") {
  StoreFixture fx;
  Store& s = fx.store();
  // A job must name an existing conversation of its shop (checked at commit).
  Status orphan = s.Write([&](StoreWriter& w) { return w.PutSummaryJob(Job(kShopA, "missing", "j", 1)); });
  REQUIRE_FALSE(orphan.ok());
  CHECK(orphan.error().code == ErrorCode::kInternal);
  CHECK(Get(s, [&](StoreReader& r) { return r.GetSummaryQueueStats(); }).pending == 0);
}

}  // namespace livechat::testing
