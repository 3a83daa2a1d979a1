// libFuzzer target: platform requests (/platform/..., the commerce
// platform's signed compliance and uninstall calls). Half the inputs (the
// first byte's low bit) are signed with the app secret, so the body's
// parsing behind the HMAC check is fuzzed too; the rest test the check.
// An input that uninstalls or redacts the shop gets the next input a fresh
// store, so one such input does not turn the rest of the run into 404s.
#include "fuzz/fuzz_http.h"
#include "livechat/platform.h"

using namespace livechat;

namespace {

constexpr const char* kSecret = "fuzz-app-secret";

struct Target {
  fuzz::World world;
  PlatformApi api{*world.service, PlatformOptions{kSecret}};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Target* t = new Target();
  if (size == 0) return 0;
  const bool sign = (data[0] & 1) != 0;
  HttpRequest req =
      fuzz::ReadRequest(t->world, std::string_view(reinterpret_cast<const char*>(data + 1), size - 1), {});
  if (sign && !req.Header("x-platform-hmac-sha256"))
    req.headers.emplace_back("x-platform-hmac-sha256", PlatformSignature(kSecret, req.body));
  fuzz::CheckResponse(t->api.Handle(req));
  // An uninstall or a shop redact is for good: every later input would be
  // answered for a store that is gone, and the fuzzer would see no more of
  // the parsing behind it. Start the next input with a fresh store.
  const Result<Shop> shop = t->world.service->directory().GetShop(t->world.shop.id);
  if (!shop.ok() || !shop.value().installed) {
    delete t;
    t = new Target();
  }
  return 0;
}
