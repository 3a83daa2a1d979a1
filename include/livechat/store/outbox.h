// The Store's outbox (events appended in the same transaction as the change
// they describe) and the webhook subscriptions and delivery queue fed from
// it. Part of StoreReader / StoreWriter (livechat/store.h), whose rules
// (shop scoping, missing vs. failed, Insert/Update/Delete results) hold here
// too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "livechat/model.h"
#include "livechat/result.h"

namespace livechat {

class OutboxReads {
 public:
  virtual ~OutboxReads() = default;
  // Outbox events of a shop, oldest first (tests and the dispatcher).
  virtual Result<std::vector<Event>> ListEvents(const std::string& shopId, int limit) = 0;
  virtual Result<std::optional<Event>> GetEvent(const std::string& shopId, const std::string& eventId) = 0;
  // The shop's outbox events whose data names this contact (`customerId`),
  // whatever their deliveries' state, oldest first.
  virtual Result<std::vector<Event>> ListEventsOfCustomer(const std::string& shopId,
                                                          const std::string& customerId) = 0;
  // The change feed: the shop's events with seq above `afterSeq` whose type
  // is one of `types`, in seq order (the order they became visible: the
  // stores have one writer at a time), at most `limit`.
  virtual Result<std::vector<Event>> ListEventsAfter(const std::string& shopId, std::int64_t afterSeq,
                                                     const std::vector<std::string>& types, int limit) = 0;
  // The shop's newest event's seq (0: none): the feed's "now".
  virtual Result<std::int64_t> GetLastEventSeq(const std::string& shopId) = 0;
  // The highest seq PruneEvents has removed (0: none): a feed position
  // below it may have missed events.
  virtual Result<std::int64_t> GetEventsPrunedThrough() = 0;
};

class OutboxWrites {
 public:
  virtual ~OutboxWrites() = default;
  virtual Status AppendEvent(const Event& e) = 0;
  // Replaces the data of the shop's event `eventId` (a redact rewrites what
  // is still to be delivered); its id, type, conversation and time stay.
  // False when the shop has no such event.
  virtual Result<bool> UpdateEventData(const std::string& shopId, const std::string& eventId,
                                       const std::string& dataJson) = 0;
  // Across shops: removes up to `limit` events that occurred before
  // `before` and that no delivery still waits for, oldest first, and raises
  // the pruned-through mark to the highest seq removed. How many.
  virtual Result<std::int64_t> PruneEvents(Millis before, int limit) = 0;
};

class WebhookSubscriptionReads {
 public:
  virtual ~WebhookSubscriptionReads() = default;
  // In createdAt order.
  virtual Result<std::vector<WebhookSubscription>> ListSubscriptions(const std::string& shopId) = 0;
  virtual Result<std::optional<WebhookSubscription>> GetSubscription(const std::string& shopId,
                                                                     const std::string& subscriptionId) = 0;
  virtual Result<std::optional<WebhookSubscription>> FindSubscriptionByUrl(const std::string& shopId,
                                                                           const std::string& url) = 0;
  // Across shops (the legacy endpoints authenticate with the secret itself).
  virtual Result<std::optional<WebhookSubscription>> FindSubscriptionBySecretHash(const std::string& secretHash) = 0;
};

class WebhookSubscriptionWrites {
 public:
  virtual ~WebhookSubscriptionWrites() = default;
  virtual Status InsertSubscription(const WebhookSubscription& s) = 0;
  virtual Result<bool> UpdateSubscription(const WebhookSubscription& s) = 0;
  // Also removes its deliveries and attempt log.
  virtual Result<bool> DeleteSubscription(const std::string& shopId, const std::string& subscriptionId) = 0;
};

class DeliveryQueueReads {
 public:
  virtual ~DeliveryQueueReads() = default;
  virtual Result<std::optional<WebhookDelivery>> GetDelivery(const std::string& shopId,
                                                             const std::string& deliveryId) = 0;
  // Across shops, for the dispatcher: pending deliveries with nextAttemptAt <=
  // now and no live lease (leaseUntil <= now), at most one per subscription
  // (its earliest), earliest first, at most `limit`. A subscription that has a
  // delivery under a live lease (in flight somewhere) lists nothing: one
  // delivery per subscription is in flight at a time, across processes.
  virtual Result<std::vector<WebhookDelivery>> ListDueDeliveries(Millis now, int limit) = 0;
  // A subscription's deliveries, newest first.
  virtual Result<std::vector<WebhookDelivery>> ListDeliveries(const std::string& shopId,
                                                              const std::string& subscriptionId, int limit) = 0;
  // A subscription's attempt log, newest first.
  virtual Result<std::vector<DeliveryAttempt>> ListAttempts(const std::string& shopId,
                                                            const std::string& subscriptionId, int limit) = 0;
  // Pending deliveries across shops, and the nextAttemptAt of the oldest (metrics).
  struct OutboxStats {
    std::int64_t pending = 0;
    std::optional<Millis> oldestDueAt;
  };
  virtual Result<OutboxStats> GetOutboxStats() = 0;
};

class DeliveryQueueWrites {
 public:
  virtual ~DeliveryQueueWrites() = default;
  virtual Result<bool> UpdateDelivery(const WebhookDelivery& d) = 0;
  // Leases to the caller, until `leaseUntil`, up to `max` of the
  // subscription's deliveries that are pending, due and unleased at `now`,
  // and returns them earliest due first (the order ListDueDeliveries uses),
  // with leaseUntil set. Returns none while another delivery of the
  // subscription holds a live lease: it is in flight somewhere, and one
  // delivery per subscription is in flight at a time, across processes. The
  // caller sends a run one after another, so the claim's write is paid once
  // for all of them.
  virtual Result<std::vector<WebhookDelivery>> ClaimDeliveries(const std::string& shopId,
                                                               const std::string& subscriptionId, Millis now,
                                                               Millis leaseUntil, int max) = 0;
  // Ends the lease on those of `deliveryIds` still pending under the lease
  // `leaseUntil` that ClaimDeliveries gave them (a claimed run cut short), so
  // the subscription's next sender need not wait for it to run out. A lease
  // another sender took since is left alone: it ends at least a whole lease
  // later (the match allows a second for the database clock's reading).
  // Returns how many.
  virtual Result<std::int64_t> ReleaseDeliveries(const std::string& shopId,
                                                 const std::vector<std::string>& deliveryIds, Millis leaseUntil) = 0;
  // Marks every pending delivery of the subscription "cancelled" (a paused or
  // disabled subscription sends nothing it queued before). Returns how many.
  virtual Result<std::int64_t> CancelPendingDeliveries(const std::string& shopId,
                                                       const std::string& subscriptionId) = 0;
  // Appends to the attempt log, keeping the newest `keep` of that subscription.
  virtual Status InsertAttempt(const DeliveryAttempt& a, int keep) = 0;

 protected:
  // Queues a delivery (StoreWriter::InsertDelivery counts it first).
  virtual Status DoInsertDelivery(const WebhookDelivery& d) = 0;
};

}  // namespace livechat
