// The webhook tables: subscriptions, outbox deliveries and the attempt log.
#include "storage/common/json_columns.h"
#include "storage/postgres/pg_queries.h"

namespace livechat::pg {

using storage::DecodeStringArray;
using storage::DecodeStringMap;
using storage::EncodeStringArray;
using storage::EncodeStringMap;
namespace {

constexpr const char* kSubCols =
    "shop_id, id, url, events_json, is_active, secret, secret_hash, metadata_json, legacy, created_at, updated_at, "
    "last_delivery_at, last_delivery_status, last_delivery_status_code, last_delivery_error";
constexpr const char* kDeliveryCols =
    "id, shop_id, subscription_id, event_id, state, attempts, next_attempt_at, lease_until, last_attempt_at, created_at";
constexpr const char* kAttemptCols =
    "delivery_id, subscription_id, shop_id, event_id, event_type, attempt, at, status_code, error, duration_ms, outcome";

Result<WebhookSubscription> ReadSub(const Statement& st) {
  WebhookSubscription s;
  s.shopId = st.Text(0);
  s.id = st.Text(1);
  s.url = st.Text(2);
  LC_ASSIGN_OR_RETURN(s.events, DecodeStringArray(st.Text(3)));
  s.isActive = st.Bool(4);
  s.secret = st.Text(5);
  s.secretHash = st.Text(6);
  s.metadataJson = st.Text(7);
  s.legacy = st.Bool(8);
  s.createdAt = st.Int(9);
  s.updatedAt = st.Int(10);
  s.lastDeliveryAt = st.OptInt(11);
  s.lastDeliveryStatus = st.OptText(12);
  if (auto c = st.OptInt(13)) s.lastDeliveryStatusCode = static_cast<int>(*c);
  s.lastDeliveryError = st.OptText(14);
  return s;
}

Result<WebhookDelivery> ReadDelivery(const Statement& st) {
  WebhookDelivery d;
  d.id = st.Text(0);
  d.shopId = st.Text(1);
  d.subscriptionId = st.Text(2);
  d.eventId = st.Text(3);
  d.state = st.Text(4);
  d.attempts = static_cast<int>(st.Int(5));
  d.nextAttemptAt = st.Int(6);
  d.leaseUntil = st.Int(7);
  d.lastAttemptAt = st.OptInt(8);
  d.createdAt = st.Int(9);
  return d;
}

Result<DeliveryAttempt> ReadAttempt(const Statement& st) {
  DeliveryAttempt a;
  a.deliveryId = st.Text(0);
  a.subscriptionId = st.Text(1);
  a.shopId = st.Text(2);
  a.eventId = st.Text(3);
  a.eventType = st.Text(4);
  a.attempt = static_cast<int>(st.Int(5));
  a.at = st.Int(6);
  if (auto c = st.OptInt(7)) a.statusCode = static_cast<int>(*c);
  a.error = st.OptText(8);
  a.durationMillis = st.Int(9);
  a.outcome = st.Text(10);
  return a;
}

template <typename T>
Result<std::vector<T>> All(Statement& st, Result<T> (*read)(const Statement&)) {
  std::vector<T> out;
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    LC_ASSIGN_OR_RETURN(T v, read(st));
    out.push_back(std::move(v));
  }
  return out;
}

template <typename T>
Result<std::optional<T>> One(Statement& st, Result<T> (*read)(const Statement&)) {
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<T>();
  LC_ASSIGN_OR_RETURN(T v, read(st));
  return std::optional<T>(std::move(v));
}

std::string Sel(const char* cols, const char* table) { return std::string("SELECT ") + cols + " FROM " + table + " "; }

}  // namespace

Result<std::optional<Event>> PgQueries::GetEvent(const std::string& shopId, const std::string& eventId) {
  static const std::string sql =
      "SELECT id, shop_id, type, conversation_id, occurred_at, data_json FROM events WHERE id = ?1 AND shop_id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(eventId).Add(shopId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<Event>();
  Event e;
  e.id = st.Text(0);
  e.shopId = st.Text(1);
  e.type = st.Text(2);
  e.conversationId = st.OptText(3);
  e.occurredAt = st.Int(4);
  e.dataJson = st.Text(5);
  return std::optional<Event>(std::move(e));
}

Result<std::vector<WebhookSubscription>> PgQueries::ListSubscriptions(const std::string& shopId) {
  static const std::string sql =
      Sel(kSubCols, "webhook_subscriptions") + "WHERE shop_id = ?1 ORDER BY created_at, id";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId);
  return All<WebhookSubscription>(st, ReadSub);
}

Result<std::optional<WebhookSubscription>> PgQueries::GetSubscription(const std::string& shopId,
                                                                          const std::string& subscriptionId) {
  static const std::string sql = Sel(kSubCols, "webhook_subscriptions") + "WHERE shop_id = ?1 AND id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(subscriptionId);
  return One<WebhookSubscription>(st, ReadSub);
}

