// Files on a real livechatd: a widget uploads an attachment over HTTP, an
// agent reads the message and downloads the bytes from its URL; a logo and a
// contact import through livechatctl; the files directory on disk.
#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>
#include <httplib.h>

#include "e2e/e2e_helpers.h"

namespace {

using e2e::Ctl;
using e2e::Daemon;
using e2e::MakeClient;
using e2e::ParseJson;
using e2e::StartDaemon;
using e2e::StopDaemon;
using e2e::Str;
using e2e::TempDir;

std::string Png(std::size_t size) {
  std::string b("\x89PNG\r\n\x1a\n", 8);
  b.resize(size, 'x');
  return b;
}

}  // namespace

TEST_CASE("livechatd files: widget attachment round trip over HTTP, logo and contact import with livechatctl") {
  TempDir dir;
  const std::string db = dir.File("files.db");
  auto shop = Ctl(db, {"store", "create", "--name", "Files shop"});
  const std::string storeId = Str(shop, "id");
  const std::string appId = Str(shop, "appId");
  auto key = Ctl(db, {"key", "create", "--store", storeId, "--name", "agent", "--permissions", "read_conversations,read_customers"});
  const std::string apiKey = Str(key, "key");

  // livechatctl: a logo and a contact import land in DB.files, as livechatd will look for them.
  const std::string logoPath = dir.File("logo.png");
  std::ofstream(logoPath, std::ios::binary) << Png(1000);
  auto logo = Ctl(db, {"files", "upload", "--store", storeId, "--kind", "logo", "--file", logoPath});
  const std::string logoUrl = Str(logo, "url");
  CHECK(logoUrl == "/files/" + Str(logo, "id"));
  const std::string csvPath = dir.File("contacts.csv");
  std::ofstream(csvPath, std::ios::binary) << "email,name\nann@example.com,Ann\nbob@example.com,\"Bob, B\"\n";
  auto imported = Ctl(db, {"customers", "import", "--store", storeId, "--file", csvPath});
  CHECK(imported["created"].GetInt64() == 2);
  CHECK(std::filesystem::exists(db + ".files/" + storeId + "/logo/" + Str(logo, "id")));

  Daemon daemon = StartDaemon(dir, db);
  {
    httplib::Client cli = MakeClient(daemon.port);
    auto session = cli.Post("/storefront/sessions", {{"X-App-Id", appId}}, "", "application/json");
    REQUIRE(session);
    REQUIRE(session->status == 201);
    const std::string token = Str(ParseJson(session->body)["data"], "token");
    httplib::Headers auth{{"X-App-Id", appId}, {"X-Session-Token", token}};

    // 3 MiB: above --max-body (1 MiB), under the attachment limit.
    const std::string bytes = Png(3 * 1024 * 1024);
    auto up = cli.Post("/storefront/files?name=screenshot.png", auth, bytes, "image/png");
    REQUIRE(up);
    REQUIRE_MESSAGE(up->status == 201, up->body);
    auto upJson = ParseJson(up->body);
    const auto& entry = upJson["data"]["message"]["files"][0];
    const std::string url = Str(entry, "url");
    CHECK(entry["size"].GetInt64() == 3 * 1024 * 1024);

    auto tooBig = cli.Post("/storefront/files?name=big.png", auth, Png(10 * 1024 * 1024 + 1), "image/png");
    REQUIRE(tooBig);
    CHECK(tooBig->status == 413);
    CHECK(e2e::ErrorCodeOf(tooBig->body) == "PAYLOAD_TOO_LARGE");

    // The agent's read carries a freshly signed URL that downloads the same bytes.
    auto conversations = cli.Get("/chat/conversations", {{"X-Api-Key", apiKey}});
    REQUIRE(conversations);
    REQUIRE(conversations->status == 200);
    const std::string conv = Str(ParseJson(conversations->body)["data"][0], "id");
    auto messages = cli.Get("/chat/conversations/" + conv + "/messages", {{"X-Api-Key", apiKey}});
    REQUIRE(messages);
    const std::string agentUrl = Str(ParseJson(messages->body)["data"][0]["files"][0], "url");

    for (const std::string& u : {url, agentUrl}) {
      auto got = cli.Get(u);
      REQUIRE(got);
      REQUIRE(got->status == 200);
      CHECK(got->body == bytes);
      CHECK(got->get_header_value("Content-Type") == "image/png");
      CHECK(got->get_header_value("Content-Length") == std::to_string(bytes.size()));
      CHECK(got->get_header_value("X-Content-Type-Options") == "nosniff");
      CHECK(got->get_header_value("Content-Security-Policy").find("sandbox") != std::string::npos);
    }
    const std::string bare = url.substr(0, url.find('?'));
    auto anonymous = cli.Get(bare);
    REQUIRE(anonymous);
    CHECK(anonymous->status == 404);
    auto withKey = cli.Get(bare, {{"X-Api-Key", apiKey}});
    REQUIRE(withKey);
    CHECK(withKey->status == 200);

    auto publicLogo = cli.Get(logoUrl);
    REQUIRE(publicLogo);
    CHECK(publicLogo->status == 200);
    CHECK(publicLogo->body == Png(1000));
  }
  StopDaemon(daemon);
  // The secret livechatd made for signing stays beside the files.
  CHECK(std::filesystem::file_size(db + ".files/.url-secret") == 64);

  // Shop redact keeps the attachment and removes the logo and the import.
  auto purged = Ctl(db, {"files", "purge", "--store", storeId});
  CHECK(Str(purged, "storeId") == storeId);
  CHECK_FALSE(std::filesystem::exists(db + ".files/" + storeId + "/logo"));
  CHECK_FALSE(std::filesystem::exists(db + ".files/" + storeId + "/import"));
  CHECK(std::filesystem::exists(db + ".files/" + storeId + "/attachment"));
}
