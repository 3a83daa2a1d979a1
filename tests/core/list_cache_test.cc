// The conversation list's JSON cache (core/row_json_cache.h): its
// bound, its versions, and the list it serves, which must be byte for byte
// the list built from the rows, whoever wrote them since (another service
// on the same store stands for another process or instance: nothing tells
// this one of its writes but the rows' versions).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/row_json_cache.h"
#include "core_fixture.h"
#include "storage/store_records.h"
#include "support/temp_dir.h"
#include "support/test_store.h"
#include "livechat/json_codec.h"

namespace livechat::test {
namespace {

using internal::RowJsonCache;

RowJsonCache::Json J(std::string s) { return std::make_shared<const std::string>(std::move(s)); }

TEST_CASE("list cache: a copy is served for its version only, and one for another version is dropped") {
  RowJsonCache cache(1 << 20, nullptr, "conversations");
  CHECK(cache.Find(7, 1) == nullptr);
  cache.Put(7, 1, J("{\"a\":1}"));
  REQUIRE(cache.Find(7, 1) != nullptr);
  CHECK(*cache.Find(7, 1) == "{\"a\":1}");
  CHECK(cache.Entries() == 1);
  CHECK(cache.Find(7, 2) == nullptr);
  CHECK(cache.Entries() == 0);  // version 1 can never be asked for again
  CHECK(cache.Find(7, 1) == nullptr);
  cache.Put(7, 2, J("{\"a\":2}"));
  cache.Put(7, 3, J("{\"a\":3}"));  // replaces, not adds
  CHECK(cache.Entries() == 1);
  CHECK(*cache.Find(7, 3) == "{\"a\":3}");
  // Charged by the string's allocation (a short one is stored inline).
  CHECK(cache.Bytes() == cache.Find(7, 3)->capacity() + RowJsonCache::kEntryOverhead);
}

TEST_CASE("list cache: bounded by bytes, least recently used out first; capacity 0 keeps nothing") {
  // 16 shards of 1,000 bytes; each entry is charged 100 + overhead bytes.
  const std::size_t each = 100 + RowJsonCache::kEntryOverhead;
  RowJsonCache cache(16 * 1000, nullptr, "conversations");
  const std::size_t perShard = 1000 / each;  // 4
  // Ids 0, 16, 32, ... share shard 0.
  for (std::size_t i = 0; i < perShard; ++i) cache.Put(static_cast<std::int64_t>(i * 16), 1, J(std::string(100, 'x')));
  CHECK(cache.Entries() == perShard);
  CHECK(cache.Bytes() == perShard * each);
  REQUIRE(cache.Find(0, 1) != nullptr);  // now the most recent: id 16 is the oldest
  cache.Put(static_cast<std::int64_t>(perShard * 16), 1, J(std::string(100, 'y')));
  CHECK(cache.Entries() == perShard);
  CHECK(cache.Bytes() <= 1000);
  CHECK(cache.Find(0, 1) != nullptr);
  CHECK(cache.Find(16, 1) == nullptr);
  CHECK(cache.Find(32, 1) != nullptr);
  // Many more than fit, over every shard: never above the bound.
  for (std::int64_t id = 1000; id < 3000; ++id) cache.Put(id, 5, J(std::string(100, 'z')));
  CHECK(cache.Bytes() <= 16 * 1000);
  CHECK(cache.Entries() == 16 * perShard);
  // One row larger than a shard is not kept (it would empty the shard).
  cache.Put(99999, 1, J(std::string(1000, 'w')));
  CHECK(cache.Find(99999, 1) == nullptr);

  for (std::size_t capacity : {std::size_t{0}, std::size_t{15}}) {
    CAPTURE(capacity);  // under 16 bytes a shard could keep nothing: off too
    RowJsonCache off(capacity, nullptr, "conversations");
    CHECK_FALSE(off.enabled());
    off.Put(1, 1, J("{}"));
    CHECK(off.Find(1, 1) == nullptr);
    CHECK(off.Entries() == 0);
  }
  CHECK(RowJsonCache(16, nullptr, "conversations").enabled());
}

// The page as the rows give it: ListConversations, then AppendJson (the
// list's view), then the cursor. What the cached list must equal.
std::string Built(ChatService& svc, const Principal& p, const ConversationFilter& f, const PageRequest& page) {
  auto rows = svc.conversations().ListConversations(p, f, page);
  REQUIRE(rows.ok());
  std::string out;
  for (const Conversation& c : rows->items) {
    AppendJson(out, c, JsonView::kList);
    out += '\n';
  }
  out += rows->nextCursor.value_or("(last)");
  return out;
}

std::string Served(ChatService& svc, const Principal& p, const ConversationFilter& f, const PageRequest& page) {
  auto json = svc.conversations().ListConversationsJson(p, f, page, std::nullopt);
  REQUIRE(json.ok());
  std::string out;
  for (const auto& item : json->items) {
    out += *item;
    out += '\n';
  }
  out += json->nextCursor.value_or("(last)");
  CHECK(json->hasMore == json->nextCursor.has_value());
  return out;
}

ServiceOptions OptionsOn(Store& store, Clock& clock, Random& random) {
  ServiceOptions o;
  o.store = &store;
  o.clock = &clock;
  o.random = &random;
  return o;
}

std::uint64_t CounterValue(MetricsRegistry& m, std::string_view name, std::string_view help,
                           const std::string& list = "conversations") {
  return m.GetCounter(name, help, {{"list", list}}).Value();
}

TEST_CASE("list cache: the served list is the rows' list after every kind of write by another service") {
  MetricsRegistry metrics;
  CoreFixture f({}, Plan::kPro, false, &metrics);
  Principal p = f.Auth(f.key);
  std::vector<Conversation> convs;
  for (int i = 0; i < 6; ++i) {
    f.clock.Advance(1000);
    convs.push_back(f.Inbound("online_store", "hello " + std::to_string(i), "c" + std::to_string(i) + "@shop.test"));
  }
  // No cache of its own is consulted: it only writes.
  ChatService other(OptionsOn(*f.store, f.clock, *f.random));
  auto hits = [&] { return CounterValue(metrics, metric::kListCacheHits, metric::kListCacheHitsHelp); };
  auto misses = [&] { return CounterValue(metrics, metric::kListCacheMisses, metric::kListCacheMissesHelp); };

  const std::string first = Served(*f.service, p, {}, {});
  CHECK(first == Built(*f.service, p, {}, {}));
  CHECK(misses() == 6);
  CHECK(hits() == 0);
  CHECK(Served(*f.service, p, {}, {}) == first);
  CHECK(hits() == 6);
  CHECK(misses() == 6);

  struct Step {
    const char* what;
    std::function<void()> write;
  };
  const std::vector<Step> steps = {
      {"a reply", [&] {
         SendMessageInput in;
         in.text = "on its way";
         in.memberId = f.agent.id;
         REQUIRE(other.conversations().SendMessage(p, convs[2].id, in).ok());
       }},
      {"read", [&] { REQUIRE(other.conversations().MarkRead(p, convs[0].id).ok()); }},
      {"assigned", [&] { REQUIRE(other.conversations().Assign(p, convs[1].id, f.agent.id).ok()); }},
      {"resolved", [&] { REQUIRE(other.conversations().SetState(p, convs[3].id, "resolved").ok()); }},
      {"tagged", [&] { REQUIRE(other.annotations().AddTags(p, convs[4].id, {"vip"}).ok()); }},
      {"an inbound message", [&] {
         InboundMessageInput in;
         in.channel = "online_store";
         in.customerName = "Casey Customer";
         in.customerEmail = "c5@shop.test";
         in.text = "still there?";
         REQUIRE(other.conversations().ReceiveInbound(f.sys, in).ok());
       }},
  };
  std::string before = first;
  for (const Step& step : steps) {
    CAPTURE(step.what);
    f.clock.Advance(1000);
    step.write();
    const std::uint64_t missesBefore = misses();
    const std::string now = Served(*f.service, p, {}, {});
    CHECK(now == Built(*f.service, p, {}, {}));
    CHECK(now != before);
    // The one row written is read and built again; the others are served.
    CHECK(misses() == missesBefore + 1);
    before = now;
  }

  // Pages and filters: the same rows, the same cursors.
  ConversationFilter open;
  open.status = "open";
  PageRequest two;
  two.limit = 2;
  for (const ConversationFilter& filter : {ConversationFilter{}, open}) {
    PageRequest page = two;
    for (int n = 0; n < 5; ++n) {
      const std::string served = Served(*f.service, p, filter, page);
      CHECK(served == Built(*f.service, p, filter, page));
      auto json = f.service->conversations().ListConversationsJson(p, filter, page, std::nullopt);
      REQUIRE(json.ok());
      if (!json->nextCursor) break;
      page.cursor = json->nextCursor;
    }
  }

  // The rules ListConversations applies: the sort value, the cursor, the limit.
  CHECK(f.service->conversations().ListConversationsJson(p, {}, {}, std::string("relevance")).error().code ==
        ErrorCode::kInvalidParams);
  PageRequest bad;
  bad.cursor = "not-a-cursor";
  CHECK(f.service->conversations().ListConversationsJson(p, {}, bad, std::nullopt).error().code ==
        ErrorCode::kInvalidParams);
  PageRequest zero;
  zero.limit = 0;
  CHECK(f.service->conversations().ListConversationsJson(p, {}, zero, std::nullopt).error().code ==
        ErrorCode::kInvalidParams);
}

TEST_CASE("list cache: off, the list is built from the rows every time, the same bytes") {
  MetricsRegistry metrics;
  CoreFixture f({}, Plan::kPro, false, &metrics);
  Principal p = f.Auth(f.key);
  for (int i = 0; i < 3; ++i) {
    f.clock.Advance(1000);
    f.Inbound("online_store", "hi " + std::to_string(i), "o" + std::to_string(i) + "@shop.test");
  }
  ServiceOptions o;
  o.store = f.store.get();
  o.clock = &f.clock;
  o.random = f.random.get();
  o.metrics = &metrics;
  o.listCacheBytes = 0;
  ChatService off(o);
  const std::string served = Served(off, p, {}, {});
  CHECK(served == Built(*f.service, p, {}, {}));
  CHECK(Served(off, p, {}, {}) == served);
  CHECK(CounterValue(metrics, metric::kListCacheHits, metric::kListCacheHitsHelp) == 0);
  CHECK(CounterValue(metrics, metric::kListCacheMisses, metric::kListCacheMissesHelp) == 0);
}


// Another store on the same database: another process on the SQLite file,
// or another instance on the PostgreSQL database, with its own connections
// and its own snapshots.
TEST_CASE("list cache: writes through another store on the same database are served at once") {
  testing::TempDir dir;
  const std::string path = dir.File("shared.db");
  auto opened = testing::OpenTestStore(path);
  REQUIRE(opened.ok());
  std::unique_ptr<Store> mine = std::move(opened).value();
  auto opened2 = testing::OpenSecondTestStore(*mine, path);
  REQUIRE(opened2.ok());
  std::unique_ptr<Store> theirs = std::move(opened2).value();
  ManualClock clock;
  auto random = NewSeededRandom(7);
  auto random2 = NewSeededRandom(8);
  ChatService reader(OptionsOn(*mine, clock, *random));
  ChatService writer(OptionsOn(*theirs, clock, *random2));

  auto shop = writer.directory().CreateShop({"Shared", Plan::kPro, false});
  REQUIRE(shop.ok());
  const Principal sys = Principal::System(shop->id);
  auto key = writer.directory().CreateApiKey(sys, {"all", kPermReadConversations | kPermManageConversations, false});
  REQUIRE(key.ok());
  auto p = reader.auth().AuthenticateApiKey(key->secret);
  REQUIRE(p.ok());
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    clock.Advance(1000);
    InboundMessageInput in;
    in.channel = "online_store";
    in.customerName = "Casey";
    in.customerEmail = "s" + std::to_string(i) + "@shop.test";
    in.text = "hi";
    auto c = writer.conversations().ReceiveInbound(sys, in);
    REQUIRE(c.ok());
    ids.push_back(c->id);
  }
  const std::string first = Served(reader, *p, {}, {});
  CHECK(first == Built(reader, *p, {}, {}));
  CHECK(Served(reader, *p, {}, {}) == first);  // now from the cache
  REQUIRE(writer.conversations().MarkRead(*p, ids[1]).ok());
  const std::string second = Served(reader, *p, {}, {});
  CHECK(second != first);
  CHECK(second == Built(reader, *p, {}, {}));
  REQUIRE(writer.annotations().AddTags(*p, ids[3], {"late"}).ok());
  const std::string third = Served(reader, *p, {}, {});
  CHECK(third != second);
  CHECK(third == Built(reader, *p, {}, {}));
}

// A message with a widget upload's files entry (no url: reads sign one),
// written straight to the store.
Message MakeFileMessage(CoreFixture& f, const std::string& conversationId) {
  Message m = testing::MakeMessage(f.shop.id, conversationId, "m-file", f.clock.NowMillis());
  m.senderType = "customer";
  m.contentType = "file";
  m.filesJson = R"([{"id":"f-upload","name":"a.png","size":3,"contentType":"image/png"}])";
  REQUIRE(f.store->Write([&](StoreWriter& w) { return w.InsertMessage(m); }).ok());
  return m;
}

std::string BuiltMessages(ChatService& svc, const Principal& p, const std::string& id, const PageRequest& page,
                          const std::optional<std::string>& order = std::nullopt) {
  auto rows = svc.conversations().ListMessages(p, id, page, order);
  REQUIRE(rows.ok());
  std::string out;
  for (const Message& m : rows->items) {
    AppendJson(out, m, JsonView::kList);
    out += '\n';
  }
  return out + rows->nextCursor.value_or("(last)");
}

std::string ServedMessages(ChatService& svc, const Principal& p, const std::string& id, const PageRequest& page,
                           const std::optional<std::string>& order = std::nullopt) {
  auto json = svc.conversations().ListMessagesJson(p, id, page, order);
  REQUIRE(json.ok());
  std::string out;
  for (const auto& item : json->items) {
    out += *item;
    out += '\n';
  }
  CHECK(json->hasMore == json->nextCursor.has_value());
  return out + json->nextCursor.value_or("(last)");
}

TEST_CASE("message cache: the served page is the rows' page after writes elsewhere; a file's message is never kept") {
  MetricsRegistry metrics;
  CoreFixture f({}, Plan::kPro, false, &metrics);
  Principal p = f.Auth(f.key);
  Conversation c = f.Inbound("online_store", "hello");
  for (int i = 0; i < 4; ++i) {
    f.clock.Advance(1000);
    SendMessageInput in;
    in.text = "reply " + std::to_string(i);
    in.memberId = f.agent.id;
    REQUIRE(f.service->conversations().SendMessage(p, c.id, in).ok());
  }
  // A widget upload's entry: stored without a url, signed on every read.
  Message withFile = MakeFileMessage(f, c.id);
  ChatService other(OptionsOn(*f.store, f.clock, *f.random));
  auto hits = [&] { return CounterValue(metrics, metric::kListCacheHits, metric::kListCacheHitsHelp, "messages"); };
  auto misses = [&] {
    return CounterValue(metrics, metric::kListCacheMisses, metric::kListCacheMissesHelp, "messages");
  };

  const std::string first = ServedMessages(*f.service, p, c.id, {});
  CHECK(first == BuiltMessages(*f.service, p, c.id, {}));
  CHECK(first.find("/files/f-upload?expires=") != std::string::npos);
  CHECK(misses() == 6);
  CHECK(hits() == 0);
  CHECK(ServedMessages(*f.service, p, c.id, {}) == first);
  CHECK(hits() == 5);
  CHECK(misses() == 7);  // the file's message again

  // Later, the file's URL is signed anew; the other rows are kept.
  f.clock.Advance(2'000'000);
  const std::string later = ServedMessages(*f.service, p, c.id, {});
  CHECK(later != first);
  CHECK(later == BuiltMessages(*f.service, p, c.id, {}));

  // A message rewritten by another writer (as a redaction does) is read again.
  auto page = f.service->conversations().ListMessages(p, c.id, {}, std::nullopt);
  REQUIRE(page.ok());
  Message edited = page->items[1];
  edited.senderName = "Redacted";
  REQUIRE(other.store().Write([&](StoreWriter& w) -> Status {
                         LC_ASSIGN_OR_RETURN(bool ok, w.UpdateMessage(edited));
                         return ok ? Status::Ok() : Status(Error{ErrorCode::kNotFound, "message"});
                       }).ok());
  const std::uint64_t missesBefore = misses();
  const std::string afterEdit = ServedMessages(*f.service, p, c.id, {});
  CHECK(afterEdit != later);
  CHECK(afterEdit == BuiltMessages(*f.service, p, c.id, {}));
  CHECK(misses() == missesBefore + 2);  // the edited one and the file's

  // A new message by another service; pages, order and cursors.
  SendMessageInput in;
  in.text = "from elsewhere";
  in.memberId = f.agent.id;
  REQUIRE(other.conversations().SendMessage(p, c.id, in).ok());
  const std::uint64_t hitsBeforePaging = hits();
  for (const std::optional<std::string>& order : {std::optional<std::string>(), std::optional<std::string>("desc")}) {
    PageRequest two;
    two.limit = 2;
    for (int n = 0; n < 5; ++n) {
      CHECK(ServedMessages(*f.service, p, c.id, two, order) == BuiltMessages(*f.service, p, c.id, two, order));
      auto json = f.service->conversations().ListMessagesJson(p, c.id, two, order);
      REQUIRE(json.ok());
      if (!json->nextCursor) break;
      two.cursor = json->nextCursor;
    }
  }
  // Seven messages, each page read twice, both orders: all but the new
  // message's first read and the file's reads are served.
  CHECK(hits() - hitsBeforePaging == 2 * (2 * 7) - 1 - 4);
  // The rules ListMessages applies; a missing conversation and another
  // shop's are the same 404.
  CHECK(f.service->conversations().ListMessagesJson(p, c.id, {}, std::string("sideways")).error().code ==
        ErrorCode::kInvalidParams);
  CHECK(f.service->conversations().ListMessagesJson(p, "no-such-conversation", {}, std::nullopt).error().code ==
        ErrorCode::kNotFound);
  auto shopB = f.service->directory().CreateShop({"Other shop", Plan::kPro, false});
  REQUIRE(shopB.ok());
  auto keyB = f.service->directory().CreateApiKey(Principal::System(shopB->id),
                                                  {"b", kPermReadConversations | kPermManageConversations, false});
  REQUIRE(keyB.ok());
  const Principal pB = f.Auth(keyB->secret);
  CHECK(f.service->conversations().ListMessagesJson(pB, c.id, {}, std::nullopt).error().code ==
        ErrorCode::kNotFound);
  CHECK(f.service->conversations().ListConversationsJson(pB, {}, {}, std::nullopt)->items.empty());
}

}  // namespace
}  // namespace livechat::test
