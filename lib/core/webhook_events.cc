// The event names live in the core: ChatService validates subscriptions with
// them, and the core must not depend on lib/webhooks.
#include <algorithm>

#include "livechat/webhooks.h"

namespace livechat {

const std::vector<std::string>& WebhookEventNames() {
  static const std::vector<std::string> kNames{
      "message.created",           "message.updated",         "message.removed",
      "conversation.created",      "conversation.state_changed", "conversation.assigned",
      "conversation.tags_updated", "conversation.removed",    "customer.created"};
  return kNames;
}

bool IsWebhookEventName(std::string_view name) {
  const auto& n = WebhookEventNames();
  return std::find(n.begin(), n.end(), name) != n.end();
}

}  // namespace livechat
