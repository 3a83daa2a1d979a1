// Each tool: what it returns on success (exact values from the sample
// catalog) and each way it fails, with the state unchanged after a failure.
#include "mcp/mcp_fixture.h"

using namespace livechat;
using namespace livechat::testing;

namespace {

std::string Args(const std::string& conversationId, const std::string& rest = "") {
  return R"({"conversationId":")" + conversationId + "\"" + (rest.empty() ? "" : "," + rest) + "}";
}

void AllOn(McpFixture& f) {
  f.SetPlan(Plan::kPlus);
  f.Switch(R"({"trainingData":{"products":true,"collections":true,"discounts":true},"skills":{"sizeGuide":true},)"
           R"("loyaltyPartner":"Smile.io"})");
}

}  // namespace

TEST_CASE("send_message posts a bot reply: isBot, senderType bot, the conversation isChatBot and hasChatBot") {
  McpFixture f;
  Conversation c = f.Inbound("Where is my parcel?");
  auto out = f.ToolOk("send_message", Args(c.id, R"("text":"Let me check that for you.")"));
  const auto& m = At(out, "message");
  CHECK(Str(At(m, "text")) == "Let me check that for you.");
  CHECK(Str(At(m, "senderType")) == "bot");
  CHECK(At(m, "isBot").GetBool());
  CHECK_FALSE(At(m, "isNote").GetBool());
  CHECK_FALSE(At(m, "isTransfer").GetBool());
  Conversation after = f.Load(c.id);
  CHECK(after.isChatBot);
  CHECK(after.hasChatBot);
  CHECK(after.lastMessage->senderType == "bot");
  // message.created with senderType bot in the outbox.
  auto events = f.service().feed().ListEvents(f.sys, 100);
  REQUIRE(events.ok());
  REQUIRE(!events->empty());
  CHECK(events->back().type == "message.created");
  CHECK(events->back().dataJson.find(R"("senderType":"bot")") != std::string::npos);
}

TEST_CASE("send_message: text at 5000 characters is sent, 5001 refused; missing conversation is NOT_FOUND") {
  McpFixture f;
  Conversation c = f.Inbound("hi");
  f.ToolOk("send_message", Args(c.id, R"("text":")" + std::string(5000, 'a') + "\""));
  const auto before = f.MessageCount(c.id);
  CHECK(f.ToolError("send_message", Args(c.id, R"("text":")" + std::string(5001, 'a') + "\"")) ==
        "INVALID_PARAMS: text must be at most 5000 characters (got 5001)");
  CHECK(f.ToolError("send_message", Args(c.id, R"("text":"")")) == "INVALID_PARAMS: text must not be empty");
  CHECK(f.ToolError("send_message", Args(c.id)) == "INVALID_PARAMS: text is required");
  CHECK(f.ToolError("send_message", Args(c.id, R"("text":"x","extra":1)")) ==
        "INVALID_PARAMS: extra is not an argument of this tool");
  CHECK(f.ToolError("send_message", Args("no-such-conversation", R"("text":"x")")) ==
        "NOT_FOUND: conversation not found");
  CHECK(f.MessageCount(c.id) == before);
  // Another store's conversation is as missing as a missing one.
  Shop other = f.NewShop("Other");
  InboundMessageInput in;
  in.text = "theirs";
  Conversation theirs = f.Inbound(in, other.id);
  CHECK(f.ToolError("send_message", Args(theirs.id, R"("text":"x")")) == "NOT_FOUND: conversation not found");
}

