// The services' shared context and the aggregate that wires the services
// over it (ChatService).
#include "core/service_context.h"

#include "core/login_throttle.h"
#include "core/observed_store.h"
#include "core/rate_limiter.h"

namespace livechat {
namespace internal {

ServiceContext::ServiceContext(ServiceOptions opts)
    : options(std::move(opts)),
      observed(options.store ? std::make_unique<ObservedStore>(
                                   *options.store, [this](const std::string& id) { NotifyConversationChanged(id); },
                                   [this] { NotifyDeliveriesQueued(); })
                             : nullptr),
      clock(options.clock ? options.clock : Clock::Default()),
      random(options.random ? options.random : Random::Default()),
      sender(options.channelSender ? options.channelSender : NullChannelSender()),
      resolver(options.resolver ? options.resolver : Resolver::Default()),
      ownLimiter(options.rateWindows ? nullptr : std::make_unique<RateLimiter>(*clock, options.limits.rateWindowMillis)),
      limiter(options.rateWindows ? options.rateWindows : ownLimiter.get()),
      loginThrottle(std::make_unique<LoginThrottle>(*clock, options.limits)),
      listCache(options.listCacheBytes / 2, options.metrics, "conversations"),
      messageCache(options.listCacheBytes / 2, options.metrics, "messages") {
  fileUrlSecret = options.fileUrlSecret.empty() ? random->Hex(32) : options.fileUrlSecret;
  if (options.metrics) {
    refusedByIp =
        &options.metrics->GetCounter(metric::kRateLimitRefusals, metric::kRateLimitRefusalsHelp, {{"scope", "ip"}});
    refusedByKey =
        &options.metrics->GetCounter(metric::kRateLimitRefusals, metric::kRateLimitRefusalsHelp, {{"scope", "key"}});
    loginFailures = &options.metrics->GetCounter(metric::kLoginFailures, metric::kLoginFailuresHelp);
    loginThrottledAccount =
        &options.metrics->GetCounter(metric::kLoginThrottled, metric::kLoginThrottledHelp, {{"scope", "account"}});
    loginThrottledAddress =
        &options.metrics->GetCounter(metric::kLoginThrottled, metric::kLoginThrottledHelp, {{"scope", "address"}});
  }
  // Writes by other instances on a shared database (PostgreSQL) wake this
  // instance's long-polls as its own writes do (through `observed`), and what
  // onEventsQueued and onDeliveriesQueued wake: such a write may have queued
  // events and deliveries, and this instance's live change feeds and
  // dispatcher then read them now rather than at their next poll.
  if (options.store)
    options.store->WatchOtherWriters([this](const std::string& id) {
      NotifyConversationChanged(id);
      NotifyEventsQueued();
      NotifyDeliveriesQueued();
    });
}

ServiceContext::~ServiceContext() {
  if (options.store) options.store->WatchOtherWriters(nullptr);
}

void ServiceContext::NotifyEventsQueued() {
  if (options.onEventsQueued) options.onEventsQueued();
}

void ServiceContext::NotifyDeliveriesQueued() {
  if (options.onDeliveriesQueued) options.onDeliveriesQueued();
}

void ServiceContext::SetConversationObserver(std::function<void(const std::string& conversationId)> observer) {
  auto next = observer ? std::make_shared<const std::function<void(const std::string&)>>(std::move(observer)) : nullptr;
  std::lock_guard<std::mutex> lock(observerMu_);
  observer_ = std::move(next);
}

void ServiceContext::NotifyConversationChanged(const std::string& conversationId) {
  std::shared_ptr<const std::function<void(const std::string&)>> observer;
  {
    std::lock_guard<std::mutex> lock(observerMu_);
    observer = observer_;
  }
  if (observer) (*observer)(conversationId);
}

}  // namespace internal

ChatService::ChatService(ServiceOptions options)
    : ctx_(std::make_unique<internal::ServiceContext>(std::move(options))),
      auth_(*ctx_),
      conversations_(*ctx_),
      annotations_(*ctx_),
      directory_(*ctx_),
      demo_(*ctx_, directory_, conversations_, annotations_),
      feed_(*ctx_),
      knowledge_(*ctx_),
      files_(*ctx_, knowledge_),
      storefront_(*ctx_),
      privacy_(*ctx_, files_),
      webhooks_(*ctx_),
      idempotency_(*ctx_),
      legacy_(*ctx_, directory_) {}

ChatService::~ChatService() {
  // A send handed to the store's writer (SendMessageAsync) answers through
  // the services: they stay until every such answer ran.
  if (ctx_->observed) ctx_->observed->AwaitWritesHandedOver();
}

const Limits& ChatService::limits() const { return ctx_->limits(); }
Clock& ChatService::clock() const { return *ctx_->clock; }
Store& ChatService::store() const { return ctx_->store(); }

void ChatService::SetConversationObserver(std::function<void(const std::string& conversationId)> observer) {
  ctx_->SetConversationObserver(std::move(observer));
}

AuthService::AuthService(internal::ServiceContext& ctx) : ctx_(ctx) {}
ConversationService::ConversationService(internal::ServiceContext& ctx) : ctx_(ctx) {}
AnnotationService::AnnotationService(internal::ServiceContext& ctx) : ctx_(ctx) {}
DirectoryService::DirectoryService(internal::ServiceContext& ctx) : ctx_(ctx) {}
DemoService::DemoService(internal::ServiceContext& ctx, DirectoryService& directory,
                         ConversationService& conversations, AnnotationService& annotations)
    : ctx_(ctx), directory_(directory), conversations_(conversations), annotations_(annotations) {}
EventFeedService::EventFeedService(internal::ServiceContext& ctx) : ctx_(ctx) {}
KnowledgeService::KnowledgeService(internal::ServiceContext& ctx) : ctx_(ctx) {}
FileService::FileService(internal::ServiceContext& ctx, KnowledgeService& knowledge)
    : ctx_(ctx), knowledge_(knowledge) {}
StorefrontService::StorefrontService(internal::ServiceContext& ctx) : ctx_(ctx) {}
PrivacyService::PrivacyService(internal::ServiceContext& ctx, FileService& files) : ctx_(ctx), files_(files) {}
WebhookService::WebhookService(internal::ServiceContext& ctx) : ctx_(ctx) {}
IdempotencyService::IdempotencyService(internal::ServiceContext& ctx) : ctx_(ctx) {}
LegacyService::LegacyService(internal::ServiceContext& ctx, DirectoryService& directory)
    : ctx_(ctx), directory_(directory) {}

}  // namespace livechat
