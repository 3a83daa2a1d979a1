#include "http_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <iterator>
#include <limits>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
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

// Whether `s` holds a byte that would end a header line early (CR or LF) or,
// in a name, its colon. A byte loop: find_first_of scans its set once per
// byte, and every answer's headers pass here.
bool BreaksHeaderLine(std::string_view s, bool name) {
  for (char c : s)
    if (c == '\r' || c == '\n' || (name && c == ':')) return true;
  return false;
}

void AppendNumber(std::string& out, std::uint64_t n) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
  out.append(digits, end);
}

// The status line and headers of `res`, framed by the server: the adapters'
// own framing headers are dropped (a second copy would corrupt the
// response). `close`: the connection ends after this response.
// `keepAlive10`: an HTTP/1.0 client asked to keep the connection, and it is
// kept: say so (1.0 closes by default).
void AppendHead(std::string& out, const livechat::HttpResponse& res, bool close, bool chunked, std::size_t length,
                bool keepAlive10 = false) {
  // Room for all of it first: every answer writes a head, so it grows once.
  std::size_t room = 128;
  for (const auto& [name, value] : res.headers) room += name.size() + value.size() + 4;
  out.reserve(out.size() + room);
  out += "HTTP/1.1 ";
  AppendNumber(out, static_cast<std::uint64_t>(res.status));
  out += ' ';
  out += Reason(res.status);
  out += "\r\n";
  bool hasType = false;
  for (const auto& [name, value] : res.headers) {
    if (IEquals(name, "content-length") || IEquals(name, "transfer-encoding") || IEquals(name, "connection")) continue;
    // A value that would end the header early is dropped, never sent.
    if (BreaksHeaderLine(value, false) || BreaksHeaderLine(name, true)) continue;
    if (IEquals(name, "content-type")) hasType = true;
    out.append(name).append(": ", 2).append(value).append("\r\n", 2);
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
  if (close) {
    out += "Connection: close\r\n";
  } else if (keepAlive10) {
    out += "Connection: keep-alive\r\n";
  }
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

// What the per-address cap counts by: an IPv4 address, or an IPv6 /64 (one
// subscriber's prefix: a client holding a /64 has 2^64 addresses to spread
// its connections over).
std::string CapKey(const std::string& address) {
  boost::system::error_code ec;
  auto addr = net::ip::make_address(address, ec);
  if (ec || !addr.is_v6()) return address;
  auto bytes = addr.to_v6().to_bytes();
  std::fill(bytes.begin() + 8, bytes.end(), 0);
  return net::ip::address_v6(bytes).to_string() + "/64";
}

// A socket answered and closed: the client's unread bytes are drained first
// (for up to `linger`, at most kLingerBytes), because closing a socket with
// unread data sends a reset, and a reset can discard the answer before the
// client reads it. The socket holds no thread meanwhile.
constexpr std::size_t kLingerBytes = 256 * 1024;
class Lingerer : public std::enable_shared_from_this<Lingerer> {
 public:
  Lingerer(beast::tcp_stream stream, std::chrono::milliseconds linger) : stream_(std::move(stream)), linger_(linger) {}
  void Start() {
    boost::system::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(linger_);
    Read();
  }

 private:
  void Read() {
    stream_.async_read_some(net::buffer(sink_), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      self->drained_ += n;
      if (ec || self->drained_ >= kLingerBytes) {
        self->stream_.close();
        return;
      }
      self->Read();
    });
  }

  beast::tcp_stream stream_;
  std::chrono::milliseconds linger_;
  std::array<char, 8192> sink_{};
  std::size_t drained_ = 0;
};

// The threads that run handlers. The socket I/O runs on a few threads of its
// own (an Asio io_context slows down steeply with more threads than cores:
// measured on 2 cores, 21,400 req/s with 4 threads, 8,700 with 64), and a
// handler may block for long (a long-poll, a live stream), so handlers are
// handed to these. The most recently idle thread takes the next job: it is
// the one whose cache is warm.
class Workers {
 public:
  explicit Workers(int n) : slots_(static_cast<std::size_t>(std::max(1, n))) {
    for (std::size_t i = 0; i < slots_.size(); ++i) threads_.emplace_back([this, i] { Run(i); });
  }
  ~Workers() { Stop(); }
  void Submit(std::function<void()> job) {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(job));
    if (!idle_.empty()) {
      const std::size_t i = idle_.back();
      idle_.pop_back();
      slots_[i].woken = true;
      slots_[i].cv.notify_one();
    }
  }
  // Runs the jobs already queued, then ends the threads.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      stopping_ = true;
      for (auto& s : slots_) {
        s.woken = true;
        s.cv.notify_one();
      }
    }
    for (auto& t : threads_) t.join();
  }

 private:
  struct Slot {
    std::condition_variable cv;
    bool woken = false;
  };
  void Run(std::size_t i) {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (!jobs_.empty()) {
        std::function<void()> job = std::move(jobs_.front());
        jobs_.pop_front();
        lock.unlock();
        // No exception leaves lib/; one that reaches here (an allocation
        // failure, a bug) is logged, and this worker goes on. The job's
        // connection, released with it, closes.
        try {
          job();
        } catch (const std::exception& e) {
          std::fprintf(stderr, "livechatd: exception in a request handler: %s\n", e.what());
        } catch (...) {
          std::fprintf(stderr, "livechatd: unknown exception in a request handler\n");
        }
        // Released before the lock is taken again: it may close a connection
        // and finish the io_context's work, neither of which needs this lock.
        job = nullptr;
        lock.lock();
        continue;
      }
      if (stopping_) return;
      idle_.push_back(i);
      slots_[i].woken = false;
      slots_[i].cv.wait(lock, [&] { return slots_[i].woken; });
    }
  }

  std::mutex mu_;
  std::deque<std::function<void()>> jobs_;
  std::vector<Slot> slots_;
  std::vector<std::size_t> idle_;  // a stack: the last to go idle is woken first
  std::vector<std::thread> threads_;
  bool stopping_ = false;
};

