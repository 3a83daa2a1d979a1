#include <doctest/doctest.h>

#include <string>

#include "livechat/shopping.h"
#include "core_fixture.h"

namespace livechat {
namespace {

// A product record as the catalog import stores it.
const std::string kShirt =
    R"({"id":"p1","title":"Shirt","currency":"EUR","variants":[)"
    R"({"id":"v1","title":"S","price":"19.99","inventory":5,"available":true},)"
    R"({"id":"v2","title":"M","price":"0.05","inventory":null,"available":true},)"
    R"({"id":"v3","title":"L","price":"10.00","inventory":9,"available":false}]})";

Result<std::string> Shirt(const std::string& id) {
  if (id == "p1") return kShirt;
  return MakeError(ErrorCode::kNotFound, "no product " + id);
}

CartChange Change(std::string action, std::string variant, std::int64_t quantity = 1) {
  return CartChange{std::move(action), "p1", std::move(variant), quantity};
}

}  // namespace

TEST_CASE("plan entitlements: size guide from Pro, order tracking from Basic, loyalty on the API plans") {
  CHECK_FALSE(PlanAllowsSizeGuide(Plan::kBasic));
  CHECK(PlanAllowsSizeGuide(Plan::kPro));
  CHECK(PlanAllowsSizeGuide(Plan::kPlus));
  CHECK_FALSE(PlanAllowsOrderTracking(Plan::kFree));
  CHECK(PlanAllowsOrderTracking(Plan::kBasic));
  CHECK_FALSE(PlanAllowsLoyalty(Plan::kBasic));
  CHECK(PlanAllowsLoyalty(Plan::kPro));
  CHECK(PlanAllowsLoyalty(Plan::kPlus));
}

TEST_CASE("plan refusals name the plans their rules allow") {
  // What the tool server shows when a plan is short (tests/mcp/mcp_gating_test.cc).
  CHECK(kSizeGuidePlanRefusal == "the size guide needs the Pro plan or higher");
  CHECK(kOrderTrackingPlanRefusal == "order tracking needs the Basic plan or higher");
  CHECK(kLoyaltyPlanRefusal == "loyalty lookups need a plan with API access (Pro or Plus)");
  // Each text follows its rule: the plans it names are exactly the plans the rule allows.
  const Plan plans[] = {Plan::kFree, Plan::kBasic, Plan::kPro, Plan::kPlus};
  auto allowed = [&](bool (*rule)(Plan)) {
    std::string out;
    for (Plan p : plans)
      if (rule(p)) out += (out.empty() ? "" : ",") + std::string(PlanName(p));
    return out;
  };
  CHECK(allowed(PlanAllowsSizeGuide) == "pro,plus");            // "the Pro plan or higher"
  CHECK(allowed(PlanAllowsOrderTracking) == "basic,pro,plus");  // "the Basic plan or higher"
  CHECK(allowed(PlanAllowsLoyalty) == "pro,plus");              // "(Pro or Plus)"
}

TEST_CASE("a loyalty account is stored under its email with A-Z folded, nothing else changed") {
  CHECK(LoyaltyAccountId("Ada.Lovelace@Example.COM") == "ada.lovelace@example.com");
  CHECK(LoyaltyAccountId("ada@example.com") == "ada@example.com");
  CHECK(LoyaltyAccountId("Zoë@Exämple.org") == "zoë@exämple.org");  // non-ASCII bytes kept as they are
  CHECK(LoyaltyAccountId(" Ada@x.io ") == " ada@x.io ");            // not trimmed: the email as given
  CHECK(LoyaltyAccountId("").empty());
}

TEST_CASE("cart: add creates a line, add again tops it up, update sets it, remove and clear empty it") {
  auto one = ApplyCartChange("[]", Change("add", "v1", 2), Shirt);
  REQUIRE(one.ok());
  CHECK(*one ==
        R"([{"productId":"p1","variantId":"v1","title":"Shirt","variantTitle":"S","price":"19.99","quantity":2,"currency":"EUR"}])");
  auto topped = ApplyCartChange(*one, Change("add", "v1", 3), Shirt);
  REQUIRE(topped.ok());
  CHECK(topped->find(R"("quantity":5)") != std::string::npos);
  auto set = ApplyCartChange(*topped, Change("update", "v1", 1), Shirt);
  REQUIRE(set.ok());
  CHECK(set->find(R"("quantity":1,)") != std::string::npos);
  auto removed = ApplyCartChange(*set, Change("remove", "v1"), Shirt);
  REQUIRE(removed.ok());
  CHECK(*removed == "[]");
  auto cleared = ApplyCartChange(*set, Change("clear", ""), Shirt);
  REQUIRE(cleared.ok());
  CHECK(*cleared == "[]");
}

TEST_CASE("cart: stock is the limit (5 ok, 6 refused), an unavailable variant is refused") {
  CHECK(ApplyCartChange("[]", Change("add", "v1", 5), Shirt).ok());
  auto six = ApplyCartChange("[]", Change("add", "v1", 6), Shirt);
  REQUIRE_FALSE(six.ok());
  CHECK(six.error().code == ErrorCode::kConflict);
  CHECK(six.error().message == "OUT_OF_STOCK: only 5 in stock for this variant");
  auto off = ApplyCartChange("[]", Change("add", "v3", 1), Shirt);
  REQUIRE_FALSE(off.ok());
  CHECK(off.error().code == ErrorCode::kConflict);
  CHECK(off.error().message == "UNAVAILABLE: this variant is not available for sale");
}

TEST_CASE("cart: at most 999 of one variant (untracked stock), counting what the line already holds") {
  CHECK(ApplyCartChange("[]", Change("add", "v2", 999), Shirt).ok());
  auto over = ApplyCartChange("[]", Change("add", "v2", 1000), Shirt);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().code == ErrorCode::kInvalidParams);
  CHECK(over.error().message == "at most 999 of one variant per cart");
  auto held = ApplyCartChange("[]", Change("add", "v2", 998), Shirt);
  REQUIRE(held.ok());
  CHECK(ApplyCartChange(*held, Change("add", "v2", 1), Shirt).ok());
  CHECK_FALSE(ApplyCartChange(*held, Change("add", "v2", 2), Shirt).ok());
}

