// KnowledgeService: store knowledge (catalog, orders, loyalty, knowledge entries),
// the AI settings that switch the tool server's tools, public settings areas,
// and the writes the AI agent makes (carts, after-sale requests).
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include <algorithm>

#include "core/catalog_format.h"
#include "core/service_internal.h"
#include "livechat/shopping.h"
#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"
#include "livechat/chat_service.h"

namespace livechat {

using namespace internal;

namespace {

constexpr const char* kAiSettingsDoc = "ai_settings";
constexpr std::size_t kCatalogMaxBytes = 64u << 20;  // one import file

Result<AiSettings> LoadAiSettings(StoreReader& r, const std::string& shopId) {
  LC_ASSIGN_OR_RETURN(auto doc, r.GetShopDocument(shopId, kAiSettingsDoc));
  if (!doc) return AiSettings{};
  return ParseAiSettings(*doc);
}

Status RequireAnySetting(const Principal& p) {
  if (p.Has(kPermReadSettings) || p.Has(kPermManageWidgetSettings) || p.Has(kPermManageAllSettings))
    return Status::Ok();
  return MakeError(ErrorCode::kForbidden,
                   "this API key lacks the \"Read settings\" permission (or a settings-write permission)");
}

// ---- Public settings areas ----
// widget and assistant are documents of their own; training and skills are
// views of the AI settings (the tool switches), so changing them changes
// which tools the tool server offers.
enum class FieldType { kBool, kColor, kText, kEnum };
struct AreaField {
  const char* name;
  FieldType type;
  int max = 0;                       // kText: code points
  std::vector<const char*> values = {};  // kEnum
};
struct Area {
  const char* name;
  std::vector<AreaField> fields;
  const char* defaults;  // JSON
};

const std::vector<Area>& Areas() {
  static const std::vector<Area> areas = {
      {"widget",
       {{"primaryColor", FieldType::kColor},
        {"position", FieldType::kEnum, 0, {"left", "right"}},
        {"greeting", FieldType::kText, 200},
        {"launcherText", FieldType::kText, 50},
        {"showOnMobile", FieldType::kBool},
        // Set by a logo / icon upload (UploadFile) to the file's URL; no default.
        {"logoUrl", FieldType::kText, 2048},
        {"iconUrl", FieldType::kText, 2048}},
       R"({"primaryColor":"#1f6feb","position":"right","greeting":"Hi! How can we help?","launcherText":"Chat with us","showOnMobile":true})"},
      {"assistant",
       {{"assistantName", FieldType::kText, 50},
        {"tone", FieldType::kEnum, 0, {"friendly", "professional", "casual"}},
        {"language", FieldType::kText, 10},
        {"responseLength", FieldType::kEnum, 0, {"short", "medium", "long"}}},
       R"({"assistantName":"AI assistant","tone":"friendly","language":"en","responseLength":"medium"})"},
      {"training",
       {{"products", FieldType::kBool}, {"collections", FieldType::kBool}, {"discounts", FieldType::kBool}},
       nullptr},
      {"skills",
       {{"sizeGuide", FieldType::kBool},
        {"orderTracking", FieldType::kBool},
        {"afterSaleSupport", FieldType::kBool},
        {"humanAgentTransfer", FieldType::kBool}},
       nullptr},
  };
  return areas;
}

const Area* FindArea(const std::string& name) {
  for (const auto& a : Areas())
    if (name == a.name) return &a;
  return nullptr;
}

std::string AreaNames() {
  std::string out;
  for (const auto& a : Areas()) out += (out.empty() ? "" : ", ") + std::string(a.name);
  return out;
}

std::string Compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

// The training/skills area out of the AI settings document.
std::string SwitchArea(const std::string& area, const AiSettings& s) {
  if (area == "training")
    return fmt::format(R"({{"products":{},"collections":{},"discounts":{}}})", s.trainProducts, s.trainCollections,
                       s.trainDiscounts);
  return fmt::format(R"({{"sizeGuide":{},"orderTracking":{},"afterSaleSupport":{},"humanAgentTransfer":{}}})",
                     s.skillSizeGuide, s.skillOrderTracking, s.skillAfterSaleSupport, s.skillHumanAgentTransfer);
}

Status CheckAreaValue(const Area& area, const AreaField& f, const rapidjson::Value& v) {
  const std::string path = fmt::format("settings.{} ({} area)", f.name, area.name);
  switch (f.type) {
    case FieldType::kBool:
      if (!v.IsBool()) return Invalid(path + " must be true or false");
      return Status::Ok();
    case FieldType::kColor: {
      std::string_view s = v.IsString() ? std::string_view(v.GetString(), v.GetStringLength()) : "";
      bool ok = s.size() == 7 && s[0] == '#';
      for (std::size_t i = 1; ok && i < s.size(); ++i) ok = std::isxdigit(static_cast<unsigned char>(s[i])) != 0;
      if (!ok) return Invalid(path + " must be a color like \"#1f6feb\"");
      return Status::Ok();
    }
    case FieldType::kText:
      if (!v.IsString() || !IsValidUtf8(v.GetString()) || Utf8Length(v.GetString()) > static_cast<std::size_t>(f.max))
        return Invalid(fmt::format("{} must be text of at most {} characters", path, f.max));
      return Status::Ok();
    case FieldType::kEnum: {
      std::string list;
      for (const char* ok : f.values) {
        if (v.IsString() && std::string_view(v.GetString()) == ok) return Status::Ok();
        list += (list.empty() ? "" : ", ") + std::string(ok);
      }
      return Invalid(path + " must be one of " + list);
    }
  }
  return Status::Ok();
}

}  // namespace

Result<CatalogImportResult> KnowledgeService::ImportCatalog(const Principal& p, std::string_view json) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  LC_ASSIGN_OR_RETURN(ParsedCatalog parsed, ParseCatalog(json, kCatalogMaxBytes));
  const Millis now = ctx_.clock->NowMillis();
  return WriteValue<CatalogImportResult>(ctx_.store(), [&](StoreWriter& w) -> Result<CatalogImportResult> {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    CatalogImportResult out;
    for (auto& rec : parsed.records) {
      // A product imported again replaces its FAQ entries rather than
      // keeping ones the new file no longer has.
      if (rec.item.kind == catalog_kind::kProduct) {
        LC_ASSIGN_OR_RETURN(auto old, w.GetCatalogItem(p.shopId, catalog_kind::kProduct, rec.item.id));
        if (old) {
          LC_ASSIGN_OR_RETURN(bool gone, w.DeleteCatalogItem(p.shopId, catalog_kind::kProduct, rec.item.id));
          (void)gone;
        }
      }
      rec.item.shopId = p.shopId;
      rec.item.updatedAt = now;
      LC_RETURN_IF_ERROR(w.PutCatalogItem(rec.item, rec.keys));
      ++out.written[rec.item.kind];
    }
    if (!parsed.sizeChartJson.empty()) {
      LC_RETURN_IF_ERROR(w.PutShopDocument(p.shopId, "size_chart", parsed.sizeChartJson));
      out.sizeChart = true;
    }
    if (!parsed.loyaltyProgramJson.empty()) {
      LC_RETURN_IF_ERROR(w.PutShopDocument(p.shopId, "loyalty_program", parsed.loyaltyProgramJson));
      out.loyaltyProgram = true;
    }
    if (parsed.hasSettings) {
      LC_RETURN_IF_ERROR(w.PutShopDocument(p.shopId, kAiSettingsDoc, AiSettingsJson(parsed.settings)));
      out.settings = true;
    }
    return out;
  });
}

Result<AiSettings> KnowledgeService::GetAiSettings(const Principal& p) {
  return ReadValue<AiSettings>(ctx_.store(), [&](StoreReader& r) { return LoadAiSettings(r, p.shopId); });
}

Result<AiSettings> KnowledgeService::UpdateAiSettings(const Principal& p, std::string_view patchJson) {
  if (p.kind != Principal::Kind::kSystem) LC_RETURN_IF_ERROR(Require(p, kPermManageAllSettings));
  return WriteValue<AiSettings>(ctx_.store(), [&](StoreWriter& w) -> Result<AiSettings> {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    LC_ASSIGN_OR_RETURN(AiSettings current, LoadAiSettings(w, p.shopId));
    LC_ASSIGN_OR_RETURN(AiSettings next, ParseAiSettings(patchJson, current));
    LC_RETURN_IF_ERROR(w.PutShopDocument(p.shopId, kAiSettingsDoc, AiSettingsJson(next)));
    return next;
  });
}

Result<std::vector<CatalogHit>> KnowledgeService::SearchCatalog(const Principal& p, const std::string& kind,
                                                           std::string_view query, int limit,
                                                           const std::string& parentId) {
  auto terms = SearchTerms(query);
  if (terms.empty()) return Invalid("query must contain at least one word");
  return ReadValue<std::vector<CatalogHit>>(ctx_.store(), [&](StoreReader& r) {
    return parentId.empty() ? r.SearchCatalog(p.shopId, kind, terms, limit)
                            : r.SearchCatalogChildren(p.shopId, kind, parentId, terms, limit);
  });
}

Result<CatalogItem> KnowledgeService::FindDiscountByCode(const Principal& p, const std::string& code) {
  std::string key;
  for (char c : Trim(code)) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ReadValue<CatalogItem>(ctx_.store(), [&](StoreReader& r) -> Result<CatalogItem> {
    LC_ASSIGN_OR_RETURN(auto item, r.FindCatalogItemByKey(p.shopId, catalog_kind::kDiscount, key));
    if (!item) return MakeError(ErrorCode::kNotFound, "no discount has the code " + code);
    return std::move(*item);
  });
}

Result<CatalogItem> KnowledgeService::GetCatalogItem(const Principal& p, const std::string& kind, const std::string& id) {
  return ReadValue<CatalogItem>(ctx_.store(), [&](StoreReader& r) -> Result<CatalogItem> {
    LC_ASSIGN_OR_RETURN(auto item, r.GetCatalogItem(p.shopId, kind, id));
    if (!item) return NotFound(kind == catalog_kind::kProductFaq ? "product FAQ" : kind);
    return std::move(*item);
  });
}

Result<std::vector<CatalogItem>> KnowledgeService::ListCatalogItems(const Principal& p, const std::string& kind,
                                                               const std::string& parentId, int limit) {
  return ReadValue<std::vector<CatalogItem>>(
      ctx_.store(), [&](StoreReader& r) { return r.ListCatalogItems(p.shopId, kind, parentId, "", limit); });
}

Result<CatalogItem> KnowledgeService::FindOrder(const Principal& p, const std::optional<std::string>& orderNumber,
                                           const std::optional<std::string>& trackingNumber,
                                           const std::optional<std::string>& email) {
  const bool byNumber = orderNumber && !OrderKey(*orderNumber).empty();
  const bool byTracking = trackingNumber && !OrderKey(*trackingNumber).empty();
  if (!byNumber && !byTracking) return Invalid("give orderNumber or trackingNumber");
  if ((orderNumber && orderNumber->size() > 100) || (trackingNumber && trackingNumber->size() > 100))
    return Invalid("orderNumber and trackingNumber are at most 100 characters");
  return ReadValue<CatalogItem>(ctx_.store(), [&](StoreReader& r) -> Result<CatalogItem> {
    std::optional<CatalogItem> item;
    if (byNumber) {
      LC_ASSIGN_OR_RETURN(item, r.FindCatalogItemByKey(p.shopId, catalog_kind::kOrder, OrderKey(*orderNumber)));
    }
    if (!item && byTracking) {
      LC_ASSIGN_OR_RETURN(item, r.FindCatalogItemByKey(p.shopId, catalog_kind::kOrder,
                                                       "tracking:" + OrderKey(*trackingNumber)));
    }
    if (!item) return NotFound("order");
    rapidjson::Document d;
    d.Parse(item->dataJson.c_str());
    if (email && !email->empty()) {
      // The order's email must match: an order number alone is guessable,
      // so a mismatch reads as "not found" rather than confirming the order.
      const auto& e = d["email"];
      if (!e.IsString() || OrderKey(e.GetString()) != OrderKey(*email)) return NotFound("order");
      return std::move(*item);
    }
    // No email: status and tracking, but not who ordered.
    d["email"].SetNull();
    d["customerName"].SetNull();
    item->dataJson = Compact(d);
    return std::move(*item);
  });
}

Result<std::optional<std::string>> KnowledgeService::GetKnowledgeDocument(const Principal& p, const std::string& name) {
  if (name != "size_chart" && name != "loyalty_program") return Invalid("unknown knowledge document " + name);
  return ReadValue<std::optional<std::string>>(ctx_.store(),
                                               [&](StoreReader& r) { return r.GetShopDocument(p.shopId, name); });
}

Result<std::string> KnowledgeService::ChangeCart(
    const Principal& p, const std::string& conversationId,
    const std::function<Result<std::string>(const std::string& lines)>& change) {
  auto load = [&](StoreReader& r, std::string* convId) -> Result<std::string> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(r, p.shopId, conversationId));
    *convId = c.id;
    LC_ASSIGN_OR_RETURN(auto item, r.GetCatalogItem(p.shopId, catalog_kind::kCart, c.id));
    return item ? item->dataJson : std::string("[]");
  };
  if (!change) {
    LC_RETURN_IF_ERROR(RequireReadConversations(p));
    return ReadValue<std::string>(ctx_.store(), [&](StoreReader& r) {
      std::string id;
      return load(r, &id);
    });
  }
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  const Millis now = ctx_.clock->NowMillis();
  return WriteValue<std::string>(ctx_.store(), [&](StoreWriter& w) -> Result<std::string> {
    std::string convId;
    LC_ASSIGN_OR_RETURN(std::string current, load(w, &convId));
    LC_ASSIGN_OR_RETURN(std::string next, change(current));
    CatalogItem item;
    item.shopId = p.shopId;
    item.kind = catalog_kind::kCart;
    item.id = convId;
    item.dataJson = next;
    item.updatedAt = now;
    LC_RETURN_IF_ERROR(w.PutCatalogItem(item, {}));
    return next;
  });
}

