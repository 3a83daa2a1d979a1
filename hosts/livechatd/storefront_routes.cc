#include "storefront_routes.h"

#include <string_view>

#include "web_assets.h"

namespace livechatd {

void InstallStorefront(Site& site, livechat::StorefrontApi& api, const std::optional<std::string>& demoAppId) {
  // The raw target decides (the adapter routes on it, like REST); this only
  // picks the requests to hand over.
  site.Route(&livechat::StorefrontApi::Owns,
      [&api](livechat::HttpRequest& req) { return api.Handle(req); });

  // Any shop page may load the script; it carries no data. Short caching so
  // a new livechatd's SDK reaches pages within minutes.
  site.ServeGet("/sdk.js", [](livechat::HttpRequest&) {
    livechat::HttpResponse res;
    res.status = 200;
    res.SetHeader("Content-Type", "application/javascript; charset=utf-8");
    res.SetHeader("Cache-Control", "public, max-age=300");
    res.SetHeader("Access-Control-Allow-Origin", "*");
    res.SetHeader("X-Content-Type-Options", "nosniff");
    res.body = std::string(web::SdkJs());
    return res;
  });

  if (!demoAppId) return;
  std::string page(web::DemoHtml());
  const std::string marker = "{{APP_ID}}";
  for (auto at = page.find(marker); at != std::string::npos; at = page.find(marker, at))
    page.replace(at, marker.size(), *demoAppId);
  site.ServeGet("/demo", [](livechat::HttpRequest&) {
    livechat::HttpResponse res;
    res.status = 302;
    res.SetHeader("Location", "/demo/");
    return res;
  });
  site.ServeGet("/demo/", [page = std::move(page)](livechat::HttpRequest&) {
    livechat::HttpResponse res;
    res.status = 200;
    res.SetHeader("Content-Type", "text/html; charset=utf-8");
    res.SetHeader("Cache-Control", "no-store");
    res.body = page;
    return res;
  });
}

}  // namespace livechatd
