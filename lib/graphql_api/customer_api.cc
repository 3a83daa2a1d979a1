// The spec's Customer schema bound to ChatService, and POST /graphql.
#include <rapidjson/document.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "graphql/json_value.h"
#include "http/json_body.h"
#include "livechat/graphql_api.h"
#include "livechat/json_codec.h"

namespace livechat {

using graphql::FieldDef;
using graphql::FieldError;
using graphql::FieldResult;
using graphql::InputValueDef;
using graphql::ObjectTypeDef;
using graphql::ResolveContext;
using graphql::Value;

namespace {

// What every resolver reads: who asks, through which service.
struct ApiContext {
  ChatService* service;
  Principal principal;
};

Value Opt(const std::optional<std::string>& s) { return s ? Value(*s) : Value(); }
Value OptTime(const std::optional<Millis>& t) { return t ? Value(FormatIso8601(*t)) : Value(); }

std::string TypeEnum(const std::string& type) {
  if (type == "guest") return "GUEST";
  if (type == "anonymous") return "ANONYMOUS";
  return "CUSTOMER";  // spec: CUSTOMER when unclassified
}

std::optional<std::string> ChannelEnum(const std::string& ch) {
  if (ch == "online_store") return "ONLINE_STORE";
  if (ch == "email") return "EMAIL";
  if (ch == "whatsapp") return "WHATSAPP";
  if (ch == "facebook") return "FACEBOOK";
  if (ch == "instagram") return "INSTAGRAM";
  return std::nullopt;
}

std::string FirstName(const Customer& c) { return c.firstName.value_or(""); }

FieldDef CustomerField(std::string name, std::string type, std::string description,
                       std::function<Value(const Customer&)> read) {
  FieldDef f;
  f.name = std::move(name);
  f.type = std::move(type);
  if (!description.empty()) f.description = std::move(description);
  f.resolve = [read = std::move(read)](const ResolveContext& ctx) -> FieldResult {
    return read(*ctx.source().HostAs<Customer>());
  };
  return f;
}

Value CustomerValue(Customer c) { return Value::Host<Customer>(std::make_shared<const Customer>(std::move(c))); }
// A page's customer, shared with the page rather than copied out of it.
Value PageCustomerValue(const std::shared_ptr<const CustomerPage>& page, std::size_t i) {
  return Value::Host<Customer>(std::shared_ptr<const Customer>(page, &page->items[i]));
}

const ApiContext& Ctx(const ResolveContext& ctx) { return *ctx.Context<ApiContext>(); }

std::optional<std::int64_t> IntArg(const ResolveContext& ctx, std::string_view name) {
  const Value& v = ctx.Arg(name);
  if (v.IsInt()) return v.AsInt();
  return std::nullopt;
}

std::optional<std::string> StringArg(const ResolveContext& ctx, std::string_view name) {
  const Value& v = ctx.Arg(name);
  if (v.IsString()) return v.AsString();
  return std::nullopt;
}

}  // namespace

Result<graphql::Schema> BuildCustomerSchema() {
  graphql::SchemaBuilder b;
  ObjectTypeDef query{"Query", "The root of every query: look up one customer, or page through all of them."};
  query.fields.push_back(FieldDef{
      "customer",
      "Customer",
      "One customer of the store by id, or null when no customer of this store has that id.",
      {InputValueDef{"id", "ID!", "The customer's id."}},
      [](const ResolveContext& ctx) -> FieldResult {
        const ApiContext& a = Ctx(ctx);
        auto c = a.service->directory().GetCustomer(a.principal, ctx.Arg("id").AsString());
        if (!c.ok()) {
          if (c.error().code == ErrorCode::kNotFound) return Value();  // a missing customer is null, not an error
          return c.error();
        }
        return CustomerValue(std::move(c).value());
      }});
  query.fields.push_back(FieldDef{
      "customers",
      "CustomerConnection!",
      "All customers of the store in a stable order chosen by the server, a page at a time (Relay cursor "
      "pagination: first/after forward, last/before backward).",
      {
          InputValueDef{"first", "Int", "Page size going forward; not negative."},
          InputValueDef{"after", "String", "Start after this cursor (an endCursor from a previous page)."},
          InputValueDef{"last", "Int", "Page size going backward; not negative."},
          InputValueDef{"before", "String", "End before this cursor (a startCursor from a previous page)."},
      },
      [](const ResolveContext& ctx) -> FieldResult {
        const ApiContext& a = Ctx(ctx);
        CustomerPageRequest r;
        r.first = IntArg(ctx, "first");
        r.last = IntArg(ctx, "last");
        r.after = StringArg(ctx, "after");
        r.before = StringArg(ctx, "before");
        auto page = a.service->directory().ListCustomersPage(a.principal, r);
        if (!page.ok()) return page.error();
        return Value::Host<CustomerPage>(std::make_shared<const CustomerPage>(std::move(page).value()));
      }});
  b.Add(std::move(query));

  ObjectTypeDef customer{"Customer", "A contact of the store: a shopper who chatted, or was imported."};
  customer.fields = {
      CustomerField("id", "ID!", "The customer's id, an opaque string.", [](const Customer& c) { return Value(c.id); }),
      CustomerField("shopId", "String!", "The store the customer belongs to.",
                    [](const Customer& c) { return Value(c.shopId); }),
      CustomerField("shopifyCustomerId", "String", "The customer's id on the e-commerce platform, when known.",
                    [](const Customer& c) { return Opt(c.shopifyId); }),
      CustomerField("firstName", "String!", "First name; an empty string when unknown.",
                    [](const Customer& c) { return Value(FirstName(c)); }),
      CustomerField("lastName", "String", "", [](const Customer& c) { return Opt(c.lastName); }),
      CustomerField("email", "String", "", [](const Customer& c) { return Opt(c.email); }),
      CustomerField("phone", "String", "", [](const Customer& c) { return Opt(c.phone); }),
      CustomerField("ipLocation", "String", "Where the customer's last known IP address is located.",
                    [](const Customer& c) { return Opt(c.ipLocation); }),
      CustomerField("ipAddress", "String", "The customer's last known IP address.",
                    [](const Customer& c) { return Opt(c.ipAddress); }),
      CustomerField("type", "CustomerType!", "How the customer is known to the store; CUSTOMER when unclassified.",
                    [](const Customer& c) { return Value::Enum(TypeEnum(c.type)); }),
      CustomerField("channels", "[Channel!]!", "Channels the customer has used; [ONLINE_STORE] when none is recorded.",
                    [](const Customer& c) {
                      Value::List list;
                      for (const std::string& ch : c.channels)
                        if (auto e = ChannelEnum(ch)) list.push_back(Value::Enum(*e));
                      if (list.empty()) list.push_back(Value::Enum("ONLINE_STORE"));
                      return Value(std::move(list));
                    }),
      CustomerField("ordersCount", "Int!", "Number of orders placed.",
                    [](const Customer& c) {
                      auto n = std::clamp<std::int64_t>(c.ordersCount.value_or(0), 0, INT32_MAX);
                      return Value(static_cast<int>(n));
                    }),
      CustomerField("totalSpent", "Float!", "Lifetime spend.",
                    [](const Customer& c) { return Value(c.totalSpent.value_or(0.0)); }),
      CustomerField("createdAt", "DateTime!", "When the customer was first seen.",
                    [](const Customer& c) { return Value(FormatIso8601(c.createdAt)); }),
      CustomerField("updatedAt", "DateTime", "", [](const Customer& c) { return OptTime(c.updatedAt); }),
      CustomerField("lastChatAt", "DateTime", "When the customer last chatted.",
                    [](const Customer& c) { return OptTime(c.lastChatAt); }),
      CustomerField("fullName", "String!",
                    "firstName and lastName joined by a space (just firstName when there is no lastName).",
                    [](const Customer& c) {
                      std::string first = FirstName(c);
                      if (!c.lastName || c.lastName->empty()) return Value(first);
                      return Value(first.empty() ? *c.lastName : first + " " + *c.lastName);
                    }),
      CustomerField("isRedacted", "Boolean!",
                    "True when the contact was redacted at the e-commerce platform's request: its personal fields are cleared, its conversations kept under that label.",
                    [](const Customer& c) { return Value(c.redactedAt.has_value()); }),
  };
  b.Add(std::move(customer));

  b.Add(graphql::EnumTypeDef{"CustomerType",
                             "How a customer is known to the store. New values may be added; treat unknown ones as new.",
                             {graphql::EnumValueDef{"CUSTOMER", "A customer with an account on the store."},
                              graphql::EnumValueDef{"GUEST", "A shopper who gave contact details but has no account."},
                              graphql::EnumValueDef{"ANONYMOUS", "A visitor who gave no contact details."}}});
  b.Add(graphql::EnumTypeDef{
      "Channel",
      "A channel a customer can chat through. New values may be added; treat unknown ones as new.",
      {graphql::EnumValueDef{"ONLINE_STORE"}, graphql::EnumValueDef{"EMAIL"}, graphql::EnumValueDef{"WHATSAPP"},
       graphql::EnumValueDef{"FACEBOOK"}, graphql::EnumValueDef{"INSTAGRAM"}}});
  graphql::ScalarTypeDef dateTime{"DateTime",
                                  "A point in time as an ISO 8601 string in UTC, e.g. `2026-03-01T12:30:00Z`.",
                                  "https://scalars.graphql.org/andimarek/date-time"};
  dateTime.serialize = [](const Value& v) -> FieldResult {
    if (!v.IsString()) return FieldError{"DateTime cannot represent a non string value", ""};
    return v;
  };
  dateTime.parse = [](const Value& v) -> FieldResult {
    if (!v.IsString() || v.AsString().size() < 20 || v.AsString().back() != 'Z')
      return FieldError{"DateTime must be an ISO 8601 UTC string such as \"2026-03-01T12:30:00Z\"", ""};
    return v;
  };
  b.Add(std::move(dateTime));

  auto page = [](const ResolveContext& ctx) -> const CustomerPage& { return *ctx.source().HostAs<CustomerPage>(); };
  b.Add(ObjectTypeDef{
      "CustomerConnection",
      "A page of customers.",
      {
          FieldDef{"edges", "[CustomerEdge!]!", "The customers of this page, each with its cursor.", {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     const std::shared_ptr<const CustomerPage> p = ctx.source().HostShared<CustomerPage>();
                     Value::List edges;
                     edges.reserve(p->items.size());
                     for (std::size_t i = 0; i < p->items.size(); ++i)
                       edges.push_back(Value(Value::Object{{"cursor", Value(p->cursors[i])},
                                                           {"node", PageCustomerValue(p, i)}}));
                     return Value(std::move(edges));
                   }},
          FieldDef{"nodes", "[Customer!]!", "The customers of this page.", {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     const std::shared_ptr<const CustomerPage> p = ctx.source().HostShared<CustomerPage>();
                     Value::List nodes;
                     nodes.reserve(p->items.size());
                     for (std::size_t i = 0; i < p->items.size(); ++i) nodes.push_back(PageCustomerValue(p, i));
                     return Value(std::move(nodes));
                   }},
          FieldDef{"pageInfo", "PageInfo!", "Where this page is in the whole list.", {},
                   [page](const ResolveContext& ctx) -> FieldResult {
                     const CustomerPage& p = page(ctx);
                     Value info = Value(Value::Object{});
                     info.Set("hasNextPage", p.hasNextPage).Set("hasPreviousPage", p.hasPreviousPage);
                     info.Set("startCursor", p.cursors.empty() ? Value() : Value(p.cursors.front()));
                     info.Set("endCursor", p.cursors.empty() ? Value() : Value(p.cursors.back()));
                     return info;
                   }},
          FieldDef{"totalCount", "Int!", "The number of customers of the whole store, not of this page.", {},
                   [page](const ResolveContext& ctx) -> FieldResult {
                     auto n = std::clamp<std::int64_t>(page(ctx).totalCount, 0, INT32_MAX);
                     return Value(static_cast<int>(n));
                   }},
      }});
  b.Add(ObjectTypeDef{"CustomerEdge",
                      "A customer and its cursor.",
                      {FieldDef{"cursor", "String!", "Pass as after (or before) to continue from this customer."},
                       FieldDef{"node", "Customer!"}}});
  b.Add(ObjectTypeDef{
      "PageInfo",
      "Relay page information.",
      {FieldDef{"hasNextPage", "Boolean!", "Whether customers follow this page."},
       FieldDef{"hasPreviousPage", "Boolean!", "Whether customers precede this page."},
       FieldDef{"startCursor", "String", "The cursor of the first customer of the page; null when the page is empty."},
       FieldDef{"endCursor", "String", "The cursor of the last customer of the page; null when the page is empty."}}});
  return std::move(b).Build();
}

// ---------------------------------------------------------------- HTTP

namespace {

// The variables object counts as one: the same bound as a document's nesting.
constexpr int kMaxVariablesDepth = 64;

std::string ErrorsBody(std::string_view message, std::string_view code, bool dataNull) {
  std::string out = dataNull ? "{\"data\":null,\"errors\":[{\"message\":" : "{\"errors\":[{\"message\":";
  AppendJsonString(out, message);
  out += ",\"extensions\":{\"code\":";
  AppendJsonString(out, code);
  out += "}}]}";
  return out;
}

HttpResponse Json(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.SetHeader("Content-Type", "application/json; charset=utf-8");
  r.SetHeader("Cache-Control", "no-store");
  return r;
}

HttpResponse RequestError(int status, std::string_view message, std::string_view code) {
  return Json(status, ErrorsBody(message, code, false));
}

bool IsIntrospectionOnly(const std::vector<std::string>& roots) {
  return std::all_of(roots.begin(), roots.end(),
                     [](const std::string& f) { return f == "__schema" || f == "__type" || f == "__typename"; });
}

}  // namespace

struct GraphQLApi::Impl {
  Impl(ChatService& svc, GraphQLApiOptions opts, graphql::Schema s)
      : service(svc),
        options(std::move(opts)),
        schema(std::move(s)),
        ownBuckets(options.costBuckets ? nullptr
                                       : NewTokenBuckets(svc.clock(), options.bucketCapacity, options.refillPerSecond)),
        buckets(options.costBuckets ? *options.costBuckets : *ownBuckets) {}
  ChatService& service;
  GraphQLApiOptions options;
  graphql::Schema schema;
  std::unique_ptr<CostBuckets> ownBuckets;  // when options.costBuckets is null
  CostBuckets& buckets;

