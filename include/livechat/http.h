// Transport-neutral HTTP exchange types. Adapters (REST, GraphQL, MCP,
// storefront) take an HttpRequest and return an HttpResponse; only hosts/
// touch sockets. Tests call adapters in-process with these values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "livechat/base/utf8.h"
#include "livechat/json_codec.h"
#include "livechat/result.h"

namespace livechat {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // raw request target as received: "/chat/conversations?limit=5" (not decoded)
  std::vector<std::pair<std::string, std::string>> headers;  // names lowercase
  std::string body;
  std::string peerIp;  // address of the TCP peer

  // First value of a header (name compared case-insensitively), or empty optional.
  std::optional<std::string> Header(std::string_view name) const;
  // The same value, not copied: valid while the request is.
  std::optional<std::string_view> HeaderView(std::string_view name) const;
};

// Where a streamed response body goes (HttpResponse::stream). The host
// implements it over its socket; an in-process test over a string.
class StreamSink {
 public:
  virtual ~StreamSink() = default;
  // Sends `bytes` to the client, blocking until the transport has taken them.
  // False when the client is gone or did not take them within the transport's
  // write timeout: the producer must return then (nothing more can be sent).
  virtual bool Write(std::string_view bytes) = 0;
  // False once the transport knows the client has gone (it hung up while the
  // producer was waiting for something to send). Cheap: a producer that
  // waits asks it at each wake-up and returns, freeing what it holds,
  // without waiting for a write to fail.
  virtual bool Open() { return true; }
};

struct HttpResponse;
// Takes the real answer to a deferred response (HttpResponse::deferred).
using HttpReply = std::function<void(HttpResponse)>;

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // A body produced after the status and headers are sent (a live stream,
  // text/event-stream): set instead of `body`. The host calls it once, on the
  // thread serving the request, and ends the response when it returns; it
  // returns when the stream is over or a Write failed. Copyable, so what it
  // holds (a stream slot) is shared and released when the last copy goes.
  std::function<void(StreamSink&)> stream;
  // An answer that is not ready yet (a long-poll waiting for a change): set
  // instead of everything else. The host calls it once, after the handler
  // returned, with `reply`; the adapter calls `reply` once, from any thread,
  // with the real answer (never itself deferred). Meanwhile the request
  // holds no thread of the host's. A host that cannot wait that way calls
  // AwaitReply.
  std::function<void(HttpReply reply)> deferred;
  // The route template the adapter matched ("/chat/conversations/{conversationId}"),
  // empty when it answered before routing or no route matched. Never sent: hosts
  // label metrics with it without parsing the target again.
  std::string route;

  void SetHeader(std::string name, std::string value);
  std::optional<std::string> Header(std::string_view name) const;
};

// The real answer to `res`: `res` itself, or, when it is deferred, the
// answer its reply brings, waited for on this thread.
HttpResponse AwaitReply(HttpResponse res);

// What a router's route table says about one request. Every router (REST,
// storefront, platform, files, GraphQL, MCP) looks requests up in its table
// with MatchRoute, so a 405 and its Allow header come from the rows that
// dispatch and cannot drift from them.
template <typename Row>
struct RouteMatch {
  const Row* row = nullptr;      // the row for this path and method
  const Row* pathRow = nullptr;  // the first row for this path, any method; null: no such path (404)
  std::string allow;             // when `row` is null: the path's methods in table order ("GET, POST")
};

// `rows` have a `method` member; `samePath(row)` tells whether a row is for
// the request's path (it may capture path parameters: its last call was for
// the returned `row`). HEAD is not special here: hosts serve it as GET.
template <typename Rows, typename SamePath>
RouteMatch<typename Rows::value_type> MatchRoute(const Rows& rows, std::string_view method, SamePath&& samePath) {
  RouteMatch<typename Rows::value_type> out;
  for (const auto& r : rows) {
    if (!samePath(r)) continue;
    if (out.pathRow == nullptr) out.pathRow = &r;
    if (r.method == method) {
      out.row = &r;
      return out;
    }
    if (!out.allow.empty()) out.allow += ", ";
    out.allow += r.method;
  }
  return out;
}

// The table of a router with a single path (/graphql, /mcp, /files/{fileId}):
// its methods only.
struct MethodRoute {
  std::string_view method;
};
template <std::size_t N>
RouteMatch<MethodRoute> MatchMethod(const std::array<MethodRoute, N>& methods, std::string_view method) {
  return MatchRoute(methods, method, [](const MethodRoute&) { return true; });
}

// The error of a path asked with a method it does not have; `allow` is the
// RouteMatch's. The caller also sends `allow` as the Allow header (RFC 9110).
Error MethodNotAllowedError(std::string_view method, std::string_view allow);

// A request target split into decoded path segments and query parameters.
struct ParsedTarget {
  std::string path;                   // raw path, not decoded: "/chat/conversations/abc%2F1"
  std::vector<std::string> segments;  // decoded: {"chat", "conversations", "abc/1"}
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order, repeats kept
  std::vector<std::string> QueryAll(std::string_view key) const;
  std::optional<std::string> Query(std::string_view key) const;  // first value
};

// Percent-decodes; '+' becomes a space only when `plusAsSpace` (query strings).
// Returns empty optional on a malformed escape ("%G1", a lone "%").
std::optional<std::string> PercentDecode(std::string_view in, bool plusAsSpace);
std::string PercentEncode(std::string_view in);
// Empty optional when the path or a query component is malformed.
std::optional<ParsedTarget> ParseTarget(std::string_view target);

// One rule for a JSON request body on every listener (REST, storefront,
// GraphQL, MCP, platform requests); each surface maps the outcome to its own
// error envelope. Checked in this order: size, media type, empty, UTF-8, JSON.
enum class JsonBodyStatus {
  kOk,
  kTooLarge,              // more than the surface's byte limit
  kUnsupportedMediaType,  // Content-Type missing, not application/json, or a charset other than utf-8
  kEmpty,                 // no bytes
  kNotUtf8,               // a byte sequence that is not UTF-8, anywhere in the body
  kMalformedJson,         // not one JSON value
};
struct JsonBodyCheck {
  JsonBodyStatus status = JsonBodyStatus::kOk;
  std::string parseError;     // kEmpty, kMalformedJson: the parser's words ("Missing a comma ...")
  std::size_t parseOffset = 0;  // kMalformedJson: byte where parsing stopped
};
// RFC 9110 8.3.1: type and subtype compare case-insensitively, parameters
// may follow; `charset`, when present, must name UTF-8 (RFC 8259 8.1). Only
// application/json itself: the docs promise no "+json" types.
bool IsJsonMediaType(std::optional<std::string_view> contentType);
// The whole rule, parse included (the document is dropped).
JsonBodyCheck CheckJsonBody(const HttpRequest& req, std::size_t maxBytes);

// An IPv4 or IPv6 network ("10.0.0.0/8", "::1/128", or a single address).
class Cidr {
 public:
  static std::optional<Cidr> Parse(std::string_view text);
  bool Contains(std::string_view address) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  bool v6_ = false;
  std::uint8_t bytes_[16] = {};
  int prefix_ = 0;
};

// The client address: the peer, or -- only when the peer is a trusted proxy --
// the right-most X-Forwarded-For entry that is not itself a trusted proxy.
std::string ClientIp(const HttpRequest& req, const std::vector<Cidr>& trustedProxies);

}  // namespace livechat
