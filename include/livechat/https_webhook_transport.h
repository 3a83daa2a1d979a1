// The HTTPS WebhookTransport (livechat::outbound; livechatd delivers with
// it): Boost.Beast over OpenSSL. It connects to the address the dispatcher
// checked (never a new DNS lookup), verifies the receiver's certificate
// against the host name (SNI carries it), never follows redirects, keeps
// connections alive per (host, port, address), and bounds what a hostile
// receiver can cost us: the whole exchange is cut at the request's timeout,
// and at most a few KB of a response body are read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "livechat/result.h"
#include "livechat/webhooks.h"

namespace livechat {

struct HttpsTransportOptions {
  // A PEM file of extra CA certificates trusted besides the system store
  // (a receiver with a private CA, or a test's throwaway CA). Empty: none.
  std::string extraCaFile;
  // Response bytes read before the body is abandoned (and the connection
  // dropped). The dispatcher needs the status line and headers only.
  std::size_t maxResponseBodyBytes = 4096;
  // Idle keep-alive connections kept per (host, port, address), and overall.
  std::size_t maxIdlePerTarget = 8;
  std::size_t maxIdleTotal = 128;
  // An idle connection older than this is closed instead of reused: most
  // servers drop idle keep-alive connections after 5 to 60 seconds.
  std::int64_t maxIdleMillis = 30'000;
};

// Thread-safe: any number of Send calls may run at once, each on its own
// connection (HTTP/1.1 carries one request at a time).
class HttpsWebhookTransport final : public WebhookTransport {
 public:
  // INVALID_PARAMS when the extra CA file cannot be loaded (the message names
  // the file and OpenSSL's reason), so a bad flag fails at start, not at the
  // first delivery.
  static Result<std::unique_ptr<HttpsWebhookTransport>> Create(HttpsTransportOptions options);
  ~HttpsWebhookTransport() override;
  HttpsWebhookTransport(const HttpsWebhookTransport&) = delete;
  HttpsWebhookTransport& operator=(const HttpsWebhookTransport&) = delete;

  // Status 0 with a readable `error` when no HTTP status arrived in time
  // (connect, TLS, certificate, timeout). A response whose body exceeds the
  // limit still reports its status.
  WebhookResponse Send(const WebhookRequest& request) override;

  // TLS connections opened so far (keep-alive reuse shows as a small number).
  std::uint64_t connectionsOpened() const;

 private:
  struct Impl;
  explicit HttpsWebhookTransport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Parses a Retry-After value in its delta-seconds form ("120"). Empty for the
// HTTP-date form, for anything else that is not a whole number of seconds,
// and for more than ten digits.
std::optional<std::int64_t> ParseRetryAfterSeconds(const std::string& value);

}  // namespace livechat
