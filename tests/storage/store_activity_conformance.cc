// Store conformance, a conversation's activity (ActivityReads, ActivityWrites
// in livechat/store/conversations.h): browsed pages, the summary, typing.
// Every Store must pass it.
#include <algorithm>
#include <string>
#include <vector>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

// ------------------------------ browsed pages, summary, typing (ActivityReads, ActivityWrites)

STORE_TEST("browsed pages: keep-most-recent pruning, newest first, since and limit") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1", "c2"});
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertBrowsedPage(kShopA, "c2", BrowsedPage{"https://shop/c2", std::nullopt, 10}, 50));
    for (int i = 0; i < 60; ++i) {
      BrowsedPage p{"https://shop/p" + std::to_string(i), "Page " + std::to_string(i), 1000 + i * 10};
      LC_RETURN_IF_ERROR(w.InsertBrowsedPage(kShopA, "c1", p, 50));
    }
    return Status::Ok();
  });

  auto pages = Get(s, [&](StoreReader& r) { return r.ListBrowsedPages(kShopA, "c1", 0, 100); });
  REQUIRE(pages.size() == 50);
  CHECK(pages.front().url == "https://shop/p59");
  CHECK(pages.front().title == std::optional<std::string>("Page 59"));
  CHECK(pages.front().viewedAt == 1590);
  CHECK(pages.back().url == "https://shop/p10");
  CHECK(pages.back().viewedAt == 1100);
  for (size_t i = 1; i < pages.size(); ++i) CHECK(pages[i - 1].viewedAt > pages[i].viewedAt);

  pages = Get(s, [&](StoreReader& r) { return r.ListBrowsedPages(kShopA, "c1", 1500, 100); });
  REQUIRE(pages.size() == 10);
  CHECK(pages.back().viewedAt == 1500);
  pages = Get(s, [&](StoreReader& r) { return r.ListBrowsedPages(kShopA, "c1", 0, 3); });
  REQUIRE(pages.size() == 3);
  CHECK(pages[2].url == "https://shop/p57");

  // Pruning one conversation never touches another's pages.
  pages = Get(s, [&](StoreReader& r) { return r.ListBrowsedPages(kShopA, "c2", 0, 100); });
  REQUIRE(pages.size() == 1);
  CHECK(pages[0].url == "https://shop/c2");
  CHECK_FALSE(pages[0].title.has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.ListBrowsedPages(kShopB, "c1", 0, 100); }).empty());

  // A smaller keep prunes down to it.
  Put(s, [&](StoreWriter& w) {
    return w.InsertBrowsedPage(kShopA, "c1", BrowsedPage{"https://shop/last", std::nullopt, 2000}, 2);
  });
  pages = Get(s, [&](StoreReader& r) { return r.ListBrowsedPages(kShopA, "c1", 0, 100); });
  REQUIRE(pages.size() == 2);
  CHECK(pages[0].url == "https://shop/last");
  CHECK(pages[1].url == "https://shop/p59");
}

STORE_TEST("summary and typing: upserts") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1"});
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetSummary(kShopA, "c1"); }).has_value());
  Put(s, [&](StoreWriter& w) { return w.PutSummary(kShopA, Summary{"c1", "first", "extractive", 100}); });
  Put(s, [&](StoreWriter& w) { return w.PutSummary(kShopA, Summary{"c1", "second", "llm", 200}); });
  auto sum = Get(s, [&](StoreReader& r) { return r.GetSummary(kShopA, "c1"); });
  REQUIRE(sum.has_value());
  CHECK(sum->conversationId == "c1");
  CHECK(sum->text == "second");
  CHECK(sum->summarizer == "llm");
  CHECK(sum->generatedAt == 200);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetSummary(kShopB, "c1"); }).has_value());

  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.PutTyping(kShopA, TypingState{"c1", "m1", true, 100}));
    LC_RETURN_IF_ERROR(w.PutTyping(kShopA, TypingState{"c1", "m2", false, 200}));
    return w.PutTyping(kShopA, TypingState{"c1", "m1", false, 300});
  });
  auto typing = Get(s, [&](StoreReader& r) { return r.ListTyping(kShopA, "c1"); });
  std::sort(typing.begin(), typing.end(),
            [](const TypingState& a, const TypingState& b) { return a.memberId < b.memberId; });
  REQUIRE(typing.size() == 2);
  CHECK(typing[0].conversationId == "c1");
  CHECK(typing[0].memberId == "m1");
  CHECK(typing[0].active == false);
  CHECK(typing[0].updatedAt == 300);
  CHECK(typing[1].memberId == "m2");
  CHECK(typing[1].updatedAt == 200);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListTyping(kShopB, "c1"); }).empty());
}

}  // namespace
}  // namespace livechat::testing
