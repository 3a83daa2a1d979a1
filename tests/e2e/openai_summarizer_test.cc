// The OpenAI-compatible summarizer (livechat::outbound) against a real loopback server:
// what it sends, what it accepts, every failure the worker falls back on,
// the address rule and TLS verification.
#include <chrono>
#include <string>
#include <thread>

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include "e2e/child_process.h"
#include "e2e/e2e_helpers.h"
#include "e2e/fake_llm.h"
#include "livechat/chat_service.h"
#include "livechat/openai_summarizer.h"
#include "livechat/sqlite_store.h"

namespace {

using e2e::FakeLlm;
using livechat::ErrorCode;
using livechat::Message;
using livechat::SummaryInput;
using livechat::OpenAiSummarizer;
using livechat::OpenAiSummarizerOptions;

Message Msg(std::int64_t seq, const std::string& senderType, const std::string& text, bool note = false) {
  Message m;
  m.seq = seq;
  m.senderType = senderType;
  m.text = text;
  m.isNote = note;
  return m;
}

SummaryInput Input() {
  SummaryInput in;
  in.conversation.id = "c1";
  in.conversation.customerName = "Casey Customer";
  in.conversation.customerEmail = "casey@example.com";
  in.messages = {Msg(1, "customer", "Where is my order #1001?"),
                 Msg(2, "agent", "Internal: VIP, refund approved.", /*note=*/true),
                 Msg(3, "bot", "Let me find a person."), Msg(4, "agent", "It ships today.")};
  return in;
}

OpenAiSummarizerOptions Local(const FakeLlm& llm) {
  OpenAiSummarizerOptions o;
  o.url = llm.Url();
  o.model = "test-model";
  o.apiKey = "sk-test-secret-123";
  o.allowPrivate = true;
  o.timeoutMillis = 3'000;
  return o;
}

std::unique_ptr<OpenAiSummarizer> Make(OpenAiSummarizerOptions o) {
  auto s = OpenAiSummarizer::Create(std::move(o));
  REQUIRE(s.ok());
  return std::move(s).value();
}

std::string ErrorOf(OpenAiSummarizer& s, const SummaryInput& in = Input()) {
  auto r = s.Summarize(in);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInternal);
  return r.error().message;
}

}  // namespace

TEST_CASE("openai summarizer: the answer is used; the request carries model, bearer key and roles, nothing else") {
  FakeLlm llm;
  llm.AnswerContent(R"("  The customer asked where order #1001 was; it ships today.\n")");
  auto s = Make(Local(llm));
  CHECK(s->name() == "openai-compatible/test-model");
  auto r = s->Summarize(Input());
  REQUIRE(r.ok());
  CHECK(*r == "The customer asked where order #1001 was; it ships today.");

  auto reqs = llm.Requests();
  REQUIRE(reqs.size() == 1);
  const auto& req = reqs[0];
  CHECK(req.path == "/v1/chat/completions");
  CHECK(req.get_header_value("Authorization") == "Bearer sk-test-secret-123");
  CHECK(req.get_header_value("Content-Type") == "application/json");
  auto body = e2e::ParseJson(req.body);
  CHECK(e2e::Str(body, "model") == "test-model");
  CHECK(body["temperature"].GetInt() == 0);
  CHECK(body["max_tokens"].GetInt() == 300);
  REQUIRE(body["messages"].Size() == 2);
  CHECK(e2e::Str(body["messages"][0], "role") == "system");
  CHECK(e2e::Str(body["messages"][1], "role") == "user");
  CHECK(e2e::Str(body["messages"][1], "content") ==
        "Customer: Where is my order #1001?\nAI agent: Let me find a person.\nAgent: It ships today.\n");
  for (const char* secret : {"Casey", "casey@example.com", "VIP", "c1\""}) {
    CAPTURE(secret);
    CHECK(req.body.find(secret) == std::string::npos);
  }

  // A base url with a path prefix, and no key: no Authorization header.
  OpenAiSummarizerOptions prefixed = Local(llm);
  prefixed.url = llm.Url() + "/proxy/openai/";
  prefixed.apiKey.clear();
  REQUIRE(Make(prefixed)->Summarize(Input()).ok());
  reqs = llm.Requests();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[1].path == "/proxy/openai/v1/chat/completions");
  CHECK_FALSE(reqs[1].has_header("Authorization"));
}