Result<Cart> KnowledgeService::ManageCart(const Principal& p, const std::string& conversationId,
                                     const std::optional<CartChange>& change) {
  const ProductSource product = [&](const std::string& id) -> Result<std::string> {
    LC_ASSIGN_OR_RETURN(CatalogItem item, GetCatalogItem(p, catalog_kind::kProduct, id));
    return item.dataJson;
  };
  std::function<Result<std::string>(const std::string&)> apply;  // none: a read
  if (change) apply = [&](const std::string& current) { return ApplyCartChange(current, *change, product); };
  Cart cart;
  LC_ASSIGN_OR_RETURN(cart.linesJson, ChangeCart(p, conversationId, apply));
  cart.totals = ComputeCartTotals(cart.linesJson);
  return cart;
}

Result<CatalogItem> KnowledgeService::CreateKnowledgeEntry(const Principal& p, const std::optional<std::string>& question,
                                                      const std::optional<std::string>& answer) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageKnowledge));
  LC_RETURN_IF_ERROR(CheckText(question, "question", 500));
  LC_RETURN_IF_ERROR(CheckText(answer, "answer", 5000));
  LC_ASSIGN_OR_RETURN(CatalogRecord rec, NormalizeKnowledgeEntry(*question, *answer, ctx_.random->Uuid()));
  rec.item.shopId = p.shopId;
  rec.item.updatedAt = ctx_.clock->NowMillis();
  LC_RETURN_IF_ERROR(ctx_.store().Write([&](StoreWriter& w) { return w.PutCatalogItem(rec.item, rec.keys); }));
  return rec.item;
}

