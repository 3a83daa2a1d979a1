// Store knowledge: the catalog import format (all or nothing, every field
// checked, records normalized), FTS5 search ranking and store scoping, and
// the AI settings switches.
#include "core/catalog_format.h"
#include "mcp/mcp_fixture.h"

using namespace livechat;
using namespace livechat::testing;

namespace {

std::string ImportError(McpFixture& f, const std::string& json) {
  auto r = f.service().knowledge().ImportCatalog(f.sys, json);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidParams);
  return r.error().message;
}

std::string Product(const std::string& extra) {
  return R"({"products":[{"id":"p1","title":"Thing","variants":[{"id":"v1","price":"1.00"}])" + extra + "}]}";
}

}  // namespace

TEST_CASE("the sample catalog imports, counts per kind, and again replaces rather than duplicates") {
  McpFixture f(McpOptions{}, false);
  auto r = f.service().knowledge().ImportCatalog(f.sys, ReadSampleCatalog());
  REQUIRE(r.ok());
  CHECK(r->written == std::map<std::string, std::int64_t>{{"collection", 3}, {"discount", 3}, {"knowledge", 8},
                                                          {"loyalty_account", 2}, {"order", 3}, {"product", 8},
                                                          {"product_faq", 5}, {"scenario", 2}});
  CHECK(r->sizeChart);
  CHECK(r->loyaltyProgram);
  CHECK_FALSE(r->settings);
  REQUIRE(f.service().knowledge().ImportCatalog(f.sys, ReadSampleCatalog()).ok());
  CHECK(f.service().knowledge().ListCatalogItems(f.sys, catalog_kind::kProduct, "", 100)->size() == 8);
  CHECK(f.service().knowledge().ListCatalogItems(f.sys, catalog_kind::kProductFaq, "", 100)->size() == 5);
  // A product imported again without FAQs loses them.
  REQUIRE(f.service()
              .knowledge().ImportCatalog(f.sys, R"({"products":[{"id":"prod_merino_crew","title":"Merino Crew Sweater",)"
                                    R"("variants":[{"id":"v","price":"89"}]}]})")
              .ok());
  CHECK(f.service().knowledge().ListCatalogItems(f.sys, catalog_kind::kProductFaq, "prod_merino_crew", 100)->empty());
  CHECK(f.service().knowledge().ListCatalogItems(f.sys, catalog_kind::kProductFaq, "", 100)->size() == 3);
}

TEST_CASE("records are normalized: documented keys only, money with two decimals, defaults filled") {
  McpFixture f(McpOptions{}, false);
  REQUIRE(f.service().knowledge().ImportCatalog(f.sys, Product(R"(,"junk":"dropped")")).ok());
  auto item = f.service().knowledge().GetCatalogItem(f.sys, catalog_kind::kProduct, "p1");
  REQUIRE(item.ok());
  CHECK(item->dataJson ==
        R"({"id":"p1","handle":null,"title":"Thing","description":null,"vendor":null,"productType":null,"tags":[],)"
        R"("url":null,"imageUrl":null,"currency":null,"variants":[{"id":"v1","title":null,"sku":null,"price":"1.00",)"
        R"("compareAtPrice":null,"inventory":null,"available":true}]})");
  REQUIRE(f.service().knowledge().ImportCatalog(f.sys, R"({"products":[{"id":"p2","title":"T","variants":[{"id":"v","price":19.9}]}]})").ok());
  CHECK(f.service().knowledge().GetCatalogItem(f.sys, catalog_kind::kProduct, "p2")->dataJson.find(R"("price":"19.90")") !=
        std::string::npos);
}

TEST_CASE("an invalid record refuses the whole file, naming record and field, and nothing is written") {
  McpFixture f(McpOptions{}, false);
  const std::string good = R"({"id":"ok","title":"Fine","variants":[{"id":"v","price":"2.00"}]})";
  CHECK(ImportError(f, R"({"products":[)" + good + R"(,{"id":"p","title":"x","variants":[{"id":"v","price":"1.999"}]}]})") ==
        R"(products[1].variants[0].price: must be a decimal amount like "19.99")");
  CHECK(f.service().knowledge().ListCatalogItems(f.sys, catalog_kind::kProduct, "", 10)->empty());
  CHECK(ImportError(f, R"({"products":[{"title":"x","variants":[]}]})") == "products[0].id: is required");
  CHECK(ImportError(f, R"({"products":[{"id":"p","title":"   ","variants":[]}]})") ==
        "products[0].title: must not be blank");
  CHECK(ImportError(f, Product("").substr(0, Product("").size() - 2) + R"(,{"id":"p1","title":"dup","variants":[]}]})") ==
        R"(products[1].id: "p1" appears twice in the file)");
  CHECK(ImportError(f, R"({"orders":[{"id":"o","orderNumber":"1","status":"lost"}]})") ==
        "orders[0].status: must be one of open, closed, cancelled");
  CHECK(ImportError(f, R"({"discounts":[{"id":"d","title":"t","type":"percentage","endsAt":"tomorrow"}]})") ==
        R"(discounts[0].endsAt: must be an ISO 8601 time like "2026-11-21T10:00:00Z")");
  CHECK(ImportError(f, R"({"sizeChart":{"columns":["Size","Chest"],"rows":[["S"]]}})") ==
        "sizeChart.rows[0]: must have 2 cells, one per column");
  CHECK(ImportError(f, R"({"products":{}})") == "products: must be an array");
  CHECK(ImportError(f, "[1,2]") == "the catalog must be a JSON object");
  CHECK(ImportError(f, "{\"products\":").find("the catalog is not valid JSON") == 0);
  // Title: 255 characters kept, 256 refused.
  REQUIRE(f.service().knowledge().ImportCatalog(f.sys, R"({"collections":[{"id":"c","title":")" + std::string(255, 't') + R"("}]})").ok());
  CHECK(ImportError(f, R"({"collections":[{"id":"c","title":")" + std::string(256, 't') + R"("}]})") ==
        "collections[0].title: must be at most 255 characters");
  // Only the operator imports.
  auto byKey = f.service().knowledge().ImportCatalog(f.service().auth().AuthenticateApiKey(f.key).value(), "{}");
  CHECK(byKey.error().code == ErrorCode::kForbidden);
}

