// End to end: legacy conversations loaded with `livechatctl import legacy`
// and read over HTTP from a running livechatd, migrated with `livechatctl
// migrate` while it runs, and `livechatctl backup` of the live database
// restored into a second livechatd.
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <httplib.h>
#include <rapidjson/document.h>

#include "e2e/child_process.h"
#include "e2e/e2e_helpers.h"
#include "support/test_store.h"

namespace {

using e2e::Ctl;
using e2e::Daemon;
using e2e::MakeClient;
using e2e::ParseJson;
using e2e::RunResult;
using e2e::StartDaemon;
using e2e::StopDaemon;
using e2e::Str;
using e2e::TempDir;

const char* const kAda = "0Kd7a9x2mQpL4vT8sRzB";
const char* const kGrace = "9fQe1Lw0cXbN3sUa7YhK";

rapidjson::Document GetOk(httplib::Client& cli, const std::string& path, const httplib::Headers& auth) {
  auto res = cli.Get(path, auth);
  REQUIRE(res);
  INFO(path << " -> " << res->body);
  REQUIRE(res->status == 200);
  return ParseJson(res->body);
}

std::vector<std::string> ListedFirestoreIds(httplib::Client& cli, const httplib::Headers& auth) {
  auto doc = GetOk(cli, "/chat/conversations", auth);
  std::vector<std::string> out;
  for (const auto& c : doc["data"].GetArray()) out.push_back(c["firestoreId"].IsString() ? c["firestoreId"].GetString() : "");
  return out;
}

}  // namespace

TEST_CASE("livechatctl import legacy and migrate against a running livechatd; backup while it runs, then restore") {
  TempDir dir;
  const std::string db = dir.File("legacy.db");
  const std::string ctl = e2e::HostBinary("livechatctl");
  const std::string storeId = Str(Ctl(db, {"store", "create", "--name", "Legacy", "--plan", "pro"}), "id");
  const std::string apiKey = Str(Ctl(db, {"key", "create", "--store", storeId, "--name", "k", "--permissions",
                                          "read_conversations,manage_conversations,read_customers"}),
                                 "key");
  Ctl(db, {"conversation", "start", "--store", storeId, "--customer-name", "New Customer", "--text", "hello"});

  auto imported = Ctl(db, {"import", "legacy", "--store", storeId, "--file",
                           std::string(LIVECHAT_SOURCE_DIR) + "/examples/legacy/legacy_export.json"});
  CHECK(imported["imported"].GetInt() == 2);
  CHECK(imported["skipped"].GetInt() == 0);
  CHECK(imported["messages"].GetInt() == 6);
  CHECK(imported["contactsCreated"].GetInt() == 2);

  Daemon daemon = StartDaemon(dir, db);
  httplib::Client cli = MakeClient(daemon.port);
  const httplib::Headers auth = {{"X-Api-Key", apiKey}};

  // Reachable by the old id, with its messages; source firestore; not listed.
  {
    auto conv = GetOk(cli, std::string("/chat/conversations/") + kAda, auth);
    CHECK(std::string(conv["meta"]["source"].GetString()) == "firestore");
    CHECK(std::string(conv["data"]["firestoreId"].GetString()) == kAda);
    CHECK(conv["data"]["pgConvoId"].IsNull());
    CHECK(std::string(conv["data"]["customerEmail"].GetString()) == "ada@example.com");
    CHECK(conv["data"]["messageCount"].GetInt() == 4);
    auto messages = GetOk(cli, std::string("/chat/conversations/") + kAda + "/messages", auth);
    REQUIRE(messages["data"].Size() == 4);
    CHECK(std::string(messages["data"][0]["text"].GetString()) ==
          "Hi, can I return the blue scarf I bought last week?");
    CHECK(std::string(messages["data"][0]["createdAt"].GetString()) == "2024-05-02T09:15:00.000Z");
    CHECK(std::string(messages["data"][3]["createdAt"].GetString()) == "2024-05-02T09:20:05.250Z");
    CHECK(messages["data"][2]["isNote"].GetBool());
  }
  CHECK(ListedFirestoreIds(cli, auth) == std::vector<std::string>{""});

  // A second import of the same file changes nothing.
  auto again = Ctl(db, {"import", "legacy", "--store", storeId, "--file",
                        std::string(LIVECHAT_SOURCE_DIR) + "/examples/legacy/legacy_export.json"});
  CHECK(again["imported"].GetInt() == 0);
  CHECK(again["skipped"].GetInt() == 2);

  // Migrate one, then the rest, while livechatd serves.
  auto one = Ctl(db, {"migrate", "--store", storeId, "--limit", "1"});
  CHECK(one["migrated"].GetInt() == 1);
  CHECK(one["remaining"].GetInt() == 1);
  CHECK(ListedFirestoreIds(cli, auth) == std::vector<std::string>{"", kAda});
  auto rest = Ctl(db, {"migrate", "--store", storeId});
  CHECK(rest["migrated"].GetInt() == 1);
  CHECK(rest["remaining"].GetInt() == 0);
  CHECK(ListedFirestoreIds(cli, auth) == std::vector<std::string>{"", kGrace, kAda});
  std::string pgId;
  {
    auto conv = GetOk(cli, std::string("/chat/conversations/") + kGrace, auth);
    CHECK(std::string(conv["meta"]["source"].GetString()) == "postgresql");
    REQUIRE(conv["data"]["pgConvoId"].IsString());
    pgId = conv["data"]["pgConvoId"].GetString();
    auto byPg = GetOk(cli, "/chat/conversations/" + pgId + "/messages", auth);
    CHECK(byPg["data"].Size() == 2);
  }

  if (livechat::testing::TestOnPostgres()) {
    // `backup` copies a SQLite file; a PostgreSQL database is pg_dump's.
    RunResult refused = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "backup", "--out", dir.File("copy.db")});
    CHECK(refused.exitCode == 1);
    CHECK(refused.out.find("back up a PostgreSQL database with pg_dump") != std::string::npos);
    StopDaemon(daemon);
    return;
  }
  // Backup while livechatd runs; an existing file is refused.
  const std::string copy = dir.File("copy.db");
  auto backup = Ctl(db, {"backup", "--out", copy});
  CHECK(Str(backup, "backup") == copy);
  CHECK(backup["bytes"].GetInt64() > 0);
  RunResult refused = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "backup", "--out", copy});
  CHECK(refused.exitCode == 1);
  CHECK(refused.out.find("already exists") != std::string::npos);
  // Writes after the backup are not in it.
  Ctl(db, {"conversation", "start", "--store", storeId, "--customer-name", "Late", "--text", "after the backup"});
  CHECK(ListedFirestoreIds(cli, auth).size() == 4);
  StopDaemon(daemon);

  // Restore: a livechatd on the copy serves what was there at backup time.
  Daemon restored = StartDaemon(dir, copy);
  httplib::Client cli2 = MakeClient(restored.port);
  CHECK(ListedFirestoreIds(cli2, auth) == std::vector<std::string>{"", kGrace, kAda});
  auto conv = GetOk(cli2, "/chat/conversations/" + pgId, auth);
  CHECK(std::string(conv["data"]["firestoreId"].GetString()) == kGrace);
  StopDaemon(restored);
}

