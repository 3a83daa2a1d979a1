#include <doctest/doctest.h>

#include <set>

#include "core_fixture.h"

namespace livechat {

namespace {

std::vector<std::string> MakeCustomers(test::CoreFixture& f, int n) {
  std::vector<std::string> ids;
  for (int i = 0; i < n; ++i) {
    // Several share a millisecond: the id breaks the tie.
    if (i % 3 == 0) f.clock.Advance(1);
    auto c = f.Inbound("online_store", "hi", "c" + std::to_string(i) + "@shop.test");
    ids.push_back(*c.customerUuid);
  }
  return ids;
}

}  // namespace

TEST_CASE("customer connection: forward then backward visits every customer exactly once") {
  test::CoreFixture f;
  auto p = f.Auth(f.key);
  const auto ids = MakeCustomers(f, 95);
  std::vector<std::string> forward;
  CustomerPageRequest r;
  r.first = 10;
  int pages = 0;
  for (;;) {
    auto page = f.service->directory().ListCustomersPage(p, r);
    REQUIRE(page.ok());
    CHECK(page->totalCount == 95);
    CHECK(page->hasPreviousPage == (pages > 0));
    for (const auto& c : page->items) forward.push_back(c.id);
    ++pages;
    if (!page->hasNextPage) {
      CHECK(page->items.size() == 5);
      break;
    }
    CHECK(page->items.size() == 10);
    r.after = page->cursors.back();
  }
  CHECK(pages == 10);
  CHECK(forward.size() == 95);
  CHECK(std::set<std::string>(forward.begin(), forward.end()) == std::set<std::string>(ids.begin(), ids.end()));

  std::vector<std::string> backward;
  CustomerPageRequest b;
  b.last = 10;
  for (int guard = 0; guard < 20; ++guard) {
    auto page = f.service->directory().ListCustomersPage(p, b);
    REQUIRE(page.ok());
    backward.insert(backward.begin(), page->items.size(), "");
    for (std::size_t i = 0; i < page->items.size(); ++i) backward[i] = page->items[i].id;
    CHECK(page->hasNextPage == (guard > 0));
    if (!page->hasPreviousPage) break;
    b.before = page->cursors.front();
  }
  CHECK(backward == forward);  // the same stable order from either end
}

TEST_CASE("customer connection: no arguments returns everything, empty pages, errors") {
  test::CoreFixture f;
  auto p = f.Auth(f.key);
  MakeCustomers(f, 7);
  auto all = f.service->directory().ListCustomersPage(p, {});
  REQUIRE(all.ok());
  CHECK(all->items.size() == 7);
  CHECK_FALSE(all->hasNextPage);
  CHECK_FALSE(all->hasPreviousPage);
  CustomerPageRequest zero;
  zero.first = 0;
  auto none = f.service->directory().ListCustomersPage(p, zero);
  REQUIRE(none.ok());
  CHECK(none->items.empty());
  CHECK(none->hasNextPage);
  CHECK(none->totalCount == 7);
  CustomerPageRequest past;
  past.first = 5;
  past.after = all->cursors.back();
  auto end = f.service->directory().ListCustomersPage(p, past);
  REQUIRE(end.ok());
  CHECK(end->items.empty());
  CHECK_FALSE(end->hasNextPage);
  CHECK(end->hasPreviousPage);

  CustomerPageRequest neg;
  neg.first = -1;
  CHECK(f.service->directory().ListCustomersPage(p, neg).error().code == ErrorCode::kInvalidParams);
  neg.first.reset();
  neg.last = -2;
  CHECK(f.service->directory().ListCustomersPage(p, neg).error().code == ErrorCode::kInvalidParams);
  CustomerPageRequest bad;
  bad.after = "%%%";
  CHECK(f.service->directory().ListCustomersPage(p, bad).error().code == ErrorCode::kInvalidParams);

  auto readOnly = f.service->directory().CreateApiKey(f.sys, {"r", kPermReadConversations, false});
  REQUIRE(readOnly.ok());
  auto denied = f.service->directory().ListCustomersPage(f.Auth(readOnly->secret), {});
  CHECK(denied.error().code == ErrorCode::kForbidden);
  CHECK(denied.error().message.find("Read customers") != std::string::npos);
}

TEST_CASE("customer connection: another store's customers are never counted or listed") {
  test::CoreFixture f;
  MakeCustomers(f, 3);
  auto other = f.service->directory().CreateShop({"Other", Plan::kPro, false});
  REQUIRE(other.ok());
  auto key = f.service->directory().CreateApiKey(Principal::System(other->id), {"k", kPermReadCustomers, false});
  REQUIRE(key.ok());
  auto page = f.service->directory().ListCustomersPage(f.Auth(key->secret), {});
  REQUIRE(page.ok());
  CHECK(page->items.empty());
  CHECK(page->totalCount == 0);
}

}  // namespace livechat
