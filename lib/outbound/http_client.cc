#include "outbound/http_client.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <poll.h>

#include <algorithm>
#include <exception>
#include <iterator>
#include <optional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace livechat::outbound {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

// A response head beyond this is not one a webhook receiver or a model
// server sends; it is refused rather than buffered.
constexpr std::uint32_t kMaxHeaderBytes = 16 * 1024;

// The last OpenSSL error queued on this thread, as text ("" when none).
std::string OpenSslReason() {
  unsigned long e = ERR_peek_last_error();
  if (e == 0) return "";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

std::string Bracketed(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

// The Host header as a browser would send it: the default port left out,
// an IPv6 literal bracketed.
std::string HostHeader(const Target& t) {
  std::string out = Bracketed(t.host);
  if (t.port != (t.tls ? 443 : 80)) out += ":" + std::to_string(t.port);
  return out;
}

bool IsIpLiteral(const std::string& host) {
  beast::error_code ec;
  net::ip::make_address(host, ec);
  return !ec;
}

// A header name or value carrying CR, LF or NUL would split the request:
// such a header is left out (as cpp-httplib's set_header did).
bool SafeField(const std::string& s) { return s.find_first_of(std::string("\r\n\0", 3)) == std::string::npos; }

Outcome Failed(Failure f, std::string phase, std::string detail) {
  Outcome o;
  o.failure = f;
  o.phase = std::move(phase);
  o.detail = std::move(detail);
  return o;
}

bool TimedOut(const beast::error_code& ec, SteadyClock::time_point deadline) {
  // tcp_stream reports its own timer as beast::error::timeout; a layer above
  // (TLS) may report the closed socket instead, so the clock decides too.
  return ec == beast::error::timeout || SteadyClock::now() >= deadline;
}

}  // namespace

std::string Where(const Target& t) {
  std::string out = Bracketed(t.host) + ":" + std::to_string(t.port);
  if (t.address != t.host) out += " (" + Bracketed(t.address) + ")";
  return out;
}

// ---- TlsContext ----

struct TlsContext::Impl {
  net::ssl::context ctx{net::ssl::context::tls_client};
};

TlsContext::TlsContext(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TlsContext::~TlsContext() = default;

Result<std::shared_ptr<TlsContext>> TlsContext::Make(const std::string& caFile, bool caFileOnly) {
  try {
    auto impl = std::make_unique<Impl>();
    SSL_CTX* ctx = impl->ctx.native_handle();
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    ERR_clear_error();
    X509_STORE* store = SSL_CTX_get_cert_store(ctx);
    if ((caFile.empty() || !caFileOnly) && X509_STORE_set_default_paths(store) != 1)
      return MakeError(ErrorCode::kInvalidParams, "cannot load the system CA certificates: " + OpenSslReason());
    if (!caFile.empty() && X509_STORE_load_locations(store, caFile.c_str(), nullptr) != 1) {
      std::string reason = OpenSslReason();
      return MakeError(ErrorCode::kInvalidParams,
                       "cannot load CA certificates from " + caFile + (reason.empty() ? "" : ": " + reason));
    }
    return std::shared_ptr<TlsContext>(new TlsContext(std::move(impl)));
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kInternal, std::string("cannot create a TLS context: ") + e.what());
  }
}

// ---- Connection ----

struct Connection::Impl {
  // One thread runs it at a time: the exchange that owns the connection.
  net::io_context ioc{1};
  std::optional<beast::tcp_stream> plain;
  std::optional<net::ssl::stream<beast::tcp_stream>> tls;
  beast::flat_buffer buffer;

  beast::tcp_stream& tcp() { return tls ? tls->next_layer() : *plain; }

  template <class F>
  beast::error_code WithStream(F&& f) {
    if (tls) return f(*tls);
    return f(*plain);
  }

  // Runs one asynchronous operation to its end. The tcp_stream's expiry
  // (one deadline for the whole exchange) closes the socket when it passes,
  // so the run always ends.
  template <class Start>
  beast::error_code Run(Start&& start) {
    beast::error_code result;
    start([&result](beast::error_code ec, auto&&...) { result = ec; });
    ioc.restart();
    ioc.run();
    return result;
  }
};

Connection::Connection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Connection::~Connection() = default;

std::unique_ptr<Connection> Connection::Open(const Target& t, TlsContext* tls, SteadyClock::time_point deadline,
                                             Outcome* failed) {
  try {
    beast::error_code ec;
    const net::ip::address address = net::ip::make_address(t.address, ec);
    if (ec) {
      *failed = Failed(Failure::kConnect, "Connection", t.address + " is not an IP address");
      return nullptr;
    }
    auto impl = std::make_unique<Impl>();
    if (tls != nullptr)
      impl->tls.emplace(impl->ioc, tls->impl().ctx);
    else
      impl->plain.emplace(impl->ioc);
    beast::tcp_stream& stream = impl->tcp();
    stream.expires_at(deadline);
    const tcp::endpoint to(address, static_cast<unsigned short>(t.port));
    ec = impl->Run([&](auto handler) { stream.async_connect(to, std::move(handler)); });
    if (ec) {
      *failed = Failed(TimedOut(ec, deadline) ? Failure::kTimeout : Failure::kConnect, "Connection", ec.message());
      return nullptr;
    }
    beast::error_code ignored;
    stream.socket().set_option(tcp::no_delay(true), ignored);
    if (tls != nullptr) {
      SSL* ssl = impl->tls->native_handle();
      if (IsIpLiteral(t.host)) {
        // RFC 6066: no SNI for an address; the certificate must carry it as an IP SAN.
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), t.host.c_str());
      } else {
        SSL_set_tlsext_host_name(ssl, t.host.c_str());
        SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        SSL_set1_host(ssl, t.host.c_str());
      }
      ERR_clear_error();
      ec = impl->Run([&](auto handler) { impl->tls->async_handshake(net::ssl::stream_base::client, std::move(handler)); });
      if (ec) {
        const long verify = SSL_get_verify_result(ssl);
        if (TimedOut(ec, deadline))
          *failed = Failed(Failure::kTimeout, "SSLConnection", ec.message());
        else if (verify == X509_V_ERR_HOSTNAME_MISMATCH || verify == X509_V_ERR_IP_ADDRESS_MISMATCH)
          *failed = Failed(Failure::kNameMismatch, "SSLServerVerification", X509_verify_cert_error_string(verify));
        else if (verify != X509_V_OK)
          *failed = Failed(Failure::kUntrusted, "SSLServerVerification", X509_verify_cert_error_string(verify));
        else
          *failed = Failed(Failure::kTls, "SSLConnection", ec.message());
        return nullptr;
      }
    }
    return std::unique_ptr<Connection>(new Connection(std::move(impl)));
  } catch (const std::exception& e) {
    // Asio throws when it cannot make its descriptors (EMFILE) or an SSL object.
    *failed = Failed(Failure::kConnect, "Connection", e.what());
    return nullptr;
  }
}

