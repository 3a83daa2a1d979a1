// The spec's gating table, row by row: a tool whose switch (or plan, or key
// permission) is off is absent from tools/list and refused when called; on,
// it is listed. Switches are re-read on every request.
#include "mcp/mcp_fixture.h"

using namespace livechat;
using namespace livechat::testing;

namespace {

const std::vector<std::string> kAlways = {"send_message",  "faq_retrieval", "add_note",           "update_tags",
                                          "assign_member", "list_members",  "list_conversations", "register_webhook"};

// Calling a tool the request was not offered: JSON-RPC invalid params, and
// the message says what would turn it on.
void CheckRefused(McpFixture& f, const std::string& tool, const std::string& why, const std::string& key = "") {
  RpcReply r = f.Rpc("tools/call", R"({"name":")" + tool + R"(","arguments":{}})", key);
  REQUIRE(r.status() == 200);
  CHECK(r.errorCode() == -32602);
  CHECK(r.errorMessage() == "Tool " + tool + " is not available to this key: " + why);
}

}  // namespace

TEST_CASE("default AI settings, no loyalty partner: 11 tools to a key without admin permissions, 15 to a legacy key") {
  McpFixture f;
  auto names = f.ToolNames();
  std::vector<std::string> expected = kAlways;
  for (const char* t : {"check_order_status", "customer_support", "human_agent_transfer"}) expected.push_back(t);
  CHECK(names == expected);
  CHECK(names.size() == 11);

  auto legacy = f.ToolNames(f.NewKey(0, true));
  CHECK(legacy.size() == 15);
  for (const char* t : {"get_setup_status", "get_settings", "update_settings", "create_knowledge_entry"})
    CHECK(Contains(legacy, t));
}

TEST_CASE("plan plus with every switch and a loyalty partner lists all 22") {
  McpFixture f;
  f.SetPlan(Plan::kPlus);
  f.Switch(R"({"trainingData":{"products":true,"collections":true,"discounts":true},"skills":{"sizeGuide":true},)"
           R"("loyaltyPartner":"Smile.io"})");
  auto names = f.ToolNames(f.NewKey(0, true));
  CHECK(names.size() == 22);
  CHECK(names == std::vector<std::string>{
                     "send_message", "faq_retrieval", "add_note", "update_tags", "assign_member", "list_members",
                     "list_conversations", "register_webhook", "product_lookup", "product_faq_lookup", "manage_cart",
                     "collection_lookup", "discount_lookup", "size_guide_lookup", "check_order_status",
                     "customer_support", "human_agent_transfer", "partner_loyalty_lookup", "get_setup_status",
                     "get_settings", "update_settings", "create_knowledge_entry"});
}

TEST_CASE("row: training data products gates product_lookup, product_faq_lookup and manage_cart") {
  McpFixture f;
  for (const char* t : {"product_lookup", "product_faq_lookup", "manage_cart"}) {
    CHECK_FALSE(Contains(f.ToolNames(), t));
    CheckRefused(f, t, "turn on training data: products in the AI settings");
  }
  f.Switch(R"({"trainingData":{"products":true}})");
  auto names = f.ToolNames();
  for (const char* t : {"product_lookup", "product_faq_lookup", "manage_cart"}) CHECK(Contains(names, t));
  CHECK(names.size() == 14);
  // And off again on the next request.
  f.Switch(R"({"trainingData":{"products":false}})");
  CHECK_FALSE(Contains(f.ToolNames(), "product_lookup"));
}

TEST_CASE("row: training data collections gates collection_lookup") {
  McpFixture f;
  CHECK_FALSE(Contains(f.ToolNames(), "collection_lookup"));
  CheckRefused(f, "collection_lookup", "turn on training data: collections in the AI settings");
  f.Switch(R"({"trainingData":{"collections":true}})");
  CHECK(Contains(f.ToolNames(), "collection_lookup"));
}

TEST_CASE("row: training data discounts gates discount_lookup") {
  McpFixture f;
  CHECK_FALSE(Contains(f.ToolNames(), "discount_lookup"));
  CheckRefused(f, "discount_lookup", "turn on training data: discounts in the AI settings");
  f.Switch(R"({"trainingData":{"discounts":true}})");
  CHECK(Contains(f.ToolNames(), "discount_lookup"));
}

TEST_CASE("row: size_guide_lookup needs the size guide skill and the Pro plan") {
  McpFixture f;  // the fixture's store is on Pro
  CHECK_FALSE(Contains(f.ToolNames(), "size_guide_lookup"));
  CheckRefused(f, "size_guide_lookup", "turn on the size guide skill in the AI settings");
  f.Switch(R"({"skills":{"sizeGuide":true}})");
  CHECK(Contains(f.ToolNames(), "size_guide_lookup"));
  f.SetPlan(Plan::kPlus);
  CHECK(Contains(f.ToolNames(), "size_guide_lookup"));
  f.SetPlan(Plan::kBasic);
  CHECK_FALSE(Contains(f.ToolNames(), "size_guide_lookup"));
  CheckRefused(f, "size_guide_lookup", "the size guide needs the Pro plan or higher");
}

