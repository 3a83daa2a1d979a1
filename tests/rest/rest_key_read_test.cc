// REST: a plain read (GET of a conversation, its messages, ...) checks its
// API key in its own read transaction (AuthService::ReadAsApiKey): one
// transaction per request, the same answers as before, and revocation as
// exact as ever, also when another store instance on the same database
// revokes the key.
#include <doctest/doctest.h>

#include <atomic>
#include <memory>

#include "support/rest_fixture.h"
#include "support/temp_dir.h"

namespace livechat {
namespace {

using namespace livechat::testing;

// Counts the store's transactions: a Read not nested in another Read of
// this thread is one transaction; a nested one joins it.
class CountingStore final : public Store {
 public:
  explicit CountingStore(std::unique_ptr<Store> inner) : inner_(std::move(inner)) {}
  Status Read(const std::function<Status(StoreReader&)>& fn) override {
    if (depth_++ == 0) ++reads;
    Status st = inner_->Read(fn);
    --depth_;
    return st;
  }
  Status Write(const std::function<Status(StoreWriter&)>& fn) override {
    ++writes;
    return inner_->Write(fn);
  }
  bool Healthy() override { return inner_->Healthy(); }
  void WatchOtherWriters(std::function<void(const std::string&)> changed) override {
    inner_->WatchOtherWriters(std::move(changed));
  }
  void Reset() {
    reads = 0;
    writes = 0;
  }

  std::atomic<int> reads{0};
  std::atomic<int> writes{0};

