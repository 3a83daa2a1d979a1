// The agent inbox's own part of /api/...: the CSRF header on every write,
// who the session is, the star, the folder counts, who is typing, and an
// agent's attachment (docs/inbox.md). In process, on a real SQLite store.
#include <doctest/doctest.h>

#include "livechat/file_server.h"
#include "support/file_download.h"
#include "support/rest_fixture.h"
#include "support/temp_blob_dir.h"

namespace livechat::testing {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Inbox {
  test::TempBlobDir dir;
  RestFixture f{RelaxedLimits(), {}, nullptr, &dir.blobs()};
  std::string cookie;

  Inbox() {
    auto login = f.service().auth().Login("agent@example.com", "correct horse battery", std::nullopt, "203.0.113.7");
    REQUIRE(login.ok());
    cookie = "lc_session=" + login->token;
  }

  Reply Call(const std::string& method, const std::string& target, const std::string& body = "",
             bool csrf = true, const std::string& type = "application/json") {
    HttpRequest req;
    req.method = method;
    req.target = target;
    req.peerIp = "203.0.113.7";
    req.headers.emplace_back("cookie", cookie);
    if (csrf) req.headers.emplace_back("x-livechat-csrf", "1");
    if (!body.empty()) req.headers.emplace_back("content-type", type);
    req.body = body;
    return f.Send(req);
  }
  Reply Get(const std::string& target) { return Call("GET", target, "", false); }
  bool Starred(const std::string& id) { return At(f.Get("/chat/conversations/" + id).data(), "isStarred").GetBool(); }
  std::string Counts() { return Get("/api/chat/inbox-counts").raw.body; }
};

TEST_CASE("inbox: a write under /api/ without X-Livechat-Csrf: 1 is 403 and changes nothing") {
  Inbox in;
  auto conv = in.f.InboundFrom("maya@example.com", "hello");
  const std::string before = in.f.Get("/chat/conversations/" + conv.id + "/messages").raw.body;

  auto forged = in.Call("POST", "/api/chat/conversations/" + conv.id + "/messages", R"({"text":"forged"})", false);
  CHECK(forged.status() == 403);
  CHECK(forged.code() == "FORBIDDEN");
  CHECK(forged.message() ==
        "a write under /api/ needs the header X-Livechat-Csrf: 1 (the inbox sends it; see docs/inbox.md)");
  CHECK(in.f.Get("/chat/conversations/" + conv.id + "/messages").raw.body == before);

  // Only the value "1" counts; the other writes of the surface are held to it too.
  HttpRequest wrongValue;
  wrongValue.method = "POST";
  wrongValue.target = "/api/chat/conversations/" + conv.id + "/state";
  wrongValue.peerIp = "203.0.113.7";
  wrongValue.headers = {{"cookie", in.cookie}, {"x-livechat-csrf", "true"}, {"content-type", "application/json"}};
  wrongValue.body = R"({"status":"resolved"})";
  CHECK(in.f.Send(wrongValue).status() == 403);
  CHECK(in.Call("DELETE", "/api/chat/conversations/" + conv.id + "/tags/x", "", false).status() == 403);
  CHECK(in.Call("POST", "/api/auth/logout", "", false).status() == 403);
  CHECK(in.Get("/api/auth/session").status() == 200);  // the forged logout did not end it
  CHECK(Str(At(in.f.Get("/chat/conversations/" + conv.id).data(), "status")) == "open");

  // Reads need no header; a 405 is a 405 with or without it.
  CHECK(in.Get("/api/chat/conversations/" + conv.id).status() == 200);
  CHECK(in.Call("PATCH", "/api/chat/conversations/" + conv.id, "", false).status() == 405);

  // With the header the same write goes through.
  auto sent = in.Call("POST", "/api/chat/conversations/" + conv.id + "/messages", R"({"text":"real"})");
  CHECK(sent.status() == 201);
  CHECK(Str(At(sent.data(), "text")) == "real");

  // Sign-in carries no session to forge: it needs no header.
  HttpRequest login;
  login.method = "POST";
  login.target = "/api/auth/login";
  login.peerIp = "203.0.113.8";
  login.headers = {{"content-type", "application/json"}};
  login.body = R"({"email":"agent@example.com","password":"correct horse battery"})";
  CHECK(in.f.Send(login).status() == 200);
}

TEST_CASE("inbox: GET /api/auth/session says who is signed in, 401 without a session") {
  Inbox in;
  auto who = in.Get("/api/auth/session");
  REQUIRE(who.status() == 200);
  CHECK(KeySet(who.data()) == std::set<std::string>{"member", "shopId"});
  CHECK(Str(At(At(who.data(), "member"), "id")) == in.f.agent.id);
  CHECK(KeySet(At(who.data(), "member")) == Keys(kMemberKeys));
  CHECK(Str(At(who.data(), "shopId")) == in.f.agent.shopId);

  CHECK(in.Call("POST", "/api/auth/logout").status() == 200);
  auto after = in.Get("/api/auth/session");
  CHECK(after.status() == 401);
  CHECK(after.code() == "UNAUTHENTICATED");
}

TEST_CASE("inbox: star and unstar, the isStarred filter, and the folder counts") {
  Inbox in;
  auto a = in.f.InboundFrom("a@example.com", "one");
  auto b = in.f.InboundFrom("b@example.com", "two");
  auto c = in.f.InboundFrom("c@example.com", "three");
  // b: read and assigned to the agent; c: resolved.
  REQUIRE(in.Call("POST", "/api/chat/conversations/" + b.id + "/read").status() == 200);
  REQUIRE(in.Call("POST", "/api/chat/conversations/" + b.id + "/assign", R"({"memberId":")" + in.f.agent.id + "\"}")
              .status() == 200);
  REQUIRE(in.Call("POST", "/api/chat/conversations/" + c.id + "/state", R"({"status":"resolved"})").status() == 200);
  CHECK(in.Counts() == R"({"data":{"open":2,"unread":1,"mine":1,"unassigned":1,"starred":0}})");

