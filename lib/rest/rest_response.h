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

// A JSON array of items rendered by `render`.
template <typename T, typename F>
std::string JsonArray(const std::vector<T>& items, F render) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out.push_back(',');
    out += render(items[i]);
  }
  out.push_back(']');
  return out;
}

}  // namespace livechat::rest
