// Store conformance, the outbox (OutboxReads, OutboxWrites in
// livechat/store/outbox.h): the events a write appends. Every Store must pass
// it. Subscriptions and the delivery queue are in store_webhooks_conformance.
#include <string>
#include <vector>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

// ------------------------------ events (OutboxReads, OutboxWrites)

STORE_TEST("events: oldest first, per shop, limit") {
  StoreFixture fx;
  Store& s = fx.store();
  Event e1{"e1", kShopA, "message.created", "c1", 1000, R"({"text":"hi \"there\""})"};
  Event e2{"e2", kShopA, "customer.created", std::nullopt, 1001, "{}"};
  Event eb{"eb", kShopB, "message.created", "c9", 1002, "{}"};
  Event e3{"e3", kShopA, "conversation.assigned", "c1", 1003, R"({"memberId":"m1"})"};
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.AppendEvent(e1));
    LC_RETURN_IF_ERROR(w.AppendEvent(e2));
    return w.AppendEvent(eb);
  });
  Put(s, [&](StoreWriter& w) { return w.AppendEvent(e3); });

  auto events = Get(s, [&](StoreReader& r) { return r.ListEvents(kShopA, 10); });
  REQUIRE(events.size() == 3);
  CheckSame(events[0], e1);
  CheckSame(events[1], e2);
  CheckSame(events[2], e3);
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListEvents(kShopA, 2); })) == Ids_{"e1", "e2"});
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListEvents(kShopB, 10); })) == Ids_{"eb"});
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.AppendEvent(e1); }));
}

}  // namespace
}  // namespace livechat::testing
