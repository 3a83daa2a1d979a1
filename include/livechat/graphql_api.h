// The read-only GraphQL Customer API (spec: "GraphQL Customer API"): the
// Customer schema bound to ChatService, and its HTTP adapter for POST /graphql.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "livechat/chat_service.h"
#include "livechat/graphql.h"
#include "livechat/http.h"
#include "livechat/metrics.h"

#include "livechat/rate_counters.h"

namespace livechat {

// The Customer schema. Resolvers read through the ChatService and Principal
// handed to each execution (GraphQLApi does that).
Result<graphql::Schema> BuildCustomerSchema();

struct GraphQLApiOptions {
  std::size_t maxBodyBytes = 1 << 20;
  // Query-cost metering: a token bucket per API key (per source IP for
  // credential-free introspection). Both are settings; the spec leaves them
  // unpublished.
  std::int64_t bucketCapacity = 20'000;
  std::int64_t refillPerSecond = 1'000;
  // Where the buckets are kept; null: in this process. Several instances on
  // one database pass the database's (OpenPostgresCostBuckets with the same
  // capacity and refill) so a key's bucket drains across them. Not owned.
  CostBuckets* costBuckets = nullptr;
  // Cost model: every selected field costs 1; a customers page multiplies
  // the cost of what is selected under it by its page size (first or last;
  // when neither is given, by this assumed size).
  std::int64_t unboundedPageAssumption = 1'000;
  std::vector<Cidr> trustedProxies;
  // Throttled requests are counted as rate-limit refusals (scope "graphql"); null: not counted.
  MetricsRegistry* metrics = nullptr;
};

// Thread-safe.
class GraphQLApi {
 public:
  GraphQLApi(ChatService& service, GraphQLApiOptions options);
  ~GraphQLApi();

  // True for "/graphql" (with or without a query string).
  static bool Owns(std::string_view target);
  HttpResponse Handle(const HttpRequest& req);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace livechat