Result<std::optional<WebhookSubscription>> PgQueries::FindSubscriptionByUrl(const std::string& shopId,
                                                                                const std::string& url) {
  static const std::string sql = Sel(kSubCols, "webhook_subscriptions") + "WHERE shop_id = ?1 AND url = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(url);
  return One<WebhookSubscription>(st, ReadSub);
}

Result<std::optional<WebhookSubscription>> PgQueries::FindSubscriptionBySecretHash(const std::string& secretHash) {
  static const std::string sql = Sel(kSubCols, "webhook_subscriptions") + "WHERE secret_hash = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(secretHash);
  return One<WebhookSubscription>(st, ReadSub);
}

Result<std::optional<WebhookDelivery>> PgQueries::GetDelivery(const std::string& shopId,
                                                                  const std::string& deliveryId) {
  static const std::string sql = Sel(kDeliveryCols, "webhook_deliveries") + "WHERE id = ?1 AND shop_id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(deliveryId).Add(shopId);
  return One<WebhookDelivery>(st, ReadDelivery);
}

Result<std::vector<WebhookDelivery>> PgQueries::ListDueDeliveries(Millis now, int limit) {
  if (limit <= 0) return std::vector<WebhookDelivery>();
  // The earliest due delivery of each subscription. One per subscription
  // keeps a slow endpoint's backlog from filling every sender; a
  // subscription with a delivery under a live lease (in flight somewhere)
  // lists nothing, so one delivery per subscription is in flight at a time,
  // across processes.
  //
  // Driven by the subscriptions, each probed through the partial indexes of
  // migration 4: the cost follows the number of subscriptions, not the size
  // of the backlog. "lease_until > 0" is spelled out so the leased index
  // applies.
  static const std::string sql =
      "SELECT d.id, d.shop_id, d.subscription_id, d.event_id, d.state, d.attempts, d.next_attempt_at, "
      "d.lease_until, d.last_attempt_at, d.created_at FROM webhook_subscriptions AS s "
      "JOIN webhook_deliveries AS d ON d.rid = (SELECT x.rid FROM webhook_deliveries AS x "
      "WHERE x.shop_id = s.shop_id AND x.subscription_id = s.id AND x.state = 'pending' "
      "ORDER BY x.next_attempt_at, x.rid LIMIT 1) "
      "WHERE d.next_attempt_at <= ?1 AND d.lease_until <= ?1 "
      "AND NOT EXISTS (SELECT 1 FROM webhook_deliveries AS y WHERE y.shop_id = s.shop_id "
      "AND y.subscription_id = s.id AND y.state = 'pending' AND y.lease_until > 0 AND y.lease_until > ?1) "
      "ORDER BY d.next_attempt_at, d.rid LIMIT ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(now).Add(limit);
  return All<WebhookDelivery>(st, ReadDelivery);
}

Result<std::vector<WebhookDelivery>> PgQueries::ListDeliveries(const std::string& shopId,
                                                                   const std::string& subscriptionId, int limit) {
  if (limit <= 0) return std::vector<WebhookDelivery>();
  static const std::string sql = Sel(kDeliveryCols, "webhook_deliveries") +
                                 "WHERE shop_id = ?1 AND subscription_id = ?2 ORDER BY rid DESC LIMIT ?3";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(subscriptionId).Add(limit);
  return All<WebhookDelivery>(st, ReadDelivery);
}

Result<std::vector<DeliveryAttempt>> PgQueries::ListAttempts(const std::string& shopId,
                                                                 const std::string& subscriptionId, int limit) {
  if (limit <= 0) return std::vector<DeliveryAttempt>();
  static const std::string sql = Sel(kAttemptCols, "webhook_attempts") +
                                 "WHERE shop_id = ?1 AND subscription_id = ?2 ORDER BY rid DESC LIMIT ?3";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(subscriptionId).Add(limit);
  return All<DeliveryAttempt>(st, ReadAttempt);
}

Result<StoreReader::OutboxStats> PgQueries::GetOutboxStats() {
  static const std::string sql =
      "SELECT COUNT(*), MIN(next_attempt_at) FROM webhook_deliveries WHERE state = 'pending'";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  OutboxStats s;
  if (row) {
    s.pending = st.Int(0);
    s.oldestDueAt = st.OptInt(1);
  }
  return s;
}

Status PgQueries::InsertSubscription(const WebhookSubscription& s) {
  static const std::string sql = std::string("INSERT INTO webhook_subscriptions (") + kSubCols +
                                 ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(s.shopId).Add(s.id).Add(s.url).Add(EncodeStringArray(s.events)).Add(s.isActive).Add(s.secret)
      .Add(s.secretHash).Add(s.metadataJson).Add(s.legacy).Add(s.createdAt).Add(s.updatedAt).Add(s.lastDeliveryAt)
      .Add(s.lastDeliveryStatus).Add(s.lastDeliveryStatusCode).Add(s.lastDeliveryError);
  return st.Run();
}

