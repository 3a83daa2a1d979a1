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

std::string StandardWebhookSignature(std::string_view secret, std::string_view msgId, std::string_view timestamp,
                                     std::string_view rawBody) {
  std::string_view encoded = secret;
  if (encoded.substr(0, 6) == "whsec_") encoded.remove_prefix(6);
  std::string key(encoded.size(), '\0');
  std::size_t keyLen = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(key.data()), key.size(), encoded.data(), encoded.size(),
                        nullptr, &keyLen, nullptr, sodium_base64_VARIANT_ORIGINAL) == 0) {
    key.resize(keyLen);
  } else {
    key.assign(secret);
  }
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(key.data()), key.size());
  sodium_memzero(key.data(), key.size());
  auto feed = [&](std::string_view part) {
    crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(part.data()), part.size());
  };
  feed(msgId);
  feed(".");
  feed(timestamp);
  feed(".");
  feed(rawBody);
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_final(&st, mac);
  char b64[sodium_base64_ENCODED_LEN(crypto_auth_hmacsha256_BYTES, sodium_base64_VARIANT_ORIGINAL)];
  sodium_bin2base64(b64, sizeof b64, mac, sizeof mac, sodium_base64_VARIANT_ORIGINAL);
  return std::string("v1,") + b64;
}

std::vector<std::pair<std::string, std::string>> WebhookSignatureHeaders(const WebhookSubscription& sub,
                                                                         std::string_view eventId,
                                                                         std::string_view timestamp,
                                                                         std::string_view rawBody, Millis nowMillis) {
  const bool inGrace = sub.previousSecret && sub.previousSecretExpiresAt && nowMillis < *sub.previousSecretExpiresAt;
  std::vector<std::pair<std::string, std::string>> out;
  if (sub.signatureFormat == kSignatureStandard) {
    std::string signatures = StandardWebhookSignature(sub.secret, eventId, timestamp, rawBody);
    if (inGrace) signatures += " " + StandardWebhookSignature(*sub.previousSecret, eventId, timestamp, rawBody);
    out.emplace_back("webhook-id", std::string(eventId));
    out.emplace_back("webhook-timestamp", std::string(timestamp));
    out.emplace_back("webhook-signature", std::move(signatures));
    return out;
  }
  out.emplace_back("X-Webhook-Timestamp", std::string(timestamp));
  out.emplace_back("X-Webhook-Signature", WebhookSignature(sub.secret, timestamp, rawBody));
  if (inGrace)
    out.emplace_back("X-Webhook-Signature-Previous", WebhookSignature(*sub.previousSecret, timestamp, rawBody));
  return out;
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
