// List rows as JSON, kept by the row's version (the conversation list's
// rows by pg id, a conversation's messages by seq): a page reads each row's
// version in its own read transaction and reuses the JSON built for that
// version, so a row is read whole and serialized again only after a write
// changed it. Every write of a row gives it a new version (the schema's
// row_version and its triggers), in whichever process or instance made it,
// so a copy here is never served for a row that changed: the version read
// in the page's transaction says.
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
#include "livechat/result.h"

namespace livechat::internal {

class RowJsonCache {
 public:
  using Json = std::shared_ptr<const std::string>;

  // `metrics` (optional) gets the hit and miss counters, labelled
  // list=`list` ("conversations", "messages").
  RowJsonCache(std::size_t capacityBytes, MetricsRegistry* metrics, const std::string& list);
  RowJsonCache(const RowJsonCache&) = delete;
  RowJsonCache& operator=(const RowJsonCache&) = delete;

  // Off when a shard could keep nothing (a capacity under 16 bytes too).
  bool enabled() const { return shardCapacity_ > 0; }

  // The JSON kept for row `id` at `version`, or null (and a copy kept for
  // another version is dropped).
  Json Find(std::int64_t id, std::int64_t version);
  void Put(std::int64_t id, std::int64_t version, Json json);
  // Whatever is kept for row `id` (its JSON may no longer be kept).
  void Drop(std::int64_t id);

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

  std::size_t shardCapacity_;
  std::vector<Shard> shards_;
  Counter* hits_ = nullptr;
  Counter* misses_ = nullptr;
};

// One page's rows through a RowJsonCache. In the page's read transaction,
// Look takes what is kept for each shown row's version and says which rows
// to read whole; after the read, Fill serializes those (in the page's
// order, into `items`), keeps what may be kept, and counts hits and misses.
struct KeptRow {
  std::int64_t id = 0;
  std::int64_t version = 0;
  bool keep = true;  // false: its JSON is never kept (a message's signed file URLs)
};

class KeptPage {
 public:
  explicit KeptPage(RowJsonCache& cache) : cache_(cache) {}

  // The ids of the rows to read whole (resets what an earlier Look found:
  // a read may run its function again).
  std::vector<std::int64_t> Look(std::vector<KeptRow> rows) {
    rows_ = std::move(rows);
    items.assign(rows_.size(), nullptr);
    std::vector<std::int64_t> missing;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      if (rows_[i].keep) {
        items[i] = cache_.Find(rows_[i].id, rows_[i].version);
      } else {
        cache_.Drop(rows_[i].id);  // kept before it stopped being keepable
      }
      if (!items[i]) missing.push_back(rows_[i].id);
    }
    return missing;
  }

  // `read`: the rows Look asked for, in any order.
  template <class Row, class IdOf, class ToJson>
  Status Fill(const std::vector<Row>& read, IdOf idOf, ToJson toJson) {
    std::size_t filled = 0;
    for (const Row& row : read) {
      const std::int64_t id = idOf(row);
      bool placed = false;
      for (std::size_t i = 0; i < rows_.size() && !placed; ++i) {
        if (items[i] || rows_[i].id != id) continue;
        items[i] = toJson(row);
        if (rows_[i].keep) cache_.Put(id, rows_[i].version, items[i]);
        placed = true;
        ++filled;
      }
      if (!placed) return Error{ErrorCode::kInternal, "store: a row was read that the page did not list"};
    }
    for (const RowJsonCache::Json& j : items)
      if (!j) return Error{ErrorCode::kInternal, "store: a listed row was not found in the same read"};
    cache_.CountHits(items.size() - filled);
    cache_.CountMisses(filled);
    return Status::Ok();
  }

  std::vector<RowJsonCache::Json> items;

 private:
  RowJsonCache& cache_;
  std::vector<KeptRow> rows_;
};

}  // namespace livechat::internal
