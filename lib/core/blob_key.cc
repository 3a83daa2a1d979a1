#include "livechat/blob_store.h"

namespace livechat {

bool IsValidBlobKey(std::string_view key) {
  if (key.empty() || key.size() > 255) return false;
  std::size_t start = 0;
  while (start <= key.size()) {
    std::size_t slash = key.find('/', start);
    std::string_view seg = key.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (seg.empty() || seg == "." || seg == "..") return false;
    for (char c : seg) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                c == '.';
      if (!ok) return false;
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

}  // namespace livechat
