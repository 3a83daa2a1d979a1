#include <doctest/doctest.h>

#include "core/token_buckets.h"
#include "core_fixture.h"

namespace livechat {

TEST_CASE("token buckets: a full bucket's capacity at once, then the refill rate") {
  ManualClock clock;
  TokenBuckets b(clock, 1000, 100);  // 1,000 tokens, 100 per second
  auto first = b.Take("k", 1000);
  CHECK(first.allowed);
  CHECK(first.left == 0.0);
  auto refused = b.Take("k", 1);
  CHECK_FALSE(refused.allowed);
  CHECK(refused.left == 0.0);
  clock.Advance(10);  // one token
  auto one = b.Take("k", 1);
  CHECK(one.allowed);
  CHECK(one.left == 0.0);
  clock.Advance(500);  // 50 tokens: 51 is one too many, and a refusal takes nothing
  auto short1 = b.Take("k", 51);
  CHECK_FALSE(short1.allowed);
  CHECK(short1.left == 50.0);
  auto exact = b.Take("k", 50);
  CHECK(exact.allowed);
  CHECK(exact.left == 0.0);
  // Other keys have buckets of their own.
  CHECK(b.Take("other", 1000).allowed);
  // More than the capacity is never allowed, however long one waits.
  clock.Advance(3'600'000);
  auto huge = b.Take("k", 1001);
  CHECK_FALSE(huge.allowed);
  CHECK(huge.left == 1000.0);
}

TEST_CASE("token buckets: keys left alone until full again are forgotten") {
  ManualClock clock;
  TokenBuckets b(clock, 1000, 100);  // empty to full in 10 s
  for (int i = 0; i < 500; ++i) CHECK(b.Take("caller-" + std::to_string(i), 1).allowed);
  CHECK(b.size() == 500);
  clock.Advance(9'999);
  b.Take("late", 1000);  // drained: not full before 20 s from now
  CHECK(b.size() == 501);
  clock.Advance(1);  // a full refill period after the first takes: they are full again
  b.Take("trigger", 1);
  CHECK(b.size() == 2);  // "late" (still refilling) and "trigger"
  // A forgotten key starts again from a full bucket, as a new one does.
  auto again = b.Take("caller-7", 1000);
  CHECK(again.allowed);
  CHECK(again.left == 0.0);
}

}  // namespace livechat
