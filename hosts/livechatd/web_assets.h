// The browser SDK, the demo page and the agent inbox, embedded at build time
// from hosts/livechatd/web/ (cmake/embed_web.cmake writes web_assets.cc,
// cmake/embed_dir.cmake inbox_assets.cc).
#pragma once

#include <span>
#include <string_view>

namespace livechatd::web {

// One file of a folder compiled in by cmake/embed_dir.cmake.
struct File {
  std::string_view path;     // relative to the folder, '/'-separated
  std::string_view content;
};

std::string_view SdkJs();     // /sdk.js
std::string_view DemoHtml();  // /demo/, with "{{APP_ID}}" where the demo store's App ID goes
std::span<const File> InboxFiles();  // hosts/livechatd/web/inbox/, served at /inbox/

}  // namespace livechatd::web
