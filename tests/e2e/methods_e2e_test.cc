// Every documented path, asked with every method it does not have, on every
// listener that serves it, answers 405 METHOD_NOT_ALLOWED with an Allow header
// naming exactly its documented methods. The paths are docs/api/openapi.json's
// (REST, legacy webhooks, admin sign-in and uploads, files, probes, storefront,
// platform) and the /api/chat/... mirror it describes, plus those documented
// elsewhere: /graphql (docs/graphql.md), /mcp (docs/mcp.md), /sdk.js, /demo/
// and the admin listener's /metrics (docs/operations.md).
#include <map>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <httplib.h>
#include <rapidjson/document.h>

#include "e2e/e2e_helpers.h"

namespace {

using namespace std::chrono_literals;

// The methods cpp-httplib routes, in the order every Allow header lists them.
// HEAD is served wherever GET is, and is not listed.
const std::vector<std::string> kMethods = {"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};

// How each surface words its errors.
enum class ErrorBody { kRest, kGraphQL, kJsonRpc };

struct DocumentedPath {
  std::string target;             // path parameters filled in
  std::set<std::string> methods;  // upper case
  ErrorBody body = ErrorBody::kRest;
  httplib::Headers credentials;   // what the surface checks before it routes
};

std::string AllowFor(const std::set<std::string>& methods) {
  std::string out;
  for (const std::string& m : kMethods) {
    if (!methods.count(m)) continue;
    if (!out.empty()) out += ", ";
    out += m;
  }
  return out;
}

// "/chat/conversations/{conversationId}/tags/{tag}" -> ".../p/tags/p".
std::string Fill(const std::string& templ) {
  std::string out;
  for (std::size_t i = 0; i < templ.size(); ++i) {
    if (templ[i] != '{') {
      out += templ[i];
      continue;
    }
    out += 'p';
    i = templ.find('}', i);
  }
  return out;
}

// The paths of docs/api/openapi.json with their methods; an /api/chat/...
// entry (an admin-only operation) joins the mirror of its /chat/... path.
std::map<std::string, std::set<std::string>> OpenApiPaths() {
  rapidjson::Document doc = e2e::ParseJson(e2e::Slurp(std::string(LIVECHAT_SOURCE_DIR) + "/docs/api/openapi.json"));
  std::map<std::string, std::set<std::string>> out;
  for (const auto& path : doc["paths"].GetObject()) {
    const std::string templ = path.name.GetString();
    for (const auto& op : path.value.GetObject()) {
      std::string method = op.name.GetString();
      if (method == "parameters" || method == "summary" || method == "description") continue;
      for (char& c : method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      out[templ].insert(method);
      if (templ.rfind("/chat/", 0) == 0) out["/api" + templ].insert(method);
    }
  }
  return out;
}

// The code a 405 body carries, as its surface words it.
std::string CodeOf(ErrorBody kind, const std::string& body) {
  rapidjson::Document d;
  d.Parse(body.c_str(), body.size());
  if (d.HasParseError() || !d.IsObject()) return "<not a JSON object: " + body + ">";
  switch (kind) {
    case ErrorBody::kRest:
      if (d.HasMember("error") && d["error"].IsObject() && d["error"].HasMember("code") && d["error"]["code"].IsString())
        return d["error"]["code"].GetString();
      break;
    case ErrorBody::kGraphQL:
      if (d.HasMember("errors") && d["errors"].IsArray() && !d["errors"].Empty() &&
          d["errors"][0].HasMember("extensions") && d["errors"][0]["extensions"].HasMember("code"))
        return d["errors"][0]["extensions"]["code"].GetString();
      break;
    case ErrorBody::kJsonRpc:
      if (d.HasMember("error") && d["error"].IsObject() && d["error"].HasMember("code") && d["error"]["code"].IsInt())
        return std::to_string(d["error"]["code"].GetInt());
      break;
  }
  return "<no code: " + body + ">";
}

std::string ExpectedCode(ErrorBody kind) { return kind == ErrorBody::kJsonRpc ? "-32000" : "METHOD_NOT_ALLOWED"; }

void Walk(const std::string& listener, int port, const std::vector<DocumentedPath>& paths) {
  httplib::Client cli = e2e::MakeClient(port);
  // HEAD answers have no body for the contract check to read.
  httplib::Client head = e2e::MakeClient(port);
  head.set_logger(httplib::Logger());
  for (const DocumentedPath& p : paths) {
    std::vector<std::string> asks;
    for (const std::string& m : kMethods)
      if (!p.methods.count(m)) asks.push_back(m);
    if (!p.methods.count("GET")) asks.push_back("HEAD");
    for (const std::string& method : asks) {
      CAPTURE(listener);
      CAPTURE(method);
      CAPTURE(p.target);
      httplib::Request req;
      req.method = method;
      req.path = p.target;
      req.headers = p.credentials;
      auto res = (method == "HEAD" ? head : cli).send(req);
      REQUIRE(res);
      CHECK(res->status == 405);
      CHECK(res->get_header_value("Allow") == AllowFor(p.methods));
      if (method == "HEAD") {
        CHECK(res->body.empty());
      } else {
        CHECK(CodeOf(p.body, res->body) == ExpectedCode(p.body));
      }
    }
  }
}

int PortOf(e2e::Daemon& d, const std::string& linePrefix) {
  auto line = d.process->WaitForLine(linePrefix, 5s);
  REQUIRE(line.has_value());
  auto colon = line->find(':', line->find("127.0.0.1"));
  REQUIRE(colon != std::string::npos);
  return std::stoi(line->substr(colon + 1));
}

std::string DemoKey(e2e::Daemon& d) {
  auto line = d.process->WaitForLine("demo API key: ", 5s);
  REQUIRE(line.has_value());
  return line->substr(std::string("demo API key: ").size());
}

// The demo store's admin member (docs/operations.md, "The demo store").
std::string AdminCookie(int port) {
  httplib::Client cli = e2e::MakeClient(port);
  auto res = cli.Post("/api/auth/login", R"({"email":"ada@demo.example","password":"demo-password"})",
                      "application/json");
  REQUIRE(res);
  REQUIRE(res->status == 200);
  const std::string cookie = res->get_header_value("Set-Cookie");
  return cookie.substr(0, cookie.find(';'));
}

const std::vector<std::string> kOwnRateLimits = {"--rate-limit-key", "100000", "--rate-limit-ip", "100000"};

std::vector<std::string> With(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

TEST_CASE("every documented path answers the methods it does not have 405 with its Allow header, on every listener") {
  e2e::TempDir dir;
  const auto documented = OpenApiPaths();
  const DocumentedPath graphql{"/graphql", {"POST"}, ErrorBody::kGraphQL, {}};
  const DocumentedPath sdk{"/sdk.js", {"GET"}, ErrorBody::kRest, {}};
  const DocumentedPath demo{"/demo/", {"GET"}, ErrorBody::kRest, {}};
  const DocumentedPath healthz{"/healthz", {"GET"}, ErrorBody::kRest, {}};
  const DocumentedPath readyz{"/readyz", {"GET"}, ErrorBody::kRest, {}};

  SUBCASE("one listener for everything, and the admin listener") {
    e2e::Daemon daemon = e2e::StartDaemon(dir, dir.File("one.db"), With({"--demo"}, kOwnRateLimits));
    const int adminPort = PortOf(daemon, "admin listener on ");
    const httplib::Headers key{{"X-Api-Key", DemoKey(daemon)}};
    const httplib::Headers session{{"Cookie", AdminCookie(daemon.port)}};
    std::vector<DocumentedPath> paths;
    for (const auto& [templ, methods] : documented) {
      // /api/auth/session needs the session like the rest of /api; sign-in and sign-out do not.
      const bool admin = templ.rfind("/api/", 0) == 0 && templ != "/api/auth/login" && templ != "/api/auth/logout";
      paths.push_back({Fill(templ), methods, ErrorBody::kRest,
                       templ.rfind("/chat/", 0) == 0 ? key : admin ? session : httplib::Headers{}});
    }
    paths.push_back(graphql);
    paths.push_back({"/mcp", {"POST", "DELETE"}, ErrorBody::kJsonRpc, {}});
    paths.push_back(sdk);
    paths.push_back(demo);
    Walk("main", daemon.port, paths);
    Walk("admin", adminPort, {healthz, readyz, {"/metrics", {"GET"}, ErrorBody::kRest, {}}});
    e2e::StopDaemon(daemon);
  }

  SUBCASE("the storefront and GraphQL listeners of their own") {
    e2e::Daemon daemon = e2e::StartDaemon(
        dir, dir.File("apart.db"),
        With({"--demo", "--storefront-listen", "127.0.0.1:0", "--graphql-listen", "127.0.0.1:0"}, kOwnRateLimits));
    std::vector<DocumentedPath> widgets = {sdk, demo, healthz, readyz};
    for (const auto& [templ, methods] : documented)
      if (templ.rfind("/storefront/", 0) == 0 || templ.rfind("/files/", 0) == 0)
        widgets.push_back({Fill(templ), methods, ErrorBody::kRest, {}});
    Walk("storefront", PortOf(daemon, "storefront listening on "), widgets);
    Walk("graphql", PortOf(daemon, "graphql listening on "), {graphql, healthz, readyz});
    e2e::StopDaemon(daemon);
  }
}