  auto star = in.Call("POST", "/api/chat/conversations/" + a.id + "/star", R"({"starred":true})");
  REQUIRE(star.status() == 200);
  CHECK(At(star.data(), "isStarred").GetBool());
  CHECK(Str(At(star.data(), "id")) == a.id);
  CHECK(in.Starred(a.id));
  // Starring twice is the same state; a resolved conversation can be starred.
  CHECK(in.Call("POST", "/api/chat/conversations/" + a.id + "/star", R"({"starred":true})").status() == 200);
  CHECK(in.Call("POST", "/api/chat/conversations/" + c.id + "/star", R"({"starred":true})").status() == 200);
  CHECK(in.Counts() == R"({"data":{"open":2,"unread":1,"mine":1,"unassigned":1,"starred":2}})");

  auto starred = in.Get("/api/chat/conversations?isStarred=true");
  REQUIRE(starred.status() == 200);
  CHECK(Column(starred.data(), "id") == std::vector<std::string>{c.id, a.id});
  CHECK(Column(in.Get("/api/chat/conversations?isStarred=false").data(), "id") == std::vector<std::string>{b.id});
  CHECK(Column(in.Get("/api/chat/conversations?isStarred=true&status=open").data(), "id") ==
        std::vector<std::string>{a.id});
  // The public API filters the same way (isStarred is a documented field).
  CHECK(Column(in.f.Get("/chat/conversations?isStarred=true").data(), "id") == std::vector<std::string>{c.id, a.id});

  auto badFilter = in.Get("/api/chat/conversations?isStarred=yes");
  CHECK(badFilter.status() == 400);
  CHECK(badFilter.message() == "isStarred must be true or false");

  auto unstar = in.Call("POST", "/api/chat/conversations/" + a.id + "/star", R"({"starred":false})");
  CHECK(unstar.status() == 200);
  CHECK_FALSE(in.Starred(a.id));
  CHECK(in.Counts() == R"({"data":{"open":2,"unread":1,"mine":1,"unassigned":1,"starred":1}})");

  // Bad input: a clear 400, nothing changes.
  auto missing = in.Call("POST", "/api/chat/conversations/" + b.id + "/star", R"({})");
  CHECK(missing.status() == 400);
  CHECK(missing.message() == "starred is required: true to star the conversation, false to unstar it");
  auto notBool = in.Call("POST", "/api/chat/conversations/" + b.id + "/star", R"({"starred":"yes"})");
  CHECK(notBool.status() == 400);
  CHECK_FALSE(in.Starred(b.id));
  CHECK(in.Call("POST", "/api/chat/conversations/nope/star", R"({"starred":true})").status() == 404);
}

TEST_CASE("inbox: the star, typing, files and counts routes are the session's only") {
  Inbox in;
  auto conv = in.f.InboundFrom("maya@example.com", "hello");
  auto star = in.f.Post("/chat/conversations/" + conv.id + "/star", R"({"starred":true})");
  CHECK(star.status() == 404);
  CHECK(star.code() == "NOT_FOUND");
  CHECK(in.f.Get("/chat/inbox-counts").status() == 404);
  auto typing = in.f.Get("/chat/conversations/" + conv.id + "/typing");  // POST exists on the public API
  CHECK(typing.status() == 405);
  CHECK(typing.header("Allow") == "POST");
  CHECK_FALSE(in.Starred(conv.id));
}

