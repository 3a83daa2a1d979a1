#include "livechat/base/json_writer.h"

namespace livechat {

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
