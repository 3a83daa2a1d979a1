// JSON text: the one escaper and the number and time formats every JSON
// writer in livechat uses. No printf, no locale: each appends straight to
// the caller's buffer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace livechat {

// Appends `s` as a JSON string literal (quoted, escaped). UTF-8 passes
// through unchanged: inputs are validated where they enter.
void AppendJsonString(std::string& out, std::string_view s);
void AppendJsonInt(std::string& out, std::int64_t v);
// The shortest form that reads back as the same double; null for NaN and
// the infinities, which JSON cannot carry.
void AppendJsonDouble(std::string& out, double v);
// "2026-11-24T18:04:51.123Z" (always milliseconds, always UTC), unquoted.
void AppendIso8601(std::string& out, std::int64_t unixMillis);
// The same, quoted: a JSON string.
void AppendJsonTime(std::string& out, std::int64_t unixMillis);
// Appends an object key and its colon, `"k":`, after a comma when `comma`.
void AppendJsonKey(std::string& out, std::string_view k, bool comma);
// A whole member, key and value, mostly in one append (a list page writes
// thousands): `json` is already JSON text (true, null, a number).
void AppendJsonMember(std::string& out, std::string_view k, bool comma, std::string_view json);
void AppendJsonStringMember(std::string& out, std::string_view k, bool comma, std::string_view v);
void AppendJsonIntMember(std::string& out, std::string_view k, bool comma, std::int64_t v);
void AppendJsonTimeMember(std::string& out, std::string_view k, bool comma, std::int64_t unixMillis);
// Grows `out` by `n` bytes (their value unspecified until written) and
// returns where they start: one call per piece instead of one per byte.
// Capacity grows by doubling, so a writer appending piece by piece stays
// linear.
char* AppendJsonSpace(std::string& out, std::size_t n);

}  // namespace livechat
