#include "core/observed_store.h"

#include <vector>

namespace livechat::internal {

Status ObservedStore::Write(const std::function<Status(StoreWriter&)>& fn) {
  std::vector<std::string> written;
  std::size_t queued = 0;
  Status st = inner_.Write([&](StoreWriter& w) -> Status {
    Status out = fn(w);
    written = w.writtenConversations();
    queued = w.queuedDeliveries();
    return out;
  });
  // A rolled-back transaction changed nothing anyone could see.
  if (!st.ok()) return st;
  Report(written, queued);
  return st;
}

void ObservedStore::WriteAsync(std::function<Status(StoreWriter&)> fn, std::function<void(Status)> done) {
  struct Seen {
    std::vector<std::string> written;
    std::size_t queued = 0;
  };
  auto seen = std::make_shared<Seen>();
  {
    std::lock_guard lock(handedOverMu_);
    ++handedOver_;
  }
  inner_.WriteAsync(
      [fn = std::move(fn), seen](StoreWriter& w) -> Status {
        Status out = fn(w);
        seen->written = w.writtenConversations();
        seen->queued = w.queuedDeliveries();
        return out;
      },
      [this, seen, done = std::move(done)](Status st) {
        if (st.ok()) Report(seen->written, seen->queued);
        if (done) done(std::move(st));
        std::lock_guard lock(handedOverMu_);
        if (--handedOver_ == 0) handedOverCv_.notify_all();
      });
}

void ObservedStore::AwaitWritesHandedOver() {
  std::unique_lock lock(handedOverMu_);
  handedOverCv_.wait(lock, [&] { return handedOver_ == 0; });
}

void ObservedStore::Report(const std::vector<std::string>& written, std::size_t queued) {
  for (const auto& id : written) changed_(id);
  if (queued > 0 && queued_) queued_();
}

}  // namespace livechat::internal
