// The Store seam: where records live. The SQLite store is the embedded default
// (livechat/sqlite_store.h); every Store passes tests/storage/store_conformance.
//
// Every method takes the shop id and touches that shop's rows only: a record
// of another shop is indistinguishable from a missing one.
//
// Reads go through Store::Read, writes through Store::Write. A Write runs its
// function inside one transaction: the change and the outbox events it appends
// commit together or not at all. A StoreWriter can also read, and sees its own
// uncommitted writes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "livechat/knowledge.h"
#include "livechat/model.h"
#include "livechat/result.h"

namespace livechat {

// Keyset position in the conversation order (lastActive DESC, pgConvoId DESC).
struct ConversationKey {
  Millis lastActive = 0;
  std::int64_t pgConvoId = 0;
};

// Lists only conversations in the newer datastore (inNewDatastore), newest
// activity first: ORDER BY lastActive DESC, pgConvoId DESC.
struct ConversationQuery {
  std::string shopId;
  std::optional<std::string> status;           // open | resolved
  std::optional<std::string> channel;          // the channel it started on; unset: all but "playground"
  std::optional<std::string> assigneeId;       // memberId equals
  bool unassignedOnly = false;                 // memberId IS NULL
  std::optional<bool> isRead;
  std::vector<std::string> tagsAny;            // carries at least one of these
  std::optional<std::string> customerUuid;
  std::optional<std::string> email;            // customerEmail equals (case-insensitive)
  std::optional<std::string> excludeId;        // Conversation::id to leave out (related)
  std::optional<ConversationKey> after;        // strictly after this position
  int limit = 20;                              // rows to return at most
};

// Messages of one conversation in send order (seq).
struct MessageQuery {
  std::string shopId;
  std::string conversationId;                  // Conversation::id
  bool descending = false;
  std::optional<std::int64_t> afterSeq;        // strictly after, in the chosen direction
  bool includeDeleted = false;
  bool includeNotes = true;
  int limit = 50;
};

// Keyset position in the customer order (createdAt ASC, id ASC).
struct CustomerKey {
  Millis createdAt = 0;
  std::string id;
};

// A shop's customers in a stable order: createdAt ascending, then id.
struct CustomerQuery {
  std::string shopId;
  std::optional<CustomerKey> after;   // strictly after
  std::optional<CustomerKey> before;  // strictly before
  bool descending = false;            // walk from the end (Relay `last`)
  std::int64_t limit = 100;
};

class StoreReader {
 public:
  virtual ~StoreReader() = default;

  // Shops. A missing record is an empty optional, never an error; an Error
  // means the storage itself failed (ErrorCode::kInternal).
  virtual Result<std::optional<Shop>> GetShop(const std::string& shopId) = 0;
  virtual Result<std::optional<Shop>> GetShopByAppId(const std::string& appId) = 0;

  // API keys. FindApiKeyByHash looks across shops (the key names its shop).
  virtual Result<std::optional<ApiKey>> FindApiKeyByHash(const std::string& keyHash) = 0;
  virtual Result<std::vector<ApiKey>> ListApiKeys(const std::string& shopId) = 0;  // createdAt order, revoked included

  // Members, in createdAt order.
  virtual Result<std::optional<Member>> GetMember(const std::string& shopId, const std::string& memberId) = 0;
  virtual Result<std::vector<Member>> ListMembers(const std::string& shopId) = 0;
  // Across shops (login); email compared case-insensitively.
  virtual Result<std::vector<Member>> FindMembersByEmail(const std::string& email) = 0;

  virtual Result<std::optional<Customer>> GetCustomer(const std::string& shopId, const std::string& customerId) = 0;
  // Case-insensitive email match.
  virtual Result<std::optional<Customer>> FindCustomerByEmail(const std::string& shopId, const std::string& email) = 0;
  virtual Result<std::vector<Customer>> ListCustomers(const CustomerQuery& q) = 0;
  virtual Result<std::int64_t> CountCustomers(const std::string& shopId) = 0;

