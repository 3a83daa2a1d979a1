// Text helpers of the core; UTF-8 itself is in livechat/base/utf8.h.
#pragma once

#include <string_view>

#include "livechat/base/utf8.h"

namespace livechat::internal {

// Leading and trailing ASCII whitespace removed.
std::string_view Trim(std::string_view s);

}  // namespace livechat::internal
