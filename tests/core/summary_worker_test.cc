// Summaries at resolution: the job queued with the resolve, the worker driven
// by hand with a ManualClock, the fallback, reopen and resolve again, leases,
// retries, and jobs surviving a restart.
#include <doctest/doctest.h>

#include <filesystem>
#include <unistd.h>

#include "core_fixture.h"
#include "livechat/json_codec.h"
#include "livechat/summarizer.h"

namespace livechat::test {
namespace {

struct SummaryFixture : CoreFixture {
  std::vector<std::string> log;

  std::unique_ptr<SummaryWorker> Worker(Summarizer* summarizer = nullptr, Summarizer* fallback = nullptr,
                                        std::vector<Millis> retryDelays = {10'000, 60'000}) {
    SummaryWorkerOptions o;
    o.store = store.get();
    o.clock = &clock;
    o.summarizer = summarizer;
    o.fallback = fallback;
    o.retryDelays = std::move(retryDelays);
    o.log = [this](const std::string& line) { log.push_back(line); };
    return std::make_unique<SummaryWorker>(o);
  }

  void Reply(const std::string& id, const std::string& text, bool note = false) {
    SendMessageInput in;
    in.text = text;
    in.memberId = agent.id;
    in.isNote = note;
    REQUIRE(service->conversations().SendMessage(sys, id, in).ok());
  }

  void CustomerSays(const std::string& id, const std::string& text) {
    InboundMessageInput in;
    in.conversationId = id;
    in.text = text;
    REQUIRE(service->conversations().ReceiveInbound(sys, in).ok());
  }

  void State(const std::string& id, const std::string& status) {
    REQUIRE(service->conversations().SetState(sys, id, status).ok());
  }

  std::optional<SummaryJob> Job(const std::string& id) {
    std::optional<SummaryJob> out;
    REQUIRE(store->Read([&](StoreReader& r) -> Status {
                   LC_ASSIGN_OR_RETURN(out, r.GetSummaryJob(shop.id, id));
                   return Status::Ok();
                 })
                .ok());
    return out;
  }

