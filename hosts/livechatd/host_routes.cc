#include "host_routes.h"

#include <array>
#include <string_view>

#include "livechat/rest.h"

namespace livechatd {

livechat::HttpResponse JsonResponse(int status, std::string body) {
  livechat::HttpResponse res;
  res.status = status;
  res.SetHeader("Content-Type", "application/json");
  res.body = std::move(body);
  return res;
}

void Site::ServeGet(const std::string& path, Handler handler) {
  exact_[path] = [path, handler = std::move(handler)](livechat::HttpRequest& req) {
    static constexpr std::array<livechat::MethodRoute, 1> kMethods{{{"GET"}}};
    auto match = livechat::MatchMethod(kMethods, req.method);
    if (match.row) {
      livechat::HttpResponse res = handler(req);
      res.route = path;
      return res;
    }
    livechat::HttpResponse res =
        JsonResponse(405, livechat::RestErrorBody(livechat::MethodNotAllowedError(req.method, match.allow)));
    res.SetHeader("Allow", match.allow);
    res.route = path;
    return res;
  };
}

void Site::Route(Owns owns, Handler handler) { routes_.emplace_back(std::move(owns), std::move(handler)); }

livechat::HttpResponse Site::Handle(livechat::HttpRequest& req) const {
  const std::string path = req.target.substr(0, req.target.find('?'));
  if (auto it = exact_.find(path); it != exact_.end()) return it->second(req);
  for (const auto& [owns, handler] : routes_)
    if (owns(req.target)) return handler(req);
  // Not echoed: a path that is not UTF-8 would make the body invalid JSON.
  if (!livechat::ParseTarget(req.target))
    return JsonResponse(400, livechat::RestErrorBody({livechat::ErrorCode::kInvalidParams, "malformed request target"}));
  return JsonResponse(404, livechat::RestErrorBody(
                               {livechat::ErrorCode::kNotFound, "No resource at " + path + notFoundSuffix_ + "."}));
}

}  // namespace livechatd
