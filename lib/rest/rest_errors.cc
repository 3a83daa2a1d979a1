
#include "livechat/json_codec.h"
#include "livechat/rest.h"

namespace livechat {

int RestStatusFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidParams: return 400;
    case ErrorCode::kUnauthenticated: return 401;
    case ErrorCode::kInvalidApiKey: return 401;
    case ErrorCode::kForbidden: return 403;
    case ErrorCode::kNotFound: return 404;
    case ErrorCode::kMethodNotAllowed: return 405;
    case ErrorCode::kConflict: return 409;
    case ErrorCode::kChannelUnavailable: return 409;
    case ErrorCode::kPayloadTooLarge: return 413;
    case ErrorCode::kUnsupportedMediaType: return 415;
    case ErrorCode::kCursorExpired: return 410;
    case ErrorCode::kIdempotencyKeyReused: return 422;
    case ErrorCode::kRateLimited: return 429;
    case ErrorCode::kInternal: return 500;
    case ErrorCode::kUnavailable: return 503;
  }
  return 500;
}

std::string RetryAfterFor(const Error& e) {
  std::int64_t millis = e.retryAfterMillis;
  if (millis <= 0 && e.code == ErrorCode::kUnavailable) millis = kUnavailableRetryMillis;
  if (e.code != ErrorCode::kRateLimited && millis <= 0) return "";
  const std::int64_t secs = (millis + 999) / 1000;
  return std::to_string(secs < 1 ? 1 : secs);
}

std::string RestErrorBody(const Error& e) {
  // Storage messages can name tables, paths or SQL: they stay on the server.
  std::string_view message = PublicMessage(e);
  std::string out = "{\"error\":{\"code\":";
  AppendJsonString(out, ErrorCodeName(e.code));
  out += ",\"message\":";
  AppendJsonString(out, message);
  out += "}}";
  return out;
}

}  // namespace livechat
