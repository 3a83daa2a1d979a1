// Store conformance, webhook part: subscriptions, the delivery outbox the
// dispatcher claims from, and the attempt log. Every Store must pass it.
#include <map>
#include <string>
#include <vector>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

using Names = std::vector<std::string>;

WebhookSubscription MakeSubscription(const std::string& shopId, const std::string& id, Millis createdAt) {
  WebhookSubscription s;
  s.id = id;
  s.shopId = shopId;
  s.url = "https://hooks.example.com/" + id;
  s.events = {"message.created", "conversation.tags_updated"};
  s.isActive = true;
  s.secret = "whsec_" + shopId + "_" + id;
  s.secretHash = "hash-" + shopId + "-" + id;
  s.metadataJson = R"({"team":"ops","n":1,"é":"\"q\""})";
  s.legacy = false;
  s.createdAt = createdAt;
  s.updatedAt = createdAt + 1;
  return s;
}

void CheckSame(const WebhookSubscription& a, const WebhookSubscription& b) {
  CHECK(a.id == b.id);
  CHECK(a.shopId == b.shopId);
  CHECK(a.url == b.url);
  CHECK(a.events == b.events);
  CHECK(a.isActive == b.isActive);
  CHECK(a.secret == b.secret);
  CHECK(a.secretHash == b.secretHash);
  CHECK(a.metadataJson == b.metadataJson);
  CHECK(a.legacy == b.legacy);
  CHECK(a.createdAt == b.createdAt);
  CHECK(a.updatedAt == b.updatedAt);
  CHECK(a.lastDeliveryAt == b.lastDeliveryAt);
  CHECK(a.lastDeliveryStatus == b.lastDeliveryStatus);
  CHECK(a.lastDeliveryStatusCode == b.lastDeliveryStatusCode);
  CHECK(a.lastDeliveryError == b.lastDeliveryError);
}

WebhookDelivery MakeDelivery(const std::string& shopId, const std::string& subId, const std::string& id,
                             Millis nextAttemptAt) {
  WebhookDelivery d;
  d.id = id;
  d.shopId = shopId;
  d.subscriptionId = subId;
  d.eventId = "ev-" + id;
  d.nextAttemptAt = nextAttemptAt;
  d.createdAt = nextAttemptAt;
  return d;
}

void CheckSame(const WebhookDelivery& a, const WebhookDelivery& b) {
  CHECK(a.id == b.id);
  CHECK(a.shopId == b.shopId);
  CHECK(a.subscriptionId == b.subscriptionId);
  CHECK(a.eventId == b.eventId);
  CHECK(a.state == b.state);
  CHECK(a.attempts == b.attempts);
  CHECK(a.nextAttemptAt == b.nextAttemptAt);
  CHECK(a.leaseUntil == b.leaseUntil);
  CHECK(a.lastAttemptAt == b.lastAttemptAt);
  CHECK(a.createdAt == b.createdAt);
}

DeliveryAttempt MakeAttempt(const std::string& shopId, const std::string& subId, int n) {
  DeliveryAttempt a;
  a.deliveryId = "d-" + subId;
  a.subscriptionId = subId;
  a.shopId = shopId;
  a.eventId = "ev-1";
  a.eventType = "message.created";
  a.attempt = n;
  a.at = 1000 + n;
  if (n % 2) a.statusCode = 500 + n;
  if (n % 3) a.error = "error " + std::to_string(n);
  a.durationMillis = 10 * n;
  a.outcome = n % 2 ? "retrying" : "succeeded";
  return a;
}

std::vector<int> AttemptNumbers(const std::vector<DeliveryAttempt>& as) {
  std::vector<int> out;
  for (const auto& a : as) out.push_back(a.attempt);
  return out;
}

Names Due(Store& s, Millis now, int limit = 100) {
  return Ids(Get(s, [&](StoreReader& r) { return r.ListDueDeliveries(now, limit); }));
}