constexpr std::chrono::milliseconds kLinger{2'000};
// Below this many bytes per second a body (or a response) is too slow: the
// deadlines grow with the size at this rate (a 10 MiB upload gets 30 s +
// 160 s), so a slow but honest link completes and a trickle does not.
constexpr std::uint64_t kMinBytesPerSecond = 64 * 1024;
// A response is written in pieces of this size, each within writeTimeout.
constexpr std::size_t kWriteSlice = 256 * 1024;

}  // namespace

class HttpServer::Impl : public std::enable_shared_from_this<HttpServer::Impl> {
 public:
  Impl(HttpServerOptions options, HttpHandlers handlers)
      : options_(std::move(options)),
        handlers_(std::move(handlers)),
        ioThreads_(std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 4)),
        ioc_(ioThreads_),
        acceptor_(net::make_strand(ioc_)),
        retry_(acceptor_.get_executor()) {
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
    auto found =
        resolver.resolve(host, std::to_string(port), tcp::resolver::passive | tcp::resolver::numeric_service, ec);
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
    std::lock_guard<std::mutex> lock(stateMu_);
    if (stopping_ || started_) return;
    started_ = true;
    workers_ = std::make_unique<Workers>(options_.threads);
    Accept();
    for (int i = 0; i < ioThreads_; ++i) threads_.emplace_back([this] { Run(); });
  }

  void Stop();
  void Wait() {
    std::lock_guard<std::mutex> lock(joinMu_);
    for (auto& t : threads_)
      if (t.joinable()) t.join();
    // Every connection is gone, so no handler runs or will be submitted.
    if (workers_) workers_->Stop();
    // Anything posted after the threads ran out of work (nothing should be)
    // runs here, so no handler is left holding a connection.
    if (stopping_ && !threads_.empty()) {
      ioc_.restart();
      ioc_.poll();
    }
  }

  bool stopping() const { return stopping_.load(); }
  const HttpServerOptions& options() const { return options_; }
  const HttpHandlers& handlers() const { return handlers_; }
  Workers& workers() { return *workers_; }
  net::executor_work_guard<net::io_context::executor_type> Work() { return net::make_work_guard(ioc_); }
  void CountTimeout() {
    if (timeouts_) timeouts_->Inc();
  }

  // Called by a connection's destructor.
  void Forget(Connection* c, const std::string& capKey, bool capped) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(c);
    if (capped) {
      auto it = perAddress_.find(capKey);
      if (it != perAddress_.end() && --it->second == 0) perAddress_.erase(it);
    }
    openCount_.fetch_sub(1);
    if (open_) open_->Add(-1);
  }

 private:
  // No exception leaves lib/, so one reaching here is an allocation failure
  // or a bug: it is logged and the thread goes on serving (the request it
  // broke has lost its connection).
  void Run() {
    for (;;) {
      try {
        ioc_.run();
        return;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "livechatd: %s listener: %s\n", options_.name.c_str(), e.what());
      } catch (...) {
        std::fprintf(stderr, "livechatd: %s listener: unknown exception\n", options_.name.c_str());
      }
    }
  }

  void Accept() {
    acceptor_.async_accept(net::make_strand(ioc_), [self = shared_from_this()](boost::system::error_code ec,
                                                                               tcp::socket socket) {
      if (ec == net::error::operation_aborted || !self->acceptor_.is_open()) return;
      if (!ec) {
        self->Admit(std::move(socket));
        self->Accept();
        return;
      }
      // Out of file descriptors (EMFILE) and the like: accept again once
      // connections may have closed, without holding a thread meanwhile.
      self->retry_.expires_after(std::chrono::milliseconds(50));
      self->retry_.async_wait([self](boost::system::error_code) {
        if (self->acceptor_.is_open()) self->Accept();
      });
    });
  }

  void Admit(tcp::socket socket);
  void Refuse(tcp::socket socket, int status, const std::string& message);

  HttpServerOptions options_;
  HttpHandlers handlers_;
  int ioThreads_;
  net::io_context ioc_;
  std::unique_ptr<Workers> workers_;
  tcp::acceptor acceptor_;
  net::steady_timer retry_;
  std::vector<std::thread> threads_;
  std::mutex joinMu_;   // held while joining: never by Stop()
  std::mutex stateMu_;  // orders Start() and Stop()
  bool started_ = false;  // guarded by stateMu_

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
// timeout per piece), and wait again.
class HttpServer::Impl::Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(std::shared_ptr<Impl> server, tcp::socket socket, std::string address, std::string capKey, bool capped)
      : server_(std::move(server)),
        executor_(socket.get_executor()),
        stream_(std::move(socket)),
        address_(std::move(address)),
        capKey_(std::move(capKey)),
        capped_(capped) {}
  ~Connection() { server_->Forget(this, capKey_, capped_); }

  void Begin() {
    net::dispatch(executor_, [self = shared_from_this()] { self->WaitForRequest(); });
  }

  // Server stop: a connection waiting for a request (or reading one) ends
  // now; one in a handler or writing ends after its answer.
  void Shutdown() {
    // executor_, not the stream's: a lingering close has taken the stream.
    net::post(executor_, [self = shared_from_this()] {
      if (self->state_ == State::kWaiting || self->state_ == State::kReading) {
        boost::system::error_code ignored;
        self->stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
        self->stream_.close();
      }
    });
  }

 private:
  enum class State { kWaiting, kReading, kHandling, kWriting, kClosed };

  const HttpServerOptions& opts() const { return server_->options(); }

  // A read failure of the socket (not of the parser): the client is gone or
  // the deadline passed. Either way there is no one to answer.
  static bool Gone(beast::error_code ec) {
    if (!ec) return false;
    if (ec == http::error::end_of_stream || ec == http::error::partial_message) return true;
    return ec.category() != http::make_error_code(http::error::bad_method).category();
  }

  void WaitForRequest() {
    state_ = State::kWaiting;
    if (server_->stopping()) return Close();
    if (buffer_.size() > 0) return ReadHead();  // a pipelined request already arrived
    // An idle connection keeps a small buffer (one large head grew it).
    if (buffer_.capacity() > 8192) buffer_.shrink_to_fit();
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
    // The body's size is judged after the head is screened (below). Not
    // boost::none: Beast 1.74 compares a Content-Length with it as greater.
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    method_.clear();
    // One deadline from the request's first byte to its head's last.
    stream_.expires_after(opts().requestTimeout);
    http::async_read_header(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      self->OnHead(ec, n);
    });
  }

  // `headBytes`: what the parser consumed, the whole head. Beast's own
  // header_limit keeps the buffer bounded but lets a head through somewhat
  // over it (it does not count what an earlier read already parsed), so the
  // exact limit is applied here.
  void OnHead(beast::error_code ec, std::size_t headBytes) {
    if (ec == beast::error::timeout) {
      server_->CountTimeout();
      return Close();
    }
    if (Gone(ec)) return Close();
    if (ec == http::error::header_limit || (!ec && headBytes > opts().maxHeadBytes))
      return Refuse(431, "The request line and headers are larger than " + std::to_string(opts().maxHeadBytes) +
                             " bytes.");
    if (ec) return Refuse(400, "The request could not be parsed as HTTP/1.1 (" + ec.message() + ").");

    auto& head = parser_->get();
    if (static_cast<std::size_t>(std::distance(head.begin(), head.end())) > opts().maxHeaderFields)
      return Refuse(431, "The request has more than " + std::to_string(opts().maxHeaderFields) + " header fields.");
    method_ = std::string(head.method_string());
    request_.method = method_ == "HEAD" ? "GET" : method_;
    request_.target = std::string(head.target());
    request_.peerIp = address_;
    request_.headers.clear();
    for (const auto& field : head) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>((c >= 'A' && c <= 'Z') ? c + 32 : c);
      request_.headers.emplace_back(std::move(name), std::string(field.value()));
    }
    http10_ = head.version() < 11;
    keepAlive_ = head.keep_alive();
    // RFC 9112 section 6.3: a Transfer-Encoding that does not end in
    // chunked cannot be framed, and an HTTP/1.0 message has none; reading
    // its body as empty would take the body for the next request.
    if (head.find(http::field::transfer_encoding) != head.end() && (http10_ || !parser_->chunked()))
      return Refuse(400, "The Transfer-Encoding must end in chunked (HTTP/1.1 only).");

    std::uint64_t limit = opts().maxBodyBytes;
    try {
      if (const auto& screen = server_->handlers().screen) {
        if (auto refusal = screen(request_)) return Answer(std::move(*refusal), /*close=*/true);
      }
      if (const auto& bodyLimit = server_->handlers().bodyLimit) limit = std::min<std::uint64_t>(limit, bodyLimit(request_));
    } catch (const std::exception&) {
      return Refuse(500, "The server could not complete the request.");
    }
    limit_ = limit;
    const auto length = parser_->content_length();
    if (length && *length > limit) return RefuseLargeBody();
    parser_->body_limit(limit);  // a chunked body is counted as it arrives
    if (parser_->is_done()) return Dispatch();
    // Still one deadline from the request's first byte, grown by the time
    // the body takes at kMinBytesPerSecond.
    stream_.expires_at(started_ + opts().requestTimeout +
                       std::chrono::milliseconds((length.value_or(limit) * 1000) / kMinBytesPerSecond));

    auto expect = head.find(http::field::expect);
    if (!http10_ && expect != head.end() && IEquals(expect->value(), "100-continue")) {
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
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec == beast::error::timeout) {
        self->server_->CountTimeout();
        return self->Close();
      }
      if (ec == http::error::body_limit) return self->RefuseLargeBody();
      if (Gone(ec)) return self->Close();
      if (ec) return self->Refuse(400, "The request body could not be read (" + ec.message() + ").");
      self->Dispatch();
    });
  }

  void Dispatch() {
    state_ = State::kHandling;
    stream_.expires_never();
    request_.body = std::move(parser_->get().body());
    parser_.reset();
    // A short read runs here, on the strand: handing it to a worker and its
    // answer back costs two thread switches, as much CPU as the read itself
    // (docs/decisions.md, "Plain reads on the I/O threads").
    bool here = false;
    try {
      if (const auto& runsInline = server_->handlers().runsInline) here = runsInline(request_);
    } catch (const std::exception&) {
      return Refuse(500, "The server could not complete the request.");
    }
    if (here) return Handle(/*onStrand=*/true);
    // No operation is pending on the connection while its handler runs on
    // a worker, so the worker may use its fields; the answer goes back to
    // the connection's strand.
    // The guard keeps the I/O threads running until the answer is posted
    // back (a connection in a handler has no operation of its own pending).
    server_->workers().Submit([self = shared_from_this(), work = server_->Work()] { self->Handle(false); });
  }

  // On a worker thread, or on the connection's strand when `onStrand`.
  void Handle(bool onStrand) {
    livechat::HttpResponse res;
    try {
      res = server_->handlers().handle(request_);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "livechatd: exception serving %s %s: %s\n", method_.c_str(),
                   request_.target.substr(0, request_.target.find('?')).c_str(), e.what());
      net::post(executor_, [self = shared_from_this()] {
        self->Refuse(500, "The server could not complete the request.");
      });
      return;
    }
    request_.body.clear();
    request_.body.shrink_to_fit();
    if (res.deferred) return Defer(std::move(res.deferred));
    if (res.stream) {
      // Its producer runs for as long as the stream lasts, so never on an
      // I/O thread.
      if (onStrand)
        return server_->workers().Submit(
            [self = shared_from_this(), work = server_->Work(), res = std::make_shared<livechat::HttpResponse>(
                                                                    std::move(res))]() mutable {
              self->Stream(std::move(*res));
            });
      return Stream(std::move(res));  // writes from this worker, as its producer runs here
    }
    if (onStrand) {
      const bool close = ClosesAfter(res);  // before res is moved from
      return Answer(std::move(res), close);
    }
    Reply(std::move(res));
  }

  bool ClosesAfter(const livechat::HttpResponse& res) const {
    return !keepAlive_ || AsksToClose(res) || server_->stopping();
  }

  // From any thread, once: the answer goes to the connection's strand.
  void Reply(livechat::HttpResponse res) {
    const bool close = ClosesAfter(res);
    net::post(executor_, [self = shared_from_this(), res = std::move(res), close]() mutable {
      self->Answer(std::move(res), close);
    });
  }

  // An answer that comes later (a long-poll): the worker is free at once.
  // The connection stays in kHandling, with no operation pending, until the
  // adapter's reply arrives; the guard keeps the I/O threads for it. A
  // client that leaves meanwhile is noticed when the answer is written.
  void Defer(std::function<void(livechat::HttpReply)> deferred) {
    struct Pending {
      std::shared_ptr<Connection> connection;
      net::executor_work_guard<net::io_context::executor_type> work;
    };
    auto pending = std::make_shared<std::optional<Pending>>(Pending{shared_from_this(), server_->Work()});
    try {
      deferred([pending](livechat::HttpResponse res) {
        if (!*pending) return;  // a second reply: the first was the answer
        auto connection = std::move((*pending)->connection);
        auto work = std::move((*pending)->work);
        pending->reset();
        connection->Reply(std::move(res));
      });
    } catch (const std::exception& e) {
      std::fprintf(stderr, "livechatd: exception deferring %s %s: %s\n", method_.c_str(),
                   request_.target.substr(0, request_.target.find('?')).c_str(), e.what());
      net::post(executor_, [self = shared_from_this()] {
        self->Refuse(500, "The server could not complete the request.");
      });
    }
  }

  // A request the server refuses itself; the connection closes after it
  // (what follows on it cannot be framed).
  void Refuse(int status, const std::string& message) {
    state_ = State::kHandling;
    request_.peerIp = address_;
    livechat::HttpResponse res;
    try {
      res = server_->handlers().refuse(status, message, request_);
    } catch (const std::exception&) {
      res.status = status;
    }
    Answer(std::move(res), /*close=*/true);
  }
  void RefuseLargeBody() { Refuse(413, "The request body is larger than " + std::to_string(limit_) + " bytes."); }

  void Answer(livechat::HttpResponse res, bool close) {
    state_ = State::kWriting;
    stream_.expires_never();
    response_ = std::move(res);
    close_ = close;
    out_.clear();
    AppendHead(out_, response_, close_, /*chunked=*/false, response_.body.size(), http10_ && !close_);
    const bool noBody = method_ == "HEAD" || response_.status == 204 || response_.status == 304;
    // The body is sent from its own buffer, never copied: WriteSlice writes
    // it together with the head.
    bodyLeft_ = noBody ? std::string_view() : std::string_view(response_.body);
    headLeft_ = out_;
    WriteSlice();
  }

  // Each piece of at most kWriteSlice bytes must be taken within
  // writeTimeout: a slow but steady reader gets a large file, a reader that
  // stopped is closed.
  // The head goes out with the body's first slice: one write, not two.
  void WriteSlice() {
    if (headLeft_.empty() && bodyLeft_.empty()) return Written(beast::error_code{});
    const std::size_t head = headLeft_.size();
    const std::size_t body = std::min(bodyLeft_.size(), kWriteSlice);
    const std::array<net::const_buffer, 2> pieces{net::buffer(headLeft_.data(), head),
                                                  net::buffer(bodyLeft_.data(), body)};
    stream_.expires_after(opts().writeTimeout);
    net::async_write(stream_, pieces, [self = shared_from_this(), head, body](beast::error_code ec, std::size_t) {
      if (ec) return self->Written(ec);
      self->headLeft_.remove_prefix(head);
      self->bodyLeft_.remove_prefix(body);
      self->WriteSlice();
    });
  }

  void Written(beast::error_code ec) {
    stream_.expires_never();
    Done(response_.status);
    // Nothing of this exchange is kept while the connection waits.
    headLeft_ = bodyLeft_ = {};
    response_ = {};
    request_ = {};
    out_.clear();
    if (out_.capacity() > 64 * 1024) out_.shrink_to_fit();
    if (ec) return Close();
    if (close_) return Linger();
    WaitForRequest();
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
      // An SSE client sends nothing after its request: a readable socket
      // that reads 0 bytes (or fails) is a client that hung up. A peek,
      // never a read: any bytes stay for no one (the connection ends with
      // the stream anyway).
      bool Open() override {
        if (!ok_) return false;
        char byte;
        const ssize_t n = ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) ok_ = false;
        return ok_;
      }

     private:
      int fd_;
      std::chrono::milliseconds timeout_;
      std::string frame_;
      bool ok_ = true;
    };

    // HEAD: the head of the stream's answer, and no stream.
    if (SendAll(fd, out_, Steady::now() + timeout) && method_ != "HEAD") {
      ChunkSink sink(fd, timeout);
      try {
        res.stream(sink);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "livechatd: exception in a stream of %s: %s\n",
                     request_.target.substr(0, request_.target.find('?')).c_str(), e.what());
      }
      if (sink.ok()) SendAll(fd, "0\r\n\r\n", Steady::now() + timeout);
    }
    res.stream = nullptr;
    response_ = std::move(res);
    Done(response_.status);
    net::post(executor_, [self = shared_from_this()] { self->Close(); });
  }

  void Done(int status) {
    const auto& done = server_->handlers().done;
    if (!done) return;
    const double seconds = std::chrono::duration<double>(Steady::now() - started_).count();
    try {
      done(HttpExchange{request_, method_.empty() ? std::string_view("-") : std::string_view(method_), status,
                        response_, seconds});
    } catch (const std::exception&) {
    }
  }

  // After an answer that ends the connection: what the client still sends
  // is drained, so the close does not reset the answer away.
  void Linger() {
    state_ = State::kClosed;
    std::make_shared<Lingerer>(std::move(stream_), kLinger)->Start();
  }

  void Close() {
    if (state_ == State::kClosed) return;
    state_ = State::kClosed;
    boost::system::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  std::shared_ptr<Impl> server_;
  net::any_io_executor executor_;  // the connection's strand
  beast::tcp_stream stream_;
  std::string address_;
  std::string capKey_;
  bool capped_;
  // Written on the strand and by a worker while no operation is pending;
  // read by Shutdown() on the strand.
  std::atomic<State> state_{State::kWaiting};
  beast::flat_buffer buffer_{64 * 1024};  // at most: a head fits (maxHeadBytes <= 32 KiB)
  std::optional<http::request_parser<http::string_body>> parser_;
  livechat::HttpRequest request_;
  std::string method_;
  bool keepAlive_ = true;
  bool http10_ = false;
  bool close_ = false;
  std::uint64_t limit_ = 0;  // this request's body limit
  livechat::HttpResponse response_;
  std::string out_;
  std::string_view headLeft_, bodyLeft_;
  Steady::time_point started_ = Steady::now();
};

