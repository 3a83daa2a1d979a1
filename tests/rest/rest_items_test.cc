// REST: the "Tags, notes, attributes" table of the spec, plus the notes list.
#include <doctest/doctest.h>

#include "support/rest_fixture.h"

namespace livechat {
namespace {

using namespace livechat::testing;

std::string ConvPath(const Conversation& c, const std::string& rest) { return "/chat/conversations/" + c.id + rest; }

TEST_CASE("POST tags appends and dedupes, returns the resulting list") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  auto r = f.Post(ConvPath(conv, "/tags"), R"({"tags":["vip","vip","new"]})");
  REQUIRE(r.status() == 200);
  CHECK(KeySet(r.json) == std::set<std::string>{"data"});
  CHECK(StrList(r.data()) == std::vector<std::string>{"vip", "new"});
  r = f.Post(ConvPath(conv, "/tags"), R"({"tags":["new","vip/gold","caf\u00e9"]})");
  REQUIRE(r.status() == 200);
  CHECK(StrList(r.data()) == std::vector<std::string>{"vip", "new", "vip/gold", "caf\xC3\xA9"});
  CHECK(f.Load(conv.id).tags == std::vector<std::string>{"vip", "new", "vip/gold", "caf\xC3\xA9"});
  auto events = RestFixture::Must(f.service().feed().ListEvents(f.sys, 1000));
  REQUIRE_FALSE(events.empty());
  CHECK(events.back().type == "conversation.tags_updated");
}

TEST_CASE("POST tags: 100 characters kept, 101 dropped, all dropped is 400, no cap on count") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  const std::string t100 = Repeat("\xC3\xA9", 100);  // characters, not bytes
  const std::string t101 = Repeat("a", 101);
  auto r = f.Post(ConvPath(conv, "/tags"), "{\"tags\":[" + JsonStr(t100) + "," + JsonStr(t101) + ",\"ok\"]}");
  REQUIRE(r.status() == 200);
  CHECK(StrList(r.data()) == std::vector<std::string>{t100, "ok"});

  auto none = f.Post(ConvPath(conv, "/tags"), "{\"tags\":[" + JsonStr(t101) + "]}");
  CHECK(none.status() == 400);
  CHECK(none.code() == "INVALID_PARAMS");
  CHECK(f.Load(conv.id).tags == std::vector<std::string>{t100, "ok"});

  std::string many = "{\"tags\":[";
  for (int i = 0; i < 250; ++i) many += (i ? ",\"t" : "\"t") + std::to_string(i) + "\"";
  many += "]}";
  auto lots = f.Post(ConvPath(conv, "/tags"), many);
  REQUIRE(lots.status() == 200);
  CHECK(lots.data().Size() == 252);
}

TEST_CASE("POST tags: the body must carry an array of strings") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  for (const std::string body : {R"({})", R"({"tags":"vip"})", R"({"tags":[1]})", R"({"tags":["a",null]})",
                                 R"({"tags":null})", R"({"tags":{"a":1}})"}) {
    CAPTURE(body);
    auto r = f.Post(ConvPath(conv, "/tags"), body);
    CHECK(r.status() == 400);
    CHECK(r.code() == "INVALID_PARAMS");
    CHECK(r.message().find("tags") != std::string::npos);
  }
  auto empty = f.Post(ConvPath(conv, "/tags"), R"({"tags":[]})");
  CHECK(empty.status() == 400);
  CHECK(empty.code() == "INVALID_PARAMS");
  CHECK(f.Load(conv.id).tags.empty());
}

TEST_CASE("DELETE tags/{tag}: URL-encoded, no-op when absent, idempotent") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  RestFixture::Must(f.service().annotations().AddTags(f.sys, conv.id, {"vip/gold", "big spender", "caf\xC3\xA9", "a+b"}));
  auto r = f.Delete(ConvPath(conv, "/tags/vip%2Fgold"));
  REQUIRE(r.status() == 200);
  CHECK(StrList(r.data()) == std::vector<std::string>{"big spender", "caf\xC3\xA9", "a+b"});
  r = f.Delete(ConvPath(conv, "/tags/big%20spender"));
  CHECK(StrList(r.data()) == std::vector<std::string>{"caf\xC3\xA9", "a+b"});
  r = f.Delete(ConvPath(conv, "/tags/caf%C3%A9"));
  CHECK(StrList(r.data()) == std::vector<std::string>{"a+b"});
  r = f.Delete(ConvPath(conv, "/tags/a+b"));  // '+' is literal in a path
  CHECK(StrList(r.data()).empty());
  auto again = f.Delete(ConvPath(conv, "/tags/vip%2Fgold"));
  CHECK(again.status() == 200);
  CHECK(again.data().IsArray());
  CHECK(again.data().Size() == 0);
  CHECK(f.Delete("/chat/conversations/nope/tags/vip").status() == 404);
}