TEST_CASE("cart: at most 100 lines (the 100th is added, the 101st refused)") {
  std::string lines = "[";
  for (int i = 0; i < 99; ++i) {
    if (i) lines += ',';
    lines += R"({"productId":"p0","variantId":"x)" + std::to_string(i) +
             R"(","title":"T","variantTitle":null,"price":"1.00","quantity":1,"currency":"EUR"})";
  }
  lines += "]";
  auto hundred = ApplyCartChange(lines, Change("add", "v1"), Shirt);
  REQUIRE(hundred.ok());
  auto full = ApplyCartChange(*hundred, Change("add", "v2"), Shirt);
  REQUIRE_FALSE(full.ok());
  CHECK(full.error().code == ErrorCode::kInvalidParams);
  CHECK(full.error().message == "a cart holds at most 100 lines");
  // Topping up an existing line is not a new line.
  CHECK(ApplyCartChange(*hundred, Change("add", "v1"), Shirt).ok());
}

TEST_CASE("cart: missing ids, unknown variants and lines are refused with the cart unchanged") {
  auto noIds = ApplyCartChange("[]", CartChange{"add", "", "v1", 1}, Shirt);
  REQUIRE_FALSE(noIds.ok());
  CHECK(noIds.error().code == ErrorCode::kInvalidParams);
  CHECK(noIds.error().message == "action add needs productId and variantId");
  auto noVariant = ApplyCartChange("[]", Change("update", "v9"), Shirt);
  REQUIRE_FALSE(noVariant.ok());
  CHECK(noVariant.error().code == ErrorCode::kNotFound);
  CHECK(noVariant.error().message == "product p1 has no variant v9 (product_lookup lists its variants)");
  auto noProduct = ApplyCartChange("[]", CartChange{"add", "p2", "v1", 1}, Shirt);
  REQUIRE_FALSE(noProduct.ok());
  CHECK(noProduct.error().message == "no product p2");
  auto removeNone = ApplyCartChange("[]", Change("remove", "v1"), Shirt);
  REQUIRE_FALSE(removeNone.ok());
  CHECK(removeNone.error().code == ErrorCode::kNotFound);
  CHECK(removeNone.error().message == "the cart has no line with variant v1");
  auto removeNoId = ApplyCartChange("[]", Change("remove", ""), Shirt);
  REQUIRE_FALSE(removeNoId.ok());
  CHECK(removeNoId.error().message == "action remove needs variantId");
}

