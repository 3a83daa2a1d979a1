// ASCII text helpers every layer shares. AsciiLower is the one case fold for
// the case-insensitive keys (emails and API keys in the store, HTTP header
// values, CSV column names): only A-Z change, UTF-8 bytes pass as they are,
// matching SQLite's lower() that the store's email lookups use.
#pragma once

#include <string>
#include <string_view>

namespace livechat {

std::string AsciiLower(std::string_view s);
// Leading and trailing ASCII whitespace (space, \t, \n, \r, \f, \v) removed.
std::string_view Trim(std::string_view s);

}  // namespace livechat
