#include "inbox_routes.h"

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "web_assets.h"

namespace livechatd {

const char kInboxContentSecurityPolicy[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self'; "
    "connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

namespace {

std::string_view ContentType(std::string_view path) {
  auto ends = [&](std::string_view ext) {
    return path.size() >= ext.size() && path.substr(path.size() - ext.size()) == ext;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js") || ends(".mjs")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".json")) return "application/json";
  if (ends(".png")) return "image/png";
  return "text/plain; charset=utf-8";
}

// A strong validator computed once at start: the page revalidates each file
// (Cache-Control: no-cache) and gets 304 with no body until livechatd changes.
std::string ETagOf(std::string_view content) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "\"%016zx\"", std::hash<std::string_view>{}(content));
  return buf;
}

void ServeFile(Site& site, const std::string& path, const web::File& file) {
  site.ServeGet(path, [type = ContentType(file.path), body = file.content,
                       etag = ETagOf(file.content)](livechat::HttpRequest& req) {
    livechat::HttpResponse res;
    res.SetHeader("Content-Type", std::string(type));
    res.SetHeader("Content-Security-Policy", kInboxContentSecurityPolicy);
    res.SetHeader("X-Content-Type-Options", "nosniff");
    res.SetHeader("Referrer-Policy", "no-referrer");
    res.SetHeader("X-Frame-Options", "DENY");
    res.SetHeader("Cache-Control", "no-cache");
    res.SetHeader("ETag", etag);
    if (req.Header("if-none-match").value_or("") == etag) {
      res.status = 304;
      return res;
    }
    res.status = 200;
    res.body = std::string(body);
    return res;
  });
}

}  // namespace

void InstallInbox(Site& site) {
  site.ServeGet("/inbox", [](livechat::HttpRequest&) {
    livechat::HttpResponse res;
    res.status = 301;
    res.SetHeader("Location", "/inbox/");
    return res;
  });
  for (const web::File& file : web::InboxFiles()) {
    if (file.path.empty()) continue;
    ServeFile(site, "/inbox/" + std::string(file.path), file);
    if (file.path == "index.html") ServeFile(site, "/inbox/", file);
  }
}

}  // namespace livechatd
