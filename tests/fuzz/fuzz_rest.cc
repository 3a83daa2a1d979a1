// libFuzzer target: the REST API (every /chat/... and /api/chat/... route) as
// a host hands it a request: method, target with its query string, headers
// and body, authenticated with a key holding every permission unless the
// input carries its own credentials. Route matching, query parsing, cursors,
// JSON bodies and every validation rule behind them; the service and the
// SQLite store are real. Any crash, sanitizer report, status outside
// 100..599, non-JSON body labelled JSON or header with a line break is a bug.
#include "fuzz/fuzz_http.h"
#include "livechat/rest.h"

using namespace livechat;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::World* world = new fuzz::World();  // once per process, never freed
  static RestApi* api = new RestApi(*world->service, RestOptions{});
  const HttpRequest req = fuzz::ReadRequest(*world, std::string_view(reinterpret_cast<const char*>(data), size),
                                            {{"x-api-key", "$KEY"}});
  // The live feed streams until its client leaves: its first answer is
  // checked, its stream is not run.
  fuzz::CheckResponse(AwaitReply(api->Handle(req)));
  return 0;
}