TEST_CASE("row: check_order_status needs the order tracking skill and the Basic plan") {
  McpFixture f;
  CHECK(Contains(f.ToolNames(), "check_order_status"));  // on by default
  f.SetPlan(Plan::kBasic);
  CHECK(Contains(f.ToolNames(), "check_order_status"));
  f.SetPlan(Plan::kFree);
  CHECK_FALSE(Contains(f.ToolNames(), "check_order_status"));
  CheckRefused(f, "check_order_status", "order tracking needs the Basic plan or higher");
  f.SetPlan(Plan::kPro);
  f.Switch(R"({"skills":{"orderTracking":false}})");
  CHECK_FALSE(Contains(f.ToolNames(), "check_order_status"));
  CheckRefused(f, "check_order_status", "turn on the order tracking skill in the AI settings");
}

TEST_CASE("row: after-sale support gates customer_support") {
  McpFixture f;
  CHECK(Contains(f.ToolNames(), "customer_support"));
  f.Switch(R"({"skills":{"afterSaleSupport":false}})");
  CHECK_FALSE(Contains(f.ToolNames(), "customer_support"));
  CheckRefused(f, "customer_support", "turn on the after-sale support skill in the AI settings");
}

TEST_CASE("row: human agent transfer gates human_agent_transfer") {
  McpFixture f;
  CHECK(Contains(f.ToolNames(), "human_agent_transfer"));
  f.Switch(R"({"skills":{"humanAgentTransfer":false}})");
  CHECK_FALSE(Contains(f.ToolNames(), "human_agent_transfer"));
  CheckRefused(f, "human_agent_transfer", "turn on the human agent transfer skill in the AI settings");
}

TEST_CASE("row: partner_loyalty_lookup needs a connected partner and a plan with API access") {
  McpFixture f;
  CHECK_FALSE(Contains(f.ToolNames(), "partner_loyalty_lookup"));
  CheckRefused(f, "partner_loyalty_lookup", "connect a loyalty partner first");
  f.Switch(R"({"loyaltyPartner":"Smile.io"})");
  CHECK(Contains(f.ToolNames(), "partner_loyalty_lookup"));
  f.SetPlan(Plan::kBasic);
  CHECK_FALSE(Contains(f.ToolNames(), "partner_loyalty_lookup"));
  CheckRefused(f, "partner_loyalty_lookup", "loyalty lookups need a plan with API access (Pro or Plus)");
}

TEST_CASE("rows: the admin tools follow the key's permissions") {
  McpFixture f;
  struct Row {
    std::uint32_t perm;
    std::vector<std::string> tools;
  };
  const std::vector<Row> rows = {
      {kPermReadSetupStatus, {"get_setup_status"}},
      {kPermReadSettings, {"get_settings"}},
      {kPermManageWidgetSettings, {"get_settings", "update_settings"}},
      {kPermManageAllSettings, {"get_settings", "update_settings"}},
      {kPermManageKnowledge, {"create_knowledge_entry"}},
  };
  const std::vector<std::string> admin = {"get_setup_status", "get_settings", "update_settings",
                                          "create_knowledge_entry"};
  for (const auto& row : rows) {
    std::string key = f.NewKey(kAllRestPerms | row.perm);
    auto names = f.ToolNames(key);
    for (const auto& t : admin) {
      INFO(t);
      bool expected = std::find(row.tools.begin(), row.tools.end(), t) != row.tools.end();
      CHECK(Contains(names, t) == expected);
    }
    CHECK(names.size() == 11 + row.tools.size());
    f.RevokeKey(key);  // at most 5 active keys per store
  }
  CheckRefused(f, "get_setup_status", "the API key lacks the \"Read setup status\" permission");
  CheckRefused(f, "get_settings", "the API key lacks the \"Read settings\" permission");
  CheckRefused(f, "update_settings",
               "the API key lacks the \"Manage widget settings\" or \"Manage all settings\" permission");
  CheckRefused(f, "create_knowledge_entry", "the API key lacks the \"Manage knowledge and training\" permission");
}

TEST_CASE("a permission change applies to the tool list on the key's next request") {
  McpFixture f;
  auto keys = f.service().directory().ListApiKeys(f.sys);
  REQUIRE(keys.ok());
  std::string id;
  for (const auto& k : *keys)
    if (f.mcpKey.rfind(k.prefix, 0) == 0) id = k.id;
  REQUIRE(!id.empty());
  CHECK_FALSE(Contains(f.ToolNames(), "create_knowledge_entry"));
  REQUIRE(f.service().directory().UpdateApiKeyPermissions(f.sys, id, kAllRestPerms | kPermManageKnowledge).ok());
  CHECK(Contains(f.ToolNames(), "create_knowledge_entry"));
}
