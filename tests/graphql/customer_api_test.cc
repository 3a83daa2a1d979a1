// The GraphQL Customer API over a real ChatService and SQLite store, through
// its HTTP adapter (in process).
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <fstream>
#include <sstream>

#include "livechat/graphql_api.h"
#include "livechat/sqlite_store.h"
#include "support/test_store.h"

namespace livechat {
namespace {

struct GqlFixture {
  ManualClock clock;
  std::unique_ptr<Random> random = NewSeededRandom(7);
  std::unique_ptr<Store> store;
  std::unique_ptr<ChatService> service;
  std::unique_ptr<GraphQLApi> api;
  Shop shop;
  std::string key;

  explicit GqlFixture(GraphQLApiOptions opts = {}) {
    auto opened = testing::OpenTestStore();
    REQUIRE(opened.ok());
    store = std::move(opened).value();
    ServiceOptions o;
    o.store = store.get();
    o.clock = &clock;
    o.random = random.get();
    service = std::make_unique<ChatService>(o);
    api = std::make_unique<GraphQLApi>(*service, opts);
    shop = *service->directory().CreateShop({"Shop", Plan::kPro, false});
    key = service->directory().CreateApiKey(Principal::System(shop.id), {"gql", kPermReadCustomers, false})->secret;
  }

  Customer Inbound(const std::string& channel, std::optional<std::string> name, std::optional<std::string> email) {
    InboundMessageInput in;
    in.channel = channel;
    in.customerName = name;
    in.customerEmail = email;
    in.text = "hello";
    auto c = service->conversations().ReceiveInbound(Principal::System(shop.id), in);
    REQUIRE(c.ok());
    return *service->directory().GetCustomer(Principal::System(shop.id), *c->customerUuid);
  }