TEST_CASE("faq_retrieval ranks knowledge entries by relevance") {
  McpFixture f;
  // "how", "does" are stopwords; the entry with every other word ("long",
  // "shipping", "take") ranks first, then entries with some of them.
  auto out = f.ToolOk("faq_retrieval", R"({"query":"how long does shipping take","limit":2})");
  const auto& results = At(out, "results");
  REQUIRE(results.Size() == 2);
  CHECK(Str(At(results[0], "id")) == "kb_shipping_time");
  CHECK(Str(At(results[1], "id")) == "kb_international");
  auto cost = f.ToolOk("faq_retrieval", R"({"query":"How much does shipping cost?","limit":1})");
  CHECK(Str(At(At(At(cost, "results"), 0), "id")) == "kb_shipping_cost");
  CHECK(At(results[0], "relevance").GetDouble() > At(results[1], "relevance").GetDouble());
  CHECK(Str(At(out, "query")) == "how long does shipping take");
  // Default limit 5; a refund question finds the refund entry first.
  auto refund = f.ToolOk("faq_retrieval", R"({"query":"when do I get my refund?"})");
  CHECK(Str(At(At(At(refund, "results"), 0), "id")) == "kb_refund_time");
  // Nothing matches: an empty list, not an error.
  CHECK(At(f.ToolOk("faq_retrieval", R"({"query":"zeppelin"})"), "results").Size() == 0);
  CHECK(f.ToolError("faq_retrieval", R"({"query":"?!"})") == "INVALID_PARAMS: query must contain at least one word");
  CHECK(f.ToolError("faq_retrieval", R"({"query":"x","limit":21})") == "INVALID_PARAMS: limit must be at most 20");
  CHECK(f.ToolError("faq_retrieval", R"({"query":"x","limit":0})") == "INVALID_PARAMS: limit must be at least 1");
  CHECK(f.ToolError("faq_retrieval", R"({})") == "INVALID_PARAMS: query is required");
  // Query syntax is never interpreted: quotes and operators are plain words.
  CHECK(At(f.ToolOk("faq_retrieval", R"({"query":"shipping\" OR title:* NEAR("})"), "results").Size() >= 1);
}

TEST_CASE("add_note: 150 characters kept, 151 refused") {
  McpFixture f;
  Conversation c = f.Inbound("hi");
  auto out = f.ToolOk("add_note", Args(c.id, R"("text":")" + std::string(150, 'n') + "\""));
  CHECK(Str(At(At(out, "note"), "text")) == std::string(150, 'n'));
  CHECK(f.ToolError("add_note", Args(c.id, R"("text":")" + std::string(151, 'n') + "\"")) ==
        "INVALID_PARAMS: text must be at most 150 characters (got 151)");
  auto notes = f.service().annotations().ListNotes(f.sys, c.id);
  CHECK(notes->size() == 1);
}

TEST_CASE("update_tags replaces the list; tags cut to 50 characters, at most 100 kept") {
  McpFixture f;
  Conversation c = f.Inbound("hi");
  REQUIRE(f.service().annotations().AddTags(f.sys, c.id, {"old"}).ok());
  auto out = f.ToolOk("update_tags", Args(c.id, R"("tags":["vip","returns"])"));
  CHECK(StrList(At(out, "tags")) == std::vector<std::string>{"vip", "returns"});
  CHECK(f.Load(c.id).tags == std::vector<std::string>{"vip", "returns"});

  std::string fifty(50, 't'), fiftyOne = std::string(50, 'u') + "X";
  out = f.ToolOk("update_tags", Args(c.id, R"("tags":[")" + fifty + R"(",")" + fiftyOne + R"("])"));
  CHECK(StrList(At(out, "tags")) == std::vector<std::string>{fifty, std::string(50, 'u')});

  std::string many;
  for (int i = 0; i < 101; ++i) many += (i ? "," : "") + JsonStr("t" + std::to_string(i));
  out = f.ToolOk("update_tags", Args(c.id, R"("tags":[)" + many + "]"));
  auto kept = StrList(At(out, "tags"));
  CHECK(kept.size() == 100);
  CHECK(kept.front() == "t0");
  CHECK(kept.back() == "t99");
  // An empty list clears them.
  CHECK(At(f.ToolOk("update_tags", Args(c.id, R"("tags":[])")), "tags").Size() == 0);
  CHECK(f.Load(c.id).tags.empty());
  CHECK(f.ToolError("update_tags", Args(c.id, R"("tags":"vip")")) == "INVALID_PARAMS: tags must be an array");
  CHECK(f.ToolError("update_tags", Args(c.id, R"("tags":[1])")) == "INVALID_PARAMS: tags[0] must be a string");
}

TEST_CASE("assign_member assigns and unassigns; an unknown member changes nothing") {
  McpFixture f;
  Conversation c = f.Inbound("hi");
  auto out = f.ToolOk("assign_member", Args(c.id, R"("memberId":")" + f.agent.id + "\""));
  CHECK(Str(At(out, "memberId")) == f.agent.id);
  CHECK(f.Load(c.id).memberId == f.agent.id);
  CHECK(f.ToolError("assign_member", Args(c.id, R"("memberId":"nobody")")).find("INVALID_PARAMS") == 0);
  CHECK(f.Load(c.id).memberId == f.agent.id);
  out = f.ToolOk("assign_member", Args(c.id, R"("memberId":null)"));
  CHECK(At(out, "memberId").IsNull());
  CHECK_FALSE(f.Load(c.id).memberId.has_value());
  CHECK(f.ToolError("assign_member", Args(c.id)) == "INVALID_PARAMS: memberId is required");
}

