// The summary worker: claims due summary jobs, runs the summarizer (the
// fallback when it fails) and stores the summary, in the style of the webhook
// dispatcher: driven by the Clock, leased so a crash loses nothing.
#include <algorithm>
#include <deque>

#include "core/service_internal.h"
#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"
#include "livechat/store.h"
#include "livechat/summarizer.h"

namespace livechat {

Result<SummaryInput> LoadSummaryInput(Store& store, const std::string& shopId, const std::string& conversationId,
                                      int maxMessages) {
  const std::size_t half = static_cast<std::size_t>(std::max(maxMessages, 2) / 2);
  SummaryInput in;
  Status st = store.Read([&](StoreReader& r) -> Status {
    LC_ASSIGN_OR_RETURN(auto c, r.FindConversation(shopId, conversationId));
    if (!c) return internal::NotFound("conversation");
    in.conversation = std::move(*c);
    // One pass in send order keeping the first and the last `half`: memory
    // stays bounded however long the conversation is.
    std::deque<Message> tail;
    MessageQuery q;
    q.shopId = shopId;
    q.conversationId = in.conversation.id;
    q.includeNotes = false;
    q.limit = 500;
    while (true) {
      LC_ASSIGN_OR_RETURN(auto page, r.ListMessages(q));
      for (auto& m : page) {
        if (in.messages.size() < half) {
          in.messages.push_back(std::move(m));
          continue;
        }
        tail.push_back(std::move(m));
        if (tail.size() > half) {
          tail.pop_front();
          ++in.omittedMessages;
        }
      }
      if (static_cast<int>(page.size()) < q.limit) break;
      q.afterSeq = tail.empty() ? in.messages.back().seq : tail.back().seq;
    }
    for (auto& m : tail) in.messages.push_back(std::move(m));
    return Status::Ok();
  });
  if (!st.ok()) return st.take_error();
  // A redacted conversation is summarized as such and its messages never
  // leave for an outside summarizer (customer redact, contact delete).
  in.redacted = in.conversation.redactedAt.has_value();
  return in;
}

Result<Summary> internal::RedactedSummary(StoreReader& r, const Conversation& c, Millis at) {
  SummaryInput in;
  in.conversation = c;
  in.redacted = true;
  MessageQuery q;  // deleted messages are left out by default
  q.shopId = c.shopId;
  q.conversationId = c.id;
  q.includeNotes = false;
  q.limit = 500;
  for (;;) {
    LC_ASSIGN_OR_RETURN(auto page, r.ListMessages(q));
    in.omittedMessages += static_cast<std::int64_t>(page.size());
    if (static_cast<int>(page.size()) < q.limit) break;
    q.afterSeq = page.back().seq;
  }
  ExtractiveSummarizer extractive;
  LC_ASSIGN_OR_RETURN(std::string text, extractive.Summarize(in));
  return Summary{c.id, std::move(text), extractive.name(), at};
}

struct SummaryWorker::Impl {
  SummaryWorkerOptions o;
  Clock* clock;
  ExtractiveSummarizer extractive;
  Summarizer* primary;
  Summarizer* fallback;

  explicit Impl(SummaryWorkerOptions opts)
      : o(std::move(opts)),
        clock(o.clock ? o.clock : Clock::Default()),
        primary(o.summarizer ? o.summarizer : &extractive),
        fallback(o.fallback ? o.fallback : &extractive) {}

  void Log(const std::string& line) {
    if (o.log) o.log(line);
  }

  std::optional<SummaryJob> ClaimNext(Millis now) {
    std::vector<SummaryJob> due;
    Status st = o.store->Read([&](StoreReader& r) -> Status {
      LC_ASSIGN_OR_RETURN(due, r.ListDueSummaryJobs(now, 16));
      return Status::Ok();
    });
    if (!st.ok()) return std::nullopt;
    for (auto& j : due) {
      bool claimed = false;
      Status cs = o.store->Write([&](StoreWriter& w) -> Status {
        LC_ASSIGN_OR_RETURN(claimed, w.ClaimSummaryJob(j.shopId, j.conversationId, j.id, now, now + o.leaseMillis));
        return Status::Ok();
      });
      if (cs.ok() && claimed) return j;
    }
    return std::nullopt;
  }

