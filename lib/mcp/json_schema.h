// The subset of JSON Schema (2020-12) the tool server's input schemas use:
// type (one name or a list), properties, required, additionalProperties
// (false), enum, minLength/maxLength (in characters), minimum/maximum,
// items, minItems/maxItems. The schema a tool publishes in tools/list is the
// one its arguments are checked against, so the two cannot disagree.
#pragma once

#include <rapidjson/document.h>

#include <string>

namespace livechat::mcp {

// Empty when `value` conforms; otherwise a message naming the first
// offending location, e.g. "limit must be at least 1".
std::string ValidateAgainst(const rapidjson::Value& schema, const rapidjson::Value& value, const std::string& path);

// `v` serialized without whitespace.
std::string CompactJson(const rapidjson::Value& v);

}  // namespace livechat::mcp
