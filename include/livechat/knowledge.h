// Store knowledge: what the AI agent's tools read (products, FAQs,
// collections, discounts, orders, loyalty, knowledge entries) and the AI
// settings that switch those tools on and off.
//
// Records are kept as catalog items: a kind, an id, searchable text and the
// canonical record as JSON. The core validates and normalizes every record
// before it is stored (lib/core/catalog_import.cc), so the JSON a tool reads
// back always has the documented shape (docs/mcp.md, "Catalog format").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "livechat/model.h"

namespace livechat {

namespace catalog_kind {
inline constexpr const char* kProduct = "product";
inline constexpr const char* kProductFaq = "product_faq";   // parentId: the product
inline constexpr const char* kCollection = "collection";
inline constexpr const char* kDiscount = "discount";
inline constexpr const char* kOrder = "order";              // keys: order number, tracking numbers
inline constexpr const char* kKnowledge = "knowledge";      // FAQ / knowledge entries
inline constexpr const char* kLoyaltyAccount = "loyalty_account";  // id: lowercased email
inline constexpr const char* kCart = "cart";                // id: conversation id
inline constexpr const char* kSupportRequest = "support_request";
inline constexpr const char* kScenario = "scenario";        // AI scenarios (counted by setup status)
}  // namespace catalog_kind

struct CatalogItem {
  std::string shopId;
  std::string kind;
  std::string id;
  std::string parentId;   // empty when none
  std::string title;      // searched, weighted above body
  std::string body;       // searched
  std::string dataJson;   // the canonical record
  Millis updatedAt = 0;
};

struct CatalogHit {
  CatalogItem item;
  double relevance = 0;   // higher is better (negated BM25)
};

// One change to a conversation's cart. action is "add", "update", "remove" or
// "clear" (anything else leaves the lines as they are).
struct CartChange {
  std::string action;
  std::string productId;
  std::string variantId;
  std::int64_t quantity = 1;
};

// What a cart adds up to, derived from its lines on every read.
struct CartTotals {
  std::int64_t itemCount = 0;
  std::string subtotal = "0.00";  // "D.CC", exact cents
  std::string currency = "USD";
};

// A conversation's cart: its lines (a JSON array) and their totals.
struct Cart {
  std::string linesJson = "[]";
  CartTotals totals;
};

// Switches read on every tool-server request (spec: Tool server table).
// Defaults are a new store's: the three training-data sources off, the size
// guide off, order tracking, after-sale support and human transfer on, no
// loyalty partner.
struct AiSettings {
  bool trainProducts = false;
  bool trainCollections = false;
  bool trainDiscounts = false;
  bool skillSizeGuide = false;
  bool skillOrderTracking = true;
  bool skillAfterSaleSupport = true;
  bool skillHumanAgentTransfer = true;
  std::string loyaltyPartner;  // empty: none connected
};

// The on/off settings and where each sits in the settings JSON
// ({"trainingData":{"products":true},...}): the one list the JSON reader and
// livechatctl's --set both go by.
struct AiSettingFlag {
  const char* section;
  const char* key;
  bool AiSettings::*field;
};
inline constexpr AiSettingFlag kAiSettingFlags[] = {
    {"trainingData", "products", &AiSettings::trainProducts},
    {"trainingData", "collections", &AiSettings::trainCollections},
    {"trainingData", "discounts", &AiSettings::trainDiscounts},
    {"skills", "sizeGuide", &AiSettings::skillSizeGuide},
    {"skills", "orderTracking", &AiSettings::skillOrderTracking},
    {"skills", "afterSaleSupport", &AiSettings::skillAfterSaleSupport},
    {"skills", "humanAgentTransfer", &AiSettings::skillHumanAgentTransfer},
};

}  // namespace livechat
