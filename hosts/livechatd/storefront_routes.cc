#include "storefront_routes.h"

#include "host_routes.h"
#include "http_bridge.h"
#include "web_assets.h"

namespace livechatd {

void InstallStorefront(httplib::Server& server, livechat::StorefrontApi& api,
                       const std::optional<std::string>& demoAppId, bool sharedWithRest) {
  auto serve = [&api, sharedWithRest](const httplib::Request& in, httplib::Response& res) {
    CopyResponse(api.Handle(ToHttpRequest(in)), res);
    if (sharedWithRest) res.set_header("Connection", "close");
  };
  // The raw target decides (the adapter routes on it, like REST); this
  // pattern only picks the requests to hand over.
  RouteEveryMethod(server, "/storefront(/[\\s\\S]*)?", serve);

  // Any shop page may load the script; it carries no data. Short caching so
  // a new livechatd's SDK reaches pages within minutes.
  ServeGet(server, "/sdk.js", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "public, max-age=300");
    res.set_header("Access-Control-Allow-Origin", "*");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_content(std::string(web::SdkJs()), "application/javascript; charset=utf-8");
  });

  if (!demoAppId) return;
  std::string page(web::DemoHtml());
  const std::string marker = "{{APP_ID}}";
  for (auto at = page.find(marker); at != std::string::npos; at = page.find(marker, at))
    page.replace(at, marker.size(), *demoAppId);
  ServeGet(server, "/demo", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/demo/"); });
  ServeGet(server, "/demo/", [page](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content(page, "text/html; charset=utf-8");
  });
}

}  // namespace livechatd
