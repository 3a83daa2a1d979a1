// A waiting GET /storefront/updates answers at once for every change the
// widget shows, whichever operation made it. The fixture's fallback re-read
// is 60 s and every poll here may wait 10 s: one that answers within 2 s was
// woken by the write itself.
#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "storefront_fixture.h"

namespace livechat::testing {
namespace {

using SteadyClock = std::chrono::steady_clock;

long long MillisSince(SteadyClock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - t0).count();
}

// A visitor with a conversation, and a way to change it while a poll waits.
struct Chat {
  StorefrontFixture f;
  StorefrontFixture::Visitor v = f.Start();
  std::string conv;
  std::int64_t cursor = 0;
  std::string view;  // what the widget was last shown

  Chat() {
    Reply first = f.Command(v, "message:send", "[\"Is the parka waterproof?\"]");
    REQUIRE(first.status() == 200);
    cursor = At(first.data(), "seq").GetInt64();
    conv = Str(At(f.Session(v).data(), "conversationId"));
    Reply now = f.Updates(v, "?after=" + std::to_string(cursor));
    REQUIRE(now.status() == 200);
    view = Str(At(now.data(), "view"));
  }

  // Polls with `query` and runs `change` on another thread once the poll
  // waits. `waitedMs`: how long the poll took.
  Reply PollWhile(const std::string& query, const std::function<void()>& change, long long& waitedMs) {
    std::thread writer([&] {
      for (int i = 0; i < 400 && f.storefront().waiters() == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      CHECK(f.storefront().waiters() == 1);
      change();
    });
    const auto t0 = SteadyClock::now();
    Reply r = f.Updates(v, query);
    waitedMs = MillisSince(t0);
    writer.join();
    return r;
  }
  // The widget's own poll: the cursor and the view of its last answer.
  Reply WidgetPollWhile(const std::function<void()>& change, long long& waitedMs) {
    return PollWhile("?after=" + std::to_string(cursor) + "&wait=10&view=" + view, change, waitedMs);
  }
  // A poll of a client that sends no view (nor typing): what it first reads is what it shows.
  Reply PlainPollWhile(const std::function<void()>& change, long long& waitedMs) {
    return PollWhile("?after=" + std::to_string(cursor) + "&wait=10", change, waitedMs);
  }

  void Rest(const std::string& path, const std::string& body, int status = 200) {
    Reply r = f.Post("/chat/conversations/" + conv + path, body);
    CHECK_MESSAGE(r.status() == status, r.raw.body);
  }
  // A write through the service's own store, as any future operation would make it.
  void WriteConversation(const std::function<void(Conversation&)>& edit) {
    f.Must(f.service().store().Write([&](StoreWriter& w) -> Status {
      LC_ASSIGN_OR_RETURN(auto c, w.FindConversation(f.shop.id, conv));
      if (!c) return MakeError(ErrorCode::kNotFound, "conversation not found");
      edit(*c);
      LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(*c));
      return ok ? Status::Ok() : MakeError(ErrorCode::kNotFound, "conversation not updated");
    }));
  }
};

const rapidjson::Value& Conv(const Reply& r) { return At(r.data(), "conversation"); }

TEST_CASE("storefront wake: resolve and reopen through REST answer a waiting poll at once") {
  for (bool plain : {false, true}) {
    CAPTURE(plain);
    Chat c;
    long long waited = 0;
    auto resolve = [&] { c.Rest("/state", "{\"status\":\"resolved\"}"); };
    Reply resolved = plain ? c.PlainPollWhile(resolve, waited) : c.WidgetPollWhile(resolve, waited);
    REQUIRE(resolved.status() == 200);
    CHECK(waited < 2000);
    CHECK(Str(At(Conv(resolved), "status")) == "resolved");
    CHECK(At(resolved.data(), "messages").Size() == 0);
    CHECK(Str(At(resolved.data(), "view")) != c.view);
    c.view = Str(At(resolved.data(), "view"));

    auto reopen = [&] { c.Rest("/state", "{\"status\":\"open\"}"); };
    Reply reopened = plain ? c.PlainPollWhile(reopen, waited) : c.WidgetPollWhile(reopen, waited);
    REQUIRE(reopened.status() == 200);
    CHECK(waited < 2000);
    CHECK(Str(At(Conv(reopened), "status")) == "open");
  }
}

TEST_CASE("storefront wake: assigning and unassigning through REST answer a waiting poll at once") {
  Chat c;
  long long waited = 0;
  Reply assigned = c.WidgetPollWhile([&] { c.Rest("/assign", "{\"memberId\":\"" + c.f.agent.id + "\"}"); }, waited);
  REQUIRE(assigned.status() == 200);
  CHECK(waited < 2000);
  CHECK(At(Conv(assigned), "assigned").GetBool() == true);
  c.view = Str(At(assigned.data(), "view"));

  Reply unassigned = c.WidgetPollWhile([&] { c.Rest("/assign", "{\"memberId\":null}"); }, waited);
  REQUIRE(unassigned.status() == 200);
  CHECK(waited < 2000);
  CHECK(At(Conv(unassigned), "assigned").GetBool() == false);
}

TEST_CASE("storefront wake: an agent starting and stopping to type answers a waiting poll at once") {
  Chat c;
  long long waited = 0;
  const std::string typing = "{\"memberId\":\"" + c.f.agent.id + "\",\"active\":";
  Reply started = c.WidgetPollWhile([&] { c.Rest("/typing", typing + "true}"); }, waited);
  REQUIRE(started.status() == 200);
  CHECK(waited < 2000);
  REQUIRE(At(started.data(), "typing").Size() == 1);
  CHECK(Str(At(At(At(started.data(), "typing"), 0), "memberId")) == c.f.agent.id);
  c.view = Str(At(started.data(), "view"));

  Reply stopped = c.WidgetPollWhile([&] { c.Rest("/typing", typing + "false}"); }, waited);
  REQUIRE(stopped.status() == 200);
  CHECK(waited < 2000);
  CHECK(At(stopped.data(), "typing").Size() == 0);
}

TEST_CASE("storefront wake: the bot flag, changed by any write through the service's store, answers at once") {
  Chat c;
  long long waited = 0;
  Reply bot = c.WidgetPollWhile([&] { c.WriteConversation([](Conversation& conv) { conv.isChatBot = true; }); }, waited);
  REQUIRE(bot.status() == 200);
  CHECK(waited < 2000);
  CHECK(At(Conv(bot), "isChatBot").GetBool() == true);
  c.view = Str(At(bot.data(), "view"));

  // Escalating from another tab of the same visitor hands it back to a human.
  Reply human = c.WidgetPollWhile([&] { CHECK(c.f.Command(c.v, "escalate").status() == 200); }, waited);
  REQUIRE(human.status() == 200);
  CHECK(waited < 2000);
  CHECK(At(Conv(human), "isChatBot").GetBool() == false);
}

TEST_CASE("storefront wake: a message rewritten by a contact delete answers the waiting poll at once (401)") {
  // Editing and deleting messages is not in the API (spec); the one rewrite
  // is the redaction's, which also ends the contact's widget sessions.
  Chat c;
  const std::string customerId = Str(At(c.f.Session(c.v).data(), "customerId"));
  long long waited = 0;
  Reply ended = c.WidgetPollWhile([&] { c.f.Must(c.f.service().privacy().DeleteCustomer(c.f.sys, customerId)); }, waited);
  CHECK(ended.status() == 401);
  CHECK(waited < 2000);
}

TEST_CASE("storefront wake: a change made between two polls answers the next one at once") {
  Chat c;
  c.Rest("/state", "{\"status\":\"resolved\"}");
  const auto t0 = SteadyClock::now();
  Reply next = c.f.Updates(c.v, "?after=" + std::to_string(c.cursor) + "&wait=10&view=" + c.view);
  CHECK(MillisSince(t0) < 2000);
  REQUIRE(next.status() == 200);
  CHECK(Str(At(Conv(next), "status")) == "resolved");
}

TEST_CASE("storefront wake: writes the widget does not show leave the poll waiting") {
  Chat c;
  long long waited = 0;
  Reply r = c.PollWhile("?after=" + std::to_string(c.cursor) + "&wait=1&view=" + c.view, [&] {
    c.Rest("/read", "{}");
    c.Rest("/tags", "{\"tags\":[\"vip\"]}");
    c.Rest("/messages", "{\"text\":\"VIP customer\",\"memberId\":\"" + c.f.agent.id + "\",\"isNote\":true}", 201);
    CHECK(c.f.Command(c.v, "typing:set", "[true]").status() == 200);  // the customer's own
  }, waited);
  REQUIRE(r.status() == 200);
  CHECK(waited >= 950);
  CHECK(At(r.data(), "messages").Size() == 0);
  CHECK(Str(At(r.data(), "view")) == c.view);
}

TEST_CASE("storefront wake: view must be one an answer gave") {
  Chat c;
  for (const char* bad : {"abc", "0123456789ABCDEF", "0123456789abcdef0", "zzzzzzzzzzzzzzzz"}) {
    CAPTURE(bad);
    Reply r = c.f.Updates(c.v, std::string("?after=0&view=") + bad);
    CHECK(r.status() == 400);
    CHECK(r.code() == "INVALID_PARAMS");
    CHECK(r.message() == "view must be the view of an earlier answer (16 hex characters)");
  }
}

}  // namespace
}  // namespace livechat::testing
