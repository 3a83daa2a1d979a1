// libFuzzer target: the storefront API the widget calls from shop visitors'
// browsers (the listener that faces the public internet): sessions, commands
// with the SDK's argument rules, page views, updates, files. A visitor's
// App ID and session token are sent unless the input carries its own.
// Polls are answered at once (no wait), so an input cannot stall the run.
#include "fuzz/fuzz_http.h"
#include "livechat/storefront.h"

using namespace livechat;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::World* world = new fuzz::World();
  static StorefrontApi* api = [] {
    StorefrontOptions o;
    o.maxWaitMillis = 0;
    return new StorefrontApi(*world->service, o);
  }();
  const HttpRequest req = fuzz::ReadRequest(*world, std::string_view(reinterpret_cast<const char*>(data), size),
                                            {{"x-app-id", "$APP"}, {"x-session-token", "$TOKEN"}});
  fuzz::CheckResponse(AwaitReply(api->Handle(req)));
  return 0;
}
