// The Store's record operations as SQL on one connection, written once for
// both backends: SQLite and PostgreSQL run the same statements (standard
// SQL both accept: upserts, RETURNING, row values, CAST), and a backend's
// dialect `D` supplies its connection and statement types and the few
// fragments that differ (D::kRowOrder, D::kTagsOf, D::kEventOfCustomer,
// D::kDeleteCatalogText, the clock lease and due times are kept on
// (D::ToLeaseClock, D::FromLeaseClock), and the
// conversation search's D::kConversationHits and D::BindSearchWords).
// The definitions are in sql_queries_impl.h, compiled once per backend
// (sql_queries_impl.h, pg_queries.cc), each of which adds its own full-text
// search of the store's knowledge.
//
// The store wraps a transaction around each use; this class neither begins
// nor ends one.
#pragma once

#include "livechat/store.h"

namespace livechat::storage {

template <class D>
class SqlQueries : public StoreWriter {
 public:
  using Connection = typename D::Connection;
  using Statement = typename D::Statement;

  explicit SqlQueries(Connection& conn) : conn_(conn) {}

  Result<std::optional<Shop>> GetShop(const std::string& shopId) override;
  Result<std::optional<Shop>> GetShopByAppId(const std::string& appId) override;
  Result<std::optional<ApiKey>> FindApiKeyByHash(const std::string& keyHash) override;
  Result<std::vector<ApiKey>> ListApiKeys(const std::string& shopId) override;
  Result<std::optional<Member>> GetMember(const std::string& shopId, const std::string& memberId) override;
  Result<std::vector<Member>> ListMembers(const std::string& shopId) override;
  Result<std::vector<Member>> FindMembersByEmail(const std::string& email) override;
  Result<std::optional<Customer>> GetCustomer(const std::string& shopId, const std::string& customerId) override;
  Result<std::optional<Customer>> FindCustomerByEmail(const std::string& shopId, const std::string& email) override;
  Result<std::vector<Customer>> ListCustomers(const CustomerQuery& q) override;
  Result<std::int64_t> CountCustomers(const std::string& shopId) override;
  Result<std::optional<Conversation>> FindConversation(const std::string& shopId, const std::string& anyId) override;
  Result<std::optional<std::string>> FindConversationId(const std::string& shopId, const std::string& anyId) override;
  Result<std::vector<Conversation>> ListConversations(const ConversationQuery& q) override;
  Result<std::optional<std::vector<ConversationVersion>>> ListConversationVersions(const ConversationQuery& q) override;
  Result<std::vector<Conversation>> ListConversationsByPgId(const std::string& shopId,
                                                            const std::vector<std::int64_t>& pgConvoIds) override;
  Result<std::vector<ConversationHit>> SearchConversations(const ConversationQuery& q,
                                                           const ConversationSearch& s) override;
  Result<std::vector<Conversation>> ListLegacyConversations(const std::string& shopId, int limit) override;
  Result<std::int64_t> CountLegacyConversations(const std::string& shopId) override;
  Result<std::vector<Message>> ListMessages(const MessageQuery& q) override;
  Result<std::optional<std::vector<MessageVersion>>> ListMessageVersions(const MessageQuery& q) override;
  Result<std::vector<Message>> ListMessagesBySeq(const std::string& shopId, const std::string& conversationId,
                                                 const std::vector<std::int64_t>& seqs) override;
  Result<std::optional<Message>> GetMessage(const std::string& shopId, const std::string& conversationId,
                                            const std::string& idOrSeq) override;
  Result<InboxCounts> CountInbox(const std::string& shopId, const std::string& memberId) override;
  Result<std::vector<TagCount>> ListTagCatalog(const std::string& shopId) override;
  Result<std::vector<Note>> ListNotes(const std::string& shopId, const std::string& conversationId) override;
  Result<std::optional<Note>> GetNote(const std::string& shopId, const std::string& conversationId,
                                      const std::string& noteId) override;
  Result<std::vector<Attribute>> ListAttributes(const std::string& shopId, const std::string& conversationId) override;
  Result<std::optional<Attribute>> GetAttribute(const std::string& shopId, const std::string& conversationId,
                                                const std::string& attributeId) override;
  Result<std::optional<Attribute>> FindAttributeByName(const std::string& shopId, const std::string& conversationId,
                                                       const std::string& name) override;
  Result<std::vector<BrowsedPage>> ListBrowsedPages(const std::string& shopId, const std::string& conversationId,
                                                    Millis sinceMillis, int limit) override;
  Result<std::optional<Summary>> GetSummary(const std::string& shopId, const std::string& conversationId) override;
  Result<std::vector<TypingState>> ListTyping(const std::string& shopId, const std::string& conversationId) override;
  Result<std::optional<AdminSession>> GetSession(const std::string& tokenHash) override;
  Result<std::vector<Event>> ListEvents(const std::string& shopId, int limit) override;