  // The summary, and who made it: the summarizer, or the fallback when it
  // fails. A redacted conversation never reaches the primary (it may be an
  // external service).
  Result<Summary> Produce(const SummaryInput& in, const SummaryJob& j) {
    Result<std::string> text = MakeError(ErrorCode::kInternal, "not run");
    Summarizer* used = primary;
    if (!in.redacted || primary == fallback) {
      text = primary->Summarize(in);
      if (text.ok() && livechat::Trim(*text).empty()) text = MakeError(ErrorCode::kInternal, "empty summary");
    }
    if (!text.ok() && primary != fallback) {
      if (!in.redacted)
        Log("summary of conversation " + j.conversationId + " (shop " + j.shopId + "): " + primary->name() +
            " failed (" + text.error().message + "); using " + fallback->name());
      used = fallback;
      text = fallback->Summarize(in);
      if (text.ok() && livechat::Trim(*text).empty()) text = MakeError(ErrorCode::kInternal, "empty summary");
    }
    if (!text.ok()) return text.take_error();
    return Summary{in.conversation.id, std::string(livechat::Trim(*text)), used->name(), clock->NowMillis()};
  }

  // Runs one claimed job to its end: stored, dropped, or rescheduled.
  void Run(const SummaryJob& j) {
    auto in = LoadSummaryInput(*o.store, j.shopId, j.conversationId, o.maxMessages);
    if (!in.ok() && in.error().code == ErrorCode::kNotFound) {
      Finish(j, std::nullopt);
      return;
    }
    Result<Summary> s = in.ok() ? Produce(*in, j) : Result<Summary>(in.take_error());
    if (s.ok() && Finish(j, *s)) return;
    Retry(j, s.ok() ? "storing the summary failed" : s.error().message);
  }

  // Stores `s` and removes the job in one transaction, if the job is still
  // this one and the conversation still resolved: a reopen (or a new
  // resolve) meanwhile makes this summary stale, and the newer job, if any,
  // makes the next one. False when the store failed.
  bool Finish(const SummaryJob& j, const std::optional<Summary>& s) {
    Status st = o.store->Write([&](StoreWriter& w) -> Status {
      LC_ASSIGN_OR_RETURN(auto cur, w.GetSummaryJob(j.shopId, j.conversationId));
      if (!cur || cur->id != j.id) return Status::Ok();
      LC_ASSIGN_OR_RETURN(bool removed, w.DeleteSummaryJob(j.shopId, j.conversationId, j.id));
      (void)removed;
      if (!s) return Status::Ok();
      LC_ASSIGN_OR_RETURN(auto c, w.FindConversation(j.shopId, j.conversationId));
      if (!c || c->status != "resolved") return Status::Ok();
      if (!c->redactedAt) return w.PutSummary(j.shopId, *s);
      // Redacted while the summarizer ran: what it made may quote or name the
      // customer, so the redacted summary is stored instead.
      LC_ASSIGN_OR_RETURN(Summary redacted, internal::RedactedSummary(w, *c, s->generatedAt));
      return w.PutSummary(j.shopId, redacted);
    });
    return st.ok();
  }

  void Retry(const SummaryJob& j, const std::string& why) {
    SummaryJob next = j;
    next.attempts = j.attempts + 1;
    next.leaseUntil = 0;
    const bool drop = o.retryDelays.empty() || next.attempts > static_cast<int>(o.retryDelays.size());
    if (!drop) next.nextAttemptAt = clock->NowMillis() + o.retryDelays[static_cast<std::size_t>(next.attempts - 1)];
    Log("summary of conversation " + j.conversationId + " (shop " + j.shopId + ") failed: " + why +
        (drop ? "; giving up after " + std::to_string(next.attempts) + " attempts" : "; retrying later"));
    (void)o.store->Write([&](StoreWriter& w) -> Status {
      LC_ASSIGN_OR_RETURN(auto cur, w.GetSummaryJob(j.shopId, j.conversationId));
      if (!cur || cur->id != j.id) return Status::Ok();  // replaced or removed meanwhile
      if (!drop) return w.PutSummaryJob(next);
      LC_ASSIGN_OR_RETURN(bool removed, w.DeleteSummaryJob(j.shopId, j.conversationId, j.id));
      (void)removed;
      return Status::Ok();
    });
  }
};

SummaryWorker::SummaryWorker(SummaryWorkerOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))),
      loop_([this] { return RunOnce(1) > 0; }, impl_->o.idlePollMillis) {}

SummaryWorker::~SummaryWorker() { Stop(); }

int SummaryWorker::RunOnce(int max) {
  int done = 0;
  while (done < max) {
    auto j = impl_->ClaimNext(impl_->clock->NowMillis());
    if (!j) break;
    ++done;
    impl_->Run(*j);
  }
  return done;
}

void SummaryWorker::Start() { loop_.Start(); }

// Waits for the job in flight.
void SummaryWorker::Stop() { loop_.Stop(); }

void SummaryWorker::Notify() { loop_.Notify(); }

}  // namespace livechat
