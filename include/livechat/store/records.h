// The Store's remaining record families: store knowledge (catalog and shop
// documents), storefront visitor sessions, uploaded files' records, summary
// jobs, and compliance records (channel integrations, platform requests,
// data requests). Part of StoreReader / StoreWriter (livechat/store.h),
// whose rules (shop scoping, missing vs. failed, Insert/Update/Delete
// results) hold here too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "livechat/knowledge.h"
#include "livechat/model.h"
#include "livechat/result.h"

namespace livechat {

// Store knowledge (livechat/knowledge.h).
class KnowledgeReads {
 public:
  virtual ~KnowledgeReads() = default;
  virtual Result<std::optional<CatalogItem>> GetCatalogItem(const std::string& shopId, const std::string& kind,
                                                            const std::string& id) = 0;
  // By one of the lookup keys the item was stored with (exact match).
  virtual Result<std::optional<CatalogItem>> FindCatalogItemByKey(const std::string& shopId, const std::string& kind,
                                                                  const std::string& key) = 0;
  // In id order, strictly after `afterId` when given; only children of
  // `parentId` when it is not empty.
  virtual Result<std::vector<CatalogItem>> ListCatalogItems(const std::string& shopId, const std::string& kind,
                                                            const std::string& parentId, const std::string& afterId,
                                                            int limit) = 0;
  // Full-text search over title and body. `terms` are plain words; a word
  // matches its inflections (run, runs, running) regardless of case and
  // accents. An item matches when it contains any of the terms. Items with
  // every term come first, then items with some; within each group the
  // better match first (CatalogHit::relevance descending: more occurrences
  // of rarer terms in a shorter text, a match in the title counting ten
  // times one in the body), then by id. No terms: no hits.
  virtual Result<std::vector<CatalogHit>> SearchCatalog(const std::string& shopId, const std::string& kind,
                                                        const std::vector<std::string>& terms, int limit) = 0;
  // SearchCatalog among the children of `parentId` only (a product's FAQ
  // entries): the other items neither rank nor count toward the limit.
  virtual Result<std::vector<CatalogHit>> SearchCatalogChildren(const std::string& shopId, const std::string& kind,
                                                                const std::string& parentId,
                                                                const std::vector<std::string>& terms, int limit) = 0;
  virtual Result<std::int64_t> CountCatalogItems(const std::string& shopId, const std::string& kind) = 0;
  // A per-store JSON document by name (AI settings, size chart, loyalty
  // program, settings areas). Empty when never written.
  virtual Result<std::optional<std::string>> GetShopDocument(const std::string& shopId, const std::string& name) = 0;
};

class KnowledgeWrites {
 public:
  virtual ~KnowledgeWrites() = default;
  // Inserts or replaces the item (shopId, kind, id) with its search text and
  // its lookup keys (replacing the old keys).
  virtual Status PutCatalogItem(const CatalogItem& item, const std::vector<std::string>& keys) = 0;
  // Also removes its keys and its children (items whose parentId is its id).
  virtual Result<bool> DeleteCatalogItem(const std::string& shopId, const std::string& kind, const std::string& id) = 0;
  virtual Status PutShopDocument(const std::string& shopId, const std::string& name, const std::string& json) = 0;
};

// Storefront visitor sessions.
class VisitorSessionReads {
 public:
  virtual ~VisitorSessionReads() = default;
  // Across shops: the token names its session. Ended sessions are found too.
  virtual Result<std::optional<VisitorSession>> FindVisitorSession(const std::string& tokenHash) = 0;
  // The visitor sessions (ended ones too) that name the contact.
  virtual Result<std::vector<VisitorSession>> ListVisitorSessionsOfCustomer(const std::string& shopId,
                                                                            const std::string& customerId) = 0;
};

class VisitorSessionWrites {
 public:
  virtual ~VisitorSessionWrites() = default;
  virtual Status InsertVisitorSession(const VisitorSession& s) = 0;
  // Writes every field but id, shopId and tokenHash.
  virtual Result<bool> UpdateVisitorSession(const VisitorSession& s) = 0;
};

// Uploaded files' records (the bytes are in the BlobStore).
class FileRecordReads {
 public:
  virtual ~FileRecordReads() = default;
  virtual Result<std::optional<FileRecord>> GetFile(const std::string& shopId, const std::string& fileId) = 0;
  // Across shops: a file's public URL names only its id. The caller decides
  // whether the asker may see a file of that shop.
  virtual Result<std::optional<FileRecord>> FindFileById(const std::string& fileId) = 0;
  // A shop's files of one kind, oldest first (createdAt, then id).
  virtual Result<std::vector<FileRecord>> ListFiles(const std::string& shopId, const std::string& kind) = 0;
};

class FileRecordWrites {
 public:
  virtual ~FileRecordWrites() = default;
  virtual Status InsertFile(const FileRecord& f) = 0;
  virtual Result<bool> DeleteFile(const std::string& shopId, const std::string& fileId) = 0;
  // Removes the shop's records of one kind; returns how many.
  virtual Result<std::int64_t> DeleteFilesOfKind(const std::string& shopId, const std::string& kind) = 0;
};

// Summary jobs (livechat/summarizer.h): one per conversation at most.
class SummaryJobReads {
 public:
  virtual ~SummaryJobReads() = default;
  virtual Result<std::optional<SummaryJob>> GetSummaryJob(const std::string& shopId,
                                                          const std::string& conversationId) = 0;
  // Across shops, for the worker: jobs with nextAttemptAt <= now and no live
  // lease (leaseUntil <= now), earliest due first, at most `limit`.
  virtual Result<std::vector<SummaryJob>> ListDueSummaryJobs(Millis now, int limit) = 0;
  // Queued jobs across shops, and the nextAttemptAt of the earliest (metrics).
  struct SummaryQueueStats {
    std::int64_t pending = 0;
    std::optional<Millis> oldestDueAt;
  };
  virtual Result<SummaryQueueStats> GetSummaryQueueStats() = 0;
};

class SummaryJobWrites {
 public:
  virtual ~SummaryJobWrites() = default;
  // Inserts the conversation's job or replaces it whole.
  virtual Status PutSummaryJob(const SummaryJob& j) = 0;
  // Leases job `jobId` to the caller until `leaseUntil` when it is still the
  // conversation's job, due and unleased at `now`; false otherwise (gone,
  // replaced, or someone else has it).
  virtual Result<bool> ClaimSummaryJob(const std::string& shopId, const std::string& conversationId,
                                       const std::string& jobId, Millis now, Millis leaseUntil) = 0;
  // Removes the conversation's job; with a non-empty `jobId`, only when it is that job.
  virtual Result<bool> DeleteSummaryJob(const std::string& shopId, const std::string& conversationId,
                                        const std::string& jobId) = 0;
};

// Channel integrations, the platform's (compliance) requests and the data
// requests they open.
class ComplianceReads {
 public:
  virtual ~ComplianceReads() = default;
  // The stored rows only, by channel; a channel without a row is connected.
  virtual Result<std::vector<ChannelIntegration>> ListChannelIntegrations(const std::string& shopId) = 0;
  // The first request applied with this key (outcome "applied"), or empty: a
  // refused request may be sent again and apply.
  virtual Result<std::optional<PlatformRequest>> FindPlatformRequest(const std::string& shopId,
                                                                     const std::string& requestKey) = 0;
  // The audit trail, newest first (receivedAt, then the order received), at most `limit`.
  virtual Result<std::vector<PlatformRequest>> ListPlatformRequests(const std::string& shopId, int limit) = 0;
  virtual Result<std::optional<DataRequest>> GetDataRequest(const std::string& shopId, const std::string& id) = 0;
  // Newest first.
  virtual Result<std::vector<DataRequest>> ListDataRequests(const std::string& shopId) = 0;
};

class ComplianceWrites {
 public:
  virtual ~ComplianceWrites() = default;
  // Inserts or replaces (shopId, channel).
  virtual Status PutChannelIntegration(const ChannelIntegration& i) = 0;
  virtual Status InsertPlatformRequest(const PlatformRequest& r) = 0;
  // Fails with kInternal when (shopId, id) exists.
  virtual Status InsertDataRequest(const DataRequest& d) = 0;
  // Replaces customerJson, contacts and exportJson of (shopId, id); false
  // when there is no such request.
  virtual Result<bool> UpdateDataRequest(const DataRequest& d) = 0;
};

}  // namespace livechat