  Status InsertShop(const Shop& s) override;
  Result<bool> UpdateShop(const Shop& s) override;
  Status InsertApiKey(const ApiKey& k) override;
  Result<bool> RevokeApiKey(const std::string& shopId, const std::string& keyId, Millis at) override;
  Result<bool> UpdateApiKeyPermissions(const std::string& shopId, const std::string& keyId,
                                       std::uint32_t permissions) override;
  Status InsertMember(const Member& m) override;
  Result<bool> UpdateMember(const Member& m) override;
  Status InsertCustomer(const Customer& c) override;
  Result<bool> UpdateCustomer(const Customer& c) override;
  Status ReplaceConversationTags(const std::string& shopId, const std::string& conversationId,
                                 const std::vector<std::string>& tags) override;
  Status InsertNote(const Note& n) override;
  Result<bool> UpdateNote(const Note& n) override;
  Result<bool> DeleteNote(const std::string& shopId, const std::string& conversationId,
                          const std::string& noteId) override;
  Status InsertAttribute(const Attribute& a) override;
  Result<bool> UpdateAttribute(const Attribute& a) override;
  Result<bool> DeleteAttribute(const std::string& shopId, const std::string& conversationId,
                               const std::string& attributeId) override;
  Status InsertBrowsedPage(const std::string& shopId, const std::string& conversationId, const BrowsedPage& p,
                           int keep) override;
  Status PutSummary(const std::string& shopId, const Summary& s) override;
  Status InsertSession(const AdminSession& s) override;
  Status DeleteSession(const std::string& tokenHash) override;
  Status AppendEvent(const Event& e) override;

