#include "http_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <limits>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

namespace livechatd {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;
using Steady = std::chrono::steady_clock;

std::string_view Reason(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    default: return status < 400 ? "OK" : (status < 500 ? "Client Error" : "Server Error");
  }
}

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);
         });
}

void AppendNumber(std::string& out, std::uint64_t n) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
  out.append(digits, end);
}

// The status line and headers of `res`, framed by the server: the adapters'
// own framing headers are dropped (a second copy would corrupt the
// response). `close`: the connection ends after this response.
void AppendHead(std::string& out, const livechat::HttpResponse& res, bool close, bool chunked, std::size_t length) {
  out += "HTTP/1.1 ";
  AppendNumber(out, static_cast<std::uint64_t>(res.status));
  out += ' ';
  out += Reason(res.status);
  out += "\r\n";
  bool hasType = false;
  for (const auto& [name, value] : res.headers) {
    if (IEquals(name, "content-length") || IEquals(name, "transfer-encoding") || IEquals(name, "connection")) continue;
    if (IEquals(name, "content-type")) hasType = true;
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  const bool noBody = res.status == 204 || res.status == 304 || res.status < 200;
  if (!hasType && !noBody && (chunked || length > 0)) out += "Content-Type: application/json\r\n";
  if (chunked) {
    out += "Transfer-Encoding: chunked\r\n";
  } else if (!noBody) {
    out += "Content-Length: ";
    AppendNumber(out, length);
    out += "\r\n";
  }
  if (close) out += "Connection: close\r\n";
  out += "\r\n";
}

// The handler asked for the connection to end after its answer.
bool AsksToClose(const livechat::HttpResponse& res) {
  for (const auto& [name, value] : res.headers)
    if (IEquals(name, "connection") && IEquals(value, "close")) return true;
  return false;
}

// Sends all of `bytes` on a socket Asio has made non-blocking, waiting at
// most until `deadline` for it to take them.
bool SendAll(int fd, std::string_view bytes, Steady::time_point deadline) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Steady::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLOUT, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1'000)));
    if (r < 0 && errno != EINTR) return false;
  }
  return true;
}

// The TCP peer as the adapters see it: an IPv4 client of a dual-stack
// listener is its IPv4 address, not ::ffff:a.b.c.d.
std::string PeerAddress(const tcp::socket& socket) {
  boost::system::error_code ec;
  auto ep = socket.remote_endpoint(ec);
  if (ec) return {};
  auto addr = ep.address();
  if (addr.is_v6() && addr.to_v6().is_v4_mapped()) return net::ip::make_address_v4(net::ip::v4_mapped, addr.to_v6()).to_string();
  return addr.to_string();
}

}  // namespace

class HttpServer::Impl : public std::enable_shared_from_this<HttpServer::Impl> {
 public:
  Impl(HttpServerOptions options, HttpHandlers handlers)
      : options_(std::move(options)),
        handlers_(std::move(handlers)),
        ioc_(std::max(1, options_.threads)),
        acceptor_(net::make_strand(ioc_)) {
    if (auto* m = options_.metrics) {
      const livechat::MetricLabels listener{{"listener", options_.name}};
      static constexpr char kRefusedHelp[] =
          "Connections refused on accept: per_address (over --max-connections-per-address), capacity (over "
          "--max-connections)";
      refusedPerAddress_ = &m->GetCounter(livechat::metric::kHttpConnectionsRefused, kRefusedHelp,
                                          {{"listener", options_.name}, {"reason", "per_address"}});
      refusedCapacity_ = &m->GetCounter(livechat::metric::kHttpConnectionsRefused, kRefusedHelp,
                                        {{"listener", options_.name}, {"reason", "capacity"}});
      timeouts_ = &m->GetCounter(livechat::metric::kHttpRequestTimeouts,
                                 "Connections closed because a request's head and body did not arrive within "
                                 "--request-timeout",
                                 listener);
      open_ = &m->GetGauge(livechat::metric::kHttpConnectionsOpen, "Open HTTP connections", listener);
    }
  }

  class Connection;

