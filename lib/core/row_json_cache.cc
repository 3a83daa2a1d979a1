#include "core/row_json_cache.h"

namespace livechat::internal {

RowJsonCache::RowJsonCache(std::size_t capacityBytes, MetricsRegistry* metrics, const std::string& list)
    : shardCapacity_(capacityBytes / kShards), shards_(kShards) {
  if (metrics == nullptr) return;
  hits_ = &metrics->GetCounter(metric::kListCacheHits, metric::kListCacheHitsHelp, {{"list", list}});
  misses_ = &metrics->GetCounter(metric::kListCacheMisses, metric::kListCacheMissesHelp, {{"list", list}});
}

void RowJsonCache::Erase(Shard& s, std::unordered_map<std::int64_t, Entry>::iterator it) {
  s.bytes -= Charge(it->second);
  s.lru.erase(it->second.lru);
  s.map.erase(it);
}

RowJsonCache::Json RowJsonCache::Find(std::int64_t id, std::int64_t version) {
  if (!enabled()) return nullptr;
  Shard& s = ShardOf(id);
  std::lock_guard lock(s.mu);
  auto it = s.map.find(id);
  if (it == s.map.end()) return nullptr;
  if (it->second.version != version) {
    // The row was written since: this copy can never be served again.
    Erase(s, it);
    return nullptr;
  }
  s.lru.splice(s.lru.begin(), s.lru, it->second.lru);
  return it->second.json;
}

void RowJsonCache::Put(std::int64_t id, std::int64_t version, Json json) {
  if (!enabled() || !json) return;
  const std::size_t charge = json->capacity() + kEntryOverhead;
  if (charge > shardCapacity_) return;  // would evict the whole shard for one row
  Shard& s = ShardOf(id);
  std::lock_guard lock(s.mu);
  auto it = s.map.find(id);
  if (it != s.map.end()) Erase(s, it);
  while (s.bytes + charge > shardCapacity_ && !s.lru.empty()) Erase(s, s.map.find(s.lru.back()));
  s.lru.push_front(id);
  s.map.emplace(id, Entry{version, std::move(json), s.lru.begin()});
  s.bytes += charge;
}

void RowJsonCache::Drop(std::int64_t id) {
  if (!enabled()) return;
  Shard& s = ShardOf(id);
  std::lock_guard lock(s.mu);
  auto it = s.map.find(id);
  if (it != s.map.end()) Erase(s, it);
}

std::size_t RowJsonCache::Entries() const {
  std::size_t n = 0;
  for (const Shard& s : shards_) {
    std::lock_guard lock(s.mu);
    n += s.map.size();
  }
  return n;
}

std::size_t RowJsonCache::Bytes() const {
  std::size_t n = 0;
  for (const Shard& s : shards_) {
    std::lock_guard lock(s.mu);
    n += s.bytes;
  }
  return n;
}

}  // namespace livechat::internal