// The ids of the run leased, in the order returned.
Names Claim(Store& s, const std::string& shopId, const std::string& subscriptionId, Millis now, Millis until,
            int max = 1) {
  return Ids(PutValue(s, [&](StoreWriter& w) { return w.ClaimDeliveries(shopId, subscriptionId, now, until, max); }));
}

// Subscriptions s1, s2 of shop A and s3 of shop B with deliveries:
//   s1: d1 due 100, d2 due 50, d3 due 300;  s2: e1 due 70;  s3: f1 due 10;
//   s2: e0 due 5 but already succeeded.
void AddOutbox(Store& s) {
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertSubscription(MakeSubscription(kShopA, "s1", 1)));
    LC_RETURN_IF_ERROR(w.InsertSubscription(MakeSubscription(kShopA, "s2", 2)));
    LC_RETURN_IF_ERROR(w.InsertSubscription(MakeSubscription(kShopB, "s3", 3)));
    LC_RETURN_IF_ERROR(w.InsertDelivery(MakeDelivery(kShopA, "s1", "d1", 100)));
    LC_RETURN_IF_ERROR(w.InsertDelivery(MakeDelivery(kShopA, "s1", "d2", 50)));
    LC_RETURN_IF_ERROR(w.InsertDelivery(MakeDelivery(kShopA, "s1", "d3", 300)));
    LC_RETURN_IF_ERROR(w.InsertDelivery(MakeDelivery(kShopA, "s2", "e1", 70)));
    LC_RETURN_IF_ERROR(w.InsertDelivery(MakeDelivery(kShopB, "s3", "f1", 10)));
    WebhookDelivery done = MakeDelivery(kShopA, "s2", "e0", 5);
    done.state = "succeeded";
    return w.InsertDelivery(done);
  });
}

STORE_TEST("webhooks: subscription round trip, createdAt order, lookups by url and secret hash, update") {
  StoreFixture fx;
  Store& s = fx.store();
  WebhookSubscription a2 = MakeSubscription(kShopA, "s2", 2000);
  WebhookSubscription a1 = MakeSubscription(kShopA, "s1", 1000);
  a1.legacy = true;
  a1.isActive = false;
  a1.lastDeliveryAt = 1500;
  a1.lastDeliveryStatus = "failed";
  a1.lastDeliveryStatusCode = 503;
  a1.lastDeliveryError = "receiver answered HTTP 503";
  WebhookSubscription b1 = MakeSubscription(kShopB, "s9", 500);
  b1.url = a1.url;  // the same url in another shop is another subscription
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertSubscription(a2));
    LC_RETURN_IF_ERROR(w.InsertSubscription(a1));
    return w.InsertSubscription(b1);
  });

  auto list = Get(s, [&](StoreReader& r) { return r.ListSubscriptions(kShopA); });
  REQUIRE(list.size() == 2);
  CheckSame(list[0], a1);
  CheckSame(list[1], a2);
  auto one = Get(s, [&](StoreReader& r) { return r.GetSubscription(kShopA, "s2"); });
  REQUIRE(one.has_value());
  CheckSame(*one, a2);
  auto byUrl = Get(s, [&](StoreReader& r) { return r.FindSubscriptionByUrl(kShopB, a1.url); });
  REQUIRE(byUrl.has_value());
  CheckSame(*byUrl, b1);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindSubscriptionByUrl(kShopA, a1.url + "/x"); }).has_value());
  auto bySecret = Get(s, [&](StoreReader& r) { return r.FindSubscriptionBySecretHash(b1.secretHash); });
  REQUIRE(bySecret.has_value());
  CheckSame(*bySecret, b1);  // across shops: the secret names its shop
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindSubscriptionBySecretHash("nope"); }).has_value());

  // Update writes every mutable column, and the last-delivery ones back to null.
  WebhookSubscription changed = a1;
  changed.url = "https://hooks.example.com/moved";
  changed.events = {"customer.created"};
  changed.isActive = true;
  changed.metadataJson = "{}";
  changed.updatedAt = 9000;
  changed.lastDeliveryAt = std::nullopt;
  changed.lastDeliveryStatus = std::nullopt;
  changed.lastDeliveryStatusCode = std::nullopt;
  changed.lastDeliveryError = std::nullopt;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateSubscription(changed); }));
  CheckSame(*Get(s, [&](StoreReader& r) { return r.GetSubscription(kShopA, "s1"); }), changed);
  WebhookSubscription wrongShop = changed;
  wrongShop.shopId = kShopB;
  CHECK_FALSE(PutValue(s, [&](StoreWriter& w) { return w.UpdateSubscription(wrongShop); }));

  // One url per shop; secrets are unique.
  WebhookSubscription dupUrl = MakeSubscription(kShopA, "s3", 3000);
  dupUrl.url = a2.url;
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.InsertSubscription(dupUrl); }));
  WebhookSubscription dupId = MakeSubscription(kShopA, "s2", 3000);
  dupId.url = "https://hooks.example.com/other";
  dupId.secretHash = "fresh";
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.InsertSubscription(dupId); }));
}

