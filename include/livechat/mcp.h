// The tool server: MCP (Model Context Protocol) over Streamable HTTP at
// POST /mcp, through which an AI agent runs a store's live chat.
//
// JSON-RPC 2.0; protocol versions 2025-11-25 (preferred), 2025-06-18 and
// 2025-03-26. Credentials: X-App-Id (the store's App ID) and
// `Authorization: Bearer sk_...` (a key of that store). The tools offered
// depend on the store's switches and plan and on the key's permissions,
// re-read on every request (docs/mcp.md has the table).
//
// Thread-safe: one McpServer serves every request of the process.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/chat_service.h"
#include "livechat/http.h"

#include "livechat/mcp_sessions.h"

namespace livechat {

struct McpOptions {
  std::size_t maxBodyBytes = 1 << 20;  // 413 above this
  // Browser origins allowed to call /mcp (DNS-rebinding defence). A request
  // without an Origin header (every server-side agent) is allowed; one with
  // an Origin not listed here gets 403.
  std::vector<std::string> allowedOrigins;
  // Sessions issued by initialize and kept in memory, per store; a store's
  // oldest is forgotten above this many (its client then gets 404 and
  // initializes again, as the protocol prescribes). Other stores' sessions
  // are never touched.
  std::size_t maxSessionsPerStore = 1'000;
  // Where sessions are kept; null: in this process. Several instances on one
  // database pass the database's (OpenPostgresMcpSessions). Not owned.
  McpSessions* sessions = nullptr;
  std::string serverVersion = "0.1.0";
};

class McpServer {
 public:
  McpServer(ChatService& service, McpOptions options);
  ~McpServer();
  McpServer(const McpServer&) = delete;
  McpServer& operator=(const McpServer&) = delete;

  // True for "/mcp" (with or without a query string).
  static bool Owns(std::string_view target);
  HttpResponse Handle(const HttpRequest& req);

  // The protocol versions this server speaks, newest first.
  static const std::vector<std::string>& SupportedVersions();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace livechat
