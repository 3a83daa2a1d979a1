// KnowledgeService: store knowledge and the AI agent: catalog, AI and
// public settings, carts, support requests (knowledge_service.cc).
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include "livechat/services/common.h"

namespace livechat {

// ---- Store knowledge and the AI agent ----
struct CatalogImportResult {
  std::map<std::string, std::int64_t> written;  // kind -> records written (inserted or replaced)
  bool sizeChart = false, loyaltyProgram = false, settings = false;
};
// An after-sale request (customer_support): stored, and shown to agents as
// an internal note in the conversation.
struct SupportRequestInput {
  std::optional<std::string> type;         // return | refund | cancel | edit
  std::optional<std::string> orderNumber;  // must name an order of the store
  std::optional<std::string> reason;       // required, up to 1000 characters
  std::optional<std::string> details;      // up to 5000 characters
};
struct SetupStatus {
  std::vector<std::pair<std::string, bool>> checklist;  // step -> done, in display order
  std::int64_t trainingCount = 0;   // knowledge entries + product FAQ entries
  std::int64_t scenarioCount = 0;
  std::vector<std::string> enabledSkills;
};

class KnowledgeService {
 public:
  explicit KnowledgeService(internal::ServiceContext& ctx);
  KnowledgeService(const KnowledgeService&) = delete;
  KnowledgeService& operator=(const KnowledgeService&) = delete;

  // ---- Store knowledge and the AI agent (knowledge_service.cc) ----
  // The tool server reads these; any key of the store may read knowledge
  // (which tools are offered is the tool server's gating, not a permission).
  //
  // Loads a catalog file (docs/mcp.md, "Catalog format"), all or nothing:
  // one invalid record refuses the whole file with INVALID_PARAMS naming it.
  // Records are upserted by id. Operator only.
  Result<CatalogImportResult> ImportCatalog(const Principal& p, std::string_view json);
  Result<AiSettings> GetAiSettings(const Principal& p);
  // `patchJson` names some switches ({"skills": {"sizeGuide": true}, ...});
  // the others are kept. Operator, or a key with "Manage all settings".
  Result<AiSettings> UpdateAiSettings(const Principal& p, std::string_view patchJson);
  // Best first; an empty query or one without words is INVALID_PARAMS.
  // With `parentId`, among that record's children only (a product's FAQ).
  Result<std::vector<CatalogHit>> SearchCatalog(const Principal& p, const std::string& kind, std::string_view query,
                                                int limit, const std::string& parentId = "");
  // A discount by its code, case-insensitively; NOT_FOUND when none has it.
  Result<CatalogItem> FindDiscountByCode(const Principal& p, const std::string& code);
  Result<CatalogItem> GetCatalogItem(const Principal& p, const std::string& kind, const std::string& id);
  // In id order; children of `parentId` when not empty.
  Result<std::vector<CatalogItem>> ListCatalogItems(const Principal& p, const std::string& kind,
                                                    const std::string& parentId, int limit);
  // By order number ("#1001" or "1001") or by tracking number; NOT_FOUND
  // when neither matches. When `email` is given it must match the order's;
  // without it the order's personal fields (email, customerName) are null,
  // so a guessed number confirms nothing about who ordered.
  Result<CatalogItem> FindOrder(const Principal& p, const std::optional<std::string>& orderNumber,
                                const std::optional<std::string>& trackingNumber,
                                const std::optional<std::string>& email);
  // "size_chart" or "loyalty_program"; empty when the store has none.
  Result<std::optional<std::string>> GetKnowledgeDocument(const Principal& p, const std::string& name);
  // A conversation's cart: its lines as a JSON array (`[]` when none).
  // With `change`, it runs inside one write transaction with the current
  // lines and returns the new ones, which are stored (Manage conversations):
  // concurrent changes never lose one another. Without it, a read.
  Result<std::string> ChangeCart(const Principal& p, const std::string& conversationId,
                                 const std::function<Result<std::string>(const std::string& lines)>& change);
  // The cart with the cart rules applied (core/shopping.h): without `change`
  // a read; with it the change checked against the store's products (stock
  // and availability refusals are CONFLICT with "OUT_OF_STOCK:" or
  // "UNAVAILABLE:" first in the message) and stored as ChangeCart does.
  // The totals are computed from the lines.
  Result<Cart> ManageCart(const Principal& p, const std::string& conversationId,
                          const std::optional<CartChange>& change);
  // "Manage knowledge and training". Question up to 500, answer up to 5000 characters.
  Result<CatalogItem> CreateKnowledgeEntry(const Principal& p, const std::optional<std::string>& question,
                                           const std::optional<std::string>& answer);
  Result<CatalogItem> CreateSupportRequest(const Principal& p, const std::string& conversationId,
                                           const SupportRequestInput& in);
  // Public settings by area: widget, assistant, training, skills (JSON
  // object). Reading needs "Read settings" or a settings-write permission;
  // writing the widget area "Manage widget settings" or "Manage all
  // settings", the others "Manage all settings". A patch names some fields.
  Result<std::string> GetSettingsArea(const Principal& p, const std::string& area);
  Result<std::string> UpdateSettingsArea(const Principal& p, const std::string& area, std::string_view patchJson);
  // "Read setup status".
  Result<SetupStatus> GetSetupStatus(const Principal& p);
  // The AI playground's test conversations (channel "playground"), newest
  // activity first. `limit` >= 1 with no maximum (spec: list_conversations).
  Result<std::vector<Conversation>> ListPlaygroundConversations(const Principal& p, std::int64_t limit);

 private:
  internal::ServiceContext& ctx_;
};

}  // namespace livechat
