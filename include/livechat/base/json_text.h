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
// Writers into room already made (JsonObject's): each writes at `p` and
// returns the end of what it wrote.
// `s` quoted and escaped, exactly the bytes AppendJsonString appends: at
// most 6 * s.size() + 2 (every byte a \u00XX).
char* PutJsonString(char* p, std::string_view s);
// Whether `s` holds a byte JSON text must escape ('"', '\\', below 0x20).
bool JsonNeedsEscape(std::string_view s);
// A time as AppendJsonTime writes it, quoted; needs kJsonTimeRoom bytes.
inline constexpr std::size_t kJsonTimeRoom = 40;
char* PutJsonTime(char* p, std::int64_t unixMillis);
// A double as AppendJsonDouble writes it; needs 32 bytes.
char* PutJsonDouble(char* p, double v);
// Grows `out` by `n` bytes (their value unspecified until written) and
// returns where they start: one call per piece instead of one per byte.
// Capacity grows by doubling, so a writer appending piece by piece stays
// linear.
char* AppendJsonSpace(std::string& out, std::size_t n);

}  // namespace livechat
