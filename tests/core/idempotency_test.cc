// Idempotency-Key in the core: which requests take the writer. The REST
// behaviour (replay, 422, 409, 50 concurrent repeats) is in
// tests/rest/rest_idempotency_test.cc.
#include <doctest/doctest.h>

#include <atomic>

#include "core_fixture.h"

namespace livechat::test {
namespace {

// Passes everything through, counting the write transactions asked for.
class WriteCountingStore final : public Store {
 public:
  explicit WriteCountingStore(Store& inner) : inner_(inner) {}
  Status Read(const std::function<Status(StoreReader&)>& fn) override { return inner_.Read(fn); }
  Status Write(const std::function<Status(StoreWriter&)>& fn) override {
    ++writes;
    return inner_.Write(fn);
  }
  bool Healthy() override { return inner_.Healthy(); }
  std::atomic<int> writes{0};

 private:
  Store& inner_;
};

TEST_CASE("idempotency: a repeat of a finished or running request is answered from a read, without a write") {
  CoreFixture f;
  WriteCountingStore counting(*f.store);
  ServiceOptions o;
  o.store = &counting;
  o.clock = &f.clock;
  o.random = f.random.get();
  ChatService service(o);
  const Principal p = f.Auth(f.key);
  const std::string fp = IdempotencyFingerprint("POST", "/chat/conversations/c1/notes", R"({"text":"a"})");

  // The first request claims the key: one write.
  auto first = service.idempotency().BeginIdempotentRequest(p, "k-1", fp);
  REQUIRE(first.ok());
  CHECK(first->kind == IdempotentStart::Kind::kRun);
  CHECK(counting.writes == 1);

  // While it runs, a repeat is 409 from the read alone.
  auto running = service.idempotency().BeginIdempotentRequest(p, "k-1", fp);
  REQUIRE_FALSE(running.ok());
  CHECK(running.error().code == ErrorCode::kConflict);
  CHECK(counting.writes == 1);
  // Another request with the key is 422, from the read alone too.
  auto other = service.idempotency().BeginIdempotentRequest(
      p, "k-1", IdempotencyFingerprint("POST", "/chat/conversations/c1/notes", R"({"text":"b"})"));
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().code == ErrorCode::kIdempotencyKeyReused);
  CHECK(counting.writes == 1);

  REQUIRE(service.idempotency().FinishIdempotentRequest(p, "k-1", 201, "application/json", R"({"id":"n1"})").ok());
  CHECK(counting.writes == 2);

  // A retry storm of the finished request: every repeat replays, none writes.
  for (int i = 0; i < 20; ++i) {
    auto replay = service.idempotency().BeginIdempotentRequest(p, "k-1", fp);
    REQUIRE(replay.ok());
    CHECK(replay->kind == IdempotentStart::Kind::kReplay);
    CHECK(replay->status == 201);
    CHECK(replay->body == R"({"id":"n1"})");
  }
  CHECK(counting.writes == 2);

  // After 24 hours the key is free again: that claim writes.
  f.clock.Advance(24 * 3600 * 1000);
  auto fresh = service.idempotency().BeginIdempotentRequest(p, "k-1", fp);
  REQUIRE(fresh.ok());
  CHECK(fresh->kind == IdempotentStart::Kind::kRun);
  CHECK(counting.writes == 3);
}

}  // namespace
}  // namespace livechat::test
