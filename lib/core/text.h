// Text helpers of the core; UTF-8 itself is in livechat/base/utf8.h.
#pragma once

#include <string>
#include <string_view>

#include "livechat/base/utf8.h"

namespace livechat::internal {

// Leading and trailing ASCII whitespace removed.
std::string_view Trim(std::string_view s);
// A-Z folded to a-z, every other byte kept (SQLite's lower(), which the
// store's case-insensitive email lookups use).
std::string AsciiLower(std::string_view s);

}  // namespace livechat::internal
