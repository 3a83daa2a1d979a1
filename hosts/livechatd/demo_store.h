// --demo: a demo store created once per database file.
//
// The key of a store cannot be read back (only its hash is stored), so the
// first start writes the demo shop id and its key to a marker file beside the
// database, `<db>.demo.json` (mode 0600). Later starts read the marker, check
// that the shop still exists and the key still authenticates, and print the
// same key again without writing anything. A revoked demo key is replaced by
// a new one on the same shop; a marker naming a shop the database does not
// have (the database was deleted) is ignored and a new demo is created.
#pragma once

#include <string>

#include "livechat/chat_service.h"
#include "livechat/result.h"

namespace livechatd {

struct DemoStore {
  std::string shopId;
  std::string shopName;
  std::string apiKey;  // the sk_ value
  std::string appId;   // the public App ID (GraphQL x-api-id, MCP X-App-Id)
  bool created = false;  // false: found from an earlier start
};

// For ":memory:" no marker is written: every start creates the demo.
livechat::Result<DemoStore> EnsureDemoStore(livechat::ChatService& service, const std::string& dbPath);

std::string DemoMarkerPath(const std::string& dbPath);

}  // namespace livechatd
