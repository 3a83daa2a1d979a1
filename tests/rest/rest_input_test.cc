// REST: malformed and refused input (bodies, media types, sizes, targets,
// routes), the error body, and that a refused write changes nothing.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>

#include "support/rest_fixture.h"
#include "support/temp_dir.h"

namespace livechat {
namespace {

using namespace livechat::testing;

TEST_CASE("RestApi::Owns /chat and /api only") {
  CHECK(RestApi::Owns("/chat"));
  CHECK(RestApi::Owns("/chat/conversations"));
  CHECK(RestApi::Owns("/chat?x=1"));
  CHECK(RestApi::Owns("/api/chat/members"));
  CHECK(RestApi::Owns("/api/auth/login"));
  CHECK_FALSE(RestApi::Owns("/chatter"));
  CHECK_FALSE(RestApi::Owns("/apis"));
  CHECK_FALSE(RestApi::Owns("/graphql"));
  CHECK_FALSE(RestApi::Owns("/"));
  CHECK_FALSE(RestApi::Owns(""));
}

TEST_CASE("RestStatusFor is the one mapping table; RestErrorBody never leaks internal detail") {
  CHECK(RestStatusFor(ErrorCode::kInvalidParams) == 400);
  CHECK(RestStatusFor(ErrorCode::kUnauthenticated) == 401);
  CHECK(RestStatusFor(ErrorCode::kInvalidApiKey) == 401);
  CHECK(RestStatusFor(ErrorCode::kForbidden) == 403);
  CHECK(RestStatusFor(ErrorCode::kNotFound) == 404);
  CHECK(RestStatusFor(ErrorCode::kMethodNotAllowed) == 405);
  CHECK(RestStatusFor(ErrorCode::kConflict) == 409);
  CHECK(RestStatusFor(ErrorCode::kChannelUnavailable) == 409);
  CHECK(RestStatusFor(ErrorCode::kPayloadTooLarge) == 413);
  CHECK(RestStatusFor(ErrorCode::kUnsupportedMediaType) == 415);
  CHECK(RestStatusFor(ErrorCode::kRateLimited) == 429);
  CHECK(RestStatusFor(ErrorCode::kInternal) == 500);
  CHECK(RestStatusFor(ErrorCode::kUnavailable) == 503);
  // A full disk's detail stays on the server too; the client gets a message
  // it can act on and a wait: 5 s unless the source said otherwise.
  CHECK(RestErrorBody(MakeError(ErrorCode::kUnavailable, "sqlite: step: database or disk is full (code 13)")) ==
        R"({"error":{"code":"UNAVAILABLE","message":"the service's storage is full or unreachable right now; try again later"}})");
  CHECK(RetryAfterFor(MakeError(ErrorCode::kUnavailable, "x")) == "5");
  CHECK(RetryAfterFor(RetryLaterError(ErrorCode::kUnavailable, "x", 1500)) == "2");
  CHECK(RetryAfterFor(MakeError(ErrorCode::kInternal, "x")).empty());
  CHECK(RestErrorBody(MakeError(ErrorCode::kNotFound, "conversation \"x\" not found")) ==
        R"({"error":{"code":"NOT_FOUND","message":"conversation \"x\" not found"}})");
  CHECK(RestErrorBody(MakeError(ErrorCode::kInternal, "SQLITE_IOERR at /var/lib/secret.db")) ==
        R"({"error":{"code":"INTERNAL","message":"internal error"}})");
}

struct Bodies {
  RestFixture& f;
  Conversation conv;
  std::string path;

