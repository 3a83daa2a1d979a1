#include "livechat/shopping.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdlib>
#include <fmt/format.h>

#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"

namespace livechat {
namespace {

using rapidjson::Value;

std::string Compact(const Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace

Result<std::string> ApplyCartChange(const std::string& currentLinesJson, const CartChange& change,
                                    const ProductSource& product) {
  const std::string& action = change.action;
  const std::string& variantId = change.variantId;
  rapidjson::Document items;
  items.Parse(currentLinesJson.c_str());
  if (!items.IsArray()) items.SetArray();
  auto& alloc = items.GetAllocator();
  auto findLine = [&](const std::string& id) -> rapidjson::SizeType {
    for (rapidjson::SizeType i = 0; i < items.Size(); ++i)
      if (id == items[i]["variantId"].GetString()) return i;
    return items.Size();
  };
  if (action == "add" || action == "update") {
    const std::string& productId = change.productId;
    if (productId.empty() || variantId.empty())
      return MakeError(ErrorCode::kInvalidParams, fmt::format("action {} needs productId and variantId", action));
    LC_ASSIGN_OR_RETURN(std::string productJson, product(productId));
    rapidjson::Document p;
    p.Parse(productJson.c_str());
    const Value* variant = nullptr;
    for (const auto& v : p["variants"].GetArray())
      if (variantId == v["id"].GetString()) variant = &v;
    if (!variant)
      return MakeError(ErrorCode::kNotFound, fmt::format("product {} has no variant {} (product_lookup lists its variants)",
                                                         productId, variantId));
    const auto line = findLine(variantId);
    // "add" tops up an existing line; "update" sets it.
    const std::int64_t want =
        action == "add" && line < items.Size() ? items[line]["quantity"].GetInt64() + change.quantity : change.quantity;
    if ((*variant)["available"].IsBool() && !(*variant)["available"].GetBool())
      return MakeError(ErrorCode::kConflict, "UNAVAILABLE: this variant is not available for sale");
    if ((*variant)["inventory"].IsInt64() && want > (*variant)["inventory"].GetInt64())
      return MakeError(ErrorCode::kConflict,
                       fmt::format("OUT_OF_STOCK: only {} in stock for this variant", (*variant)["inventory"].GetInt64()));
    if (want > kCartLineQuantityMax)
      return MakeError(ErrorCode::kInvalidParams, fmt::format("at most {} of one variant per cart", kCartLineQuantityMax));
    if (line < items.Size()) {
      items[line]["quantity"].SetInt64(want);
    } else {
      if (items.Size() >= kCartLinesMax)
        return MakeError(ErrorCode::kInvalidParams, fmt::format("a cart holds at most {} lines", kCartLinesMax));
      Value l(rapidjson::kObjectType);
      l.AddMember("productId", Value(productId.c_str(), alloc), alloc);
      l.AddMember("variantId", Value(variantId.c_str(), alloc), alloc);
      l.AddMember("title", Value(p["title"], alloc), alloc);
      l.AddMember("variantTitle", Value((*variant)["title"], alloc), alloc);
      l.AddMember("price", Value((*variant)["price"], alloc), alloc);
      l.AddMember("quantity", want, alloc);
      l.AddMember("currency", Value(p["currency"].IsString() ? p["currency"].GetString() : "USD", alloc), alloc);
      items.PushBack(l, alloc);
    }
  } else if (action == "remove") {
    if (variantId.empty()) return MakeError(ErrorCode::kInvalidParams, "action remove needs variantId");
    const auto line = findLine(variantId);
    if (line == items.Size()) return MakeError(ErrorCode::kNotFound, "the cart has no line with variant " + variantId);
    items.Erase(items.Begin() + line);
  } else if (action == "clear") {
    items.Clear();
  }
  return Compact(items);
}

CartTotals ComputeCartTotals(const std::string& linesJson) {
  CartTotals t;
  rapidjson::Document items;
  items.Parse(linesJson.c_str());
  if (!items.IsArray()) return t;
  std::int64_t cents = 0;
  for (const auto& l : items.GetArray()) {
    const std::int64_t q = l["quantity"].GetInt64();
    // Prices are canonical "D.CC" (the import's normalization): exact cents.
    std::string_view price(l["price"].GetString());
    auto dot = price.find('.');
    const std::int64_t unit = std::atoll(std::string(price.substr(0, dot)).c_str()) * 100 +
                              (dot == std::string_view::npos ? 0 : std::atoll(std::string(price.substr(dot + 1)).c_str()));
    t.itemCount += q;
    cents += unit * q;
    t.currency = l["currency"].GetString();
  }
  t.subtotal = fmt::format("{}.{:02}", cents / 100, cents % 100);
  return t;
}

std::string LoyaltyAccountId(std::string_view email) { return livechat::AsciiLower(email); }

bool DiscountActiveAt(const std::string& discountJson, const std::string& nowIso8601) {
  rapidjson::Document d;
  d.Parse(discountJson.c_str());
  if (!d.IsObject()) return false;
  // ISO 8601 UTC strings compare in time order; an offset other than Z is
  // compared by its text (documented: give discount times in UTC).
  auto startsAt = d.FindMember("startsAt");
  auto endsAt = d.FindMember("endsAt");
  const bool started = startsAt == d.MemberEnd() || !startsAt->value.IsString() ||
                       std::string(startsAt->value.GetString()) <= nowIso8601;
  const bool ended = endsAt != d.MemberEnd() && endsAt->value.IsString() &&
                     !(nowIso8601 < std::string(endsAt->value.GetString()));
  return started && !ended;
}

}  // namespace livechat
