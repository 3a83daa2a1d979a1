// The change feed, GET /chat/events (issue 18): every event of the store in
// the order it became visible, paged by cursor, filtered by type and by the
// key's permissions, resumable after any pause, 410 once pruned past. On
// SQLite here and on PostgreSQL in the rest_pg entry of ctest.
#include <doctest/doctest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "livechat/json_codec.h"
#include "support/rest_fixture.h"

namespace livechat {
namespace {

using namespace livechat::testing;

struct FeedItem {
  std::string id, type, cursor;
};

struct FeedPage {
  int status = 0;
  std::vector<FeedItem> items;
  std::string nextCursor;
  bool hasMore = false;
};

FeedPage Feed(RestFixture& f, const std::string& query, const std::string& key = "") {
  Reply r = key.empty() ? f.Get("/chat/events" + query) : f.GetWithKey("/chat/events" + query, key);
  FeedPage page;
  page.status = r.status();
  if (r.status() != 200) return page;
  for (const auto& e : r.data().GetArray()) page.items.push_back({Str(At(e, "id")), Str(At(e, "type")), Str(At(e, "cursor"))});
  page.nextCursor = Str(At(At(r.json, "paging"), "nextCursor"));
  page.hasMore = At(At(r.json, "paging"), "hasMore").GetBool();
  return page;
}

// Follows the feed from `cursor` to its end; the ids seen, in order.
std::vector<std::string> FollowAll(RestFixture& f, std::string& cursor, const std::string& extra = "") {
  std::vector<std::string> ids;
  for (;;) {
    FeedPage p = Feed(f, "?limit=7&after=" + cursor + extra);
    REQUIRE(p.status == 200);
    for (const auto& i : p.items) ids.push_back(i.id);
    cursor = p.nextCursor;
    if (!p.hasMore) return ids;
  }
}

std::vector<std::string> AllEventIds(RestFixture& f) {
  std::vector<std::string> ids;
  for (const auto& e : RestFixture::Must(f.service().feed().ListEvents(f.sys, 100000))) ids.push_back(e.id);
  return ids;
}

TEST_CASE("feed: every event oldest first with the webhook's data, paged by cursor; an empty page keeps the place") {
  RestFixture f;
  for (int i = 0; i < 5; ++i) f.InboundFrom("buyer" + std::to_string(i) + "@example.com", "question " + std::to_string(i));
  const std::vector<std::string> all = AllEventIds(f);
  REQUIRE(all.size() == 15);  // customer.created, conversation.created, message.created each

  Reply first = f.Get("/chat/events?limit=2");
  REQUIRE(first.status() == 200);
  REQUIRE(first.data().Size() == 2);
  const auto& item = At(first.data(), 0);
  CHECK(KeySet(item) == std::set<std::string>{"id", "type", "conversationId", "createdAt", "data", "cursor"});
  CHECK(Str(At(item, "type")) == "customer.created");
  // The same data a webhook delivery of this event carries.
  const auto events = RestFixture::Must(f.service().feed().ListEvents(f.sys, 100));
  const auto envelope = ParseJson(EventEnvelopeJson(events[0]));
  CHECK(At(item, "data") == At(envelope, "data"));
  CHECK(At(item, "data").ObjectEmpty() == false);
  CHECK(At(At(first.json, "paging"), "hasMore").GetBool());

  std::string cursor;
  CHECK(FollowAll(f, cursor) == all);
  // At the end: an empty page that returns the same cursor, then new events.
  FeedPage end = Feed(f, "?after=" + cursor);
  CHECK(end.items.empty());
  CHECK(end.nextCursor == cursor);
  CHECK_FALSE(end.hasMore);
  f.InboundFrom("late@example.com", "one more");
  std::string resume = cursor;
  const auto more = FollowAll(f, resume);
  CHECK(more.size() == 3);
  const std::vector<std::string> now = AllEventIds(f);
  CHECK(more == std::vector<std::string>(now.end() - 3, now.end()));
  // An event's own cursor resumes right after it.
  FeedPage fromItem = Feed(f, "?limit=1&after=" + Feed(f, "?limit=1").items[0].cursor);
  CHECK(fromItem.items[0].id == all[1]);
}

TEST_CASE("feed: types filters; an unknown type, a bad cursor or limit is 400; limit 500 and above 500 give 500") {
  RestFixture f;
  for (int i = 0; i < 170; ++i) f.InboundFrom("c" + std::to_string(i) + "@example.com", "m");  // 510 events
  FeedPage messages = Feed(f, "?types=message.created&limit=500");
  CHECK(messages.items.size() == 170);
  for (const auto& i : messages.items) CHECK(i.type == "message.created");
  FeedPage two = Feed(f, "?types=conversation.created,customer.created&limit=4");
  REQUIRE(two.items.size() == 4);
  CHECK(two.items[0].type == "customer.created");
  CHECK(two.items[1].type == "conversation.created");

  CHECK(Feed(f, "?limit=500").items.size() == 500);
  CHECK(Feed(f, "?limit=501").items.size() == 500);
  CHECK(Feed(f, "?limit=1").items.size() == 1);
  Reply zero = f.Get("/chat/events?limit=0");
  CHECK(zero.status() == 400);
  CHECK(zero.message() == "limit must be a whole number of 1 or more");
  Reply unknown = f.Get("/chat/events?types=message.created,message_created");
  CHECK(unknown.status() == 400);
  CHECK(unknown.message().rfind("unknown event type \"message_created\" in types: use one of message.created", 0) == 0);
  CHECK(f.Get("/chat/events?types=message.created,").status() == 400);
  Reply bad = f.Get("/chat/events?after=not-a-cursor");
  CHECK(bad.status() == 400);
  CHECK(bad.message() == "after is not a valid cursor: pass paging.nextCursor, or an event's cursor, unchanged");
}

TEST_CASE("feed: Read conversations is required; customer.created needs Read customers; another store's events never") {
  RestFixture f;
  f.InboundFrom("a@example.com", "hello");
  const std::string convOnly = f.NewKey(kPermReadConversations);
  Reply r = f.GetWithKey("/chat/events", convOnly);
  REQUIRE(r.status() == 200);
  std::vector<std::string> types;
  for (const auto& e : r.data().GetArray()) types.push_back(Str(At(e, "type")));
  CHECK(types == std::vector<std::string>{"conversation.created", "message.created"});
  Reply none = f.GetWithKey("/chat/events", f.NewKey(kPermReadCustomers));
  CHECK(none.status() == 403);

  // A second store's events stay out of the first's feed.
  RestFixture::Must(f.service().conversations().ReceiveInbound(Principal::System(f.NewShop("Other").id), [] {
    InboundMessageInput in;
    in.channel = "email";
    in.customerEmail = "other@example.com";
    in.text = "elsewhere";
    return in;
  }()));
  CHECK(Feed(f, "").items.size() == 3);
}

TEST_CASE("feed: events past the retention are pruned; a cursor before them is 410, a fresh read starts after") {
  RestFixture f;
  f.InboundFrom("old@example.com", "old news");
  const std::string start = Feed(f, "?limit=1").items[0].cursor;
  f.clock.Advance(8LL * 24 * 3600 * 1000);  // past the default 7 days
  f.InboundFrom("new@example.com", "fresh");
  CHECK(RestFixture::Must(f.service().feed().PruneEventFeed()) == 3);
  CHECK(RestFixture::Must(f.service().feed().PruneEventFeed()) == 0);

  Reply gone = f.Get("/chat/events?after=" + start);
  CHECK(gone.status() == 410);
  CHECK(gone.code() == "CURSOR_EXPIRED");
  CHECK(gone.message() ==
        "this cursor is older than the events kept (7 days): read the store's current state, then follow the feed "
        "from GET /chat/events without after");
  FeedPage fresh = Feed(f, "");
  CHECK(fresh.items.size() == 3);
  CHECK(fresh.items[0].type == "customer.created");
  // A cursor at or after the pruned events still works.
  CHECK(Feed(f, "?after=" + fresh.items[0].cursor).items.size() == 2);
}

TEST_CASE("feed: a reader following while 4 writers write sees every event once, in seq order") {
  RestFixture f;
  constexpr int kWriters = 4, kEach = 40;
  std::atomic<int> done{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kEach; ++i)
        f.InboundFrom("w" + std::to_string(w) + "-" + std::to_string(i) + "@example.com", "m");
      done.fetch_add(1);
    });
  }
  std::vector<std::string> seen;
  std::string cursor;
  while (done.load() < kWriters) {
    auto more = FollowAll(f, cursor);
    seen.insert(seen.end(), more.begin(), more.end());
  }
  for (auto& t : writers) t.join();
  auto rest = FollowAll(f, cursor);
  seen.insert(seen.end(), rest.begin(), rest.end());
  CHECK(seen.size() == static_cast<std::size_t>(kWriters * kEach * 3));
  CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == seen.size());  // none twice
  CHECK(seen == AllEventIds(f));  // none missed, the store's order
}

}  // namespace
}  // namespace livechat

