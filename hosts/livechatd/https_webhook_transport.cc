#include "https_webhook_transport.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <httplib.h>

namespace livechatd {
namespace {

using SteadyClock = std::chrono::steady_clock;
using ClientPtr = std::shared_ptr<httplib::SSLClient>;

// The last OpenSSL error queued on this thread, as text ("" when none).
std::string OpenSslReason() {
  unsigned long e = ERR_peek_last_error();
  if (e == 0) return "";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

// Each client gets its own store because SSL_CTX_set_cert_store (what
// set_ca_cert_store does) takes ownership and frees it with the client.
X509_STORE* BuildTrustStore(const std::string& extraCaFile, std::string* error) {
  ERR_clear_error();
  X509_STORE* store = X509_STORE_new();
  if (store == nullptr) {
    *error = "cannot allocate a certificate store";
    return nullptr;
  }
  if (X509_STORE_set_default_paths(store) != 1) {
    *error = "cannot load the system CA certificates: " + OpenSslReason();
    X509_STORE_free(store);
    return nullptr;
  }
  if (!extraCaFile.empty() && X509_STORE_load_locations(store, extraCaFile.c_str(), nullptr) != 1) {
    std::string reason = OpenSslReason();
    *error = "cannot load CA certificates from " + extraCaFile + (reason.empty() ? "" : ": " + reason);
    X509_STORE_free(store);
    return nullptr;
  }
  return store;
}

std::string HostForUrl(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

// The Host header as a browser would send it; set by us because this
// cpp-httplib does not bracket IPv6 literals.
std::string HostHeader(const livechat::HttpsTarget& t) {
  std::string out = HostForUrl(t.host);
  if (t.port != 443) out += ":" + std::to_string(t.port);
  return out;
}

std::string Where(const livechat::HttpsTarget& t) {
  std::string out = HostForUrl(t.host) + ":" + std::to_string(t.port);
  if (t.address != t.host) out += " (" + HostForUrl(t.address) + ")";
  return out;
}

std::string Describe(httplib::Error e, const httplib::SSLClient& client, const livechat::HttpsTarget& t,
                     std::int64_t timeoutMillis) {
  const std::string where = Where(t);
  const std::string ms = std::to_string(timeoutMillis) + " ms";
  std::string text;
  switch (e) {
    case httplib::Error::Connection: text = "cannot connect to " + where; break;
    case httplib::Error::ConnectionTimeout: text = "connecting to " + where + " timed out after " + ms; break;
    case httplib::Error::SSLConnection: {
      text = "TLS handshake with " + where + " failed";
      if (std::string reason = OpenSslReason(); !reason.empty()) text += ": " + reason;
      break;
    }
    case httplib::Error::SSLServerVerification: {
      long v = client.get_openssl_verify_result();
      if (v != X509_V_OK)
        text = "the certificate of " + where + " is not trusted: " + X509_verify_cert_error_string(v);
      else
        text = "the certificate of " + where + " does not match the host name " + t.host;
      break;
    }
    case httplib::Error::SSLLoadingCerts: text = "cannot load the trusted CA certificates"; break;
    case httplib::Error::Read:
      text = "no complete response from " + where + " (connection closed, or nothing read for " + ms + ")";
      break;
    case httplib::Error::Write:
      text = "sending to " + where + " failed (connection closed, or nothing written for " + ms + ")";
      break;
    default: text = "request to " + where + " failed"; break;
  }
  return text + " [" + httplib::to_string(e) + "]";
}

}  // namespace

std::optional<std::int64_t> ParseRetryAfterSeconds(const std::string& value) {
  std::size_t b = value.find_first_not_of(" \t");
  if (b == std::string::npos) return std::nullopt;
  std::size_t e = value.find_last_not_of(" \t") + 1;
  // Ten digits is over 300 years: anything longer is not a delay to honour.
  if (e - b > 10) return std::nullopt;
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(value.data() + b, value.data() + e, v);
  if (ec != std::errc() || p != value.data() + e || v < 0) return std::nullopt;
  return v;
}

struct HttpsWebhookTransport::Impl {
  explicit Impl(HttpsTransportOptions options) : o(std::move(options)) {
    watchdog = std::thread([this] { WatchdogLoop(); });
  }
  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(watchMu);
      stopping = true;
    }
    watchCv.notify_all();
    watchdog.join();
  }

  HttpsTransportOptions o;
  std::atomic<std::uint64_t> opened{0};

  // ---- Keep-alive pool: idle clients per "host\nport\naddress" ----
  struct Idle {
    ClientPtr client;
    SteadyClock::time_point since;
  };
  std::mutex poolMu;
  std::unordered_map<std::string, std::vector<Idle>> idle;  // oldest first
  std::size_t idleTotal = 0;

  bool Stale(const Idle& i, SteadyClock::time_point now) const {
    return now - i.since > std::chrono::milliseconds(o.maxIdleMillis);
  }

