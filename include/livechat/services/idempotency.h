// IdempotencyService: the Idempotency-Key of REST writes
// (idempotency_service.cc).
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include "livechat/services/common.h"

namespace livechat {

// What to do with a write that carries an Idempotency-Key.
struct IdempotentStart {
  enum class Kind { kRun, kReplay };
  Kind kind = Kind::kRun;
  // kReplay: the response of the first request with the key.
  int status = 0;
  std::string contentType;
  std::string body;
};
// The Idempotency-Key header's key: 1 to 255 printable ASCII characters, as a
// bare value or a Structured Field string ("..."). kInvalidParams otherwise.
Result<std::string> ParseIdempotencyKey(std::string_view header);
// What makes two requests the same: method, request target and body.
std::string IdempotencyFingerprint(std::string_view method, std::string_view target, std::string_view body);

class IdempotencyService {
 public:
  explicit IdempotencyService(internal::ServiceContext& ctx);
  IdempotencyService(const IdempotencyService&) = delete;
  IdempotencyService& operator=(const IdempotencyService&) = delete;

  // ---- Idempotency-Key (every REST write; idempotency_service.cc) ----
  // Claims `key` for the caller (its API key, or its member for an admin
  // session): kRun when this request is the first and should run, kReplay
  // with the kept response when it already ran with the same fingerprint
  // within 24 hours. Errors: kIdempotencyKeyReused (422) when the key was
  // used with another request, kConflict with retryAfterMillis when the
  // first request is still running.
  Result<IdempotentStart> BeginIdempotentRequest(const Principal& p, const std::string& key,
                                                 const std::string& fingerprint);
  // Keeps the response of the request that claimed `key` for 24 hours; a 5xx
  // or a 429 releases the key instead, so the client's retry runs again.
  Status FinishIdempotentRequest(const Principal& p, const std::string& key, int status,
                                 const std::string& contentType, const std::string& body);

 private:
  internal::ServiceContext& ctx_;
};

}  // namespace livechat
