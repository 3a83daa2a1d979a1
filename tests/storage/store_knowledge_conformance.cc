// Store knowledge contract (catalog items, keys, full-text search, shop
// documents), against every Store fixture.
#include <set>
#include <string>
#include <vector>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

CatalogItem Item(const std::string& shop, const std::string& kind, const std::string& id, const std::string& title,
                 const std::string& body, const std::string& parent = "") {
  return CatalogItem{shop, kind, id, parent, title, body, R"({"id":")" + id + R"("})", 1000};
}

void Seed(Store& s) {
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-a")));
    LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-b")));
    return Status::Ok();
  });
}

std::vector<std::string> HitIds(const std::vector<CatalogHit>& hits) {
  std::vector<std::string> out;
  for (const auto& h : hits) out.push_back(h.item.id);
  return out;
}

}  // namespace

STORE_TEST("knowledge: put, get, replace, list in id order with parents, count, delete with children") {
  StoreFixture fx;
  Store& s = fx.store();
  Seed(s);
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.PutCatalogItem(Item("shop-a", "product", "p2", "Boots", "leather"), {"handle:boots"}));
    LC_RETURN_IF_ERROR(w.PutCatalogItem(Item("shop-a", "product", "p1", "Hat", "wool"), {}));
    LC_RETURN_IF_ERROR(w.PutCatalogItem(Item("shop-a", "product_faq", "p2-faq-1", "Waterproof?", "yes", "p2"), {}));
    LC_RETURN_IF_ERROR(w.PutCatalogItem(Item("shop-a", "product_faq", "p1-faq-1", "Itchy?", "no", "p1"), {}));
    LC_RETURN_IF_ERROR(w.PutCatalogItem(Item("shop-b", "product", "p1", "Their hat", "felt"), {}));
    return Status::Ok();
  });
  auto got = Get(s, [&](StoreReader& r) { return r.GetCatalogItem("shop-a", "product", "p1"); });
  REQUIRE(got.has_value());
  CHECK(got->title == "Hat");
  CHECK(got->dataJson == R"({"id":"p1"})");
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetCatalogItem("shop-a", "collection", "p1"); }).has_value());
  auto list = Get(s, [&](StoreReader& r) { return r.ListCatalogItems("shop-a", "product", "", "", 10); });
  REQUIRE(list.size() == 2);
  CHECK(list[0].id == "p1");
  CHECK(list[1].id == "p2");
  auto after = Get(s, [&](StoreReader& r) { return r.ListCatalogItems("shop-a", "product", "", "p1", 10); });
  REQUIRE(after.size() == 1);
  CHECK(after[0].id == "p2");
  auto kids = Get(s, [&](StoreReader& r) { return r.ListCatalogItems("shop-a", "product_faq", "p2", "", 10); });
  REQUIRE(kids.size() == 1);
  CHECK(kids[0].id == "p2-faq-1");
  CHECK(Get(s, [&](StoreReader& r) { return r.CountCatalogItems("shop-a", "product"); }) == 2);
  CHECK(Get(s, [&](StoreReader& r) { return r.CountCatalogItems("shop-b", "product"); }) == 1);

  // Replace: new title searchable, old one gone.
  Put(s, [&](StoreWriter& w) { return w.PutCatalogItem(Item("shop-a", "product", "p1", "Beanie", "merino"), {}); });
  CHECK(Get(s, [&](StoreReader& r) { return r.SearchCatalog("shop-a", "product", {"hat"}, 10); }).empty());
  CHECK(HitIds(Get(s, [&](StoreReader& r) { return r.SearchCatalog("shop-a", "product", {"beanie"}, 10); })) ==
        std::vector<std::string>{"p1"});

  Put(s, [&](StoreWriter& w) -> Status {
    auto r = w.DeleteCatalogItem("shop-a", "product", "p2");
    if (!r.ok()) return r.take_error();
    CHECK(*r);
    auto again = w.DeleteCatalogItem("shop-a", "product", "p2");
    if (!again.ok()) return again.take_error();
    CHECK_FALSE(*again);
    return Status::Ok();
  });
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetCatalogItem("shop-a", "product_faq", "p2-faq-1"); }).has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.GetCatalogItem("shop-a", "product_faq", "p1-faq-1"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindCatalogItemByKey("shop-a", "product", "handle:boots"); })
                  .has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.SearchCatalog("shop-a", "product", {"boots"}, 10); }).empty());
}