  int Bind(const std::string& host, int port, std::string* error) {
    boost::system::error_code ec;
    tcp::resolver resolver(ioc_);
    auto found = resolver.resolve(host, std::to_string(port), tcp::resolver::passive | tcp::resolver::numeric_service, ec);
    if (ec || found.empty()) {
      if (error) *error = "cannot resolve " + host + (ec ? ": " + ec.message() : std::string());
      return -1;
    }
    tcp::endpoint ep = found.begin()->endpoint();
    acceptor_.open(ep.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(ep, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      if (error) *error = ec.message();
      boost::system::error_code ignored;
      acceptor_.close(ignored);
      return -1;
    }
    return acceptor_.local_endpoint().port();
  }

  void Start() {
    Accept();
    for (int i = 0; i < std::max(1, options_.threads); ++i) threads_.emplace_back([this] { ioc_.run(); });
  }

  void Stop();
  void Wait() {
    std::lock_guard<std::mutex> lock(joinMu_);
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

  int open() const { return openCount_.load(); }
  bool stopping() const { return stopping_.load(); }
  const HttpServerOptions& options() const { return options_; }
  const HttpHandlers& handlers() const { return handlers_; }
  void CountTimeout() {
    if (timeouts_) timeouts_->Inc();
  }

  // Called by a connection's destructor.
  void Forget(Connection* c, const std::string& address, bool capped) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(c);
    if (capped) {
      auto it = perAddress_.find(address);
      if (it != perAddress_.end() && --it->second == 0) perAddress_.erase(it);
    }
    openCount_.fetch_sub(1);
    if (open_) open_->Add(-1);
  }

 private:
  void Accept() {
    acceptor_.async_accept(net::make_strand(ioc_), [self = shared_from_this()](boost::system::error_code ec,
                                                                               tcp::socket socket) {
      if (ec == net::error::operation_aborted || !self->acceptor_.is_open()) return;
      if (!ec) self->Admit(std::move(socket));
      // EMFILE and the like: the next accept may succeed once connections
      // close; a pause keeps the loop from spinning meanwhile.
      if (ec) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      self->Accept();
    });
  }

  void Admit(tcp::socket socket);
  void Refuse(tcp::socket& socket, int status, std::string_view message);

  HttpServerOptions options_;
  HttpHandlers handlers_;
  net::io_context ioc_;
  tcp::acceptor acceptor_;
  std::vector<std::thread> threads_;
  std::mutex joinMu_;

  std::mutex mu_;  // guards live_ and perAddress_
  std::unordered_map<Connection*, std::weak_ptr<Connection>> live_;
  std::unordered_map<std::string, int> perAddress_;
  std::atomic<int> openCount_{0};
  std::atomic<bool> stopping_{false};

  livechat::Counter* refusedPerAddress_ = nullptr;
  livechat::Counter* refusedCapacity_ = nullptr;
  livechat::Counter* timeouts_ = nullptr;
  livechat::Gauge* open_ = nullptr;
};

// One client connection. Every step runs on the connection's strand, one at
// a time: wait for a request (keep-alive timeout), read its head and body
// (one deadline for both), run the handler, write the answer (write
// timeout), and wait again.
class HttpServer::Impl::Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(std::shared_ptr<Impl> server, tcp::socket socket, std::string address, bool capped)
      : server_(std::move(server)), stream_(std::move(socket)), address_(std::move(address)), capped_(capped) {}
  ~Connection() { server_->Forget(this, address_, capped_); }

  void Begin() { WaitForRequest(); }