  // An idle HTTP/1.1 connection has nothing to read unless the receiver
  // closed it (TLS close_notify, FIN) or broke protocol: either way, unusable.
  static bool Closed(const httplib::SSLClient& c) {
    const int fd = static_cast<int>(c.socket());
    if (fd < 0) return false;  // not connected: it connects on use
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) != 0;
  }

  ClientPtr Checkout(const std::string& key) {
    std::vector<ClientPtr> stale;  // closed after the lock is released
    ClientPtr got;
    {
      std::lock_guard<std::mutex> lock(poolMu);
      auto it = idle.find(key);
      if (it == idle.end()) return nullptr;
      const auto now = SteadyClock::now();
      auto& v = it->second;
      while (!v.empty() && !got) {
        Idle i = std::move(v.back());  // the most recently used is the likeliest alive
        v.pop_back();
        --idleTotal;
        if (Stale(i, now) || Closed(*i.client))
          stale.push_back(std::move(i.client));
        else
          got = std::move(i.client);
      }
      if (v.empty()) idle.erase(it);
    }
    return got;
  }

  void Checkin(const std::string& key, ClientPtr client) {
    std::vector<ClientPtr> drop;
    {
      std::lock_guard<std::mutex> lock(poolMu);
      const auto now = SteadyClock::now();
      if (idleTotal >= o.maxIdleTotal) {
        for (auto it = idle.begin(); it != idle.end();) {
          auto& v = it->second;
          auto firstFresh = std::find_if(v.begin(), v.end(), [&](const Idle& i) { return !Stale(i, now); });
          for (auto s = v.begin(); s != firstFresh; ++s) drop.push_back(std::move(s->client));
          idleTotal -= static_cast<std::size_t>(firstFresh - v.begin());
          v.erase(v.begin(), firstFresh);
          it = v.empty() ? idle.erase(it) : std::next(it);
        }
      }
      auto& v = idle[key];
      while (!v.empty() && Stale(v.front(), now)) {
        drop.push_back(std::move(v.front().client));
        v.erase(v.begin());
        --idleTotal;
      }
      if (v.size() >= o.maxIdlePerTarget || idleTotal >= o.maxIdleTotal) {
        drop.push_back(std::move(client));
      } else {
        v.push_back({std::move(client), now});
        ++idleTotal;
      }
      if (v.empty()) idle.erase(key);
    }
  }

  // ---- Watchdog: the whole exchange ends at the deadline ----
  // cpp-httplib's timeouts bound each read and write, not the exchange, so a
  // receiver trickling a header line every few seconds could hold a sender
  // for ever. ClientImpl::stop() is its thread-safe way to abort a request.
  struct Watch {
    ClientPtr client;
    SteadyClock::time_point deadline;
    bool fired = false;
  };
  std::mutex watchMu;
  std::condition_variable watchCv;
  std::map<std::uint64_t, Watch> watches;
  std::uint64_t nextWatch = 1;
  bool stopping = false;
  std::thread watchdog;

  std::uint64_t StartWatch(ClientPtr client, SteadyClock::time_point deadline) {
    std::uint64_t id;
    {
      std::lock_guard<std::mutex> lock(watchMu);
      id = nextWatch++;
      watches.emplace(id, Watch{std::move(client), deadline});
    }
    watchCv.notify_one();
    return id;
  }

  // True when the deadline passed and the request was aborted.
  bool EndWatch(std::uint64_t id) {
    std::lock_guard<std::mutex> lock(watchMu);
    auto it = watches.find(id);
    bool fired = it->second.fired;
    watches.erase(it);
    return fired;
  }

  void WatchdogLoop() {
    std::unique_lock<std::mutex> lock(watchMu);
    while (!stopping) {
      const auto now = SteadyClock::now();
      auto next = SteadyClock::time_point::max();
      std::vector<ClientPtr> expired;
      for (auto& [id, w] : watches) {
        if (w.fired) continue;
        if (w.deadline <= now) {
          w.fired = true;
          expired.push_back(w.client);
        } else {
          next = std::min(next, w.deadline);
        }
      }
      if (!expired.empty()) {
        // stop() may wait for a TLS handshake in progress: not under our lock.
        lock.unlock();
        for (auto& c : expired) c->stop();
        expired.clear();
        lock.lock();
        continue;
      }
      if (next == SteadyClock::time_point::max())
        watchCv.wait(lock);
      else
        watchCv.wait_until(lock, next);
    }
  }

  ClientPtr NewClient(const livechat::HttpsTarget& t, std::string* error) {
    X509_STORE* store = BuildTrustStore(o.extraCaFile, error);
    if (store == nullptr) return nullptr;
    auto c = std::make_shared<httplib::SSLClient>(t.host, t.port);
    if (!c->is_valid()) {
      X509_STORE_free(store);
      *error = "cannot create a TLS context: " + OpenSslReason();
      return nullptr;
    }
    c->set_ca_cert_store(store);  // owned by the client's SSL_CTX from here
    c->enable_server_certificate_verification(true);
    // SNI, Host and the certificate check use t.host; the socket goes to the
    // address the dispatcher checked, so DNS cannot change it in between.
    c->set_hostname_addr_map({{t.host, t.address}});
    c->set_follow_location(false);
    c->set_keep_alive(true);
    c->set_tcp_nodelay(true);
    // What we read is capped in plain bytes; an inflated body would defeat that.
    c->set_decompress(false);
    SSL_CTX_set_min_proto_version(c->ssl_context(), TLS1_2_VERSION);
    return c;
  }
};