  // Webhooks (sql_queries_impl.h).
  Result<std::optional<Event>> GetEvent(const std::string& shopId, const std::string& eventId) override;
  Result<std::vector<WebhookSubscription>> ListSubscriptions(const std::string& shopId) override;
  Result<std::optional<WebhookSubscription>> GetSubscription(const std::string& shopId,
                                                             const std::string& subscriptionId) override;
  Result<std::optional<WebhookSubscription>> FindSubscriptionByUrl(const std::string& shopId,
                                                                   const std::string& url) override;
  Result<std::optional<WebhookSubscription>> FindSubscriptionBySecretHash(const std::string& secretHash) override;
  Result<std::optional<WebhookDelivery>> GetDelivery(const std::string& shopId, const std::string& deliveryId) override;
  Result<std::vector<WebhookDelivery>> ListDueDeliveries(Millis now, int limit) override;
  Result<std::vector<WebhookDelivery>> ListDeliveries(const std::string& shopId, const std::string& subscriptionId,
                                                      int limit) override;
  Result<std::vector<DeliveryAttempt>> ListAttempts(const std::string& shopId, const std::string& subscriptionId,
                                                    int limit) override;
  Result<OutboxStats> GetOutboxStats() override;
  Status InsertSubscription(const WebhookSubscription& s) override;
  Result<bool> UpdateSubscription(const WebhookSubscription& s) override;
  Result<bool> DeleteSubscription(const std::string& shopId, const std::string& subscriptionId) override;
  Result<bool> UpdateDelivery(const WebhookDelivery& d) override;
  Result<std::vector<WebhookDelivery>> ClaimDeliveries(const std::string& shopId, const std::string& subscriptionId,
                                                       Millis now, Millis leaseUntil, int max) override;
  Result<std::int64_t> ReleaseDeliveries(const std::string& shopId, const std::vector<std::string>& deliveryIds,
                                         Millis leaseUntil) override;
  Result<std::int64_t> CancelPendingDeliveries(const std::string& shopId, const std::string& subscriptionId) override;
  Status InsertAttempt(const DeliveryAttempt& a, int keep) override;
  // Storefront visitor sessions (sql_queries_impl.h).
  Result<std::optional<VisitorSession>> FindVisitorSession(const std::string& tokenHash) override;
  Status InsertVisitorSession(const VisitorSession& s) override;
  Result<bool> UpdateVisitorSession(const VisitorSession& s) override;
  // Uploaded files' records (sql_queries_impl.h).
  Result<std::optional<FileRecord>> GetFile(const std::string& shopId, const std::string& fileId) override;
  Result<std::optional<FileRecord>> FindFileById(const std::string& fileId) override;
  Result<std::vector<FileRecord>> ListFiles(const std::string& shopId, const std::string& kind) override;
  Status InsertFile(const FileRecord& f) override;
  Result<bool> DeleteFile(const std::string& shopId, const std::string& fileId) override;
  Result<std::int64_t> DeleteFilesOfKind(const std::string& shopId, const std::string& kind) override;
  // Summary jobs (sql_queries_impl.h).
  Result<std::optional<SummaryJob>> GetSummaryJob(const std::string& shopId,
                                                  const std::string& conversationId) override;
  Result<std::vector<SummaryJob>> ListDueSummaryJobs(Millis now, int limit) override;
  Result<SummaryQueueStats> GetSummaryQueueStats() override;
  Status PutSummaryJob(const SummaryJob& j) override;
  Result<bool> ClaimSummaryJob(const std::string& shopId, const std::string& conversationId, const std::string& jobId,
                               Millis now, Millis leaseUntil) override;
  Result<bool> DeleteSummaryJob(const std::string& shopId, const std::string& conversationId,
                                const std::string& jobId) override;
  // Idempotency-Key records (sql_queries_impl.h).
  Result<std::optional<IdempotencyRecord>> GetIdempotencyRecord(const std::string& shopId, const std::string& scope,
                                                                const std::string& key) override;
  Status PutIdempotencyRecord(const IdempotencyRecord& r) override;
  Result<bool> DeleteIdempotencyRecord(const std::string& shopId, const std::string& scope,
                                       const std::string& key) override;
  Result<std::int64_t> PurgeIdempotencyRecords(Millis now, int limit) override;
  Result<std::vector<VisitorSession>> ListVisitorSessionsOfCustomer(const std::string& shopId,
                                                                    const std::string& customerId) override;

  // Privacy, platform requests, channel integrations (sql_queries_impl.h and
  // beside the records they touch).
  Result<std::vector<Customer>> FindCustomersByShopifyId(const std::string& shopId,
                                                         const std::string& shopifyId) override;
  Result<std::vector<Customer>> ListCustomersByEmail(const std::string& shopId, const std::string& email) override;
  Result<std::vector<Customer>> ListCustomersByPhone(const std::string& shopId, const std::string& phoneKey) override;
  Result<std::vector<Event>> ListEventsOfCustomer(const std::string& shopId, const std::string& customerId) override;
  Result<std::vector<Event>> ListEventsAfter(const std::string& shopId, std::int64_t afterSeq,
                                             const std::vector<std::string>& types, int limit) override;
  Result<std::int64_t> GetEventsPrunedThrough() override;
  Result<std::int64_t> GetLastEventSeq(const std::string& shopId) override;
  Result<std::int64_t> PruneEvents(Millis before, int limit) override;
  Result<std::vector<Conversation>> ListConversationsOfCustomer(const std::string& shopId,
                                                                const std::string& customerId) override;
  Result<std::vector<ChannelIntegration>> ListChannelIntegrations(const std::string& shopId) override;
  Result<std::optional<PlatformRequest>> FindPlatformRequest(const std::string& shopId,
                                                             const std::string& requestKey) override;
  Result<std::vector<PlatformRequest>> ListPlatformRequests(const std::string& shopId, int limit) override;
  Result<std::optional<DataRequest>> GetDataRequest(const std::string& shopId, const std::string& id) override;
  Result<std::vector<DataRequest>> ListDataRequests(const std::string& shopId) override;
  Result<bool> DeleteCustomer(const std::string& shopId, const std::string& customerId) override;
  Result<std::int64_t> DeleteBrowsedPages(const std::string& shopId, const std::string& conversationId) override;
  Result<std::int64_t> DeleteSessions(const std::string& shopId, const std::string& memberId) override;
  Result<bool> DeleteMember(const std::string& shopId, const std::string& memberId) override;
  Status PutChannelIntegration(const ChannelIntegration& i) override;
  Status InsertPlatformRequest(const PlatformRequest& r) override;
  Status InsertDataRequest(const DataRequest& d) override;
  Result<bool> UpdateDataRequest(const DataRequest& d) override;
  Result<bool> UpdateEventData(const std::string& shopId, const std::string& eventId,
                               const std::string& dataJson) override;