namespace livechat {
namespace {

using namespace livechat::testing;

TEST_CASE("change feed: after=now starts at the end; what follows comes once, in order") {
  RestFixture f;
  f.InboundFrom("maya@example.com", "before");
  const std::size_t before = AllEventIds(f).size();
  REQUIRE(before > 0);

  FeedPage now = Feed(f, "?after=now");
  REQUIRE(now.status == 200);
  CHECK(now.items.empty());
  CHECK_FALSE(now.hasMore);
  // The position is the newest event's: the same cursor the full read ends at.
  std::string fromStart;
  FollowAll(f, fromStart);
  CHECK(now.nextCursor == fromStart);

  f.InboundFrom("liam@example.com", "after");
  std::string cursor = now.nextCursor;
  const std::vector<std::string> next = FollowAll(f, cursor);
  const std::vector<std::string> all = AllEventIds(f);
  CHECK(next == std::vector<std::string>(all.begin() + static_cast<std::ptrdiff_t>(before), all.end()));
  CHECK_FALSE(next.empty());

  CHECK(Feed(f, "?after=NOW").status == 400);  // only the exact word
}

}  // namespace
}  // namespace livechat

namespace livechat {
namespace {

using namespace livechat::testing;

TEST_CASE("change feed: after=now on a store quiet for longer than the retention is a position that still works") {
  RestFixture f;
  f.InboundFrom("old@example.com", "old news");
  f.clock.Advance(8LL * 24 * 3600 * 1000);  // past the default 7 days: every event of the store goes
  CHECK(RestFixture::Must(f.service().feed().PruneEventFeed()) == 3);

  // The store has no event left; "now" is the prune mark, not 0 (which the
  // next read would answer 410), and following from it works.
  FeedPage now = Feed(f, "?after=now");
  REQUIRE(now.status == 200);
  CHECK(now.items.empty());
  FeedPage follow = Feed(f, "?after=" + now.nextCursor);
  CHECK(follow.status == 200);
  CHECK(follow.items.empty());
  CHECK(follow.nextCursor == now.nextCursor);

  f.InboundFrom("new@example.com", "fresh");
  FeedPage fresh = Feed(f, "?after=" + follow.nextCursor);
  REQUIRE(fresh.status == 200);
  CHECK(fresh.items.size() == 3);
  CHECK(fresh.items[0].type == "customer.created");
}

}  // namespace
}  // namespace livechat
