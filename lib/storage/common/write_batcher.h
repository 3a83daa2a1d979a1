// Group commit: concurrent Store::Write calls committed together in one
// database transaction. Both stores have one writer at a time, so under load
// every write waited for every earlier one's commit in turn; sharing the
// commit (and on PostgreSQL the write lock) pays it once per batch. Here the first caller to find no batch running becomes the leader: it takes
// every write queued so far (up to kMaxBatch) and runs them through the
// backend's `run`, which gives each its own savepoint, so one write's error
// rolls back that write alone, and commits once. Every caller is answered
// after the commit that made its own write durable, as before. A write that
// arrives while a batch runs waits for the next one, so a lone writer pays
// nothing extra and a crowd is committed a batch at a time.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "livechat/metrics.h"
#include "livechat/result.h"
#include "livechat/store.h"

namespace livechat::storage {

class WriteBatcher {
 public:
  using WriteFn = std::function<Status(StoreWriter&)>;
  using Done = std::function<void(Status)>;
  struct Pending {
    const WriteFn* fn = nullptr;
    Status result = Status::Ok();
    // A write queued by SubmitAsync: it owns its fn, and `done` takes its
    // outcome instead of a waiting caller. Null for Submit's.
    bool async = false;
    std::unique_ptr<WriteFn> ownedFn;
    Done done_;
    bool done = false;
    bool lead = false;  // handed the lead by the leader leaving
    // Each caller waits on its own: a commit wakes the callers it answered
    // and no one else, and a departing leader wakes only its successor.
    std::condition_variable cv;
  };
  // Runs the batch's writes in one transaction and sets each one's result.
  // Called by one thread at a time.
  using RunBatch = std::function<void(const std::vector<Pending*>&)>;

  // Bounds what one commit carries, so the first write of a crowd is not
  // answered long after its own work was done.
  static constexpr std::size_t kMaxBatch = 64;

  // `metrics` (optional) gets the transactions and the writes they carried.
  WriteBatcher(RunBatch run, MetricsRegistry* metrics) : run_(std::move(run)) {
    if (metrics == nullptr) return;
    transactionsCounter_ = &metrics->GetCounter(metric::kStoreWriteTransactions, metric::kStoreWriteTransactionsHelp);
    writesCounter_ = &metrics->GetCounter(metric::kStoreWrites, metric::kStoreWritesHelp);
    unavailableCounter_ = &metrics->GetCounter(metric::kStoreWritesUnavailable, metric::kStoreWritesUnavailableHelp);
    refusingGauge_ = &metrics->GetGauge(metric::kStoreWritesRefusing, metric::kStoreWritesRefusingHelp);
  }

  ~WriteBatcher() { Stop(); }

  // Queues fn, runs batches while this caller leads, and returns fn's
  // outcome once the transaction holding it committed or rolled back.
  Status Submit(const WriteFn& fn) {
    // A `done` that waited for a write of this batcher would wait for
    // itself: the batch that called it still holds the lead.
    if (AnsweringOn() == this)
      return Error{ErrorCode::kInternal, "store: a handed-over write's done callback may not wait for a write"};
    Pending me;
    me.fn = &fn;
    std::unique_lock lock(mu_);
    queue_.push_back(&me);
    if (writesCounter_ != nullptr) writesCounter_->Inc();
    if (leading_) {
      me.cv.wait(lock, [&] { return me.done || me.lead; });
      if (me.done) return me.result;
    }
    leading_ = true;
    while (!me.done) RunOneBatch(lock);
    HandLead(lock);
    return me.result;
  }

  // Queues fn and returns at once; `done` gets fn's outcome once the
  // transaction holding it committed or rolled back, on the thread that ran
  // the batch (this batcher's writer thread, or a Submit caller leading
  // then). `done` must not block: it holds up every write queued after it.
  // It may hand over another write (WriteAsync); a write that waits (Write)
  // is refused there with INTERNAL rather than waiting for itself. The
  // caller's thread never waits for the writer, so a thread that serves many
  // clients can hand a write over and go on.
  void SubmitAsync(WriteFn fn, Done done) {
    auto p = std::make_unique<Pending>();
    p->async = true;
    p->ownedFn = std::make_unique<WriteFn>(std::move(fn));
    p->fn = p->ownedFn.get();
    p->done_ = done ? std::move(done) : Done([](Status) {});
    std::unique_lock lock(mu_);
    if (stopping_) {
      lock.unlock();
      p->done_(Error{ErrorCode::kUnavailable, "store: the store is closing"});
      return;
    }
    if (!writer_.joinable()) writer_ = std::thread([this] { WriterLoop(); });
    queue_.push_back(p.release());
    if (writesCounter_ != nullptr) writesCounter_->Inc();
    if (!leading_) {
      leading_ = true;
      writerLeads_ = true;
      writerCv_.notify_one();
    }
  }

