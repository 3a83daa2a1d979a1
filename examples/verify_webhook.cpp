// What a webhook receiver does before trusting a delivery: recompute the
// HMAC-SHA256 of "<X-Webhook-Timestamp>;<raw body>" with the subscription's
// secret, compare it with X-Webhook-Signature in constant time, and refuse a
// timestamp more than five minutes away from now (a replayed request).
//
// The body must be the raw bytes received, before any JSON parsing: a parser
// and re-serializer changes spacing or key order and breaks the signature.
//
// usage: verify_webhook TIMESTAMP SIGNATURE SECRET BODY_FILE [--now UNIX_SECONDS]
//   prints "valid" (exit 0) or "invalid: reason" (exit 1); usage or I/O errors exit 2.
//   --now replaces the clock, to check a recorded delivery.
//
// Build against an installed livechat:
//   cmake -S examples -B build-examples -DCMAKE_PREFIX_PATH=/usr/local
//   cmake --build build-examples && ./build-examples/verify_webhook ...
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include <livechat/webhooks.h>

namespace {

constexpr std::int64_t kToleranceSeconds = 5 * 60;

int Usage() {
  std::fputs("usage: verify_webhook TIMESTAMP SIGNATURE SECRET BODY_FILE [--now UNIX_SECONDS]\n", stderr);
  return 2;
}

bool ParseSeconds(std::string_view text, std::int64_t* out) {
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && p == text.data() + text.size();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 && argc != 7) return Usage();
  const std::string timestamp = argv[1], signature = argv[2], secret = argv[3], bodyPath = argv[4];

  std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  if (argc == 7 && (std::string_view(argv[5]) != "--now" || !ParseSeconds(argv[6], &now))) return Usage();

  std::ifstream in(bodyPath, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "verify_webhook: cannot read %s\n", bodyPath.c_str());
    return 2;
  }
  const std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  if (livechat::VerifyWebhookSignature(secret, timestamp, body, signature, now, kToleranceSeconds)) {
    std::puts("valid");
    return 0;
  }
  // Only to say why; the verdict above is the whole check.
  std::int64_t ts = 0;
  const bool fresh = ParseSeconds(timestamp, &ts) && ts >= now - kToleranceSeconds && ts <= now + kToleranceSeconds;
  std::printf("invalid: %s\n", fresh ? "the signature does not match the body and secret"
                                     : "the timestamp is not within 5 minutes of now");
  return 1;
}
