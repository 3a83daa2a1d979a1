// The storefront SDK's command rules (spec: Storefront SDK, Limits "SDK").
// This is the one place they live: the storefront HTTP API calls it, an
// embedding product can call it, and the browser SDK (/sdk.js) applies the
// same rules, proven by the shared vectors in tests/vectors/sdk_commands.json.
//
// A command is a name and its positional arguments, exactly as a page pushes
// it: LiveChat.push(['message:send', 'Hello']) is command "message:send" with
// arguments ["Hello"]. The arguments travel as a JSON array. Each command's
// arguments and their shapes are listed in docs/sdk.md.
//
// No I/O. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/clock.h"
#include "livechat/result.h"

namespace livechat::sdk {

// The version of the browser SDK these rules belong to (spec: Versioning).
inline constexpr std::string_view kSdkVersion = "1.1.0";

// Every number is a setting; the defaults are the spec's (Limits, SDK row)
// and the choices recorded in docs/decisions.md.
struct SdkLimits {
  int messageTextMax = 5000;            // code points, message:send and message:text
  std::size_t commerceObjectMax = 8192; // bytes of compact JSON: product, cart, order, user:context, shop:data
  std::size_t eventPropertiesMax = 2048;  // bytes of compact JSON, event:track properties
  int messagesPerWindow = 15;           // message:send per session
  int typingPerWindow = 30;             // typing:set per session
  std::int64_t windowMillis = 60'000;   // fixed window from the first counted call
};

// The command names of the spec, in the spec's order.
const std::vector<std::string_view>& CommandNames();

class CommandValidator {
 public:
  // `clock` must outlive the validator.
  explicit CommandValidator(const Clock& clock, SdkLimits limits = {});
  ~CommandValidator();
  CommandValidator(const CommandValidator&) = delete;
  CommandValidator& operator=(const CommandValidator&) = delete;

  // The command's name and argument shapes only; keeps no state. OK, or
  // INVALID_PARAMS whose message is the warning a developer reads in the
  // console ("message:send: text must be at most 5000 characters (got 5001)").
  // `argsJson` must be a JSON array; empty text means no arguments.
  Status CheckArguments(std::string_view command, std::string_view argsJson) const;

  // CheckArguments, then the per-session rate limits: message:send and
  // typing:set are counted in a fixed window that opens with the session's
  // first counted call and lasts windowMillis; calls while blocked are refused
  // with RATE_LIMITED and never move the window. Only well-formed calls count.
  // Validate(...) is Apply(...) with nothing to apply.
  Status Validate(std::string_view sessionId, std::string_view command, std::string_view argsJson);

  // Validate, then `apply` (the command's effect) when the command passed;
  // the call stays counted only when apply succeeds too, so a call refused
  // for any reason (its shape, the window, or apply's own size, type or state
  // checks) never counts. While apply runs the call holds its place, so
  // concurrent calls cannot overfill the window. Returns the first refusal.
  Status Apply(std::string_view sessionId, std::string_view command, std::string_view argsJson,
               const std::function<Status()>& apply);

  const SdkLimits& limits() const { return limits_; }

 private:
  struct Windows;
  const Clock& clock_;
  const SdkLimits limits_;
  std::unique_ptr<Windows> windows_;
};

}  // namespace livechat::sdk
