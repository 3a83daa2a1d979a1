// WebhookService: webhook subscriptions, their secrets, attempts and
// deliveries (webhook_service.cc).
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include "livechat/services/common.h"

namespace livechat {

struct CreateWebhookInput {
  std::optional<std::string> url;
  std::optional<std::vector<std::string>> events;
  std::optional<std::string> metadataJson;  // a JSON object, serialized compactly by the caller
  bool legacy = false;                      // the /webhook/subscriptions endpoint (Pro or Plus only)
  std::optional<std::string> signatureFormat;  // "livechat" (default) | "standard"
};
struct UpdateWebhookInput {
  std::optional<bool> isActive;
  std::optional<std::vector<std::string>> events;
  std::optional<std::string> url;
  std::optional<std::string> metadataJson;
  std::optional<std::string> signatureFormat;
};

class WebhookService {
 public:
  explicit WebhookService(internal::ServiceContext& ctx);
  WebhookService(const WebhookService&) = delete;
  WebhookService& operator=(const WebhookService&) = delete;

  // ---- Webhooks (Manage conversations) ----
  Result<std::vector<WebhookSubscription>> ListWebhooks(const Principal& p);
  // Upsert by url: an existing url is re-activated, keeps its secret, and
  // `created` is false. At most limits().webhookSubscriptionsMax per store.
  Result<WebhookSubscription> CreateWebhook(const Principal& p, const CreateWebhookInput& in, bool* created = nullptr);
  // Resuming a paused subscription requires the Pro or Plus plan.
  Result<WebhookSubscription> UpdateWebhook(const Principal& p, const std::string& id, const UpdateWebhookInput& in);
  Status DeleteWebhook(const Principal& p, const std::string& id);
  // A new secret, returned in the subscription (list returns it too). For
  // `graceSeconds` (0 to 604,800; default 86,400) the secret it replaces
  // also signs every delivery, so a receiver can switch without missing one;
  // a rotation during a grace period ends the older secret's.
  Result<WebhookSubscription> RotateWebhookSecret(const Principal& p, const std::string& id,
                                                  std::optional<std::int64_t> graceSeconds);
  Result<std::vector<DeliveryAttempt>> ListWebhookAttempts(const Principal& p, const std::string& id);
  Result<std::vector<WebhookDelivery>> ListWebhookDeliveries(const Principal& p, const std::string& id);
  // Queues the event of one delivery again, as a new delivery of the same event.
  Result<WebhookDelivery> RedeliverWebhook(const Principal& p, const std::string& id, const std::string& deliveryId);
  // The legacy endpoints' credential: a subscription's own whsec_ secret.
  // Missing: UNAUTHENTICATED; wrong: INVALID_API_KEY.
  Result<std::pair<Principal, WebhookSubscription>> AuthenticateWebhookSecret(const std::string& secret);

 private:
  internal::ServiceContext& ctx_;
};

}  // namespace livechat
