// Background threads that take one unit of work at a time and sleep when
// there is none: the loop under the webhook dispatcher and the summary
// worker. The work lives elsewhere (a store's lease queue); this only decides
// when to look for it.
#pragma once

#include <atomic>
#include <cstdint>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace livechat {

// Thread-safe.
class WorkerLoop {
 public:
  // `runOne` does at most one unit of work and returns whether it found any;
  // an idle thread looks again after `idlePollMillis`, or at once on Notify().
  // One unit per call keeps Stop() waiting for the unit in flight only.
  WorkerLoop(std::function<bool()> runOne, std::int64_t idlePollMillis);
  ~WorkerLoop();  // Stop()
  WorkerLoop(const WorkerLoop&) = delete;
  WorkerLoop& operator=(const WorkerLoop&) = delete;

  // Starts `threads` threads (at least one); a no-op while running.
  void Start(int threads = 1);
  // Wakes the threads and waits for each to finish its unit in flight.
  void Stop();
  void Notify();
  bool running() const { return running_.load(); }

 private:
  void Run();

  std::function<bool()> runOne_;
  std::int64_t idlePollMillis_;
  std::atomic<bool> running_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool wake_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace livechat