TEST_CASE("GET /chat/tags: the store's tag catalog with counts") {
  RestFixture f;
  auto a = f.Inbound("a");
  auto b = f.Inbound("b");
  RestFixture::Must(f.service().annotations().AddTags(f.sys, a.id, {"vip", "refund"}));
  RestFixture::Must(f.service().annotations().AddTags(f.sys, b.id, {"vip"}));
  auto other = f.NewShop("Other");
  InboundMessageInput in;
  in.text = "x";
  auto theirs = f.Inbound(in, other.id);
  RestFixture::Must(f.service().annotations().AddTags(Principal::System(other.id), theirs.id, {"vip", "secret"}));

  auto r = f.Get("/chat/tags");
  REQUIRE(r.status() == 200);
  REQUIRE(r.data().Size() == 2);
  CHECK(KeySet(At(r.data(), 0)) == std::set<std::string>{"name", "conversationCount"});
  CHECK(Column(r.data(), "name") == std::vector<std::string>{"refund", "vip"});
  CHECK(At(At(r.data(), 0), "conversationCount").GetInt64() == 1);
  CHECK(At(At(r.data(), 1), "conversationCount").GetInt64() == 2);
}

TEST_CASE("Notes: create (150 characters), list, update sets isUpdated, delete") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  auto r = f.Post(ConvPath(conv, "/notes"), "{\"text\":" + JsonStr(Repeat("n", 150)) + "}");
  REQUIRE(r.status() == 201);
  CHECK(KeySet(r.data()) == Keys(kNoteKeys));
  CHECK(At(r.data(), "isUpdated").IsFalse());
  CHECK(Str(At(r.data(), "createdAt")) == "2026-01-01T00:00:00.000Z");
  const std::string noteId = Str(At(r.data(), "id"));

  auto over = f.Post(ConvPath(conv, "/notes"), "{\"text\":" + JsonStr(Repeat("n", 151)) + "}");
  CHECK(over.status() == 400);
  CHECK(over.code() == "INVALID_PARAMS");
  CHECK(over.message().find("text") != std::string::npos);
  for (const std::string body : {R"({})", R"({"text":5})", R"({"text":""})"}) {
    CAPTURE(body);
    CHECK(f.Post(ConvPath(conv, "/notes"), body).code() == "INVALID_PARAMS");
  }
  auto second = f.Post(ConvPath(conv, "/notes"), R"({"text":"call back"})");
  REQUIRE(second.status() == 201);
  auto third = f.Post(ConvPath(conv, "/notes"), R"({"text":"call back"})");  // a new note every call
  REQUIRE(third.status() == 201);
  CHECK(Str(At(third.data(), "id")) != Str(At(second.data(), "id")));

  auto list = f.Get(ConvPath(conv, "/notes"));
  REQUIRE(list.status() == 200);
  REQUIRE(list.data().Size() == 3);
  CHECK(KeySet(At(list.data(), 0)) == Keys(kNoteKeys));

  f.clock.Advance(60'000);
  auto upd = f.Put(ConvPath(conv, "/notes/" + noteId), R"({"text":"edited"})");
  REQUIRE(upd.status() == 200);
  CHECK(Str(At(upd.data(), "text")) == "edited");
  CHECK(At(upd.data(), "isUpdated").IsTrue());
  CHECK(Str(At(upd.data(), "updatedAt")) == "2026-01-01T00:01:00.000Z");
  CHECK(Str(At(upd.data(), "createdAt")) == "2026-01-01T00:00:00.000Z");
  auto updOver = f.Put(ConvPath(conv, "/notes/" + noteId), "{\"text\":" + JsonStr(Repeat("n", 151)) + "}");
  CHECK(updOver.status() == 400);
  CHECK(f.Put(ConvPath(conv, "/notes/nope"), R"({"text":"x"})").status() == 404);

  auto del = f.Delete(ConvPath(conv, "/notes/" + noteId));
  REQUIRE(del.status() == 200);
  CHECK(del.raw.body == "{\"data\":{\"id\":" + JsonStr(noteId) + ",\"deleted\":true}}");
  CHECK(f.Get(ConvPath(conv, "/notes")).data().Size() == 2);
  auto delAgain = f.Delete(ConvPath(conv, "/notes/" + noteId));
  CHECK(delAgain.status() == 404);
  CHECK(delAgain.code() == "NOT_FOUND");
  // A note of one conversation is not reachable through another.
  auto other = f.Inbound("other");
  const std::string secondId = Str(At(second.data(), "id"));
  CHECK(f.Put(ConvPath(other, "/notes/" + secondId), R"({"text":"x"})").status() == 404);
  CHECK(f.Delete(ConvPath(other, "/notes/" + secondId)).status() == 404);
}

