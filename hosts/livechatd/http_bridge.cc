#include "http_bridge.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "host_routes.h"
#include "livechat/clock.h"
#include "livechat/json_codec.h"

namespace livechatd {
namespace {

using Steady = std::chrono::steady_clock;

// cpp-httplib serves a whole request on one worker thread and offers no
// per-request context, so the pre-routing hook stamps the start here and the
// logger reads it. Requests that fail before routing (a malformed request
// line) have no stamp and log a duration of 0.
thread_local Steady::time_point tRequestStart{};
// The route template the adapter reported for this worker's current request
// (same per-thread hand-off as the start time); empty: the logger derives it.
thread_local std::string tRoute;

std::string Lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The status the transport itself produced, as the REST error it means.
livechat::Error TransportError(int status) {
  using livechat::ErrorCode;
  switch (status) {
    case 400: return {ErrorCode::kInvalidParams, "The request could not be parsed as HTTP."};
    case 404: return {ErrorCode::kNotFound, "No such resource."};
    case 405: return {ErrorCode::kMethodNotAllowed, "This method is not supported."};
    case 413: return {ErrorCode::kPayloadTooLarge, "The request body is too large."};
    case 414: return {ErrorCode::kInvalidParams, "The request target is too long."};
    case 416: return {ErrorCode::kInvalidParams, "The requested range cannot be served."};
    default: return {ErrorCode::kInternal, "The server could not complete the request."};
  }
}

void SetJson(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "application/json");
}

class AccessLog {
 public:
  void Write(const httplib::Request& req, const httplib::Response& res, double ms) {
    // The path only: query strings carry customer emails and cursors.
    std::string path = req.target.substr(0, req.target.find('?'));
    std::string line = "{\"time\":";
    livechat::AppendJsonString(line, livechat::FormatIso8601(livechat::Clock::Default()->NowMillis()));
    line += ",\"method\":";
    livechat::AppendJsonString(line, req.method);
    line += ",\"path\":";
    livechat::AppendJsonString(line, path);
    line += fmt::format(",\"status\":{},\"durationMs\":{:.3f},\"peer\":", res.status, ms);
    livechat::AppendJsonString(line, req.remote_addr);
    line += ",\"requestId\":";
    livechat::AppendJsonString(line, res.get_header_value("X-Request-Id"));
    line += "}\n";
    std::lock_guard<std::mutex> lock(mu_);
    std::fwrite(line.data(), 1, line.size(), stderr);
  }

 private:
  std::mutex mu_;  // one whole line per write, never interleaved
};

// A streamed body's sink over cpp-httplib's: each Write is one chunk of the
// chunked response. cpp-httplib's write waits at most its write timeout for
// the socket to take more, and the send itself is bounded by the socket's
// send timeout (SetSendTimeout), so a client that stops reading fails a
// Write instead of holding the thread.
class ChunkSink final : public livechat::StreamSink {
 public:
  explicit ChunkSink(httplib::DataSink& sink) : sink_(sink) {}
  bool Write(std::string_view bytes) override {
    if (!ok_) return false;
    ok_ = sink_.is_writable() && sink_.write(bytes.data(), bytes.size());
    return ok_;
  }
  bool ok() const { return ok_; }

 private:
  httplib::DataSink& sink_;
  bool ok_ = true;
};

}  // namespace

void CopyResponse(livechat::HttpResponse&& from, httplib::Response& to) {
  to.status = from.status;
  bool hasContentType = false;
  std::string contentType;
  for (auto& [name, value] : from.headers) {
    std::string lower = Lowercase(name);
    // cpp-httplib writes the framing headers itself; a second copy would
    // corrupt the response.
    if (lower == "content-length" || lower == "transfer-encoding" || lower == "connection") continue;
    if (lower == "content-type") {
      hasContentType = true;
      // A streamed body's type goes with its provider (which sets it).
      if (from.stream) {
        contentType = value;
        continue;
      }
    }
    to.set_header(name, value);
  }
  if (from.stream) {
    // The producer writes the whole stream in one call; its end (or a failed
    // write) ends the response, and the connection with it: the client
    // reconnects to resume, and a stream's connection never waits idle for
    // another request (which would hold a thread, and a stop, for the
    // keep-alive timeout).
    to.set_header("Connection", "close");
    to.set_chunked_content_provider(contentType, [produce = std::move(from.stream)](std::size_t, httplib::DataSink& sink) {
      ChunkSink out(sink);
      produce(out);
      // The last chunk ends the body properly; cpp-httplib 0.11.4 reads no
      // Connection header of a response, but closes the connection when the
      // provider answers false.
      if (out.ok()) sink.done();
      return false;
    });
    return;
  }
  if (!from.body.empty() && !hasContentType) to.set_header("Content-Type", "application/json");
  to.body = std::move(from.body);
}

