// One table walks livechatd's input limits on every listener (issue #20):
// for each limit the request at it is answered as usual and the one just past
// it is refused with the exact status and error code, nothing of it stored
// (counted back through the API), and the access log never holds a raw byte
// of it. Requests go over raw sockets: a client library would not send a
// bad header line or a 32 KiB head.
#include <functional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "e2e/child_process.h"
#include "e2e/e2e_helpers.h"
#include "livechat/base/utf8.h"

namespace {

using e2e::ParseJson;
using e2e::Str;
using namespace std::chrono_literals;

// The body limits an operator runs with (the defaults).
constexpr std::size_t kMaxBody = 1 << 20;          // --max-body: REST, inbox, GraphQL, MCP
constexpr std::size_t kWidgetBody = 256 * 1024;    // StorefrontOptions::maxBodyBytes
constexpr std::size_t kPlatformBody = 256 * 1024;  // PlatformOptions::maxBodyBytes
constexpr std::size_t kMaxHead = 32 * 1024;
constexpr const char* kPlatformSecret = "limits-platform-secret";

struct Answer {
  int status = 0;
  // error.code (REST, JSON-RPC), errors[0].extensions.code (GraphQL), the
  // code a failed MCP tool call's text starts with, or "" if none.
  std::string code;
  std::string body;
};

Answer Send(int port, const std::string& request) {
  const std::string raw = e2e::RawExchange(port, request);
  Answer a;
  INFO("answer: " << raw.substr(0, 600));
  REQUIRE(raw.rfind("HTTP/1.1 ", 0) == 0);
  a.status = std::stoi(raw.substr(9, 3));
  const auto headEnd = raw.find("\r\n\r\n");
  REQUIRE(headEnd != std::string::npos);
  a.body = raw.substr(headEnd + 4);
  rapidjson::Document doc;
  doc.Parse(a.body.c_str(), a.body.size());
  if (doc.HasParseError() || !doc.IsObject()) return a;
  const rapidjson::Value* code = nullptr;
  if (doc.HasMember("error") && doc["error"].IsObject() && doc["error"].HasMember("code")) {
    code = &doc["error"]["code"];
  } else if (doc.HasMember("errors") && doc["errors"].IsArray() && !doc["errors"].Empty()) {
    const auto& first = doc["errors"][0];
    if (first.HasMember("extensions") && first["extensions"].HasMember("code")) code = &first["extensions"]["code"];
  } else if (doc.HasMember("result") && doc["result"].IsObject() && doc["result"].HasMember("isError") &&
             doc["result"]["isError"].IsTrue()) {
    const std::string text = Str(doc["result"]["content"][0], "text");
    a.code = text.substr(0, text.find(':'));
  }
  if (code) a.code = code->IsString() ? code->GetString() : std::to_string(code->GetInt());
  return a;
}

// `headers`: whole lines, each ending in CRLF. A body gets its length (and
// a JSON type unless `headers` names one).
std::string Request(const std::string& method, const std::string& target, const std::string& headers,
                    const std::string& body = "") {
  std::string out = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + headers;
  if (method != "GET") {
    if (headers.find("Content-Type:") == std::string::npos) out += "Content-Type: application/json\r\n";
    out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return out + "\r\n" + body;
}

// `json` followed by spaces up to `size` bytes (JSON allows trailing white space).
std::string PadTo(std::string json, std::size_t size) {
  REQUIRE(json.size() <= size);
  json.append(size - json.size(), ' ');
  return json;
}

// GET /healthz whose head is exactly `size` bytes, padded in an X-Pad field
// or in the query string.
std::string HeadOf(std::size_t size, bool padInUrl) {
  const std::string bare = Request("GET", padInUrl ? "/healthz?p=" : "/healthz", padInUrl ? "" : "X-Pad: \r\n");
  REQUIRE(bare.size() <= size);
  const std::string pad(size - bare.size(), 'a');
  return padInUrl ? Request("GET", "/healthz?p=" + pad, "") : Request("GET", "/healthz", "X-Pad: " + pad + "\r\n");
}

std::string Fields(int count) {
  std::string out;
  for (int i = 2; i < count; ++i) out += "X-Field-" + std::to_string(i) + ": v\r\n";  // Host and Connection count too
  return out;
}

// A JSON string literal's content: `n` characters, 'x'.
std::string Xs(std::size_t n) { return std::string(n, 'x'); }

struct Row {
  std::string listener;
  std::string limit;
  int port = 0;
  std::function<std::string(bool over)> request;
  int okStatus = 0;
  int overStatus = 0;
  std::string overCode;
  // What the rows may store, counted through the API; null: nothing to count.
  std::function<int()> stored;
  int okStores = 0;  // what the request at the limit adds to it
  std::string okCode = "";  // the answer at the limit is an error of its own (a 404)
};

// The size of the data array a GET answers.
int Count(int port, const std::string& target, const std::string& headers) {
  const Answer a = Send(port, Request("GET", target, headers));
  INFO(target << ": " << a.body);
  REQUIRE(a.status == 200);
  auto doc = ParseJson(a.body);
  REQUIRE(doc["data"].IsArray());
  return static_cast<int>(doc["data"].Size());
}

}  // namespace

TEST_CASE("inputs at their limits on every listener: N is answered, N + 1 refused, nothing stored, nothing raw logged") {
  e2e::TempDir dir;
  const std::string db = dir.File("limits.db");
  e2e::Daemon d = e2e::StartDaemon(
      dir, db,
      {"--demo", "--graphql-listen", "127.0.0.1:0", "--storefront-listen",
       "127.0.0.1:0", "--platform-secret", kPlatformSecret, "--rate-limit-key", "100000", "--rate-limit-ip", "100000"});
  // The other listeners' ports from the startup lines.
  auto portOf = [&](const std::string& prefix) {
    for (const std::string& line : d.process->lines())
      if (line.rfind(prefix, 0) == 0) return std::stoi(line.substr(line.rfind(':') + 1));
    auto line = d.process->WaitForLine(prefix, 5s);
    REQUIRE(line);
    return std::stoi(line->substr(line->rfind(':') + 1));
  };
  auto valueAfter = [&](const std::string& prefix) {
    for (const std::string& line : d.process->lines())
      if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
    FAIL("no line " << prefix);
    return std::string();
  };
  const int api = d.port;
  const int graphqlPort = portOf("graphql listening on ");
  const int storefrontPort = portOf("storefront listening on ");
  const int adminPort = portOf("admin listener on ");  // "... on 127.0.0.1:PORT (/metrics, ...)"
  const std::string apiKey = valueAfter("demo API key: ");
  const std::string appId = valueAfter("demo App ID: ");
  const std::string storeId = [&] {
    const std::string line = valueAfter("demo store created: ");
    const auto at = line.find("(id ");
    return line.substr(at + 4, line.size() - at - 5);
  }();
  const std::string keyHeader = "X-Api-Key: " + apiKey + "\r\n";

  // The demo's newest conversation, its member, an inbox session and a
  // widget session with its own conversation.
  const std::string conv = [&] {
    auto doc = ParseJson(Send(api, Request("GET", "/chat/conversations?limit=1", keyHeader)).body);
    return Str(doc["data"][0], "id");
  }();
  const std::string memberId = [&] {
    auto doc = ParseJson(Send(api, Request("GET", "/chat/members", keyHeader)).body);
    return Str(doc["data"][0], "id");
  }();
  const std::string inboxHeaders = [&] {
    const std::string raw = e2e::RawExchange(
        api, Request("POST", "/api/auth/login", "", R"({"email":"ada@demo.example","password":"demo-password"})"));
    const auto at = raw.find("lc_session=");
    REQUIRE(at != std::string::npos);
    return "Cookie: " + raw.substr(at, raw.find(';', at) - at) + "\r\nX-Livechat-Csrf: 1\r\n";
  }();
  const std::string visitorHeaders = [&] {
    auto doc = ParseJson(Send(storefrontPort, Request("POST", "/storefront/sessions", "X-App-Id: " + appId + "\r\n")).body);
    return "X-App-Id: " + appId + "\r\nX-Session-Token: " + Str(doc["data"], "token") + "\r\n";
  }();
  REQUIRE(Send(storefrontPort, Request("POST", "/storefront/commands", visitorHeaders,
                                       R"({"command":"message:send","args":["hello"]})"))
              .status == 200);
  const std::string visitorConv = [&] {
    auto doc = ParseJson(Send(storefrontPort, Request("GET", "/storefront/updates?after=0", visitorHeaders)).body);
    return Str(doc["data"]["conversation"], "id");
  }();
  const std::string mcpHeaders = "X-App-Id: " + appId + "\r\nAuthorization: Bearer " + apiKey +
                                 "\r\nAccept: application/json, text/event-stream\r\n";

  auto messagesOf = [&](const std::string& id) {
    return [&, id] { return Count(api, "/chat/conversations/" + id + "/messages?limit=100", keyHeader); };
  };
  const auto messages = messagesOf(conv);
  const auto visitorMessages = messagesOf(visitorConv);
  const auto notes = [&] { return Count(api, "/chat/conversations/" + conv + "/notes", keyHeader); };
  const auto attributes = [&] { return Count(api, "/chat/conversations/" + conv + "/attributes", keyHeader); };
  const auto platformRequests = [&] {
    return static_cast<int>(e2e::Ctl(db, {"audit", "--store", storeId}).Size());
  };

  auto restMessage = [&](const std::string& text) {
    return R"({"text":")" + text + R"(","memberId":")" + memberId + R"("})";
  };
  auto mcpCall = [&](const std::string& tool, const std::string& args) {
    return R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":")" + tool + R"(","arguments":)" + args +
           "}}";
  };
  auto sdkMessage = [&](const std::string& text) { return R"({"command":"message:send","args":[")" + text + R"("]})"; };

  std::vector<Row> rows;
  const std::vector<std::pair<std::string, int>> listeners = {
      {"api", api}, {"graphql", graphqlPort}, {"storefront", storefrontPort}, {"admin", adminPort}};
  for (const auto& [name, port] : listeners) {
    rows.push_back({name, "head bytes (request line and headers)", port,
                    [](bool over) { return HeadOf(kMaxHead + over, false); }, 200, 431, "INVALID_PARAMS", nullptr, 0});
    rows.push_back({name, "URL length (within the head)", port,
                    [](bool over) { return HeadOf(kMaxHead + over, true); }, 200, 431, "INVALID_PARAMS", nullptr, 0});
    rows.push_back({name, "header fields", port,
                    [](bool over) { return Request("GET", "/healthz", Fields(100 + over)); }, 200, 431,
                    "INVALID_PARAMS", nullptr, 0});
    rows.push_back({name, "header line: bare CR in a value", port,
                    [](bool over) { return Request("GET", "/healthz", over ? "X-Note: a\rb\r\n" : "X-Note: a b\r\n"); },
                    200, 400, "INVALID_PARAMS", nullptr, 0});
    rows.push_back({name, "header line: NUL in a value", port,
                    [](bool over) {
                      return Request("GET", "/healthz", over ? std::string("X-Note: a\0b\r\n", 12) : "X-Note: a_b\r\n");
                    },
                    200, 400, "INVALID_PARAMS", nullptr, 0});
    rows.push_back({name, "header line without a colon", port,
                    [](bool over) { return Request("GET", "/healthz", over ? "X-Note a\r\n" : "X-Note: a\r\n"); }, 200,
                    400, "INVALID_PARAMS", nullptr, 0});
    rows.push_back({name, "path not UTF-8 (raw overlong bytes)", port,
                    [](bool over) { return Request("GET", over ? "/nothing-\xC0\xAF" : "/nothing-\xC3\xA9", ""); }, 404,
                    400, "INVALID_PARAMS", nullptr, 0});
    rows.back().okCode = "NOT_FOUND";
  }

  // Bodies: --max-body on the command surfaces, their own limits on the widget and platform ones.
  rows.push_back({"api", "REST body bytes", api,
                  [&](bool over) {
                    return Request("POST", "/chat/conversations/" + conv + "/messages", keyHeader,
                                   PadTo(restMessage("at the body limit"), kMaxBody + over));
                  },
                  201, 413, "PAYLOAD_TOO_LARGE", messages, 1});
  rows.push_back({"api", "inbox /api body bytes", api,
                  [&](bool over) {
                    return Request("POST", "/api/chat/conversations/" + conv + "/messages", inboxHeaders,
                                   PadTo(R"({"text":"inbox at the body limit"})", kMaxBody + over));
                  },
                  201, 413, "PAYLOAD_TOO_LARGE", messages, 1});
  for (const auto& [name, port] : {std::pair<std::string, int>{"api", api}, {"graphql", graphqlPort}}) {
    rows.push_back({name, "GraphQL body bytes", port,
                    [&](bool over) {
                      return Request("POST", "/graphql", "X-App-Id: " + appId + "\r\nX-Api-Key: " + apiKey + "\r\n",
                                     PadTo(R"({"query":"{ __typename }"})", kMaxBody + over));
                    },
                    200, 413, "BAD_REQUEST", nullptr, 0});
  }
  rows.push_back({"api", "MCP body bytes", api,
                  [&](bool over) {
                    return Request("POST", "/mcp", mcpHeaders,
                                   PadTo(mcpCall("send_message", R"({"conversationId":")" + conv +
                                                                     R"(","text":"tool at the body limit"})"),
                                         kMaxBody + over));
                  },
                  200, 413, "-32000", messages, 1});
  rows.push_back({"storefront", "widget body bytes", storefrontPort,
                  [&](bool over) {
                    return Request("POST", "/storefront/commands", visitorHeaders,
                                   PadTo(sdkMessage("widget at the body limit"), kWidgetBody + over));
                  },
                  200, 413, "PAYLOAD_TOO_LARGE", visitorMessages, 1});
  rows.push_back({"api", "platform body bytes", api,
                  [&](bool over) {
                    const std::string body =
                        PadTo(R"({"shop_id":")" + storeId +
                                  R"(","customer":{"id":1,"email":"nobody@example.com"},"data_request":{"id":9}})",
                              kPlatformBody + over);
                    return Request("POST", "/platform/customers-data-request",
                                   "X-Platform-Hmac-Sha256: " + e2e::PlatformSignature(kPlatformSecret, body) +
                                       "\r\nX-Platform-Webhook-Id: limits-" + std::to_string(over) + "\r\n",
                                   body);
                  },
                  200, 413, "PAYLOAD_TOO_LARGE", platformRequests, 1});

  // Counts and depth.
  // Above its maximum (100) a list limit is clamped (spec), not refused.
  rows.push_back({"api", "REST list limit at least 1", api,
                  [&](bool over) {
                    return Request("GET", "/chat/conversations?limit=" + std::to_string(over ? 0 : 1), keyHeader);
                  },
                  200, 400, "INVALID_PARAMS", nullptr, 0});
  rows.push_back({"api", "REST search characters", api,
                  [&](bool over) { return Request("GET", "/chat/conversations?q=" + Xs(200 + over), keyHeader); },
                  200, 400, "INVALID_PARAMS", nullptr, 0});
  rows.push_back({"api", "MCP batch messages (2025-03-26)", api,
                  [&](bool over) {
                    std::string batch = "[";
                    for (int i = 0; i < 100 + over; ++i)
                      batch += (i ? "," : "") + std::string(R"({"jsonrpc":"2.0","id":)") + std::to_string(i) +
                               R"(,"method":"ping"})";
                    return Request("POST", "/mcp", mcpHeaders + "MCP-Protocol-Version: 2025-03-26\r\n", batch + "]");
                  },
                  200, 400, "-32600", nullptr, 0});
  rows.push_back({"graphql", "GraphQL variables JSON depth", graphqlPort,
                  [&](bool over) {
                    const int depth = 64 + over;
                    const std::string nested = std::string(static_cast<std::size_t>(depth - 1), '[') +
                                               std::string(static_cast<std::size_t>(depth - 1), ']');
                    return Request("POST", "/graphql", "X-App-Id: " + appId + "\r\nX-Api-Key: " + apiKey + "\r\n",
                                   R"({"query":"{ __typename }","variables":{"v":)" + nested + "}}");
                  },
                  200, 400, "BAD_REQUEST", nullptr, 0});
  // Unauthenticated, as deep as the body allows: the conversion of the
  // variables once recursed this deep and overflowed a worker's stack.
  rows.push_back({"graphql", "GraphQL variables nested to fill the body", graphqlPort,
                  [&](bool over) {
                    const std::string head = R"({"query":"{ __typename }","variables":{"v":)";
                    const std::size_t depth = over ? (kMaxBody - head.size() - 2) / 2 : 63;
                    return Request("POST", "/graphql", "",
                                   head + std::string(depth, '[') + std::string(depth, ']') + "}}");
                  },
                  200, 400, "BAD_REQUEST", nullptr, 0});

  // Text fields: their length limits, then bytes that are not text.
  rows.push_back({"api", "REST message characters", api,
                  [&](bool over) {
                    return Request("POST", "/chat/conversations/" + conv + "/messages", keyHeader,
                                   restMessage(Xs(5000 + over)));
                  },
                  201, 400, "INVALID_PARAMS", messages, 1});
  rows.push_back({"api", "REST note characters", api,
                  [&](bool over) {
                    return Request("POST", "/chat/conversations/" + conv + "/notes", keyHeader,
                                   R"({"text":")" + Xs(150 + over) + R"("})");
                  },
                  201, 400, "INVALID_PARAMS", notes, 1});
  rows.push_back({"api", "REST attribute name characters", api,
                  [&](bool over) {
                    return Request("POST", "/chat/conversations/" + conv + "/attributes", keyHeader,
                                   R"({"name":")" + Xs(255 + over) + R"(","value":"v"})");
                  },
                  201, 400, "INVALID_PARAMS", attributes, 1});
  rows.push_back({"api", "REST attribute value characters", api,
                  [&](bool over) {
                    return Request("POST", "/chat/conversations/" + conv + "/attributes", keyHeader,
                                   R"({"name":"value-limit","value":")" + Xs(1000 + over) + R"("})");
                  },
                  201, 400, "INVALID_PARAMS", attributes, 1});
  rows.push_back({"api", "MCP send_message characters", api,
                  [&](bool over) {
                    return Request("POST", "/mcp", mcpHeaders,
                                   mcpCall("send_message",
                                           R"({"conversationId":")" + conv + R"(","text":")" + Xs(5000 + over) + "\"}"));
                  },
                  200, 200, "INVALID_PARAMS", messages, 1});
  rows.push_back({"storefront", "widget message characters", storefrontPort,
                  [&](bool over) {
                    return Request("POST", "/storefront/commands", visitorHeaders, sdkMessage(Xs(5000 + over)));
                  },
                  200, 400, "INVALID_PARAMS", visitorMessages, 1});

  // Each bad text next to the good one it stands for: é as UTF-8.
  // MCP answers a body that is not JSON text as JSON-RPC (400, -32700) and
  // a tool's refusal as its result (200, isError).
  struct BadText {
    std::string what;
    std::string bad;
    int mcpStatus;
    std::string mcpCode;
  };
  const std::vector<BadText> badTexts = {
      {"overlong UTF-8", "\xC0\xA9", 400, "-32700"},
      {"a surrogate encoded as UTF-8", "\xED\xA0\x80", 400, "-32700"},
      {"a lone surrogate escape", "\\ud800", 400, "-32700"},
      {"an escaped NUL", "\\u0000", 200, "INVALID_PARAMS"},
      {"a raw NUL", std::string(1, '\0'), 400, "-32700"},
  };
  for (const BadText& t : badTexts) {
    auto text = [t](bool over) { return "caf" + (over ? t.bad : std::string("\xC3\xA9")); };
    rows.push_back({"api", "REST message text: " + t.what, api,
                    [&, text](bool over) {
                      return Request("POST", "/chat/conversations/" + conv + "/messages", keyHeader,
                                     restMessage(text(over)));
                    },
                    201, 400, "INVALID_PARAMS", messages, 1});
    rows.push_back({"api", "inbox note text: " + t.what, api,
                    [&, text](bool over) {
                      return Request("POST", "/api/chat/conversations/" + conv + "/notes", inboxHeaders,
                                     R"({"text":")" + text(over) + R"("})");
                    },
                    201, 400, "INVALID_PARAMS", notes, 1});
    rows.push_back({"storefront", "widget message text: " + t.what, storefrontPort,
                    [&, text](bool over) {
                      return Request("POST", "/storefront/commands", visitorHeaders, sdkMessage(text(over)));
                    },
                    200, 400, "INVALID_PARAMS", visitorMessages, 1});
    rows.push_back({"api", "MCP send_message text: " + t.what, api,
                    [&, text](bool over) {
                      return Request("POST", "/mcp", mcpHeaders,
                                     mcpCall("send_message",
                                             R"({"conversationId":")" + conv + R"(","text":")" + text(over) + "\"}"));
                    },
                    200, t.mcpStatus, t.mcpCode, messages, 1});
  }

  for (const Row& row : rows) {
    CAPTURE(row.listener);
    CAPTURE(row.limit);
    const int before = row.stored ? row.stored() : 0;
    const Answer ok = Send(row.port, row.request(false));
    INFO("at the limit: " << ok.body.substr(0, 400));
    CHECK(ok.status == row.okStatus);
    CHECK(ok.code == row.okCode);
    const int afterOk = row.stored ? row.stored() : 0;
    CHECK(afterOk == before + row.okStores);
    const Answer over = Send(row.port, row.request(true));
    INFO("past it: " << over.body.substr(0, 400));
    CHECK(over.status == row.overStatus);
    CHECK(over.code == row.overCode);
    if (row.stored) CHECK(row.stored() == afterOk);
  }

  e2e::StopDaemon(d);
  // Every line of the log is text: no CR, NUL or other control byte and no
  // byte sequence that is not UTF-8 came through from a request.
  const std::string log = e2e::Slurp(d.stderrPath);
  CHECK(livechat::IsValidUtf8(log));
  std::size_t controls = 0;
  for (const char c : log) controls += (static_cast<unsigned char>(c) < 0x20 && c != '\n') ? 1 : 0;
  CHECK(controls == 0);
}
