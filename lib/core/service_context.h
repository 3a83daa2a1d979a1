// What the core's services share (ChatService owns one and hands it to each
// service): the settings, the observed store, clock, random, channel sender,
// resolver, the request windows and sign-in throttle with their counters,
// the file-URL secret, the conversation observer, and the wake-ups of the
// webhook dispatcher. Rules live in the services, not here; the helpers at
// the end are the few one service owns and the others call.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/row_json_cache.h"
#include "core/observed_store.h"
#include "livechat/chat_service.h"

namespace livechat {

class LoginThrottle;
class RateLimiter;

namespace internal {

struct ServiceContext {
  explicit ServiceContext(ServiceOptions opts);
  ~ServiceContext();
  ServiceContext(const ServiceContext&) = delete;
  ServiceContext& operator=(const ServiceContext&) = delete;

  const Limits& limits() const { return options.limits; }
  // options.store, observed: every write through it tells the conversation
  // observer which conversations it changed.
  Store& store() const { return *observed; }

  // After a write that may have queued events (options.onEventsQueued).
  void NotifyEventsQueued();
  // After a write that queued webhook deliveries (options.onDeliveriesQueued);
  // `observed` calls it, so no service needs to.
  void NotifyDeliveriesQueued();
  void NotifyConversationChanged(const std::string& conversationId);
  void SetConversationObserver(std::function<void(const std::string& conversationId)> observer);

  ServiceOptions options;
  std::unique_ptr<ObservedStore> observed;
  Clock* clock;
  Random* random;
  ChannelSender* sender;
  Resolver* resolver;
  std::unique_ptr<RateLimiter> ownLimiter;  // when options.rateWindows is null
  RateWindows* limiter;
  Counter* refusedByIp = nullptr;  // rate-limit refusals, when metrics are on
  Counter* refusedByKey = nullptr;
  std::unique_ptr<LoginThrottle> loginThrottle;
  Counter* loginFailures = nullptr;  // sign-in metrics, when metrics are on
  Counter* loginThrottledAccount = nullptr;
  Counter* loginThrottledAddress = nullptr;
  std::string fileUrlSecret;
  // The REST lists' rows as JSON by row version (options.listCacheBytes,
  // half each): conversations by pg id, messages by seq.
  RowJsonCache listCache;
  RowJsonCache messageCache;

 private:
  std::mutex observerMu_;
  std::shared_ptr<const std::function<void(const std::string&)>> observer_;
};

// ---- Owned by the file service (file_service.cc), used by the message and
// storefront sends and reads ----

// An attachment riding on a message: its bytes already stored, its record
// written in the message's transaction (PrepareAttachment).
struct SentFile {
  FileRecord file;
  std::string blobKey;
  std::string filesJson;       // the message's `files`
  std::string eventFilesJson;  // the same with URLs signed for webhook receivers
};
// Checks an attachment (kind "attachment", the widget's limits and types)
// and stores its bytes; the widget's and the inbox's sends share it.
Result<SentFile> PrepareAttachment(ServiceContext& ctx, const Principal* p, const std::string& uploaderType,
                                   const std::string& uploaderId, const std::string& shopId,
                                   const FileUpload& upload, Millis now);
// The URL of a file as reads show it (FileService::FileUrl).
std::string FileUrl(const ServiceContext& ctx, const FileRecord& f, Millis expiresAt);
// Adds each file entry's `url` (signed until `expiresAt` where needed).
void AddFileUrls(const ServiceContext& ctx, Message& m, Millis expiresAt);
void AddFileUrls(const ServiceContext& ctx, std::vector<Message>& ms);
Result<FileRecord> CheckUpload(const ServiceContext& ctx, const Principal* p, const std::string& uploaderType,
                               const std::optional<std::string>& uploaderId, const FileUpload& in);

}  // namespace internal
}  // namespace livechat
