// DemoService: a demo store and generated load (demo_service.cc), made
// with the other services' own operations.
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include "livechat/services/common.h"
#include "livechat/services/annotations.h"
#include "livechat/services/conversations.h"
#include "livechat/services/directory.h"

namespace livechat {

struct SeedInput {
  int conversations = 0;
  int messagesPerConversation = 0;
};

class DemoService {
 public:
  DemoService(internal::ServiceContext& ctx, DirectoryService& directory, ConversationService& conversations,
              AnnotationService& annotations);
  DemoService(const DemoService&) = delete;
  DemoService& operator=(const DemoService&) = delete;

  // ---- Operator (System principal only; others get FORBIDDEN) ----
  Status Seed(const Principal& p, const SeedInput& in);
  // A demo store: members, customers, conversations on several channels,
  // messages, tags, notes, attributes, and a key with every permission. Its
  // admin signs in to the inbox with kDemoAgentEmail / kDemoAgentPassword
  // (a demo on loopback; never a store with real customers).
  Result<CreatedKey> CreateDemo(const std::string& shopName);
  static constexpr const char* kDemoAgentEmail = "ada@demo.example";
  static constexpr const char* kDemoAgentPassword = "demo-password";

 private:
  internal::ServiceContext& ctx_;
  DirectoryService& directory_;
  ConversationService& conversations_;
  AnnotationService& annotations_;
};

}  // namespace livechat