Result<CatalogItem> KnowledgeService::CreateSupportRequest(const Principal& p, const std::string& conversationId,
                                                      const SupportRequestInput& in) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  static const char* kTypes[] = {"return", "refund", "cancel", "edit"};
  bool typeOk = false;
  for (const char* t : kTypes) typeOk = typeOk || (in.type && *in.type == t);
  if (!typeOk) return Invalid("type must be one of return, refund, cancel, edit");
  LC_RETURN_IF_ERROR(CheckText(in.orderNumber, "orderNumber", 50));
  LC_RETURN_IF_ERROR(CheckText(in.reason, "reason", 1000));
  if (in.details) LC_RETURN_IF_ERROR(CheckText(in.details, "details", 5000, true));
  const Millis now = ctx_.clock->NowMillis();
  return WriteValue<CatalogItem>(ctx_.store(), [&](StoreWriter& w) -> Result<CatalogItem> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, conversationId));
    LC_ASSIGN_OR_RETURN(auto order, w.FindCatalogItemByKey(p.shopId, catalog_kind::kOrder, OrderKey(*in.orderNumber)));
    if (!order) return NotFound("order " + *in.orderNumber);
    CatalogItem item;
    item.shopId = p.shopId;
    item.kind = catalog_kind::kSupportRequest;
    item.id = ctx_.random->Uuid();
    item.parentId = c.id;
    item.title = *in.type + " " + order->title;
    item.body = *in.reason;
    item.updatedAt = now;
    item.dataJson = JsonObject()
                        .Str("id", item.id)
                        .Str("conversationId", c.id)
                        .Str("type", *in.type)
                        .Str("orderNumber", order->title)
                        .Str("orderId", order->id)
                        .Str("reason", *in.reason)
                        .Str("details", in.details)
                        .Str("status", "open")
                        .Str("createdAt", FormatIso8601(now))
                        .Done();
    LC_RETURN_IF_ERROR(w.PutCatalogItem(item, {}));
    // Agents see the request in the conversation as an internal note.
    Message m;
    m.id = ctx_.random->TimeOrderedUuid(now);
    m.conversationId = c.id;
    m.shopId = p.shopId;
    m.senderType = "system";
    m.senderName = "AI assistant";
    m.isNote = true;
    m.isBot = true;
    m.isAutomated = true;
    m.isAdmin = true;
    m.createdAt = now;
    m.text = fmt::format("After-sale request ({}) for order {}: {}{}", *in.type, order->title, *in.reason,
                         in.details && !in.details->empty() ? " (" + *in.details + ")" : "");
    m.text = TruncateUtf8(m.text, static_cast<std::size_t>(ctx_.limits().messageTextMax));
    LC_RETURN_IF_ERROR(w.InsertMessage(m));
    c.messageCount = c.messageCount.value_or(0) + 1;
    c.updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c));
    if (!ok) return NotFound("conversation");
    return item;
  });
}

