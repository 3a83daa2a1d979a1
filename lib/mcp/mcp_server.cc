// MCP over Streamable HTTP: the HTTP rules (methods, headers, sessions,
// credentials) and JSON-RPC 2.0 dispatch. Responses are single JSON bodies
// (application/json); the server never opens an SSE stream, which the
// transport allows, so GET is 405.
#include "livechat/mcp.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <deque>
#include <fmt/format.h>
#include <mutex>
#include <random>
#include <unordered_map>

#include "http/json_body.h"
#include "livechat/base/ascii.h"
#include "mcp/json_schema.h"
#include "mcp/tools.h"

namespace livechat {
namespace {

using rapidjson::Value;

// JSON-RPC 2.0 error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kServerError = -32000;  // transport-level refusals (HTTP 4xx bodies)

std::string ErrorBody(const std::string& idJson, int code, std::string_view message) {
  std::string out = R"({"jsonrpc":"2.0","id":)" + idJson + R"(,"error":{"code":)" + std::to_string(code) +
                    R"(,"message":)";
  AppendJsonString(out, message);
  return out + "}}";
}

std::string ResultBody(const std::string& idJson, const std::string& resultJson) {
  return R"({"jsonrpc":"2.0","id":)" + idJson + R"(,"result":)" + resultJson + "}";
}

HttpResponse JsonResponse(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.SetHeader("Content-Type", "application/json");
  r.body = std::move(body);
  return r;
}

// Accept must allow application/json (the client is also told to list
// text/event-stream; we answer with JSON only). Absent means anything.
bool AcceptsJson(const std::optional<std::string>& accept) {
  if (!accept) return true;
  std::string a = AsciiLower(*accept);
  return a.find("application/json") != std::string::npos || a.find("*/*") != std::string::npos ||
         a.find("application/*") != std::string::npos;
}

constexpr std::size_t kMaxBatch = 100;
constexpr int kMaxDepth = 64;

// Nesting depth of a parsed document, without recursion.
int Depth(const Value& root) {
  int deepest = 0;
  std::vector<std::pair<const Value*, int>> stack{{&root, 1}};
  while (!stack.empty()) {
    auto [v, d] = stack.back();
    stack.pop_back();
    deepest = std::max(deepest, d);
    if (deepest > kMaxDepth) return deepest;
    if (v->IsArray())
      for (const auto& e : v->GetArray()) stack.emplace_back(&e, d + 1);
    else if (v->IsObject())
      for (const auto& m : v->GetObject()) stack.emplace_back(&m.value, d + 1);
  }
  return deepest;
}

std::string NewSessionId() {
  // Not a credential (every request still carries the key): 128 random bits
  // only make sessions unguessable enough not to collide or be enumerated.
  static thread_local std::random_device rd;
  std::string out;
  for (int i = 0; i < 4; ++i) out += fmt::format("{:08x}", rd());
  return out;
}

}  // namespace

struct McpServer::Impl {
  ChatService& service;
  McpOptions options;

  using Session = McpSession;
  std::unique_ptr<InMemoryMcpSessions> ownSessions;  // when options.sessions is null
  McpSessions& sessions;

  Impl(ChatService& s, McpOptions o)
      : service(s),
        options(std::move(o)),
        ownSessions(options.sessions ? nullptr : std::make_unique<InMemoryMcpSessions>()),
        sessions(options.sessions ? *options.sessions : *ownSessions) {}

  // One request's state.
  struct Call {
    const Principal& principal;
    std::string version;        // negotiated protocol version for this request
    std::optional<std::string> newSessionId;
  };