  // Matches `anyId` against id, firestoreId, or (when all digits) pgConvoId.
  // Legacy records are found too.
  virtual Result<std::optional<Conversation>> FindConversation(const std::string& shopId, const std::string& anyId) = 0;
  virtual Result<std::vector<Conversation>> ListConversations(const ConversationQuery& q) = 0;

  virtual Result<std::vector<Message>> ListMessages(const MessageQuery& q) = 0;
  // `idOrSeq`: the message UUID, or its numeric seq. Deleted messages are found.
  virtual Result<std::optional<Message>> GetMessage(const std::string& shopId, const std::string& conversationId,
                                                    const std::string& idOrSeq) = 0;

  // Distinct tags over the shop's conversations with their use counts, by name.
  virtual Result<std::vector<TagCount>> ListTagCatalog(const std::string& shopId) = 0;

  virtual Result<std::vector<Note>> ListNotes(const std::string& shopId, const std::string& conversationId) = 0;
  virtual Result<std::optional<Note>> GetNote(const std::string& shopId, const std::string& conversationId,
                                              const std::string& noteId) = 0;

  virtual Result<std::vector<Attribute>> ListAttributes(const std::string& shopId, const std::string& conversationId) = 0;
  virtual Result<std::optional<Attribute>> GetAttribute(const std::string& shopId, const std::string& conversationId,
                                                        const std::string& attributeId) = 0;
  virtual Result<std::optional<Attribute>> FindAttributeByName(const std::string& shopId, const std::string& conversationId,
                                                               const std::string& name) = 0;

  // Newest first, viewedAt >= sinceMillis, at most `limit`.
  virtual Result<std::vector<BrowsedPage>> ListBrowsedPages(const std::string& shopId, const std::string& conversationId,
                                                            Millis sinceMillis, int limit) = 0;

  virtual Result<std::optional<Summary>> GetSummary(const std::string& shopId, const std::string& conversationId) = 0;

  virtual Result<std::vector<TypingState>> ListTyping(const std::string& shopId, const std::string& conversationId) = 0;

  virtual Result<std::optional<AdminSession>> GetSession(const std::string& tokenHash) = 0;

  // Outbox events of a shop, oldest first (tests and the dispatcher).
  virtual Result<std::vector<Event>> ListEvents(const std::string& shopId, int limit) = 0;
  virtual Result<std::optional<Event>> GetEvent(const std::string& shopId, const std::string& eventId) = 0;

  // ---- Webhooks ----
  // In createdAt order.
  virtual Result<std::vector<WebhookSubscription>> ListSubscriptions(const std::string& shopId) = 0;
  virtual Result<std::optional<WebhookSubscription>> GetSubscription(const std::string& shopId,
                                                                     const std::string& subscriptionId) = 0;
  virtual Result<std::optional<WebhookSubscription>> FindSubscriptionByUrl(const std::string& shopId,
                                                                           const std::string& url) = 0;
  // Across shops (the legacy endpoints authenticate with the secret itself).
  virtual Result<std::optional<WebhookSubscription>> FindSubscriptionBySecretHash(const std::string& secretHash) = 0;
  virtual Result<std::optional<WebhookDelivery>> GetDelivery(const std::string& shopId,
                                                             const std::string& deliveryId) = 0;
  // Across shops, for the dispatcher: pending deliveries with nextAttemptAt <=
  // now and no live lease (leaseUntil <= now), at most one per subscription
  // (its earliest), earliest first, at most `limit`. A subscription that has a
  // delivery under a live lease (in flight somewhere) lists nothing: one
  // delivery per subscription is in flight at a time, across processes.
  virtual Result<std::vector<WebhookDelivery>> ListDueDeliveries(Millis now, int limit) = 0;
  // A subscription's deliveries, newest first.
  virtual Result<std::vector<WebhookDelivery>> ListDeliveries(const std::string& shopId,
                                                              const std::string& subscriptionId, int limit) = 0;
  // A subscription's attempt log, newest first.
  virtual Result<std::vector<DeliveryAttempt>> ListAttempts(const std::string& shopId,
                                                            const std::string& subscriptionId, int limit) = 0;
  // Pending deliveries across shops, and the nextAttemptAt of the oldest (metrics).
  struct OutboxStats {
    std::int64_t pending = 0;
    std::optional<Millis> oldestDueAt;
  };
  virtual Result<OutboxStats> GetOutboxStats() = 0;

