// Randomness as a seam: ids, API keys, secrets and session tokens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace livechat {

// Thread-safe.
class Random {
 public:
  virtual ~Random() = default;
  virtual void Fill(std::uint8_t* out, std::size_t n) = 0;

  // libsodium's randombytes_buf. It belongs to livechat; never delete it.
  static Random* Default();

  // `bytes` random bytes as 2*bytes lowercase hex characters.
  std::string Hex(std::size_t bytes);
  // An RFC 4122 version-4 UUID, lowercase.
  std::string Uuid();
};

// Deterministic stream for tests (not cryptographic).
std::unique_ptr<Random> NewSeededRandom(std::uint64_t seed);

}  // namespace livechat
