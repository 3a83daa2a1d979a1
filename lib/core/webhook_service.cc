// WebhookService: webhook subscription management (REST /chat/webhooks and the
// legacy /webhook/subscriptions) and the attempt log / redelivery.
#include <fmt/format.h>

#include <algorithm>

#include "livechat/crypto.h"
#include "core/service_internal.h"
#include "livechat/chat_service.h"
#include "livechat/webhooks.h"

namespace livechat {

using namespace internal;

namespace {

Result<std::vector<std::string>> CheckEvents(const std::optional<std::vector<std::string>>& events) {
  if (!events) return Invalid("events is required: an array of event names");
  if (events->empty()) return Invalid("events must name at least one event");
  std::vector<std::string> out;
  for (const auto& e : *events) {
    if (!IsWebhookEventName(e)) {
      std::string all;
      for (const auto& n : WebhookEventNames()) all += (all.empty() ? "" : ", ") + n;
      return Invalid(fmt::format("unknown event name \"{}\": use one of {}", e, all));
    }
    if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  }
  return out;
}

Status CheckMetadata(const std::optional<std::string>& metadataJson, std::size_t max) {
  if (metadataJson && metadataJson->size() > max)
    return Invalid(fmt::format("metadata must be at most {} bytes serialized (got {})", max, metadataJson->size()));
  return Status::Ok();
}

Error SubscriptionNotFound() { return MakeError(ErrorCode::kNotFound, "subscription not found"); }

Status CheckSignatureFormat(const std::optional<std::string>& format) {
  if (format && *format != kSignatureLivechat && *format != kSignatureStandard)
    return Invalid(fmt::format("signatureFormat must be \"{}\" or \"{}\", got \"{}\"", kSignatureLivechat,
                               kSignatureStandard, *format));
  return Status::Ok();
}

// A new secret in the subscription's format: Standard Webhooks secrets are
// "whsec_" and the base64 of 32 random bytes (the key its libraries decode);
// the spec's format keeps its 48 hex characters.
std::string NewSecret(Random& random, const std::string& format) {
  if (format == kSignatureStandard) {
    std::string bytes(32, '\0');
    random.Fill(reinterpret_cast<std::uint8_t*>(bytes.data()), bytes.size());
    return "whsec_" + Base64(bytes);
  }
  return "whsec_" + random.Hex(24);
}

// What a caller sees: a grace period that has ended is no longer shown.
WebhookSubscription Shown(WebhookSubscription s, Millis now) {
  if (s.previousSecretExpiresAt && *s.previousSecretExpiresAt <= now) {
    s.previousSecret.reset();
    s.previousSecretExpiresAt.reset();
  }
  return s;
}

constexpr std::int64_t kMaxGraceSeconds = 7 * 24 * 3600;

}  // namespace

Result<std::vector<WebhookSubscription>> WebhookService::ListWebhooks(const Principal& p) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  LC_ASSIGN_OR_RETURN(auto subs, ReadValue<std::vector<WebhookSubscription>>(
                                     ctx_.store(), [&](StoreReader& r) { return r.ListSubscriptions(p.shopId); }));
  const Millis now = ctx_.clock->NowMillis();
  for (auto& s : subs) s = Shown(std::move(s), now);
  return subs;
}

Result<WebhookSubscription> WebhookService::CreateWebhook(const Principal& p, const CreateWebhookInput& in, bool* created) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  if (!in.url) return Invalid("url is required");
  LC_ASSIGN_OR_RETURN(auto events, CheckEvents(in.events));
  LC_RETURN_IF_ERROR(CheckMetadata(in.metadataJson, ctx_.limits().webhookMetadataMax));
  LC_RETURN_IF_ERROR(CheckSignatureFormat(in.signatureFormat));
  LC_ASSIGN_OR_RETURN(auto target, CheckWebhookTarget(*in.url, *ctx_.resolver, ctx_.options.allowPrivateWebhookTargets));
  (void)target;
  const Millis now = ctx_.clock->NowMillis();
  bool made = false;
  auto out = WriteValue<WebhookSubscription>(ctx_.store(), [&](StoreWriter& w) -> Result<WebhookSubscription> {
    if (in.legacy) {
      LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
      if (!shop || !PlanAllowsApiKeys(shop->plan))
        return MakeError(ErrorCode::kForbidden, "the legacy subscription endpoint requires the Pro or Plus plan");
    }
    LC_ASSIGN_OR_RETURN(auto existing, w.FindSubscriptionByUrl(p.shopId, *in.url));
    if (existing) {
      // Upsert by url: re-activated, secret kept, no duplicate (spec).
      existing->events = events;
      existing->isActive = true;
      if (in.metadataJson) existing->metadataJson = *in.metadataJson;
      if (in.signatureFormat) existing->signatureFormat = *in.signatureFormat;
      existing->updatedAt = now;
      LC_ASSIGN_OR_RETURN(bool ok, w.UpdateSubscription(*existing));
      if (!ok) return SubscriptionNotFound();
      return Shown(std::move(*existing), now);
    }
    LC_ASSIGN_OR_RETURN(auto all, w.ListSubscriptions(p.shopId));
    if (static_cast<int>(all.size()) >= ctx_.limits().webhookSubscriptionsMax)
      return MakeError(ErrorCode::kConflict, fmt::format("a store can have at most {} webhook subscriptions: delete one "
                                                         "first",
                                                         ctx_.limits().webhookSubscriptionsMax));
    WebhookSubscription s;
    s.id = "wh_" + ctx_.random->Hex(8);
    s.shopId = p.shopId;
    s.url = *in.url;
    s.events = events;
    s.isActive = true;
    s.signatureFormat = in.signatureFormat.value_or(kSignatureLivechat);
    s.secret = NewSecret(*ctx_.random, s.signatureFormat);
    s.secretHash = Sha256Hex(s.secret);
    s.metadataJson = in.metadataJson.value_or("{}");
    s.legacy = in.legacy;
    s.createdAt = now;
    s.updatedAt = now;
    LC_RETURN_IF_ERROR(w.InsertSubscription(s));
    made = true;
    return s;
  });
  if (created) *created = out.ok() && made;
  return out;
}

