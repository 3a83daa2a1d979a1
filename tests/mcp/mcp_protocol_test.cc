// The tool server's transport and JSON-RPC layer: versions, sessions,
// headers, credentials, malformed messages.
#include "mcp/mcp_fixture.h"

using namespace livechat;
using namespace livechat::testing;

namespace {

std::string Init(const std::string& version) {
  return R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":")" + version +
         R"(","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
}

}  // namespace

TEST_CASE("initialize negotiates 2025-11-25, 2025-06-18 and 2025-03-26, and offers its newest otherwise") {
  McpFixture f;
  for (const std::string v : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
    RpcReply r = f.Send(f.McpRequest(Init(v)));
    REQUIRE(r.status() == 200);
    CHECK(r.raw.Header("content-type") == "application/json");
    CHECK(Str(At(r.result(), "protocolVersion")) == v);
    CHECK(At(At(r.result(), "capabilities"), "tools").IsObject());
    CHECK(Str(At(At(r.result(), "serverInfo"), "name")) == "livechat");
    CHECK(At(r.json, "id").GetInt() == 1);
    CHECK(Str(At(r.json, "jsonrpc")) == "2.0");
    REQUIRE(r.raw.Header("mcp-session-id").has_value());
    CHECK(r.raw.Header("mcp-session-id")->size() == 32);
  }
  RpcReply old = f.Send(f.McpRequest(Init("2024-11-05")));
  CHECK(Str(At(old.result(), "protocolVersion")) == "2025-11-25");
}

