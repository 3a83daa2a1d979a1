#include "http_bridge.h"

#include <cstdio>
#include <limits>
#include <memory>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "livechat/clock.h"
#include "livechat/http.h"
#include "livechat/json_codec.h"

namespace livechatd {
namespace {

// The error a status the transport produced itself stands for.
livechat::ErrorCode TransportCode(int status) {
  using livechat::ErrorCode;
  switch (status) {
    case 413: return ErrorCode::kPayloadTooLarge;
    case 429: return ErrorCode::kRateLimited;
    // Over the listener's connection cap: retry later, like a rate limit.
    case 503: return ErrorCode::kRateLimited;
    case 500: return ErrorCode::kInternal;
    default: return ErrorCode::kInvalidParams;
  }
}

// The path as a client should have sent it: a raw byte over 0x7f (the
// transport lets them through; the target may not even be UTF-8) is
// percent-encoded, so a log line is always valid UTF-8 JSON and names the
// bytes that came. Controls never get this far (the parser refuses them).
std::string LoggedPath(std::string_view target) {
  std::string out;
  for (const char& ch : target.substr(0, target.find('?'))) {
    if (static_cast<unsigned char>(ch) < 0x80) {
      out.push_back(ch);
    } else {
      out += livechat::PercentEncode(std::string_view(&ch, 1));
    }
  }
  return out;
}

class AccessLog {
 public:
  void Write(const HttpExchange& x) {
    // The path only: query strings carry customer emails and cursors.
    const std::string path = LoggedPath(x.request.target);
    std::string line = "{\"time\":";
    livechat::AppendJsonString(line, livechat::FormatIso8601(livechat::Clock::Default()->NowMillis()));
    line += ",\"method\":";
    livechat::AppendJsonString(line, x.method);
    line += ",\"path\":";
    livechat::AppendJsonString(line, path);
    line += fmt::format(",\"status\":{},\"durationMs\":{:.3f},\"peer\":", x.status, x.seconds * 1000.0);
    livechat::AppendJsonString(line, x.request.peerIp);
    line += ",\"requestId\":";
    livechat::AppendJsonString(line, x.response.Header("X-Request-Id").value_or(std::string()));
    line += "}\n";
    std::lock_guard<std::mutex> lock(mu_);
    std::fwrite(line.data(), 1, line.size(), stderr);
  }