TEST_CASE("Attributes: upsert by name (201 then 200), limits, update, delete") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  auto r = f.Post(ConvPath(conv, "/attributes"), R"({"name":"orderNumber","value":"1042"})");
  REQUIRE(r.status() == 201);
  CHECK(KeySet(r.data()) == Keys(kAttributeKeys));
  CHECK(Str(At(r.data(), "name")) == "orderNumber");
  CHECK(Str(At(r.data(), "value")) == "1042");
  const std::string id = Str(At(r.data(), "id"));

  f.clock.Advance(1000);
  auto again = f.Post(ConvPath(conv, "/attributes"), R"({"name":"orderNumber","value":"1043"})");
  REQUIRE(again.status() == 200);
  CHECK(Str(At(again.data(), "id")) == id);
  CHECK(Str(At(again.data(), "value")) == "1043");
  CHECK(Str(At(again.data(), "updatedAt")) == "2026-01-01T00:00:01.000Z");
  CHECK(f.Get(ConvPath(conv, "/attributes")).data().Size() == 1);

  CHECK(f.Post(ConvPath(conv, "/attributes"), "{\"name\":" + JsonStr(Repeat("k", 255)) + ",\"value\":" +
                                                  JsonStr(Repeat("v", 1000)) + "}")
            .status() == 201);
  auto longName = f.Post(ConvPath(conv, "/attributes"), "{\"name\":" + JsonStr(Repeat("k", 256)) + ",\"value\":\"v\"}");
  CHECK(longName.status() == 400);
  CHECK(longName.code() == "INVALID_PARAMS");
  CHECK(longName.message().find("name") != std::string::npos);
  auto longValue = f.Post(ConvPath(conv, "/attributes"), "{\"name\":\"k\",\"value\":" + JsonStr(Repeat("v", 1001)) + "}");
  CHECK(longValue.status() == 400);
  CHECK(longValue.message().find("value") != std::string::npos);
  for (const std::string body : {R"({"value":"v"})", R"({"name":5,"value":"v"})", R"({"name":"k","value":5})"}) {
    CAPTURE(body);
    CHECK(f.Post(ConvPath(conv, "/attributes"), body).code() == "INVALID_PARAMS");
  }
  auto list = f.Get(ConvPath(conv, "/attributes"));
  REQUIRE(list.status() == 200);
  CHECK(list.data().Size() == 2);
  CHECK(KeySet(At(list.data(), 0)) == Keys(kAttributeKeys));

  auto upd = f.Put(ConvPath(conv, "/attributes/" + id), R"({"value":"2000"})");
  REQUIRE(upd.status() == 200);
  CHECK(Str(At(upd.data(), "name")) == "orderNumber");
  CHECK(Str(At(upd.data(), "value")) == "2000");
  auto renamed = f.Put(ConvPath(conv, "/attributes/" + id), R"({"name":"order"})");
  REQUIRE(renamed.status() == 200);
  CHECK(Str(At(renamed.data(), "name")) == "order");
  CHECK(Str(At(renamed.data(), "value")) == "2000");
  CHECK(f.Put(ConvPath(conv, "/attributes/" + id), "{\"value\":" + JsonStr(Repeat("v", 1001)) + "}").status() == 400);
  CHECK(f.Put(ConvPath(conv, "/attributes/nope"), R"({"value":"x"})").status() == 404);

  auto del = f.Delete(ConvPath(conv, "/attributes/" + id));
  REQUIRE(del.status() == 200);
  CHECK(del.raw.body == "{\"data\":{\"id\":" + JsonStr(id) + ",\"deleted\":true}}");
  CHECK(f.Get(ConvPath(conv, "/attributes")).data().Size() == 1);
  CHECK(f.Delete(ConvPath(conv, "/attributes/" + id)).status() == 404);
}

}  // namespace
}  // namespace livechat
