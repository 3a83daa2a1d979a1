// The HTTP(S) client under the webhook transport and the OpenAI-compatible
// summarizer: one request at a time on a connection to an address the caller
// has already checked against the outbound address rule
// (livechat/address_policy.h). Boost.Beast does the HTTP, Boost.Asio the I/O,
// OpenSSL the TLS. Internal to lib/outbound.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "livechat/result.h"

namespace livechat::outbound {

using SteadyClock = std::chrono::steady_clock;

struct Target {
  std::string host;     // the name for SNI, Host and the certificate check (no brackets)
  int port = 443;
  std::string address;  // the checked IP literal the socket goes to; never resolved again
  bool tls = true;
};

// "host:port", plus " (address)" when the address is not the host itself.
std::string Where(const Target& t);

// A client TLS configuration: TLS 1.2 or newer, the peer's certificate
// verified. Shared by every connection made with it.
class TlsContext {
 public:
  // Trusts the system store and, when `caFile` is not empty, the PEM
  // certificates in it besides; with `caFileOnly`, that file instead of the
  // system store. INVALID_PARAMS naming the file (or the system store) and
  // OpenSSL's reason when a store cannot be loaded.
  static Result<std::shared_ptr<TlsContext>> Make(const std::string& caFile, bool caFileOnly);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  explicit TlsContext(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct Request {
  std::string method = "POST";
  std::string path;  // origin form: "/v1/chat/completions"
  std::vector<std::pair<std::string, std::string>> headers;  // Host is added from the target
  std::string body;
  bool keepAlive = true;
};

enum class Failure {
  kNone,
  kConnect,       // the TCP connection was refused or failed
  kTls,           // the TLS handshake failed for another reason than the certificate
  kUntrusted,     // the certificate does not chain to a trusted CA (detail: OpenSSL's reason)
  kNameMismatch,  // the certificate does not carry the target's host name
  kWrite,         // the connection failed while the request was sent
  kRead,          // no complete response: closed, reset, or not HTTP
  kTimeout,       // the deadline passed (phase: what was going on)
  kBodyTooLarge,  // the status and headers arrived; the body exceeded the limit
};

struct Outcome {
  Failure failure = Failure::kNone;
  std::string detail;  // a reason for a failure, "" when none
  // What the exchange was doing when it failed, in the words of the
  // webhook attempt log: Connection, SSLConnection, Write, Read.
  std::string phase;
  int status = 0;  // 0 unless a status line arrived (kNone, kBodyTooLarge)
  std::optional<std::string> retryAfter;  // the Retry-After header's value
  std::string body;                       // the body read (up to the limit)
};

// One HTTP/1.1 connection, plain or TLS, with its own Asio io_context, so a
// connection can be handed between threads through a pool and each exchange
// runs the I/O of its own connection only. Not thread-safe: one exchange at
// a time.
class Connection {
 public:
  // Connects to t.address and, for TLS, shakes hands with SNI and the
  // certificate checked against t.host. Null with `*failed` set when that
  // fails or the deadline passes.
  static std::unique_ptr<Connection> Open(const Target& t, TlsContext* tls, SteadyClock::time_point deadline,
                                          Outcome* failed);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends `request` and reads the response, all of it by `deadline`. A body
  // over `maxBodyBytes` ends the read (kBodyTooLarge, the status kept).
  Outcome Exchange(const Target& t, const Request& request, SteadyClock::time_point deadline,
                   std::size_t maxBodyBytes);

  // False after a failure, a cut-off body, or a response that ends the
  // connection (Connection: close, HTTP/1.0): such a connection is dropped.
  bool reusable() const { return reusable_; }
  // An idle HTTP/1.1 connection has nothing to read unless the peer closed
  // it (TLS close_notify, FIN) or broke the protocol: either way, unusable.
  bool LooksClosed() const;

  struct Impl;

 private:
  explicit Connection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  bool reusable_ = false;
};

struct PoolOptions {
  std::size_t maxIdlePerTarget = 8;
  std::size_t maxIdleTotal = 128;
  std::int64_t maxIdleMillis = 30'000;
};

// Idle keep-alive connections per (host, port, address). Thread-safe.
class ConnectionPool {
 public:
  explicit ConnectionPool(PoolOptions options) : o_(options) {}

  static std::string Key(const Target& t);
  // The most recently used idle connection to `key` that still looks alive;
  // null when there is none.
  std::unique_ptr<Connection> Checkout(const std::string& key);
  // Keeps `c` idle for later, unless the limits say to close it.
  void Checkin(const std::string& key, std::unique_ptr<Connection> c);

 private:
  struct Idle {
    std::unique_ptr<Connection> connection;
    SteadyClock::time_point since;
  };
  bool Stale(const Idle& i, SteadyClock::time_point now) const {
    return now - i.since > std::chrono::milliseconds(o_.maxIdleMillis);
  }

  PoolOptions o_;
  std::mutex mu_;
  std::unordered_map<std::string, std::vector<Idle>> idle_;  // oldest first
  std::size_t idleTotal_ = 0;
};

}  // namespace livechat::outbound
