// Hashing and secret comparison for keys, sessions, passwords and signed
// requests (libsodium): the one implementation every layer uses, so a
// signature check is constant-time wherever it is written.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace livechat {

// Lowercase hex SHA-256.
std::string Sha256Hex(std::string_view data);
// Lowercase hex HMAC-SHA256 of `message` under `key` (any length).
std::string HmacSha256Hex(std::string_view key, std::string_view message);

// HMAC-SHA256 of `data` under `key`, standard base64 with padding (the
// platform requests' signature header).
std::string HmacSha256Base64(std::string_view key, std::string_view data);
// Standard base64 with padding.
std::string Base64(std::string_view bytes);
// Constant-time equality; lengths are not secret.
bool ConstantTimeEquals(std::string_view a, std::string_view b);
// Argon2id string (crypto_pwhash_str, interactive limits). Empty on failure.
std::string HashPassword(std::string_view password);
bool VerifyPassword(std::string_view hash, std::string_view password);
// "sk_" followed by exactly 32 lowercase or uppercase hex characters.
bool LooksLikeApiKey(std::string_view key);

}  // namespace livechat
