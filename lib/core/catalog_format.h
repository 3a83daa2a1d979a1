// The catalog import format (docs/mcp.md, "Catalog format"): parsing,
// validation and normalization of each record into the canonical JSON the
// store keeps and the tools return. No I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "livechat/knowledge.h"
#include "livechat/result.h"

namespace livechat::internal {

// One record ready to store: the item and its lookup keys.
struct CatalogRecord {
  CatalogItem item;  // shopId and updatedAt are left for the caller
  std::vector<std::string> keys;
};

// The whole import, validated: nothing is returned unless every record is
// valid (an import is all or nothing). Errors are INVALID_PARAMS naming the
// record and field, e.g. `products[3].variants[0].price: must be a decimal
// amount like "19.99"`.
struct ParsedCatalog {
  std::vector<CatalogRecord> records;   // products before their FAQs
  std::string sizeChartJson;            // empty: not in the file
  std::string loyaltyProgramJson;       // empty: not in the file
  bool hasSettings = false;
  AiSettings settings;
};
Result<ParsedCatalog> ParseCatalog(std::string_view json, std::size_t maxBytes);

// Canonical forms of single records written by tools (one validation path).
Result<CatalogRecord> NormalizeKnowledgeEntry(std::string_view question, std::string_view answer, std::string id);

// Order numbers are matched without a leading '#' and case-insensitively;
// tracking numbers without spaces, case-insensitively.
std::string OrderKey(std::string_view number);

// Words of a free-text query: letters and digits (any script), lowercased
// ASCII, repeats dropped, at most `maxTerms`.
std::vector<std::string> SearchWords(std::string_view query, std::size_t maxTerms = 32);
// SearchWords without English stopwords ("how", "do", "my", ...), unless
// nothing else is left: what SearchCatalog is given.
std::vector<std::string> SearchTerms(std::string_view query, std::size_t maxTerms = 32);

// AI settings as stored (a shop document) and back. `json` may name only
// some switches (a patch): the others keep their value in `base`. Unknown
// keys are ignored.
std::string AiSettingsJson(const AiSettings& s);
Result<AiSettings> ParseAiSettings(std::string_view json, const AiSettings& base = AiSettings{});

}  // namespace livechat::internal
