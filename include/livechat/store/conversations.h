// The Store's records of conversations: customers (contacts), conversations,
// their messages, notes, attributes and activity (browsed pages, typing,
// summaries). Part of StoreReader / StoreWriter (livechat/store.h), whose
// rules (shop scoping, missing vs. failed, Insert/Update/Delete results)
// hold here too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "livechat/model.h"
#include "livechat/result.h"

namespace livechat {

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

class CustomerReads {
 public:
  virtual ~CustomerReads() = default;
  virtual Result<std::optional<Customer>> GetCustomer(const std::string& shopId, const std::string& customerId) = 0;
  // Case-insensitive email match.
  virtual Result<std::optional<Customer>> FindCustomerByEmail(const std::string& shopId, const std::string& email) = 0;
  virtual Result<std::vector<Customer>> ListCustomers(const CustomerQuery& q) = 0;
  virtual Result<std::int64_t> CountCustomers(const std::string& shopId) = 0;
  // Contacts whose shopifyId equals `shopifyId`, in createdAt order.
  virtual Result<std::vector<Customer>> FindCustomersByShopifyId(const std::string& shopId,
                                                                 const std::string& shopifyId) = 0;
  // Every contact with this email (case-insensitive), in createdAt order: a
  // redact must reach them all, not only the canonical one FindCustomerByEmail
  // returns.
  virtual Result<std::vector<Customer>> ListCustomersByEmail(const std::string& shopId, const std::string& email) = 0;
  // Every contact whose phone has this PhoneKey (livechat/model.h), or, for a
  // contact on WhatsApp, whose channel recipient has it (the WhatsApp id is
  // the number), in createdAt order. Stored phones are compared in that form
  // too; an empty key matches nothing.
  virtual Result<std::vector<Customer>> ListCustomersByPhone(const std::string& shopId,
                                                             const std::string& phoneKey) = 0;
};

class CustomerWrites {
 public:
  virtual ~CustomerWrites() = default;
  virtual Status InsertCustomer(const Customer& c) = 0;
  virtual Result<bool> UpdateCustomer(const Customer& c) = 0;
  // Removes the contact row only; its conversations are the caller's business.
  virtual Result<bool> DeleteCustomer(const std::string& shopId, const std::string& customerId) = 0;
};

// Keyset position in the conversation order (lastActive DESC, pgConvoId DESC).
struct ConversationKey {
  Millis lastActive = 0;
  std::int64_t pgConvoId = 0;
};

// Lists only conversations in the newer datastore (inNewDatastore), newest
// activity first: lastActive descending, then pgConvoId descending.
struct ConversationQuery {
  std::string shopId;
  std::optional<std::string> status;           // open | resolved
  std::optional<std::string> channel;          // the channel it started on; unset: all but "playground"
  std::optional<std::string> assigneeId;       // memberId equals
  bool unassignedOnly = false;                 // no memberId
  std::optional<bool> isRead;
  std::optional<bool> isStarred;
  std::vector<std::string> tagsAny;            // carries at least one of these
  std::optional<std::string> customerUuid;
  std::optional<std::string> email;            // customerEmail equals (case-insensitive)
  std::optional<std::string> excludeId;        // Conversation::id to leave out (related)
  std::optional<ConversationKey> after;        // strictly after this position
  int limit = 20;                              // rows to return at most
};

// Full-text search over a shop's conversations (GET /chat/conversations?q=):
// the text of their messages and notes, and a header per conversation (the
// customer's name, email and phone, and the tags). A conversation matches
// when one of those texts holds every word; the last word matches as a
// prefix (search as you type). Case and diacritics are folded; deleted
// messages, deleted notes and redacted customer fields are not indexed.
// Relevance looks at the newest kSearchCandidates matching texts (and the
// newest as many matching headers), so a word found in millions of messages
// costs what a rarer one does (docs/decisions.md).
constexpr int kSearchCandidates = 1000;

// Keyset position in relevance order (relevance DESC, pgConvoId DESC).
struct RelevanceKey {
  double relevance = 0;
  std::int64_t pgConvoId = 0;
};

struct ConversationSearch {
  // Runs of letters and digits, at least one; the caller splits the query.
  std::vector<std::string> words;
  bool prefixLast = true;                 // the last word matches as a prefix
  bool byRelevance = true;                // else the list's order (ConversationQuery::after pages)
  std::optional<RelevanceKey> after;      // relevance order: strictly after
};

struct ConversationHit {
  Conversation conversation;
  // Higher is better. Comparable only between hits of one query on one backend.
  double relevance = 0;
  // What matched best: "message", "note", or "header" (then `text` is the
  // name, email, phone and tags, one per line).
  std::string source;
  std::string text;
};

// The agent inbox's folder counts over a shop's listed conversations (the
// ones ConversationQuery lists with no filter): open ones, open and unread,
// open and assigned to one member, open and unassigned, starred (any status).
struct InboxCounts {
  std::int64_t open = 0;
  std::int64_t unread = 0;
  std::int64_t mine = 0;
  std::int64_t unassigned = 0;
  std::int64_t starred = 0;
};

// A listed conversation's place in the list and its row's version
// (ListConversationVersions): every write of the row gives it a new version.
struct ConversationVersion {
  std::int64_t pgConvoId = 0;
  std::int64_t lastActive = 0;  // the list's sort key: last_active, 0 when unset
  std::int64_t version = 0;
};

class ConversationReads {
 public:
  virtual ~ConversationReads() = default;
  // Matches `anyId` against id, firestoreId, or (when all digits) pgConvoId.
  // Legacy records are found too.
  virtual Result<std::optional<Conversation>> FindConversation(const std::string& shopId, const std::string& anyId) = 0;
  // The id of the conversation FindConversation finds, without reading the
  // rest of its row: for reads that need only which conversation it is
  // (its messages). This default reads the row.
  virtual Result<std::optional<std::string>> FindConversationId(const std::string& shopId, const std::string& anyId) {
    LC_ASSIGN_OR_RETURN(auto c, FindConversation(shopId, anyId));
    if (!c) return std::optional<std::string>();
    return std::optional<std::string>(std::move(c->id));
  }
  virtual Result<std::vector<Conversation>> ListConversations(const ConversationQuery& q) = 0;
  // What ListConversations(q) lists, in its order, each row's place and
  // version only: a reader that kept what it built from a row at that
  // version needs no more of it (the REST list's JSON cache), and reads the
  // rest with ListConversationsByPgId in the same transaction. nullopt: this
  // store keeps no row versions; read the rows.
  virtual Result<std::optional<std::vector<ConversationVersion>>> ListConversationVersions(const ConversationQuery&) {
    return std::optional<std::vector<ConversationVersion>>();
  }
  // The listed conversations of `shopId` with these pgConvoIds, in no
  // particular order; an id of no such row is left out.
  virtual Result<std::vector<Conversation>> ListConversationsByPgId(const std::string& shopId,
                                                                    const std::vector<std::int64_t>& pgConvoIds) {
    (void)shopId;
    (void)pgConvoIds;
    return Error{ErrorCode::kInternal, "store: ListConversationsByPgId without ListConversationVersions"};
  }
  // The conversations `q` lists that match `s`, in relevance order or in
  // the list's order; every filter of `q` applies.
  virtual Result<std::vector<ConversationHit>> SearchConversations(const ConversationQuery& q,
                                                                   const ConversationSearch& s) = 0;
  // Every conversation of a contact, legacy (older datastore) ones included,
  // oldest first.
  virtual Result<std::vector<Conversation>> ListConversationsOfCustomer(const std::string& shopId,
                                                                        const std::string& customerId) = 0;
  // In one pass over the shop's listed conversations; `memberId` is whose "mine" counts.
  virtual Result<InboxCounts> CountInbox(const std::string& shopId, const std::string& memberId) = 0;
  // Distinct tags over the shop's conversations with their use counts, by name.
  virtual Result<std::vector<TagCount>> ListTagCatalog(const std::string& shopId) = 0;
  // Legacy conversations (not yet in the newer datastore) of a shop, in the
  // order they were imported in, at most `limit`.
  virtual Result<std::vector<Conversation>> ListLegacyConversations(const std::string& shopId, int limit) = 0;
  virtual Result<std::int64_t> CountLegacyConversations(const std::string& shopId) = 0;
};

// InsertConversation and UpdateConversation are StoreWriter's (they record
// the conversation for its observers first); a backend implements the Do*
// hooks they call.
class ConversationWrites {
 public:
  virtual ~ConversationWrites() = default;
  // Replaces the conversation's tags (UpdateConversation leaves them alone).
  virtual Status ReplaceConversationTags(const std::string& shopId, const std::string& conversationId,
                                         const std::vector<std::string>& tags) = 0;

