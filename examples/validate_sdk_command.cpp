// Embedding the storefront SDK's command rules in another product: a server
// that accepts widget commands from its own transport checks them exactly as
// livechat's /storefront/ API and the browser SDK do.
//
// usage: validate_sdk_command COMMAND [ARGS_JSON_ARRAY]
//   validate_sdk_command message:send '["Hello"]'        -> "accept", exit 0
//   validate_sdk_command typing:set '["yes"]'            -> "reject: typing:set: active must be ...", exit 1
//   validate_sdk_command --burst 16 message:send '["hi"]' -> the 16th call in one minute is refused
//
// Build against an installed livechat:
//   cmake -S examples -B build-examples -DCMAKE_PREFIX_PATH=/usr/local
//   cmake --build build-examples && ./build-examples/validate_sdk_command chat:open
#include <cstdio>
#include <cstdlib>
#include <string>

#include <livechat/clock.h>
#include <livechat/sdk/validator.h>

int main(int argc, char** argv) {
  int burst = 1;
  int first = 1;
  if (argc > 2 && std::string(argv[1]) == "--burst") {
    burst = std::atoi(argv[2]);
    first = 3;
  }
  if (argc - first < 1 || argc - first > 2 || burst < 1) {
    std::fprintf(stderr, "usage: validate_sdk_command [--burst N] COMMAND [ARGS_JSON_ARRAY]\n");
    return 2;
  }
  const std::string command = argv[first];
  const std::string args = argc - first == 2 ? argv[first + 1] : "";

  // Windows are kept per session against the clock; a real server passes the
  // visitor's session id and keeps one validator for the process.
  livechat::sdk::CommandValidator validator(*livechat::Clock::Default());
  livechat::Status status;
  for (int i = 0; i < burst; ++i) status = validator.Validate("example-session", command, args);
  if (!status.ok()) {
    std::printf("reject: %s\n", status.error().message.c_str());
    return 1;
  }
  std::printf("accept\n");
  return 0;
}
