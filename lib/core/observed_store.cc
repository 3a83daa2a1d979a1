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
  inner_.WriteAsync(
      [fn = std::move(fn), seen](StoreWriter& w) -> Status {
        Status out = fn(w);
        seen->written = w.writtenConversations();
        seen->queued = w.queuedDeliveries();
        return out;
      },
      [this, seen, done = std::move(done)](Status st) {
        if (st.ok()) Report(seen->written, seen->queued);
        done(std::move(st));
      });
}

void ObservedStore::Report(const std::vector<std::string>& written, std::size_t queued) {
  for (const auto& id : written) changed_(id);
  if (queued > 0 && queued_) queued_();
}

}  // namespace livechat::internal
