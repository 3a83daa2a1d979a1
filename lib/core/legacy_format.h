// The legacy conversation export (docs/operations.md, "Legacy conversations"):
// what `livechatctl import legacy` reads. Parsing and validation only, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/model.h"
#include "livechat/result.h"

namespace livechat::internal {

struct LegacyMessage {
  std::string text;
  std::string senderType;  // customer | agent | bot | system
  std::string senderName;  // defaults by sender type when the file has none
  bool isNote = false;
  Millis createdAt = 0;
};

struct LegacyConversation {
  std::string firestoreId;
  std::string status = "resolved";  // open | resolved
  std::string channel = "online_store";
  std::optional<std::string> sessionId;
  std::optional<std::string> customerName, customerEmail, customerPhone;
  std::vector<std::string> tags;
  Millis createdAt = 0;
  std::vector<LegacyMessage> messages;  // in time order (stable for equal times)
};

struct LegacyLimits {
  std::size_t maxBytes = 64u << 20;
  std::size_t maxConversations = 100'000;
  std::size_t maxMessagesPerConversation = 10'000;
  int messageTextMax = 5000;
  int tagMax = 100;       // characters per tag
  std::size_t tagsMax = 100;  // tags per conversation
};

// The whole file, validated: nothing is returned unless every record is
// valid, so an import is all or nothing. Errors are INVALID_PARAMS naming the
// record and field: `conversations[3].messages[0].createdAt: must be an ISO
// 8601 time like "2024-05-02T09:15:00Z"`.
Result<std::vector<LegacyConversation>> ParseLegacyExport(std::string_view json, const LegacyLimits& limits);

}  // namespace livechat::internal