void SetSendTimeout(httplib::Server& server, std::chrono::milliseconds timeout) {
  // Accepted sockets inherit the listening socket's options (Linux), so this
  // bounds every blocking send on the server's connections.
  server.set_socket_options([timeout](socket_t sock) {
    httplib::default_socket_options(sock);
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  });
}

// The upload routes, whose bodies may reach transportMaxBody.
bool IsUploadTarget(const std::string& target) {
  const std::string path = target.substr(0, target.find('?'));
  return path == "/storefront/files" || path == "/api/files" || path == "/api/customers/import";
}

namespace {

bool HasNoFraming(const httplib::Request& req) {
  return (req.method == "POST" || req.method == "PUT" || req.method == "PATCH") &&
         !req.has_header("Content-Length") && !req.has_header("Transfer-Encoding");
}

}  // namespace

void InstallRequestHooks(httplib::Server& server, const BridgeOptions& options, livechat::RestApi* rest) {
  // Every response carries the request id; the logger (which cpp-httplib
  // calls after each response) logs it and counts the request.
  // cpp-httplib calls this before it reads the body.
  server.set_pre_routing_handler([commandMax = options.commandMaxBody, rest](const httplib::Request& req,
                                                                             httplib::Response& res) {
    tRequestStart = Steady::now();
    res.set_header("X-Request-Id", RequestIdFor(req));
    if (HasNoFraming(req)) {
      // RFC 9112 section 6.3: a request with neither Content-Length nor
      // Transfer-Encoding has a body of length zero (`curl -X PUT` sends
      // one). cpp-httplib 0.11.4 refuses such a POST, PUT or PATCH as
      // unparsable (400) before any route; saying the length it already has
      // lets the routers answer (405 for a method the path lacks). The
      // request object is cpp-httplib's own, not a constant.
      const_cast<httplib::Request&>(req).set_header("Content-Length", "0");
    }
    if (commandMax > 0 && req.get_header_value<std::uint64_t>("Content-Length") > commandMax && !IsUploadTarget(req.target)) {
      const livechat::Error tooLarge{livechat::ErrorCode::kPayloadTooLarge,
                                     "the body is larger than " + std::to_string(commandMax) +
                                         " bytes; only file uploads may be larger"};
      // The REST API answers it as it answers every request of its surface
      // (counted, with the rate-limit headers); the bridge knows no keys.
      if (rest && livechat::RestApi::Owns(req.target)) {
        CopyResponse(rest->RefuseUnreadBody(ToHttpRequest(req), tooLarge), res);
      } else {
        SetJson(res, 413, livechat::RestErrorBody(tooLarge));
      }
      res.set_header("Connection", "close");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  auto log = options.accessLog ? std::make_shared<AccessLog>() : nullptr;
  livechat::MetricsRegistry* metrics = options.obs.metrics;
  if (!log && !metrics) return;
  server.set_logger([log, metrics](const httplib::Request& req, const httplib::Response& res) {
    double ms = 0;
    if (tRequestStart != Steady::time_point{}) {
      ms = std::chrono::duration<double, std::milli>(Steady::now() - tRequestStart).count();
      tRequestStart = Steady::time_point{};
    }
    if (metrics) CountRequest(*metrics, req, res.status, ms / 1000.0, tRoute);
    tRoute.clear();
    if (log) log->Write(req, res, ms);
  });
}

livechat::HttpRequest ToHttpRequest(const httplib::Request& in) {
  livechat::HttpRequest out;
  // cpp-httplib routes HEAD to the GET handlers and drops the body itself;
  // the adapters only know GET.
  out.method = in.method == "HEAD" ? "GET" : in.method;
  out.target = in.target;
  out.headers.reserve(in.headers.size());
  for (const auto& [name, value] : in.headers) {
    // Added by cpp-httplib, not sent by the client.
    if (name == "REMOTE_ADDR" || name == "REMOTE_PORT" || name == "LOCAL_ADDR" || name == "LOCAL_PORT") continue;
    out.headers.emplace_back(Lowercase(name), value);
  }
  out.body = in.body;
  out.peerIp = in.remote_addr;
  return out;
}

void InstallBridge(httplib::Server& server, livechat::RestApi* rest, livechat::GraphQLApi* graphql,
                   livechat::Store& store,
                   const BridgeOptions& options) {
  server.set_payload_max_length(options.transportMaxBody);

  InstallRequestHooks(server, options, rest);
  InstallProbes(server, store, options.obs);
  if (options.obs.serveOpenApi) InstallOpenApi(server);

  auto serve = [rest, graphql, mcp = options.mcp, files = options.files, platform = options.platform](
                   const httplib::Request& in, httplib::Response& res) {
    if (platform && livechat::PlatformApi::Owns(in.target)) {
      livechat::HttpResponse out = platform->Handle(ToHttpRequest(in));
      tRoute = out.route.empty() ? "/platform" : std::move(out.route);
      CopyResponse(std::move(out), res);
      return;
    }
    if (files && livechat::FileServer::Owns(in.target)) {
      livechat::HttpResponse out = files->Handle(ToHttpRequest(in));
      tRoute = std::move(out.route);
      CopyResponse(std::move(out), res);
      return;
    }
    if (mcp && livechat::McpServer::Owns(in.target)) {
      tRoute = "/mcp";
      CopyResponse(mcp->Handle(ToHttpRequest(in)), res);
      return;
    }
    if (graphql && livechat::GraphQLApi::Owns(in.target)) {
      tRoute = "/graphql";
      CopyResponse(graphql->Handle(ToHttpRequest(in)), res);
      return;
    }
    if (!rest || !livechat::RestApi::Owns(in.target)) {
      std::string path = in.target.substr(0, in.target.find('?'));
      SetJson(res, 404,
              livechat::RestErrorBody({livechat::ErrorCode::kNotFound, "No resource at " + path + "."}));
      return;
    }
    livechat::HttpResponse out = rest->Handle(ToHttpRequest(in));
    tRoute = std::move(out.route);
    if (out.stream) {
      // cpp-httplib 0.11.4 gzips or brotli-compresses every text/* response
      // whose client accepts it, text/event-stream included, and a
      // compressor holds a stream's events until its buffer fills: a browser
      // (which always sends Accept-Encoding) would see nothing arrive. The
      // encoding is chosen from the request after this handler returns, so
      // a stream's request forgets what it accepts. The request object is
      // cpp-httplib's own, not const; only this handler's signature is.
      auto& headers = const_cast<httplib::Request&>(in).headers;
      headers.erase("Accept-Encoding");
    }
    CopyResponse(std::move(out), res);
  };
  // cpp-httplib matches the decoded path against each pattern. This one
  // matches every path, even one with a decoded newline (which ".*" would
  // not), so the adapters, routing on the raw target, answer all of them.
  RouteEveryMethod(server, "[\\s\\S]*", serve);

  // cpp-httplib calls this for every status >= 400, ours included: only fill
  // responses it produced itself (they have no body).
  server.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        // Refused before routing (a body over the transport limit): no id yet.
        if (!res.has_header("X-Request-Id")) res.set_header("X-Request-Id", RequestIdFor(req));
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        SetJson(res, res.status, livechat::RestErrorBody(TransportError(res.status)));
        return httplib::Server::HandlerResponse::Handled;
      }));
  // No exception leaves lib/, so this only catches allocation failures and
  // bugs; the client gets the generic 500 body, the operator the detail.
  server.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    std::fprintf(stderr, "livechatd: exception serving %s %s: %s\n", req.method.c_str(), req.path.c_str(),
                 what.c_str());
    SetJson(res, 500, livechat::RestErrorBody(TransportError(500)));
  });
}

}  // namespace livechatd
