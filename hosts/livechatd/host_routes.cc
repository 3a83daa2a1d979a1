#include "host_routes.h"

#include <array>
#include <string_view>
#include <utility>

#include "livechat/http.h"
#include "livechat/rest.h"

namespace livechatd {
namespace {

// cpp-httplib matches patterns as regular expressions over the whole path;
// a served path is literal ("/sdk.js" must not match "/sdkxjs").
std::string Literal(const std::string& path) {
  static constexpr std::string_view kSpecial = "\\^$.|?*+()[]{}";
  std::string out;
  for (char c : path) {
    if (kSpecial.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

void RouteEveryMethod(httplib::Server& server, const std::string& pattern, const httplib::Server::Handler& handler) {
  server.Get(pattern, handler);
  server.Post(pattern, handler);
  server.Put(pattern, handler);
  server.Patch(pattern, handler);
  server.Delete(pattern, handler);
  server.Options(pattern, handler);
}

void ServeGet(httplib::Server& server, const std::string& path, httplib::Server::Handler handler) {
  const std::string pattern = Literal(path);
  static constexpr std::array<livechat::MethodRoute, 1> kMethods{{{"GET"}}};
  server.Get(pattern, std::move(handler));
  // Registered after the GET handler, which cpp-httplib tries first: this
  // answers the other methods.
  RouteEveryMethod(server, pattern, [](const httplib::Request& req, httplib::Response& res) {
    const std::string allow = livechat::MatchMethod(kMethods, req.method).allow;
    res.status = 405;
    res.set_header("Allow", allow);
    res.set_content(livechat::RestErrorBody(livechat::MethodNotAllowedError(req.method, allow)), "application/json");
  });
}

}  // namespace livechatd
