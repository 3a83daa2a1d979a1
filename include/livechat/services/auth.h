// AuthService: who is calling (API keys, App ID + key, admin sessions,
// sign-in and sign-out) and the request rate limits (auth_service.cc).
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include "livechat/services/common.h"

namespace livechat {

// One window a request was counted in, as the IETF RateLimit fields
// (draft-ietf-httpapi-ratelimit-headers) name it.
struct RatePolicy {
  std::string name;          // "key" (per API key) or "ip" (per source address)
  int quota = 0;             // requests per window (q)
  int windowSeconds = 60;    // w
  int remaining = 0;         // r
  Millis resetInMillis = 0;  // t, until this window ends
};

struct RateDecision {
  bool allowed = true;
  int limit = 0;       // X-RateLimit-Limit
  int remaining = 0;   // X-RateLimit-Remaining
  Millis resetInMillis = 0;
  // Every window the request was counted in, the key's first.
  std::vector<RatePolicy> policies;
};

struct LoginResult {
  std::string token;  // cookie value, returned once
  AdminSession session;
  Member member;
};

class AuthService {
 public:
  explicit AuthService(internal::ServiceContext& ctx);
  AuthService(const AuthService&) = delete;
  AuthService& operator=(const AuthService&) = delete;

  // ---- Authentication ----
  // Empty key: UNAUTHENTICATED. Malformed, unknown, revoked, or not yet
  // active: INVALID_API_KEY. The comparison is on the SHA-256 of the key, in
  // constant time.
  Result<Principal> AuthenticateApiKey(const std::string& apiKey);
  // The same check, then `then` with its result (the principal or the
  // refusal, or the store's error), both inside ONE read transaction of the
  // store: the reads `then` makes through these services join it (a nested
  // Store::Read on the same thread reuses the held transaction), so a read
  // request costs one transaction and reads the very snapshot its key was
  // checked in. Revocation is as exact as AuthenticateApiKey's: a key
  // revoked (by any process) before the request's snapshot is refused.
  // `then` runs exactly once, unless it throws (that comes back as
  // INTERNAL). It must only read the store (a Write inside a Read would not
  // be seen by its later reads, and fails on an in-memory store) and must not
  // wait (long-poll, stream): it holds a reader connection and a snapshot.
  // Returns the transaction's status.
  Status ReadAsApiKey(const std::string& apiKey, const std::function<void(const Result<Principal>&)>& then);
  // App ID + sk_ key of that store (GraphQL, MCP). Missing: UNAUTHENTICATED;
  // wrong: INVALID_API_KEY.
  Result<Principal> AuthenticateAppKey(const std::string& appId, const std::string& apiKey);
  // Admin inbox session cookie. Missing: UNAUTHENTICATED; unknown or expired: UNAUTHENTICATED.
  Result<Principal> AuthenticateSession(const std::string& token);
  // Email + password of an active member. `shopId` picks the store when the
  // email belongs to members of several. Wrong: UNAUTHENTICATED (one message
  // for all causes, and the same cost whether or not the email is a member's).
  // Too many recent failures for the email or for `sourceIp` (the client's
  // address; Limits::login*): RATE_LIMITED before the password is looked at,
  // and *retryAfterMillis (when given) is set to the wait; otherwise it is
  // left unchanged.
  Result<LoginResult> Login(const std::string& email, const std::string& password,
                            const std::optional<std::string>& shopId, const std::string& sourceIp,
                            Millis* retryAfterMillis = nullptr);
  Status Logout(const std::string& token);

  // Fixed-window rate limiting (spec: Limits). Counts this request. `keyId`
  // empty for unauthenticated requests (IP only). The decision reported is the
  // tighter of the two windows.
  RateDecision CheckRateLimit(const std::string& keyId, const std::string& sourceIp);

 private:
  internal::ServiceContext& ctx_;
};

}  // namespace livechat
