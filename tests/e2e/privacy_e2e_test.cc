// End to end: a real livechatd with --platform-secret receives signed platform
// requests over real HTTP (signed here with OpenSSL, independently of the
// server's libsodium), and livechatctl reads the audit trail and the data
// request export from the same SQLite file.
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <httplib.h>

#include "e2e/child_process.h"
#include "e2e/e2e_helpers.h"

namespace {

using e2e::Ctl;
using e2e::ErrorCodeOf;
using e2e::ParseJson;
using e2e::Str;
using e2e::TempDir;

constexpr const char* kSecret = "e2e-platform-app-secret";

std::string Sign(const std::string& body) { return e2e::PlatformSignature(kSecret, body); }

}  // namespace

TEST_CASE("livechatd platform requests over HTTP: signed, unsigned, replayed; livechatctl audit and data-requests") {
  TempDir dir;
  const std::string db = dir.File("privacy.db");
  const std::string storeId = Str(Ctl(db, {"store", "create", "--name", "Privacy Shop"}), "id");
  auto conv = Ctl(db, {"conversation", "start", "--store", storeId, "--channel", "email", "--customer-name", "Casey",
                       "--customer-email", "casey@example.com", "--text", "Please send me my data"});
  const std::string customerUuid = Str(conv, "customerUuid");
  const std::string apiKey =
      Str(Ctl(db, {"key", "create", "--store", storeId, "--name", "k", "--permissions", "read_customers"}), "key");

  e2e::Daemon daemon = e2e::StartDaemon(dir, db, {"--platform-secret", kSecret});
  {
    httplib::Client cli = e2e::MakeClient(daemon.port);
    const std::string dataRequest = R"({"shop_id":")" + storeId +
                                    R"(","customer":{"id":4242,"email":"casey@example.com"},"orders_requested":[],)"
                                    R"("data_request":{"id":777}})";
    auto unsigned_ = cli.Post("/platform/customers-data-request", dataRequest, "application/json");
    REQUIRE(unsigned_);
    CHECK(unsigned_->status == 401);
    CHECK(ErrorCodeOf(unsigned_->body) == "UNAUTHENTICATED");

    httplib::Headers signedHeaders = {{"X-Platform-Hmac-Sha256", Sign(dataRequest)},
                                      {"X-Platform-Webhook-Id", "wh-e2e-1"}};
    auto ok = cli.Post("/platform/customers-data-request", signedHeaders, dataRequest, "application/json");
    REQUIRE(ok);
    INFO("body: " << ok->body);
    REQUIRE(ok->status == 200);
    CHECK(Str(ParseJson(ok->body)["data"], "outcome") == "applied");
    auto replay = cli.Post("/platform/customers-data-request", signedHeaders, dataRequest, "application/json");
    REQUIRE(replay);
    CHECK(replay->status == 200);
    CHECK(Str(ParseJson(replay->body)["data"], "outcome") == "replay");

    // The export as assembled, read by livechatctl while livechatd runs.
    auto assembled = Ctl(db, {"data-requests", "show", "--store", storeId, "--id", "777"});
    const auto& held = assembled["export"]["contacts"];
    REQUIRE(held.Size() == 1);
    CHECK(Str(held[0]["profile"], "email") == "casey@example.com");
    CHECK(Str(held[0]["conversations"][0]["messages"][0], "text") == "Please send me my data");

    const std::string redact = R"({"shop_id":")" + storeId + R"(","customer":{"email":"casey@example.com"}})";
    auto forged = cli.Post("/platform/customers-redact", {{"X-Platform-Hmac-Sha256", Sign(redact + "x")}}, redact,
                           "application/json");
    REQUIRE(forged);
    CHECK(forged->status == 401);
    auto before = cli.Get("/chat/customers/" + customerUuid, {{"X-Api-Key", apiKey}});
    REQUIRE(before);
    CHECK(Str(ParseJson(before->body)["data"], "email") == "casey@example.com");

    auto redacted = cli.Post("/platform/customers-redact", {{"X-Platform-Hmac-Sha256", Sign(redact)}}, redact,
                             "application/json");
    REQUIRE(redacted);
    CHECK(redacted->status == 200);
    auto after = cli.Get("/chat/customers/" + customerUuid, {{"X-Api-Key", apiKey}});
    REQUIRE(after);
    REQUIRE(after->status == 200);
    auto doc = ParseJson(after->body);
    CHECK(doc["data"]["isRedacted"].GetBool());
    CHECK(doc["data"]["email"].IsNull());
  }
  e2e::StopDaemon(daemon);

  auto audit = Ctl(db, {"audit", "--store", storeId});
  REQUIRE(audit.IsArray());
  REQUIRE(audit.Size() == 3);  // unverified requests are not recorded
  CHECK(Str(audit[0], "topic") == "customers_redact");
  CHECK(Str(audit[0], "outcome") == "applied");
  CHECK(audit[0]["changes"]["contacts"].GetInt() == 1);
  CHECK(Str(audit[1], "outcome") == "replay");
  CHECK(Str(audit[1], "deliveryId") == "wh-e2e-1");
  CHECK(Str(audit[2], "topic") == "customers_data_request");
  CHECK(Str(audit[2], "outcome") == "applied");

  auto list = Ctl(db, {"data-requests", "list", "--store", storeId});
  REQUIRE(list.IsArray());
  REQUIRE(list.Size() == 1);
  CHECK(Str(list[0], "id") == "777");
  CHECK(list[0]["contacts"].GetInt() == 1);
  CHECK_FALSE(list[0].HasMember("export"));
  // The redact emptied the stored export: it was a copy of the same data.
  auto shown = Ctl(db, {"data-requests", "show", "--store", storeId, "--id", "777"});
  CHECK(shown["export"]["redacted"].GetBool());
  CHECK_FALSE(shown["export"].HasMember("contacts"));
  CHECK(shown["customer"].ObjectEmpty());

  e2e::RunResult missing = e2e::Run({e2e::HostBinary("livechatctl"), "--db", e2e::DatabaseFor(db), "data-requests", "show", "--store",
                                     storeId, "--id", "778"});
  CHECK(missing.exitCode == 1);
  CHECK(ErrorCodeOf(missing.out) == "NOT_FOUND");
  CHECK(e2e::Run({e2e::HostBinary("livechatd"), "--platform-secret", "short"}).exitCode == 2);

  auto integrations = Ctl(db, {"integrations", "list", "--store", storeId});
  REQUIRE(integrations.Size() == 4);
  CHECK(integrations[0]["connected"].GetBool());
  auto off = Ctl(db, {"integrations", "disconnect", "--store", storeId, "--channel", "email"});
  CHECK_FALSE(off["connected"].GetBool());
  CHECK(Str(Ctl(db, {"store", "install", "--store", storeId}), "id") == storeId);
}
