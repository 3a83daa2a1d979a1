#include "core/json_builder.h"

#include <charconv>
#include <cmath>

namespace livechat::internal {

JsonObject& JsonObject::Double(std::string_view k, double v) {
  Key(k);
  if (!std::isfinite(v)) {
    s_ += "null";  // JSON has no NaN or infinity
    return *this;
  }
  char buf[32];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  s_.append(buf, ec == std::errc() ? p : buf);
  return *this;
}

std::string JsonObject::StringArray(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    AppendJsonString(s, v[i]);
  }
  s += ']';
  return s;
}

std::string JsonObject::StringMap(const std::map<std::string, std::string>& m) {
  std::string s = "{";
  bool first = true;
  for (const auto& [k, val] : m) {
    if (!first) s += ',';
    first = false;
    AppendJsonString(s, k);
    s += ':';
    AppendJsonString(s, val);
  }
  s += '}';
  return s;
}

}  // namespace livechat::internal
