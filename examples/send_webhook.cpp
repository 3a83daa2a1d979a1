// Sending one webhook request the way livechatd's dispatcher does, through the
// installed HTTPS transport (livechat::outbound): the url is parsed and its
// host resolved and checked against the public-address rule first, and the
// transport connects to the address that was checked, never to a new lookup.
//
// usage: send_webhook URL [--allow-private] [--ca-file PEM] [--timeout-ms N]
//   prints "HTTP <status>" (exit 0) or "failed: <reason>" (exit 1); usage errors exit 2.
//
// Build against an installed livechat:
//   cmake -S examples -B build-examples -DCMAKE_PREFIX_PATH=/usr/local
//   cmake --build build-examples && ./build-examples/send_webhook https://hooks.example.com/in
#include <cstdio>
#include <cstdlib>
#include <string>

#include <livechat/address_policy.h>
#include <livechat/https_webhook_transport.h>
#include <livechat/webhooks.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: send_webhook URL [--allow-private] [--ca-file PEM] [--timeout-ms N]\n");
    return 2;
  }
  bool allowPrivate = false;
  livechat::HttpsTransportOptions options;
  std::int64_t timeoutMillis = 10'000;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--allow-private") {
      allowPrivate = true;
    } else if (arg == "--ca-file" && i + 1 < argc) {
      options.extraCaFile = argv[++i];
    } else if (arg == "--timeout-ms" && i + 1 < argc) {
      timeoutMillis = std::atoll(argv[++i]);
    } else {
      std::fprintf(stderr, "send_webhook: unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  auto transport = livechat::HttpsWebhookTransport::Create(options);
  if (!transport.ok()) {
    std::printf("failed: %s\n", transport.error().message.c_str());
    return 1;
  }
  auto target = livechat::CheckWebhookTarget(argv[1], *livechat::Resolver::Default(), allowPrivate);
  if (!target.ok()) {
    std::printf("failed: %s\n", target.error().message.c_str());
    return 1;
  }
  livechat::WebhookRequest request;
  request.target = *target;
  request.headers = {{"Content-Type", "application/json"}, {"User-Agent", "livechat-example/1"}};
  request.body = R"({"type":"example.ping"})";
  request.timeoutMillis = timeoutMillis;
  const livechat::WebhookResponse response = (*transport)->Send(request);
  if (response.status == 0) {
    std::printf("failed: %s\n", response.error.c_str());
    return 1;
  }
  std::printf("HTTP %d\n", response.status);
  return 0;
}
