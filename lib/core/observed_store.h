// A Store that reports, after each Write commits, the conversations the
// transaction wrote (StoreWriter::writtenConversations) and whether it queued
// webhook deliveries (StoreWriter::queuedDeliveries). ChatService reaches its
// store only through one, so every write of what a widget shows wakes the
// polls waiting on that conversation, and every write that queued a delivery
// wakes the dispatcher, whichever operation made it.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "livechat/store.h"

namespace livechat::internal {

class ObservedStore final : public Store {
 public:
  // `changed` runs on the writer's thread after the commit, once per
  // conversation, and `queued` once if the write queued any delivery; both
  // must be cheap and thread-safe. `inner` must outlive this.
  ObservedStore(Store& inner, std::function<void(const std::string& conversationId)> changed,
                std::function<void()> queued)
      : inner_(inner), changed_(std::move(changed)), queued_(std::move(queued)) {}

  Status Read(const std::function<Status(StoreReader&)>& fn) override { return inner_.Read(fn); }
  Status Write(const std::function<Status(StoreWriter&)>& fn) override;
  void WriteAsync(std::function<Status(StoreWriter&)> fn, std::function<void(Status)> done) override;
  // Returns once every write handed over by WriteAsync has been answered:
  // their answers run service code, so the services wait for them before
  // they go (~ChatService).
  void AwaitWritesHandedOver();
  bool Healthy() override { return inner_.Healthy(); }
  bool CanReadWithoutWaiting() const override { return inner_.CanReadWithoutWaiting(); }

 private:
  void Report(const std::vector<std::string>& written, std::size_t queued);

  Store& inner_;
  std::mutex handedOverMu_;
  std::condition_variable handedOverCv_;
  int handedOver_ = 0;  // WriteAsync calls not yet answered
  std::function<void(const std::string&)> changed_;
  std::function<void()> queued_;
};

}  // namespace livechat::internal
