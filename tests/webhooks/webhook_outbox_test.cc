// The transactional outbox: events and their delivery rows commit with the
// change that fires them, or not at all; queued deliveries survive a restart
// and a sender that died holding a lease.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "core/service_internal.h"
#include "faulty_store.h"
#include "webhook_fixture.h"

namespace livechat::testing {
namespace {

// A second ChatService over the fixture's store, with a fault to inject.
struct Faulty {
  explicit Faulty(WebhookFixture& f) : store(f.store()), random(NewSeededRandom(99)) {
    ServiceOptions so;
    so.store = &store;
    so.clock = &f.clock;
    so.random = random.get();
    so.resolver = &f.resolver;
    so.limits = RelaxedLimits();
    so.onEventsQueued = [this] { ++eventWakes; };
    so.onDeliveriesQueued = [this] { ++deliveryWakes; };
    service = std::make_unique<ChatService>(so);
  }
  FaultyStore store;
  std::atomic<int> eventWakes{0};
  std::atomic<int> deliveryWakes{0};
  std::unique_ptr<Random> random;
  std::unique_ptr<ChatService> service;
};

std::int64_t CountConversations(WebhookFixture& f) {
  ConversationQuery q;
  q.shopId = f.shop.id;
  q.limit = 1000;
  std::int64_t n = 0;
  WebhookFixture::Must(f.store().Read([&](StoreReader& r) -> Status {
    LC_ASSIGN_OR_RETURN(auto rows, r.ListConversations(q));
    n = static_cast<std::int64_t>(rows.size());
    return Status::Ok();
  }));
  return n;
}

std::int64_t CountCustomers(WebhookFixture& f) {
  std::int64_t n = 0;
  WebhookFixture::Must(f.store().Read([&](StoreReader& r) -> Status {
    LC_ASSIGN_OR_RETURN(n, r.CountCustomers(f.shop.id));
    return Status::Ok();
  }));
  return n;
}

TEST_CASE("a write that fails after its events were appended leaves no event, no delivery and no change") {
  const std::vector<std::string> all = {"message.created", "conversation.created", "customer.created",
                                        "conversation.state_changed", "conversation.tags_updated"};
  struct Fault {
    const char* method;
    int nth;
  };
  // InsertDelivery #2: one event and one delivery row already written.
  // AppendEvent #3: the customer and conversation events already written.
  for (Fault fault : {Fault{"InsertDelivery", 1}, Fault{"InsertDelivery", 2}, Fault{"InsertDelivery", 5},
                      Fault{"AppendEvent", 2}, Fault{"AppendEvent", 3}, Fault{"InsertMessage", 1}}) {
    CAPTURE(fault.method);
    CAPTURE(fault.nth);
    WebhookFixture f;
    f.resolver.Set("b.example.com", {"151.101.1.69"});
    auto a = f.Subscribe(all);
    auto b = f.Subscribe(all, "https://b.example.com/x");
    Faulty x(f);
    x.store.FailOn(fault.method, fault.nth);

    InboundMessageInput in;
    in.customerEmail = "casey@example.com";
    in.text = "hello";
    auto r = x.service->conversations().ReceiveInbound(f.sys, in);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInternal);
    CHECK(x.store.injected() == 1);
    CHECK(f.Events().empty());
    CHECK(f.Deliveries(a.id).empty());
    CHECK(f.Deliveries(b.id).empty());
    CHECK(CountConversations(f) == 0);
    CHECK(CountCustomers(f) == 0);
    CHECK(f.Run() == 0);
    CHECK(f.transport.count() == 0);

    // The same call without the fault commits everything together.
    x.store.Disarm();
    auto ok = x.service->conversations().ReceiveInbound(f.sys, in);
    REQUIRE(ok.ok());
    CHECK(f.Events().size() == 3);
    CHECK(f.Deliveries(a.id).size() == 3);
    CHECK(f.Deliveries(b.id).size() == 3);
    CHECK(f.Run() == 6);
  }
}

TEST_CASE("the dispatcher is woken once after a write that queued deliveries, and after no other") {
  const std::vector<std::string> all = {"message.created", "conversation.created", "customer.created"};
  WebhookFixture f;
  Faulty x(f);
  InboundMessageInput in;
  in.customerEmail = "casey@example.com";
  in.text = "hello";

  // No subscription: events (the change feed wakes), no delivery, no wake.
  REQUIRE(x.service->conversations().ReceiveInbound(f.sys, in).ok());
  CHECK(f.Events().size() == 3);
  CHECK(x.eventWakes.load() == 1);
  CHECK(x.deliveryWakes.load() == 0);

  // Two subscriptions: the next message (a new conversation of the same
  // customer) queues two deliveries each, and the write wakes the
  // dispatcher once.
  auto a = f.Subscribe(all);
  f.resolver.Set("b.example.com", {"151.101.1.69"});
  auto b = f.Subscribe(all, "https://b.example.com/x");
  REQUIRE(x.service->conversations().ReceiveInbound(f.sys, in).ok());
  CHECK(f.Deliveries(a.id).size() == 2);
  CHECK(f.Deliveries(b.id).size() == 2);
  CHECK(x.deliveryWakes.load() == 1);

  // A write that queued a delivery and then failed committed none: no wake.
  x.store.FailOn("InsertDelivery", 2);
  CHECK_FALSE(x.service->conversations().ReceiveInbound(f.sys, in).ok());
  CHECK(x.store.injected() == 1);
  CHECK(f.Deliveries(a.id).size() == 2);
  CHECK(x.deliveryWakes.load() == 1);

  // An agent's reply queues a delivery per subscription too: one more wake.
  x.store.Disarm();
  const std::string convId = WebhookFixture::Must(x.service->conversations().ReceiveInbound(f.sys, in)).id;
  CHECK(x.deliveryWakes.load() == 2);
  SendMessageInput reply;
  reply.text = "hi";
  reply.memberId = f.agent.id;
  REQUIRE(x.service->conversations().SendMessage(f.sys, convId, reply).ok());
  CHECK(x.deliveryWakes.load() == 3);
  CHECK(f.Deliveries(a.id).size() == 5);  // 2 + 2 for the conversations, 1 for the reply
}

TEST_CASE("agent reply, state change and tags roll back with their outbox rows") {
  WebhookFixture f;
  auto conv = f.Inbound("hi");
  auto sub = f.Subscribe({"message.created", "conversation.state_changed", "conversation.tags_updated"});
  const std::size_t events = f.Events().size();
  Faulty x(f);
  x.store.FailOn("InsertDelivery");
  const Principal p = f.Caller();

  SendMessageInput m;
  m.text = "reply";
  m.memberId = f.agent.id;
  auto sent = x.service->conversations().SendMessage(p, conv.id, m);
  REQUIRE_FALSE(sent.ok());
  CHECK(sent.error().code == ErrorCode::kInternal);
  auto msgs = f.Must(f.service().conversations().ListMessages(p, conv.id, PageRequest{}, std::nullopt));
  CHECK(msgs.items.size() == 1);  // only the customer's

  auto st = x.service->conversations().SetState(p, conv.id, std::string("resolved"));
  REQUIRE_FALSE(st.ok());
  CHECK(f.Must(f.service().conversations().GetConversation(p, conv.id)).conversation.status == "open");

  auto tags = x.service->annotations().AddTags(p, conv.id, {"vip"});
  REQUIRE_FALSE(tags.ok());
  CHECK(f.Must(f.service().conversations().GetConversation(p, conv.id)).conversation.tags.empty());

  CHECK(f.Events().size() == events);
  CHECK(f.Deliveries(sub.id).empty());
  CHECK(x.store.injected() == 3);
}

TEST_CASE("a Write whose function emits events and then fails commits none of them") {
  WebhookFixture f;
  auto sub = f.Subscribe({"conversation.tags_updated"});
  Event e{"7d1c3f0e-8a4b-4f6e-9b1a-2c3d4e5f6a7b", f.shop.id, "conversation.tags_updated", std::string("c1"),
          f.clock.NowMillis(), R"({"tags":["x"]})"};
  Status st = f.store().Write([&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(internal::EmitEvents(w, f.random(), {e}));
    // Inside the transaction the rows are visible...
    LC_ASSIGN_OR_RETURN(auto ds, w.ListDeliveries(f.shop.id, sub.id, 10));
    if (ds.size() != 1) return MakeError(ErrorCode::kInternal, "expected the delivery inside the write");
    return MakeError(ErrorCode::kInvalidParams, "the change was refused after emitting");
  });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kInvalidParams);
  // ...and gone after the rollback.
  CHECK(f.Events().empty());
  CHECK(f.Deliveries(sub.id).empty());
  CHECK(f.Run() == 0);
}

