// A StoreWriter that forwards every call to a real one and fails the one
// named call (LevelDB's EnvWrapper pattern): a fault injected in the middle
// of a ChatService write, to prove the write rolls back as a whole.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "livechat/store.h"

namespace livechat::testing {

class FaultyWriter final : public StoreWriter {
 public:
  // `failOn`: the method name whose `nth` call (1-based, counted per Write) fails.
  FaultyWriter(StoreWriter& inner, std::string failOn, int nth) : inner_(inner), failOn_(std::move(failOn)), nth_(nth) {}
  bool failed() const { return failed_; }

  Result<std::optional<Shop>> GetShop(const std::string& shopId) override {
    LC_RETURN_IF_ERROR(Gate("GetShop"));
    return inner_.GetShop(shopId);
  }
  Result<std::optional<Shop>> GetShopByAppId(const std::string& appId) override {
    LC_RETURN_IF_ERROR(Gate("GetShopByAppId"));
    return inner_.GetShopByAppId(appId);
  }
  Result<std::optional<ApiKey>> FindApiKeyByHash(const std::string& keyHash) override {
    LC_RETURN_IF_ERROR(Gate("FindApiKeyByHash"));
    return inner_.FindApiKeyByHash(keyHash);
  }
  Result<std::vector<ApiKey>> ListApiKeys(const std::string& shopId) override {
    LC_RETURN_IF_ERROR(Gate("ListApiKeys"));
    return inner_.ListApiKeys(shopId);
  }
  Result<std::optional<Member>> GetMember(const std::string& shopId, const std::string& memberId) override {
    LC_RETURN_IF_ERROR(Gate("GetMember"));
    return inner_.GetMember(shopId, memberId);
  }
  Result<std::vector<Member>> ListMembers(const std::string& shopId) override {
    LC_RETURN_IF_ERROR(Gate("ListMembers"));
    return inner_.ListMembers(shopId);
  }
  Result<std::vector<Member>> FindMembersByEmail(const std::string& email) override {
    LC_RETURN_IF_ERROR(Gate("FindMembersByEmail"));
    return inner_.FindMembersByEmail(email);
  }
  Result<std::optional<Customer>> GetCustomer(const std::string& shopId, const std::string& customerId) override {
    LC_RETURN_IF_ERROR(Gate("GetCustomer"));
    return inner_.GetCustomer(shopId, customerId);
  }
  Result<std::optional<Customer>> FindCustomerByEmail(const std::string& shopId, const std::string& email) override {
    LC_RETURN_IF_ERROR(Gate("FindCustomerByEmail"));
    return inner_.FindCustomerByEmail(shopId, email);
  }
  Result<std::vector<Customer>> ListCustomers(const CustomerQuery& q) override {
    LC_RETURN_IF_ERROR(Gate("ListCustomers"));
    return inner_.ListCustomers(q);
  }
  Result<std::int64_t> CountCustomers(const std::string& shopId) override {
    LC_RETURN_IF_ERROR(Gate("CountCustomers"));
    return inner_.CountCustomers(shopId);
  }
  Result<std::optional<Conversation>> FindConversation(const std::string& shopId, const std::string& anyId) override {
    LC_RETURN_IF_ERROR(Gate("FindConversation"));
    return inner_.FindConversation(shopId, anyId);
  }
  Result<std::vector<Conversation>> ListConversations(const ConversationQuery& q) override {
    LC_RETURN_IF_ERROR(Gate("ListConversations"));
    return inner_.ListConversations(q);
  }
  Result<std::optional<std::vector<ConversationVersion>>> ListConversationVersions(const ConversationQuery& q) override {
    LC_RETURN_IF_ERROR(Gate("ListConversationVersions"));
    return inner_.ListConversationVersions(q);
  }
  Result<std::vector<Conversation>> ListConversationsByPgId(const std::string& shopId,
                                                            const std::vector<std::int64_t>& ids) override {
    LC_RETURN_IF_ERROR(Gate("ListConversationsByPgId"));
    return inner_.ListConversationsByPgId(shopId, ids);
  }
  Result<std::vector<ConversationHit>> SearchConversations(const ConversationQuery& q,
                                                           const ConversationSearch& s) override {
    LC_RETURN_IF_ERROR(Gate("SearchConversations"));
    return inner_.SearchConversations(q, s);
  }
  Result<std::vector<Message>> ListMessages(const MessageQuery& q) override {
    LC_RETURN_IF_ERROR(Gate("ListMessages"));
    return inner_.ListMessages(q);
  }
  Result<std::optional<std::vector<MessageVersion>>> ListMessageVersions(const MessageQuery& q) override {
    LC_RETURN_IF_ERROR(Gate("ListMessageVersions"));
    return inner_.ListMessageVersions(q);
  }
  Result<std::vector<Message>> ListMessagesBySeq(const std::string& shopId, const std::string& conversationId,
                                                 const std::vector<std::int64_t>& seqs) override {
    LC_RETURN_IF_ERROR(Gate("ListMessagesBySeq"));
    return inner_.ListMessagesBySeq(shopId, conversationId, seqs);
  }
  Result<std::optional<Message>> GetMessage(const std::string& shopId, const std::string& conversationId, const std::string& idOrSeq) override {
    LC_RETURN_IF_ERROR(Gate("GetMessage"));
    return inner_.GetMessage(shopId, conversationId, idOrSeq);
  }
  Result<InboxCounts> CountInbox(const std::string& shopId, const std::string& memberId) override {
    LC_RETURN_IF_ERROR(Gate("CountInbox"));
    return inner_.CountInbox(shopId, memberId);
  }
  Result<std::vector<TagCount>> ListTagCatalog(const std::string& shopId) override {
    LC_RETURN_IF_ERROR(Gate("ListTagCatalog"));
    return inner_.ListTagCatalog(shopId);
  }
  Result<std::vector<Note>> ListNotes(const std::string& shopId, const std::string& conversationId) override {
    LC_RETURN_IF_ERROR(Gate("ListNotes"));
    return inner_.ListNotes(shopId, conversationId);
  }
  Result<std::optional<Note>> GetNote(const std::string& shopId, const std::string& conversationId, const std::string& noteId) override {
    LC_RETURN_IF_ERROR(Gate("GetNote"));
    return inner_.GetNote(shopId, conversationId, noteId);
  }
  Result<std::vector<Attribute>> ListAttributes(const std::string& shopId, const std::string& conversationId) override {
    LC_RETURN_IF_ERROR(Gate("ListAttributes"));
    return inner_.ListAttributes(shopId, conversationId);
  }
  Result<std::optional<Attribute>> GetAttribute(const std::string& shopId, const std::string& conversationId, const std::string& attributeId) override {
    LC_RETURN_IF_ERROR(Gate("GetAttribute"));
    return inner_.GetAttribute(shopId, conversationId, attributeId);
  }
  Result<std::optional<Attribute>> FindAttributeByName(const std::string& shopId, const std::string& conversationId, const std::string& name) override {
    LC_RETURN_IF_ERROR(Gate("FindAttributeByName"));
    return inner_.FindAttributeByName(shopId, conversationId, name);
  }
  Result<std::vector<BrowsedPage>> ListBrowsedPages(const std::string& shopId, const std::string& conversationId, Millis sinceMillis, int limit) override {
    LC_RETURN_IF_ERROR(Gate("ListBrowsedPages"));
    return inner_.ListBrowsedPages(shopId, conversationId, sinceMillis, limit);
  }
  Result<std::optional<Summary>> GetSummary(const std::string& shopId, const std::string& conversationId) override {
    LC_RETURN_IF_ERROR(Gate("GetSummary"));
    return inner_.GetSummary(shopId, conversationId);
  }
  Result<std::vector<TypingState>> ListTyping(const std::string& shopId, const std::string& conversationId) override {
    LC_RETURN_IF_ERROR(Gate("ListTyping"));
    return inner_.ListTyping(shopId, conversationId);
  }
  Result<std::optional<AdminSession>> GetSession(const std::string& tokenHash) override {
    LC_RETURN_IF_ERROR(Gate("GetSession"));
    return inner_.GetSession(tokenHash);
  }
  Result<std::vector<Event>> ListEvents(const std::string& shopId, int limit) override {
    LC_RETURN_IF_ERROR(Gate("ListEvents"));
    return inner_.ListEvents(shopId, limit);
  }
  Result<std::optional<Event>> GetEvent(const std::string& shopId, const std::string& eventId) override {
    LC_RETURN_IF_ERROR(Gate("GetEvent"));
    return inner_.GetEvent(shopId, eventId);
  }
  Result<std::vector<WebhookSubscription>> ListSubscriptions(const std::string& shopId) override {
    LC_RETURN_IF_ERROR(Gate("ListSubscriptions"));
    return inner_.ListSubscriptions(shopId);
  }
  Result<std::optional<WebhookSubscription>> GetSubscription(const std::string& shopId, const std::string& subscriptionId) override {
    LC_RETURN_IF_ERROR(Gate("GetSubscription"));
    return inner_.GetSubscription(shopId, subscriptionId);
  }
  Result<std::optional<WebhookSubscription>> FindSubscriptionByUrl(const std::string& shopId, const std::string& url) override {
    LC_RETURN_IF_ERROR(Gate("FindSubscriptionByUrl"));
    return inner_.FindSubscriptionByUrl(shopId, url);
  }
  Result<std::optional<WebhookSubscription>> FindSubscriptionBySecretHash(const std::string& secretHash) override {
    LC_RETURN_IF_ERROR(Gate("FindSubscriptionBySecretHash"));
    return inner_.FindSubscriptionBySecretHash(secretHash);
  }
  Result<std::optional<WebhookDelivery>> GetDelivery(const std::string& shopId, const std::string& deliveryId) override {
    LC_RETURN_IF_ERROR(Gate("GetDelivery"));
    return inner_.GetDelivery(shopId, deliveryId);
  }
  Result<std::vector<WebhookDelivery>> ListDueDeliveries(Millis now, int limit) override {
    LC_RETURN_IF_ERROR(Gate("ListDueDeliveries"));
    return inner_.ListDueDeliveries(now, limit);
  }
  Result<std::vector<WebhookDelivery>> ListDeliveries(const std::string& shopId, const std::string& subscriptionId, int limit) override {
    LC_RETURN_IF_ERROR(Gate("ListDeliveries"));
    return inner_.ListDeliveries(shopId, subscriptionId, limit);
  }
  Result<std::vector<DeliveryAttempt>> ListAttempts(const std::string& shopId, const std::string& subscriptionId, int limit) override {
    LC_RETURN_IF_ERROR(Gate("ListAttempts"));
    return inner_.ListAttempts(shopId, subscriptionId, limit);
  }
  Result<StoreReader::OutboxStats> GetOutboxStats() override {
    LC_RETURN_IF_ERROR(Gate("GetOutboxStats"));
    return inner_.GetOutboxStats();
  }
  Status InsertShop(const Shop& s) override {
    LC_RETURN_IF_ERROR(Gate("InsertShop"));
    return inner_.InsertShop(s);
  }
  Result<bool> UpdateShop(const Shop& s) override {
    LC_RETURN_IF_ERROR(Gate("UpdateShop"));
    return inner_.UpdateShop(s);
  }
  Status InsertApiKey(const ApiKey& k) override {
    LC_RETURN_IF_ERROR(Gate("InsertApiKey"));
    return inner_.InsertApiKey(k);
  }
  Result<bool> RevokeApiKey(const std::string& shopId, const std::string& keyId, Millis at) override {
    LC_RETURN_IF_ERROR(Gate("RevokeApiKey"));
    return inner_.RevokeApiKey(shopId, keyId, at);
  }
  Result<bool> UpdateApiKeyPermissions(const std::string& shopId, const std::string& keyId,
                                       std::uint32_t permissions) override {
    LC_RETURN_IF_ERROR(Gate("UpdateApiKeyPermissions"));
    return inner_.UpdateApiKeyPermissions(shopId, keyId, permissions);
  }
  Status InsertMember(const Member& m) override {
    LC_RETURN_IF_ERROR(Gate("InsertMember"));
    return inner_.InsertMember(m);
  }
  Result<bool> UpdateMember(const Member& m) override {
    LC_RETURN_IF_ERROR(Gate("UpdateMember"));
    return inner_.UpdateMember(m);
  }
  Status InsertCustomer(const Customer& c) override {
    LC_RETURN_IF_ERROR(Gate("InsertCustomer"));
    return inner_.InsertCustomer(c);
  }
  Result<bool> UpdateCustomer(const Customer& c) override {
    LC_RETURN_IF_ERROR(Gate("UpdateCustomer"));
    return inner_.UpdateCustomer(c);
  }
  Status DoInsertConversation(Conversation& c) override {
    LC_RETURN_IF_ERROR(Gate("InsertConversation"));
    return inner_.InsertConversation(c);
  }
  Result<bool> DoUpdateConversation(const Conversation& c, const Conversation* before) override {
    LC_RETURN_IF_ERROR(Gate("UpdateConversation"));
    return before ? inner_.UpdateConversation(c, *before) : inner_.UpdateConversation(c);
  }
  Status ReplaceConversationTags(const std::string& shopId, const std::string& conversationId, const std::vector<std::string>& tags) override {
    LC_RETURN_IF_ERROR(Gate("ReplaceConversationTags"));
    return inner_.ReplaceConversationTags(shopId, conversationId, tags);
  }
  Status DoInsertMessage(Message& m) override {
    LC_RETURN_IF_ERROR(Gate("InsertMessage"));
    return inner_.InsertMessage(m);
  }
  Result<bool> DoUpdateMessage(const Message& m) override {
    LC_RETURN_IF_ERROR(Gate("UpdateMessage"));
    return inner_.UpdateMessage(m);
  }
  Status InsertNote(const Note& n) override {
    LC_RETURN_IF_ERROR(Gate("InsertNote"));
    return inner_.InsertNote(n);
  }
  Result<bool> UpdateNote(const Note& n) override {
    LC_RETURN_IF_ERROR(Gate("UpdateNote"));
    return inner_.UpdateNote(n);
  }
  Result<bool> DeleteNote(const std::string& shopId, const std::string& conversationId, const std::string& noteId) override {
    LC_RETURN_IF_ERROR(Gate("DeleteNote"));
    return inner_.DeleteNote(shopId, conversationId, noteId);
  }
  Status InsertAttribute(const Attribute& a) override {
    LC_RETURN_IF_ERROR(Gate("InsertAttribute"));
    return inner_.InsertAttribute(a);
  }
  Result<bool> UpdateAttribute(const Attribute& a) override {
    LC_RETURN_IF_ERROR(Gate("UpdateAttribute"));
    return inner_.UpdateAttribute(a);
  }
  Result<bool> DeleteAttribute(const std::string& shopId, const std::string& conversationId, const std::string& attributeId) override {
    LC_RETURN_IF_ERROR(Gate("DeleteAttribute"));
    return inner_.DeleteAttribute(shopId, conversationId, attributeId);
  }
  Status InsertBrowsedPage(const std::string& shopId, const std::string& conversationId, const BrowsedPage& p, int keep) override {
    LC_RETURN_IF_ERROR(Gate("InsertBrowsedPage"));
    return inner_.InsertBrowsedPage(shopId, conversationId, p, keep);
  }
  Status PutSummary(const std::string& shopId, const Summary& s) override {
    LC_RETURN_IF_ERROR(Gate("PutSummary"));
    return inner_.PutSummary(shopId, s);
  }
  Result<std::optional<IdempotencyRecord>> GetIdempotencyRecord(const std::string& shopId, const std::string& scope,
                                                                const std::string& key) override {
    LC_RETURN_IF_ERROR(Gate("GetIdempotencyRecord"));
    return inner_.GetIdempotencyRecord(shopId, scope, key);
  }
  Status PutIdempotencyRecord(const IdempotencyRecord& r) override {
    LC_RETURN_IF_ERROR(Gate("PutIdempotencyRecord"));
    return inner_.PutIdempotencyRecord(r);
  }
  Result<bool> DeleteIdempotencyRecord(const std::string& shopId, const std::string& scope,
                                       const std::string& key) override {
    LC_RETURN_IF_ERROR(Gate("DeleteIdempotencyRecord"));
    return inner_.DeleteIdempotencyRecord(shopId, scope, key);
  }
  Result<std::int64_t> PurgeIdempotencyRecords(Millis now, int limit) override {
    LC_RETURN_IF_ERROR(Gate("PurgeIdempotencyRecords"));
    return inner_.PurgeIdempotencyRecords(now, limit);
  }
  Result<std::optional<SummaryJob>> GetSummaryJob(const std::string& shopId, const std::string& conversationId) override {
    LC_RETURN_IF_ERROR(Gate("GetSummaryJob"));
    return inner_.GetSummaryJob(shopId, conversationId);
  }
  Result<std::vector<SummaryJob>> ListDueSummaryJobs(Millis now, int limit) override {
    LC_RETURN_IF_ERROR(Gate("ListDueSummaryJobs"));
    return inner_.ListDueSummaryJobs(now, limit);
  }
  Result<SummaryQueueStats> GetSummaryQueueStats() override {
    LC_RETURN_IF_ERROR(Gate("GetSummaryQueueStats"));
    return inner_.GetSummaryQueueStats();
  }
  Status PutSummaryJob(const SummaryJob& j) override {
    LC_RETURN_IF_ERROR(Gate("PutSummaryJob"));
    return inner_.PutSummaryJob(j);
  }
  Result<bool> ClaimSummaryJob(const std::string& shopId, const std::string& conversationId, const std::string& jobId,
                               Millis now, Millis leaseUntil) override {
    LC_RETURN_IF_ERROR(Gate("ClaimSummaryJob"));
    return inner_.ClaimSummaryJob(shopId, conversationId, jobId, now, leaseUntil);
  }
  Result<bool> DeleteSummaryJob(const std::string& shopId, const std::string& conversationId,
                                const std::string& jobId) override {
    LC_RETURN_IF_ERROR(Gate("DeleteSummaryJob"));
    return inner_.DeleteSummaryJob(shopId, conversationId, jobId);
  }
  Status DoPutTyping(const std::string& shopId, const TypingState& t) override {
    LC_RETURN_IF_ERROR(Gate("PutTyping"));
    return inner_.PutTyping(shopId, t);
  }
  Status InsertSession(const AdminSession& s) override {
    LC_RETURN_IF_ERROR(Gate("InsertSession"));
    return inner_.InsertSession(s);
  }
  Status DeleteSession(const std::string& tokenHash) override {
    LC_RETURN_IF_ERROR(Gate("DeleteSession"));
    return inner_.DeleteSession(tokenHash);
  }
  Status AppendEvent(const Event& e) override {
    LC_RETURN_IF_ERROR(Gate("AppendEvent"));
    return inner_.AppendEvent(e);
  }
  Status InsertSubscription(const WebhookSubscription& s) override {
    LC_RETURN_IF_ERROR(Gate("InsertSubscription"));
    return inner_.InsertSubscription(s);
  }
  Result<bool> UpdateSubscription(const WebhookSubscription& s) override {
    LC_RETURN_IF_ERROR(Gate("UpdateSubscription"));
    return inner_.UpdateSubscription(s);
  }
  Result<bool> DeleteSubscription(const std::string& shopId, const std::string& subscriptionId) override {
    LC_RETURN_IF_ERROR(Gate("DeleteSubscription"));
    return inner_.DeleteSubscription(shopId, subscriptionId);
  }
  Status DoInsertDelivery(const WebhookDelivery& d) override {
    LC_RETURN_IF_ERROR(Gate("InsertDelivery"));
    return inner_.InsertDelivery(d);
  }
  Result<bool> UpdateDelivery(const WebhookDelivery& d) override {
    LC_RETURN_IF_ERROR(Gate("UpdateDelivery"));
    return inner_.UpdateDelivery(d);
  }
  Result<std::vector<WebhookDelivery>> ClaimDeliveries(const std::string& shopId, const std::string& subscriptionId,
                                                       Millis now, Millis leaseUntil, int max) override {
    LC_RETURN_IF_ERROR(Gate("ClaimDeliveries"));
    return inner_.ClaimDeliveries(shopId, subscriptionId, now, leaseUntil, max);
  }
  Result<std::int64_t> ReleaseDeliveries(const std::string& shopId, const std::vector<std::string>& deliveryIds,
                                         Millis leaseUntil) override {
    LC_RETURN_IF_ERROR(Gate("ReleaseDeliveries"));
    return inner_.ReleaseDeliveries(shopId, deliveryIds, leaseUntil);
  }
  Result<std::int64_t> CancelPendingDeliveries(const std::string& shopId, const std::string& subscriptionId) override {
    LC_RETURN_IF_ERROR(Gate("CancelPendingDeliveries"));
    return inner_.CancelPendingDeliveries(shopId, subscriptionId);
  }
  Status InsertAttempt(const DeliveryAttempt& a, int keep) override {
    LC_RETURN_IF_ERROR(Gate("InsertAttempt"));
    return inner_.InsertAttempt(a, keep);
  }
  Result<std::optional<CatalogItem>> GetCatalogItem(const std::string& shopId, const std::string& kind,
                                                    const std::string& id) override {
    LC_RETURN_IF_ERROR(Gate("GetCatalogItem"));
    return inner_.GetCatalogItem(shopId, kind, id);
  }
  Result<std::optional<CatalogItem>> FindCatalogItemByKey(const std::string& shopId, const std::string& kind,
                                                          const std::string& key) override {
    LC_RETURN_IF_ERROR(Gate("FindCatalogItemByKey"));
    return inner_.FindCatalogItemByKey(shopId, kind, key);
  }
  Result<std::vector<CatalogItem>> ListCatalogItems(const std::string& shopId, const std::string& kind,
                                                    const std::string& parentId, const std::string& afterId,
                                                    int limit) override {
    LC_RETURN_IF_ERROR(Gate("ListCatalogItems"));
    return inner_.ListCatalogItems(shopId, kind, parentId, afterId, limit);
  }
  Result<std::vector<CatalogHit>> SearchCatalog(const std::string& shopId, const std::string& kind,
                                                const std::vector<std::string>& terms, int limit) override {
    LC_RETURN_IF_ERROR(Gate("SearchCatalog"));
    return inner_.SearchCatalog(shopId, kind, terms, limit);
  }
  Result<std::vector<CatalogHit>> SearchCatalogChildren(const std::string& shopId, const std::string& kind,
                                                        const std::string& parentId,
                                                        const std::vector<std::string>& terms, int limit) override {
    LC_RETURN_IF_ERROR(Gate("SearchCatalogChildren"));
    return inner_.SearchCatalogChildren(shopId, kind, parentId, terms, limit);
  }
  Result<std::int64_t> CountCatalogItems(const std::string& shopId, const std::string& kind) override {
    LC_RETURN_IF_ERROR(Gate("CountCatalogItems"));
    return inner_.CountCatalogItems(shopId, kind);
  }
  Result<std::optional<std::string>> GetShopDocument(const std::string& shopId, const std::string& name) override {
    LC_RETURN_IF_ERROR(Gate("GetShopDocument"));
    return inner_.GetShopDocument(shopId, name);
  }
  Status PutCatalogItem(const CatalogItem& item, const std::vector<std::string>& keys) override {
    LC_RETURN_IF_ERROR(Gate("PutCatalogItem"));
    return inner_.PutCatalogItem(item, keys);
  }
  Result<bool> DeleteCatalogItem(const std::string& shopId, const std::string& kind, const std::string& id) override {
    LC_RETURN_IF_ERROR(Gate("DeleteCatalogItem"));
    return inner_.DeleteCatalogItem(shopId, kind, id);
  }
  Status PutShopDocument(const std::string& shopId, const std::string& name, const std::string& json) override {
    LC_RETURN_IF_ERROR(Gate("PutShopDocument"));
    return inner_.PutShopDocument(shopId, name, json);
  }

