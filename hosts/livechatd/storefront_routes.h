// The storefront on a livechatd listener: /storefront/... (the widget's API),
// /sdk.js (the browser SDK) and, with --demo, /demo/ (a shop page embedding
// it).
#pragma once

#include <optional>
#include <string>

#include "host_routes.h"
#include "livechat/storefront.h"

namespace livechatd {

// `api` must outlive the listener. `demoAppId`: serve /demo/ for that store.
void InstallStorefront(Site& site, livechat::StorefrontApi& api, const std::optional<std::string>& demoAppId);

}  // namespace livechatd