Result<std::string> KnowledgeService::GetSettingsArea(const Principal& p, const std::string& area) {
  LC_RETURN_IF_ERROR(RequireAnySetting(p));
  const Area* a = FindArea(area);
  if (!a) return Invalid("area must be one of " + AreaNames());
  return ReadValue<std::string>(ctx_.store(), [&](StoreReader& r) -> Result<std::string> {
    if (!a->defaults) {
      LC_ASSIGN_OR_RETURN(AiSettings s, LoadAiSettings(r, p.shopId));
      return SwitchArea(area, s);
    }
    LC_ASSIGN_OR_RETURN(auto doc, r.GetShopDocument(p.shopId, "settings." + area));
    return doc ? *doc : std::string(a->defaults);
  });
}

Result<std::string> KnowledgeService::UpdateSettingsArea(const Principal& p, const std::string& area,
                                                    std::string_view patchJson) {
  const Area* a = FindArea(area);
  if (!a) return Invalid("area must be one of " + AreaNames());
  if (area == "widget") {
    if (!p.Has(kPermManageWidgetSettings) && !p.Has(kPermManageAllSettings))
      return MakeError(ErrorCode::kForbidden,
                       "this API key lacks the \"Manage widget settings\" permission (or \"Manage all settings\")");
  } else {
    LC_RETURN_IF_ERROR(Require(p, kPermManageAllSettings));
  }
  rapidjson::Document patch;
  patch.Parse(patchJson.data(), patchJson.size());
  if (patch.HasParseError() || !patch.IsObject()) return Invalid("settings must be a JSON object");
  if (patch.MemberCount() == 0) return Invalid("settings must name at least one field");
  for (const auto& m : patch.GetObject()) {
    const AreaField* f = nullptr;
    for (const auto& cand : a->fields)
      if (std::string_view(m.name.GetString()) == cand.name) f = &cand;
    if (!f) {
      std::string names;
      for (const auto& cand : a->fields) names += (names.empty() ? "" : ", ") + std::string(cand.name);
      return Invalid(fmt::format("{} is not a public setting of the {} area (fields: {})", m.name.GetString(), area,
                                 names));
    }
    LC_RETURN_IF_ERROR(CheckAreaValue(*a, *f, m.value));
  }
  return WriteValue<std::string>(ctx_.store(), [&](StoreWriter& w) -> Result<std::string> {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    if (!a->defaults) {
      // training / skills: the tool switches. The patch keys are the area's
      // field names, nested under the AI settings section they belong to.
      LC_ASSIGN_OR_RETURN(AiSettings current, LoadAiSettings(w, p.shopId));
      std::string wrapped =
          fmt::format(R"({{"{}":{}}})", area == "training" ? "trainingData" : "skills", Compact(patch));
      LC_ASSIGN_OR_RETURN(AiSettings next, ParseAiSettings(wrapped, current));
      LC_RETURN_IF_ERROR(w.PutShopDocument(p.shopId, kAiSettingsDoc, AiSettingsJson(next)));
      return SwitchArea(area, next);
    }
    LC_ASSIGN_OR_RETURN(auto doc, w.GetShopDocument(p.shopId, "settings." + area));
    rapidjson::Document cur;
    cur.Parse(doc ? doc->c_str() : a->defaults);
    for (auto& m : patch.GetObject()) {
      rapidjson::Value v(m.value, cur.GetAllocator());
      auto it = cur.FindMember(m.name.GetString());
      if (it != cur.MemberEnd()) it->value = v;
      else cur.AddMember(rapidjson::Value(m.name.GetString(), cur.GetAllocator()), v, cur.GetAllocator());
    }
    std::string out = Compact(cur);
    LC_RETURN_IF_ERROR(w.PutShopDocument(p.shopId, "settings." + area, out));
    return out;
  });
}

