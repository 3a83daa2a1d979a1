#include <future>
#include <memory>

#include "livechat/http.h"

namespace livechat {
namespace {

// Header names are ASCII tokens (RFC 9110): folding A-Z is all their case
// takes, with no locale call per byte (every request looks up several).
char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  return true;
}

// The first value of `name`, not copied.
std::optional<std::string_view> FindHeader(const std::vector<std::pair<std::string, std::string>>& headers,
                                           std::string_view name) {
  for (const auto& [key, value] : headers)
    if (EqualsIgnoreCase(key, name)) return std::string_view(value);
  return std::nullopt;
}

std::optional<std::string> Copied(std::optional<std::string_view> v) {
  return v ? std::optional<std::string>(std::in_place, *v) : std::nullopt;
}

}  // namespace

std::optional<std::string> HttpRequest::Header(std::string_view name) const {
  return Copied(FindHeader(headers, name));
}

std::optional<std::string_view> HttpRequest::HeaderView(std::string_view name) const {
  return FindHeader(headers, name);
}

std::optional<std::string> HttpResponse::Header(std::string_view name) const {
  return Copied(FindHeader(headers, name));
}

void HttpResponse::SetHeader(std::string name, std::string value) {
  for (auto& [key, current] : headers) {
    if (EqualsIgnoreCase(key, name)) {
      current = std::move(value);
      return;
    }
  }
  // An answer carries a handful of headers (type, cache, the rate windows,
  // the request id): room for them at once, not three regrowths.
  if (headers.capacity() == 0) headers.reserve(8);
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
