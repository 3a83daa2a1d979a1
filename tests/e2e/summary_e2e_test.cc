// Summaries with a real livechatd: resolve over REST, poll GET summary until
// the background worker has stored it; the OpenAI-compatible endpoint is a
// loopback fake, then fails, and the extractive summary takes over.
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <doctest/doctest.h>
#include <httplib.h>

#include "e2e/child_process.h"
#include "e2e/e2e_helpers.h"
#include "e2e/fake_llm.h"

namespace {

using namespace std::chrono_literals;

// Polls GET summary (every 20 ms, at most 15 s) until it answers 200 with a
// generatedAt other than `previous`; the last answer's body, or "" at the deadline.
std::string WaitForSummary(httplib::Client& cli, const std::string& path, const httplib::Headers& auth,
                           const std::string& previous = "") {
  const auto deadline = std::chrono::steady_clock::now() + 15s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = cli.Get(path.c_str(), auth);
    REQUIRE(r);
    if (r->status == 200 && e2e::Str(e2e::ParseJson(r->body)["data"], "generatedAt") != previous) return r->body;
    if (r->status != 200) REQUIRE(r->status == 404);
    std::this_thread::sleep_for(20ms);
  }
  return "";
}

}  // namespace

TEST_CASE("livechatd summaries: 404 until generated in the background; the LLM's text, then the fallback's") {
  e2e::TempDir dir;
  const std::string db = dir.File("summary.db");
  auto shop = e2e::Ctl(db, {"store", "create", "--name", "Summary Shop", "--plan", "pro"});
  const std::string storeId = e2e::Str(shop, "id");
  const std::string apiKey = e2e::Str(
      e2e::Ctl(db, {"key", "create", "--store", storeId, "--name", "s", "--permissions", "manage_conversations"}), "key");
  const std::string convId = e2e::Str(e2e::Ctl(db, {"conversation", "start", "--store", storeId, "--customer-email",
                                                    "casey@example.com", "--text", "Where is my order?"}),
                                      "id");

  e2e::FakeLlm llm;
  llm.AnswerContent(R"("The customer asked where the order was.")");
  const std::string llmKey = "sk-e2e-do-not-log-4242";
  const std::string keyFile = dir.File("llm.key");
  std::ofstream(keyFile) << llmKey << "\n";

  e2e::Daemon daemon = e2e::StartDaemon(dir, db,
                                        {"--summarizer-url", llm.Url(), "--summarizer-model", "e2e-model",
                                         "--summarizer-api-key-file", keyFile, "--summarizer-allow-private",
                                         "--summarizer-timeout", "2s"});
  {
    httplib::Client cli = e2e::MakeClient(daemon.port);
    const httplib::Headers auth = {{"X-Api-Key", apiKey}};
    const std::string summaryPath = "/chat/conversations/" + convId + "/summary";
    const std::string statePath = "/chat/conversations/" + convId + "/state";

    auto before = cli.Get(summaryPath.c_str(), auth);
    REQUIRE(before);
    CHECK(before->status == 404);
    CHECK(e2e::ErrorCodeOf(before->body) == "NOT_FOUND");

    auto resolved = cli.Post(statePath.c_str(), auth, R"({"status":"resolved"})", "application/json");
    REQUIRE(resolved);
    REQUIRE(resolved->status == 200);
    std::string body = WaitForSummary(cli, summaryPath, auth);
    REQUIRE_FALSE(body.empty());
    auto first = e2e::ParseJson(body);
    CHECK(e2e::Keys(first["data"]) == std::set<std::string>{"conversationId", "text", "summarizer", "generatedAt"});
    CHECK(e2e::Str(first["data"], "conversationId") == convId);
    CHECK(e2e::Str(first["data"], "text") == "The customer asked where the order was.");
    CHECK(e2e::Str(first["data"], "summarizer") == "openai-compatible/e2e-model");
    auto requests = llm.Requests();
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].get_header_value("Authorization") == "Bearer " + llmKey);
    CHECK(e2e::Str(e2e::ParseJson(requests[0].body), "model") == "e2e-model");
    CHECK(requests[0].body.find("casey@example.com") == std::string::npos);

    // The endpoint fails: reopen and resolve again, and the extractive
    // summary replaces the first one.
    llm.Answer([](const httplib::Request&, httplib::Response& res) { res.status = 500; });
    auto reopened = cli.Post(statePath.c_str(), auth, R"({"status":"open"})", "application/json");
    REQUIRE(reopened);
    REQUIRE(reopened->status == 200);
    auto kept = cli.Get(summaryPath.c_str(), auth);
    REQUIRE(kept);
    CHECK(kept->status == 200);
    CHECK(kept->body == body);
    std::this_thread::sleep_for(5ms);  // a new millisecond for generatedAt
    REQUIRE(cli.Post(statePath.c_str(), auth, R"({"status":"resolved"})", "application/json")->status == 200);
    std::string second = WaitForSummary(cli, summaryPath, auth, e2e::Str(first["data"], "generatedAt"));
    REQUIRE_FALSE(second.empty());
    auto doc = e2e::ParseJson(second);
    CHECK(e2e::Str(doc["data"], "text") ==
          "The customer wrote: \"Where is my order?\" No reply from an agent. Resolved after 1 message.");
    CHECK(e2e::Str(doc["data"], "summarizer") == "extractive");
  }
  e2e::StopDaemon(daemon);
  const std::string log = e2e::Slurp(daemon.stderrPath);
  CHECK(log.find(llmKey) == std::string::npos);
  CHECK(log.find("openai-compatible/e2e-model failed (127.0.0.1:" + std::to_string(llm.port()) +
                 " answered HTTP 500); using extractive") != std::string::npos);
  CHECK(log.find("Where is my order?") == std::string::npos);
}