Outcome Connection::Exchange(const Target& t, const Request& r, SteadyClock::time_point deadline,
                             std::size_t maxBodyBytes) {
  reusable_ = false;
  Impl& I = *impl_;
  try {
    http::request<http::string_body> req;
    req.method_string(r.method);
    req.target(r.path);
    req.version(11);
    for (const auto& [name, value] : r.headers)
      if (!name.empty() && SafeField(name) && SafeField(value)) req.insert(name, value);
    req.set(http::field::host, HostHeader(t));
    req.keep_alive(r.keepAlive);
    req.body() = r.body;
    req.prepare_payload();

    I.tcp().expires_at(deadline);
    beast::error_code ec = I.WithStream([&](auto& s) {
      return I.Run([&](auto handler) { http::async_write(s, req, std::move(handler)); });
    });
    if (ec) return Failed(TimedOut(ec, deadline) ? Failure::kTimeout : Failure::kWrite, "Write", ec.message());

    http::response_parser<http::string_body> parser;
    parser.header_limit(kMaxHeaderBytes);
    parser.body_limit(maxBodyBytes);
    // The head first: Beast 1.74 checks a Content-Length against the body
    // limit only when it parses the head apart from the body (an eager parse
    // of both from one read drops that error), so the length is checked here.
    ec = I.WithStream([&](auto& s) {
      return I.Run([&](auto handler) { http::async_read_header(s, I.buffer, parser, std::move(handler)); });
    });
    bool tooLarge = ec == http::error::body_limit;
    if (!ec) {
      const auto length = parser.content_length();
      tooLarge = length && *length > maxBodyBytes;
    }
    if (!ec && !tooLarge) {
      ec = I.WithStream([&](auto& s) {
        return I.Run([&](auto handler) { http::async_read(s, I.buffer, parser, std::move(handler)); });
      });
      // A chunked or close-delimited body is counted as it arrives.
      tooLarge = ec == http::error::body_limit;
    }
    // A body limit is only ever hit after the status line and headers were
    // parsed into the message, so they are there to report.
    if (ec && !tooLarge) return Failed(TimedOut(ec, deadline) ? Failure::kTimeout : Failure::kRead, "Read", ec.message());
    auto& res = parser.get();
    Outcome out;
    out.status = res.result_int();
    if (auto it = res.find(http::field::retry_after); it != res.end()) out.retryAfter = std::string(it->value());
    if (tooLarge) {
      out.failure = Failure::kBodyTooLarge;
      return out;
    }
    out.body = std::move(res.body());
    // Bytes after the response mean the peer broke the protocol.
    reusable_ = r.keepAlive && res.keep_alive() && I.buffer.size() == 0;
    I.tcp().expires_never();
    return out;
  } catch (const std::exception& e) {
    return Failed(Failure::kRead, "Read", e.what());
  }
}