void HttpServer::Impl::Admit(tcp::socket socket) {
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  std::string address = PeerAddress(socket);
  std::string capKey = CapKey(address);
  const bool capped = options_.maxConnectionsPerAddress > 0 &&
                      std::none_of(options_.exempt.begin(), options_.exempt.end(),
                                   [&](const livechat::Cidr& c) { return c.Contains(address); });
  int refusal = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    if (openCount_.load() >= options_.maxConnections) {
      refusal = 503;
    } else if (capped && perAddress_[capKey] >= options_.maxConnectionsPerAddress) {
      refusal = 429;
    } else {
      if (capped) ++perAddress_[capKey];
      openCount_.fetch_add(1);
      if (open_) open_->Add(1);
    }
  }
  if (refusal == 503) {
    if (refusedCapacity_) refusedCapacity_->Inc();
    return Refuse(std::move(socket), 503, "This server has too many open connections; try again in a moment.");
  }
  if (refusal == 429) {
    if (refusedPerAddress_) refusedPerAddress_->Inc();
    return Refuse(std::move(socket), 429,
                  "Too many open connections from your address (at most " +
                      std::to_string(options_.maxConnectionsPerAddress) + "); reuse one, or close one first.");
  }
  auto conn = std::make_shared<Connection>(shared_from_this(), std::move(socket), std::move(address),
                                           std::move(capKey), capped);
  {
    std::lock_guard<std::mutex> lock(mu_);
    live_[conn.get()] = conn;
  }
  conn->Begin();
}