  // Server stop: a connection waiting for a request (or reading one) ends
  // now; one in a handler or writing ends after its answer.
  void Shutdown() {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      if (self->state_ == State::kWaiting || self->state_ == State::kReading) {
        boost::system::error_code ignored;
        self->stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
        self->stream_.close();
      }
    });
  }

 private:
  enum class State { kWaiting, kReading, kHandling, kWriting };

  const HttpServerOptions& opts() const { return server_->options(); }

  void WaitForRequest() {
    state_ = State::kWaiting;
    if (server_->stopping()) return Close();
    if (buffer_.size() > 0) return ReadHead();  // a pipelined request already arrived
    stream_.expires_after(opts().keepAliveTimeout);
    stream_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      if (ec) return self->Close();  // timed out idle, closed by the client, or stopped
      self->buffer_.commit(n);
      self->ReadHead();
    });
  }

  void ReadHead() {
    state_ = State::kReading;
    started_ = Steady::now();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(opts().maxHeadBytes));
    // The body's size is judged after the head is screened (below).
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    request_ = {};
    method_.clear();
    // One deadline from the request's first byte to its body's last.
    stream_.expires_after(opts().requestTimeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnHead(ec); });
  }

  void OnHead(beast::error_code ec) {
    if (ec == beast::error::timeout) {
      server_->CountTimeout();
      return Close();
    }
    // The client left (mid-head included): no one to answer.
    if (ec == http::error::end_of_stream || ec == http::error::partial_message || ec == net::error::eof ||
        ec == net::error::operation_aborted || ec == net::error::connection_reset)
      return Close();
    if (ec == http::error::header_limit)
      return Refuse(431, "The request line and headers are larger than " + std::to_string(opts().maxHeadBytes) +
                             " bytes.");
    if (ec) return Refuse(400, "The request could not be parsed as HTTP/1.1 (" + ec.message() + ").");

    auto& head = parser_->get();
    method_ = std::string(head.method_string());
    request_.method = method_ == "HEAD" ? "GET" : method_;
    request_.target = std::string(head.target());
    request_.peerIp = address_;
    request_.headers.reserve(static_cast<std::size_t>(std::distance(head.begin(), head.end())));
    for (const auto& field : head) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>((c >= 'A' && c <= 'Z') ? c + 32 : c);
      request_.headers.emplace_back(std::move(name), std::string(field.value()));
    }
    keepAlive_ = head.keep_alive();

    if (const auto& screen = server_->handlers().screen) {
      if (auto refusal = screen(request_)) return Answer(std::move(*refusal), /*close=*/true);
    }
    if (auto length = parser_->content_length(); length && *length > opts().maxBodyBytes) return RefuseLargeBody();
    parser_->body_limit(opts().maxBodyBytes);  // a chunked body is counted as it arrives

    auto expect = head.find(http::field::expect);
    if (expect != head.end() && IEquals(expect->value(), "100-continue") && !parser_->is_done()) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      net::async_write(stream_, net::buffer(kContinue.data(), kContinue.size()),
                       [self = shared_from_this()](beast::error_code wec, std::size_t) {
                         if (wec) return self->Close();
                         self->ReadBody();
                       });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    if (parser_->is_done()) return Dispatch();
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec == beast::error::timeout) {
        self->server_->CountTimeout();
        return self->Close();
      }
      if (ec == http::error::body_limit) return self->RefuseLargeBody();
      if (ec == http::error::end_of_stream || ec == http::error::partial_message || ec == net::error::eof ||
          ec == net::error::connection_reset || ec == net::error::operation_aborted)
        return self->Close();
      if (ec) return self->Refuse(400, "The request body could not be read (" + ec.message() + ").");
      self->Dispatch();
    });
  }

  void Dispatch() {
    state_ = State::kHandling;
    stream_.expires_never();
    request_.body = std::move(parser_->get().body());
    parser_.reset();
    livechat::HttpResponse res = server_->handlers().handle(request_);
    if (res.stream) return Stream(std::move(res));
    Answer(std::move(res), !keepAlive_ || AsksToClose(res) || server_->stopping());
  }

  // A request the server refuses itself; the connection closes after it
  // (what follows on it cannot be framed).
  void Refuse(int status, const std::string& message) {
    state_ = State::kHandling;
    request_.peerIp = address_;
    Answer(server_->handlers().refuse(status, message, request_), /*close=*/true);
  }
  void RefuseLargeBody() {
    Refuse(413, "The request body is larger than " + std::to_string(opts().maxBodyBytes) + " bytes.");
  }

  void Answer(livechat::HttpResponse res, bool close) {
    state_ = State::kWriting;
    stream_.expires_never();
    response_ = std::move(res);
    close_ = close;
    out_.clear();
    const bool head = method_ == "HEAD";
    AppendHead(out_, response_, close_, /*chunked=*/false, response_.body.size());
    std::array<net::const_buffer, 2> buffers{net::buffer(out_), net::buffer(response_.body)};
    if (head || response_.status == 204 || response_.status == 304) buffers[1] = net::const_buffer();
    stream_.expires_after(opts().writeTimeout);
    net::async_write(stream_, buffers, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->Done(self->response_.status);
      if (ec || self->close_) return self->Close();
      self->WaitForRequest();
    });
  }

  // A streamed answer (a live change feed): the producer runs on this
  // thread, each Write one chunk, each sent within the write timeout; the
  // connection ends with the stream (the client reconnects to resume).
  void Stream(livechat::HttpResponse res) {
    state_ = State::kWriting;
    out_.clear();
    AppendHead(out_, res, /*close=*/true, /*chunked=*/true, 0);
    const int fd = stream_.socket().native_handle();
    const auto timeout = opts().writeTimeout;

    class ChunkSink final : public livechat::StreamSink {
     public:
      ChunkSink(int fd, std::chrono::milliseconds timeout) : fd_(fd), timeout_(timeout) {}
      bool Write(std::string_view bytes) override {
        if (!ok_ || bytes.empty()) return ok_;
        frame_.clear();
        char hex[17];
        auto [end, ec] = std::to_chars(hex, hex + 16, bytes.size(), 16);
        frame_.append(hex, end);
        frame_ += "\r\n";
        frame_.append(bytes);
        frame_ += "\r\n";
        ok_ = SendAll(fd_, frame_, Steady::now() + timeout_);
        return ok_;
      }
      bool ok() const { return ok_; }

     private:
      int fd_;
      std::chrono::milliseconds timeout_;
      std::string frame_;
      bool ok_ = true;
    };

    if (SendAll(fd, out_, Steady::now() + timeout)) {
      ChunkSink sink(fd, timeout);
      res.stream(sink);
      if (sink.ok()) SendAll(fd, "0\r\n\r\n", Steady::now() + timeout);
    }
    res.stream = nullptr;
    response_ = std::move(res);
    Done(response_.status);
    Close();
  }

  void Done(int status) {
    const auto& done = server_->handlers().done;
    if (!done) return;
    const double seconds = std::chrono::duration<double>(Steady::now() - started_).count();
    done(HttpExchange{request_, method_.empty() ? std::string_view("-") : std::string_view(method_), status,
                      response_, seconds});
  }

  void Close() {
    boost::system::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.close();
  }

  std::shared_ptr<Impl> server_;
  beast::tcp_stream stream_;
  std::string address_;
  bool capped_;
  State state_ = State::kWaiting;
  beast::flat_buffer buffer_{64 * 1024};
  std::optional<http::request_parser<http::string_body>> parser_;
  livechat::HttpRequest request_;
  std::string method_;
  bool keepAlive_ = true;
  bool close_ = false;
  livechat::HttpResponse response_;
  std::string out_;
  Steady::time_point started_ = Steady::now();
};

