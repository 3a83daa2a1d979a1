// Webhooks: subscriptions, the outbox fan-out, signing, and the dispatcher
// that delivers with retries. Management goes through ChatService; delivery
// is the WebhookDispatcher's, driven by the Clock.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "livechat/address_policy.h"
#include "livechat/base/worker_loop.h"
#include "livechat/clock.h"
#include "livechat/metrics.h"
#include "livechat/model.h"
#include "livechat/random.h"
#include "livechat/result.h"

namespace livechat {

class Store;

// The nine event names a subscription may choose (spec: Events).
const std::vector<std::string>& WebhookEventNames();
bool IsWebhookEventName(std::string_view name);

// ---- Signing (spec: Webhook signature) ----
// Lowercase hex HMAC-SHA256 over "<timestamp>;<raw_body>" keyed with the secret.
std::string WebhookSignature(std::string_view secret, std::string_view timestamp, std::string_view rawBody);
// Receiver side: constant-time comparison of the signature, and the
// timestamp within `toleranceSeconds` of `nowSeconds`.
bool VerifyWebhookSignature(std::string_view secret, std::string_view timestamp, std::string_view rawBody,
                            std::string_view signature, std::int64_t nowSeconds, std::int64_t toleranceSeconds = 300);

// Standard Webhooks (standardwebhooks.com): "v1,<base64>", the HMAC-SHA256
// of "<msgId>.<timestamp>.<body>" keyed with the bytes the secret's base64
// after "whsec_" decodes to (its raw text when it does not decode).
std::string StandardWebhookSignature(std::string_view secret, std::string_view msgId, std::string_view timestamp,
                                     std::string_view rawBody);

// The signature headers of one delivery of event `eventId` to `sub`, sent at
// `nowMillis` with `timestamp` (Unix seconds):
//  - "livechat": X-Webhook-Timestamp and X-Webhook-Signature; while a
//    rotated-out secret is in its grace period, X-Webhook-Signature-Previous
//    by that secret too;
//  - "standard": webhook-id (the event id, stable across retries),
//    webhook-timestamp and webhook-signature, listing "v1,<sig>" by the
//    current secret and, in a grace period, by the previous one, space-separated.
std::vector<std::pair<std::string, std::string>> WebhookSignatureHeaders(const WebhookSubscription& sub,
                                                                         std::string_view eventId,
                                                                         std::string_view timestamp,
                                                                         std::string_view rawBody, Millis nowMillis);

// ---- Delivery transport seam ----
struct WebhookRequest {
  HttpsTarget target;  // host for SNI/Host, the checked address to connect to
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  Millis timeoutMillis = 10'000;
};

struct WebhookResponse {
  int status = 0;                             // 0: no HTTP response (connect, TLS or timeout failure)
  std::string error;                          // set when status == 0
  std::optional<std::int64_t> retryAfterSeconds;  // from a Retry-After header (delta-seconds form)
};

// Thread-safe: the dispatcher calls it from several threads. Must not follow
// redirects and must connect to request.target.address only.
class WebhookTransport {
 public:
  virtual ~WebhookTransport() = default;
  virtual WebhookResponse Send(const WebhookRequest& request) = 0;
};

// ---- Dispatcher ----
struct DispatcherOptions {
  Store* store = nullptr;              // required
  WebhookTransport* transport = nullptr;  // required
  Clock* clock = nullptr;              // null: Clock::Default()
  Random* random = nullptr;            // null: Random::Default()
  Resolver* resolver = nullptr;        // null: Resolver::Default()
  // Waits after failed attempts 1..6 (spec: ~10 s, 1 min, 5 min, 30 min, 2 h, 6 h).
  std::vector<Millis> retryDelays{10'000, 60'000, 300'000, 1'800'000, 7'200'000, 21'600'000};
  Millis timeoutMillis = 10'000;
  bool allowPrivateTargets = false;    // local development and tests only
  double jitter = 0.1;                 // +-fraction added to each retry delay
  int threads = 4;                     // concurrent sends
  std::size_t maxPayloadBytes = 80'000;  // above: data replaced by {truncated, originalSize}
  int attemptsKept = 50;               // attempt log per subscription
  Millis leaseMillis = 60'000;         // a claimed delivery is retried by anyone after this (at least 2 s)
  // Due deliveries of one subscription claimed together and sent one after
  // another: one claim and one read for the run, then one write per attempt.
  int runLength = 32;
  Millis idlePollMillis = 250;         // background loop wake-up when nothing is due
  // Attempts by outcome and their duration are counted here; null: not counted.
  MetricsRegistry* metrics = nullptr;
};

// Claims due deliveries from the store's outbox, signs and sends them, and
// records the outcome. Thread-safe. At most one delivery per subscription is
// in flight at a time, so one slow endpoint occupies one sender, not all.
class WebhookDispatcher {
 public:
  explicit WebhookDispatcher(DispatcherOptions options);
  ~WebhookDispatcher();  // stops the threads

  // One synchronous pass: sends every delivery due now (up to `max`), on the
  // calling thread. Returns how many were attempted. Tests drive this with a
  // ManualClock instead of starting threads.
  int RunOnce(int max = 1000);

  // Background operation: `threads` senders poll for due work. Stop() waits
  // for in-flight sends (bounded by the timeout).
  void Start();
  void Stop();
  // Wakes the senders at once (called after a write that queued deliveries).
  void Notify();
  bool running() const { return loop_.running(); }

  // The JSON body a delivery sends (with truncation applied).
  std::string BuildPayload(const Event& e) const;

 private:
  struct Recorded {
    std::optional<WebhookSubscription> sub;  // empty: it takes no more deliveries
    bool nextOurs = false;                   // the run's next delivery is still pending under its lease
    std::optional<Event> nextEvent;
  };
  Result<Recorded> RecordAttempt(const WebhookDelivery& d, const WebhookSubscription& sub, const Event& event,
                                 const WebhookResponse& resp, Millis duration, const WebhookDelivery* next);

  struct Impl;
  std::unique_ptr<Impl> impl_;
  WorkerLoop loop_;  // after impl_: destroyed (and stopped) first
};

}  // namespace livechat