  HttpResponse Handle(const HttpRequest& req);
  std::optional<std::string> Dispatch(Call& call, const Value& msg);  // empty: no response (notification)
};

const std::vector<std::string>& McpServer::SupportedVersions() {
  static const std::vector<std::string> v = {"2025-11-25", "2025-06-18", "2025-03-26"};
  return v;
}

McpServer::McpServer(ChatService& service, McpOptions options)
    : impl_(std::make_unique<Impl>(service, std::move(options))) {
  (void)mcp::AllTools();  // build the schemas now, not on the first request
}
McpServer::~McpServer() = default;

bool McpServer::Owns(std::string_view target) {
  return target == "/mcp" || target.rfind("/mcp?", 0) == 0;
}

HttpResponse McpServer::Handle(const HttpRequest& req) { return impl_->Handle(req); }

HttpResponse McpServer::Impl::Handle(const HttpRequest& req) {
  // DNS rebinding defence: a browser page may only reach us from a listed origin.
  if (auto origin = req.Header("origin")) {
    bool allowed = false;
    for (const auto& o : options.allowedOrigins) allowed = allowed || o == *origin;
    if (!allowed) return JsonResponse(403, ErrorBody("null", kServerError, "Origin " + *origin + " is not allowed"));
  }
  // POST carries messages, DELETE ends a session; no GET: no SSE stream.
  static constexpr std::array<MethodRoute, 2> kMethods{{{"POST"}, {"DELETE"}}};
  if (auto m = MatchMethod(kMethods, req.method); !m.row) {
    HttpResponse r = JsonResponse(
        405, ErrorBody("null", kServerError, "Method not allowed: POST JSON-RPC messages to /mcp (no SSE stream)"));
    r.SetHeader("Allow", m.allow);
    return r;
  }

  // Credentials: X-App-Id and a bearer key of that store.
  std::string key;
  if (auto auth = req.Header("authorization")) {
    if (auth->size() > 7 && AsciiLower(auth->substr(0, 7)) == "bearer ") key = auth->substr(7);
  }
  auto principal = service.auth().AuthenticateAppKey(req.Header("x-app-id").value_or(""), key);
  if (!principal.ok()) {
    HttpResponse r = JsonResponse(
        401, ErrorBody("null", kServerError,
                       principal.error().code == ErrorCode::kUnauthenticated
                           ? "Unauthenticated: send X-App-Id (the store's App ID) and Authorization: Bearer sk_..."
                           : "Invalid App ID or API key"));
    r.SetHeader("WWW-Authenticate", "Bearer realm=\"livechat-mcp\"");
    return r;
  }

  // Session: optional; one we never issued (or forgot, or of another store) is 404.
  std::optional<Session> session;
  const auto sessionId = req.Header("mcp-session-id");
  if (sessionId) {
    session = sessions.Find(*sessionId, principal->shopId);
    if (!session) return JsonResponse(404, ErrorBody("null", kServerError, "Unknown session: initialize again"));
  }
  if (req.method == "DELETE") {
    if (!sessionId) return JsonResponse(400, ErrorBody("null", kServerError, "DELETE needs an Mcp-Session-Id header"));
    sessions.End(*sessionId, principal->shopId);
    HttpResponse r;
    r.status = 204;
    return r;
  }

  // Iterative parsing (no recursion however deep the input) and UTF-8
  // validation: every string echoed or stored afterwards is valid. A body
  // that is not JSON is answered after the header checks below.
  rapidjson::Document doc;
  const JsonBodyStatus bodyStatus = http::ReadJsonBody(req, options.maxBodyBytes, doc).status;
  if (bodyStatus == JsonBodyStatus::kTooLarge)
    return JsonResponse(413, ErrorBody("null", kServerError,
                                       fmt::format("Request body over {} bytes", options.maxBodyBytes)));
  if (bodyStatus == JsonBodyStatus::kUnsupportedMediaType)
    return JsonResponse(415, ErrorBody("null", kServerError, "Content-Type must be application/json"));
  if (!AcceptsJson(req.Header("accept")))
    return JsonResponse(406, ErrorBody("null", kServerError,
                                       "Not acceptable: Accept must include application/json (and text/event-stream)"));

  Call call{*principal, session ? session->version : "2025-03-26", std::nullopt};
  if (auto v = req.Header("mcp-protocol-version")) {
    const auto& supported = McpServer::SupportedVersions();
    if (std::find(supported.begin(), supported.end(), *v) == supported.end())
      return JsonResponse(400, ErrorBody("null", kServerError,
                                         "Unsupported MCP-Protocol-Version " + *v +
                                             " (supported: 2025-11-25, 2025-06-18, 2025-03-26)"));
    if (session && session->version != *v)
      return JsonResponse(400, ErrorBody("null", kServerError,
                                         "MCP-Protocol-Version " + *v + " differs from the session's " +
                                             session->version));
    call.version = *v;
  }

  if (bodyStatus != JsonBodyStatus::kOk)
    return JsonResponse(400, ErrorBody("null", kParseError, "Parse error: the body is not JSON (or not UTF-8)"));
  if (Depth(doc) > kMaxDepth)
    return JsonResponse(400, ErrorBody("null", kInvalidRequest,
                                       fmt::format("Invalid Request: JSON nested deeper than {} levels", kMaxDepth)));

  std::string body;
  if (doc.IsArray()) {
    // Batches exist only in 2025-03-26; later versions removed them.
    if (call.version != "2025-03-26")
      return JsonResponse(400, ErrorBody("null", kInvalidRequest,
                                         "JSON-RPC batches are not supported in protocol " + call.version));
    if (doc.Empty()) return JsonResponse(400, ErrorBody("null", kInvalidRequest, "Invalid Request: empty batch"));
    if (doc.Size() > kMaxBatch)
      return JsonResponse(400, ErrorBody("null", kInvalidRequest,
                                         fmt::format("Invalid Request: a batch holds at most {} messages", kMaxBatch)));
    std::string parts;
    for (const auto& m : doc.GetArray()) {
      if (m.IsObject() && m.HasMember("method") && m["method"].IsString() &&
          std::string_view(m["method"].GetString()) == "initialize")
        return JsonResponse(400, ErrorBody("null", kInvalidRequest,
                                           "Invalid Request: initialize must not be part of a batch"));
    }
    for (const auto& m : doc.GetArray())
      if (auto r = Dispatch(call, m)) parts += (parts.empty() ? "" : ",") + *r;
    if (parts.empty()) {
      HttpResponse r;
      r.status = 202;
      return r;
    }
    body = "[" + parts + "]";
  } else {
    auto r = Dispatch(call, doc);
    // A malformed message that is not a request (no id) has no response to
    // carry its error: the transport answers 400.
    if (r && !(doc.IsObject() && doc.HasMember("id"))) return JsonResponse(400, std::move(*r));
    if (!r) {
      HttpResponse resp;
      resp.status = 202;  // a notification or a response: accepted, no body
      return resp;
    }
    body = std::move(*r);
  }
  HttpResponse resp = JsonResponse(200, std::move(body));
  if (call.newSessionId) resp.SetHeader("Mcp-Session-Id", *call.newSessionId);
  return resp;
}

std::optional<std::string> McpServer::Impl::Dispatch(Call& call, const Value& msg) {
  if (!msg.IsObject()) return ErrorBody("null", kInvalidRequest, "Invalid Request: a message is a JSON object");
  auto idIt = msg.FindMember("id");
  const bool hasId = idIt != msg.MemberEnd();
  std::string idJson = "null";
  if (hasId) {
    if (!idIt->value.IsString() && !idIt->value.IsInt64())
      return ErrorBody("null", kInvalidRequest, "Invalid Request: id must be a string or an integer");
    idJson = mcp::CompactJson(idIt->value);
  }
  auto ver = msg.FindMember("jsonrpc");
  if (ver == msg.MemberEnd() || !ver->value.IsString() || std::string_view(ver->value.GetString()) != "2.0")
    return ErrorBody(idJson, kInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\"");
  auto methodIt = msg.FindMember("method");
  if (methodIt == msg.MemberEnd()) {
    // A response to a server request: we send none, so nothing to match.
    if (msg.HasMember("result") || msg.HasMember("error")) return std::nullopt;
    return ErrorBody(idJson, kInvalidRequest, "Invalid Request: method is required");
  }
  if (!methodIt->value.IsString()) return ErrorBody(idJson, kInvalidRequest, "Invalid Request: method must be a string");
  const std::string method = methodIt->value.GetString();
  if (!hasId) return std::nullopt;  // notifications (notifications/initialized, cancelled, ...) need no answer

  static const Value kEmpty(rapidjson::kObjectType);
  auto paramsIt = msg.FindMember("params");
  const Value& params = paramsIt == msg.MemberEnd() ? kEmpty : paramsIt->value;
  if (!params.IsObject()) return ErrorBody(idJson, kInvalidParams, "Invalid params: params must be an object");

  if (method == "initialize") {
    std::string requested;
    if (auto pv = params.FindMember("protocolVersion"); pv != params.MemberEnd() && pv->value.IsString())
      requested = pv->value.GetString();
    const auto& supported = McpServer::SupportedVersions();
    // The client's version when we speak it; otherwise our newest, and the
    // client decides whether it can go on.
    std::string chosen =
        std::find(supported.begin(), supported.end(), requested) != supported.end() ? requested : supported.front();
    call.version = chosen;
    std::string id = NewSessionId();
    sessions.Open(id, Session{call.principal.shopId, chosen}, options.maxSessionsPerStore);
    call.newSessionId = id;
    std::string result = R"({"protocolVersion":)";
    AppendJsonString(result, chosen);
    result += R"(,"capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"livechat","title":"livechat tool server","version":)";
    AppendJsonString(result, options.serverVersion);
    result += R"(},"instructions":"Tools to run this store's live chat: read and answer conversations, look up products, orders and FAQs, and hand over to a person. The tool list depends on the store's AI settings and is re-read on every request."})";
    return ResultBody(idJson, result);
  }
  if (method == "ping") return ResultBody(idJson, "{}");