void HttpServer::Impl::Admit(tcp::socket socket) {
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  std::string address = PeerAddress(socket);
  const bool capped = options_.maxConnectionsPerAddress > 0 &&
                      std::none_of(options_.exempt.begin(), options_.exempt.end(),
                                   [&](const livechat::Cidr& c) { return c.Contains(address); });
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    if (openCount_.load() >= options_.maxConnections) {
      if (refusedCapacity_) refusedCapacity_->Inc();
      Refuse(socket, 503, "This server has too many open connections; try again in a moment.");
      return;
    }
    if (capped && perAddress_[address] >= options_.maxConnectionsPerAddress) {
      if (refusedPerAddress_) refusedPerAddress_->Inc();
      Refuse(socket, 429,
             "Too many open connections from your address (at most " +
                 std::to_string(options_.maxConnectionsPerAddress) + "); reuse one, or close one first.");
      return;
    }
    if (capped) ++perAddress_[address];
    openCount_.fetch_add(1);
    if (open_) open_->Add(1);
  }
  auto conn = std::make_shared<Connection>(shared_from_this(), std::move(socket), std::move(address), capped);
  {
    std::lock_guard<std::mutex> lock(mu_);
    live_[conn.get()] = conn;
  }
  conn->Begin();
}

// Answered without reading the request, on a socket no one waits on: one
// non-blocking send (a fresh socket's buffer takes it), the bytes the client
// already sent drained so the close is a FIN, not a reset that could discard
// the answer before the client reads it.
void HttpServer::Impl::Refuse(tcp::socket& socket, int status, std::string_view message) {
  livechat::HttpRequest none;
  none.peerIp = PeerAddress(socket);
  livechat::HttpResponse res = handlers_.refuse(status, message, none);
  res.SetHeader("Retry-After", "1");
  std::string out;
  AppendHead(out, res, /*close=*/true, /*chunked=*/false, res.body.size());
  out += res.body;
  const int fd = socket.native_handle();
  (void)::send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  char sink[4096];
  for (int i = 0; i < 16 && ::recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
  }
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

void HttpServer::Impl::Stop() {
  if (stopping_.exchange(true)) return;
  net::post(acceptor_.get_executor(), [self = shared_from_this()] {
    boost::system::error_code ignored;
    self->acceptor_.close(ignored);
  });
  std::vector<std::shared_ptr<Connection>> live;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [ptr, weak] : live_)
      if (auto c = weak.lock()) live.push_back(std::move(c));
  }
  for (auto& c : live) c->Shutdown();
}

HttpServer::HttpServer(HttpServerOptions options, HttpHandlers handlers)
    : impl_(std::make_shared<Impl>(std::move(options), std::move(handlers))) {}

HttpServer::~HttpServer() {
  Stop();
  Wait();
}

int HttpServer::Bind(const std::string& host, int port, std::string* error) { return impl_->Bind(host, port, error); }
void HttpServer::Start() { impl_->Start(); }
void HttpServer::Stop() { impl_->Stop(); }
void HttpServer::Wait() { impl_->Wait(); }
int HttpServer::OpenConnections() const { return impl_->open(); }

}  // namespace livechatd
