// Shopping rules the AI agent's tools apply: what a cart change may do, what a
// cart adds up to, whether a discount applies now, and which plan unlocks
// which skill. They live here, not in the tool server, so any surface that
// offers a cart or a discount gives the same answer (issue 15: one home for
// each rule); adapters only parse their input and format these results.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "livechat/knowledge.h"
#include "livechat/model.h"
#include "livechat/result.h"

namespace livechat {

// Plan entitlements of the switched skills (spec: Tool server table), each
// with the refusal a surface gives when the store's plan is short: the text
// names the plan, so it stays beside the rule it states.
inline bool PlanAtLeast(Plan have, Plan need) { return static_cast<int>(have) >= static_cast<int>(need); }
inline bool PlanAllowsSizeGuide(Plan p) { return PlanAtLeast(p, Plan::kPro); }
inline constexpr std::string_view kSizeGuidePlanRefusal = "the size guide needs the Pro plan or higher";
inline bool PlanAllowsOrderTracking(Plan p) { return PlanAtLeast(p, Plan::kBasic); }
inline constexpr std::string_view kOrderTrackingPlanRefusal = "order tracking needs the Basic plan or higher";
// Loyalty lookups call a partner's API on the store's behalf: the API plans.
inline bool PlanAllowsLoyalty(Plan p) { return PlanAllowsApiKeys(p); }
inline constexpr std::string_view kLoyaltyPlanRefusal = "loyalty lookups need a plan with API access (Pro or Plus)";

// Bounds that keep a cart a cart, not a bulk order.
inline constexpr std::size_t kCartLinesMax = 100;
inline constexpr std::int64_t kCartLineQuantityMax = 999;

// CartChange and CartTotals are in livechat/knowledge.h (KnowledgeService::ManageCart
// takes and returns them).

// The stored product record (catalog JSON) for a product id, or its error.
using ProductSource = std::function<Result<std::string>(const std::string& productId)>;

// The cart's lines (a JSON array) after `change`. Stock and availability
// refusals are kConflict with the code first in the message (OUT_OF_STOCK:,
// UNAVAILABLE:) so a surface can show them as they are.
Result<std::string> ApplyCartChange(const std::string& currentLinesJson, const CartChange& change,
                                    const ProductSource& product);

// Totals are derived on every read, never stored, so they can't go stale.
CartTotals ComputeCartTotals(const std::string& linesJson);

// The id a shopper's loyalty account is stored under (catalog_kind::
// kLoyaltyAccount): the email with A-Z folded to a-z, so the catalog import,
// a lookup by the shopper's email and a contact's redaction name one account.
std::string LoyaltyAccountId(std::string_view email);

// Whether a discount record (catalog JSON with optional startsAt/endsAt)
// applies at `nowIso8601`: startsAt inclusive, endsAt exclusive.
bool DiscountActiveAt(const std::string& discountJson, const std::string& nowIso8601);

}  // namespace livechat
