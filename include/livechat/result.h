// Errors as values. No exception crosses the ChatService facade: every call
// returns Result<T> (a value or an Error) or Status (an Error or nothing).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace livechat {

// The spec's error codes plus the few this implementation needs for input the
// spec does not describe (oversized bodies, unknown routes, internal failures).
// Each adapter maps a code to its transport in exactly one place.
enum class ErrorCode : std::uint8_t {
  kInvalidParams,        // 400 INVALID_PARAMS
  kUnauthenticated,      // 401 UNAUTHENTICATED (credential missing)
  kInvalidApiKey,        // 401 INVALID_API_KEY (unknown, revoked, not yet active)
  kForbidden,            // 403 FORBIDDEN (message names the missing permission)
  kNotFound,             // 404 NOT_FOUND (missing, or another store's: identical)
  kMethodNotAllowed,     // 405 METHOD_NOT_ALLOWED (path exists, verb does not)
  kConflict,             // 409 CONFLICT (a business rule forbids the write now)
  kChannelUnavailable,   // 409 CHANNEL_UNAVAILABLE
  kPayloadTooLarge,      // 413 PAYLOAD_TOO_LARGE
  kUnsupportedMediaType, // 415 UNSUPPORTED_MEDIA_TYPE (write without JSON)
  kCursorExpired,        // 410 CURSOR_EXPIRED (the change feed pruned events after it)
  kIdempotencyKeyReused, // 422 IDEMPOTENCY_KEY_REUSED (the key names another request)
  kRateLimited,          // 429 RATE_LIMITED
  kInternal,             // 500 INTERNAL (storage failure; details logged, not sent)
  kUnavailable,          // 503 UNAVAILABLE (storage full or unreachable: retry later; details logged)
};

// "INVALID_PARAMS", "NOT_FOUND", ...: the wire name of a code.
std::string_view ErrorCodeName(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  // How long the caller should wait before trying again (HTTP Retry-After):
  // set by every kRateLimited refusal, and by a conflict that ends by itself
  // (a request with the same idempotency key still running). 0: not said.
  std::int64_t retryAfterMillis = 0;
};

inline Error MakeError(ErrorCode code, std::string message) {
  return Error{code, std::move(message)};
}

// What a client is told of `e`: its message, except for the server's own
// failures, whose detail (SQL, paths, a database's words) stays in the log.
std::string_view PublicMessage(const Error& e);

// The server's own failures (kInternal, kUnavailable): each adapter logs
// their detail, since the client is not shown it.
inline bool IsServerFault(const Error& e) {
  return e.code == ErrorCode::kInternal || e.code == ErrorCode::kUnavailable;
}

// How long a kUnavailable refusal asks the client to wait when its source
// did not say: long enough for an operator's disk cleanup or a database
// restart to matter, short enough that a widget's retry is not noticed.
inline constexpr std::int64_t kUnavailableRetryMillis = 5000;

// A refusal the caller may retry after `retryAfterMillis`.
inline Error RetryLaterError(ErrorCode code, std::string message, std::int64_t retryAfterMillis) {
  return Error{code, std::move(message), retryAfterMillis};
}

// A value of T, or an Error. [[nodiscard]] so an ignored failure is a warning.
template <typename T>
class [[nodiscard]] Result {
 public:
  // By reference, not by value: a value taken by value was moved twice (into
  // the parameter, then into the variant), and records of twenty strings
  // pass through several Results on their way out of the store.
  Result(T&& value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(const T& value) : v_(std::in_place_index<0>, value) {}        // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}      // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Precondition: ok().
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }

  // Precondition: !ok().
  const Error& error() const { return std::get<1>(v_); }
  Error&& take_error() { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

// Success or an Error, for calls that return nothing.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  static Status Ok() { return Status(); }

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  // Precondition: !ok().
  const Error& error() const { return *error_; }
  Error&& take_error() { return std::move(*error_); }

 private:
  std::optional<Error> error_;
};

}  // namespace livechat

// Early-return helpers. The argument is evaluated once. Temporaries are named
// by line so that nested uses (inside lambdas) do not shadow each other.
#define LC_CONCAT_INNER_(a, b) a##b
#define LC_CONCAT_(a, b) LC_CONCAT_INNER_(a, b)

#define LC_RETURN_IF_ERROR_IMPL_(tmp, expr) \
  do {                                      \
    auto tmp = (expr);                      \
    if (!tmp.ok()) return tmp.take_error(); \
  } while (0)
#define LC_RETURN_IF_ERROR(expr) LC_RETURN_IF_ERROR_IMPL_(LC_CONCAT_(_lc_st_, __LINE__), expr)

#define LC_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.take_error();         \
  lhs = std::move(tmp).value()
#define LC_ASSIGN_OR_RETURN(lhs, expr) \
  LC_ASSIGN_OR_RETURN_IMPL_(LC_CONCAT_(_lc_res_, __LINE__), lhs, expr)