  std::int64_t Cost(const graphql::PreparedOperation& op) {
    return graphql::CalculateCost(op, [&](const graphql::WeighedField& f) {
      graphql::FieldWeight w{1, 1};
      if (f.parentType == "Query" && f.fieldName == "customers") {
        std::int64_t size = options.unboundedPageAssumption;
        for (const auto& [k, v] : f.args)
          if ((k == "first" || k == "last") && v.IsInt()) size = std::max<std::int64_t>(0, v.AsInt());
        w.multiplier = std::max<std::int64_t>(1, size);
      }
      return w;
    });
  }

  Value CostExtension(std::int64_t cost, double left) const {
    Value throttle = Value(Value::Object{});
    throttle.Set("maximumAvailable", static_cast<double>(options.bucketCapacity))
        .Set("currentlyAvailable", std::floor(left))
        .Set("restoreRate", static_cast<double>(options.refillPerSecond));
    Value c = Value(Value::Object{});
    c.Set("requestedQueryCost", static_cast<double>(cost)).Set("throttleStatus", std::move(throttle));
    return c;
  }
};

GraphQLApi::GraphQLApi(ChatService& service, GraphQLApiOptions options) {
  auto schema = BuildCustomerSchema();
  // The schema is a constant of this build: failing to build it is a bug.
  if (!schema.ok()) std::abort();
  impl_ = std::make_unique<Impl>(service, std::move(options), std::move(schema).value());
}

GraphQLApi::~GraphQLApi() = default;

bool GraphQLApi::Owns(std::string_view target) {
  return target == "/graphql" || target.rfind("/graphql?", 0) == 0;
}

HttpResponse GraphQLApi::Handle(const HttpRequest& req) {
  Impl& I = *impl_;
  static constexpr std::array<MethodRoute, 1> kMethods{{{"POST"}}};
  if (auto m = MatchMethod(kMethods, req.method); !m.row) {
    HttpResponse r = RequestError(405, "GraphQL requests are POST " "/graphql with a JSON body; " + req.method +
                                           " is not supported", "METHOD_NOT_ALLOWED");
    r.SetHeader("Allow", m.allow);
    return r;
  }
  rapidjson::Document doc;
  const JsonBodyCheck check = http::ReadJsonBody(req, I.options.maxBodyBytes, doc);
  switch (check.status) {
    case JsonBodyStatus::kOk:
      break;
    case JsonBodyStatus::kTooLarge:
      return RequestError(413, "request body is larger than " + std::to_string(I.options.maxBodyBytes) + " bytes",
                          "BAD_REQUEST");
    case JsonBodyStatus::kUnsupportedMediaType: {
      const std::string got = req.Header("content-type").value_or("");
      return RequestError(415, "send the request as Content-Type: application/json (got " +
                                   (got.empty() ? std::string("none") : got) + ")",
                          "BAD_REQUEST");
    }
    case JsonBodyStatus::kNotUtf8:
      return RequestError(400, "body is not valid UTF-8", "BAD_REQUEST");
    case JsonBodyStatus::kEmpty:
    case JsonBodyStatus::kMalformedJson:
      return RequestError(400, "body is not valid JSON: " + check.parseError, "BAD_REQUEST");
  }
  if (!doc.IsObject()) return RequestError(400, "body must be a JSON object {query, variables?, operationName?}", "BAD_REQUEST");
  auto q = doc.FindMember("query");
  if (q == doc.MemberEnd() || !q->value.IsString() || q->value.GetStringLength() == 0)
    return RequestError(400, "the body carries no query: send {\"query\": \"...\"}", "BAD_REQUEST");
  std::optional<std::string> operationName;
  if (auto op = doc.FindMember("operationName"); op != doc.MemberEnd() && !op->value.IsNull()) {
    if (!op->value.IsString()) return RequestError(400, "operationName must be a string", "BAD_REQUEST");
    operationName = std::string(op->value.GetString(), op->value.GetStringLength());
  }
  Value variables;
  if (auto v = doc.FindMember("variables"); v != doc.MemberEnd() && !v->value.IsNull()) {
    if (!v->value.IsObject()) return RequestError(400, "variables must be a JSON object", "BAD_REQUEST");
    auto converted = graphql::FromRapidJson(v->value, kMaxVariablesDepth);
    if (!converted.ok())
      return RequestError(400,
                          "variables are nested more than " + std::to_string(kMaxVariablesDepth) +
                              " arrays and objects deep",
                          "BAD_REQUEST");
    variables = std::move(*converted);
  }

  auto parsed = graphql::Parse(std::string_view(q->value.GetString(), q->value.GetStringLength()));
  if (auto* err = std::get_if<graphql::ResponseError>(&parsed)) {
    graphql::ExecutionResult r;
    r.errors.push_back(*err);
    return Json(400, r.ToJson());
  }
  const graphql::Document& document = std::get<graphql::Document>(parsed);
  if (auto errs = graphql::Validate(I.schema, document); !errs.empty()) {
    graphql::ExecutionResult r;
    r.errors = std::move(errs);
    return Json(400, r.ToJson());
  }
  auto prepared = graphql::Prepare(I.schema, document,
                                   operationName ? std::optional<std::string_view>(*operationName) : std::nullopt,
                                   variables);
  if (auto* errs = std::get_if<std::vector<graphql::ResponseError>>(&prepared)) {
    graphql::ExecutionResult r;
    r.errors = std::move(*errs);
    return Json(400, r.ToJson());
  }
  const graphql::PreparedOperation& op = std::get<graphql::PreparedOperation>(prepared);

  // Introspection works without credentials; anything reading contact data
  // needs both headers (spec).
  ApiContext ctx{&I.service, Principal{}};
  std::string bucketKey;
  if (IsIntrospectionOnly(graphql::RootFieldNames(op))) {
    bucketKey = "ip:" + ClientIp(req, I.options.trustedProxies);
  } else {
    auto p = I.service.auth().AuthenticateAppKey(req.Header("x-api-id").value_or(""),
                                          req.Header("x-api-secret").value_or(""));
    if (!p.ok())
      return Json(200, ErrorsBody(p.error().code == ErrorCode::kUnauthenticated
                                      ? "missing credentials: send the x-api-id and x-api-secret headers"
                                      : "invalid credentials: x-api-id and x-api-secret do not match a key of that app",
                                  "UNAUTHENTICATED", true));
    ctx.principal = *p;
    bucketKey = "key:" + p->keyId.value_or("");
  }

  const std::int64_t cost = I.Cost(op);
  const CostBuckets::Outcome taken = I.buckets.Take(bucketKey, cost);
  const double left = taken.left;
  if (!taken.allowed) {
    graphql::ExecutionResult r;
    r.hasData = true;
    r.data = Value();
    const double wait = I.options.refillPerSecond > 0
                            ? std::ceil((static_cast<double>(cost) - left) / static_cast<double>(I.options.refillPerSecond))
                            : -1;
    std::string msg = cost > I.options.bucketCapacity
                          ? "query cost " + std::to_string(cost) + " exceeds the budget of " +
                                std::to_string(I.options.bucketCapacity) + ": ask for smaller pages"
                          : "query cost " + std::to_string(cost) + " exceeds the " +
                                std::to_string(static_cast<std::int64_t>(left)) + " points left; retry in " +
                                std::to_string(static_cast<std::int64_t>(wait)) + " s";
    r.errors.push_back(graphql::ResponseError{msg, {}, std::nullopt, "THROTTLED"});
    if (I.options.metrics)
      I.options.metrics
          ->GetCounter(metric::kRateLimitRefusals, metric::kRateLimitRefusalsHelp, {{"scope", "graphql"}})
          .Inc();
    r.extensions.emplace_back("cost", I.CostExtension(cost, left));
    return Json(200, r.ToJson());
  }
  graphql::ExecutionResult result = graphql::ExecuteToJson(op, &ctx);
  result.extensions.emplace_back("cost", I.CostExtension(cost, left));
  return Json(200, result.ToJson());
}

}  // namespace livechat
