#include <sodium.h>

#include <algorithm>
#include <charconv>

#include "livechat/webhooks.h"

namespace livechat {

std::string WebhookSignature(std::string_view secret, std::string_view timestamp, std::string_view rawBody) {
  // HMAC-SHA256 accepts a key of any length (RFC 2104); the _init/_update
  // form signs "<timestamp>;<body>" without building the concatenation.
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(secret.data()), secret.size());
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(timestamp.data()), timestamp.size());
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(";"), 1);
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(rawBody.data()), rawBody.size());
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_final(&st, mac);
  char hex[crypto_auth_hmacsha256_BYTES * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
  return std::string(hex, crypto_auth_hmacsha256_BYTES * 2);
}

bool VerifyWebhookSignature(std::string_view secret, std::string_view timestamp, std::string_view rawBody,
                            std::string_view signature, std::int64_t nowSeconds, std::int64_t toleranceSeconds) {
  std::int64_t ts = 0;
  auto [p, ec] = std::from_chars(timestamp.data(), timestamp.data() + timestamp.size(), ts);
  if (ec != std::errc() || p != timestamp.data() + timestamp.size()) return false;
  if (ts < nowSeconds - toleranceSeconds || ts > nowSeconds + toleranceSeconds) return false;
  const std::string expected = WebhookSignature(secret, timestamp, rawBody);
  if (signature.size() != expected.size()) return false;
  return sodium_memcmp(expected.data(), signature.data(), expected.size()) == 0;
}

}  // namespace livechat
