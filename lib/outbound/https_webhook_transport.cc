#include "livechat/https_webhook_transport.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <utility>

#include "outbound/http_client.h"

namespace livechat {
namespace {

using outbound::Failure;
using outbound::SteadyClock;

std::string Describe(const outbound::Outcome& o, const outbound::Target& t, std::int64_t timeoutMillis) {
  const std::string where = outbound::Where(t);
  std::string text;
  switch (o.failure) {
    case Failure::kTimeout:
      text = "no response from " + where + " within " + std::to_string(timeoutMillis) + " ms";
      break;
    case Failure::kConnect: text = "cannot connect to " + where + ": " + o.detail; break;
    case Failure::kTls: text = "TLS handshake with " + where + " failed: " + o.detail; break;
    case Failure::kUntrusted: text = "the certificate of " + where + " is not trusted: " + o.detail; break;
    case Failure::kNameMismatch:
      text = "the certificate of " + where + " does not match the host name " + t.host;
      break;
    case Failure::kWrite: text = "sending to " + where + " failed: " + o.detail; break;
    case Failure::kRead: text = "no complete response from " + where + ": " + o.detail; break;
    default: text = "request to " + where + " failed"; break;
  }
  // The bracketed word names the step, as the attempt log always has.
  return text + " [" + o.phase + "]";
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
  Impl(HttpsTransportOptions options, std::shared_ptr<outbound::TlsContext> context)
      : o(std::move(options)),
        tls(std::move(context)),
        pool({o.maxIdlePerTarget, o.maxIdleTotal, o.maxIdleMillis}) {}

  HttpsTransportOptions o;
  std::shared_ptr<outbound::TlsContext> tls;
  outbound::ConnectionPool pool;
  std::atomic<std::uint64_t> opened{0};
};

HttpsWebhookTransport::HttpsWebhookTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpsWebhookTransport::~HttpsWebhookTransport() = default;

Result<std::unique_ptr<HttpsWebhookTransport>> HttpsWebhookTransport::Create(HttpsTransportOptions options) {
  if (!options.extraCaFile.empty()) {
    // OpenSSL reports a missing file as "system lib"; say what happened.
    std::FILE* f = std::fopen(options.extraCaFile.c_str(), "rb");
    if (f == nullptr)
      return MakeError(ErrorCode::kInvalidParams, "cannot read " + options.extraCaFile + ": " + std::strerror(errno));
    std::fclose(f);
  }
  // One trust store for every connection, loaded here so a bad file fails
  // at start rather than at the first delivery.
  LC_ASSIGN_OR_RETURN(auto context, outbound::TlsContext::Make(options.extraCaFile, /*caFileOnly=*/false));
  return std::unique_ptr<HttpsWebhookTransport>(
      new HttpsWebhookTransport(std::make_unique<Impl>(std::move(options), std::move(context))));
}

std::uint64_t HttpsWebhookTransport::connectionsOpened() const { return impl_->opened.load(); }

WebhookResponse HttpsWebhookTransport::Send(const WebhookRequest& request) {
  Impl& I = *impl_;
  WebhookResponse out;
  if (request.target.address.empty()) {
    out.error = "no checked address to connect to for " + request.target.host;
    return out;
  }
  const outbound::Target t{request.target.host, request.target.port, request.target.address, true};
  const std::string key = outbound::ConnectionPool::Key(t);
  const std::int64_t timeoutMillis = std::max<std::int64_t>(request.timeoutMillis, 1);
  const auto deadline = SteadyClock::now() + std::chrono::milliseconds(timeoutMillis);

  outbound::Request req;
  req.path = request.target.pathAndQuery;
  req.headers = request.headers;
  // What we read is capped in plain bytes; an inflated body would defeat that.
  req.headers.emplace_back("Accept-Encoding", "identity");
  req.body = request.body;

  std::unique_ptr<outbound::Connection> c = I.pool.Checkout(key);
  bool reused = c != nullptr;
  while (true) {
    outbound::Outcome got;
    if (!c) {
      I.opened.fetch_add(1);
      c = outbound::Connection::Open(t, I.tls.get(), deadline, &got);
    }
    if (c) got = c->Exchange(t, req, deadline, I.o.maxResponseBodyBytes);
    // A status line that arrived in time counts even when the body was cut off.
    if (got.failure == Failure::kNone || got.failure == Failure::kBodyTooLarge) {
      out.status = got.status;
      if (got.retryAfter) out.retryAfterSeconds = ParseRetryAfterSeconds(*got.retryAfter);
      if (c->reusable()) I.pool.Checkin(key, std::move(c));
      return out;
    }
    // A kept-alive connection the receiver closed just as we took it from
    // the pool fails on first use. Try once more on a fresh connection, as
    // browsers and curl do; receivers dedupe on X-Webhook-Event-Id anyway.
    if (reused && (got.failure == Failure::kWrite || got.failure == Failure::kRead) &&
        SteadyClock::now() < deadline) {
      reused = false;
      c.reset();
      continue;
    }
    out.status = 0;
    out.error = Describe(got, t, timeoutMillis);
    return out;
  }
}

}  // namespace livechat
