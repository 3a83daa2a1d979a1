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
  // An RFC 9562 version-7 UUID, lowercase: the 48-bit Unix time in
  // milliseconds, then 74 random bits. For records appended as they happen
  // (messages, events): ids made in time order land at the end of the
  // indexes that hold them, where a random id dirties a random page of each.
  // The creation time it shows is already public on those records.
  std::string TimeOrderedUuid(std::int64_t unixMillis);
};

// Deterministic stream for tests (not cryptographic).
std::unique_ptr<Random> NewSeededRandom(std::uint64_t seed);

}  // namespace livechat