TEST_CASE("openai summarizer: 500, garbage, empty, no choices, too large, timeout, refused are errors") {
  FakeLlm llm;
  OpenAiSummarizerOptions o = Local(llm);
  o.maxResponseBytes = 1'024;
  o.timeoutMillis = 400;
  auto s = Make(o);
  const std::string where = "127.0.0.1:" + std::to_string(llm.port());

  llm.Answer([](const httplib::Request&, httplib::Response& res) {
    res.status = 500;
    res.set_content(R"({"error":{"message":"overloaded"}})", "application/json");
  });
  CHECK(ErrorOf(*s) == where + " answered HTTP 500");
  llm.Answer([](const httplib::Request&, httplib::Response& res) { res.set_content("<html>oops</html>", "text/html"); });
  CHECK(ErrorOf(*s) == where + ": the answer is not JSON");
  llm.AnswerContent(R"("  \n ")");
  CHECK(ErrorOf(*s) == where + ": the answer is empty");
  llm.AnswerContent("null");
  CHECK(ErrorOf(*s) == where + ": the answer has no choices[0].message.content text");
  llm.Answer([](const httplib::Request&, httplib::Response& res) { res.set_content(R"({"choices":[]})", "application/json"); });
  CHECK(ErrorOf(*s) == where + ": the answer has no choices");
  // 1,024 bytes is the limit: an answer of exactly that passes, one more byte fails.
  const std::string head = R"({"choices":[{"message":{"content":"ok"}}],"pad":")";
  llm.Answer([&](const httplib::Request&, httplib::Response& res) {
    res.set_content(head + std::string(1'024 - head.size() - 2, 'x') + "\"}", "application/json");
  });
  auto exact = s->Summarize(Input());
  REQUIRE(exact.ok());
  CHECK(*exact == "ok");
  llm.Answer([&](const httplib::Request&, httplib::Response& res) {
    res.set_content(head + std::string(1'025 - head.size() - 2, 'x') + "\"}", "application/json");
  });
  CHECK(ErrorOf(*s) == "the answer of " + where + " is larger than 1024 bytes");
  llm.Answer([](const httplib::Request&, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1'500));
    res.set_content(R"({"choices":[{"message":{"content":"late"}}]})", "application/json");
  });
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(ErrorOf(*s) == "no answer from " + where + " within 400 ms");
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1'400));

  // A status line at once, then a byte every 100 ms: each read succeeds, and
  // only a deadline for the whole exchange ends it.
  llm.Answer([](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](std::size_t, httplib::DataSink& sink) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      return sink.write(" ", 1);
    });
  });
  const auto t1 = std::chrono::steady_clock::now();
  CHECK(ErrorOf(*s) == "no answer from " + where + " within 400 ms");
  CHECK(std::chrono::steady_clock::now() - t1 < std::chrono::milliseconds(1'000));

  int closedPort = 0;
  {
    FakeLlm gone;
    closedPort = gone.port();
  }
  OpenAiSummarizerOptions refused = Local(llm);
  refused.url = "http://127.0.0.1:" + std::to_string(closedPort);
  CHECK(ErrorOf(*Make(refused)).rfind("request to 127.0.0.1:" + std::to_string(closedPort) + " failed: ", 0) == 0);
}

TEST_CASE("openai summarizer: the address rule; plain http only to a private address") {
  FakeLlm llm;
  llm.AnswerContent(R"("fine")");
  OpenAiSummarizerOptions o = Local(llm);
  o.allowPrivate = false;
  // Plain http needs the private-address switch at all.
  auto plain = OpenAiSummarizer::Create(o);
  REQUIRE_FALSE(plain.ok());
  CHECK(plain.error().code == ErrorCode::kInvalidParams);
  CHECK(plain.error().message == "summarizer url is plain http: use https, or allow private addresses for a local server");

  // https to loopback without the switch: refused before any connection.
  o.url = "https://127.0.0.1:" + std::to_string(llm.port());
  auto s = Make(o);
  auto r = s->Summarize(Input());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message ==
        "127.0.0.1 resolves to 127.0.0.1, which is not a public address (allow private addresses for a local server)");
  livechat::TableResolver table;
  table.Set("llm.example.com", {"93.184.216.34", "10.0.0.7"});  // one inside is enough to refuse
  o.url = "https://llm.example.com";
  o.resolver = &table;
  r = Make(o)->Summarize(Input());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message ==
        "llm.example.com resolves to 10.0.0.7, which is not a public address (allow private addresses for a local "
        "server)");
  // With the switch, plain http to a public address is still refused.
  table.Set("llm.example.com", {"93.184.216.34"});
  o.url = "http://llm.example.com";
  o.allowPrivate = true;
  r = Make(o)->Summarize(Input());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message ==
        "llm.example.com resolves to the public address 93.184.216.34: plain http is for a local server only");
  CHECK(llm.Requests().empty());

  // Bad urls are refused when livechatd starts.
  for (const char* url : {"ftp://x", "https://user@host", "https://host/?q=1", "https://host/#frag", "https://"}) {
    CAPTURE(url);
    o.url = url;
    auto bad = OpenAiSummarizer::Create(o);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().code == ErrorCode::kInvalidParams);
  }
  o.url = "https://host";
  o.model.clear();
  CHECK_FALSE(OpenAiSummarizer::Create(o).ok());
  // A redacted conversation is never sent.
  SummaryInput redacted = Input();
  redacted.redacted = true;
  o = Local(llm);
  r = Make(o)->Summarize(redacted);
  REQUIRE_FALSE(r.ok());
  CHECK(llm.Requests().empty());
}