  // ---- Store knowledge (livechat/knowledge.h) ----
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
  // Full-text search over title and body (SQLite FTS5, BM25 ranking with
  // the title weighted above the body). `terms` are plain words; an item
  // matches when it contains any of them. Items with every term come first
  // (best first among them), then items with some (best first). No terms:
  // no hits.
  virtual Result<std::vector<CatalogHit>> SearchCatalog(const std::string& shopId, const std::string& kind,
                                                        const std::vector<std::string>& terms, int limit) = 0;
  // SearchCatalog among the children of `parentId` only (a product's FAQ
  // entries), filtered inside the index before ranking and the limit.
  virtual Result<std::vector<CatalogHit>> SearchCatalogChildren(const std::string& shopId, const std::string& kind,
                                                                const std::string& parentId,
                                                                const std::vector<std::string>& terms, int limit) = 0;
  virtual Result<std::int64_t> CountCatalogItems(const std::string& shopId, const std::string& kind) = 0;
  // A per-store JSON document by name (AI settings, size chart, loyalty
  // program, settings areas). Empty when never written.
  virtual Result<std::optional<std::string>> GetShopDocument(const std::string& shopId, const std::string& name) = 0;
  // ---- Legacy conversations (not yet in the newer datastore) ----
  // Unmigrated conversations of a shop in rowid order (the order they were
  // imported in), at most `limit`. A Store without legacy records keeps these
  // defaults (kInternal).
  virtual Result<std::vector<Conversation>> ListLegacyConversations(const std::string& shopId, int limit) {
    (void)shopId, (void)limit;
    return Error{ErrorCode::kInternal, "this store does not keep legacy conversations"};
  }
  virtual Result<std::int64_t> CountLegacyConversations(const std::string& shopId) {
    (void)shopId;
    return Error{ErrorCode::kInternal, "this store does not keep legacy conversations"};
  }
  // ---- Storefront visitor sessions ----
  // Across shops: the token names its session. Ended sessions are found too.
  // A Store without storefront support keeps this default (kInternal).
  virtual Result<std::optional<VisitorSession>> FindVisitorSession(const std::string& tokenHash) {
    (void)tokenHash;
    return Error{ErrorCode::kInternal, "this store does not keep storefront sessions"};
  }
  // ---- Uploaded files' records (the bytes are in the BlobStore) ----
  // Stores without files keep these defaults (kInternal).
  virtual Result<std::optional<FileRecord>> GetFile(const std::string& shopId, const std::string& fileId) {
    (void)shopId, (void)fileId;
    return Error{ErrorCode::kInternal, "this store does not keep files"};
  }
  // Across shops: a file's public URL names only its id. The caller decides
  // whether the asker may see a file of that shop.
  virtual Result<std::optional<FileRecord>> FindFileById(const std::string& fileId) {
    (void)fileId;
    return Error{ErrorCode::kInternal, "this store does not keep files"};
  }
  // A shop's files of one kind, oldest first (createdAt, then id).
  virtual Result<std::vector<FileRecord>> ListFiles(const std::string& shopId, const std::string& kind) {
    (void)shopId, (void)kind;
    return Error{ErrorCode::kInternal, "this store does not keep files"};
  }
  // ---- Summary jobs (livechat/summarizer.h) ----
  // A Store without them keeps these defaults (kInternal).
  virtual Result<std::optional<SummaryJob>> GetSummaryJob(const std::string& shopId,
                                                          const std::string& conversationId) {
    (void)shopId, (void)conversationId;
    return Error{ErrorCode::kInternal, "this store does not keep summary jobs"};
  }
  // Across shops, for the worker: jobs with nextAttemptAt <= now and no live
  // lease (leaseUntil <= now), earliest due first, at most `limit`.
  virtual Result<std::vector<SummaryJob>> ListDueSummaryJobs(Millis now, int limit) {
    (void)now, (void)limit;
    return Error{ErrorCode::kInternal, "this store does not keep summary jobs"};
  }
  // Queued jobs across shops, and the nextAttemptAt of the earliest (metrics).
  struct SummaryQueueStats {
    std::int64_t pending = 0;
    std::optional<Millis> oldestDueAt;
  };
  virtual Result<SummaryQueueStats> GetSummaryQueueStats() {
    return Error{ErrorCode::kInternal, "this store does not keep summary jobs"};
  }
  // ---- Privacy, platform requests, channel integrations (migration 8) ----
  // A Store without them keeps these defaults (kInternal), like the visitor
  // sessions above.
  //
  // Contacts whose shopifyId equals `shopifyId`, in createdAt order.
  virtual Result<std::vector<Customer>> FindCustomersByShopifyId(const std::string& shopId,
                                                                 const std::string& shopifyId) {
    (void)shopId, (void)shopifyId;
    return NotKept();
  }
  // Every contact with this email (case-insensitive), in createdAt order: a
  // redact must reach them all, not only the canonical one FindCustomerByEmail
  // returns.
  virtual Result<std::vector<Customer>> ListCustomersByEmail(const std::string& shopId, const std::string& email) {
    (void)shopId, (void)email;
    return NotKept();
  }
  // Every contact whose phone has this PhoneKey (livechat/model.h), or, for a
  // contact on WhatsApp, whose channel recipient has it (the WhatsApp id is
  // the number), in createdAt order. Stored phones are compared in that form
  // too; an empty key matches nothing.
  virtual Result<std::vector<Customer>> ListCustomersByPhone(const std::string& shopId, const std::string& phoneKey) {
    (void)shopId, (void)phoneKey;
    return NotKept();
  }
  // The shop's outbox events whose data names this contact (`customerId`),
  // whatever their deliveries' state, oldest first.
  virtual Result<std::vector<Event>> ListEventsOfCustomer(const std::string& shopId, const std::string& customerId) {
    (void)shopId, (void)customerId;
    return NotKept();
  }
  // Every conversation of a contact, legacy (older datastore) ones included,
  // oldest first.
  virtual Result<std::vector<Conversation>> ListConversationsOfCustomer(const std::string& shopId,
                                                                        const std::string& customerId) {
    (void)shopId, (void)customerId;
    return NotKept();
  }
  // The visitor sessions (ended ones too) that name the contact.
  virtual Result<std::vector<VisitorSession>> ListVisitorSessionsOfCustomer(const std::string& shopId,
                                                                            const std::string& customerId) {
    (void)shopId, (void)customerId;
    return NotKept();
  }
  // The stored rows only, by channel; a channel without a row is connected.
  virtual Result<std::vector<ChannelIntegration>> ListChannelIntegrations(const std::string& shopId) {
    (void)shopId;
    return NotKept();
  }
  // The first request applied with this key (outcome "applied"), or empty: a
  // refused request may be sent again and apply.
  virtual Result<std::optional<PlatformRequest>> FindPlatformRequest(const std::string& shopId,
                                                                     const std::string& requestKey) {
    (void)shopId, (void)requestKey;
    return NotKept();
  }
  // The audit trail, newest first (receivedAt, then insertion), at most `limit`.
  virtual Result<std::vector<PlatformRequest>> ListPlatformRequests(const std::string& shopId, int limit) {
    (void)shopId, (void)limit;
    return NotKept();
  }
  virtual Result<std::optional<DataRequest>> GetDataRequest(const std::string& shopId, const std::string& id) {
    (void)shopId, (void)id;
    return NotKept();
  }
  // Newest first.
  virtual Result<std::vector<DataRequest>> ListDataRequests(const std::string& shopId) {
    (void)shopId;
    return NotKept();
  }

