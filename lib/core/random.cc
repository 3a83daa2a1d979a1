#include "livechat/random.h"

#include <sodium.h>

#include <algorithm>
#include <mutex>

namespace livechat {
namespace {

class SodiumRandom final : public Random {
 public:
  SodiumRandom() {
    // sodium_init is idempotent and thread-safe; a failure leaves no usable CSPRNG.
    if (sodium_init() < 0) std::abort();
  }
  void Fill(std::uint8_t* out, std::size_t n) override { randombytes_buf(out, n); }
};

// splitmix64: deterministic, fast, good enough to make distinct test ids.
class SeededRandom final : public Random {
 public:
  explicit SeededRandom(std::uint64_t seed) : state_(seed) {}
  void Fill(std::uint8_t* out, std::size_t n) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::size_t i = 0; i < n; i += 8) {
      std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      for (std::size_t j = 0; j < 8 && i + j < n; ++j) out[i + j] = static_cast<std::uint8_t>(z >> (8 * j));
    }
  }

 private:
  std::mutex mu_;
  std::uint64_t state_;
};

}  // namespace

Random* Random::Default() {
  static SodiumRandom* r = new SodiumRandom();  // never destroyed
  return r;
}

std::string Random::Hex(std::size_t bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string raw(bytes, '\0');
  Fill(reinterpret_cast<std::uint8_t*>(raw.data()), bytes);
  std::string out;
  out.reserve(bytes * 2);
  for (unsigned char c : raw) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

namespace {

std::string FormatUuid(const std::uint8_t (&b)[16]) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(36, '-');
  std::size_t at = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) ++at;  // the dashes of 8-4-4-4-12
    out[at++] = kDigits[b[i] >> 4];
    out[at++] = kDigits[b[i] & 15];
  }
  return out;
}

}  // namespace

std::string Random::Uuid() {
  std::uint8_t b[16];
  Fill(b, sizeof b);
  b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  return FormatUuid(b);
}

std::string Random::TimeOrderedUuid(std::int64_t unixMillis) {
  std::uint8_t b[16];
  Fill(b + 6, sizeof b - 6);
  // A clock before 1970 or past 10889 has no 48-bit form: clamp, the id
  // stays unique by its random bits.
  const std::uint64_t ms = static_cast<std::uint64_t>(std::clamp<std::int64_t>(unixMillis, 0, (std::int64_t{1} << 48) - 1));
  for (int i = 0; i < 6; ++i) b[i] = static_cast<std::uint8_t>(ms >> (8 * (5 - i)));
  b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x70);  // version 7
  b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);  // RFC 9562 variant
  return FormatUuid(b);
}

std::unique_ptr<Random> NewSeededRandom(std::uint64_t seed) { return std::make_unique<SeededRandom>(seed); }

}  // namespace livechat
