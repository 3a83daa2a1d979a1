#include "livechat/base/json_writer.h"

#include <algorithm>

namespace livechat {

JsonKey::JsonKey(std::string_view k) : data_(k.data()), size_(k.size()), plain_(!JsonNeedsEscape(k)) {}

void JsonObject::Open(std::size_t n) {
  Cursor& c = *cursor_;
  const std::size_t used = c.p ? static_cast<std::size_t>(c.p - out_.data()) : out_.size();
  // Room for a record or so at a time (a list page's are about 1 KB), less
  // while an object of its own is small: the room is zeroed when added.
  const std::size_t room = std::max(n, std::clamp<std::size_t>(used, 128, 1024));
  if (out_.capacity() < used + room) out_.reserve(std::max(used + room, 2 * out_.capacity()));
  out_.resize(used + room);
  c.p = out_.data() + used;
  c.end = out_.data() + out_.size();
}

void JsonObject::Close() {
  Cursor& c = *cursor_;
  if (c.p) out_.resize(static_cast<std::size_t>(c.p - out_.data()));
  c.p = c.end = nullptr;
}

char* JsonObject::EscapedKey(JsonKey k, bool comma, std::size_t room) {
  char* p = Room(6 * k.size() + 4 + room);
  if (comma) *p++ = ',';
  p = PutJsonString(p, std::string_view(k.data(), k.size()));
  *p++ = ':';
  return p;
}

void AppendJsonStringArray(std::string& out, const std::vector<std::string>& v) {
  out.push_back('[');
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out.push_back(',');
    AppendJsonString(out, v[i]);
  }
  out.push_back(']');
}

void AppendJsonStringMap(std::string& out, const std::map<std::string, std::string>& m) {
  out.push_back('{');
  bool first = true;
  for (const auto& [k, v] : m) {
    if (!first) out.push_back(',');
    first = false;
    AppendJsonString(out, k);
    out.push_back(':');
    AppendJsonString(out, v);
  }
  out.push_back('}');
}

}  // namespace livechat
