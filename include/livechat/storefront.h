// The storefront widget's HTTP API under /storefront/: HttpRequest ->
// sdk::CommandValidator -> ChatService -> HttpResponse. No credential but the
// store's public App ID (X-App-Id) and, after POST /storefront/sessions, the
// visitor's session token (X-Session-Token); any plan. Routes and bodies are
// in docs/sdk.md ("Widget API").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/chat_service.h"
#include "livechat/http.h"
#include "livechat/sdk/validator.h"

namespace livechat {

struct StorefrontOptions {
  std::size_t maxBodyBytes = 256 * 1024;  // larger bodies: 413
  // Origins allowed to call the API from a browser ("https://shop.example").
  // Empty: any origin (the API carries no cookies; the token is a header).
  std::vector<std::string> allowedOrigins;
  // Long-poll (GET /storefront/updates?wait=N). A waiting poll holds no
  // thread: Handle returns a deferred answer (HttpResponse::deferred) that
  // is given when the conversation changes or the wait ends (a wait over
  // 5 s ends up to a fifth early, at random, so widgets that began together
  // come back apart). At most maxWaiters wait at once (each holds its
  // connection; livechatd measured about 11 KB resident per waiting
  // widget); the rest are answered at once with retryAfterMs.
  int maxWaiters = 10'000;
  Millis maxWaitMillis = 25'000;   // the longest a poll waits (?wait= is capped here)
  Millis retryAfterMillis = 1'000; // what a poll over the cap is told to wait
  // A waiting poll wakes when ChatService reports a change to its
  // conversation (SetConversationObserver); it also re-reads the store this
  // often, for writes the observer cannot see (another process on the
  // database), but never so often that these reads pass
  // fallbackReadsPerSecond in all (0: no such bound).
  Millis fallbackPollMillis = 2'000;
  int fallbackReadsPerSecond = 500;
  // Threads that read waiting polls again when they wake (and a timer
  // thread besides).
  int pollThreads = 2;
  sdk::SdkLimits sdkLimits;
  std::vector<Cidr> trustedProxies;  // peers whose X-Forwarded-For is believed (the client's address)
};

// Thread-safe. Registers itself as the service's conversation observer for
// its lifetime (one StorefrontApi per ChatService). Waiting polls are
// answered early when the object is destroyed (and the destructor waits
// for it): every deferred answer it gave must have been given its reply.
class StorefrontApi {
 public:
  StorefrontApi(ChatService& service, StorefrontOptions options);
  ~StorefrontApi();
  StorefrontApi(const StorefrontApi&) = delete;
  StorefrontApi& operator=(const StorefrontApi&) = delete;

  // True for targets under /storefront/.
  static bool Owns(std::string_view target);
  // The answer; for a poll that waits, a deferred one (the host gives it a
  // reply, or calls AwaitReply).
  HttpResponse Handle(const HttpRequest& req);

  // Polls waiting right now (metrics, tests).
  int waiters() const;
  // Shutdown: every waiting poll answers now, and later polls do not wait.
  void WakeAll();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace livechat