TEST_CASE("inbox: who is typing, the visitor included, for 10 s after the last change") {
  Inbox in;
  auto conv = in.f.InboundFrom("maya@example.com", "hello");
  const std::string path = "/api/chat/conversations/" + conv.id + "/typing";
  CHECK(in.Get(path).raw.body == R"({"data":[]})");

  // The visitor's row is what the widget's typing:set writes (member id "customer").
  REQUIRE(in.f.store().Write([&](StoreWriter& w) {
    return w.PutTyping(conv.shopId, TypingState{conv.id, "customer", true, in.f.clock.NowMillis()});
  }).ok());
  auto now = in.Get(path);
  REQUIRE(now.status() == 200);
  REQUIRE(now.data().Size() == 1);
  CHECK(Str(At(At(now.data(), 0), "memberId")) == "customer");
  CHECK(At(At(now.data(), 0), "active").GetBool());

  in.f.clock.Advance(ConversationService::kTypingShownMillis);  // exactly 10 s: still shown
  CHECK(in.Get(path).data().Size() == 1);
  in.f.clock.Advance(1);                                // one millisecond more: aged out
  CHECK(in.Get(path).raw.body == R"({"data":[]})");

  // An agent's own typing (POST) shows, and stops with active false.
  REQUIRE(in.Call("POST", path, R"({"active":true})").status() == 200);
  auto agent = in.Get(path);
  REQUIRE(agent.data().Size() == 1);
  CHECK(Str(At(At(agent.data(), 0), "memberId")) == in.f.agent.id);
  REQUIRE(in.Call("POST", path, R"({"active":false})").status() == 200);
  CHECK(in.Get(path).raw.body == R"({"data":[]})");
  CHECK(in.Get("/api/chat/conversations/nope/typing").status() == 404);
}

TEST_CASE("inbox: an agent's attachment is a message with its file, downloadable by its signed URL") {
  Inbox in;
  auto conv = in.f.InboundFrom("maya@example.com", "can you send the invoice?");
  const std::string png = test::PngBytes(300);
  const std::string path = "/api/chat/conversations/" + conv.id + "/files?name=invoice%20scan.png";
  auto sent = in.Call("POST", path, png, true, "image/png");
  REQUIRE(sent.status() == 201);
  CHECK(Str(At(sent.data(), "text")) == "invoice scan.png");
  CHECK(Str(At(sent.data(), "senderType")) == "agent");
  CHECK(Str(At(sent.data(), "memberId")) == in.f.agent.id);
  CHECK(Str(At(sent.data(), "contentType")) == "file");
  const auto& file = At(At(sent.data(), "files"), 0);
  CHECK(Str(At(file, "name")) == "invoice scan.png");
  CHECK(At(file, "size").GetInt64() == 300);
  CHECK(Str(At(file, "contentType")) == "image/png");
  const std::string url = Str(At(file, "url"));
  CHECK(url.rfind("/files/" + Str(At(file, "id")) + "?expires=", 0) == 0);

  FileServer files(in.f.service());
  HttpResponse download = DownloadFile(files, url);
  CHECK(download.status == 200);
  CHECK(download.body == png);

  // The thread shows it, and the customer's view (message.created) has it.
  auto list = in.Get("/api/chat/conversations/" + conv.id + "/messages");
  REQUIRE(list.data().Size() == 2);
  CHECK(Str(At(At(At(At(list.data(), 1), "files"), 0), "name")) == "invoice scan.png");

  // The widget's limits and types: 10 MiB accepted, 10 MiB + 1 refused;
  // a body that is not what it says is refused. None of them adds a message.
  Limits limits;
  auto ok = in.Call("POST", path, test::PngBytes(static_cast<std::size_t>(limits.attachmentMaxBytes)), true, "image/png");
  CHECK(ok.status() == 201);
  auto big = in.Call("POST", path, test::PngBytes(static_cast<std::size_t>(limits.attachmentMaxBytes) + 1), true,
                     "image/png");
  CHECK(big.status() == 413);
  CHECK(big.code() == "PAYLOAD_TOO_LARGE");
  auto lying = in.Call("POST", path, "GIF89a......", true, "image/png");
  CHECK(lying.status() == 400);
  auto untyped = in.Call("POST", path, png, true, "");
  CHECK(untyped.status() == 400);
  CHECK(in.Get("/api/chat/conversations/" + conv.id + "/messages").data().Size() == 3);
  CHECK(in.Call("POST", "/api/chat/conversations/nope/files?name=a.png", png, true, "image/png").status() == 404);
}

}  // namespace
}  // namespace livechat::testing
