// libFuzzer target: platform requests (/platform/..., the commerce
// platform's signed compliance and uninstall calls). Half the inputs (the
// first byte's low bit) are signed with the app secret, so the body's
// parsing behind the HMAC check is fuzzed too; the rest test the check.
#include "fuzz/fuzz_http.h"
#include "livechat/platform.h"

using namespace livechat;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::World* world = new fuzz::World();
  static const std::string secret = "fuzz-app-secret";
  static PlatformApi* api = new PlatformApi(*world->service, PlatformOptions{secret});
  if (size == 0) return 0;
  const bool sign = (data[0] & 1) != 0;
  HttpRequest req =
      fuzz::ReadRequest(*world, std::string_view(reinterpret_cast<const char*>(data + 1), size - 1), {});
  if (sign && !req.Header("x-platform-hmac-sha256"))
    req.headers.emplace_back("x-platform-hmac-sha256", PlatformSignature(secret, req.body));
  fuzz::CheckResponse(api->Handle(req));
  return 0;
}
