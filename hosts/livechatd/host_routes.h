// What one of livechatd's listeners serves, as a table: resources the
// listener answers itself at exact paths (the probes, /metrics,
// /openapi.json, /sdk.js, /demo/), then the adapters, each taking the
// targets it owns, then a 404 for the rest. Transport-neutral: the table
// maps an HttpRequest to an HttpResponse, and http_server.h carries them.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "livechat/http.h"

namespace livechatd {

// A JSON answer (Content-Type: application/json).
livechat::HttpResponse JsonResponse(int status, std::string body);

class Site {
 public:
  using Handler = std::function<livechat::HttpResponse(livechat::HttpRequest&)>;
  using Owns = std::function<bool(const std::string& target)>;

  // GET (and so HEAD) at exactly `path` (the raw path, no query); any other
  // method is 405 METHOD_NOT_ALLOWED with `Allow: GET`.
  void ServeGet(const std::string& path, Handler handler);
  // Every request whose raw target `owns`; tried in the order registered,
  // after the exact paths.
  void Route(Owns owns, Handler handler);
  // What answers a request nothing above took (default: 404 NOT_FOUND
  // "No resource at PATH<suffix>.").
  void SetNotFoundSuffix(std::string suffix) { notFoundSuffix_ = std::move(suffix); }

  livechat::HttpResponse Handle(livechat::HttpRequest& req) const;

 private:
  std::unordered_map<std::string, Handler> exact_;
  std::vector<std::pair<Owns, Handler>> routes_;
  std::string notFoundSuffix_;
};

}  // namespace livechatd
