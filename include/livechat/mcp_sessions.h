// Where the tool server's sessions (Mcp-Session-Id) are kept. One process
// keeps them in memory (InMemoryMcpSessions, McpServer's default); several
// livechatd instances on one PostgreSQL database keep them in it
// (OpenPostgresMcpSessions), so a session opened on one instance works on
// every other. A session is not a credential (every request still carries
// the key); it records the store and the negotiated protocol version.
// Implementations are thread-safe.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace livechat {

struct McpSession {
  std::string shopId;
  std::string version;
};

class McpSessions {
 public:
  virtual ~McpSessions() = default;
  // Records a new session; then forgets the store's oldest sessions above
  // `maxPerStore` (never another store's).
  virtual void Open(const std::string& id, const McpSession& s, std::size_t maxPerStore) = 0;
  // The session `id` of store `shopId`; none when unknown, ended, forgotten
  // or another store's.
  virtual std::optional<McpSession> Find(const std::string& id, const std::string& shopId) = 0;
  virtual void End(const std::string& id, const std::string& shopId) = 0;
};

class InMemoryMcpSessions final : public McpSessions {
 public:
  void Open(const std::string& id, const McpSession& s, std::size_t maxPerStore) override {
    std::lock_guard lock(mu_);
    sessions_[id] = s;
    auto& mine = order_[s.shopId];
    mine.push_back(id);
    while (mine.size() > maxPerStore) {
      sessions_.erase(mine.front());
      mine.pop_front();
    }
  }
  std::optional<McpSession> Find(const std::string& id, const std::string& shopId) override {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second.shopId != shopId) return std::nullopt;
    return it->second;
  }
  void End(const std::string& id, const std::string& shopId) override {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second.shopId != shopId) return;
    sessions_.erase(it);
    auto& mine = order_[shopId];
    for (auto o = mine.begin(); o != mine.end(); ++o) {
      if (*o == id) {
        mine.erase(o);
        break;
      }
    }
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::string, McpSession> sessions_;
  // Per store, oldest first.
  std::unordered_map<std::string, std::deque<std::string>> order_;
};

}  // namespace livechat