STORE_TEST("webhooks: ListDueDeliveries returns one per subscription (its earliest), earliest due first, limit") {
  StoreFixture fx;
  Store& s = fx.store();
  AddOutbox(s);
  CHECK(Due(s, 200) == Names{"f1", "d2", "e1"});  // across shops; d1, d3 wait behind d2; e0 is done
  CHECK(Due(s, 200, 2) == Names{"f1", "d2"});
  CHECK(Due(s, 200, 0).empty());
  CHECK(Due(s, 9).empty());
  CHECK(Due(s, 10) == Names{"f1"});  // due exactly at nextAttemptAt
  CHECK(Due(s, 60) == Names{"f1", "d2"});
  auto rows = Get(s, [&](StoreReader& r) { return r.ListDueDeliveries(200, 10); });
  REQUIRE(rows.size() == 3);
  CheckSame(rows[1], MakeDelivery(kShopA, "s1", "d2", 50));  // the whole row, not a mix of rows

  // d2 finished: d1 is next for s1.
  WebhookDelivery d2 = MakeDelivery(kShopA, "s1", "d2", 50);
  d2.state = "succeeded";
  d2.attempts = 1;
  d2.lastAttemptAt = 60;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateDelivery(d2); }));
  CheckSame(*Get(s, [&](StoreReader& r) { return r.GetDelivery(kShopA, "d2"); }), d2);
  CHECK(Due(s, 200) == Names{"f1", "e1", "d1"});
  CHECK(Due(s, 400) == Names{"f1", "e1", "d1"});

  auto stats = Get(s, [&](StoreReader& r) { return r.GetOutboxStats(); });
  CHECK(stats.pending == 4);  // d1, d3, e1, f1
  CHECK(stats.oldestDueAt == std::optional<Millis>(10));
}

STORE_TEST("webhooks: leases; a subscription with a delivery in flight lists nothing until the lease ends") {
  StoreFixture fx;
  Store& s = fx.store();
  AddOutbox(s);
  CHECK(Claim(s, kShopA, "s1", 200, 260) == Names{"d2"});
  // Neither d2 nor s1's next delivery: one delivery in flight per subscription.
  CHECK(Due(s, 200) == Names{"f1", "e1"});
  CHECK(Due(s, 259) == Names{"f1", "e1"});
  CHECK(Claim(s, kShopA, "s1", 200, 260).empty());  // s1 is busy
  // The sender died: once the lease ends the delivery is due again.
  CHECK(Due(s, 260) == Names{"f1", "d2", "e1"});
  auto d2 = *Get(s, [&](StoreReader& r) { return r.GetDelivery(kShopA, "d2"); });
  CHECK(d2.leaseUntil == 260);
  CHECK(d2.state == "pending");
}