  // Store knowledge: items, keys and documents; the full-text search is the
  // backend's (Search below).
  Result<std::optional<CatalogItem>> GetCatalogItem(const std::string& shopId, const std::string& kind,
                                                    const std::string& id) override;
  Result<std::optional<CatalogItem>> FindCatalogItemByKey(const std::string& shopId, const std::string& kind,
                                                          const std::string& key) override;
  Result<std::vector<CatalogItem>> ListCatalogItems(const std::string& shopId, const std::string& kind,
                                                    const std::string& parentId, const std::string& afterId,
                                                    int limit) override;
  // Children (a product's FAQ entries) go with their parent; the backend's
  // full-text row with it (D::kDeleteCatalogText).
  Result<bool> DeleteCatalogItem(const std::string& shopId, const std::string& kind, const std::string& id) override;
  Result<std::vector<CatalogHit>> SearchCatalog(const std::string& shopId, const std::string& kind,
                                                const std::vector<std::string>& terms, int limit) override;
  Result<std::vector<CatalogHit>> SearchCatalogChildren(const std::string& shopId, const std::string& kind,
                                                        const std::string& parentId,
                                                        const std::vector<std::string>& terms, int limit) override;
  Result<std::int64_t> CountCatalogItems(const std::string& shopId, const std::string& kind) override;
  Result<std::optional<std::string>> GetShopDocument(const std::string& shopId, const std::string& name) override;
  Status PutShopDocument(const std::string& shopId, const std::string& name, const std::string& json) override;

 protected:
  // The store's items of `kind` (children of `parentId` when not empty)
  // that match `terms`, best first, at most `limit`.
  virtual Result<std::vector<CatalogHit>> Search(const std::string& shopId, const std::string& kind,
                                                 const std::string& parentId, const std::vector<std::string>& terms,
                                                 int limit) = 0;

  Status DoInsertConversation(Conversation& c) override;
  Result<bool> DoUpdateConversation(const Conversation& c, const Conversation* before) override;
  Status DoInsertMessage(Message& m) override;
  Result<bool> DoUpdateMessage(const Message& m) override;
  Status DoPutTyping(const std::string& shopId, const TypingState& t) override;
  Status DoInsertDelivery(const WebhookDelivery& d) override;

 protected:
  // Runs an UPDATE/DELETE already bound in `st`; true when a row matched.
  Result<bool> RunChanged(Statement& st);
  // Lease and due times cross the backend's boundary here and nowhere else
  // (livechat/postgres_store.h, LeaseClock): every such time is bound
  // through ToLease and read through FromLease, and every record that holds
  // them is read back through OnCallerClock.
  Millis ToLease(Millis t) { return D::ToLeaseClock(conn_, t); }
  Millis FromLease(Millis t) { return D::FromLeaseClock(conn_, t); }
  void OnCallerClock(WebhookDelivery& d);
  void OnCallerClock(SummaryJob& j);
  void OnCallerClock(IdempotencyRecord& r);
  template <class T>
  Result<std::optional<T>> OnCallerClock(Result<std::optional<T>> r) {
    if (r.ok() && r->has_value()) OnCallerClock(**r);
    return r;
  }
  template <class T>
  Result<std::vector<T>> OnCallerClock(Result<std::vector<T>> r) {
    if (r.ok())
      for (T& v : *r) OnCallerClock(v);
    return r;
  }
  Status WriteTagRows(const std::string& shopId, const std::string& conversationId,
                      const std::vector<std::string>& tags);

  Connection& conn_;
};

}  // namespace livechat::storage