Result<WebhookSubscription> WebhookService::UpdateWebhook(const Principal& p, const std::string& id,
                                                       const UpdateWebhookInput& in) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  std::optional<std::vector<std::string>> events;
  if (in.events) {
    LC_ASSIGN_OR_RETURN(events, CheckEvents(in.events));
  }
  LC_RETURN_IF_ERROR(CheckMetadata(in.metadataJson, ctx_.limits().webhookMetadataMax));
  LC_RETURN_IF_ERROR(CheckSignatureFormat(in.signatureFormat));
  if (in.url) {
    LC_RETURN_IF_ERROR(CheckWebhookTarget(*in.url, *ctx_.resolver, ctx_.options.allowPrivateWebhookTargets));
  }
  const Millis now = ctx_.clock->NowMillis();
  return WriteValue<WebhookSubscription>(ctx_.store(), [&](StoreWriter& w) -> Result<WebhookSubscription> {
    LC_ASSIGN_OR_RETURN(auto s, w.GetSubscription(p.shopId, id));
    if (!s) return SubscriptionNotFound();
    if (in.isActive && *in.isActive && !s->isActive) {
      // The only plan check in webhook management (spec).
      LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
      if (!shop || !PlanAllowsApiKeys(shop->plan))
        return MakeError(ErrorCode::kForbidden, "resuming a paused subscription requires the Pro or Plus plan");
    }
    if (in.url && *in.url != s->url) {
      LC_ASSIGN_OR_RETURN(auto clash, w.FindSubscriptionByUrl(p.shopId, *in.url));
      if (clash) return Invalid("another subscription of this store already uses that url");
      s->url = *in.url;
    }
    if (in.isActive) s->isActive = *in.isActive;
    if (events) s->events = *events;
    if (in.metadataJson) s->metadataJson = *in.metadataJson;
    // A secret of either shape signs in either format (a hex secret is
    // valid base64 too), so switching keeps the secret receivers hold.
    if (in.signatureFormat) s->signatureFormat = *in.signatureFormat;
    s->updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateSubscription(*s));
    if (!ok) return SubscriptionNotFound();
    if (!s->isActive) {
      // Fix: pausing cancels what is queued, in the same transaction. Before,
      // queued deliveries were cancelled only if they came due while paused,
      // so a retry scheduled past a quick pause/resume was still sent while
      // an earlier one was not: the outcome depended on timing.
      LC_ASSIGN_OR_RETURN(std::int64_t cancelled, w.CancelPendingDeliveries(p.shopId, s->id));
      (void)cancelled;
    }
    return Shown(std::move(*s), now);
  });
}

Result<WebhookSubscription> WebhookService::RotateWebhookSecret(const Principal& p, const std::string& id,
                                                             std::optional<std::int64_t> graceSeconds) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  const std::int64_t grace = graceSeconds.value_or(24 * 3600);
  if (grace < 0 || grace > kMaxGraceSeconds)
    return Invalid(fmt::format("gracePeriodSeconds must be 0 to {} (7 days), got {}", kMaxGraceSeconds, grace));
  const Millis now = ctx_.clock->NowMillis();
  return WriteValue<WebhookSubscription>(ctx_.store(), [&](StoreWriter& w) -> Result<WebhookSubscription> {
    LC_ASSIGN_OR_RETURN(auto s, w.GetSubscription(p.shopId, id));
    if (!s) return SubscriptionNotFound();
    // The secret being replaced keeps signing for the grace period; one
    // replaced earlier, still in its own grace, stops now.
    if (grace > 0) {
      s->previousSecret = s->secret;
      s->previousSecretExpiresAt = now + grace * 1000;
    } else {
      s->previousSecret.reset();
      s->previousSecretExpiresAt.reset();
    }
    s->secret = NewSecret(*ctx_.random, s->signatureFormat);
    s->secretHash = Sha256Hex(s->secret);
    s->updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateSubscription(*s));
    if (!ok) return SubscriptionNotFound();
    return Shown(std::move(*s), now);
  });
}