TEST_CASE("search is scoped to the store and the kind, and ranks title matches above body matches") {
  McpFixture f;
  Shop other = f.NewShop("Other");
  REQUIRE(f.service()
              .knowledge().ImportCatalog(Principal::System(other.id),
                             R"({"knowledge":[{"id":"theirs","question":"How long does shipping take?","answer":"Forever."}]})")
              .ok());
  auto mine = f.service().knowledge().SearchCatalog(f.sys, catalog_kind::kKnowledge, "shipping", 20);
  REQUIRE(mine.ok());
  for (const auto& h : *mine) CHECK(h.item.shopId == f.shop.id);
  // Porter stemming: "ship" in a body matches too. Title matches rank first.
  // Titles: shipping time, shipping cost, "Do you ship internationally?";
  // bodies only: returns, exchange.
  REQUIRE(mine->size() == 5);
  std::set<std::string> top = {(*mine)[0].item.id, (*mine)[1].item.id, (*mine)[2].item.id};
  CHECK(top == std::set<std::string>{"kb_shipping_time", "kb_shipping_cost", "kb_international"});
  CHECK(std::set<std::string>{(*mine)[3].item.id, (*mine)[4].item.id} ==
        std::set<std::string>{"kb_returns", "kb_exchange"});
  for (std::size_t i = 1; i < mine->size(); ++i) CHECK((*mine)[i - 1].relevance >= (*mine)[i].relevance);
  auto theirs = f.service().knowledge().SearchCatalog(Principal::System(other.id), catalog_kind::kKnowledge, "shipping", 20);
  REQUIRE(theirs->size() == 1);
  CHECK(theirs->front().item.id == "theirs");
  // The same words in another kind are not found as knowledge.
  CHECK(f.service().knowledge().SearchCatalog(f.sys, catalog_kind::kKnowledge, "sweater", 20)->empty());
  CHECK(f.service().knowledge().SearchCatalog(f.sys, catalog_kind::kProduct, "sweater", 20)->size() == 1);
}

TEST_CASE("AI settings: defaults, patches keep what they do not name, bad values refused") {
  McpFixture f(McpOptions{}, false);
  auto s = f.service().knowledge().GetAiSettings(f.sys);
  REQUIRE(s.ok());
  CHECK(ToJson(*s) ==
        R"({"trainingData":{"products":false,"collections":false,"discounts":false},"skills":{"sizeGuide":false,)"
        R"("orderTracking":true,"afterSaleSupport":true,"humanAgentTransfer":true},"loyaltyPartner":null})");
  auto p = f.service().knowledge().UpdateAiSettings(f.sys, R"({"skills":{"sizeGuide":true},"loyaltyPartner":"Smile.io"})");
  REQUIRE(p.ok());
  CHECK(p->skillSizeGuide);
  CHECK(p->skillOrderTracking);
  CHECK(p->loyaltyPartner == "Smile.io");
  auto bad = f.service().knowledge().UpdateAiSettings(f.sys, R"({"skills":{"sizeGuide":"yes"}})");
  CHECK(bad.error().code == ErrorCode::kInvalidParams);
  CHECK(bad.error().message == "settings.skills.sizeGuide: must be true or false");
  CHECK(f.service().knowledge().GetAiSettings(f.sys)->skillSizeGuide);
  CHECK(f.service().knowledge().UpdateAiSettings(f.sys, R"({"loyaltyPartner":null})")->loyaltyPartner.empty());
  // A key needs "Manage all settings".
  auto key = f.service().auth().AuthenticateApiKey(f.key).value();
  CHECK(f.service().knowledge().UpdateAiSettings(key, "{}").error().code == ErrorCode::kForbidden);
}

TEST_CASE("catalog size limit: a file of exactly the limit is read, one byte more is PAYLOAD_TOO_LARGE") {
  const std::string file = R"({"knowledge":[{"id":"k","question":"q","answer":"a"}]})";
  auto at = internal::ParseCatalog(file, file.size());
  REQUIRE(at.ok());
  CHECK(at->records.size() == 1);
  auto over = internal::ParseCatalog(file, file.size() - 1);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().code == ErrorCode::kPayloadTooLarge);
  CHECK(over.error().message ==
        "the catalog file is " + std::to_string(file.size()) + " bytes; the limit is " + std::to_string(file.size() - 1) +
            " bytes");
}
