#include "livechat/base/worker_loop.h"

#include <algorithm>
#include <chrono>

namespace livechat {

WorkerLoop::WorkerLoop(std::function<bool()> runOne, std::int64_t idlePollMillis)
    : runOne_(std::move(runOne)), idlePollMillis_(idlePollMillis) {}

WorkerLoop::~WorkerLoop() { Stop(); }

void WorkerLoop::Start(int threads) {
  if (running_.exchange(true)) return;
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { Run(); });
}

void WorkerLoop::Stop() {
  if (!running_.exchange(false)) return;
  {
    // Under the lock, so a thread between its check and its wait cannot miss it.
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
  wake_ = false;
}

void WorkerLoop::Notify() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = true;
  }
  cv_.notify_all();
}

void WorkerLoop::Run() {
  while (running_.load()) {
    if (runOne_()) continue;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::milliseconds(idlePollMillis_), [&] { return wake_ || !running_.load(); });
    wake_ = false;
  }
}

}  // namespace livechat
