#include "livechat/graphql/value.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "graphql/js_text.h"
#include "graphql/json_value.h"

namespace livechat::graphql {

const Value* Value::Find(std::string_view key) const {
  if (!IsObject()) return nullptr;
  for (const auto& [k, v] : AsObject()) {
    if (k == key) return &v;
  }
  return nullptr;
}

Value& Value::Set(std::string key, Value value) {
  if (IsNull()) v_ = Object{};
  Object& o = AsObject();
  for (auto& [k, v] : o) {
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  }
  o.emplace_back(std::move(key), std::move(value));
  return *this;
}

Value& Value::Append(Value value) {
  if (IsNull()) v_ = List{};
  AsList().push_back(std::move(value));
  return *this;
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::kNull: return true;
    case Value::Kind::kBoolean: return a.AsBool() == b.AsBool();
    case Value::Kind::kInt: return a.AsInt() == b.AsInt();
    case Value::Kind::kFloat: return a.AsFloat() == b.AsFloat();
    case Value::Kind::kString:
    case Value::Kind::kEnum: return a.AsString() == b.AsString();
    case Value::Kind::kList: return a.AsList() == b.AsList();
    case Value::Kind::kObject: return a.AsObject() == b.AsObject();
    case Value::Kind::kHost: {
      const auto& ha = std::get<Value::HostRef>(a.v_);
      const auto& hb = std::get<Value::HostRef>(b.v_);
      return ha.ptr.get() == hb.ptr.get() && *ha.type == *hb.type;
    }
  }
  return false;
}

std::string FormatJsNumber(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) return "0";
  if (d < 0) return "-" + FormatJsNumber(-d);
  // Shortest round-trip digits, then ECMAScript's Number::toString layout.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  const std::size_t ePos = sci.find('e');
  std::string digits;
  for (std::size_t i = 0; i < ePos; ++i) {
    if (sci[i] != '.') digits.push_back(sci[i]);
  }
  const int exponent = std::atoi(sci.c_str() + ePos + 1);
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;
  if (k <= n && n <= 21) return digits + std::string(static_cast<std::size_t>(n - k), '0');
  if (0 < n && n <= 21) return digits.substr(0, static_cast<std::size_t>(n)) + "." + digits.substr(static_cast<std::size_t>(n));
  if (-6 < n && n <= 0) return "0." + std::string(static_cast<std::size_t>(-n), '0') + digits;
  const int e = n - 1;
  std::string out = digits.substr(0, 1);
  if (k > 1) out += "." + digits.substr(1);
  out += e < 0 ? "e-" : "e+";
  out += std::to_string(e < 0 ? -e : e);
  return out;
}

void Value::AppendJson(std::string& out) const {
  switch (kind()) {
    case Kind::kNull:
    case Kind::kHost: out += "null"; return;
    case Kind::kBoolean: out += AsBool() ? "true" : "false"; return;
    case Kind::kInt: out += std::to_string(AsInt()); return;
    case Kind::kFloat:
      // JSON.stringify writes non-finite numbers as null.
      out += std::isfinite(AsFloat()) ? FormatJsNumber(AsFloat()) : "null";
      return;
    case Kind::kString:
    case Kind::kEnum: internal::AppendJsonQuoted(out, AsString()); return;
    case Kind::kList: {
      out.push_back('[');
      bool first = true;
      for (const Value& item : AsList()) {
        if (!first) out.push_back(',');
        first = false;
        item.AppendJson(out);
      }
      out.push_back(']');
      return;
    }
    case Kind::kObject: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, item] : AsObject()) {
        if (!first) out.push_back(',');
        first = false;
        internal::AppendJsonQuoted(out, key);
        out.push_back(':');
        item.AppendJson(out);
      }
      out.push_back('}');
      return;
    }
  }
}

std::string Value::ToJson() const {
  std::string out;
  AppendJson(out);
  return out;
}

namespace {

Value FromJsonNumber(const rapidjson::Value& v) {
  if (v.IsInt()) return Value(static_cast<int>(v.GetInt()));
  const double d = v.GetDouble();
  if (std::trunc(d) == d && d >= std::numeric_limits<std::int32_t>::min() &&
      d <= std::numeric_limits<std::int32_t>::max()) {
    return Value(static_cast<int>(d));
  }
  return Value(d);
}

}  // namespace

// Recursion is bounded by `depthLeft`; the parse itself is iterative.
// `depthLeft` is how many more arrays/objects may nest here.
Result<Value> FromRapidJson(const rapidjson::Value& v, int depthLeft) {
  if ((v.IsArray() || v.IsObject()) && depthLeft <= 0) {
    return MakeError(ErrorCode::kInvalidParams, "JSON is nested too deeply");
  }
  switch (v.GetType()) {
    case rapidjson::kNullType: return Value();
    case rapidjson::kFalseType: return Value(false);
    case rapidjson::kTrueType: return Value(true);
    case rapidjson::kNumberType: return FromJsonNumber(v);
    case rapidjson::kStringType: return Value(std::string(v.GetString(), v.GetStringLength()));
    case rapidjson::kArrayType: {
      Value::List list;
      list.reserve(v.Size());
      for (const auto& item : v.GetArray()) {
        LC_ASSIGN_OR_RETURN(Value converted, FromRapidJson(item, depthLeft - 1));
        list.push_back(std::move(converted));
      }
      return Value(std::move(list));
    }
    case rapidjson::kObjectType: {
      Value::Object out;
      out.reserve(v.MemberCount());
      std::unordered_map<std::string_view, std::size_t> index;
      for (const auto& member : v.GetObject()) {
        LC_ASSIGN_OR_RETURN(Value converted, FromRapidJson(member.value, depthLeft - 1));
        const std::string_view key(member.name.GetString(), member.name.GetStringLength());
        // A repeated key keeps its first position and its last value, as JSON.parse.
        auto [it, inserted] = index.emplace(key, out.size());
        if (inserted) {
          out.emplace_back(std::string(key), std::move(converted));
        } else {
          out[it->second].second = std::move(converted);
        }
      }
      return Value(std::move(out));
    }
  }
  return Value();
}

Result<Value> ParseJson(std::string_view json, int maxDepth) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(json.data(), json.size());
  if (doc.HasParseError()) {
    return MakeError(ErrorCode::kInvalidParams, std::string("malformed JSON: ") +
                                                    rapidjson::GetParseError_En(doc.GetParseError()));
  }
  return FromRapidJson(doc, maxDepth);
}

}  // namespace livechat::graphql
