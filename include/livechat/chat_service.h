// ChatService: the aggregate that wires the core's services over one shared
// context, built from ServiceOptions. Every operation of every surface
// (REST, GraphQL, MCP, storefront, livechatctl) is a call on one of its
// services (livechat/services/*.h): permission checks, limits, validation,
// state transitions and event emission all live behind them, so the
// surfaces behave the same by construction. Which service owns what, and
// where a new operation goes: docs/architecture.md, "The services".
//
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "livechat/services/annotations.h"
#include "livechat/services/auth.h"
#include "livechat/services/common.h"
#include "livechat/services/conversations.h"
#include "livechat/services/demo.h"
#include "livechat/services/directory.h"
#include "livechat/services/event_feed.h"
#include "livechat/services/files.h"
#include "livechat/services/idempotency.h"
#include "livechat/services/knowledge.h"
#include "livechat/services/legacy.h"
#include "livechat/services/privacy.h"
#include "livechat/services/storefront.h"
#include "livechat/services/webhooks.h"

namespace livechat {

class ChatService {
 public:
  explicit ChatService(ServiceOptions options);
  ~ChatService();
  ChatService(const ChatService&) = delete;
  ChatService& operator=(const ChatService&) = delete;

  const Limits& limits() const;
  Clock& clock() const;
  // Every write through it tells the conversation observer which
  // conversations it changed (SetConversationObserver).
  Store& store() const;

  AuthService& auth() { return auth_; }
  ConversationService& conversations() { return conversations_; }
  AnnotationService& annotations() { return annotations_; }
  DirectoryService& directory() { return directory_; }
  DemoService& demo() { return demo_; }
  EventFeedService& feed() { return feed_; }
  KnowledgeService& knowledge() { return knowledge_; }
  FileService& files() { return files_; }
  StorefrontService& storefront() { return storefront_; }
  PrivacyService& privacy() { return privacy_; }
  WebhookService& webhooks() { return webhooks_; }
  IdempotencyService& idempotency() { return idempotency_; }
  LegacyService& legacy() { return legacy_; }

  // Called with a conversation's id after every commit that wrote its row,
  // its messages or its typing (whatever the operation: the store records
  // those writes itself), so a waiting widget re-reads at once instead of
  // polling. One observer (the storefront); null clears it. Must be cheap
  // and thread-safe; it runs on the writer's thread.
  void SetConversationObserver(std::function<void(const std::string& conversationId)> observer);

 private:
  std::unique_ptr<internal::ServiceContext> ctx_;
  AuthService auth_;
  ConversationService conversations_;
  AnnotationService annotations_;
  DirectoryService directory_;
  DemoService demo_;
  EventFeedService feed_;
  KnowledgeService knowledge_;
  FileService files_;
  StorefrontService storefront_;
  PrivacyService privacy_;
  WebhookService webhooks_;
  IdempotencyService idempotency_;
  LegacyService legacy_;
};

}  // namespace livechat
