// JSON text for the list- and map-valued columns (channels, tags,
// customAttributes). The storage targets do not link a JSON library, and
// these columns only ever hold arrays of strings or string-to-string objects,
// so a small exact codec is enough. The text is standard JSON, which keeps the
// columns usable from SQLite's json_each() and PostgreSQL's jsonb (the tag filter relies on it).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/result.h"

namespace livechat::storage {

std::string EncodeStringArray(const std::vector<std::string>& values);
std::string EncodeStringMap(const std::map<std::string, std::string>& values);

// kInternal when the text is not an array of strings / an object of strings.
Result<std::vector<std::string>> DecodeStringArray(std::string_view json);
Result<std::map<std::string, std::string>> DecodeStringMap(std::string_view json);

}  // namespace livechat::storage
