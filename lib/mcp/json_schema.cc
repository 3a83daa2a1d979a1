#include "mcp/json_schema.h"

#include <fmt/format.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>

#include "livechat/http.h"

namespace livechat::mcp {
namespace {

bool IsType(const rapidjson::Value& v, std::string_view type) {
  if (type == "object") return v.IsObject();
  if (type == "array") return v.IsArray();
  if (type == "string") return v.IsString();
  if (type == "boolean") return v.IsBool();
  if (type == "null") return v.IsNull();
  if (type == "number") return v.IsNumber();
  // A whole double within int64's range counts (1e3); 1e300 does not.
  if (type == "integer")
    return v.IsInt64() || (v.IsDouble() && std::floor(v.GetDouble()) == v.GetDouble() &&
                           std::fabs(v.GetDouble()) < 9.0e18);
  return false;
}

std::string TypeList(const rapidjson::Value& t) {
  if (t.IsString()) return t.GetString();
  std::string out;
  for (const auto& x : t.GetArray()) out += (out.empty() ? "" : " or ") + std::string(x.GetString());
  return out;
}

std::string Where(const std::string& path) { return path.empty() ? "arguments" : path; }

}  // namespace

std::string CompactJson(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

std::string ValidateAgainst(const rapidjson::Value& schema, const rapidjson::Value& value, const std::string& path) {
  if (auto t = schema.FindMember("type"); t != schema.MemberEnd()) {
    bool ok = false;
    if (t->value.IsString()) ok = IsType(value, t->value.GetString());
    else
      for (const auto& x : t->value.GetArray()) ok = ok || IsType(value, x.GetString());
    if (!ok) {
      std::string what = TypeList(t->value);
      const char* article = (what[0] == 'a' || what[0] == 'i' || what[0] == 'o') ? "an" : "a";
      return fmt::format("{} must be {} {}", Where(path), article, what);
    }
  }
  if (auto e = schema.FindMember("enum"); e != schema.MemberEnd()) {
    bool ok = false;
    std::string list;
    for (const auto& x : e->value.GetArray()) {
      ok = ok || x == value;
      if (x.IsString()) list += (list.empty() ? "" : ", ") + std::string(x.GetString());
    }
    if (!ok) return fmt::format("{} must be one of {}", Where(path), list);
  }
  if (value.IsString()) {
    std::string_view s(value.GetString(), value.GetStringLength());
    if (!IsValidUtf8(s)) return Where(path) + " must be valid UTF-8";
    const std::size_t n = Utf8Length(s);
    if (auto m = schema.FindMember("minLength"); m != schema.MemberEnd() && n < m->value.GetUint64())
      return m->value.GetUint64() == 1 ? Where(path) + " must not be empty"
                                       : fmt::format("{} must be at least {} characters", Where(path),
                                                     m->value.GetUint64());
    if (auto m = schema.FindMember("maxLength"); m != schema.MemberEnd() && n > m->value.GetUint64())
      return fmt::format("{} must be at most {} characters (got {})", Where(path), m->value.GetUint64(), n);
  }
  if (value.IsNumber()) {
    const double d = value.GetDouble();
    if (auto m = schema.FindMember("minimum"); m != schema.MemberEnd() && d < m->value.GetDouble())
      return fmt::format("{} must be at least {}", Where(path), m->value.GetInt64());
    if (auto m = schema.FindMember("maximum"); m != schema.MemberEnd() && d > m->value.GetDouble())
      return fmt::format("{} must be at most {}", Where(path), m->value.GetInt64());
  }
  if (value.IsArray()) {
    if (auto m = schema.FindMember("minItems"); m != schema.MemberEnd() && value.Size() < m->value.GetUint())
      return fmt::format("{} must have at least {} items", Where(path), m->value.GetUint());
    if (auto m = schema.FindMember("maxItems"); m != schema.MemberEnd() && value.Size() > m->value.GetUint())
      return fmt::format("{} must have at most {} items", Where(path), m->value.GetUint());
    if (auto items = schema.FindMember("items"); items != schema.MemberEnd())
      for (rapidjson::SizeType i = 0; i < value.Size(); ++i) {
        std::string err = ValidateAgainst(items->value, value[i], fmt::format("{}[{}]", Where(path), i));
        if (!err.empty()) return err;
      }
  }
  if (value.IsObject()) {
    if (auto req = schema.FindMember("required"); req != schema.MemberEnd())
      for (const auto& r : req->value.GetArray())
        if (!value.HasMember(r.GetString()))
          return fmt::format("{} is required", path.empty() ? std::string(r.GetString())
                                                            : path + "." + r.GetString());
    auto props = schema.FindMember("properties");
    auto extra = schema.FindMember("additionalProperties");
    const bool closed = extra != schema.MemberEnd() && extra->value.IsBool() && !extra->value.GetBool();
    for (const auto& m : value.GetObject()) {
      std::string sub = path.empty() ? m.name.GetString() : path + "." + m.name.GetString();
      const rapidjson::Value* ps = nullptr;
      if (props != schema.MemberEnd()) {
        auto it = props->value.FindMember(m.name);
        if (it != props->value.MemberEnd()) ps = &it->value;
      }
      if (!ps) {
        if (closed) return fmt::format("{} is not an argument of this tool", sub);
        continue;
      }
      std::string err = ValidateAgainst(*ps, m.value, sub);
      if (!err.empty()) return err;
    }
  }
  return "";
}

}  // namespace livechat::mcp
