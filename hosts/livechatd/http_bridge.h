// The adapters on a listener: which of them a listener serves (InstallBridge)
// and what every request on it gets around the adapter (MakeHandlers): a
// request id, the early refusal of oversized command bodies, the access log
// and the request metrics, and JSON bodies for the refusals of the transport.
#pragma once

#include <cstddef>

#include "host_routes.h"
#include "http_server.h"
#include "livechat/file_server.h"
#include "livechat/graphql_api.h"
#include "livechat/mcp.h"
#include "livechat/platform.h"
#include "livechat/rest.h"
#include "livechat/store.h"
#include "observability.h"

namespace livechatd {

struct BridgeOptions {
  bool accessLog = true;
  Observability obs;  // request metrics, /readyz, /openapi.json
  // The tool server at /mcp; null: not served on this listener.
  livechat::McpServer* mcp = nullptr;
  // Downloads at /files/{fileId}; null: not served on this listener.
  livechat::FileServer* files = nullptr;
  // The platform requests at /platform/...; null: not served on this listener.
  livechat::PlatformApi* platform = nullptr;
  // Bodies of every route but the uploads (/storefront/files, /api/files,
  // /api/customers/import, /api/chat/conversations/{id}/files) are refused above this (413, from Content-Length,
  // before they are read): the transport's limit is sized for uploads, and
  // no other request should make the server buffer that much. 0: no check.
  std::size_t commandMaxBody = 0;
  // When set, the REST API's bounded reads (RestApi::IsBoundedRead) run on
  // the listener's I/O threads, not its workers, whenever this store can
  // read without waiting (Store::CanReadWithoutWaiting): a read that waited
  // would hold up every connection of that I/O thread. Null: none do.
  livechat::Store* inlineReads = nullptr;
};

// Registers /healthz, /readyz (and /openapi.json when asked) and the
// adapters given (`rest` and `graphql` may be null). All must outlive the
// listener.
void InstallBridge(Site& site, livechat::RestApi* rest, livechat::GraphQLApi* graphql, livechat::Store& store,
                   const BridgeOptions& options);

// The handlers of a listener serving `site` (which must outlive it). `rest`,
// when given, answers the early 413 on its own paths (counted, with the
// rate-limit headers).
HttpHandlers MakeHandlers(const Site& site, const BridgeOptions& options, livechat::RestApi* rest = nullptr);

// The upload routes, whose bodies may reach the transport's limit.
bool IsUploadTarget(const std::string& target);

}  // namespace livechatd
