// A test schema of the spec's shape ("GraphQL Customer type" / "GraphQL
// Customer API") over an in-memory vector of customers, so the engine is
// proven on the real types. docs/graphql/schema.graphql is this schema
// printed; the lead's binding to ChatService must print the same.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "livechat/graphql.h"

namespace livechat::graphql::testing {

struct CustomerRecord {
  std::string id;
  std::string shopId = "shop_1";
  std::optional<std::string> shopifyCustomerId;
  std::string firstName;
  std::optional<std::string> lastName;
  std::optional<std::string> email;
  std::optional<std::string> phone;
  std::optional<std::string> ipLocation;
  std::optional<std::string> ipAddress;
  std::string type = "CUSTOMER";
  std::vector<std::string> channels = {"ONLINE_STORE"};
  int ordersCount = 0;
  double totalSpent = 0;
  std::string createdAt = "2026-01-01T00:00:00Z";
  std::optional<std::string> updatedAt;
  std::optional<std::string> lastChatAt;
  bool isRedacted = false;
  // Test hooks: make a field fail or return null where it must not.
  bool failEmail = false;
  bool nullFirstName = false;
};

// One page of the connection, what Query.customers resolves to.
struct CustomerPage {
  std::vector<std::size_t> indices;  // into the store
  bool hasNextPage = false;
  bool hasPreviousPage = false;
  std::size_t totalCount = 0;
};

struct CustomerStore {
  std::vector<CustomerRecord> customers;
  mutable int resolverCalls = 0;  // resolvers see the context as const
};

inline Value OptionalString(const std::optional<std::string>& s) { return s ? Value(*s) : Value(); }

inline std::string CursorFor(std::size_t index) { return "c" + std::to_string(index); }

inline std::optional<std::size_t> ParseCursor(const std::string& cursor) {
  if (cursor.size() < 2 || cursor[0] != 'c') return std::nullopt;
  try {
    return static_cast<std::size_t>(std::stoul(cursor.substr(1)));
  } catch (...) {
    return std::nullopt;
  }
}

// Customer fields read the host record the parent resolver returned.
inline FieldDef CustomerField(std::string name, std::string type, std::string description,
                              std::function<Value(const CustomerRecord&)> read) {
  FieldDef f;
  f.name = std::move(name);
  f.type = std::move(type);
  f.description = std::move(description);
  f.resolve = [read = std::move(read)](const ResolveContext& ctx) -> FieldResult {
    const auto* store = ctx.Context<CustomerStore>();
    if (store != nullptr) store->resolverCalls++;
    return read(*ctx.source().HostAs<CustomerRecord>());
  };
  return f;
}

inline Value CustomerValue(const CustomerStore& store, std::size_t index) {
  return Value::HostUnowned<CustomerRecord>(&store.customers[index]);
}

inline Result<Schema> BuildCustomerSchema(const CustomerStore& store) {
  SchemaBuilder b;
  const CustomerStore* s = &store;

  ObjectTypeDef query{"Query", "The root of every query: look up one customer, or page through all of them."};
  query.fields.push_back(FieldDef{
      "customer",
      "Customer",
      "One customer of the store by id, or null when no customer of this store has that id.",
      {InputValueDef{"id", "ID!", "The customer's id."}},
      [s](const ResolveContext& ctx) -> FieldResult {
        const std::string& id = ctx.Arg("id").AsString();
        if (id == "boom") return FieldError{"customer lookup failed", "INTERNAL_SERVER_ERROR"};
        for (std::size_t i = 0; i < s->customers.size(); ++i) {
          if (s->customers[i].id == id) return CustomerValue(*s, i);
        }
        return Value();
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
      [s](const ResolveContext& ctx) -> FieldResult {
        const std::size_t n = s->customers.size();
        std::size_t begin = 0;
        std::size_t end = n;
        if (ctx.HasArg("after") && !ctx.Arg("after").IsNull()) {
          std::optional<std::size_t> c = ParseCursor(ctx.Arg("after").AsString());
          if (!c) return FieldError{"after is not a valid cursor", "BAD_USER_INPUT"};
          begin = std::min(n, *c + 1);
        }
        if (ctx.HasArg("before") && !ctx.Arg("before").IsNull()) {
          std::optional<std::size_t> c = ParseCursor(ctx.Arg("before").AsString());
          if (!c) return FieldError{"before is not a valid cursor", "BAD_USER_INPUT"};
          end = std::min(end, *c);
        }
        if (end < begin) end = begin;
        CustomerPage page;
        page.totalCount = n;
        std::size_t from = begin;
        std::size_t to = end;
        if (ctx.Arg("first").IsInt()) {
          if (ctx.Arg("first").AsInt() < 0) return FieldError{"first must not be negative", "BAD_USER_INPUT"};
          to = std::min(to, from + static_cast<std::size_t>(ctx.Arg("first").AsInt()));
        }
        if (ctx.Arg("last").IsInt()) {
          if (ctx.Arg("last").AsInt() < 0) return FieldError{"last must not be negative", "BAD_USER_INPUT"};
          const auto last = static_cast<std::size_t>(ctx.Arg("last").AsInt());
          if (to - from > last) from = to - last;
        }
        for (std::size_t i = from; i < to; ++i) page.indices.push_back(i);
        page.hasNextPage = to < n;
        page.hasPreviousPage = from > 0;
        return Value::Host<CustomerPage>(std::make_shared<const CustomerPage>(std::move(page)));
      }});
  b.Add(std::move(query));

  ObjectTypeDef customer{"Customer", "A contact of the store: a shopper who chatted, or was imported."};
  customer.fields = {
      CustomerField("id", "ID!", "The customer's id, an opaque string.", [](const CustomerRecord& c) { return Value(c.id); }),
      CustomerField("shopId", "String!", "The store the customer belongs to.",
                    [](const CustomerRecord& c) { return Value(c.shopId); }),
      CustomerField("shopifyCustomerId", "String", "The customer's id on the e-commerce platform, when known.",
                    [](const CustomerRecord& c) { return OptionalString(c.shopifyCustomerId); }),
      CustomerField("firstName", "String!", "First name; an empty string when unknown.",
                    [](const CustomerRecord& c) { return c.nullFirstName ? Value() : Value(c.firstName); }),
      CustomerField("lastName", "String", "", [](const CustomerRecord& c) { return OptionalString(c.lastName); }),
      CustomerField("email", "String", "", [](const CustomerRecord& c) { return OptionalString(c.email); }),
      CustomerField("phone", "String", "", [](const CustomerRecord& c) { return OptionalString(c.phone); }),
      CustomerField("ipLocation", "String", "Where the customer's last known IP address is located.",
                    [](const CustomerRecord& c) { return OptionalString(c.ipLocation); }),
      CustomerField("ipAddress", "String", "The customer's last known IP address.",
                    [](const CustomerRecord& c) { return OptionalString(c.ipAddress); }),
      CustomerField("type", "CustomerType!", "How the customer is known to the store; CUSTOMER when unclassified.",
                    [](const CustomerRecord& c) { return Value::Enum(c.type); }),
      CustomerField("channels", "[Channel!]!", "Channels the customer has used; [ONLINE_STORE] when none is recorded.",
                    [](const CustomerRecord& c) {
                      Value::List list;
                      for (const std::string& ch : c.channels) list.push_back(Value::Enum(ch));
                      return Value(std::move(list));
                    }),
      CustomerField("ordersCount", "Int!", "Number of orders placed.",
                    [](const CustomerRecord& c) { return Value(c.ordersCount); }),
      CustomerField("totalSpent", "Float!", "Lifetime spend.", [](const CustomerRecord& c) { return Value(c.totalSpent); }),
      CustomerField("createdAt", "DateTime!", "When the customer was first seen.",
                    [](const CustomerRecord& c) { return Value(c.createdAt); }),
      CustomerField("updatedAt", "DateTime", "", [](const CustomerRecord& c) { return OptionalString(c.updatedAt); }),
      CustomerField("lastChatAt", "DateTime", "When the customer last chatted.",
                    [](const CustomerRecord& c) { return OptionalString(c.lastChatAt); }),
      CustomerField("fullName", "String!", "firstName and lastName joined by a space (just firstName when there is no lastName).",
                    [](const CustomerRecord& c) {
                      return Value(c.lastName && !c.lastName->empty() ? c.firstName + " " + *c.lastName : c.firstName);
                    }),
      CustomerField("isRedacted", "Boolean!",
                    "True when the contact was redacted at the e-commerce platform's request: its personal fields are cleared, its conversations kept under that label.",
                    [](const CustomerRecord& c) { return Value(c.isRedacted); }),
  };
  // A field whose resolver fails for some customers (per-field errors).
  for (FieldDef& f : customer.fields) {
    if (f.name != "email") continue;
    f.resolve = [](const ResolveContext& ctx) -> FieldResult {
      const CustomerRecord& c = *ctx.source().HostAs<CustomerRecord>();
      if (c.failEmail) return Error{ErrorCode::kForbidden, "email is hidden for this customer"};
      return OptionalString(c.email);
    };
  }
  for (FieldDef& f : customer.fields) {
    if (f.description && f.description->empty()) f.description.reset();
  }
  b.Add(std::move(customer));

  b.Add(EnumTypeDef{"CustomerType",
                    "How a customer is known to the store. New values may be added; treat unknown ones as new.",
                    {EnumValueDef{"CUSTOMER", "A customer with an account on the store."},
                     EnumValueDef{"GUEST", "A shopper who gave contact details but has no account."},
                     EnumValueDef{"ANONYMOUS", "A visitor who gave no contact details."}}});
  b.Add(EnumTypeDef{"Channel",
                    "A channel a customer can chat through. New values may be added; treat unknown ones as new.",
                    {EnumValueDef{"ONLINE_STORE"}, EnumValueDef{"EMAIL"}, EnumValueDef{"WHATSAPP"},
                     EnumValueDef{"FACEBOOK"}, EnumValueDef{"INSTAGRAM"}}});
  ScalarTypeDef dateTime{"DateTime", "A point in time as an ISO 8601 string in UTC, e.g. `2026-03-01T12:30:00Z`.",
                         "https://scalars.graphql.org/andimarek/date-time"};
  dateTime.serialize = [](const Value& v) -> FieldResult {
    if (!v.IsString()) return FieldError{"DateTime cannot represent a non string value", ""};
    return v;
  };
  dateTime.parse = [](const Value& v) -> FieldResult {
    if (!v.IsString() || v.AsString().size() < 20 || v.AsString().back() != 'Z') {
      return FieldError{"DateTime must be an ISO 8601 UTC string such as \"2026-03-01T12:30:00Z\"", ""};
    }
    return v;
  };
  b.Add(std::move(dateTime));

  auto page = [](const ResolveContext& ctx) -> const CustomerPage& { return *ctx.source().HostAs<CustomerPage>(); };
  b.Add(ObjectTypeDef{
      "CustomerConnection",
      "A page of customers.",
      {
          FieldDef{"edges", "[CustomerEdge!]!", "The customers of this page, each with its cursor.", {},
                   [s, page](const ResolveContext& ctx) -> FieldResult {
                     Value::List edges;
                     for (std::size_t i : page(ctx).indices) {
                       edges.push_back(Value(Value::Object{{"cursor", Value(CursorFor(i))}, {"node", CustomerValue(*s, i)}}));
                     }
                     return Value(std::move(edges));
                   }},
          FieldDef{"nodes", "[Customer!]!", "The customers of this page.", {},
                   [s, page](const ResolveContext& ctx) -> FieldResult {
                     Value::List nodes;
                     for (std::size_t i : page(ctx).indices) nodes.push_back(CustomerValue(*s, i));
                     return Value(std::move(nodes));
                   }},
          FieldDef{"pageInfo", "PageInfo!", "Where this page is in the whole list.", {},
                   [page](const ResolveContext& ctx) -> FieldResult {
                     const CustomerPage& p = page(ctx);
                     Value info = Value(Value::Object{});
                     info.Set("hasNextPage", p.hasNextPage).Set("hasPreviousPage", p.hasPreviousPage);
                     info.Set("startCursor", p.indices.empty() ? Value() : Value(CursorFor(p.indices.front())));
                     info.Set("endCursor", p.indices.empty() ? Value() : Value(CursorFor(p.indices.back())));
                     return info;
                   }},
          FieldDef{"totalCount", "Int!", "The number of customers of the whole store, not of this page.", {},
                   [page](const ResolveContext& ctx) -> FieldResult {
                     return Value(static_cast<int>(page(ctx).totalCount));
                   }},
      }});
  // Edges are plain objects: their fields use the default resolver.
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

// Five customers with varied optional fields.
inline CustomerStore SampleStore() {
  CustomerStore store;
  CustomerRecord a;
  a.id = "cus_1";
  a.firstName = "Ada";
  a.lastName = "Lovelace";
  a.email = "ada@example.com";
  a.type = "CUSTOMER";
  a.channels = {"ONLINE_STORE", "EMAIL"};
  a.ordersCount = 3;
  a.totalSpent = 120.5;
  a.lastChatAt = "2026-02-01T10:00:00Z";
  store.customers.push_back(a);
  CustomerRecord b;
  b.id = "cus_2";
  b.firstName = "";
  b.type = "ANONYMOUS";
  b.failEmail = true;
  store.customers.push_back(b);
  CustomerRecord c;
  c.id = "cus_3";
  c.firstName = "Grace";
  c.type = "GUEST";
  c.channels = {"WHATSAPP"};
  c.phone = "+15550100";
  store.customers.push_back(c);
  CustomerRecord d;
  d.id = "cus_4";
  d.firstName = "Alan";
  d.lastName = "Turing";
  d.totalSpent = 7;
  store.customers.push_back(d);
  CustomerRecord e;
  e.id = "cus_5";
  e.firstName = "Edsger";
  e.nullFirstName = true;
  store.customers.push_back(e);
  return store;
}

}  // namespace livechat::graphql::testing
