// In-process tool-server fixture: the REST fixture's store, clock and
// service with an McpServer in front, the sample catalog loaded, and helpers
// that speak JSON-RPC over the HttpRequest/HttpResponse seam.
#pragma once

#include <fstream>
#include <sstream>

#include "livechat/address_policy.h"
#include "livechat/mcp.h"
#include "mcp/json_schema.h"
#include "mcp/tools.h"
#include "support/rest_fixture.h"
#include "support/sample_catalog.h"

namespace livechat::testing {

// A parsed JSON-RPC exchange.
struct RpcReply {
  HttpResponse raw;
  rapidjson::Document json;  // null document when the body is empty
  int status() const { return raw.status; }
  const rapidjson::Value& result() const { return At(json, "result"); }
  int errorCode() const { return At(At(json, "error"), "code").GetInt(); }
  std::string errorMessage() const { return Str(At(At(json, "error"), "message")); }
};

// Declared first so it outlives the service that points at it.
struct McpResolverHolder {
  TableResolver resolver_;
  McpResolverHolder() { resolver_.Set("hooks.example.com", {"93.184.216.34"}); }
};

class McpFixture : private McpResolverHolder, public RestFixture {
 public:
  explicit McpFixture(McpOptions options = {}, bool loadCatalog = true)
      : RestFixture(RelaxedLimits(), RestOptions{}, &resolver_),
        mcp_(std::make_unique<McpServer>(service(), std::move(options))) {
    if (loadCatalog) Must(service().knowledge().ImportCatalog(sys, ReadSampleCatalog()));
    mcpKey = NewKey(kAllRestPerms);
  }

  McpServer& mcp() { return *mcp_; }

  HttpRequest McpRequest(const std::string& body, const std::string& apiKey = "", const std::string& appId = "") const {
    HttpRequest req;
    req.method = "POST";
    req.target = "/mcp";
    req.body = body;
    req.peerIp = "203.0.113.9";
    req.headers = {{"x-app-id", appId.empty() ? shop.appId : appId},
                   {"authorization", "Bearer " + (apiKey.empty() ? mcpKey : apiKey)},
                   {"content-type", "application/json"},
                   {"accept", "application/json, text/event-stream"}};
    return req;
  }
  RpcReply Send(const HttpRequest& req) {
    RpcReply r;
    r.raw = mcp_->Handle(req);
    if (!r.raw.body.empty()) r.json = ParseJson(r.raw.body);
    return r;
  }
  RpcReply Rpc(const std::string& method, const std::string& paramsJson = "{}", const std::string& apiKey = "") {
    return Send(McpRequest(R"({"jsonrpc":"2.0","id":7,"method":")" + method + R"(","params":)" + paramsJson + "}",
                           apiKey));
  }
  // tools/call: the result object (content, structuredContent, isError).
  RpcReply CallTool(const std::string& name, const std::string& argsJson, const std::string& apiKey = "") {
    RpcReply r = Rpc("tools/call", R"({"name":")" + name + R"(","arguments":)" + argsJson + "}", apiKey);
    REQUIRE_MESSAGE(r.status() == 200, r.raw.body);
    return r;
  }
  // structuredContent of a successful call (fails the test otherwise).
  rapidjson::Document ToolOk(const std::string& name, const std::string& argsJson, const std::string& apiKey = "") {
    RpcReply r = CallTool(name, argsJson, apiKey);
    const auto& res = r.result();
    REQUIRE_MESSAGE(!At(res, "isError").GetBool(), r.raw.body);
    // The text content carries the same JSON as structuredContent.
    rapidjson::Document fromText = ParseJson(Str(At(At(At(res, "content"), 0), "text")));
    rapidjson::Document out;
    out.CopyFrom(At(res, "structuredContent"), out.GetAllocator());
    CHECK(fromText == out);
    // structuredContent conforms to the outputSchema the tool publishes.
    const mcp::Tool* tool = mcp::FindTool(name);
    REQUIRE(tool);
    CHECK_MESSAGE(mcp::ValidateAgainst(tool->outputSchema, out, "").empty(),
                  mcp::ValidateAgainst(tool->outputSchema, out, ""));
    return out;
  }
  // The error text of a failed call (fails the test when it succeeded).
  std::string ToolError(const std::string& name, const std::string& argsJson, const std::string& apiKey = "") {
    RpcReply r = CallTool(name, argsJson, apiKey);
    const auto& res = r.result();
    REQUIRE_MESSAGE(At(res, "isError").GetBool(), r.raw.body);
    CHECK_FALSE(res.HasMember("structuredContent"));
    return Str(At(At(At(res, "content"), 0), "text"));
  }
  std::vector<std::string> ToolNames(const std::string& apiKey = "") {
    RpcReply r = Rpc("tools/list", "{}", apiKey);
    REQUIRE_MESSAGE(r.status() == 200, r.raw.body);
    return Column(At(r.result(), "tools"), "name");
  }
  void Switch(const std::string& patchJson) { Must(service().knowledge().UpdateAiSettings(sys, patchJson)); }
  void SetPlan(Plan plan) {
    Shop s = shop;
    s.plan = plan;
    Must(store().Write([&](StoreWriter& w) -> Status {
      auto ok = w.UpdateShop(s);
      if (!ok.ok()) return ok.take_error();
      return Status::Ok();
    }));
  }
  Conversation Playground(const std::string& text) {
    InboundMessageInput in;
    in.channel = "playground";
    in.customerName = "Tester";
    in.text = text;
    return Inbound(in);
  }

  std::string mcpKey;  // Read + Manage conversations + Read customers: no admin permission

 private:
  std::unique_ptr<McpServer> mcp_;
};

inline bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace livechat::testing
