// The REST adapter: HttpRequest -> ChatService -> HttpResponse. Serves the
// public API under /chat/... (X-Api-Key) and the admin inbox under /api/...
// (session cookie). It parses and shapes; every rule lives in ChatService.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "livechat/chat_service.h"
#include "livechat/http.h"

namespace livechat {

// The live form of the change feed: GET /chat/events with Accept:
// text/event-stream (docs/api/README.md, "Change feed"). Each stream holds a
// host thread for its whole life, so they are counted and capped.
struct EventStreamOptions {
  int maxStreams = 16;        // open at once on this RestApi; more: 429 with Retry-After
  int maxStreamsPerKey = 4;   // open at once per API key (or admin session)
  Millis heartbeatMillis = 15'000;   // a `: heartbeat` comment after this long without a write
  Millis pollMillis = 500;    // the store is read at least this often (writes by other instances)
  Millis lifetimeMillis = 300'000;   // a stream ends after this long; the client resumes (Last-Event-ID)
  Millis retryMillis = 2'000;  // the `retry:` hint: how long a client waits before reconnecting
};

// Every write under /api/ (the admin session's surface) but the sign-in
// carries this header with the value "1", or it is 403 FORBIDDEN: a forged
// cross-site request cannot set it (docs/inbox.md, "Security").
inline constexpr char kCsrfHeader[] = "X-Livechat-Csrf";

struct RestOptions {
  std::size_t maxBodyBytes = 1 << 20;  // larger bodies: 413 PAYLOAD_TOO_LARGE
  std::vector<Cidr> trustedProxies;    // peers whose X-Forwarded-For is believed
  std::string sessionCookieName = "lc_session";
  bool secureCookies = false;          // add `Secure` to the session cookie (behind TLS)
  EventStreamOptions eventStreams;
  // A message send answers later (HttpResponse::deferred) with its write
  // handed to the store's writer thread (IsHandedToWriter). Only for a host
  // that handles `deferred` (livechatd does; AwaitReply waits for it).
  // Off: every answer comes from Handle itself.
  bool answerSendsLater = false;
};

// Thread-safe; holds no per-request state.
class RestApi {
 public:
  RestApi(ChatService& service, RestOptions options);
  ~RestApi();

  // True for targets this adapter owns (/chat/..., /api/...).
  static bool Owns(std::string_view target);
  // The route template a target matches ("/chat/conversations/{conversationId}",
  // "/api/chat/...", "/webhook/subscriptions/{id}"), whatever the method; empty
  // optional for a target no route matches. Bounded label set for metrics.
  static std::optional<std::string> RouteTemplate(std::string_view target);
  HttpResponse Handle(const HttpRequest& req);
  // True for a GET with an API key that only reads the store, and only a
  // bounded number of rows through an index however large the store: a
  // conversation, its messages, notes and attributes, a customer and its
  // conversations, members, and the conversation list without a search and
  // with at most one indexed filter (rest_routes.cc, Route::bounded). Its
  // handling waits on nothing but its own read and the in-process limits.
  static bool IsBoundedRead(const HttpRequest& req);
  // True for a message send (POST /chat/conversations/{id}/messages) with an
  // API key and no Idempotency-Key: with RestOptions::answerSendsLater,
  // Handle checks it as far as its write and answers it later
  // (HttpResponse::deferred), handing the write to the
  // store's writer thread (Store::WriteAsync). Until then its handling waits
  // on nothing but its key's read and the in-process limits.
  static bool IsHandedToWriter(const HttpRequest& req);
  // The answer to a request whose body the host refuses unread (its
  // Content-Length is over what the host will read), with what Handle adds to
  // every answer of the request's surface: on /chat/... and
  // /webhook/subscriptions the request is counted in the rate windows (its
  // key's too when X-Api-Key is valid) and carries their headers, or is 429
  // when a window is spent. `req` has its headers and no body.
  HttpResponse RefuseUnreadBody(const HttpRequest& req, const Error& refusal);

  // Open event streams read the store now rather than at their next poll:
  // call after a write in this process committed events (cheap, any thread).
  void WakeEventStreams();
  // Every open event stream ends at once and new ones are refused: the host
  // calls it when it stops, so no stream holds the stop up.
  void StopEventStreams();
  // Event streams open now (for tests and metrics).
  int OpenEventStreams() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The error body every REST error uses: {"error":{"code":..,"message":..}}.
std::string RestErrorBody(const Error& e);
// The HTTP status for an error code (the one mapping table of this adapter).
int RestStatusFor(ErrorCode code);
// Retry-After for an error, in whole seconds rounded up: every 429 carries
// one (at least 1), as does any error that says when to retry; empty when
// neither.
std::string RetryAfterFor(const Error& e);

}  // namespace livechat
