// The storefront on livechatd's listener: /storefront/... (the widget's API),
// /sdk.js (the browser SDK) and, with --demo, /demo/ (a shop page embedding
// it). Registered before InstallBridge, because cpp-httplib tries routes in
// registration order and the bridge's catch-all would take them.
#pragma once

#include <optional>
#include <string>

#include <httplib.h>

#include "livechat/storefront.h"

namespace livechatd {

// `api` must outlive the server. `demoAppId`: serve /demo/ for that store.
// `sharedWithRest`: the listener also serves the REST API, so every
// storefront answer closes its connection: cpp-httplib keeps a keep-alive
// connection on a worker thread between requests, and hundreds of open
// widgets would otherwise hold every thread (measured in bench/RESULTS.md).
void InstallStorefront(httplib::Server& server, livechat::StorefrontApi& api,
                       const std::optional<std::string>& demoAppId, bool sharedWithRest);

}  // namespace livechatd