 protected:
  static Error NotKept() { return Error{ErrorCode::kInternal, "this store does not keep privacy records"}; }
};

class StoreWriter : public StoreReader {
 public:
  // Insert* fails with kInternal on a duplicate primary key. Update* and
  // Delete* return false when no row of that shop matched.
  virtual Status InsertShop(const Shop& s) = 0;
  virtual Result<bool> UpdateShop(const Shop& s) = 0;

  virtual Status InsertApiKey(const ApiKey& k) = 0;
  virtual Result<bool> RevokeApiKey(const std::string& shopId, const std::string& keyId, Millis at) = 0;
  // Replaces the permission mask (and clears `legacy`) of a key that is not revoked.
  virtual Result<bool> UpdateApiKeyPermissions(const std::string& shopId, const std::string& keyId,
                                               std::uint32_t permissions) = 0;

  virtual Status InsertMember(const Member& m) = 0;
  virtual Result<bool> UpdateMember(const Member& m) = 0;

  virtual Status InsertCustomer(const Customer& c) = 0;
  virtual Result<bool> UpdateCustomer(const Customer& c) = 0;

  // The writes of what a conversation's customer sees (its row, its
  // messages, its typing) are not virtual: each records the conversation in
  // writtenConversations() and then calls the backend's Do* method, so no
  // write of them can leave the long-poll waiters asleep.
  //
  // Assigns c.pgConvoId when c.inNewDatastore and it is unset. Tags are written too.
  Status InsertConversation(Conversation& c) {
    Wrote(c.id);
    return DoInsertConversation(c);
  }
  // Writes every column except tags (see ReplaceConversationTags).
  Result<bool> UpdateConversation(const Conversation& c) {
    Wrote(c.id);
    return DoUpdateConversation(c);
  }
  virtual Status ReplaceConversationTags(const std::string& shopId, const std::string& conversationId,
                                         const std::vector<std::string>& tags) = 0;

