#include "core/conversation_json_cache.h"

namespace livechat::internal {

ConversationJsonCache::ConversationJsonCache(std::size_t capacityBytes, MetricsRegistry* metrics)
    : capacity_(capacityBytes), shardCapacity_(capacityBytes / kShards), shards_(kShards) {
  if (metrics == nullptr) return;
  hits_ = &metrics->GetCounter(metric::kListCacheHits, metric::kListCacheHitsHelp);
  misses_ = &metrics->GetCounter(metric::kListCacheMisses, metric::kListCacheMissesHelp);
}

void ConversationJsonCache::Erase(Shard& s, std::unordered_map<std::int64_t, Entry>::iterator it) {
  s.bytes -= Charge(it->second);
  s.lru.erase(it->second.lru);
  s.map.erase(it);
}

ConversationJsonCache::Json ConversationJsonCache::Find(std::int64_t pgConvoId, std::int64_t version) {
  if (!enabled()) return nullptr;
  Shard& s = ShardOf(pgConvoId);
  std::lock_guard lock(s.mu);
  auto it = s.map.find(pgConvoId);
  if (it == s.map.end()) return nullptr;
  if (it->second.version != version) {
    // The row was written since: this copy can never be served again.
    Erase(s, it);
    return nullptr;
  }
  s.lru.splice(s.lru.begin(), s.lru, it->second.lru);
  return it->second.json;
}

void ConversationJsonCache::Put(std::int64_t pgConvoId, std::int64_t version, Json json) {
  if (!enabled() || !json) return;
  const std::size_t charge = json->capacity() + kEntryOverhead;
  if (charge > shardCapacity_) return;  // would evict the whole shard for one row
  Shard& s = ShardOf(pgConvoId);
  std::lock_guard lock(s.mu);
  auto it = s.map.find(pgConvoId);
  if (it != s.map.end()) Erase(s, it);
  while (s.bytes + charge > shardCapacity_ && !s.lru.empty()) Erase(s, s.map.find(s.lru.back()));
  s.lru.push_front(pgConvoId);
  s.map.emplace(pgConvoId, Entry{version, std::move(json), s.lru.begin()});
  s.bytes += charge;
}

std::size_t ConversationJsonCache::Entries() const {
  std::size_t n = 0;
  for (const Shard& s : shards_) {
    std::lock_guard lock(s.mu);
    n += s.map.size();
  }
  return n;
}

std::size_t ConversationJsonCache::Bytes() const {
  std::size_t n = 0;
  for (const Shard& s : shards_) {
    std::lock_guard lock(s.mu);
    n += s.bytes;
  }
  return n;
}

}  // namespace livechat::internal