TEST_CASE("queued deliveries survive a restart of the process (file database)") {
  const auto dir = std::filesystem::temp_directory_path() / ("livechat-webhooks-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "store.db").string();
  ManualClock clock;
  TableResolver resolver;
  resolver.Set(kHookHost, {kPublicAddress});
  auto random = NewSeededRandom(5);
  std::string shopId, subId, eventId;
  {
    auto store = WebhookFixture::Must(OpenSqliteStore(SqliteOptions{path, 1, 5000}));
    ServiceOptions so;
    so.store = store.get();
    so.clock = &clock;
    so.random = random.get();
    so.resolver = &resolver;
    ChatService service(so);
    auto shop = WebhookFixture::Must(service.directory().CreateShop(CreateShopInput{"S", Plan::kPro, false}));
    shopId = shop.id;
    auto key = WebhookFixture::Must(
        service.directory().CreateApiKey(Principal::System(shop.id), CreateKeyInput{"k", kPermManageConversations, false}));
    auto p = WebhookFixture::Must(service.auth().AuthenticateApiKey(key.secret));
    CreateWebhookInput in;
    in.url = kHookUrl;
    in.events = std::vector<std::string>{"message.created"};
    subId = WebhookFixture::Must(service.webhooks().CreateWebhook(p, in)).id;
    InboundMessageInput msg;
    msg.text = "acknowledged before the crash";
    WebhookFixture::Must(service.conversations().ReceiveInbound(Principal::System(shop.id), msg));
    // The process ends here, before any dispatcher ran.
  }
  {
    auto store = WebhookFixture::Must(OpenSqliteStore(SqliteOptions{path, 1, 5000}));
    RecordingTransport transport;
    DispatcherOptions o;
    o.store = store.get();
    o.transport = &transport;
    o.clock = &clock;
    o.resolver = &resolver;
    o.jitter = 0;
    WebhookDispatcher dispatcher(o);
    CHECK(dispatcher.RunOnce() == 1);
    REQUIRE(transport.count() == 1);
    CHECK(HeaderOf(transport.last(), "X-Webhook-Event") == "message.created");
    CHECK(transport.last().body.find("acknowledged before the crash") != std::string::npos);
    CHECK(dispatcher.RunOnce() == 0);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a delivery leased by a sender that died is sent again once the lease runs out") {
  WebhookFixture f;
  auto sub = f.Subscribe({"message.created"});
  f.Inbound("hi");
  auto d = f.OnlyDelivery(sub.id);
  const Millis t0 = f.clock.NowMillis();
  // Another process claims it (60 s lease) and crashes before recording anything.
  std::vector<WebhookDelivery> claimed;
  WebhookFixture::Must(f.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(claimed, w.ClaimDeliveries(f.shop.id, sub.id, t0, t0 + 60'000, 32));
    return Status::Ok();
  }));
  REQUIRE(claimed.size() == 1);
  CHECK(f.Run() == 0);
  f.clock.Set(t0 + 59'999);
  CHECK(f.Run() == 0);
  f.clock.Set(t0 + 60'000);
  CHECK(f.Run() == 1);
  CHECK(f.transport.count() == 1);
  CHECK(HeaderOf(f.transport.last(), "X-Webhook-Delivery-Id") == d.id);
  auto after = f.OnlyDelivery(sub.id);
  CHECK(after.state == "succeeded");
  CHECK(after.attempts == 1);
  CHECK(after.leaseUntil == 0);
}

}  // namespace
}  // namespace livechat::testing
