#include "livechat/random.h"

#include <sodium.h>

#include <cstdio>
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

std::string Random::Uuid() {
  std::uint8_t b[16];
  Fill(b, sizeof b);
  b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  char buf[37];
  std::snprintf(buf, sizeof buf, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return buf;
}

std::unique_ptr<Random> NewSeededRandom(std::uint64_t seed) { return std::make_unique<SeededRandom>(seed); }

}  // namespace livechat
