// Response shaping for the REST adapter: the success envelope, the error
// body, and the headers every JSON response carries.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/http.h"
#include "livechat/result.h"

namespace livechat::rest {

// `status` with `body` as application/json; charset=utf-8.
HttpResponse JsonResponse(int status, std::string body);
// The error body with the status of RestStatusFor. Internal errors are logged
// here (their detail never reaches the client).
HttpResponse ErrorResponse(const Error& e);
// 405 METHOD_NOT_ALLOWED with `Allow: <allow>` (a RouteMatch's allow).
HttpResponse MethodNotAllowed(std::string_view method, const std::string& allow);

// {"data":<dataJson>}
std::string DataEnvelope(std::string_view dataJson);
// {"data":<itemsJson>,"paging":{"nextCursor":..,"hasMore":..}}
std::string PagedEnvelope(std::string_view itemsJson, const std::optional<std::string>& nextCursor, bool hasMore);
// Appends ,"paging":{"nextCursor":..,"hasMore":..}} (the envelope's end).
void AppendPaging(std::string& out, const std::optional<std::string>& nextCursor, bool hasMore);

// Appends a JSON array of items, each written by `append(out, item)`. Once
// the first item is written, room for the rest at that size (and an eighth
// more) is reserved, so a page's buffer grows about once instead of doubling
// its way up with a copy each time.
template <typename T, typename F>
void AppendJsonArray(std::string& out, const std::vector<T>& items, F append) {
  out.push_back('[');
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out.push_back(',');
    const std::size_t before = out.size();
    append(out, items[i]);
    if (i == 0 && items.size() > 1) {
      const std::size_t each = out.size() - before + 1;
      out.reserve(out.size() + each * (items.size() - 1) / 8 * 9 + 64);
    }
  }
  out.push_back(']');
}

// A JSON array of items rendered by `render` (which returns each one's JSON).
template <typename T, typename F>
std::string JsonArray(const std::vector<T>& items, F render) {
  std::string out;
  AppendJsonArray(out, items, [&render](std::string& o, const T& item) { o += render(item); });
  return out;
}

// {"data":[..],"paging":{..}} with the items written by `append(out, item)`
// straight into the body: one buffer for the whole page.
template <typename T, typename F>
std::string PagedBody(const std::vector<T>& items, F append, const std::optional<std::string>& nextCursor,
                      bool hasMore) {
  std::string out = "{\"data\":";
  AppendJsonArray(out, items, append);
  AppendPaging(out, nextCursor, hasMore);
  return out;
}

}  // namespace livechat::rest