  // Assigns m.seq.
  Status InsertMessage(Message& m) {
    Wrote(m.conversationId);
    return DoInsertMessage(m);
  }
  Result<bool> UpdateMessage(const Message& m) {
    Wrote(m.conversationId);
    return DoUpdateMessage(m);
  }

  virtual Status InsertNote(const Note& n) = 0;
  virtual Result<bool> UpdateNote(const Note& n) = 0;
  virtual Result<bool> DeleteNote(const std::string& shopId, const std::string& conversationId, const std::string& noteId) = 0;

  virtual Status InsertAttribute(const Attribute& a) = 0;
  virtual Result<bool> UpdateAttribute(const Attribute& a) = 0;
  virtual Result<bool> DeleteAttribute(const std::string& shopId, const std::string& conversationId,
                                       const std::string& attributeId) = 0;

  // Keeps at most `keep` most recent pages for the conversation.
  virtual Status InsertBrowsedPage(const std::string& shopId, const std::string& conversationId, const BrowsedPage& p,
                                   int keep) = 0;

  virtual Status PutSummary(const std::string& shopId, const Summary& s) = 0;
  Status PutTyping(const std::string& shopId, const TypingState& t) {
    Wrote(t.conversationId);
    return DoPutTyping(shopId, t);
  }

  virtual Status InsertSession(const AdminSession& s) = 0;
  virtual Status DeleteSession(const std::string& tokenHash) = 0;

  virtual Status AppendEvent(const Event& e) = 0;