 protected:
  // Assigns c.pgConvoId when c.inNewDatastore and it is unset. Tags are written too.
  virtual Status DoInsertConversation(Conversation& c) = 0;
  // Writes every field except tags; with `before` (the row as this write
  // read it), only the fields that differ from it.
  virtual Result<bool> DoUpdateConversation(const Conversation& c, const Conversation* before) = 0;
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

// A listed message's seq and its row's version (ListMessageVersions):
// every write of the row gives it a new version.
struct MessageVersion {
  std::int64_t seq = 0;
  std::int64_t version = 0;
  // No files: its JSON is the row's alone (a file's URL is signed anew on
  // every read).
  bool plain = true;
};

class MessageReads {
 public:
  virtual ~MessageReads() = default;
  virtual Result<std::vector<Message>> ListMessages(const MessageQuery& q) = 0;
  // What ListMessages(q) lists, in its order, each row's seq and version
  // only (as ListConversationVersions is to the conversation list); the rest
  // comes from ListMessagesBySeq in the same transaction. nullopt: this
  // store keeps no row versions; read the rows.
  virtual Result<std::optional<std::vector<MessageVersion>>> ListMessageVersions(const MessageQuery&) {
    return std::optional<std::vector<MessageVersion>>();
  }
  // The messages of the conversation with these seqs, in no particular
  // order; a seq of no such message is left out.
  virtual Result<std::vector<Message>> ListMessagesBySeq(const std::string& shopId, const std::string& conversationId,
                                                         const std::vector<std::int64_t>& seqs) {
    (void)shopId;
    (void)conversationId;
    (void)seqs;
    return Error{ErrorCode::kInternal, "store: ListMessagesBySeq without ListMessageVersions"};
  }
  // `idOrSeq`: the message UUID, or its numeric seq. Deleted messages are found.
  virtual Result<std::optional<Message>> GetMessage(const std::string& shopId, const std::string& conversationId,
                                                    const std::string& idOrSeq) = 0;
};

// InsertMessage and UpdateMessage are StoreWriter's, as for conversations.
class MessageWrites {
 public:
  virtual ~MessageWrites() = default;

