// The agent inbox on livechatd's API listener: /inbox/ and its files, compiled
// into the binary (hosts/livechatd/web/inbox/, docs/inbox.md). The page talks
// to /api/... on the same origin with the session cookie; nothing it loads
// comes from anywhere else, and its Content-Security-Policy says so.
#pragma once

#include "host_routes.h"

namespace livechatd {

// The policy every inbox file is served with: scripts, styles, images and
// requests from this origin only, no inline script or style, no framing.
extern const char kInboxContentSecurityPolicy[];

void InstallInbox(Site& site);

}  // namespace livechatd
