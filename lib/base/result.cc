#include "livechat/result.h"

namespace livechat {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidParams: return "INVALID_PARAMS";
    case ErrorCode::kUnauthenticated: return "UNAUTHENTICATED";
    case ErrorCode::kInvalidApiKey: return "INVALID_API_KEY";
    case ErrorCode::kForbidden: return "FORBIDDEN";
    case ErrorCode::kNotFound: return "NOT_FOUND";
    case ErrorCode::kMethodNotAllowed: return "METHOD_NOT_ALLOWED";
    case ErrorCode::kConflict: return "CONFLICT";
    case ErrorCode::kChannelUnavailable: return "CHANNEL_UNAVAILABLE";
    case ErrorCode::kPayloadTooLarge: return "PAYLOAD_TOO_LARGE";
    case ErrorCode::kUnsupportedMediaType: return "UNSUPPORTED_MEDIA_TYPE";
    case ErrorCode::kCursorExpired: return "CURSOR_EXPIRED";
    case ErrorCode::kIdempotencyKeyReused: return "IDEMPOTENCY_KEY_REUSED";
    case ErrorCode::kRateLimited: return "RATE_LIMITED";
    case ErrorCode::kInternal: return "INTERNAL";
    case ErrorCode::kUnavailable: return "UNAVAILABLE";
  }
  return "INTERNAL";
}

std::string_view PublicMessage(const Error& e) {
  switch (e.code) {
    case ErrorCode::kInternal: return "internal error";
    case ErrorCode::kUnavailable:
      return "the service's storage is full or unreachable right now; try again later";
    default: return e.message;
  }
}

}  // namespace livechat
