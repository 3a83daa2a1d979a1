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
  for (const auto& id : written) changed_(id);
  if (queued > 0 && queued_) queued_();
  return st;
}

}  // namespace livechat::internal
