// The conversation list's rows as JSON, kept by the row's version
// (ConversationVersion): a list page reads each row's version in its own
// read transaction and reuses the JSON built for that version, so a row is
// read whole and serialized again only after a write changed it. Every
// write of a row gives it a new version (the schema's row_version), in
// whichever process or instance made it, so a copy here is never served for
// a row that changed: the version read in the page's transaction says.
//
// Bounded by bytes (least recently used out first); thread-safe, sharded so
// concurrent pages rarely wait on each other. Capacity 0: nothing is kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "livechat/metrics.h"

namespace livechat::internal {

class ConversationJsonCache {
 public:
  using Json = std::shared_ptr<const std::string>;

  // `metrics` (optional) gets the hit and miss counters.
  ConversationJsonCache(std::size_t capacityBytes, MetricsRegistry* metrics);
  ConversationJsonCache(const ConversationJsonCache&) = delete;
  ConversationJsonCache& operator=(const ConversationJsonCache&) = delete;

  // Off when a shard could keep nothing (a capacity under 16 bytes too).
  bool enabled() const { return shardCapacity_ > 0; }

  // The JSON kept for row `pgConvoId` at `version`, or null (and a copy
  // kept for another version is dropped).
  Json Find(std::int64_t pgConvoId, std::int64_t version);
  void Put(std::int64_t pgConvoId, std::int64_t version, Json json);

  // Counted by the caller, a page at a time.
  void CountHits(std::uint64_t n) {
    if (hits_) hits_->Inc(n);
  }
  void CountMisses(std::uint64_t n) {
    if (misses_) misses_->Inc(n);
  }

  // What is kept now: entries and their bytes (tests, and the bound's check).
  std::size_t Entries() const;
  std::size_t Bytes() const;

  // What one entry is charged beyond its JSON's allocation: the map node,
  // the list node and the shared string's control block, roughly.
  static constexpr std::size_t kEntryOverhead = 128;

 private:
  struct Entry {
    std::int64_t version;
    Json json;
    std::list<std::int64_t>::iterator lru;
  };
  struct Shard {
    mutable std::mutex mu;
    std::unordered_map<std::int64_t, Entry> map;
    std::list<std::int64_t> lru;  // most recent first
    std::size_t bytes = 0;
  };
  static constexpr std::size_t kShards = 16;
  Shard& ShardOf(std::int64_t id) { return shards_[static_cast<std::uint64_t>(id) % kShards]; }
  // The string's allocation, not only its text: what the bound is about.
  static std::size_t Charge(const Entry& e) { return e.json->capacity() + kEntryOverhead; }
  void Erase(Shard& s, std::unordered_map<std::int64_t, Entry>::iterator it);

  std::size_t capacity_;
  std::size_t shardCapacity_;
  std::vector<Shard> shards_;
  Counter* hits_ = nullptr;
  Counter* misses_ = nullptr;
};

}  // namespace livechat::internal