STORE_TEST("webhooks: ClaimDeliveries is exclusive and only for pending, due deliveries of that shop") {
  StoreFixture fx;
  Store& s = fx.store();
  AddOutbox(s);
  CHECK(Claim(s, kShopA, "s2", 69, 100).empty());   // e1 not due yet; e0 not pending
  CHECK(Claim(s, kShopB, "s2", 200, 260).empty());  // another shop's
  CHECK(Claim(s, kShopA, "nope", 200, 260).empty());
  CHECK(Claim(s, kShopA, "s1", 200, 260, 0).empty());
  CHECK(Claim(s, kShopA, "s1", 200, 260) == Names{"d2"});
  CHECK(Claim(s, kShopA, "s1", 200, 999).empty());  // someone has it
  CHECK(Claim(s, kShopA, "s1", 259, 999).empty());
  CHECK(Claim(s, kShopA, "s1", 260, 320) == Names{"d2"});  // lease over: claimable again
  CHECK(Claim(s, kShopA, "s2", 200, 400) == Names{"e1"});
  CHECK(Claim(s, kShopB, "s3", 200, 400, 5) == Names{"f1"});
  CHECK(Due(s, 300).empty());
  // Finishing a delivery releases its subscription.
  WebhookDelivery d2 = *Get(s, [&](StoreReader& r) { return r.GetDelivery(kShopA, "d2"); });
  d2.state = "succeeded";
  d2.leaseUntil = 0;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateDelivery(d2); }));
  CHECK(Due(s, 300) == Names{"d1"});
  CHECK(Claim(s, kShopA, "s1", 300, 360) == Names{"d1"});
}

STORE_TEST("webhooks: a run is the subscription's due deliveries, earliest first, up to max, all leased") {
  StoreFixture fx;
  Store& s = fx.store();
  AddOutbox(s);
  Put(s, [&](StoreWriter& w) -> Status {
    // d4 and d5 share d1's due time: among them, the order they were queued in.
    LC_RETURN_IF_ERROR(w.InsertDelivery(MakeDelivery(kShopA, "s1", "d4", 100)));
    return w.InsertDelivery(MakeDelivery(kShopA, "s1", "d5", 100));
  });
  // d3 (due 300) is not due at 250; the run stops at max.
  CHECK(Claim(s, kShopA, "s1", 250, 900, 3) == Names{"d2", "d1", "d4"});
  CHECK(Due(s, 250) == Names{"f1", "e1"});
  std::map<std::string, Millis> lease;
  for (const auto& d : Get(s, [&](StoreReader& r) { return r.ListDeliveries(kShopA, "s1", 10); }))
    lease[d.id] = d.leaseUntil;
  CHECK(lease == std::map<std::string, Millis>{{"d1", 900}, {"d2", 900}, {"d3", 0}, {"d4", 900}, {"d5", 0}});
  // The returned records are whole, with the new lease.
  auto again = PutValue(s, [&](StoreWriter& w) { return w.ClaimDeliveries(kShopA, "s1", 900, 1500, 10); });
  CHECK(Ids(again) == Names{"d2", "d1", "d4", "d5", "d3"});
  REQUIRE(again.size() == 5);
  WebhookDelivery want = MakeDelivery(kShopA, "s1", "d3", 300);
  want.leaseUntil = 1500;
  CheckSame(again[4], want);

  // Released: the unsent go back to the queue at once; what is no longer
  // pending keeps its state.
  WebhookDelivery d2 = again[0];
  d2.state = "succeeded";
  d2.leaseUntil = 0;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateDelivery(d2); }));
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.ReleaseDeliveries(kShopB, {"d1"}, 1500); }) == 0);  // shop scoped
  // Another claim's lease (a whole lease later) is not this one's to end;
  // a reading within a second of it is (a database clock read again).
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.ReleaseDeliveries(kShopA, {"d1", "d3"}, 5000); }) == 0);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.ReleaseDeliveries(kShopA, {"d1", "d3"}, 2501); }) == 0);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.ReleaseDeliveries(kShopA, {"d1", "d3"}, 499); }) == 0);
  CHECK(Due(s, 901) == Names{"f1", "e1"});
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.ReleaseDeliveries(kShopA, {"d4"}, 2500); }) == 1);
  CHECK(PutValue(s, [&](StoreWriter& w) {
          return w.ReleaseDeliveries(kShopA, {"d2", "d1", "d4", "d5", "d3", "nope"}, 500);
        }) == 3);  // d4 has no lease left to end
  CHECK(Due(s, 901) == Names{"f1", "e1", "d1"});
  CHECK(Get(s, [&](StoreReader& r) { return r.GetDelivery(kShopA, "d2"); })->state == "succeeded");
  CHECK(Get(s, [&](StoreReader& r) { return r.GetDelivery(kShopA, "d3"); })->leaseUntil == 0);
}

