// The tools. Each has an input schema (checked before it runs, by the same
// schema tools/list publishes), an output schema its structuredContent
// conforms to, a gate (the spec's table) and a body that talks to ChatService.
#include "mcp/tools.h"

#include "mcp/json_schema.h"
#include "livechat/shopping.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <fmt/format.h>

#include "livechat/json_codec.h"

namespace livechat::mcp {
namespace {

using rapidjson::Value;

// ---- small helpers ----

std::string Quote(std::string_view s) {
  std::string out;
  AppendJsonString(out, s);
  return out;
}

// {"k": v, ...} from already-serialized values.
std::string Obj(std::initializer_list<std::pair<const char*, std::string>> fields) {
  std::string out = "{";
  for (const auto& [k, v] : fields) {
    if (out.size() > 1) out += ',';
    AppendJsonString(out, k);
    out += ':';
    out += v;
  }
  return out + "}";
}

template <typename It, typename Fn>
std::string Arr(It begin, It end, Fn fn) {
  std::string out = "[";
  for (auto it = begin; it != end; ++it) {
    if (out.size() > 1) out += ',';
    out += fn(*it);
  }
  return out + "]";
}

ToolOutcome Ok(std::string json) { return ToolOutcome{true, std::move(json), ""}; }
ToolOutcome Fail(std::string message) { return ToolOutcome{false, "", std::move(message)}; }

// A ChatService error as a message an agent can act on. The server's own
// failures are logged here and told only by their public message: a storage
// message (SQL, paths) must not reach a model's context.
ToolOutcome FromError(const Error& e) {
  if (IsServerFault(e)) std::fprintf(stderr, "livechat mcp: %s: %s\n", PublicMessage(e).data(), e.message.c_str());
  return Fail(fmt::format("{}: {}", ErrorCodeName(e.code), PublicMessage(e)));
}

std::string Str(const Value& args, const char* key) {
  auto it = args.FindMember(key);
  return it != args.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString(), it->value.GetStringLength())
                                                        : std::string();
}
std::optional<std::string> OptStr(const Value& args, const char* key) {
  auto it = args.FindMember(key);
  if (it == args.MemberEnd() || !it->value.IsString()) return std::nullopt;
  return std::string(it->value.GetString(), it->value.GetStringLength());
}
std::int64_t Int(const Value& args, const char* key, std::int64_t def) {
  auto it = args.FindMember(key);
  if (it == args.MemberEnd() || !it->value.IsNumber()) return def;
  return it->value.IsInt64() ? it->value.GetInt64() : static_cast<std::int64_t>(it->value.GetDouble());
}

// A stored record with extra members appended (e.g. relevance).
std::string WithExtra(const std::string& recordJson, const std::string& extraKey, const std::string& extraJson) {
  if (recordJson.size() < 2) return recordJson;
  std::string out = recordJson.substr(0, recordJson.size() - 1);
  if (out.size() > 1) out += ',';
  AppendJsonString(out, extraKey);
  out += ':' + extraJson + '}';
  return out;
}

std::string Relevance(double r) { return fmt::format("{:.4f}", r); }

// ---- gates (the spec's table) ----

// The plan entitlements and their refusals are the core's (core/shopping.h).
std::string Always(const ToolContext&) { return ""; }
std::string NeedProducts(const ToolContext& c) {
  return c.ai.trainProducts ? "" : "turn on training data: products in the AI settings";
}
std::string NeedCollections(const ToolContext& c) {
  return c.ai.trainCollections ? "" : "turn on training data: collections in the AI settings";
}
std::string NeedDiscounts(const ToolContext& c) {
  return c.ai.trainDiscounts ? "" : "turn on training data: discounts in the AI settings";
}
std::string NeedSizeGuide(const ToolContext& c) {
  if (!c.ai.skillSizeGuide) return "turn on the size guide skill in the AI settings";
  return PlanAllowsSizeGuide(c.shop.plan) ? "" : std::string(kSizeGuidePlanRefusal);
}
std::string NeedOrderTracking(const ToolContext& c) {
  if (!c.ai.skillOrderTracking) return "turn on the order tracking skill in the AI settings";
  return PlanAllowsOrderTracking(c.shop.plan) ? "" : std::string(kOrderTrackingPlanRefusal);
}
std::string NeedAfterSale(const ToolContext& c) {
  return c.ai.skillAfterSaleSupport ? "" : "turn on the after-sale support skill in the AI settings";
}
std::string NeedTransfer(const ToolContext& c) {
  return c.ai.skillHumanAgentTransfer ? "" : "turn on the human agent transfer skill in the AI settings";
}
std::string NeedLoyalty(const ToolContext& c) {
  if (c.ai.loyaltyPartner.empty()) return "connect a loyalty partner first";
  return PlanAllowsLoyalty(c.shop.plan) ? "" : std::string(kLoyaltyPlanRefusal);
}
std::string NeedSetupStatus(const ToolContext& c) {
  return c.principal.Has(kPermReadSetupStatus) ? "" : "the API key lacks the \"Read setup status\" permission";
}
std::string NeedReadSettings(const ToolContext& c) {
  const Principal& p = c.principal;
  return p.Has(kPermReadSettings) || p.Has(kPermManageWidgetSettings) || p.Has(kPermManageAllSettings)
             ? ""
             : "the API key lacks the \"Read settings\" permission";
}
std::string NeedWriteSettings(const ToolContext& c) {
  const Principal& p = c.principal;
  return p.Has(kPermManageWidgetSettings) || p.Has(kPermManageAllSettings)
             ? ""
             : "the API key lacks the \"Manage widget settings\" or \"Manage all settings\" permission";
}
std::string NeedKnowledge(const ToolContext& c) {
  return c.principal.Has(kPermManageKnowledge) ? ""
                                               : "the API key lacks the \"Manage knowledge and training\" permission";
}

// ---- schemas ----
// Input and output schemas, JSON Schema 2020-12 (the MCP default dialect).

constexpr const char* kConvId = R"J({"type":"string","minLength":1,"maxLength":200,"description":"The conversation's id (any of its id forms)"})J";
constexpr const char* kLimit20 = R"J({"type":"integer","minimum":1,"maximum":20,"description":"Results at most (default 5)"})J";

const std::string kMessageOut = R"({"type":"object","required":["id","text","senderType","senderName","isBot","isNote","isTransfer","createdAt"],"properties":{"id":{"type":"string"},"text":{"type":"string"},"senderType":{"type":"string","enum":["customer","agent","bot","system"]},"senderName":{"type":"string"},"isBot":{"type":"boolean"},"isNote":{"type":"boolean"},"isTransfer":{"type":"boolean"},"createdAt":{"type":"string"}}})";
const std::string kConversationOut = R"({"type":"object","required":["id","status","channels","tags","isChatBot","hasChatBot"],"properties":{"id":{"type":"string"},"status":{"type":"string"},"channels":{"type":"array","items":{"type":"string"}},"tags":{"type":"array","items":{"type":"string"}},"isChatBot":{"type":"boolean"},"hasChatBot":{"type":"boolean"},"memberId":{"type":["string","null"]}}})";
const std::string kMoneyOut = R"({"type":["string","null"]})";
const std::string kProductOut = R"({"type":"object","required":["id","title","variants"],"properties":{"id":{"type":"string"},"title":{"type":"string"},"description":{"type":["string","null"]},"url":{"type":["string","null"]},"currency":{"type":["string","null"]},"tags":{"type":"array","items":{"type":"string"}},"variants":{"type":"array","items":{"type":"object","required":["id","price"],"properties":{"id":{"type":"string"},"title":{"type":["string","null"]},"price":{"type":"string"},"inventory":{"type":["integer","null"]},"available":{"type":"boolean"}}}},"relevance":{"type":"number"}}})";
const std::string kFaqOut = R"({"type":"object","required":["id","question","answer"],"properties":{"id":{"type":"string"},"question":{"type":"string"},"answer":{"type":"string"},"productId":{"type":"string"},"productTitle":{"type":"string"},"relevance":{"type":"number"}}})";

std::string Schema(const std::string& props, const std::string& required) {
  return R"({"type":"object","properties":)" + props + R"(,"required":)" + required + R"(,"additionalProperties":false})";
}
std::string OutSchema(const std::string& props, const std::string& required) {
  return R"({"type":"object","properties":)" + props + R"(,"required":)" + required + "}";
}

// ---- tool bodies ----

ToolOutcome SendMessage(const ToolContext& c, const Value& a) {
  SendMessageInput in;
  in.text = Str(a, "text");
  in.asBot = true;
  auto m = c.service.conversations().SendMessage(c.principal, Str(a, "conversationId"), in);
  if (!m.ok()) return FromError(m.error());
  return Ok(Obj({{"message", ToJson(*m, JsonView::kDetail)}}));
}

ToolOutcome FaqRetrieval(const ToolContext& c, const Value& a) {
  auto hits = c.service.knowledge().SearchCatalog(c.principal, catalog_kind::kKnowledge, Str(a, "query"),
                                      static_cast<int>(Int(a, "limit", 5)));
  if (!hits.ok()) return FromError(hits.error());
  return Ok(Obj({{"query", Quote(Str(a, "query"))},
                 {"results", Arr(hits->begin(), hits->end(), [](const CatalogHit& h) {
                    return WithExtra(h.item.dataJson, "relevance", Relevance(h.relevance));
                  })}}));
}

ToolOutcome AddNote(const ToolContext& c, const Value& a) {
  auto n = c.service.annotations().CreateNote(c.principal, Str(a, "conversationId"), Str(a, "text"));
  if (!n.ok()) return FromError(n.error());
  return Ok(Obj({{"note", ToJson(*n)}}));
}

ToolOutcome UpdateTags(const ToolContext& c, const Value& a) {
  std::vector<std::string> tags;
  for (const auto& t : a["tags"].GetArray()) tags.emplace_back(t.GetString(), t.GetStringLength());
  auto out = c.service.annotations().ReplaceTags(c.principal, Str(a, "conversationId"), tags);
  if (!out.ok()) return FromError(out.error());
  auto conv = c.service.conversations().GetConversation(c.principal, Str(a, "conversationId"));
  if (!conv.ok()) return FromError(conv.error());
  return Ok(Obj({{"conversationId", Quote(conv->conversation.id)},
                 {"tags", Arr(out->begin(), out->end(), [](const std::string& t) { return Quote(t); })}}));
}

ToolOutcome AssignMember(const ToolContext& c, const Value& a) {
  // JSON presence and null become the core's tri-state (the schema already
  // makes memberId a string or null); the core decides what absent means.
  using Target = ConversationService::AssignTarget;
  auto it = a.FindMember("memberId");
  const Target target = it == a.MemberEnd()       ? Target::Absent()
                        : it->value.IsString() ? Target::Member(it->value.GetString())
                                               : Target::Unassign();
  auto conv = c.service.conversations().Assign(c.principal, Str(a, "conversationId"), target);
  if (!conv.ok()) return FromError(conv.error());
  return Ok(Obj({{"conversationId", Quote(conv->id)},
                 {"memberId", conv->memberId ? Quote(*conv->memberId) : "null"}}));
}

ToolOutcome ListMembers(const ToolContext& c, const Value&) {
  auto members = c.service.directory().ListMembers(c.principal);
  if (!members.ok()) return FromError(members.error());
  return Ok(Obj({{"members", Arr(members->begin(), members->end(), [](const Member& m) { return ToJson(m); })}}));
}

ToolOutcome ListConversations(const ToolContext& c, const Value& a) {
  auto convs = c.service.knowledge().ListPlaygroundConversations(c.principal, Int(a, "limit", 20));
  if (!convs.ok()) return FromError(convs.error());
  return Ok(Obj({{"conversations", Arr(convs->begin(), convs->end(), [](const Conversation& v) {
                    return ToJson(v, JsonView::kList);
                  })}}));
}

ToolOutcome RegisterWebhook(const ToolContext& c, const Value& a) {
  CreateWebhookInput in;
  in.url = Str(a, "url");
  std::vector<std::string> events;
  for (const auto& e : a["events"].GetArray()) events.emplace_back(e.GetString());
  in.events = events;
  if (auto m = a.FindMember("metadata"); m != a.MemberEnd()) in.metadataJson = CompactJson(m->value);
  auto sub = c.service.webhooks().CreateWebhook(c.principal, in);
  if (!sub.ok()) return FromError(sub.error());
  return Ok(Obj({{"subscription", ToJson(*sub)}, {"secret", Quote(sub->secret)}}));
}

ToolOutcome ProductLookup(const ToolContext& c, const Value& a) {
  std::vector<std::string> out;
  if (auto id = OptStr(a, "productId")) {
    auto item = c.service.knowledge().GetCatalogItem(c.principal, catalog_kind::kProduct, *id);
    if (!item.ok()) return FromError(item.error());
    out.push_back(item->dataJson);
  } else if (auto q = OptStr(a, "query")) {
    auto hits = c.service.knowledge().SearchCatalog(c.principal, catalog_kind::kProduct, *q, static_cast<int>(Int(a, "limit", 5)));
    if (!hits.ok()) return FromError(hits.error());
    for (const auto& h : *hits) out.push_back(WithExtra(h.item.dataJson, "relevance", Relevance(h.relevance)));
  } else {
    return Fail("INVALID_PARAMS: give query (words to search for) or productId");
  }
  return Ok(Obj({{"products", Arr(out.begin(), out.end(), [](const std::string& s) { return s; })}}));
}

ToolOutcome ProductFaqLookup(const ToolContext& c, const Value& a) {
  const auto productId = OptStr(a, "productId");
  const auto query = OptStr(a, "query");
  const int limit = static_cast<int>(Int(a, "limit", 5));
  std::vector<std::string> out;
  if (query) {
    // Searched across products, or within one product's entries (filtered
    // inside the index, before ranking and the limit).
    if (productId) {
      auto product = c.service.knowledge().GetCatalogItem(c.principal, catalog_kind::kProduct, *productId);
      if (!product.ok()) return FromError(product.error());
    }
    auto hits = c.service.knowledge().SearchCatalog(c.principal, catalog_kind::kProductFaq, *query, limit, productId.value_or(""));
    if (!hits.ok()) return FromError(hits.error());
    for (const auto& h : *hits) out.push_back(WithExtra(h.item.dataJson, "relevance", Relevance(h.relevance)));
  } else if (productId) {
    auto product = c.service.knowledge().GetCatalogItem(c.principal, catalog_kind::kProduct, *productId);
    if (!product.ok()) return FromError(product.error());
    auto items = c.service.knowledge().ListCatalogItems(c.principal, catalog_kind::kProductFaq, *productId, limit);
    if (!items.ok()) return FromError(items.error());
    for (const auto& i : *items) out.push_back(i.dataJson);
  } else {
    return Fail("INVALID_PARAMS: give productId, query, or both");
  }
  return Ok(Obj({{"faqs", Arr(out.begin(), out.end(), [](const std::string& s) { return s; })}}));
}

// A cart: {"conversationId", "items": [...], "itemCount", "subtotal", "currency"}.
// The cart rules and totals are the core's (KnowledgeService::ManageCart); this
// parses the tool's arguments and formats the result.
ToolOutcome ManageCart(const ToolContext& c, const Value& a) {
  const std::string convId = Str(a, "conversationId");
  std::optional<CartChange> change;
  if (Str(a, "action") != "get")
    change = CartChange{Str(a, "action"), Str(a, "productId"), Str(a, "variantId"), Int(a, "quantity", 1)};
  auto cart = c.service.knowledge().ManageCart(c.principal, convId, change);
  if (!cart.ok()) {
    // Stock and availability carry their own code in the message.
    if (cart.error().code == ErrorCode::kConflict) return Fail(cart.error().message);
    return FromError(cart.error());
  }
  const CartTotals& totals = cart->totals;
  return Ok(Obj({{"cart", Obj({{"conversationId", Quote(convId)},
                               {"items", cart->linesJson},
                               {"itemCount", std::to_string(totals.itemCount)},
                               {"subtotal", Quote(totals.subtotal)},
                               {"currency", Quote(totals.currency)}})}}));
}

ToolOutcome CollectionLookup(const ToolContext& c, const Value& a) {
  std::vector<std::string> out;
  if (auto id = OptStr(a, "collectionId")) {
    auto item = c.service.knowledge().GetCatalogItem(c.principal, catalog_kind::kCollection, *id);
    if (!item.ok()) return FromError(item.error());
    out.push_back(item->dataJson);
  } else if (auto q = OptStr(a, "query")) {
    auto hits =
        c.service.knowledge().SearchCatalog(c.principal, catalog_kind::kCollection, *q, static_cast<int>(Int(a, "limit", 5)));
    if (!hits.ok()) return FromError(hits.error());
    for (const auto& h : *hits) out.push_back(WithExtra(h.item.dataJson, "relevance", Relevance(h.relevance)));
  } else {
    auto all = c.service.knowledge().ListCatalogItems(c.principal, catalog_kind::kCollection, "", static_cast<int>(Int(a, "limit", 5)));
    if (!all.ok()) return FromError(all.error());
    for (const auto& i : *all) out.push_back(i.dataJson);
  }
  return Ok(Obj({{"collections", Arr(out.begin(), out.end(), [](const std::string& s) { return s; })}}));
}

ToolOutcome DiscountLookup(const ToolContext& c, const Value& a) {
  std::vector<CatalogItem> found;
  if (auto code = OptStr(a, "code")) {
    auto item = c.service.knowledge().FindDiscountByCode(c.principal, *code);
    if (!item.ok()) return FromError(item.error());
    found.push_back(std::move(*item));
  } else if (auto q = OptStr(a, "query")) {
    auto hits = c.service.knowledge().SearchCatalog(c.principal, catalog_kind::kDiscount, *q, static_cast<int>(Int(a, "limit", 5)));
    if (!hits.ok()) return FromError(hits.error());
    for (auto& h : *hits) found.push_back(std::move(h.item));
  } else {
    auto all = c.service.knowledge().ListCatalogItems(c.principal, catalog_kind::kDiscount, "", static_cast<int>(Int(a, "limit", 5)));
    if (!all.ok()) return FromError(all.error());
    found = std::move(*all);
  }
  // Whether a discount applies now is computed at read time from its dates.
  const std::string now = FormatIso8601(c.service.clock().NowMillis());
  std::vector<std::string> out;
  for (const auto& item : found)
    out.push_back(WithExtra(item.dataJson, "active", DiscountActiveAt(item.dataJson, now) ? "true" : "false"));
  return Ok(Obj({{"discounts", Arr(out.begin(), out.end(), [](const std::string& s) { return s; })}}));
}

ToolOutcome SizeGuide(const ToolContext& c, const Value&) {
  auto chart = c.service.knowledge().GetKnowledgeDocument(c.principal, "size_chart");
  if (!chart.ok()) return FromError(chart.error());
  if (!*chart) return Fail("NOT_FOUND: this store has no size chart; answer without one or hand over to a person");
  return Ok(Obj({{"sizeChart", **chart}}));
}

ToolOutcome CheckOrder(const ToolContext& c, const Value& a) {
  auto order = c.service.knowledge().FindOrder(c.principal, OptStr(a, "orderNumber"), OptStr(a, "trackingNumber"), OptStr(a, "email"));
  if (!order.ok()) {
    if (order.error().code == ErrorCode::kNotFound)
      return Fail("NOT_FOUND: no order matches; ask the shopper to check the order number (e.g. #1001) or tracking "
                  "number and the email used at checkout");
    return FromError(order.error());
  }
  return Ok(Obj({{"order", order->dataJson}}));
}

ToolOutcome CustomerSupport(const ToolContext& c, const Value& a) {
  SupportRequestInput in;
  in.type = OptStr(a, "type");
  in.orderNumber = OptStr(a, "orderNumber");
  in.reason = OptStr(a, "reason");
  in.details = OptStr(a, "details");
  auto req = c.service.knowledge().CreateSupportRequest(c.principal, Str(a, "conversationId"), in);
  if (!req.ok()) return FromError(req.error());
  return Ok(Obj({{"request", req->dataJson}}));
}

ToolOutcome HumanTransfer(const ToolContext& c, const Value& a) {
  SendMessageInput in;
  in.text = OptStr(a, "message").value_or("I'm connecting you with a member of our team. They will reply here shortly.");
  in.asBot = true;
  in.isTransfer = true;
  auto m = c.service.conversations().SendMessage(c.principal, Str(a, "conversationId"), in);
  if (!m.ok()) return FromError(m.error());
  auto conv = c.service.conversations().GetConversation(c.principal, Str(a, "conversationId"));
  if (!conv.ok()) return FromError(conv.error());
  return Ok(Obj({{"conversation", ToJson(conv->conversation, JsonView::kList)},
                 {"message", ToJson(*m, JsonView::kDetail)}}));
}

ToolOutcome Loyalty(const ToolContext& c, const Value& a) {
  auto program = c.service.knowledge().GetKnowledgeDocument(c.principal, "loyalty_program");
  if (!program.ok()) return FromError(program.error());
  std::string account = "null";
  auto acc = c.service.knowledge().GetCatalogItem(c.principal, catalog_kind::kLoyaltyAccount, LoyaltyAccountId(Str(a, "email")));
  if (acc.ok()) account = acc->dataJson;
  else if (acc.error().code != ErrorCode::kNotFound) return FromError(acc.error());
  return Ok(Obj({{"partner", Quote(c.ai.loyaltyPartner)},
                 {"account", account},
                 {"program", program->value_or(R"({"tiers":[],"rewards":[]})")}}));
}

ToolOutcome SetupStatusTool(const ToolContext& c, const Value&) {
  auto s = c.service.knowledge().GetSetupStatus(c.principal);
  if (!s.ok()) return FromError(s.error());
  return Ok(Obj({{"checklist", Arr(s->checklist.begin(), s->checklist.end(),
                                   [](const auto& step) {
                                     return Obj({{"step", Quote(step.first)}, {"done", step.second ? "true" : "false"}});
                                   })},
                 {"trainingCount", std::to_string(s->trainingCount)},
                 {"scenarioCount", std::to_string(s->scenarioCount)},
                 {"enabledSkills", Arr(s->enabledSkills.begin(), s->enabledSkills.end(),
                                       [](const std::string& x) { return Quote(x); })}}));
}

ToolOutcome GetSettings(const ToolContext& c, const Value& a) {
  auto s = c.service.knowledge().GetSettingsArea(c.principal, Str(a, "area"));
  if (!s.ok()) return FromError(s.error());
  return Ok(Obj({{"area", Quote(Str(a, "area"))}, {"settings", *s}}));
}

ToolOutcome UpdateSettings(const ToolContext& c, const Value& a) {
  auto s = c.service.knowledge().UpdateSettingsArea(c.principal, Str(a, "area"), CompactJson(a["settings"]));
  if (!s.ok()) return FromError(s.error());
  return Ok(Obj({{"area", Quote(Str(a, "area"))}, {"settings", *s}}));
}

ToolOutcome CreateKnowledge(const ToolContext& c, const Value& a) {
  auto e = c.service.knowledge().CreateKnowledgeEntry(c.principal, Str(a, "question"), Str(a, "answer"));
  if (!e.ok()) return FromError(e.error());
  return Ok(Obj({{"entry", e->dataJson}}));
}

Tool Make(const char* name, const char* title, const char* description, const std::string& in, const std::string& out,
          bool readOnly, std::string (*gate)(const ToolContext&), ToolOutcome (*run)(const ToolContext&, const Value&)) {
  Tool t;
  t.name = name;
  t.title = title;
  t.description = description;
  t.inputSchema.Parse(in.c_str());
  t.outputSchema.Parse(out.c_str());
  // A malformed built-in schema is a programming error caught by every test run.
  if (t.inputSchema.HasParseError() || t.outputSchema.HasParseError())
    throw std::logic_error(std::string("bad schema for tool ") + name);
  t.readOnly = readOnly;
  t.unavailable = gate;
  t.run = run;
  return t;
}

std::vector<Tool> BuildTools() {
  const std::string conv = kConvId;
  const std::string lim = kLimit20;
  std::vector<Tool> v;
  v.push_back(Make("send_message", "Send a reply", "Post a reply from the AI agent in a conversation (senderType bot).",
                   Schema(R"({"conversationId":)" + conv + R"(,"text":{"type":"string","minLength":1,"maxLength":5000}})",
                          R"(["conversationId","text"])"),
                   OutSchema(R"({"message":)" + kMessageOut + "}", R"(["message"])"), false, Always, SendMessage));
  v.push_back(Make("faq_retrieval", "Search the FAQ", "Find knowledge entries (FAQ) relevant to a question, best first.",
                   Schema(R"({"query":{"type":"string","minLength":1,"maxLength":500},"limit":)" + lim + "}",
                          R"(["query"])"),
                   OutSchema(R"({"query":{"type":"string"},"results":{"type":"array","items":)" + kFaqOut + "}}",
                             R"(["query","results"])"),
                   true, Always, FaqRetrieval));
  v.push_back(Make("add_note", "Add a checklist note", "Add a checklist note (up to 150 characters) to a conversation.",
                   Schema(R"({"conversationId":)" + conv + R"(,"text":{"type":"string","minLength":1,"maxLength":150}})",
                          R"(["conversationId","text"])"),
                   OutSchema(R"({"note":{"type":"object","required":["id","text","isUpdated","createdAt"],"properties":{"id":{"type":"string"},"text":{"type":"string"}}}})",
                             R"(["note"])"),
                   false, Always, AddNote));
  v.push_back(Make("update_tags", "Replace tags",
                   "Replace the conversation's whole tag list. Each tag is cut to 50 characters; at most 100 are kept.",
                   Schema(R"({"conversationId":)" + conv + R"(,"tags":{"type":"array","items":{"type":"string"},"maxItems":1000}})",
                          R"(["conversationId","tags"])"),
                   OutSchema(R"({"conversationId":{"type":"string"},"tags":{"type":"array","items":{"type":"string","maxLength":50},"maxItems":100}})",
                             R"(["conversationId","tags"])"),
                   false, Always, UpdateTags));
  v.push_back(Make("assign_member", "Assign or unassign",
                   "Assign the conversation to a team member, or unassign it with memberId null.",
                   Schema(R"({"conversationId":)" + conv + R"(,"memberId":{"type":["string","null"],"minLength":1,"maxLength":200}})",
                          R"(["conversationId","memberId"])"),
                   OutSchema(R"({"conversationId":{"type":"string"},"memberId":{"type":["string","null"]}})",
                             R"(["conversationId","memberId"])"),
                   false, Always, AssignMember));
  v.push_back(Make("list_members", "List team members", "The store's team members (no credentials).",
                   Schema("{}", "[]"),
                   OutSchema(R"({"members":{"type":"array","items":{"type":"object","required":["id","email","role","active"],"properties":{"id":{"type":"string"},"email":{"type":"string"},"role":{"type":"string"},"active":{"type":"boolean"}}}}})",
                             R"(["members"])"),
                   true, Always, ListMembers));
  v.push_back(Make("list_conversations", "List playground conversations",
                   "The store's test conversations from the AI playground, newest first (limit default 20, no maximum).",
                   Schema(R"({"limit":{"type":"integer","minimum":1}})", "[]"),
                   OutSchema(R"({"conversations":{"type":"array","items":)" + kConversationOut + "}}",
                             R"(["conversations"])"),
                   true, Always, ListConversations));
  v.push_back(Make("register_webhook", "Register a webhook",
                   "Subscribe an https URL to events; returns the signing secret (whsec_...).",
                   Schema(R"({"url":{"type":"string","minLength":1,"maxLength":2048},"events":{"type":"array","minItems":1,"items":{"type":"string"}},"metadata":{"type":"object"}})",
                          R"(["url","events"])"),
                   OutSchema(R"({"subscription":{"type":"object","required":["id","url","events","isActive"],"properties":{"id":{"type":"string"},"url":{"type":"string"},"events":{"type":"array","items":{"type":"string"}},"isActive":{"type":"boolean"}}},"secret":{"type":"string","pattern":"^whsec_"}})",
                             R"(["subscription","secret"])"),
                   false, Always, RegisterWebhook));
  // Switched tools (spec: Tool server table).
  v.push_back(Make("product_lookup", "Look up products",
                   "Search products by words (best first) or fetch one by productId: variants, prices, stock.",
                   Schema(R"({"query":{"type":"string","minLength":1,"maxLength":500},"productId":{"type":"string","minLength":1,"maxLength":100},"limit":)" + lim + "}", "[]"),
                   OutSchema(R"({"products":{"type":"array","items":)" + kProductOut + "}}", R"(["products"])"), true,
                   NeedProducts, ProductLookup));
  v.push_back(Make("product_faq_lookup", "Product FAQ",
                   "Questions and answers about products: one product's entries (productId), a search (query), or both.",
                   Schema(R"({"query":{"type":"string","minLength":1,"maxLength":500},"productId":{"type":"string","minLength":1,"maxLength":100},"limit":)" + lim + "}", "[]"),
                   OutSchema(R"({"faqs":{"type":"array","items":)" + kFaqOut + "}}", R"(["faqs"])"), true,
                   NeedProducts, ProductFaqLookup));
  v.push_back(Make("manage_cart", "Manage the cart",
                   "Read (get) or change (add, update, remove, clear) the conversation's cart. add/update need productId "
                   "and variantId; stock is checked.",
                   Schema(R"({"conversationId":)" + conv + R"(,"action":{"type":"string","enum":["get","add","update","remove","clear"]},"productId":{"type":"string","minLength":1,"maxLength":100},"variantId":{"type":"string","minLength":1,"maxLength":100},"quantity":{"type":"integer","minimum":1,"maximum":999}})",
                          R"(["conversationId","action"])"),
                   OutSchema(R"({"cart":{"type":"object","required":["conversationId","items","itemCount","subtotal","currency"],"properties":{"conversationId":{"type":"string"},"items":{"type":"array","items":{"type":"object","required":["productId","variantId","price","quantity"],"properties":{"productId":{"type":"string"},"variantId":{"type":"string"},"price":{"type":"string"},"quantity":{"type":"integer"}}}},"itemCount":{"type":"integer"},"subtotal":{"type":"string"},"currency":{"type":"string"}}}})",
                             R"(["cart"])"),
                   false, NeedProducts, ManageCart));
  v.push_back(Make("collection_lookup", "Look up collections",
                   "Search collections by words, fetch one by collectionId, or list them.",
                   Schema(R"({"query":{"type":"string","minLength":1,"maxLength":500},"collectionId":{"type":"string","minLength":1,"maxLength":100},"limit":)" + lim + "}", "[]"),
                   OutSchema(R"({"collections":{"type":"array","items":{"type":"object","required":["id","title","productIds"],"properties":{"id":{"type":"string"},"title":{"type":"string"},"productIds":{"type":"array","items":{"type":"string"}}}}}})",
                             R"(["collections"])"),
                   true, NeedCollections, CollectionLookup));
  v.push_back(Make("discount_lookup", "Look up discounts",
                   "Find discounts and promo codes (by code, by words, or all), with whether each is active now.",
                   Schema(R"({"query":{"type":"string","minLength":1,"maxLength":500},"code":{"type":"string","minLength":1,"maxLength":100},"limit":)" + lim + "}", "[]"),
                   OutSchema(R"({"discounts":{"type":"array","items":{"type":"object","required":["id","title","type","active"],"properties":{"id":{"type":"string"},"code":{"type":["string","null"]},"title":{"type":"string"},"type":{"type":"string"},"active":{"type":"boolean"}}}}})",
                             R"(["discounts"])"),
                   true, NeedDiscounts, DiscountLookup));
  v.push_back(Make("size_guide_lookup", "Size guide", "The store's size chart.", Schema("{}", "[]"),
                   OutSchema(R"({"sizeChart":{"type":"object","required":["columns","rows"],"properties":{"unit":{"type":["string","null"]},"columns":{"type":"array","items":{"type":"string"}},"rows":{"type":"array","items":{"type":"array","items":{"type":"string"}}}}}})",
                             R"(["sizeChart"])"),
                   true, NeedSizeGuide, SizeGuide));
  v.push_back(Make("check_order_status", "Check an order",
                   "An order's status and tracking, by order number or tracking number (email, when given, must match).",
                   Schema(R"({"orderNumber":{"type":"string","minLength":1,"maxLength":100},"trackingNumber":{"type":"string","minLength":1,"maxLength":100},"email":{"type":"string","minLength":3,"maxLength":254}})", "[]"),
                   OutSchema(R"({"order":{"type":"object","required":["id","orderNumber","fulfillmentStatus","trackingNumbers"],"properties":{"id":{"type":"string"},"orderNumber":{"type":"string"},"status":{"type":["string","null"]},"fulfillmentStatus":{"type":["string","null"]},"trackingNumbers":{"type":"array","items":{"type":"string"}}}}})",
                             R"(["order"])"),
                   true, NeedOrderTracking, CheckOrder));
  v.push_back(Make("customer_support", "After-sale request",
                   "Record a return, refund, cancel or edit request for an order; agents see it in the conversation.",
                   Schema(R"({"conversationId":)" + conv + R"(,"type":{"type":"string","enum":["return","refund","cancel","edit"]},"orderNumber":{"type":"string","minLength":1,"maxLength":50},"reason":{"type":"string","minLength":1,"maxLength":1000},"details":{"type":"string","maxLength":5000}})",
                          R"(["conversationId","type","orderNumber","reason"])"),
                   OutSchema(R"({"request":{"type":"object","required":["id","conversationId","type","orderNumber","reason","status","createdAt"],"properties":{"id":{"type":"string"},"type":{"type":"string"},"status":{"type":"string"}}}})",
                             R"(["request"])"),
                   false, NeedAfterSale, CustomerSupport));
  v.push_back(Make("human_agent_transfer", "Hand over to a person",
                   "Hand the conversation to the team: posts a transfer message and the AI agent stops handling it.",
                   Schema(R"({"conversationId":)" + conv + R"(,"message":{"type":"string","minLength":1,"maxLength":5000}})",
                          R"(["conversationId"])"),
                   OutSchema(R"({"conversation":)" + kConversationOut + R"(,"message":)" + kMessageOut + "}",
                             R"(["conversation","message"])"),
                   false, NeedTransfer, HumanTransfer));
  v.push_back(Make("partner_loyalty_lookup", "Loyalty lookup",
                   "A shopper's loyalty points and tier, and the program's tiers and rewards.",
                   Schema(R"({"email":{"type":"string","minLength":3,"maxLength":254}})", R"(["email"])"),
                   OutSchema(R"({"partner":{"type":"string"},"account":{"type":["object","null"]},"program":{"type":"object"}})",
                             R"(["partner","account","program"])"),
                   true, NeedLoyalty, Loyalty));
  // Admin tools (key permissions).
  v.push_back(Make("get_setup_status", "Setup status",
                   "The setup checklist, training count, scenario count and enabled skills.", Schema("{}", "[]"),
                   OutSchema(R"({"checklist":{"type":"array","items":{"type":"object","required":["step","done"],"properties":{"step":{"type":"string"},"done":{"type":"boolean"}}}},"trainingCount":{"type":"integer"},"scenarioCount":{"type":"integer"},"enabledSkills":{"type":"array","items":{"type":"string"}}})",
                             R"(["checklist","trainingCount","scenarioCount","enabledSkills"])"),
                   true, NeedSetupStatus, SetupStatusTool));
  const std::string area = R"({"type":"string","enum":["widget","assistant","training","skills"]})";
  v.push_back(Make("get_settings", "Read settings", "The public settings of one area.",
                   Schema(R"({"area":)" + area + "}", R"(["area"])"),
                   OutSchema(R"({"area":{"type":"string"},"settings":{"type":"object"}})", R"(["area","settings"])"),
                   true, NeedReadSettings, GetSettings));
  v.push_back(Make("update_settings", "Change settings",
                   "Change public settings fields of one area (the widget area needs Manage widget settings; the others "
                   "Manage all settings).",
                   Schema(R"({"area":)" + area + R"(,"settings":{"type":"object"}})", R"(["area","settings"])"),
                   OutSchema(R"({"area":{"type":"string"},"settings":{"type":"object"}})", R"(["area","settings"])"),
                   false, NeedWriteSettings, UpdateSettings));
  v.push_back(Make("create_knowledge_entry", "Add a knowledge entry", "Add one question and answer to the knowledge base.",
                   Schema(R"({"question":{"type":"string","minLength":1,"maxLength":500},"answer":{"type":"string","minLength":1,"maxLength":5000}})",
                          R"(["question","answer"])"),
                   OutSchema(R"({"entry":)" + kFaqOut + "}", R"(["entry"])"), false, NeedKnowledge,
                   CreateKnowledge));
  return v;
}

}  // namespace

const std::vector<Tool>& AllTools() {
  static const std::vector<Tool> tools = BuildTools();
  return tools;
}

const Tool* FindTool(std::string_view name) {
  for (const auto& t : AllTools())
    if (name == t.name) return &t;
  return nullptr;
}

}  // namespace livechat::mcp