TEST_CASE("list_members lists the team without credentials") {
  McpFixture f;
  auto out = f.ToolOk("list_members", "{}");
  const auto& members = At(out, "members");
  REQUIRE(members.Size() == 1);
  CHECK(Str(At(members[0], "email")) == "agent@example.com");
  CHECK(KeySet(members[0]) == Keys(kMemberKeys));
}

TEST_CASE("list_conversations lists playground conversations only; limit default 20, no maximum") {
  McpFixture f;
  f.Inbound("a shopper, not a test");
  for (int i = 0; i < 25; ++i) {
    f.Playground("test " + std::to_string(i));
    f.clock.Advance(1000);
  }
  auto def = f.ToolOk("list_conversations", "{}");
  CHECK(At(def, "conversations").Size() == 20);
  CHECK(Str(At(At(At(def, "conversations"), 0), "lastMessage")["text"]) == "test 24");
  CHECK(At(f.ToolOk("list_conversations", R"({"limit":1000})"), "conversations").Size() == 25);
  CHECK(f.ToolError("list_conversations", R"({"limit":0})") == "INVALID_PARAMS: limit must be at least 1");
  // The inbox (REST list) never shows the playground.
  auto rest = f.Get("/chat/conversations?limit=100");
  CHECK(At(rest.json, "data").Size() == 1);
}

