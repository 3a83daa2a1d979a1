#include "livechat/sdk/validator.h"

#include <mutex>
#include <unordered_map>

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"
#include "sdk/command_rules.h"

namespace livechat::sdk {
namespace {

Error Invalid(std::string message) { return MakeError(ErrorCode::kInvalidParams, std::move(message)); }

}  // namespace

// One fixed window per (session, limited command). The same rule as the REST
// limiter (spec: Limits, "Rate window"), so a shop owner learns one rule.
struct CommandValidator::Windows {
  struct Window {
    std::int64_t start = 0;
    int count = 0;
  };
  struct Session {
    Window messages, typing;
  };
  std::mutex mu;
  std::unordered_map<std::string, Session> sessions;
  std::int64_t lastSweep = 0;

  // Sessions whose windows have all closed are dropped once per window
  // length, so memory is bounded by the sessions active in one window.
  void SweepLocked(std::int64_t now, std::int64_t window) {
    lastSweep = now;
    for (auto it = sessions.begin(); it != sessions.end();) {
      bool open = (it->second.messages.count > 0 && now - it->second.messages.start < window) ||
                  (it->second.typing.count > 0 && now - it->second.typing.start < window);
      it = open ? std::next(it) : sessions.erase(it);
    }
  }
};

CommandValidator::CommandValidator(const Clock& clock, SdkLimits limits)
    : clock_(clock), limits_(limits), windows_(std::make_unique<Windows>()) {}

CommandValidator::~CommandValidator() = default;

Status CommandValidator::CheckArguments(std::string_view command, std::string_view argsJson) const {
  if (!livechat::IsValidUtf8(command) || !livechat::IsValidUtf8(argsJson))
    return Invalid("command and arguments must be valid UTF-8");
  rapidjson::Document args;
  if (livechat::Trim(argsJson).empty()) {
    args.SetArray();
  } else {
    args.Parse<rapidjson::kParseValidateEncodingFlag>(argsJson.data(), argsJson.size());
    if (args.HasParseError())
      return Invalid(fmt::format("{}: arguments are not valid JSON ({} at offset {})", command,
                                 rapidjson::GetParseError_En(args.GetParseError()), args.GetErrorOffset()));
    if (!args.IsArray()) return Invalid(fmt::format("{}: arguments must be a JSON array", command));
  }
  if (auto warning = internal::CheckCommand(command, args, limits_)) return Invalid(std::move(*warning));
  return Status::Ok();
}

Status CommandValidator::Validate(std::string_view sessionId, std::string_view command, std::string_view argsJson) {
  return Apply(sessionId, command, argsJson, nullptr);
}

Status CommandValidator::Apply(std::string_view sessionId, std::string_view command, std::string_view argsJson,
                               const std::function<Status()>& apply) {
  LC_RETURN_IF_ERROR(CheckArguments(command, argsJson));
  const bool isMessage = command == "message:send";
  if (!isMessage && command != "typing:set") return apply ? apply() : Status::Ok();

  const std::int64_t now = clock_.MonotonicMillis();
  const std::int64_t window = limits_.windowMillis;
  {
    std::lock_guard<std::mutex> lock(windows_->mu);
    if (now - windows_->lastSweep >= window) windows_->SweepLocked(now, window);
    Windows::Session& s = windows_->sessions[std::string(sessionId)];
    Windows::Window& w = isMessage ? s.messages : s.typing;
    const int limit = isMessage ? limits_.messagesPerWindow : limits_.typingPerWindow;
    if (w.count == 0 || now - w.start >= window) w = Windows::Window{now, 0};
    if (w.count >= limit) {
      // A refused call is not counted: it cannot extend or fill the window.
      const std::int64_t retrySeconds = (w.start + window - now + 999) / 1000;
      return RetryLaterError(ErrorCode::kRateLimited,
                             fmt::format("{}: rate limit of {} {} per {} reached; try again in {} s", command, limit,
                                         isMessage ? "messages" : "typing calls",
                                         window == 60'000 ? std::string("minute") : fmt::format("{} ms", window),
                                         retrySeconds),
                             w.start + window - now);
    }
    ++w.count;
  }
  if (!apply) return Status::Ok();
  Status applied = apply();
  if (applied.ok()) return applied;
  // Refused after all: give the place back, unless its window has closed
  // meanwhile (a later window started after this call was counted).
  std::lock_guard<std::mutex> lock(windows_->mu);
  auto it = windows_->sessions.find(std::string(sessionId));
  if (it != windows_->sessions.end()) {
    Windows::Window& w = isMessage ? it->second.messages : it->second.typing;
    if (w.count > 0 && w.start <= now && now - w.start < window) --w.count;
  }
  return applied;
}

}  // namespace livechat::sdk
