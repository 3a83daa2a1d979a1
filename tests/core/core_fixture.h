// A ChatService on a private in-memory SQLite store with a manual clock and a
// seeded random source: deterministic, no sleeping, no network.
#pragma once

#include <doctest/doctest.h>

#include <memory>

#include "livechat/chat_service.h"
#include "livechat/sqlite_store.h"
#include "support/test_store.h"

namespace livechat::test {

struct CoreFixture {
  ManualClock clock;
  std::unique_ptr<Random> random = NewSeededRandom(42);
  std::unique_ptr<Store> store;
  std::unique_ptr<ChatService> service;
  Shop shop;
  Member agent;
  std::string key;      // every conversation permission
  Principal sys;

  explicit CoreFixture(Limits limits = {}, Plan plan = Plan::kPro, bool autoAssign = false,
                       MetricsRegistry* metrics = nullptr) {
    auto opened = testing::OpenTestStore();
    REQUIRE(opened.ok());
    store = std::move(opened).value();
    ServiceOptions o;
    o.store = store.get();
    o.clock = &clock;
    o.random = random.get();
    o.limits = limits;
    o.metrics = metrics;
    service = std::make_unique<ChatService>(o);
    auto s = service->directory().CreateShop({"Test shop", plan, autoAssign});
    REQUIRE(s.ok());
    shop = *s;
    sys = Principal::System(shop.id);
    auto m = service->directory().CreateMember(sys, {"agent@shop.test", "Alex", "Agent", "member", std::nullopt, true, std::nullopt});
    REQUIRE(m.ok());
    agent = *m;
    if (PlanAllowsApiKeys(plan)) {
      auto k = service->directory().CreateApiKey(sys, {"all", kPermReadConversations | kPermManageConversations | kPermReadCustomers, false});
      REQUIRE(k.ok());
      key = k->secret;
    }
  }

  Principal Auth(const std::string& k) {
    auto p = service->auth().AuthenticateApiKey(k);
    REQUIRE(p.ok());
    return *p;
  }

  Conversation Inbound(const std::string& channel, const std::string& text,
                       std::optional<std::string> email = std::nullopt,
                       std::optional<std::string> recipient = std::nullopt) {
    InboundMessageInput in;
    in.channel = channel;
    in.customerName = "Casey Customer";
    in.customerEmail = email;
    in.channelRecipient = recipient;
    in.text = text;
    auto c = service->conversations().ReceiveInbound(sys, in);
    REQUIRE(c.ok());
    return *c;
  }
};

}  // namespace livechat::test
