// Summaries at resolution: the Summarizer seam, its deterministic default,
// a fixed-text double, and the worker that turns resolved conversations into
// stored summaries in the background.
//
// Resolving a conversation (ConversationService::SetState) queues a summary job in the
// same transaction; the SummaryWorker claims due jobs, runs the Summarizer on
// the conversation's messages and stores the result (Store::PutSummary). A
// summarizer that fails (an LLM endpoint down, a bad answer) is replaced by
// the fallback for that job, never retried: the stored summary then names the
// fallback. See docs/operations.md, "Summaries".
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "livechat/base/worker_loop.h"
#include "livechat/clock.h"
#include "livechat/model.h"
#include "livechat/result.h"

namespace livechat {

class Store;

// What a summarizer sees: the conversation and its messages in send order.
// Internal notes (isNote messages and checklist notes) and deleted messages
// are left out: a summary describes what the customer and the agents said to
// each other, and notes must not travel to an external summarizer.
struct SummaryInput {
  Conversation conversation;
  std::vector<Message> messages;
  // Messages between the first and the last ones given that were left out to
  // bound the input (a very long conversation); 0 normally.
  std::int64_t omittedMessages = 0;
  // The conversation is under the Redacted label (spec rule 8): its content
  // must not be summarized nor sent anywhere.
  bool redacted = false;
};

// Thread-safe. Summarize returns the summary text (UTF-8, not empty) or an
// error saying why there is none; it must not throw.
class Summarizer {
 public:
  virtual ~Summarizer() = default;
  // Reported as the summary's `summarizer` ("extractive", ...).
  virtual std::string name() const = 0;
  virtual Result<std::string> Summarize(const SummaryInput& in) = 0;
};

struct ExtractiveOptions {
  std::size_t quoteMax = 160;  // code points of one quoted passage
  std::size_t textMax = 600;   // code points of the whole summary
};

// The default: deterministic and offline. It states the customer's request,
// what the agents (or the AI agent) answered, and the outcome, quoting
// sentences of the conversation itself: it picks and trims, never writes
// content of its own. Never fails.
class ExtractiveSummarizer final : public Summarizer {
 public:
  explicit ExtractiveSummarizer(ExtractiveOptions options = {}) : options_(options) {}
  std::string name() const override { return "extractive"; }
  Result<std::string> Summarize(const SummaryInput& in) override;

 private:
  ExtractiveOptions options_;
};

// The test double: always the same text (or always the same error).
class FixedSummarizer final : public Summarizer {
 public:
  explicit FixedSummarizer(std::string text, std::string name = "fixed")
      : text_(std::move(text)), name_(std::move(name)) {}
  // Fails every call with `error` (kInternal) while set; "" succeeds again.
  void SetFailure(std::string error) {
    std::lock_guard<std::mutex> lock(mu_);
    error_ = std::move(error);
  }
  int calls() const { return calls_.load(); }
  std::string name() const override { return name_; }
  Result<std::string> Summarize(const SummaryInput& in) override;

 private:
  std::string text_, name_;
  std::mutex mu_;
  std::string error_;
  std::atomic<int> calls_{0};
};

struct SummaryWorkerOptions {
  Store* store = nullptr;            // required; not owned
  Summarizer* summarizer = nullptr;  // null: the extractive default
  // Used when `summarizer` fails; null: the extractive default.
  Summarizer* fallback = nullptr;
  Clock* clock = nullptr;            // null: Clock::Default()
  // A claimed job is run again by anyone after this (a worker that crashed
  // mid-job). Longer than the summarizer's timeout.
  Millis leaseMillis = 120'000;
  // Waits after failed attempts (storage errors, or the fallback failing too);
  // after the last the job is dropped.
  std::vector<Millis> retryDelays{10'000, 60'000, 300'000, 1'800'000};
  // Messages given to the summarizer at most: the first half and the last
  // half of a longer conversation.
  int maxMessages = 200;
  Millis idlePollMillis = 1'000;     // background loop wake-up when nothing is due
  // One line per fallback or dropped job (why); never the conversation's text.
  std::function<void(const std::string&)> log;
};

// Claims due summary jobs, runs the summarizer and stores the summaries.
// Thread-safe; one background thread. Jobs live in the store, so they survive
// a restart, and a lease lets several processes share them.
class SummaryWorker {
 public:
  explicit SummaryWorker(SummaryWorkerOptions options);
  ~SummaryWorker();  // stops the thread

  // One synchronous pass on the calling thread: runs every job due now (up
  // to `max`). Returns how many jobs were taken. Tests drive this with a
  // ManualClock instead of starting the thread.
  int RunOnce(int max = 100);

  void Start();
  // Waits for the job in flight (bounded by the summarizer's timeout).
  void Stop();
  // Wakes the thread at once (called after a resolve queued a job).
  void Notify();
  bool running() const { return loop_.running(); }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  WorkerLoop loop_;  // after impl_: destroyed (and stopped) first
};

// The input a worker gives a summarizer for one conversation: its messages
// without notes and deleted ones, the first and last maxMessages / 2 of a
// longer conversation. NOT_FOUND when the conversation does not exist.
Result<SummaryInput> LoadSummaryInput(Store& store, const std::string& shopId, const std::string& conversationId,
                                      int maxMessages);

}  // namespace livechat