TEST_CASE("register_webhook creates a subscription and returns its signing secret") {
  McpFixture f;
  auto out = f.ToolOk("register_webhook",
                      R"({"url":"https://hooks.example.com/lc","events":["message.created"],"metadata":{"team":"ai"}})");
  CHECK(Str(At(out, "secret")).rfind("whsec_", 0) == 0);
  CHECK(Str(At(At(out, "subscription"), "url")) == "https://hooks.example.com/lc");
  CHECK(f.service().webhooks().ListWebhooks(f.sys)->size() == 1);
  CHECK(f.ToolError("register_webhook", R"({"url":"http://hooks.example.com","events":["message.created"]})")
            .find("INVALID_PARAMS") == 0);
  CHECK(f.ToolError("register_webhook", R"({"url":"https://hooks.example.com/x","events":["conversation.exploded"]})")
            .find("INVALID_PARAMS") == 0);
  CHECK(f.ToolError("register_webhook", R"({"url":"https://hooks.example.com/x","events":[]})") ==
        "INVALID_PARAMS: events must have at least 1 items");
  CHECK(f.service().webhooks().ListWebhooks(f.sys)->size() == 1);
}

TEST_CASE("product_lookup: search best first, by id with variants and stock, unknown id NOT_FOUND") {
  McpFixture f;
  AllOn(f);
  auto out = f.ToolOk("product_lookup", R"({"query":"merino sweater","limit":3})");
  const auto& products = At(out, "products");
  REQUIRE(products.Size() >= 1);
  CHECK(Str(At(products[0], "id")) == "prod_merino_crew");
  auto byId = f.ToolOk("product_lookup", R"({"productId":"prod_trail_runner"})");
  const auto& p = At(At(byId, "products"), 0);
  CHECK(Str(At(p, "title")) == "Ridge Trail Running Shoe");
  CHECK(At(p, "variants").Size() == 3);
  CHECK(Str(At(At(p, "variants")[0], "price")) == "139.50");
  CHECK(At(At(p, "variants")[0], "inventory").GetInt() == 4);
  CHECK_FALSE(At(At(p, "variants")[2], "available").GetBool());
  // Stemming: "jackets" finds the jacket.
  CHECK(Str(At(At(At(f.ToolOk("product_lookup", R"({"query":"rain jackets"})"), "products"), 0), "id")) ==
        "prod_rain_shell");
  CHECK(f.ToolError("product_lookup", R"({"productId":"nope"})") == "NOT_FOUND: product not found");
  CHECK(f.ToolError("product_lookup", "{}") == "INVALID_PARAMS: give query (words to search for) or productId");
}

TEST_CASE("product_faq_lookup: one product's entries, a search, or both") {
  McpFixture f;
  AllOn(f);
  auto mine = f.ToolOk("product_faq_lookup", R"({"productId":"prod_merino_crew"})");
  CHECK(Column(At(mine, "faqs"), "id") ==
        std::vector<std::string>{"prod_merino_crew-faq-1", "prod_merino_crew-faq-2"});
  CHECK(Str(At(At(At(mine, "faqs"), 0), "productTitle")) == "Merino Crew Sweater");
  auto search = f.ToolOk("product_faq_lookup", R"({"query":"waterproof"})");
  CHECK(Str(At(At(At(search, "faqs"), 0), "productId")) == "prod_rain_shell");
  auto both = f.ToolOk("product_faq_lookup", R"({"productId":"prod_merino_crew","query":"wash"})");
  CHECK(Column(At(both, "faqs"), "id") == std::vector<std::string>{"prod_merino_crew-faq-2"});
  CHECK(f.ToolError("product_faq_lookup", R"({"productId":"nope"})") == "NOT_FOUND: product not found");
  CHECK(f.ToolError("product_faq_lookup", "{}") == "INVALID_PARAMS: give productId, query, or both");
}

TEST_CASE("manage_cart: add, update, remove, clear, get; stock and availability are checked") {
  McpFixture f;
  AllOn(f);
  Conversation c = f.Inbound("I'd like to buy");
  auto get0 = f.ToolOk("manage_cart", Args(c.id, R"("action":"get")"));
  CHECK(At(At(get0, "cart"), "items").Size() == 0);
  CHECK(Str(At(At(get0, "cart"), "subtotal")) == "0.00");

  auto add = f.ToolOk("manage_cart",
                      Args(c.id, R"("action":"add","productId":"prod_merino_crew","variantId":"var_merino_m_navy","quantity":2)"));
  CHECK(At(At(add, "cart"), "itemCount").GetInt() == 2);
  CHECK(Str(At(At(add, "cart"), "subtotal")) == "178.00");
  f.ToolOk("manage_cart", Args(c.id, R"("action":"add","productId":"prod_wool_socks","variantId":"var_socks_m")"));
  auto got = f.ToolOk("manage_cart", Args(c.id, R"("action":"get")"));
  CHECK(At(At(got, "cart"), "itemCount").GetInt() == 3);
  CHECK(Str(At(At(got, "cart"), "subtotal")) == "207.00");

  // M / Navy has 3 in stock: 2 + 2 is refused and the cart is unchanged.
  CHECK(f.ToolError("manage_cart", Args(c.id, R"("action":"add","productId":"prod_merino_crew","variantId":"var_merino_m_navy","quantity":2)")) ==
        "OUT_OF_STOCK: only 3 in stock for this variant");
  CHECK(f.ToolError("manage_cart", Args(c.id, R"("action":"add","productId":"prod_merino_crew","variantId":"var_merino_l_oat")")) ==
        "UNAVAILABLE: this variant is not available for sale");
  CHECK(f.ToolError("manage_cart", Args(c.id, R"("action":"add","productId":"prod_merino_crew","variantId":"nope")")) ==
        "NOT_FOUND: product prod_merino_crew has no variant nope (product_lookup lists its variants)");
  CHECK(f.ToolError("manage_cart", Args(c.id, R"("action":"add")")) ==
        "INVALID_PARAMS: action add needs productId and variantId");
  CHECK(f.ToolError("manage_cart", Args(c.id, R"("action":"buy")")) ==
        "INVALID_PARAMS: action must be one of get, add, update, remove, clear");
  CHECK(At(At(f.ToolOk("manage_cart", Args(c.id, R"("action":"get")")), "cart"), "itemCount").GetInt() == 3);

  auto upd = f.ToolOk("manage_cart",
                      Args(c.id, R"("action":"update","productId":"prod_merino_crew","variantId":"var_merino_m_navy","quantity":3)"));
  CHECK(At(At(upd, "cart"), "itemCount").GetInt() == 4);
  auto rem = f.ToolOk("manage_cart", Args(c.id, R"("action":"remove","variantId":"var_socks_m")"));
  CHECK(Str(At(At(rem, "cart"), "subtotal")) == "267.00");
  CHECK(f.ToolError("manage_cart", Args(c.id, R"("action":"remove","variantId":"var_socks_m")")) ==
        "NOT_FOUND: the cart has no line with variant var_socks_m");
  auto cleared = f.ToolOk("manage_cart", Args(c.id, R"("action":"clear")"));
  CHECK(At(At(cleared, "cart"), "items").Size() == 0);
  CHECK(f.ToolError("manage_cart", Args("nope", R"("action":"get")")) == "NOT_FOUND: conversation not found");
}

TEST_CASE("collection_lookup: by id, by words, or a list") {
  McpFixture f;
  AllOn(f);
  auto byId = f.ToolOk("collection_lookup", R"({"collectionId":"col_winter"})");
  CHECK(StrList(At(At(At(byId, "collections"), 0), "productIds")).size() == 4);
  auto search = f.ToolOk("collection_lookup", R"({"query":"rain shells"})");
  CHECK(Str(At(At(At(search, "collections"), 0), "id")) == "col_outdoor");
  CHECK(At(f.ToolOk("collection_lookup", "{}"), "collections").Size() == 3);
  CHECK(f.ToolError("collection_lookup", R"({"collectionId":"nope"})") == "NOT_FOUND: collection not found");
}

TEST_CASE("discount_lookup: by code (case-insensitive) with active computed from the clock") {
  McpFixture f;
  AllOn(f);
  f.clock.Set(1'795'000'000'000);  // 2026-11-17: WELCOME10 active, SUMMER25 ended
  auto w = f.ToolOk("discount_lookup", R"({"code":"welcome10"})");
  CHECK(Str(At(At(At(w, "discounts"), 0), "id")) == "disc_welcome");
  CHECK(At(At(At(w, "discounts"), 0), "active").GetBool());
  auto s = f.ToolOk("discount_lookup", R"({"code":"SUMMER25"})");
  CHECK_FALSE(At(At(At(s, "discounts"), 0), "active").GetBool());
  f.clock.Set(1'785'000'000'000);  // 2026-07-24: inside the summer window
  CHECK(At(At(At(f.ToolOk("discount_lookup", R"({"code":"SUMMER25"})"), "discounts"), 0), "active").GetBool());
  CHECK(At(f.ToolOk("discount_lookup", "{}"), "discounts").Size() == 3);
  CHECK(Str(At(At(At(f.ToolOk("discount_lookup", R"({"query":"free shipping"})"), "discounts"), 0), "id")) ==
        "disc_ship");
  CHECK(f.ToolError("discount_lookup", R"({"code":"NOPE"})") == "NOT_FOUND: no discount has the code NOPE");
}

TEST_CASE("size_guide_lookup returns the chart; a store without one gets an actionable error") {
  McpFixture f;
  AllOn(f);
  auto out = f.ToolOk("size_guide_lookup", "{}");
  CHECK(StrList(At(At(out, "sizeChart"), "columns")) == std::vector<std::string>{"Size", "Chest", "Waist", "Hip"});
  CHECK(At(At(out, "sizeChart"), "rows").Size() == 5);
  McpFixture bare(McpOptions{}, false);
  AllOn(bare);
  CHECK(bare.ToolError("size_guide_lookup", "{}") ==
        "NOT_FOUND: this store has no size chart; answer without one or hand over to a person");
}

TEST_CASE("check_order_status by order number or tracking number; the email must match when given") {
  McpFixture f;
  auto byNumber = f.ToolOk("check_order_status", R"({"orderNumber":"1001"})");
  CHECK(Str(At(At(byNumber, "order"), "id")) == "ord_1001");
  CHECK(Str(At(At(byNumber, "order"), "fulfillmentStatus")) == "fulfilled");
  // Without the email, status and tracking but not who ordered.
  CHECK(At(At(byNumber, "order"), "email").IsNull());
  CHECK(At(At(byNumber, "order"), "customerName").IsNull());
  auto withEmail = f.ToolOk("check_order_status", R"({"orderNumber":"1001","email":"maya@example.com"})");
  CHECK(Str(At(At(withEmail, "order"), "customerName")) == "Maya Chen");
  CHECK(Str(At(At(f.ToolOk("check_order_status", R"({"orderNumber":"#1002"})"), "order"), "id")) == "ord_1002");
  auto byTracking = f.ToolOk("check_order_status", R"({"trackingNumber":"1z999aa10123456784"})");
  CHECK(Str(At(At(byTracking, "order"), "orderNumber")) == "#1001");
  CHECK(Str(At(At(f.ToolOk("check_order_status", R"({"orderNumber":"1001","email":"MAYA@example.com"})"), "order"),
               "id")) == "ord_1001");
  const std::string notFound =
      "NOT_FOUND: no order matches; ask the shopper to check the order number (e.g. #1001) or tracking number and "
      "the email used at checkout";
  CHECK(f.ToolError("check_order_status", R"({"orderNumber":"1001","email":"sam@example.com"})") == notFound);
  CHECK(f.ToolError("check_order_status", R"({"orderNumber":"9999"})") == notFound);
  CHECK(f.ToolError("check_order_status", "{}") == "INVALID_PARAMS: give orderNumber or trackingNumber");
}

TEST_CASE("customer_support records the request and shows it to agents as a note") {
  McpFixture f;
  Conversation c = f.Inbound("I want to return my sweater");
  const auto before = f.MessageCount(c.id);
  auto out = f.ToolOk("customer_support",
                      Args(c.id, R"("type":"return","orderNumber":"#1001","reason":"Too small","details":"Needs L")"));
  const auto& req = At(out, "request");
  CHECK(Str(At(req, "type")) == "return");
  CHECK(Str(At(req, "orderNumber")) == "#1001");
  CHECK(Str(At(req, "status")) == "open");
  CHECK(f.MessageCount(c.id) == before + 1);
  auto msgs = f.service().conversations().ListMessages(f.sys, c.id, {}, std::string("desc"));
  REQUIRE(msgs.ok());
  CHECK(msgs->items.front().isNote);
  CHECK(msgs->items.front().text == "After-sale request (return) for order #1001: Too small (Needs L)");
  CHECK(f.ToolError("customer_support", Args(c.id, R"("type":"return","orderNumber":"#4040","reason":"x")")) ==
        "NOT_FOUND: order #4040 not found");
  CHECK(f.ToolError("customer_support", Args(c.id, R"("type":"upgrade","orderNumber":"#1001","reason":"x")")) ==
        "INVALID_PARAMS: type must be one of return, refund, cancel, edit");
  CHECK(f.ToolError("customer_support", Args(c.id, R"("type":"refund","orderNumber":"#1001")")) ==
        "INVALID_PARAMS: reason is required");
  CHECK(f.MessageCount(c.id) == before + 1);
}

TEST_CASE("human_agent_transfer posts a transfer message and the AI lets go") {
  McpFixture f;
  Conversation c = f.Inbound("I need a person");
  f.ToolOk("send_message", Args(c.id, R"("text":"Hi, I'm the assistant.")"));
  CHECK(f.Load(c.id).isChatBot);
  auto out = f.ToolOk("human_agent_transfer", Args(c.id));
  CHECK(At(At(out, "message"), "isTransfer").GetBool());
  CHECK(Str(At(At(out, "message"), "senderType")) == "bot");
  CHECK_FALSE(At(At(out, "conversation"), "isChatBot").GetBool());
  CHECK(At(At(out, "conversation"), "hasChatBot").GetBool());
  Conversation after = f.Load(c.id);
  CHECK_FALSE(after.isChatBot);
  CHECK(after.hasChatBot);
  auto custom = f.ToolOk("human_agent_transfer", Args(c.id, R"("message":"Passing you to Ada.")"));
  CHECK(Str(At(At(custom, "message"), "text")) == "Passing you to Ada.");
  CHECK(f.ToolError("human_agent_transfer", Args("nope")) == "NOT_FOUND: conversation not found");
}

TEST_CASE("partner_loyalty_lookup: an account's points and tier, and the program") {
  McpFixture f;
  AllOn(f);
  auto out = f.ToolOk("partner_loyalty_lookup", R"({"email":"Maya@Example.com"})");
  CHECK(Str(At(out, "partner")) == "Smile.io");
  CHECK(At(At(out, "account"), "points").GetInt() == 640);
  CHECK(Str(At(At(out, "account"), "tier")) == "Trailblazer");
  CHECK(At(At(out, "program"), "tiers").Size() == 3);
  auto none = f.ToolOk("partner_loyalty_lookup", R"({"email":"new@example.com"})");
  CHECK(At(none, "account").IsNull());
  CHECK(f.ToolError("partner_loyalty_lookup", "{}") == "INVALID_PARAMS: email is required");
}

TEST_CASE("get_setup_status: checklist, training count, scenario count, enabled skills") {
  McpFixture f;
  std::string key = f.NewKey(kAllRestPerms | kPermReadSetupStatus);
  auto out = f.ToolOk("get_setup_status", "{}", key);
  CHECK(At(out, "trainingCount").GetInt() == 8 + 5);  // knowledge entries + product FAQ entries
  CHECK(At(out, "scenarioCount").GetInt() == 2);
  CHECK(StrList(At(out, "enabledSkills")) ==
        std::vector<std::string>{"order_tracking", "after_sale_support", "human_agent_transfer"});
  CHECK(Column(At(out, "checklist"), "step") ==
        std::vector<std::string>{"customize_widget", "add_knowledge", "import_products", "train_on_products",
                                 "invite_team", "connect_webhooks"});
  CHECK(At(At(At(out, "checklist"), 1), "done").GetBool());
  CHECK_FALSE(At(At(At(out, "checklist"), 3), "done").GetBool());
}

TEST_CASE("get_settings and update_settings: areas, field checks, and permissions per area") {
  McpFixture f;
  std::string reader = f.NewKey(kAllRestPerms | kPermReadSettings);
  std::string widget = f.NewKey(kAllRestPerms | kPermManageWidgetSettings);
  std::string all = f.NewKey(kAllRestPerms | kPermManageAllSettings);
  auto w = f.ToolOk("get_settings", R"({"area":"widget"})", reader);
  CHECK(Str(At(At(w, "settings"), "position")) == "right");
  auto changed = f.ToolOk("update_settings", R"({"area":"widget","settings":{"primaryColor":"#ff0000"}})", widget);
  CHECK(Str(At(At(changed, "settings"), "primaryColor")) == "#ff0000");
  CHECK(Str(At(At(changed, "settings"), "position")) == "right");
  CHECK(Str(At(At(f.ToolOk("get_settings", R"({"area":"widget"})", reader), "settings"), "primaryColor")) ==
        "#ff0000");
  CHECK(f.ToolError("update_settings", R"({"area":"widget","settings":{"primaryColor":"red"}})", widget) ==
        "INVALID_PARAMS: settings.primaryColor (widget area) must be a color like \"#1f6feb\"");
  CHECK(f.ToolError("update_settings", R"({"area":"widget","settings":{"greeting":")" + std::string(201, 'g') + R"("}})",
                    widget) == "INVALID_PARAMS: settings.greeting (widget area) must be text of at most 200 characters");
  f.ToolOk("update_settings", R"({"area":"widget","settings":{"greeting":")" + std::string(200, 'g') + R"("}})", widget);
  CHECK(f.ToolError("update_settings", R"({"area":"widget","settings":{"secretKey":"x"}})", widget)
            .find("INVALID_PARAMS: secretKey is not a public setting of the widget area") == 0);
  // The widget permission does not reach other areas.
  CHECK(f.ToolError("update_settings", R"({"area":"skills","settings":{"sizeGuide":true}})", widget) ==
        "FORBIDDEN: this API key lacks the \"Manage all settings\" permission");
  // Skills are the tool switches: turning one on changes the tool list.
  CHECK_FALSE(Contains(f.ToolNames(), "size_guide_lookup"));
  auto skills = f.ToolOk("update_settings", R"({"area":"skills","settings":{"sizeGuide":true}})", all);
  CHECK(At(At(skills, "settings"), "sizeGuide").GetBool());
  CHECK(Contains(f.ToolNames(), "size_guide_lookup"));
  CHECK(f.ToolError("get_settings", R"({"area":"billing"})", reader) ==
        "INVALID_PARAMS: area must be one of widget, assistant, training, skills");
}

TEST_CASE("create_knowledge_entry adds an entry that faq_retrieval then finds") {
  McpFixture f;
  std::string key = f.NewKey(kAllRestPerms | kPermManageKnowledge);
  auto out = f.ToolOk("create_knowledge_entry",
                      R"({"question":"Do you offer gift wrapping?","answer":"Yes, for $5 at checkout."})", key);
  CHECK(Str(At(At(out, "entry"), "question")) == "Do you offer gift wrapping?");
  auto found = f.ToolOk("faq_retrieval", R"({"query":"gift wrapping"})");
  CHECK(Str(At(At(At(found, "results"), 0), "answer")) == "Yes, for $5 at checkout.");
  CHECK(f.ToolError("create_knowledge_entry", R"({"question":"q","answer":")" + std::string(5001, 'a') + R"("})",
                    key) == "INVALID_PARAMS: answer must be at most 5000 characters (got 5001)");
  f.ToolOk("create_knowledge_entry", R"({"question":"q","answer":")" + std::string(5000, 'a') + R"("})", key);
}

TEST_CASE("conversation tools need Manage conversations on the key") {
  McpFixture f;
  Conversation c = f.Inbound("hi");
  std::string readOnly = f.NewKey(kPermReadConversations);
  CHECK(f.ToolError("send_message", Args(c.id, R"("text":"x")"), readOnly) ==
        "FORBIDDEN: this API key lacks the \"Manage conversations\" permission");
  CHECK(At(f.ToolOk("list_conversations", "{}", readOnly), "conversations").Size() == 0);
}

TEST_CASE("product_faq_lookup with productId and query filters inside the index, whatever other products hold") {
  McpFixture f(McpOptions{}, false);
  AllOn(f);
  // 300 products whose FAQ says "wash" three times (better BM25 than ours).
  std::string products = R"([{"id":"mine","title":"Mine","variants":[{"id":"v","price":"1"}],)"
                         R"("faqs":[{"question":"Can I wash it?","answer":"Yes, cold."}]})";
  for (int i = 0; i < 300; ++i)
    products += R"(,{"id":"o)" + std::to_string(i) + R"(","title":"Other","variants":[{"id":"v","price":"1"}],)"
                R"("faqs":[{"question":"Wash wash wash?","answer":"wash"}]})";
  REQUIRE(f.service().knowledge().ImportCatalog(f.sys, R"({"products":)" + products + "]}").ok());
  auto out = f.ToolOk("product_faq_lookup", R"({"productId":"mine","query":"wash","limit":1})");
  CHECK(Column(At(out, "faqs"), "id") == std::vector<std::string>{"mine-faq-1"});
  CHECK(f.ToolError("product_faq_lookup", R"({"productId":"nope","query":"wash"})") == "NOT_FOUND: product not found");
}

TEST_CASE("manage_cart: at most 999 of one variant") {
  McpFixture f(McpOptions{}, false);
  AllOn(f);
  REQUIRE(f.service().knowledge().ImportCatalog(f.sys, R"({"products":[{"id":"p","title":"Untracked","variants":[{"id":"v","price":"0.10"}]}]})").ok());
  Conversation c = f.Inbound("bulk order");
  auto full = f.ToolOk("manage_cart", Args(c.id, R"("action":"add","productId":"p","variantId":"v","quantity":999)"));
  CHECK(Str(At(At(full, "cart"), "subtotal")) == "99.90");
  CHECK(f.ToolError("manage_cart", Args(c.id, R"("action":"add","productId":"p","variantId":"v")")) ==
        "INVALID_PARAMS: at most 999 of one variant per cart");
  CHECK(At(At(f.ToolOk("manage_cart", Args(c.id, R"("action":"get")")), "cart"), "itemCount").GetInt() == 999);
}

TEST_CASE("manage_cart: at most 100 lines") {
  McpFixture f(McpOptions{}, false);
  AllOn(f);
  std::string variants;
  for (int i = 0; i < 101; ++i)
    variants += (i ? "," : "") + std::string(R"({"id":"v)") + std::to_string(i) + R"(","price":"1.00"})";
  REQUIRE(f.service().knowledge().ImportCatalog(f.sys, R"({"products":[{"id":"p","title":"Many","variants":[)" + variants + "]}]}").ok());
  Conversation c = f.Inbound("a big order");
  for (int i = 0; i < 100; ++i)
    f.ToolOk("manage_cart", Args(c.id, R"("action":"add","productId":"p","variantId":"v)" + std::to_string(i) + "\""));
  CHECK(f.ToolError("manage_cart", Args(c.id, R"("action":"add","productId":"p","variantId":"v100")")) ==
        "INVALID_PARAMS: a cart holds at most 100 lines");
  CHECK(At(At(f.ToolOk("manage_cart", Args(c.id, R"("action":"get")")), "cart"), "items").Size() == 100);
}