  // ---- Webhooks ----
  virtual Status InsertSubscription(const WebhookSubscription& s) = 0;
  virtual Result<bool> UpdateSubscription(const WebhookSubscription& s) = 0;
  // Also removes its deliveries and attempt log.
  virtual Result<bool> DeleteSubscription(const std::string& shopId, const std::string& subscriptionId) = 0;
  virtual Status InsertDelivery(const WebhookDelivery& d) = 0;
  virtual Result<bool> UpdateDelivery(const WebhookDelivery& d) = 0;
  // Leases a delivery to the caller until `leaseUntil` when it is still
  // pending, due and unleased at `now`, and no other delivery of its
  // subscription holds a live lease; false otherwise (someone else has it).
  virtual Result<bool> ClaimDelivery(const std::string& shopId, const std::string& deliveryId, Millis now,
                                     Millis leaseUntil) = 0;
  // Marks every pending delivery of the subscription "cancelled" (a paused or
  // disabled subscription sends nothing it queued before). Returns how many.
  virtual Result<std::int64_t> CancelPendingDeliveries(const std::string& shopId,
                                                       const std::string& subscriptionId) = 0;
  // Appends to the attempt log, keeping the newest `keep` of that subscription.
  virtual Status InsertAttempt(const DeliveryAttempt& a, int keep) = 0;

  // ---- Store knowledge ----
  // Inserts or replaces the item (shopId, kind, id) with its search text and
  // its lookup keys (replacing the old keys).
  virtual Status PutCatalogItem(const CatalogItem& item, const std::vector<std::string>& keys) = 0;
  // Also removes its keys and its children (items whose parentId is its id).
  virtual Result<bool> DeleteCatalogItem(const std::string& shopId, const std::string& kind, const std::string& id) = 0;
  virtual Status PutShopDocument(const std::string& shopId, const std::string& name, const std::string& json) = 0;
  // ---- Storefront visitor sessions (defaults: kInternal, as above) ----
  virtual Status InsertVisitorSession(const VisitorSession& s) {
    (void)s;
    return Error{ErrorCode::kInternal, "this store does not keep storefront sessions"};
  }
  // Writes every field but id, shopId and tokenHash.
  virtual Result<bool> UpdateVisitorSession(const VisitorSession& s) {
    (void)s;
    return Error{ErrorCode::kInternal, "this store does not keep storefront sessions"};
  }
  // ---- Uploaded files' records (defaults: kInternal, as above) ----
  virtual Status InsertFile(const FileRecord& f) {
    (void)f;
    return Error{ErrorCode::kInternal, "this store does not keep files"};
  }
  virtual Result<bool> DeleteFile(const std::string& shopId, const std::string& fileId) {
    (void)shopId, (void)fileId;
    return Error{ErrorCode::kInternal, "this store does not keep files"};
  }
  // Removes the shop's records of one kind; returns how many.
  virtual Result<std::int64_t> DeleteFilesOfKind(const std::string& shopId, const std::string& kind) {
    (void)shopId, (void)kind;
    return Error{ErrorCode::kInternal, "this store does not keep files"};
  }
  // ---- Summary jobs (defaults: kInternal, as above) ----
  // Inserts the conversation's job or replaces it whole (one per conversation).
  virtual Status PutSummaryJob(const SummaryJob& j) {
    (void)j;
    return Error{ErrorCode::kInternal, "this store does not keep summary jobs"};
  }
  // Leases job `jobId` to the caller until `leaseUntil` when it is still the
  // conversation's job, due and unleased at `now`; false otherwise (gone,
  // replaced, or someone else has it).
  virtual Result<bool> ClaimSummaryJob(const std::string& shopId, const std::string& conversationId,
                                       const std::string& jobId, Millis now, Millis leaseUntil) {
    (void)shopId, (void)conversationId, (void)jobId, (void)now, (void)leaseUntil;
    return Error{ErrorCode::kInternal, "this store does not keep summary jobs"};
  }
  // Removes the conversation's job; with a non-empty `jobId`, only when it is that job.
  virtual Result<bool> DeleteSummaryJob(const std::string& shopId, const std::string& conversationId,
                                        const std::string& jobId) {
    (void)shopId, (void)conversationId, (void)jobId;
    return Error{ErrorCode::kInternal, "this store does not keep summary jobs"};
  }
  // ---- Privacy, platform requests, channel integrations (defaults: kInternal) ----
  // Removes the contact row only; its conversations are the caller's business.
  virtual Result<bool> DeleteCustomer(const std::string& shopId, const std::string& customerId) {
    (void)shopId, (void)customerId;
    return NotKept();
  }
  // Returns how many pages were removed.
  virtual Result<std::int64_t> DeleteBrowsedPages(const std::string& shopId, const std::string& conversationId) {
    (void)shopId, (void)conversationId;
    return NotKept();
  }
  // Admin sessions of the store (of one member when `memberId` is not empty).
  // Returns how many were removed.
  virtual Result<std::int64_t> DeleteSessions(const std::string& shopId, const std::string& memberId) {
    (void)shopId, (void)memberId;
    return NotKept();
  }
  virtual Result<bool> DeleteMember(const std::string& shopId, const std::string& memberId) {
    (void)shopId, (void)memberId;
    return NotKept();
  }
  // Inserts or replaces (shopId, channel).
  virtual Status PutChannelIntegration(const ChannelIntegration& i) {
    (void)i;
    return NotKept();
  }
  virtual Status InsertPlatformRequest(const PlatformRequest& r) {
    (void)r;
    return NotKept();
  }
  // Fails with kInternal when (shopId, id) exists.
  virtual Status InsertDataRequest(const DataRequest& d) {
    (void)d;
    return NotKept();
  }
  // Replaces customerJson, contacts and exportJson of (shopId, id); false
  // when there is no such request.
  virtual Result<bool> UpdateDataRequest(const DataRequest& d) {
    (void)d;
    return NotKept();
  }
  // Replaces the data of the shop's event `eventId` (a redact rewrites what
  // is still to be delivered); its id, type, conversation and time stay.
  // False when the shop has no such event.
  virtual Result<bool> UpdateEventData(const std::string& shopId, const std::string& eventId,
                                       const std::string& dataJson) {
    (void)shopId, (void)eventId, (void)dataJson;
    return NotKept();
  }