// Answered before anything is read: one non-blocking send (a fresh socket's
// buffer takes it), then the socket lingers to drain what the client sends,
// holding no thread and no place under the caps.
void HttpServer::Impl::Refuse(tcp::socket socket, int status, const std::string& message) {
  livechat::HttpRequest none;
  none.peerIp = PeerAddress(socket);
  livechat::HttpResponse res;
  try {
    res = handlers_.refuse(status, message, none);
  } catch (const std::exception&) {
    res.status = status;
  }
  res.SetHeader("Retry-After", "1");
  std::string out;
  AppendHead(out, res, /*close=*/true, /*chunked=*/false, res.body.size());
  out += res.body;
  (void)::send(socket.native_handle(), out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  std::make_shared<Lingerer>(beast::tcp_stream(std::move(socket)), std::chrono::milliseconds(1'000))->Start();
}

void HttpServer::Impl::Stop() {
  {
    std::lock_guard<std::mutex> lock(stateMu_);
    if (stopping_.exchange(true)) return;
    if (!started_) {
      // No thread will run a posted close: close here.
      boost::system::error_code ignored;
      acceptor_.close(ignored);
      return;
    }
  }
  // The connections' shutdowns are posted while the accept is still
  // pending, so the threads are still running to take them: posted after
  // the last piece of work, they would never run, and each would keep its
  // connection (and this server) alive.
  std::vector<std::shared_ptr<Connection>> live;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [ptr, weak] : live_)
      if (auto c = weak.lock()) live.push_back(std::move(c));
  }
  for (auto& c : live) c->Shutdown();
  live.clear();
  net::post(acceptor_.get_executor(), [self = shared_from_this()] {
    boost::system::error_code ignored;
    self->acceptor_.close(ignored);
    self->retry_.cancel();
  });
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

}  // namespace livechatd