 protected:
  // Assigns m.seq: the next in the conversation's send order.
  virtual Status DoInsertMessage(Message& m) = 0;
  virtual Result<bool> DoUpdateMessage(const Message& m) = 0;
};

class NoteReads {
 public:
  virtual ~NoteReads() = default;
  virtual Result<std::vector<Note>> ListNotes(const std::string& shopId, const std::string& conversationId) = 0;
  virtual Result<std::optional<Note>> GetNote(const std::string& shopId, const std::string& conversationId,
                                              const std::string& noteId) = 0;
};

class NoteWrites {
 public:
  virtual ~NoteWrites() = default;
  virtual Status InsertNote(const Note& n) = 0;
  virtual Result<bool> UpdateNote(const Note& n) = 0;
  virtual Result<bool> DeleteNote(const std::string& shopId, const std::string& conversationId,
                                  const std::string& noteId) = 0;
};

class AttributeReads {
 public:
  virtual ~AttributeReads() = default;
  virtual Result<std::vector<Attribute>> ListAttributes(const std::string& shopId,
                                                        const std::string& conversationId) = 0;
  virtual Result<std::optional<Attribute>> GetAttribute(const std::string& shopId, const std::string& conversationId,
                                                        const std::string& attributeId) = 0;
  virtual Result<std::optional<Attribute>> FindAttributeByName(const std::string& shopId,
                                                               const std::string& conversationId,
                                                               const std::string& name) = 0;
};

class AttributeWrites {
 public:
  virtual ~AttributeWrites() = default;
  virtual Status InsertAttribute(const Attribute& a) = 0;
  virtual Result<bool> UpdateAttribute(const Attribute& a) = 0;
  virtual Result<bool> DeleteAttribute(const std::string& shopId, const std::string& conversationId,
                                       const std::string& attributeId) = 0;
};

// What happens around a conversation: the pages its visitor browsed, who is
// typing, its summary.
class ActivityReads {
 public:
  virtual ~ActivityReads() = default;
  // Newest first, viewedAt >= sinceMillis, at most `limit`.
  virtual Result<std::vector<BrowsedPage>> ListBrowsedPages(const std::string& shopId,
                                                            const std::string& conversationId, Millis sinceMillis,
                                                            int limit) = 0;
  virtual Result<std::vector<TypingState>> ListTyping(const std::string& shopId, const std::string& conversationId) = 0;
  virtual Result<std::optional<Summary>> GetSummary(const std::string& shopId, const std::string& conversationId) = 0;
};

// PutTyping is StoreWriter's, as for conversations.
class ActivityWrites {
 public:
  virtual ~ActivityWrites() = default;
  // Keeps at most `keep` most recent pages for the conversation.
  virtual Status InsertBrowsedPage(const std::string& shopId, const std::string& conversationId,
                                   const BrowsedPage& p, int keep) = 0;
  // Returns how many pages were removed.
  virtual Result<std::int64_t> DeleteBrowsedPages(const std::string& shopId, const std::string& conversationId) = 0;
  virtual Status PutSummary(const std::string& shopId, const Summary& s) = 0;

 protected:
  virtual Status DoPutTyping(const std::string& shopId, const TypingState& t) = 0;
};

}  // namespace livechat
