#include <cctype>
#include <future>
#include <memory>

#include "livechat/http.h"

namespace livechat {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

std::optional<std::string> FindHeader(const std::vector<std::pair<std::string, std::string>>& headers,
                                      std::string_view name) {
  for (const auto& [key, value] : headers)
    if (EqualsIgnoreCase(key, name)) return value;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> HttpRequest::Header(std::string_view name) const { return FindHeader(headers, name); }

std::optional<std::string> HttpResponse::Header(std::string_view name) const { return FindHeader(headers, name); }

void HttpResponse::SetHeader(std::string name, std::string value) {
  for (auto& [key, current] : headers) {
    if (EqualsIgnoreCase(key, name)) {
      current = std::move(value);
      return;
    }
  }
  headers.emplace_back(std::move(name), std::move(value));
}

HttpResponse AwaitReply(HttpResponse res) {
  if (!res.deferred) return res;
  auto answer = std::make_shared<std::promise<HttpResponse>>();
  std::future<HttpResponse> done = answer->get_future();
  auto deferred = std::move(res.deferred);
  deferred([answer](HttpResponse r) { answer->set_value(std::move(r)); });
  return done.get();
}

Error MethodNotAllowedError(std::string_view method, std::string_view allow) {
  return MakeError(ErrorCode::kMethodNotAllowed,
                   "method " + std::string(method) + " is not allowed here; use " + std::string(allow));
}

std::vector<std::string> ParsedTarget::QueryAll(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : query)
    if (k == key) out.push_back(v);
  return out;
}

std::optional<std::string> ParsedTarget::Query(std::string_view key) const {
  for (const auto& [k, v] : query)
    if (k == key) return v;
  return std::nullopt;
}

}  // namespace livechat