  // The ids (Conversation::id) of the conversations this writer wrote
  // through the methods above, each once, in first-write order. Whoever runs
  // the transaction tells their observers after it commits
  // (ChatService::SetConversationObserver).
  const std::vector<std::string>& writtenConversations() const { return written_; }

 protected:
  virtual Status DoInsertConversation(Conversation& c) = 0;
  virtual Result<bool> DoUpdateConversation(const Conversation& c) = 0;
  virtual Status DoInsertMessage(Message& m) = 0;
  virtual Result<bool> DoUpdateMessage(const Message& m) = 0;
  virtual Status DoPutTyping(const std::string& shopId, const TypingState& t) = 0;

 private:
  void Wrote(const std::string& conversationId) {
    // A transaction writes few conversations, usually one many times.
    if (!written_.empty() && written_.back() == conversationId) return;
    if (std::find(written_.begin(), written_.end(), conversationId) != written_.end()) return;
    written_.push_back(conversationId);
  }
  std::vector<std::string> written_;
};

// Thread-safe.
class Store {
 public:
  virtual ~Store() = default;
  // Runs fn against a consistent snapshot. fn's Status is returned.
  virtual Status Read(const std::function<Status(StoreReader&)>& fn) = 0;
  // Runs fn in one write transaction: committed if fn returns ok, rolled back
  // otherwise (fn's error is returned). Writers are serialized.
  virtual Status Write(const std::function<Status(StoreWriter&)>& fn) = 0;
  // True when the database answers and its schema is current.
  virtual bool Healthy() = 0;
};

}  // namespace livechat
