// libFuzzer target: every paging cursor a client sends back (conversations,
// customers, messages, relevance, events). A cursor that decodes must encode
// back to a cursor that decodes to the same position.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/cursor.h"

using namespace livechat;
using namespace livechat::internal;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  if (auto k = DecodeConversationCursor(in)) {
    if (!DecodeConversationCursor(EncodeConversationCursor(*k))) std::abort();
  }
  if (auto k = DecodeCustomerCursor(in)) {
    if (!DecodeCustomerCursor(EncodeCustomerCursor(*k))) std::abort();
  }
  if (auto s = DecodeMessageCursor(in)) {
    if (DecodeMessageCursor(EncodeMessageCursor(*s)) != s) std::abort();
  }
  if (auto k = DecodeRelevanceCursor(in)) {
    if (!DecodeRelevanceCursor(EncodeRelevanceCursor(*k))) std::abort();
  }
  if (auto s = DecodeEventCursor(in)) {
    if (DecodeEventCursor(EncodeEventCursor(*s)) != s) std::abort();
  }
  (void)Base64UrlDecode(in);
  return 0;
}