TEST_CASE("notifications/initialized and client responses are accepted with 202 and no body") {
  McpFixture f;
  RpcReply n = f.Send(f.McpRequest(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  CHECK(n.status() == 202);
  CHECK(n.raw.body.empty());
  RpcReply resp = f.Send(f.McpRequest(R"({"jsonrpc":"2.0","id":"s1","result":{}})"));
  CHECK(resp.status() == 202);
}

TEST_CASE("ping answers an empty result and echoes string ids") {
  McpFixture f;
  RpcReply r = f.Send(f.McpRequest(R"({"jsonrpc":"2.0","id":"abc","method":"ping"})"));
  REQUIRE(r.status() == 200);
  CHECK(Str(At(r.json, "id")) == "abc");
  CHECK(r.result().IsObject());
  CHECK(r.result().MemberCount() == 0);
}

TEST_CASE("sessions: an issued id is accepted, an unknown one is 404, DELETE ends it") {
  McpFixture f;
  RpcReply init = f.Send(f.McpRequest(Init("2025-06-18")));
  const std::string sid = *init.raw.Header("mcp-session-id");
  HttpRequest req = f.McpRequest(R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
  req.headers.emplace_back("mcp-session-id", sid);
  CHECK(f.Send(req).status() == 200);

  HttpRequest unknown = f.McpRequest(R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
  unknown.headers.emplace_back("mcp-session-id", "00000000000000000000000000000000");
  RpcReply u = f.Send(unknown);
  CHECK(u.status() == 404);
  CHECK(u.errorCode() == -32000);

  // A session belongs to the store that opened it.
  Shop other = f.NewShop("Other");
  std::string otherKey = f.NewKey(kAllRestPerms, false, other.id);
  HttpRequest cross = f.McpRequest(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", otherKey, other.appId);
  cross.headers.emplace_back("mcp-session-id", sid);
  CHECK(f.Send(cross).status() == 404);

  HttpRequest del = f.McpRequest("");
  del.method = "DELETE";
  del.headers.emplace_back("mcp-session-id", sid);
  CHECK(f.Send(del).status() == 204);
  CHECK(f.Send(req).status() == 404);
  // Without a session header the server still answers (sessions are optional).
  CHECK(f.Send(f.McpRequest(R"({"jsonrpc":"2.0","id":3,"method":"ping"})")).status() == 200);
}

TEST_CASE("a store's oldest session is forgotten above its cap; other stores' sessions are untouched") {
  McpOptions o;
  o.maxSessionsPerStore = 2;
  McpFixture f(o, false);
  Shop other = f.NewShop("Other");
  const std::string otherKey = f.NewKey(kAllRestPerms, false, other.id);
  auto open = [&](const std::string& key, const std::string& app) {
    return *f.Send(f.McpRequest(Init("2025-11-25"), key, app)).raw.Header("mcp-session-id");
  };
  auto ping = [&](const std::string& sid, const std::string& key = "", const std::string& app = "") {
    HttpRequest r = f.McpRequest(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", key, app);
    r.headers.emplace_back("mcp-session-id", sid);
    return f.Send(r).status();
  };
  const std::string theirs = open(otherKey, other.appId);
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(open("", ""));
  CHECK(ping(ids[0]) == 404);
  CHECK(ping(ids[1]) == 200);
  CHECK(ping(ids[2]) == 200);
  CHECK(ping(theirs, otherKey, other.appId) == 200);
  // An ended session frees its place.
  HttpRequest del = f.McpRequest("");
  del.method = "DELETE";
  del.headers.emplace_back("mcp-session-id", ids[1]);
  CHECK(f.Send(del).status() == 204);
  const std::string next = open("", "");
  CHECK(ping(ids[2]) == 200);
  CHECK(ping(next) == 200);
}

TEST_CASE("a protocol version header that differs from the session's is 400") {
  McpFixture f(McpOptions{}, false);
  const std::string sid = *f.Send(f.McpRequest(Init("2025-06-18"))).raw.Header("mcp-session-id");
  HttpRequest req = f.McpRequest(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
  req.headers.emplace_back("mcp-session-id", sid);
  req.headers.emplace_back("mcp-protocol-version", "2025-11-25");
  RpcReply r = f.Send(req);
  CHECK(r.status() == 400);
  CHECK(r.errorMessage() == "MCP-Protocol-Version 2025-11-25 differs from the session's 2025-06-18");
  for (auto& h : req.headers)
    if (h.first == "mcp-protocol-version") h.second = "2025-06-18";
  CHECK(f.Send(req).status() == 200);
}

TEST_CASE("hostile bodies: deep nesting, invalid UTF-8, huge numbers, oversized batches") {
  McpFixture f(McpOptions{}, false);
  // 100,000 levels would overflow a recursive parser's stack; 65 is refused.
  RpcReply deep = f.Send(f.McpRequest(std::string(100'000, '[') + std::string(100'000, ']')));
  CHECK(deep.status() == 400);
  CHECK(deep.errorCode() == -32600);
  std::string nest64 = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":)" + std::string(62, '[') +
                       std::string(62, ']') + "}}";  // 64 levels: root, params, 62 arrays
  CHECK(f.Send(f.McpRequest(nest64)).status() == 200);
  std::string nest65 = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":)" + std::string(63, '[') +
                       std::string(63, ']') + "}}";
  CHECK(f.Send(f.McpRequest(nest65)).errorCode() == -32600);

  RpcReply utf = f.Send(f.McpRequest("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}"));
  CHECK(utf.status() == 400);
  CHECK(utf.errorCode() == -32700);

  CHECK(f.ToolError("list_conversations", R"({"limit":1e300})") == "INVALID_PARAMS: limit must be an integer");
  CHECK(f.ToolError("list_conversations", R"({"limit":1.5})") == "INVALID_PARAMS: limit must be an integer");
  CHECK(At(f.ToolOk("list_conversations", R"({"limit":1e3})"), "conversations").Size() == 0);

  auto batch = [](int n) {
    std::string b = "[";
    for (int i = 0; i < n; ++i) b += std::string(i ? "," : "") + R"({"jsonrpc":"2.0","id":)" + std::to_string(i) + R"(,"method":"ping"})";
    return b + "]";
  };
  HttpRequest ok = f.McpRequest(batch(100));
  ok.headers.emplace_back("mcp-protocol-version", "2025-03-26");
  RpcReply hundred = f.Send(ok);
  REQUIRE(hundred.status() == 200);
  CHECK(hundred.json.Size() == 100);
  HttpRequest over = f.McpRequest(batch(101));
  over.headers.emplace_back("mcp-protocol-version", "2025-03-26");
  RpcReply refused = f.Send(over);
  CHECK(refused.status() == 400);
  CHECK(refused.errorMessage() == "Invalid Request: a batch holds at most 100 messages");
  HttpRequest init = f.McpRequest("[" + Init("2025-03-26") + "]");
  init.headers.emplace_back("mcp-protocol-version", "2025-03-26");
  CHECK(f.Send(init).errorMessage() == "Invalid Request: initialize must not be part of a batch");
}

TEST_CASE("a malformed message without an id (not a request) is 400") {
  McpFixture f(McpOptions{}, false);
  RpcReply r = f.Send(f.McpRequest(R"({"jsonrpc":"2.0","method":5})"));
  CHECK(r.status() == 400);
  CHECK(r.errorCode() == -32600);
  CHECK(f.Send(f.McpRequest(R"({"jsonrpc":"1.0","method":"notifications/initialized"})")).status() == 400);
}

TEST_CASE("GET and other methods are 405 with Allow") {
  McpFixture f;
  for (const char* m : {"GET", "PUT", "PATCH", "OPTIONS"}) {
    HttpRequest req = f.McpRequest("");
    req.method = m;
    RpcReply r = f.Send(req);
    CHECK(r.status() == 405);
    CHECK(r.raw.Header("allow") == "POST, DELETE");
  }
}

TEST_CASE("Origin: absent or listed is served, any other is 403") {
  McpOptions o;
  o.allowedOrigins = {"https://agent.example.com"};
  McpFixture f(o, false);
  HttpRequest listed = f.McpRequest(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
  listed.headers.emplace_back("origin", "https://agent.example.com");
  CHECK(f.Send(listed).status() == 200);
  HttpRequest evil = f.McpRequest(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
  evil.headers.emplace_back("origin", "http://evil.example");
  RpcReply r = f.Send(evil);
  CHECK(r.status() == 403);
  CHECK(r.errorMessage() == "Origin http://evil.example is not allowed");
}

TEST_CASE("Accept must allow application/json; Content-Type must be application/json") {
  McpFixture f(McpOptions{}, false);
  HttpRequest req = f.McpRequest(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
  for (auto& h : req.headers)
    if (h.first == "accept") h.second = "text/event-stream";
  CHECK(f.Send(req).status() == 406);
  for (auto& h : req.headers)
    if (h.first == "accept") h.second = "*/*";
  CHECK(f.Send(req).status() == 200);
  for (auto& h : req.headers)
    if (h.first == "content-type") h.second = "text/plain";
  CHECK(f.Send(req).status() == 415);
  for (auto& h : req.headers)
    if (h.first == "content-type") h.second = "application/json; charset=utf-8";
  CHECK(f.Send(req).status() == 200);
  // The shared JSON rule: the type in any case, charset utf-8 only.
  const std::vector<std::pair<std::string, int>> typed = {{"Application/JSON; charset=UTF-8", 200},
                                                          {"application/json;charset=latin1", 415}};
  for (const auto& [type, status] : typed) {
    const std::string& contentType = type;  // clang 14 cannot capture a structured binding
    CAPTURE(contentType);
    HttpRequest r = f.McpRequest(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
    r.headers[2].second = type;  // the content-type
    CHECK(f.Send(r).status() == status);
  }
}

TEST_CASE("MCP-Protocol-Version: supported values pass, others are 400") {
  McpFixture f(McpOptions{}, false);
  for (const std::string v : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
    HttpRequest req = f.McpRequest(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
    req.headers.emplace_back("mcp-protocol-version", v);
    CHECK(f.Send(req).status() == 200);
  }
  for (const std::string v : {"1900-01-01", "not-a-version", "2024-11-05"}) {
    HttpRequest req = f.McpRequest(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
    req.headers.emplace_back("mcp-protocol-version", v);
    RpcReply r = f.Send(req);
    CHECK(r.status() == 400);
    CHECK(r.errorMessage().find("Unsupported MCP-Protocol-Version " + v) == 0);
  }
}

TEST_CASE("credentials: X-App-Id plus a bearer key of that store, else 401") {
  McpFixture f(McpOptions{}, false);
  const std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  HttpRequest none = f.McpRequest(ping);
  none.headers = {{"content-type", "application/json"}};
  RpcReply r = f.Send(none);
  CHECK(r.status() == 401);
  CHECK(r.raw.Header("www-authenticate") == "Bearer realm=\"livechat-mcp\"");
  CHECK(r.errorMessage().find("Unauthenticated") == 0);

  CHECK(f.Send(f.McpRequest(ping, "sk_00000000000000000000000000000000")).status() == 401);
  CHECK(f.Send(f.McpRequest(ping, "", "app_unknown")).status() == 401);
  // A key of another store with this store's App ID: 401, never this store's tools.
  Shop other = f.NewShop("Other");
  std::string otherKey = f.NewKey(kAllRestPerms, false, other.id);
  CHECK(f.Send(f.McpRequest(ping, otherKey)).status() == 401);
  CHECK(f.Send(f.McpRequest(ping, otherKey, other.appId)).status() == 200);
  // A revoked key is refused on its next request.
  f.RevokeKey(f.mcpKey);
  CHECK(f.Send(f.McpRequest(ping)).status() == 401);
}

TEST_CASE("body size limit: at the limit served, one byte over is 413") {
  McpOptions o;
  o.maxBodyBytes = 200;
  McpFixture f(o, false);
  std::string base = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":""}})";
  std::string at = base;
  at.insert(at.find(R"(""}})") + 1, std::string(200 - base.size(), 'x'));
  REQUIRE(at.size() == 200);
  CHECK(f.Send(f.McpRequest(at)).status() == 200);
  std::string over = at;
  over.insert(over.find("x"), "x");
  RpcReply r = f.Send(f.McpRequest(over));
  CHECK(r.status() == 413);
  CHECK(r.errorMessage() == "Request body over 200 bytes");
}

TEST_CASE("JSON-RPC errors: parse error, invalid request, unknown method, bad params") {
  McpFixture f(McpOptions{}, false);
  RpcReply parse = f.Send(f.McpRequest("{not json"));
  CHECK(parse.status() == 400);
  CHECK(parse.errorCode() == -32700);
  CHECK(At(parse.json, "id").IsNull());

  RpcReply noVersion = f.Send(f.McpRequest(R"({"id":1,"method":"ping"})"));
  CHECK(noVersion.errorCode() == -32600);
  CHECK(At(noVersion.json, "id").GetInt() == 1);
  CHECK(f.Send(f.McpRequest(R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})")).errorCode() == -32600);
  CHECK(f.Send(f.McpRequest(R"({"jsonrpc":"2.0","id":1})")).errorCode() == -32600);
  CHECK(f.Send(f.McpRequest(R"({"jsonrpc":"2.0","id":1,"method":5})")).errorCode() == -32600);
  CHECK(f.Send(f.McpRequest("42")).errorCode() == -32600);

  RpcReply unknown = f.Rpc("resources/list");
  CHECK(unknown.status() == 200);
  CHECK(unknown.errorCode() == -32601);
  CHECK(unknown.errorMessage() == "Method not found: resources/list");

  CHECK(f.Send(f.McpRequest(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]})")).errorCode() == -32602);
  RpcReply noName = f.Rpc("tools/call", R"({"arguments":{}})");
  CHECK(noName.errorCode() == -32602);
  RpcReply badTool = f.Rpc("tools/call", R"({"name":"delete_everything","arguments":{}})");
  CHECK(badTool.errorCode() == -32602);
  CHECK(badTool.errorMessage() == "Unknown tool: delete_everything");
}

TEST_CASE("batches: answered under 2025-03-26, refused from 2025-06-18") {
  McpFixture f(McpOptions{}, false);
  const std::string batch =
      R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},)"
      R"({"jsonrpc":"2.0","id":2,"method":"nope"}])";
  HttpRequest old = f.McpRequest(batch);
  old.headers.emplace_back("mcp-protocol-version", "2025-03-26");
  RpcReply r = f.Send(old);
  REQUIRE(r.status() == 200);
  REQUIRE(r.json.IsArray());
  REQUIRE(r.json.Size() == 2);  // the notification has no answer
  CHECK(r.json[0]["id"].GetInt() == 1);
  CHECK(r.json[1]["error"]["code"].GetInt() == -32601);

  HttpRequest newer = f.McpRequest(batch);
  newer.headers.emplace_back("mcp-protocol-version", "2025-06-18");
  RpcReply refused = f.Send(newer);
  CHECK(refused.status() == 400);
  CHECK(refused.errorCode() == -32600);
}

TEST_CASE("tools/list: every tool has a title, an input schema and an output schema") {
  McpFixture f;
  f.SetPlan(Plan::kPlus);
  f.Switch(R"({"trainingData":{"products":true,"collections":true,"discounts":true},"skills":{"sizeGuide":true},)"
           R"("loyaltyPartner":"Smile.io"})");
  RpcReply r = f.Rpc("tools/list", "{}", f.NewKey(0, true));
  const auto& tools = At(r.result(), "tools");
  REQUIRE(tools.Size() == 22);
  for (const auto& t : tools.GetArray()) {
    INFO(Str(At(t, "name")));
    CHECK(!Str(At(t, "title")).empty());
    CHECK(!Str(At(t, "description")).empty());
    CHECK(Str(At(At(t, "inputSchema"), "type")) == "object");
    CHECK(Str(At(At(t, "outputSchema"), "type")) == "object");
    CHECK(At(At(t, "annotations"), "readOnlyHint").IsBool());
  }
}
