// Slows password guessing at the admin sign-in (docs/decisions.md, "Sign-in
// throttling"). Failures are counted per account and per source address, each
// in its own table. A key's first `free` failures cost nothing (Limits::
// loginFreeFailuresPerAccount, ...PerAddress); after that the next attempt must
// wait loginFirstDelayMillis * 2^(failures - free), at most loginMaxDelayMillis,
// from the key's last failure. An attempt inside a wait is refused before any
// password is looked at, so a guess made then can never succeed and costs no
// hashing, and it is not counted: refusals cannot lengthen the wait.
//
// Memory is bounded: a key is forgotten loginForgetAfterMillis after its last failure,
// and a full table makes room by dropping its least-failed key (the keys that
// are actually being throttled are the last to go).
//
// In-process, like RateLimiter. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "livechat/chat_service.h"
#include "livechat/clock.h"

namespace livechat {

class LoginThrottle {
 public:
  enum class Scope { kNone, kAccount, kAddress };
  // How an attempt that Begin() allowed ended.
  enum class Outcome {
    kWrongPassword,  // a failure of both keys
    kRightPassword,  // the account starts over; the address's other failures stay
    kNotChecked,     // nothing was decided (a storage error): counts for neither
  };

  struct Attempt {
    bool allowed = false;
    Scope refusedBy = Scope::kNone;   // the key with the longer wait, when refused
    std::int64_t retryAfterMillis = 0;  // when refused: until an attempt is checked again
    // Begin() counts an allowed attempt as a failure at once, so concurrent
    // guesses cannot all pass before the first is checked; Finish() settles it.
    struct Counted {
      std::string key;
      std::uint64_t seq = 0;         // of this failure in its entry
      std::int64_t lastBefore = 0;   // the entry's last failure before it
    };
    Counted account, address;
  };

  // Reads the login* settings of `limits`.
  LoginThrottle(const Clock& clock, const Limits& limits);

  // `account` is any string naming the account (known or not: both are treated
  // alike); `address` the client's.
  Attempt Begin(const std::string& account, const std::string& address);
  // Settles an allowed attempt; a refused one needs nothing.
  void Finish(const Attempt& attempt, Outcome outcome);

  // Keys held in each table now (for the memory bound's tests).
  std::size_t TrackedAccounts() const;
  std::size_t TrackedAddresses() const;

 private:
  struct Entry {
    int failures = 0;
    std::int64_t last = 0;  // monotonic time of the last failure
    std::uint64_t seq = 0;  // which failure set `last`
  };
  struct Table {
    int free;
    std::unordered_map<std::string, Entry> entries;
  };

  std::int64_t WaitLocked(Table& t, const std::string& key, std::int64_t now);
  Attempt::Counted CountFailureLocked(Table& t, const std::string& key, std::int64_t now);
  void TakeBackLocked(Table& t, const Attempt::Counted& c);
  void MakeRoomLocked(Table& t, std::int64_t now);

  const Clock& clock_;
  const std::int64_t firstDelay_, maxDelay_, forgetAfter_;
  const std::size_t maxKeys_;
  mutable std::mutex mu_;
  Table accounts_;
  Table addresses_;
  std::uint64_t seq_ = 0;
};

}  // namespace livechat
