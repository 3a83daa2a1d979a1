// libFuzzer target: the SSRF rules on outbound requests: a webhook URL's
// parsing (https only, no user info, port, length) and the address check
// every resolved address must pass. Input: the URL; the resolver answers
// every host with the address written after a '#' at the end of the input
// (or 8.8.8.8), so the checks meet hostile addresses too.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "livechat/address_policy.h"

using namespace livechat;

namespace {
class InputResolver final : public Resolver {
 public:
  std::string address;
  Result<std::vector<std::string>> Resolve(const std::string&) override { return std::vector<std::string>{address}; }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  InputResolver resolver;
  resolver.address = "8.8.8.8";
  if (const std::size_t hash = in.rfind('#'); hash != std::string_view::npos) {
    resolver.address = std::string(in.substr(hash + 1));
    in = in.substr(0, hash);
  }
  (void)IsPublicAddress(in);
  auto checked = CheckWebhookTarget(in, resolver, false);
  // A target that passes connects only to a public address.
  if (checked.ok() && !IsPublicAddress(checked->address)) std::abort();
  if (auto parsed = ParseHttpsUrl(in); parsed.ok() && (parsed->port < 1 || parsed->port > 65535)) std::abort();
  return 0;
}
