// What every service of the core shares: its settings (Limits,
// ServiceOptions) and the paging types. The services (one header each in
// this folder) run over one shared context that ChatService
// (livechat/chat_service.h) builds from ServiceOptions.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/address_policy.h"
#include "livechat/blob_store.h"
#include "livechat/channel_sender.h"
#include "livechat/clock.h"
#include "livechat/knowledge.h"
#include "livechat/metrics.h"
#include "livechat/model.h"
#include "livechat/principal.h"
#include "livechat/random.h"
#include "livechat/rate_counters.h"
#include "livechat/result.h"
#include "livechat/store.h"

namespace livechat {

class RateWindows;
namespace internal {
// What the services share (lib/core/service_context.h); ChatService owns it.
struct ServiceContext;
}  // namespace internal

// Every number here is a setting; the defaults are the spec's.
struct Limits {
  int rateLimitPerKey = 120;        // requests per window per API key
  int rateLimitPerIp = 300;         // requests per window per source IP
  Millis rateWindowMillis = 60'000; // fixed window from the first request
  Millis keyActivationDelayMillis = 0;  // spec allows up to 30 s; see docs/decisions.md
  int maxActiveKeys = 5;
  int keyNameMax = 50;
  int conversationsDefault = 20, conversationsMax = 100;
  int messagesDefault = 50, messagesMax = 100;
  int relatedDefault = 6, relatedMax = 50;
  int customerConversationsDefault = 20, customerConversationsMax = 100;
  int messageTextMax = 5000;        // characters (Unicode code points)
  int noteTextMax = 150;
  int tagMax = 100;
  int attributeNameMax = 255, attributeValueMax = 1000;
  int browsedPagesKept = 50;
  Millis browsedPagesTtlMillis = 24 * 3600 * 1000;
  Millis channelWindowMillis = 24 * 3600 * 1000;  // Messenger / Instagram / WhatsApp
  Millis sessionTtlMillis = 7 * 24 * 3600 * 1000; // admin inbox login
  // Admin sign-in throttling (docs/decisions.md, "Sign-in throttling"): failed
  // passwords allowed before each attempt must wait, per account and per
  // source address; the first wait, doubling per further failure up to the
  // cap; how long a key's failures are remembered; keys kept per table.
  int loginFreeFailuresPerAccount = 5;
  int loginFreeFailuresPerAddress = 20;
  Millis loginFirstDelayMillis = 1'000;
  Millis loginMaxDelayMillis = 15 * 60 * 1000;
  Millis loginForgetAfterMillis = 24 * 3600 * 1000;
  std::size_t loginTrackedKeysMax = 10'000;
  int webhookSubscriptionsMax = 10;
  std::size_t webhookMetadataMax = 2048;          // bytes, serialized
  int webhookAttemptsKept = 50;                   // attempt log per subscription
  int visitorSessionsPerIp = 30;                  // new storefront sessions per window per source IP
  // Uploaded files (docs/operations.md, "Files"). Bytes, inclusive: N is accepted, N + 1 refused.
  std::int64_t attachmentMaxBytes = 10 * 1024 * 1024;  // widget attachments
  std::int64_t imageMaxBytes = 2 * 1024 * 1024;        // logos, avatars, icons
  std::int64_t importMaxBytes = 5 * 1024 * 1024;       // contact import CSV files
  int importRowsMax = 10'000;                          // data rows of one contact import (header not counted)
  Millis fileUrlTtlMillis = 3600 * 1000;               // a signed attachment URL in a read
  Millis webhookFileUrlTtlMillis = 24 * 3600 * 1000;   // ... in a webhook payload (outlives the retry ladder)
};

struct ServiceOptions {
  Store* store = nullptr;                // required; not owned
  Clock* clock = nullptr;                // null: Clock::Default()
  Random* random = nullptr;              // null: Random::Default()
  ChannelSender* channelSender = nullptr;  // null: NullChannelSender()
  Resolver* resolver = nullptr;          // null: Resolver::Default() (webhook url checks)
  bool allowPrivateWebhookTargets = false;  // local development and tests only
  // Called after a write that may have queued events (wakes live change
  // feeds). Must be cheap and thread-safe.
  std::function<void()> onEventsQueued;
  // Called after a write that queued webhook deliveries, once per write
  // (wakes the dispatcher): a store without subscriptions never calls it.
  // Must be cheap and thread-safe.
  std::function<void()> onDeliveriesQueued;
  // Resolving queues a summary job in the same transaction (a SummaryWorker
  // makes the summary; livechat/summarizer.h) and reopening removes a job
  // not yet run. Off: no jobs (a Store without summary jobs, or no worker).
  bool queueSummaries = true;
  // Called after a resolve queued a summary job (wakes the worker). Must be
  // cheap and thread-safe.
  std::function<void()> onSummaryQueued;
  // How long the change feed (GET /chat/events) keeps events: 1 to 365
  // days. PruneEventFeed removes older ones, unless a delivery waits for them.
  int eventRetentionDays = 7;
  Limits limits;
  // Where the request windows (per key, per address, visitor starts) are
  // counted; null: in this process. Several instances on one database pass
  // the database's (OpenPostgresRateWindows, with limits.rateWindowMillis)
  // so each limit holds across them. Not owned.
  RateWindows* rateWindows = nullptr;
  MetricsRegistry* metrics = nullptr;    // null: nothing counted; not owned
  // Where uploaded files' bytes live; null: every upload is refused (INTERNAL,
  // "uploads are not configured"). Not owned.
  BlobStore* blobs = nullptr;
  // Signs attachment URLs (HMAC-SHA256). Every process serving the same
  // database needs the same one; empty: a random secret for this instance
  // (its URLs stop working when it exits).
  std::string fileUrlSecret;
  // The conversation list's and the message lists' rows kept as JSON by
  // their row's version, so a page reads whole and serializes only the rows
  // written since they were last listed (docs/operations.md, "The lists'
  // JSON cache"). Bytes, half for each list; 0 turns both off.
  std::size_t listCacheBytes = 64u << 20;
  // Prefix of the file URLs in reads ("https://chat.example.com"); empty:
  // URLs are root-relative ("/files/{id}").
  std::string fileBaseUrl;
};

template <typename T>
struct Page {
  std::vector<T> items;
  std::optional<std::string> nextCursor;  // null on the last page
  bool hasMore = false;
};

// `limit` as the caller sent it (null: the endpoint's default); a value above
// the maximum is clamped, below 1 is INVALID_PARAMS. `cursor` from
// paging.nextCursor; undecodable is INVALID_PARAMS.
struct PageRequest {
  std::optional<std::int64_t> limit;
  std::optional<std::string> cursor;
};

}  // namespace livechat
