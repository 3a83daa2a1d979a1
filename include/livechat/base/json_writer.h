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
//
// Two forms: JsonObject() writes into a string of its own, which Done()
// returns; JsonObject(out) writes straight into the caller's buffer, after
// what it holds, and End() closes it. A list page writes every record into
// the one response buffer this way: no string per record, no copy of it.
class JsonObject {
 public:
  JsonObject() : out_(own_) { own_.push_back('{'); }
  // `out` must outlive the writer and take no other write until End().
  explicit JsonObject(std::string& out) : out_(out) { out.push_back('{'); }
  JsonObject(const JsonObject&) = delete;
  JsonObject& operator=(const JsonObject&) = delete;

  JsonObject& Str(std::string_view k, std::string_view v) {
    AppendJsonStringMember(out_, k, Comma(), v);
    return *this;
  }
  // Spelled out so neither a std::string nor a literal is ambiguous with the
  // optional overload.
  JsonObject& Str(std::string_view k, const std::string& v) { return Str(k, std::string_view(v)); }
  JsonObject& Str(std::string_view k, const char* v) { return Str(k, std::string_view(v)); }
  JsonObject& Str(std::string_view k, const std::optional<std::string>& v) { return v ? Str(k, *v) : Null(k); }
  JsonObject& Bool(std::string_view k, bool v) {
    AppendJsonMember(out_, k, Comma(), v ? std::string_view("true") : std::string_view("false"));
    return *this;
  }
  JsonObject& Bool(std::string_view k, const std::optional<bool>& v) { return v ? Bool(k, *v) : Null(k); }
  JsonObject& Int(std::string_view k, std::int64_t v) {
    AppendJsonIntMember(out_, k, Comma(), v);
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
    AppendJsonTimeMember(out_, k, Comma(), unixMillis);
    return *this;
  }
  JsonObject& Time(std::string_view k, const std::optional<std::int64_t>& v) { return v ? Time(k, *v) : Null(k); }
  JsonObject& Null(std::string_view k) {
    AppendJsonMember(out_, k, Comma(), "null");
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
    out_.append(json.empty() ? fallback : json);
    return *this;
  }
  // Writes the key and returns the buffer, to which the caller appends
  // exactly one JSON value (e.g. a nested JsonObject(out)).
  std::string& Field(std::string_view k) {
    Key(k);
    return out_;
  }
  // Closes an object written into the caller's buffer.
  void End() { out_.push_back('}'); }
  // Closes an object of its own and returns it; leaves the writer spent.
  std::string Done() {
    own_.push_back('}');
    return std::move(own_);
  }

 private:
  // Whether a member written now follows another (and so needs a comma).
  bool Comma() {
    const bool comma = !first_;
    first_ = false;
    return comma;
  }
  void Key(std::string_view k) { AppendJsonKey(out_, k, Comma()); }
  std::string own_;
  std::string& out_;
  bool first_ = true;
};

}  // namespace livechat
