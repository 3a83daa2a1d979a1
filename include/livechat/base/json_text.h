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

}  // namespace livechat