Status WebhookService::DeleteWebhook(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  return ctx_.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(bool ok, w.DeleteSubscription(p.shopId, id));
    if (!ok) return SubscriptionNotFound();
    return Status::Ok();
  });
}

Result<std::vector<DeliveryAttempt>> WebhookService::ListWebhookAttempts(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  return ReadValue<std::vector<DeliveryAttempt>>(ctx_.store(), [&](StoreReader& r) -> Result<std::vector<DeliveryAttempt>> {
    LC_ASSIGN_OR_RETURN(auto s, r.GetSubscription(p.shopId, id));
    if (!s) return SubscriptionNotFound();
    return r.ListAttempts(p.shopId, id, ctx_.limits().webhookAttemptsKept);
  });
}

Result<std::vector<WebhookDelivery>> WebhookService::ListWebhookDeliveries(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  return ReadValue<std::vector<WebhookDelivery>>(ctx_.store(), [&](StoreReader& r) -> Result<std::vector<WebhookDelivery>> {
    LC_ASSIGN_OR_RETURN(auto s, r.GetSubscription(p.shopId, id));
    if (!s) return SubscriptionNotFound();
    return r.ListDeliveries(p.shopId, id, ctx_.limits().webhookAttemptsKept);
  });
}

Result<WebhookDelivery> WebhookService::RedeliverWebhook(const Principal& p, const std::string& id,
                                                      const std::string& deliveryId) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  const Millis now = ctx_.clock->NowMillis();
  auto out = WriteValue<WebhookDelivery>(ctx_.store(), [&](StoreWriter& w) -> Result<WebhookDelivery> {
    LC_ASSIGN_OR_RETURN(auto s, w.GetSubscription(p.shopId, id));
    if (!s) return SubscriptionNotFound();
    LC_ASSIGN_OR_RETURN(auto d, w.GetDelivery(p.shopId, deliveryId));
    if (!d || d->subscriptionId != s->id) return MakeError(ErrorCode::kNotFound, "delivery not found");
    if (!s->isActive) return MakeError(ErrorCode::kConflict, "the subscription is paused: resume it first");
    // A fresh delivery of the same event: same X-Webhook-Event-Id (receivers
    // de-duplicate on it), a new delivery id and a full retry schedule.
    WebhookDelivery nd;
    nd.id = "dlv_" + ctx_.random->Hex(12);
    nd.shopId = p.shopId;
    nd.subscriptionId = s->id;
    nd.eventId = d->eventId;
    nd.nextAttemptAt = now;
    nd.createdAt = now;
    LC_RETURN_IF_ERROR(w.InsertDelivery(nd));
    return nd;
  });
  if (out.ok()) ctx_.NotifyEventsQueued();
  return out;
}

Result<std::pair<Principal, WebhookSubscription>> WebhookService::AuthenticateWebhookSecret(const std::string& secret) {
  if (secret.empty()) return MakeError(ErrorCode::kUnauthenticated, "missing X-Webhook-Secret header");
  const std::string hash = Sha256Hex(secret);
  LC_ASSIGN_OR_RETURN(auto s, ReadValue<std::optional<WebhookSubscription>>(
                                  ctx_.store(), [&](StoreReader& r) { return r.FindSubscriptionBySecretHash(hash); }));
  if (!s || !ConstantTimeEquals(s->secretHash, hash))
    return MakeError(ErrorCode::kInvalidApiKey, "invalid webhook secret");
  // The subscription's own secret manages that subscription only.
  Principal p;
  p.kind = Principal::Kind::kApiKey;
  p.shopId = s->shopId;
  p.permissions = kPermManageConversations;
  return std::make_pair(p, std::move(*s));
}

namespace internal {

Status EmitEvents(StoreWriter& w, Random& random, const std::vector<Event>& events) {
  if (events.empty()) return Status::Ok();
  LC_ASSIGN_OR_RETURN(auto subs, w.ListSubscriptions(events.front().shopId));
  for (const auto& e : events) {
    LC_RETURN_IF_ERROR(w.AppendEvent(e));
    // One delivery row per matching active subscription, in the same
    // transaction as the change: an acknowledged write has its deliveries queued.
    for (const auto& s : subs) {
      if (!s.isActive || std::find(s.events.begin(), s.events.end(), e.type) == s.events.end()) continue;
      WebhookDelivery d;
      d.id = "dlv_" + random.Hex(12);
      d.shopId = e.shopId;
      d.subscriptionId = s.id;
      d.eventId = e.id;
      d.nextAttemptAt = e.occurredAt;
      d.createdAt = e.occurredAt;
      LC_RETURN_IF_ERROR(w.InsertDelivery(d));
    }
  }
  return Status::Ok();
}

}  // namespace internal

}  // namespace livechat