  explicit Bodies(RestFixture& fixture) : f(fixture), conv(fixture.Inbound("hi")) {
    path = "/chat/conversations/" + conv.id + "/messages";
  }
  Reply Send(const std::string& body, const std::optional<std::string>& contentType = "application/json") {
    HttpRequest req = f.Request("POST", path);
    req.body = body;
    if (contentType) req.headers.emplace_back("content-type", *contentType);
    return f.Send(req);
  }
  std::string Valid() const { return "{\"text\":\"hello\",\"memberId\":" + JsonStr(f.agent.id) + "}"; }
};

TEST_CASE("Malformed JSON, a non-object body, invalid UTF-8: 400 INVALID_PARAMS saying what is wrong") {
  RestFixture f;
  Bodies b(f);
  struct Case {
    std::string body;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"{", "not valid JSON"},
      {R"({"text":})", "not valid JSON"},
      {R"({'text':'x'})", "not valid JSON"},
      {b.Valid() + " trailing", "not valid JSON"},
      {b.Valid() + "{}", "not valid JSON"},
      {"", "empty"},
      {"[]", "JSON object"},
      {"[" + b.Valid() + "]", "JSON object"},
      {"5", "JSON object"},
      {"\"text\"", "JSON object"},
      {"null", "JSON object"},
      {"{\"text\":\"\xFF\",\"memberId\":" + JsonStr(f.agent.id) + "}", "UTF-8"},
      {"{\"text\":\"\xC0\xAF\",\"memberId\":" + JsonStr(f.agent.id) + "}", "UTF-8"},
      {"{\"text\":\"\\udc00\",\"memberId\":" + JsonStr(f.agent.id) + "}", ""},
      {"{\"text\":\"\\ud800\",\"memberId\":" + JsonStr(f.agent.id) + "}", ""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.body);
    auto r = b.Send(c.body);
    CHECK(r.status() == 400);
    CHECK(r.code() == "INVALID_PARAMS");
    CHECK(r.message().find(c.says) != std::string::npos);
  }
  CHECK(f.MessageCount(b.conv.id) == 1);
  CHECK(b.Send(b.Valid()).status() == 201);
  CHECK(f.MessageCount(b.conv.id) == 2);
}

TEST_CASE("Wrong JSON types are 400 INVALID_PARAMS naming the field") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  const std::string c = "/chat/conversations/" + conv.id;
  const std::string m = JsonStr(f.agent.id);
  struct Case {
    std::string method, target, body, field;
  };
  const std::vector<Case> cases = {
      {"POST", c + "/messages", "{\"text\":5,\"memberId\":" + m + "}", "text"},
      {"POST", c + "/messages", "{\"text\":[\"a\"],\"memberId\":" + m + "}", "text"},
      {"POST", c + "/messages", "{\"text\":\"a\",\"memberId\":" + m + ",\"isNote\":\"yes\"}", "isNote"},
      {"POST", c + "/messages", "{\"text\":\"a\",\"memberId\":" + m + ",\"isNote\":1}", "isNote"},
      {"POST", c + "/messages", "{\"text\":\"a\",\"asCustomer\":\"true\"}", "asCustomer"},
      {"POST", c + "/messages", "{\"text\":\"a\",\"memberId\":{}}", "memberId"},
      {"POST", c + "/state", R"({"status":true})", "status"},
      {"POST", c + "/assign", R"({"memberId":["x"]})", "memberId"},
      {"POST", c + "/typing", "{\"memberId\":" + m + ",\"active\":\"true\"}", "active"},
      {"POST", c + "/typing", R"({"memberId":1,"active":true})", "memberId"},
      {"POST", c + "/tags", R"({"tags":"vip"})", "tags"},
      {"POST", c + "/tags", R"({"tags":["vip",2]})", "tags"},
      {"POST", c + "/notes", R"({"text":false})", "text"},
      {"POST", c + "/attributes", R"({"name":1,"value":"v"})", "name"},
      {"POST", c + "/attributes", R"({"name":"n","value":2})", "value"},
  };
  for (const auto& k : cases) {
    CAPTURE(k.target);
    CAPTURE(k.body);
    auto r = f.Call(k.method, k.target, k.body);
    CHECK(r.status() == 400);
    CHECK(r.code() == "INVALID_PARAMS");
    CHECK(r.message().find(k.field) != std::string::npos);
  }
  auto after = f.Load(conv.id);
  CHECK(after.messageCount == 1);
  CHECK(after.status == "open");
  CHECK(after.tags.empty());
  CHECK_FALSE(after.memberId.has_value());
  CHECK(RestFixture::Must(f.service().annotations().ListNotes(f.sys, conv.id)).empty());
  CHECK(RestFixture::Must(f.service().annotations().ListAttributes(f.sys, conv.id)).empty());
}