  if (method == "tools/list" || method == "tools/call") {
    // Switches, plan and permissions as they are now.
    auto shop = service.directory().GetShop(call.principal.shopId);
    if (!shop.ok()) return ErrorBody(idJson, kServerError, "Internal error: " + shop.error().message);
    auto ai = service.knowledge().GetAiSettings(call.principal);
    if (!ai.ok()) return ErrorBody(idJson, kServerError, "Internal error: " + ai.error().message);
    mcp::ToolContext ctx{service, call.principal, *shop, *ai};
    if (method == "tools/list") {
      std::string tools;
      for (const auto& t : mcp::AllTools()) {
        if (!t.unavailable(ctx).empty()) continue;
        std::string one = R"({"name":)";
        AppendJsonString(one, t.name);
        one += R"(,"title":)";
        AppendJsonString(one, t.title);
        one += R"(,"description":)";
        AppendJsonString(one, t.description);
        one += R"(,"inputSchema":)" + mcp::CompactJson(t.inputSchema);
        one += R"(,"outputSchema":)" + mcp::CompactJson(t.outputSchema);
        one += fmt::format(R"(,"annotations":{{"readOnlyHint":{},"destructiveHint":false,"openWorldHint":false}}}})",
                           t.readOnly);
        tools += (tools.empty() ? "" : ",") + one;
      }
      return ResultBody(idJson, R"({"tools":[)" + tools + "]}");
    }
    auto nameIt = params.FindMember("name");
    if (nameIt == params.MemberEnd() || !nameIt->value.IsString())
      return ErrorBody(idJson, kInvalidParams, "Invalid params: name (the tool to call) is required");
    const std::string name = nameIt->value.GetString();
    const mcp::Tool* tool = mcp::FindTool(name);
    if (!tool) return ErrorBody(idJson, kInvalidParams, "Unknown tool: " + name);
    if (std::string why = tool->unavailable(ctx); !why.empty())
      return ErrorBody(idJson, kInvalidParams, fmt::format("Tool {} is not available to this key: {}", name, why));
    auto argsIt = params.FindMember("arguments");
    const Value& args = argsIt == params.MemberEnd() || argsIt->value.IsNull() ? kEmpty : argsIt->value;
    mcp::ToolOutcome out;
    if (!args.IsObject()) {
      out = {false, "", "arguments must be an object"};
    } else if (std::string err = mcp::ValidateAgainst(tool->inputSchema, args, ""); !err.empty()) {
      out = {false, "", "INVALID_PARAMS: " + err};
    } else {
      out = tool->run(ctx, args);
    }
    std::string result = R"({"content":[{"type":"text","text":)";
    if (out.ok) {
      AppendJsonString(result, out.json);
      result += R"(}],"structuredContent":)" + out.json + R"(,"isError":false})";
    } else {
      AppendJsonString(result, out.error);
      result += R"(}],"isError":true})";
    }
    return ResultBody(idJson, result);
  }
  return ErrorBody(idJson, kMethodNotFound, "Method not found: " + method);
}

}  // namespace livechat
