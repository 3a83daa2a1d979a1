// libFuzzer target: the storefront SDK's command validator (the argument
// rules the widget's commands are held to, shared with the browser SDK).
// Input: the command name, a newline, then the arguments' JSON text.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "livechat/clock.h"
#include "livechat/sdk/validator.h"

using namespace livechat;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ManualClock* clock = new ManualClock();
  static sdk::CommandValidator* validator = new sdk::CommandValidator(*clock);
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::size_t nl = in.find('\n');
  const std::string_view command = in.substr(0, nl);
  const std::string_view args = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
  Status s = validator->CheckArguments(command, args);
  if (!s.ok() && s.error().message.empty()) std::abort();
  return 0;
}
