// livechatd's HTTP/1.1 listener: Boost.Asio does the socket I/O on a few
// threads, Boost.Beast parses requests, worker threads run the handlers, and
// the adapters' HttpRequest/HttpResponse go in and out.
//
// Why not cpp-httplib, which the daemon used before: it gives every open
// connection a worker thread for as long as the connection lasts, and bounds
// each read, not a request. 200 connections sending header bytes slowly left
// every other client unanswered; 100 idle keep-alive connections delayed a
// request by 9 s (docs/decisions.md). Here a connection costs a thread only
// while its request runs in a handler: reading a head, reading a body,
// waiting between keep-alive requests and writing a response are all
// asynchronous, each bounded by a deadline, and no address may hold more than
// its share of connections.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/http.h"
#include "livechat/metrics.h"

namespace livechatd {

struct HttpServerOptions {
  // The listener's name in /metrics ("api", "storefront", "graphql", "admin").
  std::string name = "api";
  // Worker threads that run the handlers. A handler blocks its worker (a
  // database write, a long-poll); the others go on serving. The socket I/O
  // has threads of its own (the cores, at most 4).
  int threads = 4;
  // Bodies larger than this are refused 413 before they are read.
  std::size_t maxBodyBytes = 1 << 20;
  // The request line and headers together, up to and including the blank
  // line that ends them; larger: 431, connection closed.
  std::size_t maxHeadBytes = 32 * 1024;
  // Header fields of one request; more: 431, connection closed. Each is a
  // lookup's worth of work for every header the handlers read.
  std::size_t maxHeaderFields = 100;
  // From the first byte of a request to the last byte of its head, and of
  // its body with the time the body's size takes at 64 KiB/s added (so a
  // slow but honest upload completes). A client that trickles is closed when
  // it runs out, however steadily it sends.
  std::chrono::milliseconds requestTimeout{30'000};
  // A connection that sends nothing for this long (new, or between
  // keep-alive requests) is closed.
  std::chrono::milliseconds keepAliveTimeout{5'000};
  // Each 256 KiB of a response (or each chunk of a stream) must be taken
  // within this; a client that stops reading is closed.
  std::chrono::milliseconds writeTimeout{5'000};
  // Open connections per source address (0: no cap). Over it, the new
  // connection is answered 429 at once and closed. `exempt` (the trusted
  // proxies, which carry many clients each) is never capped.
  int maxConnectionsPerAddress = 64;
  std::vector<livechat::Cidr> exempt;
  // Open connections in all; over it, 503 at once.
  int maxConnections = 10'000;
  // Counts refusals and timeouts, and the open connections; null: not counted.
  livechat::MetricsRegistry* metrics = nullptr;
};

// What the server tells its owner about one finished exchange (access log,
// request metrics). `method` is as received (HEAD stays HEAD).
struct HttpExchange {
  const livechat::HttpRequest& request;
  std::string_view method;
  int status = 0;
  const livechat::HttpResponse& response;
  double seconds = 0;  // from the request's head being read to its response written
};

struct HttpHandlers {
  // Answers a request. HEAD arrives as GET (the adapters know only GET); the
  // server sends the head of the answer without its body.
  std::function<livechat::HttpResponse(livechat::HttpRequest&)> handle;
  // Called with the request's head (an empty body) before the body is read:
  // a response refuses the request without reading the body, and the
  // connection closes after it. Empty: every request is read.
  std::function<std::optional<livechat::HttpResponse>(const livechat::HttpRequest&)> screen;
  // The largest body this request may have, from its head (the server's
  // maxBodyBytes still caps it); a chunked body is counted as it arrives.
  // Empty: maxBodyBytes.
  std::function<std::size_t(const livechat::HttpRequest&)> bodyLimit;
  // True for a request whose handler answers at once, waiting on nothing
  // another request may hold for long (a plain read of a local database):
  // it runs on the I/O thread that read it, which saves two thread
  // hand-offs, and keeps no worker. A streamed answer still runs on a
  // worker. Empty: every request runs on a worker.
  std::function<bool(const livechat::HttpRequest&)> runsInline;
  // The answer to a request the server refused itself (400 unparsable, 413
  // over maxBodyBytes, 431 head too large; 429 and 503 for a connection over
  // a cap, before any request), `message` saying why for a person; `request`
  // has whatever of the head was parsed. Must not be empty.
  std::function<livechat::HttpResponse(int status, std::string_view message, const livechat::HttpRequest& request)>
      refuse;
  // After each response was written (or failed). Empty: nothing is told.
  std::function<void(const HttpExchange&)> done;
};

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, HttpHandlers handlers);
  ~HttpServer();  // Stop()s
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds host:port (0: any free port) and starts listening; the bound port,
  // or -1 (with the reason in `error`).
  int Bind(const std::string& host, int port, std::string* error = nullptr);
  // Starts the threads; returns at once.
  void Start();
  // Stops accepting, closes connections waiting for a request, and lets the
  // requests in handlers finish (closing their connections after the
  // answer); returns at once. Safe from any thread, more than once. Streams
  // and long-polls must be ended by their owner.
  void Stop();
  // Blocks until the threads are done: after Stop(), once the last
  // connection has closed.
  void Wait();


 private:
  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace livechatd