TEST_CASE("livechatctl import legacy: a refused file names the record; usage errors") {
  TempDir dir;
  const std::string db = dir.File("legacy-bad.db");
  const std::string ctl = e2e::HostBinary("livechatctl");
  const std::string storeId = Str(Ctl(db, {"store", "create", "--name", "Legacy", "--plan", "pro"}), "id");
  const std::string bad = dir.File("bad.json");
  {
    std::FILE* f = std::fopen(bad.c_str(), "w");
    REQUIRE(f);
    std::fputs(R"({"conversations":[{"id":"ok1","createdAt":"2024-01-01T00:00:00Z"},{"id":"x","messages":[{"senderType":"customer","text":"","createdAt":"2024-01-01T00:00:00Z"}]}]})", f);
    std::fclose(f);
  }
  RunResult refused = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "import", "legacy", "--store", storeId, "--file", bad});
  CHECK(refused.exitCode == 1);
  auto err = ParseJson(refused.out);
  CHECK(std::string(err["error"]["code"].GetString()) == "INVALID_PARAMS");
  CHECK(std::string(err["error"]["message"].GetString()) == "conversations[1].messages[0].text: must not be blank");
  auto nothing = Ctl(db, {"migrate", "--store", storeId});
  CHECK(nothing["migrated"].GetInt() == 0);
  CHECK(nothing["remaining"].GetInt() == 0);  // the valid first record was not written either

  RunResult missing = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "import", "legacy", "--store", storeId, "--file", dir.File("no.json")});
  CHECK(missing.exitCode == 2);
  RunResult limit = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "migrate", "--store", storeId, "--limit", "0"});
  CHECK(limit.exitCode == 2);
  RunResult unknownStore = e2e::Run({ctl, "--db", e2e::DatabaseFor(db), "migrate", "--store", "nope"});
  CHECK(unknownStore.exitCode == 1);
  CHECK(unknownStore.out.find("NOT_FOUND") != std::string::npos);
}