STORE_TEST("webhooks: deliveries newest first, limit, shop scoped; UpdateDelivery within the shop") {
  StoreFixture fx;
  Store& s = fx.store();
  AddOutbox(s);
  auto ds = Get(s, [&](StoreReader& r) { return r.ListDeliveries(kShopA, "s1", 10); });
  CHECK(Ids(ds) == Names{"d3", "d2", "d1"});
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListDeliveries(kShopA, "s1", 2); })) == Names{"d3", "d2"});
  CHECK(Get(s, [&](StoreReader& r) { return r.ListDeliveries(kShopB, "s1", 10); }).empty());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetDelivery(kShopB, "d1"); }).has_value());
  WebhookDelivery foreign = MakeDelivery(kShopB, "s1", "d1", 1);
  foreign.state = "cancelled";
  CHECK_FALSE(PutValue(s, [&](StoreWriter& w) { return w.UpdateDelivery(foreign); }));
  CHECK(Get(s, [&](StoreReader& r) { return r.GetDelivery(kShopA, "d1"); })->state == "pending");
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.InsertDelivery(MakeDelivery(kShopA, "s1", "d1", 1)); }));
}

STORE_TEST("webhooks: the attempt log keeps the newest N per subscription, newest first") {
  StoreFixture fx;
  Store& s = fx.store();
  Put(s, [&](StoreWriter& w) -> Status {
    for (int n = 1; n <= 7; ++n) LC_RETURN_IF_ERROR(w.InsertAttempt(MakeAttempt(kShopA, "s1", n), 5));
    for (int n = 1; n <= 3; ++n) LC_RETURN_IF_ERROR(w.InsertAttempt(MakeAttempt(kShopA, "s2", n), 5));
    return w.InsertAttempt(MakeAttempt(kShopB, "s1", 1), 5);
  });
  auto log = Get(s, [&](StoreReader& r) { return r.ListAttempts(kShopA, "s1", 100); });
  CHECK(AttemptNumbers(log) == std::vector<int>{7, 6, 5, 4, 3});
  REQUIRE(log.size() == 5);
  DeliveryAttempt want = MakeAttempt(kShopA, "s1", 7);
  CHECK(log[0].deliveryId == want.deliveryId);
  CHECK(log[0].subscriptionId == want.subscriptionId);
  CHECK(log[0].shopId == want.shopId);
  CHECK(log[0].eventId == want.eventId);
  CHECK(log[0].eventType == want.eventType);
  CHECK(log[0].at == want.at);
  CHECK(log[0].statusCode == want.statusCode);
  CHECK(log[0].error == want.error);
  CHECK(log[0].durationMillis == want.durationMillis);
  CHECK(log[0].outcome == want.outcome);
  CHECK(log[1].error == std::nullopt);       // attempt 6: no error
  CHECK(log[1].statusCode == std::nullopt);  // attempt 6: no status
  CHECK(log[4].error == std::nullopt);       // attempt 3
  CHECK(log[3].error == std::optional<std::string>("error 4"));
  CHECK(AttemptNumbers(Get(s, [&](StoreReader& r) { return r.ListAttempts(kShopA, "s1", 2); })) ==
        std::vector<int>{7, 6});
  CHECK(AttemptNumbers(Get(s, [&](StoreReader& r) { return r.ListAttempts(kShopA, "s2", 100); })) ==
        std::vector<int>{3, 2, 1});
  CHECK(AttemptNumbers(Get(s, [&](StoreReader& r) { return r.ListAttempts(kShopB, "s1", 100); })) ==
        std::vector<int>{1});
  // A smaller N later prunes to it.
  Put(s, [&](StoreWriter& w) { return w.InsertAttempt(MakeAttempt(kShopA, "s1", 8), 2); });
  CHECK(AttemptNumbers(Get(s, [&](StoreReader& r) { return r.ListAttempts(kShopA, "s1", 100); })) ==
        std::vector<int>{8, 7});
}

