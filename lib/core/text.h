// UTF-8 checks the core applies to every text it stores, whatever the surface.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace livechat::internal {

bool ValidUtf8(std::string_view s);
// Code points in well-formed UTF-8 (what the spec's "characters" limits count).
std::size_t CodePoints(std::string_view s);
// Leading and trailing ASCII whitespace removed.
std::string_view Trim(std::string_view s);
// A-Z folded to a-z, every other byte kept (SQLite's lower(), which the
// store's case-insensitive email lookups use).
std::string AsciiLower(std::string_view s);
// The first `max` code points of valid UTF-8 `s`.
std::string TruncateCodePoints(std::string_view s, std::size_t max);

}  // namespace livechat::internal