  // A resolved conversation with a request, a note and a reply.
  Conversation Resolved() {
    Conversation c = Inbound("online_store", "My order #1001 arrived damaged. Can I get a replacement?", "c@shop.test");
    Reply(c.id, "Internal: refund approved by the manager, customer is a VIP.", /*note=*/true);
    Reply(c.id, "I have shipped a replacement today.");
    State(c.id, "resolved");
    return c;
  }
};

const std::string kFirst =
    "The customer wrote: \"My order #1001 arrived damaged. Can I get a replacement?\" An agent replied: \"I have "
    "shipped a replacement today.\" Resolved after 2 messages.";

}  // namespace

TEST_CASE("summary: 404 until the worker runs, then the extractive summary of the conversation") {
  SummaryFixture f;
  auto worker = f.Worker();
  Conversation c = f.Resolved();
  const Millis resolvedAt = f.clock.NowMillis();
  auto missing = f.service->conversations().GetSummary(f.sys, c.id);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  REQUIRE(f.Job(c.id).has_value());
  CHECK(f.Job(c.id)->requestedAt == resolvedAt);

  f.clock.Advance(1'500);
  CHECK(worker->RunOnce() == 1);
  auto s = f.service->conversations().GetSummary(f.sys, c.id);
  REQUIRE(s.ok());
  CHECK(s->conversationId == c.id);
  CHECK(s->text == kFirst);  // the note is never quoted
  CHECK(s->summarizer == "extractive");
  CHECK(s->generatedAt == resolvedAt + 1'500);
  CHECK_FALSE(f.Job(c.id).has_value());
  CHECK(worker->RunOnce() == 0);
  CHECK(f.log.empty());

  // Another store sees nothing.
  auto other = f.service->directory().CreateShop({"Other", Plan::kPro, false});
  REQUIRE(other.ok());
  auto foreign = f.service->conversations().GetSummary(Principal::System(other->id), c.id);
  REQUIRE_FALSE(foreign.ok());
  CHECK(foreign.error().code == ErrorCode::kNotFound);
}

TEST_CASE("summary: reopening keeps the old one until a new resolve's summary replaces it") {
  SummaryFixture f;
  auto worker = f.Worker();
  Conversation c = f.Resolved();
  CHECK(worker->RunOnce() == 1);
  const Millis firstAt = f.clock.NowMillis();

  f.clock.Advance(60'000);
  f.State(c.id, "open");
  CHECK_FALSE(f.Job(c.id).has_value());
  auto kept = f.service->conversations().GetSummary(f.sys, c.id);
  REQUIRE(kept.ok());
  CHECK(kept->text == kFirst);
  f.CustomerSays(c.id, "The replacement is broken too.");
  f.Reply(c.id, "I have refunded your payment in full.");
  f.State(c.id, "resolved");
  auto stillOld = f.service->conversations().GetSummary(f.sys, c.id);
  REQUIRE(stillOld.ok());
  CHECK(stillOld->generatedAt == firstAt);

  f.clock.Advance(2'000);
  CHECK(worker->RunOnce() == 1);
  auto fresh = f.service->conversations().GetSummary(f.sys, c.id);
  REQUIRE(fresh.ok());
  CHECK(fresh->text ==
        "The customer wrote: \"My order #1001 arrived damaged. Can I get a replacement?\" An agent replied: \"I have "
        "refunded your payment in full.\" Resolved after 4 messages.");
  CHECK(fresh->generatedAt == firstAt + 62'000);
}

TEST_CASE("summary: a reopen before the worker runs cancels the job; naming the same state queues nothing") {
  SummaryFixture f;
  auto worker = f.Worker();
  Conversation c = f.Resolved();
  f.State(c.id, "open");
  CHECK_FALSE(f.Job(c.id).has_value());
  CHECK(worker->RunOnce() == 0);
  CHECK(f.service->conversations().GetSummary(f.sys, c.id).error().code == ErrorCode::kNotFound);

  f.State(c.id, "resolved");
  const std::string jobId = f.Job(c.id)->id;
  f.State(c.id, "resolved");  // no change: the queued job stays as it was
  CHECK(f.Job(c.id)->id == jobId);
}

namespace {
// Reopens the conversation while it is being summarized (an agent acting
// while a slow summarizer runs).
class ReopeningSummarizer final : public Summarizer {
 public:
  explicit ReopeningSummarizer(SummaryFixture& f) : f_(f) {}
  std::string name() const override { return "reopening"; }
  Result<std::string> Summarize(const SummaryInput& in) override {
    f_.State(in.conversation.id, "open");
    return std::string("Stale.");
  }

 private:
  SummaryFixture& f_;
};
}  // namespace

TEST_CASE("summary: a summary made while the conversation was reopened is not stored") {
  SummaryFixture f;
  ReopeningSummarizer reopening(f);
  auto worker = f.Worker(&reopening);
  Conversation c = f.Resolved();
  CHECK(worker->RunOnce() == 1);
  CHECK(f.service->conversations().GetSummary(f.sys, c.id).error().code == ErrorCode::kNotFound);
  CHECK_FALSE(f.Job(c.id).has_value());
}

TEST_CASE("summary: the configured summarizer's text and name; its failure falls back to the extractive one") {
  SummaryFixture f;
  FixedSummarizer fixed("A fixed summary.", "fixed");
  auto worker = f.Worker(&fixed);
  Conversation a = f.Resolved();
  CHECK(worker->RunOnce() == 1);
  auto s = f.service->conversations().GetSummary(f.sys, a.id);
  REQUIRE(s.ok());
  CHECK(s->text == "A fixed summary.");
  CHECK(s->summarizer == "fixed");

  fixed.SetFailure("HTTP 500 from the endpoint");
  Conversation b = f.Resolved();
  CHECK(worker->RunOnce() == 1);
  s = f.service->conversations().GetSummary(f.sys, b.id);
  REQUIRE(s.ok());
  CHECK(s->text == kFirst);
  CHECK(s->summarizer == "extractive");
  REQUIRE(f.log.size() == 1);
  CHECK(f.log[0] == "summary of conversation " + b.id + " (shop " + f.shop.id +
                        "): fixed failed (HTTP 500 from the endpoint); using extractive");
  CHECK(fixed.calls() == 2);  // no retry of the failed summarizer
  CHECK_FALSE(f.Job(b.id).has_value());

  // A blank answer is a failure too.
  FixedSummarizer blank(" \n ", "blank");
  auto worker2 = f.Worker(&blank);
  Conversation c = f.Resolved();
  CHECK(worker2->RunOnce() == 1);
  CHECK(f.service->conversations().GetSummary(f.sys, c.id)->summarizer == "extractive");
}

TEST_CASE("summary: when the fallback fails too the job is retried on its schedule, then dropped") {
  SummaryFixture f;
  FixedSummarizer primary("x", "primary"), fallback("y", "fallback");
  primary.SetFailure("down");
  fallback.SetFailure("also down");
  auto worker = f.Worker(&primary, &fallback, {10'000, 60'000});
  Conversation c = f.Resolved();
  const Millis t0 = f.clock.NowMillis();
  CHECK(worker->RunOnce() == 1);
  REQUIRE(f.Job(c.id).has_value());
  CHECK(f.Job(c.id)->attempts == 1);
  CHECK(f.Job(c.id)->nextAttemptAt == t0 + 10'000);
  CHECK(f.Job(c.id)->leaseUntil == 0);

  f.clock.Advance(9'999);
  CHECK(worker->RunOnce() == 0);
  f.clock.Advance(1);
  CHECK(worker->RunOnce() == 1);
  CHECK(f.Job(c.id)->attempts == 2);
  CHECK(f.Job(c.id)->nextAttemptAt == t0 + 70'000);

  // It recovers before the last attempt: the summary is stored.
  fallback.SetFailure("");
  f.clock.Advance(60'000);
  CHECK(worker->RunOnce() == 1);
  CHECK(f.service->conversations().GetSummary(f.sys, c.id)->summarizer == "fallback");

  // Failing every attempt: dropped after the last one, with a log line.
  fallback.SetFailure("also down");
  Conversation d = f.Resolved();
  CHECK(worker->RunOnce() == 1);
  f.clock.Advance(10'000);
  CHECK(worker->RunOnce() == 1);
  f.clock.Advance(60'000);
  CHECK(worker->RunOnce() == 1);
  CHECK_FALSE(f.Job(d.id).has_value());
  CHECK(f.service->conversations().GetSummary(f.sys, d.id).error().code == ErrorCode::kNotFound);
  CHECK(f.log.back() == "summary of conversation " + d.id + " (shop " + f.shop.id +
                            ") failed: also down; giving up after 3 attempts");
}

TEST_CASE("summary: a job claimed by a worker that died is run again when its lease runs out") {
  SummaryFixture f;
  Conversation c = f.Resolved();
  const SummaryJob job = *f.Job(c.id);
  const Millis now = f.clock.NowMillis();
  bool claimed = false;
  REQUIRE(f.store->Write([&](StoreWriter& w) -> Status {
                   LC_ASSIGN_OR_RETURN(claimed, w.ClaimSummaryJob(f.shop.id, c.id, job.id, now, now + 120'000));
                   return Status::Ok();
                 })
              .ok());
  REQUIRE(claimed);
  auto worker = f.Worker();
  CHECK(worker->RunOnce() == 0);
  f.clock.Advance(119'999);
  CHECK(worker->RunOnce() == 0);
  f.clock.Advance(1);
  CHECK(worker->RunOnce() == 1);
  CHECK(f.service->conversations().GetSummary(f.sys, c.id)->text == kFirst);
}

TEST_CASE("summary: without queueSummaries a resolve queues nothing") {
  auto opened = OpenSqliteStore({":memory:", 1, 5000});
  REQUIRE(opened.ok());
  auto store = std::move(opened).value();
  ManualClock clock;
  ServiceOptions o;
  o.store = store.get();
  o.clock = &clock;
  o.queueSummaries = false;
  int woken = 0;
  o.onSummaryQueued = [&] { ++woken; };
  ChatService service(o);
  auto shop = service.directory().CreateShop({"No summaries", Plan::kPro, false});
  REQUIRE(shop.ok());
  InboundMessageInput in;
  in.text = "Hello?";
  auto c = service.conversations().ReceiveInbound(Principal::System(shop->id), in);
  REQUIRE(c.ok());
  REQUIRE(service.conversations().SetState(Principal::System(shop->id), c->id, std::string("resolved")).ok());
  auto stats = Result<StoreReader::SummaryQueueStats>(MakeError(ErrorCode::kInternal, "unread"));
  REQUIRE(store->Read([&](StoreReader& r) -> Status {
                 stats = r.GetSummaryQueueStats();
                 return Status::Ok();
               })
              .ok());
  REQUIRE(stats.ok());
  CHECK(stats->pending == 0);
  CHECK(woken == 0);
}

TEST_CASE("summary: a resolve wakes the worker; jobs survive a restart of the process") {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("livechat-summary-" + std::to_string(::getpid()) + ".db"))
                               .string();
  std::filesystem::remove(path);
  ManualClock clock;
  std::string conversationId, shopId;
  int woken = 0;
  {
    auto store = std::move(OpenSqliteStore({path, 1, 5000})).value();
    ServiceOptions o;
    o.store = store.get();
    o.clock = &clock;
    o.onSummaryQueued = [&] { ++woken; };
    ChatService service(o);
    auto shop = service.directory().CreateShop({"Restart", Plan::kPro, false});
    REQUIRE(shop.ok());
    shopId = shop->id;
    InboundMessageInput in;
    in.text = "Can I pay by invoice?";
    auto c = service.conversations().ReceiveInbound(Principal::System(shopId), in);
    REQUIRE(c.ok());
    conversationId = c->id;
    REQUIRE(service.conversations().SetState(Principal::System(shopId), conversationId, std::string("resolved")).ok());
    CHECK(woken == 1);
  }  // the process "stops" before any worker ran
  {
    auto store = std::move(OpenSqliteStore({path, 1, 5000})).value();
    SummaryWorkerOptions wo;
    wo.store = store.get();
    wo.clock = &clock;
    SummaryWorker worker(wo);
    CHECK(worker.RunOnce() == 1);
    ServiceOptions o;
    o.store = store.get();
    o.clock = &clock;
    ChatService service(o);
    auto s = service.conversations().GetSummary(Principal::System(shopId), conversationId);
    REQUIRE(s.ok());
    CHECK(s->text == "The customer wrote: \"Can I pay by invoice?\" No reply from an agent. Resolved after 1 message.");
  }
  std::filesystem::remove(path);
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
}

TEST_CASE("summary: the input of a long conversation is its first and last messages, notes left out") {
  SummaryFixture f;
  Conversation c = f.Inbound("online_store", "m0", "long@shop.test");
  for (int i = 1; i < 12; ++i) {
    if (i == 5) f.Reply(c.id, "a note", /*note=*/true);
    f.CustomerSays(c.id, "m" + std::to_string(i));
  }
  auto in = LoadSummaryInput(*f.store, f.shop.id, c.id, 6);
  REQUIRE(in.ok());
  std::vector<std::string> texts;
  for (const auto& m : in->messages) texts.push_back(m.text);
  CHECK(texts == std::vector<std::string>{"m0", "m1", "m2", "m9", "m10", "m11"});
  CHECK(in->omittedMessages == 6);
  CHECK_FALSE(in->redacted);
  auto all = LoadSummaryInput(*f.store, f.shop.id, c.id, 200);
  REQUIRE(all.ok());
  CHECK(all->messages.size() == 12);
  CHECK(all->omittedMessages == 0);
  auto missing = LoadSummaryInput(*f.store, f.shop.id, "nope", 200);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
}

TEST_CASE("summary worker: Start runs queued jobs in the background and Stop joins") {
  SummaryFixture f;
  auto worker = f.Worker();
  Conversation c = f.Resolved();
  worker->Start();
  CHECK(worker->running());
  worker->Notify();
  bool done = false;
  for (int i = 0; i < 500 && !done; ++i) {
    done = f.service->conversations().GetSummary(f.sys, c.id).ok();
    if (!done) ::usleep(10'000);
  }
  worker->Stop();
  CHECK_FALSE(worker->running());
  CHECK(done);
}

}  // namespace livechat::test

namespace livechat::test {

// The platform's customer redact for the contact of SummaryFixture::Resolved.
PlatformRequestInput RedactCasey() {
  PlatformRequestInput redact;
  redact.topic = platform_topic::kCustomersRedact;
  redact.customerEmail = "c@shop.test";
  redact.bodyDigest = "redact-c";
  return redact;
}

// The summary stored for a redacted conversation made by SummaryFixture::Resolved.
void CheckRedactedSummary(SummaryFixture& f, const std::string& id) {
  auto s = f.service->conversations().GetSummary(f.sys, id);
  REQUIRE(s.ok());
  CHECK(s->text == "This conversation was redacted: its content is not summarized. Resolved after 2 messages.");
  CHECK(s->summarizer == "extractive");
}

TEST_CASE("summary: a conversation redacted before the worker runs is summarized as redacted, nothing quoted") {
  SummaryFixture f;
  auto worker = f.Worker();
  Conversation c = f.Resolved();
  auto applied = f.service->privacy().ApplyPlatformRequest(f.sys, RedactCasey());
  REQUIRE(applied.ok());
  CHECK(applied->outcome == "applied");
  CHECK(worker->RunOnce() == 1);
  CheckRedactedSummary(f, c.id);
}

}  // namespace livechat::test

namespace livechat::test {

TEST_CASE("summary: a customer redact replaces an existing summary by the redacted one; the export carries it") {
  SummaryFixture f;
  auto worker = f.Worker();
  Conversation c = f.Resolved();
  CHECK(worker->RunOnce() == 1);
  REQUIRE(f.service->conversations().GetSummary(f.sys, c.id)->text == kFirst);

  PlatformRequestInput request;
  request.topic = platform_topic::kCustomersDataRequest;
  request.customerEmail = "c@shop.test";
  request.dataRequestId = "dr-1";
  request.bodyDigest = "dr-1";
  REQUIRE(f.service->privacy().ApplyPlatformRequest(f.sys, request).ok());
  auto exported = f.service->privacy().GetDataRequest(f.sys, "dr-1");
  REQUIRE(exported.ok());
  CHECK(exported->exportJson.find(ToJson(*f.service->conversations().GetSummary(f.sys, c.id))) != std::string::npos);

  f.clock.Advance(60'000);
  auto applied = f.service->privacy().ApplyPlatformRequest(f.sys, RedactCasey());
  REQUIRE(applied.ok());
  CHECK(applied->changesJson.find(R"("summaries":1)") != std::string::npos);
  CheckRedactedSummary(f, c.id);
  CHECK(f.service->conversations().GetSummary(f.sys, c.id)->generatedAt == f.clock.NowMillis());
}

}  // namespace livechat::test

namespace livechat::test {

// A summarizer during whose run the customer is redacted (the race between a
// slow LLM and a redact request): it quotes the customer all the same.
class RedactingSummarizer final : public Summarizer {
 public:
  explicit RedactingSummarizer(SummaryFixture& f) : f_(f) {}
  std::string name() const override { return "slow-llm"; }
  Result<std::string> Summarize(const SummaryInput& in) override {
    auto applied = f_.service->privacy().ApplyPlatformRequest(f_.sys, RedactCasey());
    if (!applied.ok()) return applied.take_error();
    return "Casey (c@shop.test) wrote: " + in.messages.front().text;
  }

 private:
  SummaryFixture& f_;
};

TEST_CASE("summary: a redact that lands while the summarizer runs wins; the redacted summary is stored") {
  SummaryFixture f;
  RedactingSummarizer slow(f);
  auto worker = f.Worker(&slow);
  Conversation c = f.Resolved();
  CHECK(worker->RunOnce() == 1);
  CheckRedactedSummary(f, c.id);
}

}  // namespace livechat::test