STORE_TEST("webhooks: DeleteSubscription removes its deliveries and attempts, nothing else") {
  StoreFixture fx;
  Store& s = fx.store();
  AddOutbox(s);
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertAttempt(MakeAttempt(kShopA, "s1", 1), 10));
    return w.InsertAttempt(MakeAttempt(kShopA, "s2", 1), 10);
  });
  CHECK_FALSE(PutValue(s, [&](StoreWriter& w) { return w.DeleteSubscription(kShopB, "s1"); }));  // not B's
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteSubscription(kShopA, "s1"); }));
  CHECK_FALSE(PutValue(s, [&](StoreWriter& w) { return w.DeleteSubscription(kShopA, "s1"); }));
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetSubscription(kShopA, "s1"); }).has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.ListDeliveries(kShopA, "s1", 10); }).empty());
  CHECK(Get(s, [&](StoreReader& r) { return r.ListAttempts(kShopA, "s1", 10); }).empty());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetDelivery(kShopA, "d1"); }).has_value());
  CHECK(Due(s, 1000) == Names{"f1", "e1"});
  CHECK(Get(s, [&](StoreReader& r) { return r.ListAttempts(kShopA, "s2", 10); }).size() == 1);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListSubscriptions(kShopA); }).size() == 1);
}

STORE_TEST("webhooks: CancelPendingDeliveries cancels one subscription's pending rows only") {
  StoreFixture fx;
  Store& s = fx.store();
  AddOutbox(s);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.CancelPendingDeliveries(kShopB, "s1"); }) == 0);  // not B's
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.CancelPendingDeliveries(kShopA, "s1"); }) == 3);
  for (const auto& d : Get(s, [&](StoreReader& r) { return r.ListDeliveries(kShopA, "s1", 10); })) {
    CHECK(d.state == "cancelled");
    CHECK(d.leaseUntil == 0);
  }
  CHECK(Due(s, 1000) == Names{"f1", "e1"});
  CHECK(Get(s, [&](StoreReader& r) { return r.GetDelivery(kShopA, "e0"); })->state == "succeeded");
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.CancelPendingDeliveries(kShopA, "s1"); }) == 0);
}

STORE_TEST("webhooks: events and subscriptions are invisible through another shop") {
  StoreFixture fx;
  Store& s = fx.store();
  AddOutbox(s);
  Put(s, [&](StoreWriter& w) { return w.AppendEvent(Event{"ev-d1", kShopA, "message.created", "c1", 1, "{}"}); });
  Status st = s.Read([&](StoreReader& r) -> Status {
    CHECK(Value(r.GetEvent(kShopA, "ev-d1")).has_value());
    CHECK_FALSE(Value(r.GetEvent(kShopB, "ev-d1")).has_value());
    CHECK_FALSE(Value(r.GetSubscription(kShopB, "s1")).has_value());
    CHECK(Value(r.ListSubscriptions(kShopB)).size() == 1);  // s3 only
    CHECK_FALSE(Value(r.FindSubscriptionByUrl(kShopB, "https://hooks.example.com/s1")).has_value());
    CHECK(Value(r.ListAttempts(kShopB, "s1", 10)).empty());
    return Status::Ok();
  });
  Ok(st);
}

}  // namespace
}  // namespace livechat::testing