 private:
  std::mutex mu_;  // one whole line per write, never interleaved
};

std::uint64_t ContentLength(const livechat::HttpRequest& req) {
  auto value = req.Header("content-length");
  if (!value || value->empty() || value->size() > 19) return 0;
  std::uint64_t n = 0;
  for (char c : *value) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return n;
}

}  // namespace

bool IsUploadTarget(const std::string& target) {
  const std::string path = target.substr(0, target.find('?'));
  if (path == "/storefront/files" || path == "/api/files" || path == "/api/customers/import") return true;
  // The inbox's attachments: /api/chat/conversations/{id}/files.
  constexpr std::string_view kPrefix = "/api/chat/conversations/", kSuffix = "/files";
  return path.size() > kPrefix.size() + kSuffix.size() && path.starts_with(kPrefix) && path.ends_with(kSuffix) &&
         path.find('/', kPrefix.size()) == path.size() - kSuffix.size();
}

void InstallBridge(Site& site, livechat::RestApi* rest, livechat::GraphQLApi* graphql, livechat::Store& store,
                   const BridgeOptions& options) {
  InstallProbes(site, store, options.obs);
  if (options.obs.serveOpenApi) InstallOpenApi(site);
  if (auto* platform = options.platform)
    site.Route(&livechat::PlatformApi::Owns, [platform](livechat::HttpRequest& req) {
      livechat::HttpResponse out = platform->Handle(req);
      if (out.route.empty()) out.route = "/platform";
      return out;
    });
  if (auto* files = options.files)
    site.Route(&livechat::FileServer::Owns, [files](livechat::HttpRequest& req) { return files->Handle(req); });
  if (auto* mcp = options.mcp)
    site.Route(&livechat::McpServer::Owns, [mcp](livechat::HttpRequest& req) {
      livechat::HttpResponse out = mcp->Handle(req);
      out.route = "/mcp";
      return out;
    });
  if (graphql)
    site.Route(&livechat::GraphQLApi::Owns, [graphql](livechat::HttpRequest& req) {
      livechat::HttpResponse out = graphql->Handle(req);
      out.route = "/graphql";
      return out;
    });
  if (rest)
    site.Route(&livechat::RestApi::Owns, [rest](livechat::HttpRequest& req) { return rest->Handle(req); });
}

HttpHandlers MakeHandlers(const Site& site, const BridgeOptions& options, livechat::RestApi* rest) {
  HttpHandlers h;
  h.handle = [&site](livechat::HttpRequest& req) {
    std::string id = RequestIdFor(req);
    livechat::HttpResponse res = site.Handle(req);
    if (res.deferred) {
      // The answer that comes later carries the id.
      res.deferred = [inner = std::move(res.deferred), id](livechat::HttpReply reply) {
        inner([reply = std::move(reply), id](livechat::HttpResponse later) {
          later.SetHeader("X-Request-Id", id);
          reply(std::move(later));
        });
      };
      return res;
    }
    res.SetHeader("X-Request-Id", std::move(id));
    return res;
  };
  if (const std::size_t max = options.commandMaxBody; max > 0) {
    h.screen = [max, rest](const livechat::HttpRequest& req) -> std::optional<livechat::HttpResponse> {
      if (ContentLength(req) <= max || IsUploadTarget(req.target)) return std::nullopt;
      const livechat::Error tooLarge{livechat::ErrorCode::kPayloadTooLarge,
                                     "the body is larger than " + std::to_string(max) +
                                         " bytes; only file uploads may be larger"};
      // The REST API answers it as it answers every request of its surface
      // (counted, with the rate-limit headers); the bridge knows no keys.
      livechat::HttpResponse res = rest && livechat::RestApi::Owns(req.target)
                                       ? rest->RefuseUnreadBody(req, tooLarge)
                                       : JsonResponse(413, livechat::RestErrorBody(tooLarge));
      res.SetHeader("X-Request-Id", RequestIdFor(req));
      return res;
    };
  }
  if (const std::size_t max = options.commandMaxBody; max > 0) {
    // A chunked body has no Content-Length for the screen above: it is cut
    // off at the same limit as it arrives.
    h.bodyLimit = [max](const livechat::HttpRequest& req) {
      return IsUploadTarget(req.target) ? std::numeric_limits<std::size_t>::max() : max;
    };
  }
  if (livechat::Store* store = options.inlineReads; rest && store)
    h.runsInline = [store](const livechat::HttpRequest& req) {
      // A send runs here as far as its write, which goes to the store's
      // writer; its answer is posted back to the connection after the commit.
      return (livechat::RestApi::IsBoundedRead(req) || livechat::RestApi::IsHandedToWriter(req)) &&
             store->CanReadWithoutWaiting();
    };
  h.refuse = [](int status, std::string_view message, const livechat::HttpRequest& req) {
    livechat::HttpResponse res =
        JsonResponse(status, livechat::RestErrorBody({TransportCode(status), std::string(message)}));
    res.SetHeader("X-Request-Id", RequestIdFor(req));
    return res;
  };
  auto log = options.accessLog ? std::make_shared<AccessLog>() : nullptr;
  auto metrics = options.obs.metrics ? std::make_shared<RequestMetrics>(*options.obs.metrics) : nullptr;
  if (log || metrics) {
    h.done = [log, metrics](const HttpExchange& x) {
      // A connection refused before any request was read has no method.
      if (metrics && x.method != "-") metrics->Count(x.method, x.request.target, x.status, x.seconds, x.response.route);
      if (log) log->Write(x);
    };
  }
  return h;
}

}  // namespace livechatd