  struct Reply {
    int status;
    rapidjson::Document json;
    std::string body;
  };
  Reply Post(const std::string& body, bool creds = true, std::string contentType = "application/json",
             std::string appId = "", std::string secret = "") {
    HttpRequest req;
    req.method = "POST";
    req.target = "/graphql";
    req.body = body;
    req.peerIp = "198.51.100.4";
    if (!contentType.empty()) req.headers.emplace_back("content-type", contentType);
    if (creds) {
      req.headers.emplace_back("x-api-id", appId.empty() ? shop.appId : appId);
      req.headers.emplace_back("x-api-secret", secret.empty() ? key : secret);
    }
    auto r = api->Handle(req);
    Reply out{r.status, {}, r.body};
    out.json.Parse(r.body.c_str());
    REQUIRE_FALSE(out.json.HasParseError());
    return out;
  }
  Reply Query(const std::string& query, bool creds = true) {
    std::string body = "{\"query\":";
    AppendJsonString(body, query);
    return Post(body + "}", creds);
  }
};

std::string Code(const rapidjson::Document& d, int i = 0) {
  return d["errors"][i]["extensions"]["code"].GetString();
}

}  // namespace

TEST_CASE("graphql: the bound schema prints exactly docs/graphql/schema.graphql") {
  auto schema = BuildCustomerSchema();
  REQUIRE(schema.ok());
  std::ifstream f(std::string(LIVECHAT_SOURCE_DIR) + "/docs/graphql/schema.graphql");
  std::stringstream want;
  want << f.rdbuf();
  CHECK(graphql::PrintSchema(*schema) + "\n" == want.str());  // the file ends with a newline
}

TEST_CASE("graphql: transport errors of the spec's table") {
  GqlFixture f;
  HttpRequest get;
  get.method = "GET";
  get.target = "/graphql?query=%7B__typename%7D";
  auto r = f.api->Handle(get);
  CHECK(r.status == 405);
  CHECK(r.Header("Allow") == "POST");
  for (std::string ct : {"", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"}) {
    CAPTURE(ct);
    auto rej = f.Post("{\"query\":\"{__typename}\"}", true, ct);
    CHECK(rej.status == 415);
    CHECK(Code(rej.json) == "BAD_REQUEST");
  }
  // The shared JSON rule: the type in any case, charset utf-8 only.
  CHECK(f.Post("{\"query\":\"{__typename}\"}", true, "Application/JSON; charset=UTF-8").status == 200);
  auto latin1 = f.Post("{\"query\":\"{__typename}\"}", true, "application/json;charset=latin1");
  CHECK(latin1.status == 415);
  CHECK(Code(latin1.json) == "BAD_REQUEST");
  auto notUtf8 = f.Post("{\"query\":\"{__typename}\xff\"}");
  CHECK(notUtf8.status == 400);
  CHECK(std::string(notUtf8.json["errors"][0]["message"].GetString()) == "body is not valid UTF-8");
  auto noQuery = f.Post("{\"variables\":{}}");
  CHECK(noQuery.status == 400);
  CHECK(Code(noQuery.json) == "BAD_REQUEST");
  CHECK_FALSE(noQuery.json.HasMember("data"));
  auto parse = f.Query("{ customers { ");
  CHECK(parse.status == 400);
  CHECK(Code(parse.json) == "GRAPHQL_PARSE_FAILED");
  CHECK(parse.json["errors"][0]["locations"][0]["line"].GetInt() == 1);
  CHECK(parse.json["errors"][0]["locations"][0]["column"].GetInt() == 15);  // end of input, after the last space
  auto unknown = f.Query("{ customers { nope } }");
  CHECK(unknown.status == 400);
  CHECK(Code(unknown.json) == "GRAPHQL_VALIDATION_FAILED");
  CHECK(std::string(unknown.json["errors"][0]["message"].GetString()) ==
        "Cannot query field \"nope\" on type \"CustomerConnection\". Did you mean \"nodes\"?");
  auto missingArg = f.Query("{ customer { id } }");
  CHECK(Code(missingArg.json) == "GRAPHQL_VALIDATION_FAILED");
  auto wrongType = f.Query("{ customers(first: \"ten\") { totalCount } }");
  CHECK(Code(wrongType.json) == "GRAPHQL_VALIDATION_FAILED");
  auto mutation = f.Query("mutation { x }");
  CHECK(mutation.status == 400);
  auto twoOps = f.Query("query A { __typename } query B { __typename }");
  CHECK(twoOps.status == 400);
  CHECK(Code(twoOps.json) == "BAD_REQUEST");
}

TEST_CASE("graphql: introspection needs no credentials; contact data needs both headers") {
  GqlFixture f;
  f.Inbound("email", std::string("Ada Lovelace"), std::string("ada@example.com"));
  auto intro = f.Query("{ __schema { queryType { name } } }", false);
  CHECK(intro.status == 200);
  CHECK(std::string(intro.json["data"]["__schema"]["queryType"]["name"].GetString()) == "Query");
  auto anon = f.Query("{ customers { totalCount } }", false);
  CHECK(anon.status == 200);
  CHECK(anon.json["data"].IsNull());
  CHECK(Code(anon.json) == "UNAUTHENTICATED");
  auto wrong = f.Post("{\"query\":\"{ customers { totalCount } }\"}", true, "application/json", f.shop.appId,
                      "sk_00000000000000000000000000000000");
  CHECK(wrong.status == 200);
  CHECK(wrong.json["data"].IsNull());
  CHECK(Code(wrong.json) == "UNAUTHENTICATED");
  // A key of another store with this store's App ID is refused too.
  auto other = f.service->directory().CreateShop({"Other", Plan::kPro, false});
  auto otherKey = f.service->directory().CreateApiKey(Principal::System(other->id), {"k", kPermReadCustomers, false});
  auto cross = f.Post("{\"query\":\"{ customers { totalCount } }\"}", true, "application/json", f.shop.appId,
                      otherKey->secret);
  CHECK(Code(cross.json) == "UNAUTHENTICATED");
  auto ok = f.Query("{ customers { totalCount } }");
  CHECK(ok.status == 200);
  CHECK(ok.json["data"]["customers"]["totalCount"].GetInt() == 1);
  // No first/last: the page is assumed to hold unboundedPageAssumption (1,000) customers.
  CHECK(ok.json["extensions"]["cost"]["requestedQueryCost"].GetDouble() == 1001);
}

TEST_CASE("graphql: Customer fields follow the spec's defaults and nullability") {
  GqlFixture f;
  auto ada = f.Inbound("whatsapp", std::string("Ada Lovelace"), std::string("ada@example.com"));
  auto anon = f.Inbound("online_store", std::nullopt, std::nullopt);
  const std::string fields =
      "id shopId shopifyCustomerId firstName lastName email phone ipLocation ipAddress type channels ordersCount "
      "totalSpent createdAt updatedAt lastChatAt fullName";
  auto r = f.Query("{ a: customer(id: \"" + ada.id + "\") { " + fields + " } b: customer(id: \"" + anon.id +
                   "\") { " + fields + " } missing: customer(id: \"nope\") { id } }");
  REQUIRE(r.status == 200);
  CHECK_FALSE(r.json.HasMember("errors"));
  const auto& a = r.json["data"]["a"];
  CHECK(std::string(a["id"].GetString()) == ada.id);
  CHECK(std::string(a["shopId"].GetString()) == f.shop.id);
  CHECK(std::string(a["firstName"].GetString()) == "Ada");
  CHECK(std::string(a["lastName"].GetString()) == "Lovelace");
  CHECK(std::string(a["fullName"].GetString()) == "Ada Lovelace");
  CHECK(std::string(a["type"].GetString()) == "GUEST");
  CHECK(a["channels"].Size() == 1);
  CHECK(std::string(a["channels"][0].GetString()) == "WHATSAPP");
  CHECK(a["ordersCount"].GetInt() == 0);
  CHECK(a["totalSpent"].GetDouble() == 0.0);
  CHECK(std::string(a["createdAt"].GetString()) == FormatIso8601(ada.createdAt));
  CHECK(a["shopifyCustomerId"].IsNull());
  const auto& b = r.json["data"]["b"];
  CHECK(std::string(b["firstName"].GetString()) == "");
  CHECK(b["lastName"].IsNull());
  CHECK(std::string(b["fullName"].GetString()) == "");
  CHECK(std::string(b["type"].GetString()) == "ANONYMOUS");
  CHECK(r.json["data"]["missing"].IsNull());  // a missing customer is null, not an error

  // Another store's customer is null, exactly as a missing one.
  auto other = f.service->directory().CreateShop({"Other", Plan::kPro, false});
  InboundMessageInput in;
  in.text = "hi";
  in.customerName = "Eve";
  auto theirs = f.service->conversations().ReceiveInbound(Principal::System(other->id), in);
  auto cross = f.Query("{ customer(id: \"" + *theirs->customerUuid + "\") { id } }");
  CHECK(cross.json["data"]["customer"].IsNull());
  CHECK_FALSE(cross.json.HasMember("errors"));
}

TEST_CASE("graphql: pagination forward then backward over the store, with page info") {
  GqlFixture f;
  for (int i = 0; i < 12; ++i) {
    f.clock.Advance(1);
    f.Inbound("online_store", "C" + std::to_string(i), "c" + std::to_string(i) + "@x.test");
  }
  std::vector<std::string> seen;
  std::string after;
  for (int guard = 0; guard < 10; ++guard) {
    std::string args = "first: 5" + (after.empty() ? "" : ", after: \"" + after + "\"");
    auto r = f.Query("{ customers(" + args +
                     ") { totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor "
                     "endCursor } } }");
    REQUIRE(r.status == 200);
    const auto& c = r.json["data"]["customers"];
    CHECK(c["totalCount"].GetInt() == 12);
    for (const auto& e : c["edges"].GetArray()) seen.push_back(e["node"]["id"].GetString());
    CHECK(c["pageInfo"]["hasPreviousPage"].GetBool() == !after.empty());
    if (!c["pageInfo"]["hasNextPage"].GetBool()) break;
    after = c["pageInfo"]["endCursor"].GetString();
  }
  CHECK(seen.size() == 12);
  std::vector<std::string> back;
  std::string before;
  for (int guard = 0; guard < 10; ++guard) {
    std::string args = "last: 5" + (before.empty() ? "" : ", before: \"" + before + "\"");
    auto r = f.Query("{ customers(" + args + ") { nodes { id } pageInfo { hasPreviousPage startCursor } } }");
    const auto& c = r.json["data"]["customers"];
    std::vector<std::string> page;
    for (const auto& n : c["nodes"].GetArray()) page.push_back(n["id"].GetString());
    back.insert(back.begin(), page.begin(), page.end());
    if (!c["pageInfo"]["hasPreviousPage"].GetBool()) break;
    before = c["pageInfo"]["startCursor"].GetString();
  }
  CHECK(back == seen);
  auto empty = f.Query("{ customers(first: 0) { pageInfo { startCursor endCursor hasNextPage } } }");
  CHECK(empty.json["data"]["customers"]["pageInfo"]["startCursor"].IsNull());
  CHECK(empty.json["data"]["customers"]["pageInfo"]["endCursor"].IsNull());
  CHECK(empty.json["data"]["customers"]["pageInfo"]["hasNextPage"].GetBool());
  auto negative = f.Query("{ customers(first: -1) { totalCount } }");
  CHECK(negative.status == 200);
  CHECK(negative.json["data"].IsNull());  // customers is non-null: the error nulls the whole data
  CHECK(Code(negative.json) == "BAD_USER_INPUT");
  CHECK(std::string(negative.json["errors"][0]["path"][0].GetString()) == "customers");
  auto badCursor = f.Query("{ customers(after: \"!!\") { totalCount } }");
  CHECK(Code(badCursor.json) == "BAD_USER_INPUT");
}

TEST_CASE("graphql: a key without Read customers gets FORBIDDEN per field; a partial success keeps the rest") {
  GqlFixture f;
  auto c = f.Inbound("online_store", std::string("Ann"), std::nullopt);
  auto weak = f.service->directory().CreateApiKey(Principal::System(f.shop.id), {"weak", kPermReadConversations, false});
  auto r = f.Post("{\"query\":\"{ customer(id: \\\"" + c.id + "\\\") { id } __typename }\"}", true, "application/json",
                  f.shop.appId, weak->secret);
  CHECK(r.status == 200);
  CHECK(r.json["data"]["customer"].IsNull());
  CHECK(std::string(r.json["data"]["__typename"].GetString()) == "Query");
  CHECK(Code(r.json) == "FORBIDDEN");
  CHECK(std::string(r.json["errors"][0]["path"][0].GetString()) == "customer");
}

TEST_CASE("graphql: query cost is metered with a token bucket per key") {
  GraphQLApiOptions o;
  o.bucketCapacity = 250;
  o.refillPerSecond = 10;
  GqlFixture f(o);
  // 1 (customers) + 100 x (1 nodes... ) : nodes costs 1 per page item, id 1 per item.
  auto first = f.Query("{ customers(first: 100) { nodes { id } } }");
  CHECK(first.status == 200);
  CHECK(first.json["extensions"]["cost"]["requestedQueryCost"].GetDouble() == 201);
  CHECK(first.json["extensions"]["cost"]["throttleStatus"]["currentlyAvailable"].GetDouble() == 49);
  auto throttled = f.Query("{ customers(first: 100) { nodes { id } } }");
  CHECK(throttled.status == 200);
  CHECK(throttled.json["data"].IsNull());
  CHECK(Code(throttled.json) == "THROTTLED");
  f.clock.Advance(16'000);  // 49 + 160 = 209 >= 201
  CHECK(f.Query("{ customers(first: 100) { nodes { id } } }").json["data"].IsObject());
  auto huge = f.Query("{ customers(first: 100000) { nodes { id } } }");
  CHECK(Code(huge.json) == "THROTTLED");
  CHECK(std::string(huge.json["errors"][0]["message"].GetString()).find("exceeds the budget") != std::string::npos);
}

TEST_CASE("graphql: a redacted customer reads isRedacted with its personal fields cleared, in lookups and lists") {
  GqlFixture f;
  auto ada = f.Inbound("email", std::string("Ada Lovelace"), std::string("ada@example.com"));
  f.clock.Advance(1000);  // list order is createdAt, then id
  auto bob = f.Inbound("email", std::string("Bob Builder"), std::string("bob@example.com"));
  PlatformRequestInput in;
  in.topic = platform_topic::kCustomersRedact;
  in.customerEmail = "ada@example.com";
  in.bodyDigest = "b";
  auto rec = f.service->privacy().ApplyPlatformRequest(Principal::System(f.shop.id), in);
  REQUIRE(rec.ok());
  REQUIRE(rec->outcome == "applied");

  auto r = f.Query("{ customer(id: \"" + ada.id +
                   "\") { id firstName lastName fullName email isRedacted } customers(first: 5) { nodes { id email "
                   "isRedacted } } }");
  REQUIRE(r.status == 200);
  CHECK_FALSE(r.json.HasMember("errors"));
  const auto& a = r.json["data"]["customer"];
  CHECK(std::string(a["id"].GetString()) == ada.id);
  CHECK(std::string(a["firstName"].GetString()) == "");
  CHECK(a["lastName"].IsNull());
  CHECK(std::string(a["fullName"].GetString()) == "");
  CHECK(a["email"].IsNull());
  CHECK(a["isRedacted"].GetBool());
  const auto& nodes = r.json["data"]["customers"]["nodes"];
  REQUIRE(nodes.Size() == 2);
  CHECK(std::string(nodes[0]["id"].GetString()) == ada.id);
  CHECK(nodes[0]["isRedacted"].GetBool());
  CHECK(nodes[0]["email"].IsNull());
  CHECK(std::string(nodes[1]["id"].GetString()) == bob.id);
  CHECK_FALSE(nodes[1]["isRedacted"].GetBool());
  CHECK(std::string(nodes[1]["email"].GetString()) == "bob@example.com");
}

}  // namespace livechat