TEST_CASE("Writes need Content-Type application/json (415); parameters and case are fine") {
  RestFixture f;
  Bodies b(f);
  for (const std::optional<std::string>& type :
       {std::optional<std::string>(), std::optional<std::string>("text/plain"),
        std::optional<std::string>("application/x-www-form-urlencoded"),
        std::optional<std::string>("multipart/form-data; boundary=x"), std::optional<std::string>("application/jsonx"),
        std::optional<std::string>("")}) {
    CAPTURE(type.value_or("<none>"));
    auto r = b.Send(b.Valid(), type);
    CHECK(r.status() == 415);
    CHECK(r.code() == "UNSUPPORTED_MEDIA_TYPE");
  }
  CHECK(f.MessageCount(b.conv.id) == 1);
  CHECK(b.Send(b.Valid(), "application/json; charset=utf-8").status() == 201);
  CHECK(b.Send(b.Valid(), "Application/JSON").status() == 201);
  CHECK(b.Send(b.Valid(), " application/json ;charset=UTF-8").status() == 201);
  CHECK(f.MessageCount(b.conv.id) == 4);

  // PUT and body-required POSTs without a type, even when empty.
  auto note = RestFixture::Must(f.service().annotations().CreateNote(f.sys, b.conv.id, std::string("n")));
  HttpRequest put = f.Request("PUT", "/chat/conversations/" + b.conv.id + "/notes/" + note.id);
  put.body = R"({"text":"changed"})";
  CHECK(f.Send(put).status() == 415);
  HttpRequest state = f.Request("POST", "/chat/conversations/" + b.conv.id + "/state");
  CHECK(f.Send(state).status() == 415);
  CHECK(RestFixture::Must(f.service().annotations().ListNotes(f.sys, b.conv.id)).at(0).text == "n");

  // read: an empty body needs no type; a body that is sent follows the rules.
  HttpRequest read = f.Request("POST", "/chat/conversations/" + b.conv.id + "/read");
  CHECK(f.Send(read).status() == 200);
  read.body = "{}";
  CHECK(f.Send(read).status() == 415);
  read.headers.emplace_back("content-type", "application/json");
  CHECK(f.Send(read).status() == 200);
  read.body = "{";
  CHECK(f.Send(read).status() == 400);
}

TEST_CASE("A body over maxBodyBytes is 413 PAYLOAD_TOO_LARGE") {
  RestOptions options;
  options.maxBodyBytes = 1024;
  RestFixture f(RelaxedLimits(), options);
  Bodies b(f);
  std::string prefix = "{\"memberId\":" + JsonStr(f.agent.id) + ",\"text\":\"";
  std::string atLimit = prefix + Repeat("a", 1024 - prefix.size() - 2) + "\"}";
  REQUIRE(atLimit.size() == 1024);
  CHECK(b.Send(atLimit).status() == 201);
  std::string over = prefix + Repeat("a", 1025 - prefix.size() - 2) + "\"}";
  auto r = b.Send(over);
  CHECK(r.status() == 413);
  CHECK(r.code() == "PAYLOAD_TOO_LARGE");
  CHECK(b.Send(over, std::nullopt).status() == 413);  // size is checked before anything else
  CHECK(f.MessageCount(b.conv.id) == 2);
}

TEST_CASE("A deeply nested body is parsed without exhausting the stack") {
  RestFixture f;
  Bodies b(f);
  const std::size_t depth = 200000;
  std::string body = "{\"text\":\"deep\",\"memberId\":" + JsonStr(f.agent.id) + ",\"ignored\":" +
                     Repeat("[", depth) + Repeat("]", depth) + "}";
  CHECK(b.Send(body).status() == 201);
  CHECK(b.Send(Repeat("[", depth)).status() == 400);
}