Result<SetupStatus> KnowledgeService::GetSetupStatus(const Principal& p) {
  LC_RETURN_IF_ERROR(Require(p, kPermReadSetupStatus));
  return ReadValue<SetupStatus>(ctx_.store(), [&](StoreReader& r) -> Result<SetupStatus> {
    SetupStatus s;
    LC_ASSIGN_OR_RETURN(AiSettings ai, LoadAiSettings(r, p.shopId));
    LC_ASSIGN_OR_RETURN(auto knowledge, r.CountCatalogItems(p.shopId, catalog_kind::kKnowledge));
    LC_ASSIGN_OR_RETURN(auto faqs, r.CountCatalogItems(p.shopId, catalog_kind::kProductFaq));
    LC_ASSIGN_OR_RETURN(auto products, r.CountCatalogItems(p.shopId, catalog_kind::kProduct));
    LC_ASSIGN_OR_RETURN(s.scenarioCount, r.CountCatalogItems(p.shopId, catalog_kind::kScenario));
    LC_ASSIGN_OR_RETURN(auto widget, r.GetShopDocument(p.shopId, "settings.widget"));
    LC_ASSIGN_OR_RETURN(auto members, r.ListMembers(p.shopId));
    LC_ASSIGN_OR_RETURN(auto subs, r.ListSubscriptions(p.shopId));
    s.trainingCount = knowledge + faqs;
    s.checklist = {{"customize_widget", widget.has_value()},
                   {"add_knowledge", knowledge > 0},
                   {"import_products", products > 0},
                   {"train_on_products", ai.trainProducts && products > 0},
                   {"invite_team", members.size() > 1},
                   {"connect_webhooks", !subs.empty()}};
    if (ai.skillSizeGuide) s.enabledSkills.push_back("size_guide");
    if (ai.skillOrderTracking) s.enabledSkills.push_back("order_tracking");
    if (ai.skillAfterSaleSupport) s.enabledSkills.push_back("after_sale_support");
    if (ai.skillHumanAgentTransfer) s.enabledSkills.push_back("human_agent_transfer");
    return s;
  });
}

Result<std::vector<Conversation>> KnowledgeService::ListPlaygroundConversations(const Principal& p, std::int64_t limit) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  if (limit < 1) return Invalid("limit must be at least 1");
  ConversationQuery q;
  q.shopId = p.shopId;
  q.channel = "playground";
  q.limit = static_cast<int>(std::min<std::int64_t>(limit, 1'000'000'000));
  return ReadValue<std::vector<Conversation>>(ctx_.store(), [&](StoreReader& r) { return r.ListConversations(q); });
}

}  // namespace livechat
