// libFuzzer target: the MCP tool server's HTTP framing and JSON-RPC (single
// messages and batches, initialize, tools/list, tools/call with every tool's
// arguments), as an AI agent's client sends them. The store's App ID and a
// Bearer key are sent unless the input carries its own.
#include "fuzz/fuzz_http.h"
#include "livechat/mcp.h"

using namespace livechat;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::World* world = new fuzz::World();
  static McpServer* mcp = new McpServer(*world->service, McpOptions{});
  const HttpRequest req = fuzz::ReadRequest(*world, std::string_view(reinterpret_cast<const char*>(data), size),
                                            {{"x-app-id", "$APP"},
                                             {"authorization", "Bearer $KEY"},
                                             {"content-type", "application/json"},
                                             {"accept", "application/json, text/event-stream"}});
  fuzz::CheckResponse(mcp->Handle(req));
  return 0;
}
