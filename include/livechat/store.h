// The Store seam: where records live. The SQLite store is the embedded default
// (livechat/sqlite_store.h), the PostgreSQL store serves several instances on
// one database (livechat/postgres_store.h), and livechat/open_store.h picks
// one from the database setting. Both pass the conformance files of
// tests/storage (store_*_conformance.cc, one per interface; store_conformance.cc
// lists them).
//
// Every method takes the shop id and touches that shop's rows only: a record
// of another shop is indistinguishable from a missing one. Methods that look
// across shops say so.
//
// A missing record is an empty optional, never an error; an Error means the
// storage itself failed (ErrorCode::kInternal). Insert* fails with kInternal
// on a duplicate id. Update* and Delete* return false when no record of that
// shop matched.
//
// Reads go through Store::Read, writes through Store::Write. A Write runs its
// function inside one transaction: the change and the outbox events it appends
// commit together or not at all. A StoreWriter can also read, and sees its own
// uncommitted writes.
//
// The operations come in small interfaces, one per kind of record
// (livechat/store/*.h), so a backend can be written and checked one at a
// time. Every one is required: a Store implements all of them, and the
// service needs no capability check at start-up.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "livechat/store/accounts.h"
#include "livechat/store/conversations.h"
#include "livechat/store/idempotency.h"
#include "livechat/store/outbox.h"
#include "livechat/store/records.h"

namespace livechat {

class StoreReader : public ShopReads,
                    public ApiKeyReads,
                    public MemberAndSessionReads,
                    public CustomerReads,
                    public ConversationReads,
                    public MessageReads,
                    public NoteReads,
                    public AttributeReads,
                    public ActivityReads,
                    public OutboxReads,
                    public WebhookSubscriptionReads,
                    public DeliveryQueueReads,
                    public KnowledgeReads,
                    public VisitorSessionReads,
                    public FileRecordReads,
                    public SummaryJobReads,
                    public ComplianceReads,
                    public IdempotencyReads {};

class StoreWriter : public StoreReader,
                    public ShopWrites,
                    public ApiKeyWrites,
                    public MemberAndSessionWrites,
                    public CustomerWrites,
                    public ConversationWrites,
                    public MessageWrites,
                    public NoteWrites,
                    public AttributeWrites,
                    public ActivityWrites,
                    public OutboxWrites,
                    public WebhookSubscriptionWrites,
                    public DeliveryQueueWrites,
                    public KnowledgeWrites,
                    public VisitorSessionWrites,
                    public FileRecordWrites,
                    public SummaryJobWrites,
                    public ComplianceWrites,
                    public IdempotencyWrites {
 public:
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
  // Writes every field except tags (see ReplaceConversationTags).
  Result<bool> UpdateConversation(const Conversation& c) {
    Wrote(c.id);
    return DoUpdateConversation(c, nullptr);
  }
  // The same row as the overload above, writing only the fields that differ
  // from `before`, the row as this write read it. A backend rewrites an index
  // entry for every column an UPDATE sets, changed or not, so a send that
  // changes five fields must not set thirty.
  Result<bool> UpdateConversation(const Conversation& c, const Conversation& before) {
    Wrote(c.id);
    return DoUpdateConversation(c, &before);
  }
  // Assigns m.seq.
  Status InsertMessage(Message& m) {
    Wrote(m.conversationId);
    return DoInsertMessage(m);
  }
  Result<bool> UpdateMessage(const Message& m) {
    Wrote(m.conversationId);
    return DoUpdateMessage(m);
  }
  Status PutTyping(const std::string& shopId, const TypingState& t) {
    Wrote(t.conversationId);
    return DoPutTyping(shopId, t);
  }

  // Queues a webhook delivery; counted in queuedDeliveries().
  Status InsertDelivery(const WebhookDelivery& d) {
    ++queuedDeliveries_;
    return DoInsertDelivery(d);
  }
  // How many deliveries this writer queued: whoever runs the transaction
  // wakes the dispatcher after it commits only if there are any, so a write
  // of a store without subscriptions costs no dispatcher a wake-up.
  std::size_t queuedDeliveries() const { return queuedDeliveries_; }

  // The ids (Conversation::id) of the conversations this writer wrote
  // through the methods above, each once, in first-write order. Whoever runs
  // the transaction tells their observers after it commits
  // (ChatService::SetConversationObserver).
  const std::vector<std::string>& writtenConversations() const { return written_; }

 private:
  void Wrote(const std::string& conversationId) {
    // A transaction writes few conversations, usually one many times.
    if (!written_.empty() && written_.back() == conversationId) return;
    if (std::find(written_.begin(), written_.end(), conversationId) != written_.end()) return;
    written_.push_back(conversationId);
  }
  std::vector<std::string> written_;
  std::size_t queuedDeliveries_ = 0;
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
  // Write without waiting: runs fn as Write does and calls `done` with its
  // outcome once the transaction holding it committed or rolled back. A
  // store with a writer thread returns at once and calls `done` from that
  // thread, so `done` must be quick and must neither block nor write: it
  // holds up the writes queued after it. A thread serving many clients hands
  // a write over this way and goes on serving (docs/decisions.md, "Sends
  // handed to the writer"). The default runs the write on the caller's
  // thread and then calls `done` there.
  virtual void WriteAsync(std::function<Status(StoreWriter&)> fn, std::function<void(Status)> done) {
    done(Write(fn));
  }
  // True when the database answers and its schema is current.
  virtual bool Healthy() = 0;
  // True when a Read started now would wait neither for a writer, nor for a
  // network, nor for another Read: it would run on this process's own files
  // for about as long as its queries take. A host may then run a short read
  // on a thread that does socket I/O rather than hand it to a worker thread
  // and back (hosts/livechatd, docs/decisions.md "Plain reads on the I/O
  // threads"). Another thread may start a Read in between; this one then
  // waits for one Read to end, no more than that.
  virtual bool CanReadWithoutWaiting() const { return false; }

  // Calls `changed` (on a thread of the store's) with the id of each
  // conversation another process's write wrote, soon after that write
  // commits: how a long-poll on one instance wakes for a reply written on
  // another. A store that only this process writes never calls it (the
  // default). Replaces the previous callback; null stops the calls, and when
  // this returns no call of the previous callback is running.
  virtual void WatchOtherWriters(std::function<void(const std::string& conversationId)> changed) { (void)changed; }
};

}  // namespace livechat
