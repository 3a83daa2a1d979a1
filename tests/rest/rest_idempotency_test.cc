// Idempotency-Key on REST writes (IETF draft-ietf-httpapi-idempotency-key-header):
// one run per key, the same answer to every repeat for 24 hours, 422 for the
// key on another request, 409 while the first still runs, scoped to the API
// key. On SQLite here and on PostgreSQL in the rest_pg entry of ctest.
#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "support/rest_fixture.h"

namespace livechat {
namespace {

using namespace livechat::testing;

HttpRequest WithKey(HttpRequest req, const std::string& key) {
  req.headers.emplace_back("idempotency-key", key);
  return req;
}

std::int64_t EventCount(RestFixture& f, const std::string& type) {
  std::int64_t n = 0;
  for (const auto& e : RestFixture::Must(f.service().feed().ListEvents(f.sys, 10000)))
    if (e.type == type) ++n;
  return n;
}

TEST_CASE("idempotency: a repeated POST gets the first answer, marked replayed, and changes nothing") {
  RestFixture f;
  auto conv = f.Inbound("Where is my order?");
  const std::string path = "/chat/conversations/" + conv.id + "/messages";
  const std::string body = R"({"text":"It ships today.","memberId":")" + f.agent.id + R"("})";
  const std::int64_t messages = f.MessageCount(conv.id), events = EventCount(f, "message.created");

  Reply first = f.Send(WithKey(f.Request("POST", path, body), "order-7-reply"));
  REQUIRE(first.status() == 201);
  CHECK(first.header("Idempotent-Replayed") == "<absent>");
  CHECK(f.MessageCount(conv.id) == messages + 1);

  f.clock.Advance(23 * 3600 * 1000);  // within the 24 hours
  Reply again = f.Send(WithKey(f.Request("POST", path, body), "order-7-reply"));
  CHECK(again.status() == 201);
  CHECK(again.header("Idempotent-Replayed") == "true");
  CHECK(again.raw.body == first.raw.body);  // the same message id, the same bytes
  CHECK(again.header("Content-Type") == "application/json; charset=utf-8");
  CHECK(again.header("X-RateLimit-Remaining") != "<absent>");  // still counted in the windows
  CHECK(f.MessageCount(conv.id) == messages + 1);
  CHECK(EventCount(f, "message.created") == events + 1);

  // The quoted (Structured Field) form names the same key.
  Reply quoted = f.Send(WithKey(f.Request("POST", path, body), "\"order-7-reply\""));
  CHECK(quoted.header("Idempotent-Replayed") == "true");
  CHECK(f.MessageCount(conv.id) == messages + 1);

  // Without the header, or with another key, the request runs again.
  CHECK(f.Send(f.Request("POST", path, body)).status() == 201);
  CHECK(f.Send(WithKey(f.Request("POST", path, body), "order-7-reply-2")).status() == 201);
  CHECK(f.MessageCount(conv.id) == messages + 3);
}

TEST_CASE("idempotency: the same key with another body or target is 422 and runs nothing") {
  RestFixture f;
  auto conv = f.Inbound("hello");
  const std::string path = "/chat/conversations/" + conv.id + "/notes";
  REQUIRE(f.Send(WithKey(f.Request("POST", path, R"({"text":"first"})"), "k1")).status() == 201);
  const std::size_t notes = RestFixture::Must(f.service().annotations().ListNotes(f.sys, conv.id)).size();

  // A method the path does not have is 405 before any key is looked at.
  Reply put = f.Send(WithKey(f.Request("PUT", path, R"({"text":"first"})"), "k1"));
  CHECK(put.status() == 405);
  CHECK(put.code() == "METHOD_NOT_ALLOWED");
  for (const auto& req : {WithKey(f.Request("POST", path, R"({"text":"second"})"), "k1"),
                          WithKey(f.Request("POST", path + "?x=1", R"({"text":"first"})"), "k1")}) {
    CAPTURE(req.method + " " + req.target + " " + req.body);
    Reply r = f.Send(req);
    CHECK(r.status() == 422);
    CHECK(r.code() == "IDEMPOTENCY_KEY_REUSED");
    CHECK(r.message() ==
          "this Idempotency-Key was already used with a different request (method, path or body); use a new key "
          "for a new request");
  }
  CHECK(RestFixture::Must(f.service().annotations().ListNotes(f.sys, conv.id)).size() == notes);
}

TEST_CASE("idempotency: keys are 1 to 255 printable characters; a bad key is 400 and runs nothing") {
  RestFixture f;
  auto conv = f.Inbound("hello");
  const std::string path = "/chat/conversations/" + conv.id + "/notes";
  const std::string body = R"({"text":"n"})";
  CHECK(f.Send(WithKey(f.Request("POST", path, body), std::string(255, 'k'))).status() == 201);
  CHECK(f.Send(WithKey(f.Request("POST", path, body), "~ !")).status() == 201);
  const std::size_t notes = RestFixture::Must(f.service().annotations().ListNotes(f.sys, conv.id)).size();
  struct Bad {
    std::string key, message;
  };
  for (const Bad& bad : std::vector<Bad>{
           {std::string(256, 'k'), "Idempotency-Key must be 1 to 255 characters, got 256"},
           {"", "Idempotency-Key must be 1 to 255 characters, got 0"},
           {"\"\"", "Idempotency-Key must be 1 to 255 characters, got 0"},
           {"tab\there", "Idempotency-Key must be printable ASCII characters (space to ~)"},
           {"caf\xc3\xa9", "Idempotency-Key must be printable ASCII characters (space to ~)"}}) {
    CAPTURE(bad.key);
    Reply r = f.Send(WithKey(f.Request("POST", path, body), bad.key));
    CHECK(r.status() == 400);
    CHECK(r.code() == "INVALID_PARAMS");
    CHECK(r.message() == bad.message);
  }
  CHECK(RestFixture::Must(f.service().annotations().ListNotes(f.sys, conv.id)).size() == notes);
}

TEST_CASE("idempotency: after 24 hours the key runs afresh; keys are per API key; reads ignore the header") {
  RestFixture f;
  auto conv = f.Inbound("hello");
  const std::string path = "/chat/conversations/" + conv.id + "/notes";
  REQUIRE(f.Send(WithKey(f.Request("POST", path, R"({"text":"a"})"), "daily")).status() == 201);
  f.clock.Advance(24 * 3600 * 1000);
  // Expired: the same key, even with another body, runs as a new request.
  Reply fresh = f.Send(WithKey(f.Request("POST", path, R"({"text":"b"})"), "daily"));
  CHECK(fresh.status() == 201);
  CHECK(fresh.header("Idempotent-Replayed") == "<absent>");

  // Another API key of the store has keys of its own.
  HttpRequest other = WithKey(f.Request("POST", path, R"({"text":"b"})"), "daily");
  other.headers[0].second = f.NewKey(kPermReadConversations | kPermManageConversations);
  Reply mine = f.Send(other);
  CHECK(mine.status() == 201);
  CHECK(mine.header("Idempotent-Replayed") == "<absent>");
  CHECK(RestFixture::Must(f.service().annotations().ListNotes(f.sys, conv.id)).size() == 3);

  // A GET with a key is an ordinary read (nothing to protect).
  Reply read = f.Send(WithKey(f.Request("GET", path), "daily"));
  CHECK(read.status() == 200);
  CHECK(read.header("Idempotent-Replayed") == "<absent>");
}

TEST_CASE("idempotency: a refused request is kept (same 4xx again); a 429 is not, so the retry runs") {
  RestFixture f(Limits{});  // the spec's 120 a minute per key
  auto conv = f.Inbound("hello");
  Reply missing = f.Send(WithKey(f.Request("POST", "/chat/conversations/nope/notes", R"({"text":"n"})"), "k404"));
  CHECK(missing.status() == 404);
  Reply again = f.Send(WithKey(f.Request("POST", "/chat/conversations/nope/notes", R"({"text":"n"})"), "k404"));
  CHECK(again.status() == 404);
  CHECK(again.header("Idempotent-Replayed") == "true");

  // Spend the key's window; the refused request does not claim its key.
  const std::string path = "/chat/conversations/" + conv.id + "/notes";
  int sent = 2;
  while (f.Get("/chat/members").status() != 429) ++sent;
  Reply limited = f.Send(WithKey(f.Request("POST", path, R"({"text":"later"})"), "k429"));
  CHECK(limited.status() == 429);
  f.clock.Advance(60 * 1000);
  Reply later = f.Send(WithKey(f.Request("POST", path, R"({"text":"later"})"), "k429"));
  CHECK(later.status() == 201);
  CHECK(later.header("Idempotent-Replayed") == "<absent>");
  CHECK(sent == 120);
}

TEST_CASE("idempotency: 50 concurrent identical POSTs with one key make one message and one event") {
  RestFixture f;
  auto conv = f.Inbound("race");
  const std::string path = "/chat/conversations/" + conv.id + "/messages";
  const std::string body = R"({"text":"exactly once","memberId":")" + f.agent.id + R"("})";
  const std::int64_t messages = f.MessageCount(conv.id), events = EventCount(f, "message.created");

  constexpr int kThreads = 50;
  std::vector<Reply> replies(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      HttpRequest req = WithKey(f.Request("POST", path, body), "burst-1");
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();  // all at once
      replies[static_cast<std::size_t>(i)] = f.Send(req);
    });
  }
  for (auto& t : threads) t.join();

  std::map<std::string, int> outcomes;  // "201" first run, "201 replayed", "409"
  std::string firstBody;
  for (const auto& r : replies) {
    if (r.status() == 201 && r.header("Idempotent-Replayed") == "<absent>") {
      ++outcomes["201"];
      firstBody = r.raw.body;
    } else if (r.status() == 201) {
      ++outcomes["201 replayed"];
    } else {
      ++outcomes[std::to_string(r.status())];
      CHECK(r.status() == 409);
      CHECK(r.code() == "CONFLICT");
      CHECK(r.header("Retry-After") == "1");
    }
  }
  INFO("outcomes: 201=" << outcomes["201"] << " replayed=" << outcomes["201 replayed"] << " 409=" << outcomes["409"]);
  CHECK(outcomes["201"] == 1);
  CHECK(outcomes["201"] + outcomes["201 replayed"] + outcomes["409"] == kThreads);
  for (const auto& r : replies)
    if (r.header("Idempotent-Replayed") == "true") CHECK(r.raw.body == firstBody);
  CHECK(f.MessageCount(conv.id) == messages + 1);
  CHECK(EventCount(f, "message.created") == events + 1);
}

}  // namespace
}  // namespace livechat