  Result<bool> DeleteMember(const std::string& shopId, const std::string& memberId) override {
    LC_RETURN_IF_ERROR(Gate("DeleteMember"));
    return inner_.DeleteMember(shopId, memberId);
  }
  Result<std::int64_t> DeleteSessions(const std::string& shopId, const std::string& memberId) override {
    LC_RETURN_IF_ERROR(Gate("DeleteSessions"));
    return inner_.DeleteSessions(shopId, memberId);
  }
  Result<std::vector<Customer>> FindCustomersByShopifyId(const std::string& shopId, const std::string& shopifyId) override {
    LC_RETURN_IF_ERROR(Gate("FindCustomersByShopifyId"));
    return inner_.FindCustomersByShopifyId(shopId, shopifyId);
  }
  Result<std::vector<Customer>> ListCustomersByEmail(const std::string& shopId, const std::string& email) override {
    LC_RETURN_IF_ERROR(Gate("ListCustomersByEmail"));
    return inner_.ListCustomersByEmail(shopId, email);
  }
  Result<std::vector<Customer>> ListCustomersByPhone(const std::string& shopId, const std::string& phoneKey) override {
    LC_RETURN_IF_ERROR(Gate("ListCustomersByPhone"));
    return inner_.ListCustomersByPhone(shopId, phoneKey);
  }
  Result<bool> DeleteCustomer(const std::string& shopId, const std::string& customerId) override {
    LC_RETURN_IF_ERROR(Gate("DeleteCustomer"));
    return inner_.DeleteCustomer(shopId, customerId);
  }
  Result<std::vector<Conversation>> ListConversationsOfCustomer(const std::string& shopId, const std::string& customerId) override {
    LC_RETURN_IF_ERROR(Gate("ListConversationsOfCustomer"));
    return inner_.ListConversationsOfCustomer(shopId, customerId);
  }
  Result<std::vector<Conversation>> ListLegacyConversations(const std::string& shopId, int limit) override {
    LC_RETURN_IF_ERROR(Gate("ListLegacyConversations"));
    return inner_.ListLegacyConversations(shopId, limit);
  }
  Result<std::int64_t> CountLegacyConversations(const std::string& shopId) override {
    LC_RETURN_IF_ERROR(Gate("CountLegacyConversations"));
    return inner_.CountLegacyConversations(shopId);
  }
  Result<std::int64_t> DeleteBrowsedPages(const std::string& shopId, const std::string& conversationId) override {
    LC_RETURN_IF_ERROR(Gate("DeleteBrowsedPages"));
    return inner_.DeleteBrowsedPages(shopId, conversationId);
  }
  Result<std::vector<Event>> ListEventsOfCustomer(const std::string& shopId, const std::string& customerId) override {
    LC_RETURN_IF_ERROR(Gate("ListEventsOfCustomer"));
    return inner_.ListEventsOfCustomer(shopId, customerId);
  }
  Result<std::vector<Event>> ListEventsAfter(const std::string& shopId, std::int64_t afterSeq,
                                             const std::vector<std::string>& types, int limit) override {
    LC_RETURN_IF_ERROR(Gate("ListEventsAfter"));
    return inner_.ListEventsAfter(shopId, afterSeq, types, limit);
  }
  Result<std::int64_t> GetLastEventSeq(const std::string& shopId) override {
    LC_RETURN_IF_ERROR(Gate("GetLastEventSeq"));
    return inner_.GetLastEventSeq(shopId);
  }
  Result<std::int64_t> GetEventsPrunedThrough() override {
    LC_RETURN_IF_ERROR(Gate("GetEventsPrunedThrough"));
    return inner_.GetEventsPrunedThrough();
  }
  Result<std::int64_t> PruneEvents(Millis before, int limit) override {
    LC_RETURN_IF_ERROR(Gate("PruneEvents"));
    return inner_.PruneEvents(before, limit);
  }
  Result<bool> UpdateEventData(const std::string& shopId, const std::string& eventId, const std::string& dataJson) override {
    LC_RETURN_IF_ERROR(Gate("UpdateEventData"));
    return inner_.UpdateEventData(shopId, eventId, dataJson);
  }
  Result<std::optional<VisitorSession>> FindVisitorSession(const std::string& tokenHash) override {
    LC_RETURN_IF_ERROR(Gate("FindVisitorSession"));
    return inner_.FindVisitorSession(tokenHash);
  }
  Result<std::vector<VisitorSession>> ListVisitorSessionsOfCustomer(const std::string& shopId, const std::string& customerId) override {
    LC_RETURN_IF_ERROR(Gate("ListVisitorSessionsOfCustomer"));
    return inner_.ListVisitorSessionsOfCustomer(shopId, customerId);
  }
  Status InsertVisitorSession(const VisitorSession& s) override {
    LC_RETURN_IF_ERROR(Gate("InsertVisitorSession"));
    return inner_.InsertVisitorSession(s);
  }
  Result<bool> UpdateVisitorSession(const VisitorSession& s) override {
    LC_RETURN_IF_ERROR(Gate("UpdateVisitorSession"));
    return inner_.UpdateVisitorSession(s);
  }
  Result<std::optional<FileRecord>> GetFile(const std::string& shopId, const std::string& fileId) override {
    LC_RETURN_IF_ERROR(Gate("GetFile"));
    return inner_.GetFile(shopId, fileId);
  }
  Result<std::optional<FileRecord>> FindFileById(const std::string& fileId) override {
    LC_RETURN_IF_ERROR(Gate("FindFileById"));
    return inner_.FindFileById(fileId);
  }
  Result<std::vector<FileRecord>> ListFiles(const std::string& shopId, const std::string& kind) override {
    LC_RETURN_IF_ERROR(Gate("ListFiles"));
    return inner_.ListFiles(shopId, kind);
  }
  Status InsertFile(const FileRecord& f) override {
    LC_RETURN_IF_ERROR(Gate("InsertFile"));
    return inner_.InsertFile(f);
  }
  Result<bool> DeleteFile(const std::string& shopId, const std::string& fileId) override {
    LC_RETURN_IF_ERROR(Gate("DeleteFile"));
    return inner_.DeleteFile(shopId, fileId);
  }
  Result<std::int64_t> DeleteFilesOfKind(const std::string& shopId, const std::string& kind) override {
    LC_RETURN_IF_ERROR(Gate("DeleteFilesOfKind"));
    return inner_.DeleteFilesOfKind(shopId, kind);
  }
  Result<std::vector<ChannelIntegration>> ListChannelIntegrations(const std::string& shopId) override {
    LC_RETURN_IF_ERROR(Gate("ListChannelIntegrations"));
    return inner_.ListChannelIntegrations(shopId);
  }
  Result<std::optional<PlatformRequest>> FindPlatformRequest(const std::string& shopId, const std::string& requestKey) override {
    LC_RETURN_IF_ERROR(Gate("FindPlatformRequest"));
    return inner_.FindPlatformRequest(shopId, requestKey);
  }
  Result<std::vector<PlatformRequest>> ListPlatformRequests(const std::string& shopId, int limit) override {
    LC_RETURN_IF_ERROR(Gate("ListPlatformRequests"));
    return inner_.ListPlatformRequests(shopId, limit);
  }
  Result<std::optional<DataRequest>> GetDataRequest(const std::string& shopId, const std::string& id) override {
    LC_RETURN_IF_ERROR(Gate("GetDataRequest"));
    return inner_.GetDataRequest(shopId, id);
  }
  Result<std::vector<DataRequest>> ListDataRequests(const std::string& shopId) override {
    LC_RETURN_IF_ERROR(Gate("ListDataRequests"));
    return inner_.ListDataRequests(shopId);
  }
  Status PutChannelIntegration(const ChannelIntegration& i) override {
    LC_RETURN_IF_ERROR(Gate("PutChannelIntegration"));
    return inner_.PutChannelIntegration(i);
  }
  Status InsertPlatformRequest(const PlatformRequest& r) override {
    LC_RETURN_IF_ERROR(Gate("InsertPlatformRequest"));
    return inner_.InsertPlatformRequest(r);
  }
  Status InsertDataRequest(const DataRequest& d) override {
    LC_RETURN_IF_ERROR(Gate("InsertDataRequest"));
    return inner_.InsertDataRequest(d);
  }
  Result<bool> UpdateDataRequest(const DataRequest& d) override {
    LC_RETURN_IF_ERROR(Gate("UpdateDataRequest"));
    return inner_.UpdateDataRequest(d);
  }