TEST_CASE("cart totals: exact cents, item count, the lines' currency; an empty cart is 0.00 USD") {
  const CartTotals empty = ComputeCartTotals("[]");
  CHECK(empty.itemCount == 0);
  CHECK(empty.subtotal == "0.00");
  CHECK(empty.currency == "USD");
  auto lines = ApplyCartChange("[]", Change("add", "v1", 3), Shirt);
  REQUIRE(lines.ok());
  lines = ApplyCartChange(*lines, Change("add", "v2", 7), Shirt);
  REQUIRE(lines.ok());
  const CartTotals t = ComputeCartTotals(*lines);
  CHECK(t.itemCount == 10);
  CHECK(t.subtotal == "60.32");  // 3 x 19.99 + 7 x 0.05
  CHECK(t.currency == "EUR");
}

TEST_CASE("discount activity: startsAt inclusive, endsAt exclusive, absent or null bounds are open") {
  const std::string d = R"({"startsAt":"2026-01-01T00:00:00Z","endsAt":"2026-02-01T00:00:00Z"})";
  CHECK_FALSE(DiscountActiveAt(d, "2025-12-31T23:59:59Z"));
  CHECK(DiscountActiveAt(d, "2026-01-01T00:00:00Z"));
  CHECK(DiscountActiveAt(d, "2026-01-31T23:59:59Z"));
  CHECK_FALSE(DiscountActiveAt(d, "2026-02-01T00:00:00Z"));
  CHECK(DiscountActiveAt(R"({"startsAt":null,"endsAt":null})", "2030-01-01T00:00:00Z"));
  CHECK(DiscountActiveAt(R"({"code":"X"})", "2030-01-01T00:00:00Z"));
  CHECK_FALSE(DiscountActiveAt(R"({"endsAt":"2020-01-01T00:00:00Z"})", "2030-01-01T00:00:00Z"));
}

TEST_CASE("ChatService::ManageCart: the cart rules over the store's products, with the totals on every answer") {
  test::CoreFixture f;
  REQUIRE(f.service->knowledge().ImportCatalog(f.sys, R"({"products":[)" + kShirt + "]}").ok());
  const Conversation c = f.Inbound("online_store", "I'd like a shirt");
  const Principal agent = f.Auth(f.key);  // read and manage conversations

  auto empty = f.service->knowledge().ManageCart(agent, c.id, std::nullopt);
  REQUIRE(empty.ok());
  CHECK(empty->linesJson == "[]");
  CHECK(empty->totals.itemCount == 0);
  CHECK(empty->totals.subtotal == "0.00");

  auto added = f.service->knowledge().ManageCart(agent, c.id, Change("add", "v1", 2));
  REQUIRE(added.ok());
  CHECK(added->totals.itemCount == 2);
  CHECK(added->totals.subtotal == "39.98");
  CHECK(added->totals.currency == "EUR");

  // Stock and availability are CONFLICT with their code first; the cart stays as it was.
  auto over = f.service->knowledge().ManageCart(agent, c.id, Change("add", "v1", 4));
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().code == ErrorCode::kConflict);
  CHECK(over.error().message == "OUT_OF_STOCK: only 5 in stock for this variant");
  auto closed = f.service->knowledge().ManageCart(agent, c.id, Change("add", "v3"));
  REQUIRE_FALSE(closed.ok());
  CHECK(closed.error().message == "UNAVAILABLE: this variant is not available for sale");
  auto unknown = f.service->knowledge().ManageCart(agent, c.id, CartChange{"add", "p9", "v1", 1});
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == ErrorCode::kNotFound);

  auto read = f.service->knowledge().ManageCart(agent, c.id, std::nullopt);
  REQUIRE(read.ok());
  CHECK(read->linesJson == added->linesJson);
  CHECK(read->totals.subtotal == "39.98");
  // The same lines as the low-level ChangeCart stores.
  CHECK(*f.service->knowledge().ChangeCart(agent, c.id, nullptr) == added->linesJson);

  CHECK(f.service->knowledge().ManageCart(agent, "nope", std::nullopt).error().code == ErrorCode::kNotFound);
}

}  // namespace livechat
