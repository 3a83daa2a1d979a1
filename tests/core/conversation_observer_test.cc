// ChatService::SetConversationObserver: told after every commit that wrote a
// conversation's record, messages or typing, by whatever operation, because
// the store records those writes itself (StoreWriter::writtenConversations).
#include <doctest/doctest.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core_fixture.h"

namespace livechat {
namespace {

struct Observed {
  test::CoreFixture f;
  std::mutex mu;
  std::vector<std::string> seen;

  Observed() {
    f.service->SetConversationObserver([this](const std::string& id) {
      std::lock_guard<std::mutex> lock(mu);
      seen.push_back(id);
    });
  }
  std::vector<std::string> Take() {
    std::lock_guard<std::mutex> lock(mu);
    return std::exchange(seen, {});
  }
};

TEST_CASE("conversation observer: each operation that changes what a widget shows reports its conversation once") {
  Observed o;
  const Conversation a = o.f.Inbound("online_store", "hello");
  CHECK(o.Take() == std::vector<std::string>{a.id});
  const std::vector<std::string> justA{a.id};

  CHECK(o.f.service->conversations().SetState(o.f.sys, a.id, std::string("resolved")).ok());
  CHECK(o.Take() == justA);
  CHECK(o.f.service->conversations().Assign(o.f.sys, a.id, o.f.agent.id).ok());
  CHECK(o.Take() == justA);
  CHECK(o.f.service->conversations().SetTyping(o.f.sys, a.id, o.f.agent.id, true).ok());
  CHECK(o.Take() == justA);
  SendMessageInput bot;
  bot.text = "I can help with that.";
  bot.asBot = true;
  CHECK(o.f.service->conversations().SendMessage(o.f.sys, a.id, bot).ok());
  CHECK(o.Take() == justA);
  // A write through the service's store that no operation knows about yet.
  CHECK(o.f.service->store().Write([&](StoreWriter& w) -> Status {
    auto c = w.FindConversation(o.f.shop.id, a.id);
    if (!c.ok()) return c.take_error();
    (*c)->isChatBot = false;
    auto ok = w.UpdateConversation(**c);
    return ok.ok() ? Status::Ok() : Status(ok.error());
  }).ok());
  CHECK(o.Take() == justA);
}

TEST_CASE("conversation observer: one report per conversation a commit wrote, none for a rollback") {
  Observed o;
  const Conversation a = o.f.Inbound("online_store", "first");
  const Conversation b = o.f.Inbound("online_store", "second");
  o.Take();
  CHECK(o.f.service->store().Write([&](StoreWriter& w) -> Status {
    for (const auto* id : {&a.id, &b.id, &a.id}) {
      auto ok = w.PutTyping(o.f.shop.id, TypingState{*id, o.f.agent.id, true, 1});
      if (!ok.ok()) return ok;
    }
    return Status::Ok();
  }).ok());
  CHECK(o.Take() == std::vector<std::string>{a.id, b.id});

  Status rolledBack = o.f.service->store().Write([&](StoreWriter& w) -> Status {
    auto ok = w.PutTyping(o.f.shop.id, TypingState{a.id, o.f.agent.id, false, 2});
    if (!ok.ok()) return ok;
    return MakeError(ErrorCode::kConflict, "changed my mind");
  });
  CHECK(rolledBack.error().code == ErrorCode::kConflict);
  CHECK(o.Take().empty());
  // A refused operation writes nothing and reports nothing.
  CHECK(o.f.service->conversations().SetState(o.f.sys, a.id, std::string("closed")).error().code == ErrorCode::kInvalidParams);
  CHECK(o.Take().empty());
}

}  // namespace
}  // namespace livechat