 private:
  Status Gate(std::string_view method) {
    if (method != failOn_ || ++calls_ != nth_) return Status::Ok();
    failed_ = true;
    return MakeError(ErrorCode::kInternal, "injected failure in " + failOn_);
  }
  StoreWriter& inner_;
  std::string failOn_;
  int nth_;
  int calls_ = 0;
  bool failed_ = false;
};

// A Store whose writes go through a FaultyWriter while armed; reads are untouched.
class FaultyStore final : public Store {
 public:
  explicit FaultyStore(Store& inner) : inner_(inner) {}
  // Arms the fault for every following Write until Disarm().
  void FailOn(std::string method, int nth = 1) {
    failOn_ = std::move(method);
    nth_ = nth;
  }
  void Disarm() { failOn_.clear(); }
  int injected() const { return injected_; }

  Status Read(const std::function<Status(StoreReader&)>& fn) override { return inner_.Read(fn); }
  Status Write(const std::function<Status(StoreWriter&)>& fn) override {
    if (failOn_.empty()) return inner_.Write(fn);
    return inner_.Write([&](StoreWriter& w) -> Status {
      FaultyWriter faulty(w, failOn_, nth_);
      Status st = fn(faulty);
      if (faulty.failed()) ++injected_;
      return st;
    });
  }
  bool Healthy() override { return inner_.Healthy(); }

 private:
  Store& inner_;
  std::string failOn_;
  int nth_ = 1;
  int injected_ = 0;
};

}  // namespace livechat::testing
