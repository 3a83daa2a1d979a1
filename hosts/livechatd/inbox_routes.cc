#include "inbox_routes.h"

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "web_assets.h"

namespace livechatd {

const char kInboxContentSecurityPolicy[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

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
  return "text/plain; charset=utf-8";
}

// A strong validator computed once at start: the page revalidates each file
// (Cache-Control: no-cache) and gets 304 with no body until livechatd changes.
std::string ETagOf(std::string_view content) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "\"%016zx\"", std::hash<std::string_view>{}(content));
  return buf;
}

// If-None-Match holds a list, maybe of weak validators (a proxy that
// compresses marks them W/): a GET matches weakly (RFC 9110, 13.1.2).
bool Revalidates(std::string_view header, std::string_view etag) {
  while (!header.empty()) {
    const auto comma = header.find(',');
    std::string_view tag = header.substr(0, comma);
    while (!tag.empty() && tag.front() == ' ') tag.remove_prefix(1);
    while (!tag.empty() && tag.back() == ' ') tag.remove_suffix(1);
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == etag || tag == "*") return true;
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
  return false;
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
    if (Revalidates(req.Header("if-none-match").value_or(""), etag)) {
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