 private:
  std::unique_ptr<Store> inner_;
  static thread_local int depth_;
};
thread_local int CountingStore::depth_ = 0;

struct CountingFixture {
  CountingFixture() : f(std::make_unique<CountingStore>(RestFixture::OpenStore()), RelaxedLimits()) {}
  CountingStore& counted() { return static_cast<CountingStore&>(f.store()); }
  RestFixture f;
};

TEST_CASE("A conversation's detail and its messages are each read in one transaction with the key check") {
  CountingFixture cf;
  RestFixture& f = cf.f;
  const Conversation c = f.Inbound("hello");
  const std::string detail = "/chat/conversations/" + c.id;

  cf.counted().Reset();
  auto got = f.Get(detail);
  CHECK(got.status() == 200);
  CHECK(Str(At(got.data(), "id")) == c.id);
  CHECK(cf.counted().reads.load() == 1);
  CHECK(cf.counted().writes.load() == 0);

  cf.counted().Reset();
  auto messages = f.Get(detail + "/messages");
  CHECK(messages.status() == 200);
  CHECK(messages.data().Size() == 1);
  CHECK(Str(At(At(messages.data(), 0), "text")) == "hello");
  CHECK(cf.counted().reads.load() == 1);
  CHECK(cf.counted().writes.load() == 0);

  // The rate limit still counts and labels a plain read.
  CHECK(got.header("X-RateLimit-Limit") == "1000000");
  CHECK(messages.header("X-RateLimit-Remaining") == "999998");

  // A write is not a plain read: its key check stays a read of its own,
  // before the write's transaction.
  cf.counted().Reset();
  auto sent = f.Post(detail + "/messages", R"({"text":"reply","memberId":")" + f.agent.id + "\"}");
  CHECK(sent.status() == 201);
  CHECK(cf.counted().reads.load() == 1);
  CHECK(cf.counted().writes.load() == 1);
}

TEST_CASE("A plain read refused by its key or its request answers as before, in at most one transaction") {
  CountingFixture cf;
  RestFixture& f = cf.f;
  const Conversation c = f.Inbound("hello");
  const std::string detail = "/chat/conversations/" + c.id;
  const std::string noRead = f.NewKey(kPermReadCustomers);
  auto created = RestFixture::Must(f.service().directory().CreateApiKey(f.sys, CreateKeyInput{"revoked", kAllRestPerms}));
  RestFixture::Must(f.service().directory().DeleteApiKey(f.sys, created.key.id));
  const Shop other = f.NewShop("Other");
  const std::string otherKey = f.NewKey(kAllRestPerms, false, other.id);

  struct Case {
    std::string name;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string target;
    int status;
    std::string code;
    std::string message;
    int reads;
  };
  const std::vector<Case> cases = {
      {"no key", {}, detail, 401, "UNAUTHENTICATED", "missing X-Api-Key header", 0},
      {"empty key", {{"x-api-key", ""}}, detail + "/messages", 401, "UNAUTHENTICATED", "missing X-Api-Key header", 0},
      {"malformed key", {{"x-api-key", "sk_123"}}, detail, 401, "INVALID_API_KEY",
       "invalid API key: expected sk_ followed by 32 hex characters", 0},
      {"unknown key", {{"x-api-key", "sk_00000000000000000000000000000000"}}, detail, 401, "INVALID_API_KEY",
       "invalid API key: unknown or revoked", 1},
      {"revoked key", {{"x-api-key", created.secret}}, detail + "/messages", 401, "INVALID_API_KEY",
       "invalid API key: unknown or revoked", 1},
      {"key without the read permission", {{"x-api-key", noRead}}, detail, 403, "FORBIDDEN",
       "this API key lacks the \"Read conversations\" permission (or \"Manage conversations\")", 1},
      {"key without the read permission, messages", {{"x-api-key", noRead}}, detail + "/messages", 403, "FORBIDDEN",
       "this API key lacks the \"Read conversations\" permission (or \"Manage conversations\")", 1},
      {"another store's key", {{"x-api-key", otherKey}}, detail, 404, "NOT_FOUND", "conversation not found", 1},
      {"another store's key, messages", {{"x-api-key", otherKey}}, detail + "/messages", 404, "NOT_FOUND",
       "conversation not found", 1},
      {"unknown conversation", {{"x-api-key", f.key}}, "/chat/conversations/nope/messages", 404, "NOT_FOUND",
       "conversation not found", 1},
      {"bad cursor", {{"x-api-key", f.key}}, detail + "/messages?cursor=zzz", 400, "INVALID_PARAMS",
       "cursor is not valid: pass paging.nextCursor from the previous page unchanged", 1},
  };
  for (const Case& k : cases) {
    CAPTURE(k.name);
    HttpRequest req = f.Request("GET", k.target);
    req.headers = k.headers;
    cf.counted().Reset();
    auto r = f.Send(req);
    CHECK(r.status() == k.status);
    CHECK(r.code() == k.code);
    CHECK(r.message() == k.message);
    CHECK(r.header("X-RateLimit-Limit") == "1000000");
    CHECK(cf.counted().reads.load() == k.reads);
    CHECK(cf.counted().writes.load() == 0);
  }
}

TEST_CASE("A plain read over its key's rate limit is 429 with the key's window, in one transaction") {
  Limits limits = RelaxedLimits();
  limits.rateLimitPerKey = 2;
  RestFixture f(std::make_unique<CountingStore>(RestFixture::OpenStore()), limits);
  auto& counted = static_cast<CountingStore&>(f.store());
  const Conversation c = f.Inbound("hello");
  const std::string detail = "/chat/conversations/" + c.id;
  CHECK(f.Get(detail).status() == 200);
  CHECK(f.Get(detail + "/messages").status() == 200);
  counted.Reset();
  auto refused = f.Get(detail);
  CHECK(refused.status() == 429);
  CHECK(refused.code() == "RATE_LIMITED");
  CHECK(refused.header("X-RateLimit-Limit") == "2");
  CHECK(refused.header("X-RateLimit-Remaining") == "0");
  CHECK(counted.reads.load() == 1);
}

std::unique_ptr<Store> SecondStore(Store& first, const std::string& sqlitePath) {
  return RestFixture::Must(OpenSecondTestStore(first, sqlitePath));
}

TEST_CASE("A key revoked through another store on the same database is refused by the very next plain read") {
  TempDir dir;
  const std::string path = dir.File("livechat.db");
  RestFixture f(RestFixture::Must(OpenTestStore(path)), RelaxedLimits());
  const Conversation c = f.Inbound("hello");
  const std::string detail = "/chat/conversations/" + c.id;
  auto created = RestFixture::Must(f.service().directory().CreateApiKey(f.sys, CreateKeyInput{"elsewhere", kAllRestPerms}));
  REQUIRE(f.GetWithKey(detail, created.secret).status() == 200);
  REQUIRE(f.GetWithKey(detail + "/messages", created.secret).status() == 200);

  // Another instance (livechatctl, a second livechatd) revokes the key.
  std::unique_ptr<Store> second = SecondStore(f.store(), path);
  ManualClock clock;
  auto random = NewSeededRandom(11);
  ServiceOptions so;
  so.store = second.get();
  so.clock = &clock;
  so.random = random.get();
  ChatService elsewhere(so);
  RestFixture::Must(elsewhere.directory().DeleteApiKey(Principal::System(f.shop.id), created.key.id));

  for (const std::string& target : {detail, detail + "/messages", detail + "/messages"}) {
    CAPTURE(target);
    auto r = f.GetWithKey(target, created.secret);
    CHECK(r.status() == 401);
    CHECK(r.code() == "INVALID_API_KEY");
    CHECK(r.message() == "invalid API key: unknown or revoked");
  }
  // The fixture's own key still reads.
  auto ours = f.Get(detail);
  CHECK(ours.status() == 200);
  CHECK(Str(At(ours.data(), "id")) == c.id);
}

}  // namespace
}  // namespace livechat
