// Opaque page cursors: base64url (no padding) of a small versioned text
// holding the last row's sort key. A cursor that does not decode is
// INVALID_PARAMS; a well-formed hand-built one is simply a position.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "livechat/store.h"

namespace livechat::internal {

std::string Base64UrlEncode(std::string_view in);
std::optional<std::string> Base64UrlDecode(std::string_view in);

std::string EncodeConversationCursor(const ConversationKey& key);
std::optional<ConversationKey> DecodeConversationCursor(std::string_view cursor);
std::string EncodeCustomerCursor(const CustomerKey& key);
std::optional<CustomerKey> DecodeCustomerCursor(std::string_view cursor);
std::string EncodeMessageCursor(std::int64_t seq);
std::optional<std::int64_t> DecodeMessageCursor(std::string_view cursor);
// A conversation search's position in relevance order.
std::string EncodeRelevanceCursor(const RelevanceKey& key);
std::optional<RelevanceKey> DecodeRelevanceCursor(std::string_view cursor);
// The change feed's position: an event's seq.
std::string EncodeEventCursor(std::int64_t seq);
std::optional<std::int64_t> DecodeEventCursor(std::string_view cursor);

}  // namespace livechat::internal