TEST_CASE("livechatd summaries: bad summarizer settings stop it at start") {
  e2e::TempDir dir;
  const std::string db = dir.File("bad.db");
  const std::string bin = e2e::HostBinary("livechatd");
  CHECK(e2e::Run({bin, "--db", db, "--summarizer-url", "ftp://x", "--summarizer-model", "m"}).exitCode == 2);
  CHECK(e2e::Run({bin, "--db", db, "--summarizer-url", "https://llm.example"}).exitCode == 2);
  CHECK(e2e::Run({bin, "--db", db, "--summarizer-model", "m"}).exitCode == 2);
  auto plain = e2e::Run({bin, "--db", db, "--listen", "127.0.0.1:0", "--admin-listen", "none", "--summarizer-url",
                         "http://127.0.0.1:9", "--summarizer-model", "m"});
  CHECK(plain.exitCode == 1);
  CHECK(plain.err.find("summarizer url is plain http") != std::string::npos);
  auto missing = e2e::Run({bin, "--db", db, "--listen", "127.0.0.1:0", "--admin-listen", "none", "--summarizer-url",
                           "https://llm.example", "--summarizer-model", "m", "--summarizer-api-key-file",
                           dir.File("none.key")});
  CHECK(missing.exitCode == 1);
  CHECK(missing.err.find("cannot read the summarizer key file") != std::string::npos);
  auto help = e2e::Run({bin, "--help"});
  for (const char* env : {"LIVECHAT_SUMMARIZER_URL", "LIVECHAT_SUMMARIZER_MODEL", "LIVECHAT_SUMMARIZER_API_KEY_FILE",
                          "LIVECHAT_SUMMARIZER_TIMEOUT", "LIVECHAT_SUMMARIZER_ALLOW_PRIVATE",
                          "LIVECHAT_SUMMARIZER_CA_FILE", "LIVECHAT_SUMMARIZER_API_KEY\n"}) {
    CAPTURE(env);
    CHECK(help.out.find(env) != std::string::npos);
  }
}
