// The one JSON object writer: event payloads, records, responses. Append
// only, no DOM; the only allocation is the output string's growth.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/base/json_text.h"

namespace livechat {

// Appends ["a","b"] / {"k":"v"} (keys in map order).
void AppendJsonStringArray(std::string& out, const std::vector<std::string>& v);
void AppendJsonStringMap(std::string& out, const std::map<std::string, std::string>& m);

// Builds one object key by key; every optional overload writes null when
// the value is absent (the spec's nullable keys are always present).
class JsonObject {
 public:
  JsonObject() : out_("{") {}

  JsonObject& Str(std::string_view k, std::string_view v) {
    Key(k);
    AppendJsonString(out_, v);
    return *this;
  }
  // Spelled out so neither a std::string nor a literal is ambiguous with the
  // optional overload.
  JsonObject& Str(std::string_view k, const std::string& v) { return Str(k, std::string_view(v)); }
  JsonObject& Str(std::string_view k, const char* v) { return Str(k, std::string_view(v)); }
  JsonObject& Str(std::string_view k, const std::optional<std::string>& v) { return v ? Str(k, *v) : Null(k); }
  JsonObject& Bool(std::string_view k, bool v) {
    Key(k);
    out_ += v ? "true" : "false";
    return *this;
  }
  JsonObject& Bool(std::string_view k, const std::optional<bool>& v) { return v ? Bool(k, *v) : Null(k); }
  JsonObject& Int(std::string_view k, std::int64_t v) {
    Key(k);
    AppendJsonInt(out_, v);
    return *this;
  }
  JsonObject& Int(std::string_view k, const std::optional<std::int64_t>& v) { return v ? Int(k, *v) : Null(k); }
  JsonObject& Double(std::string_view k, double v) {
    Key(k);
    AppendJsonDouble(out_, v);
    return *this;
  }
  JsonObject& Double(std::string_view k, const std::optional<double>& v) { return v ? Double(k, *v) : Null(k); }
  // ISO 8601 UTC with milliseconds, as a JSON string.
  JsonObject& Time(std::string_view k, std::int64_t unixMillis) {
    Key(k);
    out_.push_back('"');
    AppendIso8601(out_, unixMillis);
    out_.push_back('"');
    return *this;
  }
  JsonObject& Time(std::string_view k, const std::optional<std::int64_t>& v) { return v ? Time(k, *v) : Null(k); }
  JsonObject& Null(std::string_view k) {
    Key(k);
    out_ += "null";
    return *this;
  }
  JsonObject& Strings(std::string_view k, const std::vector<std::string>& v) {
    Key(k);
    AppendJsonStringArray(out_, v);
    return *this;
  }
  // `json` must already be valid JSON text; an empty one writes `fallback`.
  JsonObject& Raw(std::string_view k, std::string_view json, std::string_view fallback = "null") {
    Key(k);
    out_ += json.empty() ? fallback : json;
    return *this;
  }
  // Leaves the writer spent.
  std::string Done() {
    out_.push_back('}');
    return std::move(out_);
  }

 private:
  void Key(std::string_view k) {
    if (out_.size() > 1) out_.push_back(',');
    AppendJsonString(out_, k);
    out_.push_back(':');
  }
  std::string out_;
};

}  // namespace livechat