HttpsWebhookTransport::HttpsWebhookTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpsWebhookTransport::~HttpsWebhookTransport() = default;

livechat::Result<std::unique_ptr<HttpsWebhookTransport>> HttpsWebhookTransport::Create(HttpsTransportOptions options) {
  if (!options.extraCaFile.empty()) {
    // OpenSSL reports a missing file as "system lib"; say what happened.
    std::FILE* f = std::fopen(options.extraCaFile.c_str(), "rb");
    if (f == nullptr)
      return livechat::MakeError(livechat::ErrorCode::kInvalidParams,
                                 "cannot read " + options.extraCaFile + ": " + std::strerror(errno));
    std::fclose(f);
  }
  std::string error;
  X509_STORE* probe = BuildTrustStore(options.extraCaFile, &error);
  if (probe == nullptr) return livechat::MakeError(livechat::ErrorCode::kInvalidParams, error);
  X509_STORE_free(probe);
  return std::unique_ptr<HttpsWebhookTransport>(
      new HttpsWebhookTransport(std::make_unique<Impl>(std::move(options))));
}

std::uint64_t HttpsWebhookTransport::connectionsOpened() const { return impl_->opened.load(); }

livechat::WebhookResponse HttpsWebhookTransport::Send(const livechat::WebhookRequest& request) {
  Impl& I = *impl_;
  const livechat::HttpsTarget& t = request.target;
  livechat::WebhookResponse out;
  if (t.address.empty()) {
    out.error = "no checked address to connect to for " + t.host;
    return out;
  }
  const std::string key = t.host + "\n" + std::to_string(t.port) + "\n" + t.address;
  const std::int64_t timeoutMillis = std::max<std::int64_t>(request.timeoutMillis, 1);
  const auto deadline = SteadyClock::now() + std::chrono::milliseconds(timeoutMillis);

  httplib::Request req;
  req.method = "POST";
  req.path = t.pathAndQuery;
  for (const auto& [name, value] : request.headers) req.headers.emplace(name, value);
  req.set_header("Host", HostHeader(t));
  req.set_header("Accept-Encoding", "identity");
  req.body = request.body;

  ClientPtr client = I.Checkout(key);
  bool reused = client != nullptr;
  while (true) {
    if (!client) {
      client = I.NewClient(t, &out.error);
      if (!client) return out;
    }
    const auto left = std::max(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()),
                               std::chrono::milliseconds(1));
    client->set_connection_timeout(left);
    client->set_read_timeout(left);
    client->set_write_timeout(left);
    if (!client->is_socket_open()) I.opened.fetch_add(1);

    // The body is counted, never kept: a receiver cannot make us buffer it.
    std::size_t bodyBytes = 0;
    bool bodyTooLarge = false;
    // A copy per try: send() adds headers to the request it is given.
    httplib::Request attempt = req;
    attempt.content_receiver = [&](const char*, std::size_t n, std::uint64_t, std::uint64_t) {
      bodyBytes += n;
      if (bodyBytes <= I.o.maxResponseBodyBytes) return true;
      bodyTooLarge = true;
      return false;
    };
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    ERR_clear_error();
    const std::uint64_t watch = I.StartWatch(client, deadline);
    const bool ok = client->send(attempt, res, error);
    const bool timedOut = I.EndWatch(watch);

    // A status line that arrived in time counts even when the body was cut off.
    if (ok || (bodyTooLarge && res.status > 0 && !timedOut)) {
      out.status = res.status;
      if (res.has_header("Retry-After"))
        out.retryAfterSeconds = ParseRetryAfterSeconds(res.get_header_value("Retry-After"));
      // An aborted or cut-off exchange leaves the connection in an unknown state.
      if (ok && !timedOut) I.Checkin(key, std::move(client));
      return out;
    }
    // A kept-alive connection the receiver closed just as we took it from
    // the pool fails on first use. Try once more on a fresh connection, as
    // browsers and curl do; receivers dedupe on X-Webhook-Event-Id anyway.
    if (reused && !timedOut && res.status <= 0 &&
        (error == httplib::Error::Write || error == httplib::Error::Read) && SteadyClock::now() < deadline) {
      reused = false;
      client.reset();
      continue;
    }
    out.status = 0;
    out.error = timedOut ? "no response from " + Where(t) + " within " + std::to_string(timeoutMillis) + " ms [" +
                               httplib::to_string(error) + "]"
                         : Describe(error, *client, t, timeoutMillis);
    return out;
  }
}

}  // namespace livechatd