TEST_CASE("Unknown paths are 404 NOT_FOUND; known paths with another method are 405 with Allow") {
  RestFixture f;
  auto conv = f.Inbound("hi");
  const std::string c = "/chat/conversations/" + conv.id;
  for (const std::string& target : std::vector<std::string>{"/chat", "/chat/", "/chat/nothing", c + "/unknown", c + "/messages/a/b",
                                   "/chat/customers", "/chat/conversations/" + conv.id + "/tags",
                                   "/chat/webhooks/x/y"}) {
    CAPTURE(target);
    auto r = f.Get(target);
    // GET on the tags path is a 405 (POST exists); the others do not exist at all.
    if (target == c + "/tags") {
      CHECK(r.status() == 405);
      CHECK(r.header("Allow") == "POST");
      continue;
    }
    CHECK(r.status() == 404);
    CHECK(r.code() == "NOT_FOUND");
  }
  auto outside = f.Get("/chatter");
  CHECK(outside.status() == 404);

  struct Case {
    std::string method, target, allow;
  };
  const std::vector<Case> cases = {
      {"DELETE", "/chat/conversations", "GET"},
      {"POST", "/chat/conversations", "GET"},
      {"PATCH", c + "/notes/n1", "PUT, DELETE"},
      {"GET", c + "/notes/n1", "PUT, DELETE"},
      {"GET", c + "/state", "POST"},
      {"PUT", c + "/messages", "GET, POST"},
      {"POST", c + "/messages/m1", "GET"},
      {"GET", c + "/tags/vip", "DELETE"},
      {"DELETE", "/chat/members", "GET"},
      {"HEAD", "/chat/tags", "GET"},
      {"get", "/chat/tags", "GET"},
  };
  for (const auto& k : cases) {
    CAPTURE(k.method);
    CAPTURE(k.target);
    auto r = f.Send(f.Request(k.method, k.target));
    CHECK(r.status() == 405);
    CHECK(r.code() == "METHOD_NOT_ALLOWED");
    CHECK(r.header("Allow") == k.allow);
  }
}

TEST_CASE("A malformed request target is 400 INVALID_PARAMS") {
  RestFixture f;
  for (const std::string target : {"/chat/conversations/%zz", "/chat/conversations?limit=%", "/chat/conversations/%FF",
                                   "/chat/conversations/a%00b", "/chat/conversations?tag=%C0%AF"}) {
    CAPTURE(target);
    auto r = f.Get(target);
    CHECK(r.status() == 400);
    CHECK(r.code() == "INVALID_PARAMS");
  }
}

// A Store whose every call fails once `fail` is set: the storage outage of a
// real deployment, as the REST adapter sees it.
class FailingStore final : public Store {
 public:
  explicit FailingStore(Store& inner) : inner_(inner) {}
  bool fail = false;
  Status Read(const std::function<Status(StoreReader&)>& fn) override {
    if (fail) return MakeError(ErrorCode::kInternal, "SQLITE_IOERR: disk I/O error at /var/lib/livechat/secret.db");
    return inner_.Read(fn);
  }
  Status Write(const std::function<Status(StoreWriter&)>& fn) override {
    if (fail) return MakeError(ErrorCode::kInternal, "SQLITE_IOERR: disk I/O error at /var/lib/livechat/secret.db");
    return inner_.Write(fn);
  }
  bool Healthy() override { return !fail && inner_.Healthy(); }

 private:
  Store& inner_;
};

