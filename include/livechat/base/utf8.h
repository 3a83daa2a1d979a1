// UTF-8: the one decoder, encoder and validator every layer uses (the REST
// and storefront input checks, the core's text limits, the GraphQL lexer,
// the SQLite JSON columns). Well-formed means RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace livechat {

// Decodes one sequence at `pos`: returns its length in bytes (1-4) and sets
// `codePoint`, or returns 0 (codePoint untouched) when the bytes there are
// not well-formed or `pos` is at or past the end.
std::size_t DecodeUtf8(std::string_view s, std::size_t pos, std::uint32_t& codePoint);
// Appends the encoding of a scalar value (the caller never passes a surrogate
// or a value above U+10FFFF).
void AppendUtf8(std::string& out, std::uint32_t codePoint);
bool IsValidUtf8(std::string_view s);
// Code points in well-formed UTF-8: what the spec's "characters" limits count.
std::size_t Utf8Length(std::string_view s);
// The first `max` code points of well-formed `s`.
std::string TruncateUtf8(std::string_view s, std::size_t max);

}  // namespace livechat