TEST_CASE("openai summarizer: https verifies the certificate against the CA it is given") {
  e2e::TempDir dir;
  e2e::TlsMaterial tls = e2e::MakeTlsMaterial(dir.path().string());
  FakeLlm llm(&tls);
  llm.AnswerContent(R"("Over TLS.")");
  OpenAiSummarizerOptions o = Local(llm);
  o.url = llm.Url("https");
  auto untrusted = Make(o)->Summarize(Input());
  REQUIRE_FALSE(untrusted.ok());
  CHECK(untrusted.error().message.find("certificate not trusted") != std::string::npos);
  CHECK(llm.Requests().empty());
  o.caFile = tls.caCertPath;
  auto r = Make(o)->Summarize(Input());
  REQUIRE(r.ok());
  CHECK(*r == "Over TLS.");
}

TEST_CASE("openai summarizer: the transcript is bounded, the middle left out first") {
  OpenAiSummarizerOptions o;
  o.model = "m";
  o.maxTranscriptBytes = 60;
  o.maxMessageBytes = 12;
  SummaryInput in;
  in.messages = {Msg(1, "customer", "first message here"), Msg(2, "agent", "second"), Msg(3, "agent", "third"),
                 Msg(4, "customer", "last one")};
  auto body = e2e::ParseJson(livechat::ChatCompletionsBody(o, in));
  CHECK(e2e::Str(body["messages"][1], "content") ==
        "Customer: first messag [...]\n[2 messages left out]\nCustomer: last one\n");
}

TEST_CASE("openai summarizer behind the worker: its summary is stored, a failure stores the extractive one") {
  auto store = std::move(livechat::OpenSqliteStore({":memory:", 1, 5000})).value();
  livechat::ManualClock clock;
  livechat::ServiceOptions so;
  so.store = store.get();
  so.clock = &clock;
  livechat::ChatService service(so);
  auto shop = service.directory().CreateShop({"LLM shop", livechat::Plan::kPro, false});
  REQUIRE(shop.ok());
  const auto sys = livechat::Principal::System(shop->id);
  FakeLlm llm;
  llm.AnswerContent(R"("Asked about delivery.")");
  auto summarizer = Make(Local(llm));
  livechat::SummaryWorkerOptions wo;
  wo.store = store.get();
  wo.clock = &clock;
  wo.summarizer = summarizer.get();
  livechat::SummaryWorker worker(wo);

  auto resolveOne = [&](const std::string& text) {
    livechat::InboundMessageInput in;
    in.text = text;
    auto c = service.conversations().ReceiveInbound(sys, in);
    REQUIRE(c.ok());
    REQUIRE(service.conversations().SetState(sys, c->id, std::string("resolved")).ok());
    CHECK(worker.RunOnce() == 1);
    auto s = service.conversations().GetSummary(sys, c->id);
    REQUIRE(s.ok());
    return *s;
  };
  auto good = resolveOne("When will it arrive?");
  CHECK(good.text == "Asked about delivery.");
  CHECK(good.summarizer == "openai-compatible/test-model");
  llm.Answer([](const httplib::Request&, httplib::Response& res) { res.status = 503; });
  auto fallback = resolveOne("Do you ship to Norway?");
  CHECK(fallback.text == "The customer wrote: \"Do you ship to Norway?\" No reply from an agent. Resolved after 1 message.");
  CHECK(fallback.summarizer == "extractive");
}