Result<bool> PgQueries::UpdateSubscription(const WebhookSubscription& s) {
  static const std::string sql =
      "UPDATE webhook_subscriptions SET url = ?3, events_json = ?4, is_active = ?5, metadata_json = ?6, "
      "updated_at = ?7, last_delivery_at = ?8, last_delivery_status = ?9, last_delivery_status_code = ?10, "
      "last_delivery_error = ?11 WHERE shop_id = ?1 AND id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(s.shopId).Add(s.id).Add(s.url).Add(EncodeStringArray(s.events)).Add(s.isActive).Add(s.metadataJson)
      .Add(s.updatedAt).Add(s.lastDeliveryAt).Add(s.lastDeliveryStatus).Add(s.lastDeliveryStatusCode)
      .Add(s.lastDeliveryError);
  return RunChanged(st);
}

Result<bool> PgQueries::DeleteSubscription(const std::string& shopId, const std::string& subscriptionId) {
  static const std::string sql = "DELETE FROM webhook_subscriptions WHERE shop_id = ?1 AND id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(subscriptionId);
  LC_ASSIGN_OR_RETURN(bool removed, RunChanged(st));
  if (!removed) return false;
  for (const char* child : {"DELETE FROM webhook_deliveries WHERE shop_id = ?1 AND subscription_id = ?2",
                            "DELETE FROM webhook_attempts WHERE shop_id = ?1 AND subscription_id = ?2"}) {
    LC_ASSIGN_OR_RETURN(Statement del, conn_.Prepare(child));
    del.Add(shopId).Add(subscriptionId);
    LC_RETURN_IF_ERROR(del.Run());
  }
  return true;
}

Status PgQueries::InsertDelivery(const WebhookDelivery& d) {
  static const std::string sql = std::string("INSERT INTO webhook_deliveries (") + kDeliveryCols +
                                 ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(d.id).Add(d.shopId).Add(d.subscriptionId).Add(d.eventId).Add(d.state).Add(d.attempts).Add(d.nextAttemptAt)
      .Add(d.leaseUntil).Add(d.lastAttemptAt).Add(d.createdAt);
  return st.Run();
}

Result<bool> PgQueries::UpdateDelivery(const WebhookDelivery& d) {
  static const std::string sql =
      "UPDATE webhook_deliveries SET state = ?3, attempts = ?4, next_attempt_at = ?5, lease_until = ?6, "
      "last_attempt_at = ?7 WHERE id = ?1 AND shop_id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(d.id).Add(d.shopId).Add(d.state).Add(d.attempts).Add(d.nextAttemptAt).Add(d.leaseUntil).Add(d.lastAttemptAt);
  return RunChanged(st);
}

Result<bool> PgQueries::ClaimDelivery(const std::string& shopId, const std::string& deliveryId, Millis now,
                                          Millis leaseUntil) {
  // Also refused while another delivery of the same subscription holds a
  // live lease (one in flight per subscription, whoever lists what). The
  // check seeks the small leased index of migration 4.
  static const std::string sql =
      "UPDATE webhook_deliveries SET lease_until = ?4 WHERE id = ?1 AND shop_id = ?2 AND state = 'pending' "
      "AND next_attempt_at <= ?3 AND lease_until <= ?3 "
      "AND NOT EXISTS (SELECT 1 FROM webhook_deliveries AS x WHERE x.shop_id = ?2 "
      "AND x.subscription_id = webhook_deliveries.subscription_id AND x.state = 'pending' AND x.lease_until > 0 "
      "AND x.lease_until > ?3)";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(deliveryId).Add(shopId).Add(now).Add(leaseUntil);
  return RunChanged(st);
}

Result<std::int64_t> PgQueries::CancelPendingDeliveries(const std::string& shopId,
                                                            const std::string& subscriptionId) {
  static const std::string sql =
      "UPDATE webhook_deliveries SET state = 'cancelled', lease_until = 0 "
      "WHERE shop_id = ?1 AND subscription_id = ?2 AND state = 'pending'";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(subscriptionId);
  LC_RETURN_IF_ERROR(st.Run());
  return static_cast<std::int64_t>(conn_.Changes());
}

Status PgQueries::InsertAttempt(const DeliveryAttempt& a, int keep) {
  static const std::string sql = std::string("INSERT INTO webhook_attempts (") + kAttemptCols +
                                 ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(a.deliveryId).Add(a.subscriptionId).Add(a.shopId).Add(a.eventId).Add(a.eventType).Add(a.attempt).Add(a.at)
      .Add(a.statusCode).Add(a.error).Add(a.durationMillis).Add(a.outcome);
  LC_RETURN_IF_ERROR(st.Run());
  static const std::string prune =
      "DELETE FROM webhook_attempts WHERE shop_id = ?1 AND subscription_id = ?2 AND rid <= "
      "(SELECT rid FROM webhook_attempts WHERE shop_id = ?1 AND subscription_id = ?2 ORDER BY rid DESC "
      "LIMIT 1 OFFSET ?3)";
  LC_ASSIGN_OR_RETURN(Statement del, conn_.Prepare(prune));
  del.Add(a.shopId).Add(a.subscriptionId).Add(std::max(keep, 0));
  return del.Run();
}

}  // namespace livechat::pg
