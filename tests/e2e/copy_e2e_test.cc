// Moving an installation from its embedded SQLite file to PostgreSQL with
// `livechatctl copy-to-postgres`, as docs/operations.md tells an operator:
// livechatd on the copy answers the same pages, and a cursor handed out
// before the move pages on after it. Runs in the e2e entry of ctest (the
// source is a SQLite file; the target a throwaway PostgreSQL database).
#include <doctest/doctest.h>
#include <httplib.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <string>

#include "e2e/e2e_helpers.h"
#include "support/pg_database.h"
#include "support/test_store.h"

namespace {

using e2e::Daemon;
using e2e::ParseJson;
using e2e::StartDaemon;
using e2e::StopDaemon;
using e2e::TempDir;

struct Pages {
  std::string first, second, cursor;
};

Pages ReadPages(int port, const std::string& key, const std::string& cursor = "") {
  httplib::Client cli = e2e::MakeClient(port);
  Pages p;
  auto first = cli.Get("/chat/conversations?limit=2", {{"X-Api-Key", key}});
  REQUIRE(first);
  REQUIRE(first->status == 200);
  p.first = first->body;
  auto doc = ParseJson(first->body);
  REQUIRE(doc["paging"]["nextCursor"].IsString());
  p.cursor = cursor.empty() ? doc["paging"]["nextCursor"].GetString() : cursor;
  auto second = cli.Get("/chat/conversations?limit=2&cursor=" + p.cursor, {{"X-Api-Key", key}});
  REQUIRE(second);
  REQUIRE(second->status == 200);
  p.second = second->body;
  return p;
}

TEST_CASE("livechatctl copy-to-postgres: livechatd on the copy serves the same pages and cursors") {
  if (livechat::testing::TestOnPostgres()) {
    MESSAGE("copies from a SQLite file: the e2e entry of ctest runs it");
    return;
  }
  TempDir dir;
  const std::string db = dir.File("embedded.db");
  const std::string ctl = e2e::HostBinary("livechatctl");
  livechat::testing::PgTestDatabase pg;

  e2e::RunResult demo = e2e::Run({ctl, "--db", db, "demo", "--name", "Moving Shop"});
  REQUIRE(demo.exitCode == 0);
  const std::string key = ParseJson(demo.out)["key"]["key"].GetString();

  Pages before;
  {
    Daemon d = StartDaemon(dir, db);
    before = ReadPages(d.port, key);
    StopDaemon(d);
  }

  e2e::RunResult copy = e2e::Run({ctl, "--db", db, "copy-to-postgres", "--to", pg.url()});
  INFO("stdout: " << copy.out << "\nstderr: " << copy.err);
  REQUIRE(copy.exitCode == 0);
  auto report = ParseJson(copy.out);
  CHECK(std::string(report["from"].GetString()) == "sqlite " + db);
  CHECK(std::string(report["to"].GetString()) == "postgresql " + pg.url());
  CHECK(std::string(report["filesDir"].GetString()) == db + ".files");
  CHECK(report["tables"]["shops"].GetInt64() == 1);
  CHECK(report["tables"]["messages"].GetInt64() == std::stoll(pg.Query("SELECT count(*) FROM messages")));
  std::int64_t sum = 0;
  for (const auto& t : report["tables"].GetObject()) sum += t.value.GetInt64();
  CHECK(report["rows"].GetInt64() == sum);

  {
    std::filesystem::create_directories(dir.File("shared-files"));
    Daemon d = StartDaemon(dir, pg.url(), {"--files-dir", dir.File("shared-files")});
    Pages after = ReadPages(d.port, key, before.cursor);
    CHECK(after.first == before.first);
    CHECK(after.second == before.second);
    StopDaemon(d);
  }

  // Run again: the target holds records now.
  e2e::RunResult again = e2e::Run({ctl, "--db", db, "copy-to-postgres", "--to", pg.url()});
  CHECK(again.exitCode == 1);
  CHECK(e2e::ErrorCodeOf(again.out) == "CONFLICT");
  // A mistyped source is named, and not created.
  const std::string typo = dir.File("embeded.db");
  e2e::RunResult missing = e2e::Run({ctl, "--db", typo, "copy-to-postgres", "--to", pg.url()});
  CHECK(missing.exitCode == 1);
  CHECK(missing.out == "{\"error\":{\"code\":\"NOT_FOUND\",\"message\":\"no SQLite database at " + typo + "\"}}\n");
  CHECK_FALSE(std::filesystem::exists(typo));
}

}  // namespace