STORE_TEST("knowledge: lookup keys are exact, per shop and kind, and move with the item") {
  StoreFixture fx;
  Store& s = fx.store();
  Seed(s);
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.PutCatalogItem(Item("shop-a", "order", "o1", "#1001", ""), {"1001", "tracking:1z9"}));
    LC_RETURN_IF_ERROR(w.PutCatalogItem(Item("shop-b", "order", "o7", "#1001", ""), {"1001"}));
    return Status::Ok();
  });
  CHECK(Get(s, [&](StoreReader& r) { return r.FindCatalogItemByKey("shop-a", "order", "tracking:1z9"); })->id == "o1");
  CHECK(Get(s, [&](StoreReader& r) { return r.FindCatalogItemByKey("shop-b", "order", "1001"); })->id == "o7");
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindCatalogItemByKey("shop-b", "order", "tracking:1z9"); })
                  .has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindCatalogItemByKey("shop-a", "product", "1001"); }).has_value());
  // Stored again with other keys: the old keys no longer find it.
  Put(s, [&](StoreWriter& w) { return w.PutCatalogItem(Item("shop-a", "order", "o1", "#1001", ""), {"1001"}); });
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindCatalogItemByKey("shop-a", "order", "tracking:1z9"); })
                  .has_value());
}

STORE_TEST("knowledge: search ranks by BM25 with titles weighted, never crosses shop or kind, quotes are literal") {
  StoreFixture fx;
  Store& s = fx.store();
  Seed(s);
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.PutCatalogItem(Item("shop-a", "knowledge", "body", "Returns", "shipping is free on returns"), {}));
    LC_RETURN_IF_ERROR(w.PutCatalogItem(Item("shop-a", "knowledge", "title", "Shipping times", "three days"), {}));
    LC_RETURN_IF_ERROR(w.PutCatalogItem(Item("shop-a", "product", "prod", "Shipping box", "cardboard"), {}));
    LC_RETURN_IF_ERROR(w.PutCatalogItem(Item("shop-b", "knowledge", "other", "Shipping", "shipping shipping"), {}));
    return Status::Ok();
  });
  auto hits = Get(s, [&](StoreReader& r) { return r.SearchCatalog("shop-a", "knowledge", {"shipping"}, 10); });
  CHECK(HitIds(hits) == std::vector<std::string>{"title", "body"});
  CHECK(hits[0].relevance > hits[1].relevance);
  CHECK(HitIds(Get(s, [&](StoreReader& r) { return r.SearchCatalog("shop-a", "knowledge", {"shipping"}, 1); })) ==
        std::vector<std::string>{"title"});
  // Any term matches (OR); no terms, no hits.
  CHECK(Get(s, [&](StoreReader& r) { return r.SearchCatalog("shop-a", "knowledge", {"days", "free"}, 10); }).size() == 2);
  CHECK(Get(s, [&](StoreReader& r) { return r.SearchCatalog("shop-a", "knowledge", {}, 10); }).empty());
  // FTS5 syntax in a term is data, not query language.
  CHECK(Get(s, [&](StoreReader& r) { return r.SearchCatalog("shop-a", "knowledge", {"\"", "title:*", "NEAR("}, 10); })
            .empty());
}

STORE_TEST("knowledge: shop documents round trip and are per shop") {
  StoreFixture fx;
  Store& s = fx.store();
  Seed(s);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetShopDocument("shop-a", "size_chart"); }).has_value());
  Put(s, [&](StoreWriter& w) { return w.PutShopDocument("shop-a", "size_chart", R"({"rows":[]})"); });
  Put(s, [&](StoreWriter& w) { return w.PutShopDocument("shop-a", "size_chart", R"({"rows":[["S"]]})"); });
  CHECK(*Get(s, [&](StoreReader& r) { return r.GetShopDocument("shop-a", "size_chart"); }) == R"({"rows":[["S"]]})");
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetShopDocument("shop-b", "size_chart"); }).has_value());
}

}  // namespace livechat::testing

namespace livechat::testing {

STORE_TEST("knowledge: items with every term rank before items with some, whatever their BM25") {
  StoreFixture fx;
  Store& s = fx.store();
  Seed(s);
  Put(s, [&](StoreWriter& w) -> Status {
    // "shipping" three times in the title would win a pure OR ranking.
    LC_RETURN_IF_ERROR(w.PutCatalogItem(Item("shop-a", "knowledge", "some", "Shipping shipping shipping", "x"), {}));
    LC_RETURN_IF_ERROR(w.PutCatalogItem(Item("shop-a", "knowledge", "every", "Returns", "shipping label returns"), {}));
    return Status::Ok();
  });
  auto hits = Get(s, [&](StoreReader& r) { return r.SearchCatalog("shop-a", "knowledge", {"shipping", "label"}, 10); });
  CHECK(HitIds(hits) == std::vector<std::string>{"every", "some"});
  CHECK(HitIds(Get(s, [&](StoreReader& r) { return r.SearchCatalog("shop-a", "knowledge", {"shipping", "label"}, 1); })) ==
        std::vector<std::string>{"every"});
}

}  // namespace livechat::testing