  // Runs what is queued, then ends the writer thread. Submit and RunAlone
  // still work after it; SubmitAsync answers UNAVAILABLE.
  void Stop() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      writerCv_.notify_one();
    }
    if (writer_.joinable()) writer_.join();
  }

  // Runs a write the store keeps out of batches, in a transaction of its
  // own, and counts it like a batched one.
  Status RunAlone(const std::function<Status()>& run) {
    if (writesCounter_ != nullptr) writesCounter_->Inc();
    if (transactionsCounter_ != nullptr) transactionsCounter_->Inc();
    Status st = run();
    Observe(st);
    return st;
  }

 private:
  RunBatch run_;
  std::mutex mu_;
  std::deque<Pending*> queue_;
  bool leading_ = false;
  // The writer thread, started by the first SubmitAsync: it leads when an
  // async write finds no leader, or a leader leaves one at the queue's head
  // (no caller waits on an async write to take the lead).
  std::thread writer_;
  std::condition_variable writerCv_;
  bool writerLeads_ = false;
  bool stopping_ = false;

  // Takes up to kMaxBatch queued writes, runs them in one transaction and
  // answers each. Called with mu_ held by the leader; returns with it held.
  void RunOneBatch(std::unique_lock<std::mutex>& lock) {
    std::vector<Pending*> batch;
    while (!queue_.empty() && batch.size() < kMaxBatch) {
      batch.push_back(queue_.front());
      queue_.pop_front();
    }
    lock.unlock();
    try {
      run_(batch);
    } catch (...) {
      // A store's own failure (not fn's: the store guards those) must
      // not leave the lead taken and every later writer waiting.
      for (Pending* p : batch) p->result = Error{ErrorCode::kInternal, "store: a write batch failed"};
    }
    for (Pending* p : batch) Observe(p->result);
    // Counted before anyone is answered: an answered caller reading the
    // metrics finds its transaction there.
    if (transactionsCounter_ != nullptr) transactionsCounter_->Inc();
    // Answer this batch's writes now, not after the next batch: the async
    // ones here, the waiting callers below.
    for (Pending*& p : batch) {
      if (!p->async) continue;
      std::unique_ptr<Pending> owned(p);
      p = nullptr;
      AnsweringOn() = this;
      try {
        owned->done_(std::move(owned->result));
      } catch (...) {
        // `done` must not throw; one that does loses only its own answer.
      }
      AnsweringOn() = nullptr;
    }
    lock.lock();
    for (Pending* p : batch) {
      if (p == nullptr) continue;
      p->done = true;
      p->cv.notify_one();
    }
  }

  // The leader leaves: the lead goes to the oldest queued write's caller,
  // or to the writer thread when that write is async; leading_ stays set
  // meanwhile, so a caller arriving now queues instead of leading too.
  void HandLead(std::unique_lock<std::mutex>&) {
    if (queue_.empty()) {
      leading_ = false;
      if (stopping_) writerCv_.notify_one();  // Stop may be waiting for this
    } else if (queue_.front()->async) {
      writerLeads_ = true;
      writerCv_.notify_one();
    } else {
      queue_.front()->lead = true;
      queue_.front()->cv.notify_one();
    }
  }

  void WriterLoop() {
    std::unique_lock lock(mu_);
    for (;;) {
      writerCv_.wait(lock, [&] { return writerLeads_ || (stopping_ && !leading_); });
      if (!writerLeads_) return;  // stopping, and nothing is left to lead
      writerLeads_ = false;
      // Leads until the queue is empty: a waiting Submit caller is answered
      // here rather than woken to lead.
      while (!queue_.empty()) RunOneBatch(lock);
      HandLead(lock);
    }
  }

  // The batcher whose `done` callback this thread is running, if any.
  static const WriteBatcher*& AnsweringOn() {
    thread_local const WriteBatcher* answering = nullptr;
    return answering;
  }

  Counter* transactionsCounter_ = nullptr;
  Counter* writesCounter_ = nullptr;
  Counter* unavailableCounter_ = nullptr;
  Gauge* refusingGauge_ = nullptr;

  // Whether writes are being refused for full or unreachable storage. Only a
  // commit clears it: a rule's refusal or a kInternal says nothing either way.
  void Observe(const Status& st) {
    if (refusingGauge_ == nullptr) return;
    if (!st.ok() && st.error().code == ErrorCode::kUnavailable) {
      unavailableCounter_->Inc();
      refusingGauge_->Set(1);
    } else if (st.ok()) {
      refusingGauge_->Set(0);
    }
  }
};

// What a backend does for one batch; RunInOneTransaction calls them in order.
struct BatchSteps {
  std::function<Status()> begin;  // opens the write transaction
  // Runs one write in a savepoint of its own: ok, or that write's error with
  // its changes undone. Sets `broken` when the transaction itself was lost.
  std::function<Status(const WriteBatcher::WriteFn&, bool& broken)> runInSavepoint;
  std::function<Status()> commit;
  std::function<void()> rollback;  // ends what is open, if anything
  std::function<Status(const WriteBatcher::WriteFn&)> runAlone;
};

// The batch's writes in one transaction, each in a savepoint.
// A batch of one runs alone, exactly as an unbatched write.
inline void RunInOneTransaction(const std::vector<WriteBatcher::Pending*>& batch, const BatchSteps& steps) {
  if (batch.size() == 1) {
    batch[0]->result = steps.runAlone(*batch[0]->fn);
    return;
  }
  if (Status began = steps.begin(); !began.ok()) {
    steps.rollback();
    for (auto* p : batch) p->result = began;
    return;
  }
  std::size_t ran = 0;
  bool broken = false;
  Status lost;
  while (ran < batch.size() && !broken) {
    Status st = steps.runInSavepoint(*batch[ran]->fn, broken);
    batch[ran]->result = st;
    ++ran;
    if (broken) lost = st.ok() ? Error{ErrorCode::kInternal, "store: the write transaction was lost"} : st;
  }
  if (!broken) {
    Status committed = steps.commit();
    if (committed.ok()) return;
    lost = committed;
  }
  steps.rollback();
  // Nothing of the batch committed: a write that ran and succeeded gets the
  // reason, never a success (one that failed keeps its own error); those not
  // reached yet run alone (they have not run, so running them is no retry).
  for (std::size_t i = 0; i < ran; ++i)
    if (batch[i]->result.ok()) batch[i]->result = lost;
  for (std::size_t i = ran; i < batch.size(); ++i) batch[i]->result = steps.runAlone(*batch[i]->fn);
}

}  // namespace livechat::storage
