// The bridge between cpp-httplib and the transport-neutral adapters: every
// request becomes a livechat::HttpRequest (raw target, lowercase header names,
// the TCP peer) and every livechat::HttpResponse is copied back. The only code
// besides tests that includes <httplib.h>.
#pragma once

#include <chrono>
#include <cstddef>

#include <httplib.h>

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
  // cpp-httplib refuses larger bodies itself (413, before reading them).
  std::size_t transportMaxBody = 0;
  Observability obs;  // request metrics, /readyz, /openapi.json
  // The tool server at /mcp; null: not served on this listener.
  livechat::McpServer* mcp = nullptr;
  // Downloads at /files/{fileId}; null: not served on this listener.
  livechat::FileServer* files = nullptr;
  // The platform requests at /platform/...; null: not served on this listener.
  livechat::PlatformApi* platform = nullptr;
  // Bodies of every route but the uploads (/storefront/files, /api/files,
  // /api/customers/import) are refused above this (413, from Content-Length,
  // before they are read): transportMaxBody is sized for uploads, and no
  // other request should make a server thread buffer that much. 0: no check.
  std::size_t commandMaxBody = 0;
};

// Registers /healthz, /readyz (and /openapi.json when asked), a catch-all route for every method, the error and
// exception handlers, and the access logger on `server`. `rest` may be null
// (a GraphQL-only listener); `graphql` may be null. Both and `store` must
// outlive the server.
void InstallBridge(httplib::Server& server, livechat::RestApi* rest, livechat::GraphQLApi* graphql,
                   livechat::Store& store, const BridgeOptions& options);

// The request id on every response, the refusal of bodies over
// `options.commandMaxBody` (answered by `rest`, when given, on its paths), and
// the access log and request metrics (as `options` asks). InstallBridge calls
// it; the admin listener does too.
void InstallRequestHooks(httplib::Server& server, const BridgeOptions& options, livechat::RestApi* rest = nullptr);

// The request as the adapters see it. Exposed for tests of the bridge.
livechat::HttpRequest ToHttpRequest(const httplib::Request& in);
// An adapter's response copied onto cpp-httplib's (framing headers dropped).
// A streamed one (HttpResponse::stream) becomes a chunked response whose
// connection closes when the stream ends.
void CopyResponse(livechat::HttpResponse&& from, httplib::Response& to);

// A blocking send on any of `server`'s connections gives up after `timeout`
// (SO_SNDTIMEO, set on the listening socket before it binds, inherited by
// every accepted one): a client that stops reading cannot hold a thread in
// send(). cpp-httplib's own write timeout only bounds the wait before it.
void SetSendTimeout(httplib::Server& server, std::chrono::milliseconds timeout);

}  // namespace livechatd