bool Connection::LooksClosed() const {
  const int fd = impl_->tcp().socket().native_handle();
  if (fd < 0) return true;
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) != 0;
}

// ---- ConnectionPool ----

std::string ConnectionPool::Key(const Target& t) {
  return t.host + "\n" + std::to_string(t.port) + "\n" + t.address + (t.tls ? "" : "\nplain");
}

std::unique_ptr<Connection> ConnectionPool::Checkout(const std::string& key) {
  std::vector<std::unique_ptr<Connection>> stale;  // closed after the lock is released
  std::unique_ptr<Connection> got;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = idle_.find(key);
    if (it == idle_.end()) return nullptr;
    const auto now = SteadyClock::now();
    auto& v = it->second;
    while (!v.empty() && !got) {
      Idle i = std::move(v.back());  // the most recently used is the likeliest alive
      v.pop_back();
      --idleTotal_;
      if (Stale(i, now) || i.connection->LooksClosed())
        stale.push_back(std::move(i.connection));
      else
        got = std::move(i.connection);
    }
    if (v.empty()) idle_.erase(it);
  }
  return got;
}

void ConnectionPool::Checkin(const std::string& key, std::unique_ptr<Connection> c) {
  std::vector<std::unique_ptr<Connection>> drop;  // closed after the lock is released
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = SteadyClock::now();
  if (idleTotal_ >= o_.maxIdleTotal) {
    for (auto it = idle_.begin(); it != idle_.end();) {
      auto& v = it->second;
      auto firstFresh = std::find_if(v.begin(), v.end(), [&](const Idle& i) { return !Stale(i, now); });
      for (auto s = v.begin(); s != firstFresh; ++s) drop.push_back(std::move(s->connection));
      idleTotal_ -= static_cast<std::size_t>(firstFresh - v.begin());
      v.erase(v.begin(), firstFresh);
      it = v.empty() ? idle_.erase(it) : std::next(it);
    }
  }
  auto& v = idle_[key];
  while (!v.empty() && Stale(v.front(), now)) {
    drop.push_back(std::move(v.front().connection));
    v.erase(v.begin());
    --idleTotal_;
  }
  if (v.size() >= o_.maxIdlePerTarget || idleTotal_ >= o_.maxIdleTotal) {
    drop.push_back(std::move(c));
  } else {
    v.push_back({std::move(c), now});
    ++idleTotal_;
  }
  if (v.empty()) idle_.erase(key);
}

}  // namespace livechat::outbound
