// A tiny append-only JSON object writer for event payloads and records: no
// DOM, no allocation beyond the output string.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/json_codec.h"

namespace livechat::internal {

class JsonObject {
 public:
  JsonObject() : s_("{") {}
  JsonObject& Str(std::string_view k, std::string_view v) { Key(k); AppendJsonString(s_, v); return *this; }
  JsonObject& OptStr(std::string_view k, const std::optional<std::string>& v) {
    return v ? Str(k, *v) : Null(k);
  }
  JsonObject& Bool(std::string_view k, bool v) { Key(k); s_ += v ? "true" : "false"; return *this; }
  JsonObject& Int(std::string_view k, std::int64_t v) { Key(k); s_ += std::to_string(v); return *this; }
  JsonObject& OptInt(std::string_view k, const std::optional<std::int64_t>& v) { return v ? Int(k, *v) : Null(k); }
  JsonObject& Double(std::string_view k, double v);
  JsonObject& Null(std::string_view k) { Key(k); s_ += "null"; return *this; }
  // `json` must already be valid JSON text.
  JsonObject& Raw(std::string_view k, std::string_view json) { Key(k); s_ += json; return *this; }
  JsonObject& StrArray(std::string_view k, const std::vector<std::string>& v) { Key(k); s_ += StringArray(v); return *this; }
  std::string Done() { s_ += '}'; return std::move(s_); }  // leaves the builder spent

  static std::string StringArray(const std::vector<std::string>& v);
  static std::string StringMap(const std::map<std::string, std::string>& m);

 private:
  void Key(std::string_view k) {
    if (s_.size() > 1) s_ += ',';
    AppendJsonString(s_, k);
    s_ += ':';
  }
  std::string s_;
};

}  // namespace livechat::internal
