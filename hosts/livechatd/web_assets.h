// The browser SDK and the demo page, embedded at build time from
// hosts/livechatd/web/ (cmake/embed_web.cmake writes web_assets.cc).
#pragma once

#include <string_view>

namespace livechatd::web {

std::string_view SdkJs();     // /sdk.js
std::string_view DemoHtml();  // /demo/, with "{{APP_ID}}" where the demo store's App ID goes

}  // namespace livechatd::web