TEST_CASE("A storage failure is 500 INTERNAL with a generic message") {
  auto opened = OpenSqliteStore(SqliteOptions{":memory:", 1, 5000});
  REQUIRE(opened.ok());
  auto inner = std::move(opened).value();
  FailingStore store(*inner);
  ManualClock clock;
  auto random = NewSeededRandom(3);
  ServiceOptions so;
  so.store = &store;
  so.clock = &clock;
  so.random = random.get();
  ChatService service(so);
  auto shop = RestFixture::Must(service.directory().CreateShop(CreateShopInput{"S", Plan::kPro, false}));
  auto key = RestFixture::Must(service.directory().CreateApiKey(Principal::System(shop.id), CreateKeyInput{"k", kAllRestPerms}));
  RestApi api(service, RestOptions{});

  HttpRequest req;
  req.method = "GET";
  req.target = "/chat/conversations";
  req.headers = {{"x-api-key", key.secret}};
  req.peerIp = "203.0.113.7";
  CHECK(api.Handle(req).status == 200);
  store.fail = true;
  auto resp = api.Handle(req);
  CHECK(resp.status == 500);
  CHECK(resp.body == R"({"error":{"code":"INTERNAL","message":"internal error"}})");
  CHECK(resp.Header("Content-Type") == std::optional<std::string>("application/json; charset=utf-8"));
}

TEST_CASE("REST bodies follow the shared JSON rule: charset must be utf-8 (415), type case-insensitive") {
  RestFixture f;
  Bodies b(f);
  for (const char* refused : {"application/json;charset=latin1", "application/json; charset=\"utf-16\"",
                              "application/problem+json"}) {
    CAPTURE(refused);
    auto r = b.Send(b.Valid(), std::string(refused));
    CHECK(r.status() == 415);
    CHECK(r.code() == "UNSUPPORTED_MEDIA_TYPE");
    CHECK(r.message() == "Content-Type must be application/json");
  }
  CHECK(f.MessageCount(b.conv.id) == 1);
  CHECK(b.Send(b.Valid(), "Application/JSON; charset=\"UTF-8\"").status() == 201);
  CHECK(f.MessageCount(b.conv.id) == 2);
}

// A real full database (SQLite's size cap gives SQLITE_FULL, as ENOSPC
// does) behind the whole REST path: writes answer 503 UNAVAILABLE with
// Retry-After and change nothing; reads go on. Recorded for the contract
// test, so the document's 503 is checked against a real answer.
TEST_CASE("REST: a full database answers writes 503 UNAVAILABLE with Retry-After; reads go on") {
  if (TestOnPostgres()) return;  // the PostgreSQL store's 53100 is pg_store_test's
  TempDir dir;
  const std::string path = dir.File("full.db");
  { auto migrated = OpenSqliteStore(SqliteOptions{path, 1, 5000}); REQUIRE(migrated.ok()); }
  SqliteOptions capped{path, 1, 5000};
  // Room for the fixture's shop, key and member, and a few messages.
  capped.maxDatabaseBytes = static_cast<std::int64_t>(std::filesystem::file_size(path)) + 64 * 1024;
  auto opened = OpenSqliteStore(capped);
  REQUIRE(opened.ok());
  RestFixture f(std::move(opened).value(), RelaxedLimits());
  const Conversation conv = f.Inbound("hi");
  const std::string path2 = "/chat/conversations/" + conv.id + "/messages";
  const std::string body = R"({"text":")" + std::string(4900, 'm') + R"(","memberId":")" + f.agent.id + R"("})";
  int accepted = 0;
  Reply last = f.Post(path2, body);
  for (; last.status() == 201 && accepted < 200; last = f.Post(path2, body)) ++accepted;
  CHECK(accepted >= 1);
  REQUIRE(last.status() == 503);
  CHECK(last.code() == "UNAVAILABLE");
  CHECK(last.message() == "the service's storage is full or unreachable right now; try again later");
  CHECK(last.header("Retry-After") == "5");
  CHECK(last.header("X-RateLimit-Limit") != "<absent>");
  // The refused message is not there; every accepted one is, and reads work.
  Reply list = f.Get(path2 + "?limit=500");
  REQUIRE(list.status() == 200);
  CHECK(list.data().Size() == static_cast<rapidjson::SizeType>(accepted + 1));
  Reply detail = f.Get("/chat/conversations/" + conv.id);
  REQUIRE(detail.status() == 200);
  CHECK(detail.data()["messageCount"].GetInt() == accepted + 1);
}

}  // namespace
}  // namespace livechat
