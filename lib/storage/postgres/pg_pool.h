// A small pool of connections for the state shared by instances outside
// the Store's transactions (rate counters, MCP sessions): each call is one
// statement in autocommit. A broken connection is reopened on its next use.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "storage/postgres/pg_connection.h"

namespace livechat::pg {

class ConnectionPool {
 public:
  ConnectionPool(std::string url, int size) : url_(std::move(url)) {
    for (int i = 0; i < size; ++i) slots_.push_back(std::make_unique<std::unique_ptr<Connection>>());
    for (auto& s : slots_) idle_.push_back(s.get());
  }
  // Runs fn on a live connection; an error reconnects that slot next time.
  Status With(const std::function<Status(Connection&)>& fn) {
    std::unique_ptr<Connection>* slot;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !idle_.empty(); });
      slot = idle_.back();
      idle_.pop_back();
    }
    Status st = Status::Ok();
    if (!*slot || !(*slot)->Ok()) {
      auto opened = Connection::Open(url_);
      if (opened.ok()) *slot = std::move(opened).value();
      else st = opened.error();
    }
    if (st.ok()) st = fn(**slot);
    if (!st.ok() && *slot && !(*slot)->Ok()) slot->reset();
    {
      std::lock_guard lock(mu_);
      idle_.push_back(slot);
    }
    cv_.notify_one();
    return st;
  }
  const std::string& url() const { return url_; }

 private:
  std::string url_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<std::unique_ptr<Connection>>> slots_;
  std::vector<std::unique_ptr<Connection>*> idle_;
};

}  // namespace livechat::pg
