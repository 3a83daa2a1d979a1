// ConversationService: conversations and their messages, the inbox's
// reads and state changes, search and typing (conversation_service.cc,
// conversation_messages.cc, conversation_search.cc).
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include "livechat/services/common.h"
#include "livechat/services/files.h"

namespace livechat {

class StoreWriter;

namespace internal {
struct SentFile;
}  // namespace internal

struct ConversationFilter {
  std::optional<std::string> status;      // open | resolved
  std::optional<std::string> channel;     // one of kChannels (model.h)
  std::optional<std::string> assigneeId;  // member id or "unassigned"
  std::optional<bool> isRead;
  std::vector<std::string> tags;          // any of
  std::optional<std::string> customerUuid;
  std::optional<std::string> email;
  std::optional<bool> isStarred;          // the agent inbox's "Starred" folder
};

// GET /chat/conversations?q=: words (runs of letters and digits) that must
// all be found in one message, one note, or the conversation's header
// (customer name, email, phone, tags); the last word is a prefix once it has
// kSearchPrefixMin characters. At most kSearchMaxChars characters and
// kSearchMaxWords words.
constexpr std::size_t kSearchMaxChars = 200;
constexpr std::size_t kSearchMaxWords = 10;
constexpr std::size_t kSearchPrefixMin = 2;

struct ConversationSearchRequest {
  std::string q;
  std::optional<std::string> sort;  // relevance (the default) | lastActive
};

// Where a conversation matched, to show it: a snippet of the matching text
// with the ranges of the words found, as [start, end) offsets in UTF-16 code
// units (JavaScript string indexes). `field`: message | note | customerName
// | customerEmail | customerPhone | tags.
struct SearchHighlight {
  std::string field;
  std::string text;
  std::vector<std::pair<int, int>> ranges;
};

struct ConversationSearchHit {
  Conversation conversation;
  SearchHighlight highlight;
};

struct SendMessageInput {
  std::optional<std::string> text;  // required, 1..5000 characters
  std::optional<std::string> memberId;
  bool isNote = false;
  bool asCustomer = false;
  // A reply from the AI agent (the tool server's send_message): senderType
  // "bot", isBot; the conversation becomes isChatBot and hasChatBot. memberId
  // is not needed.
  bool asBot = false;
  // With asBot: the AI agent hands the conversation to a person
  // (human_agent_transfer): isTransfer, and the conversation is no longer
  // isChatBot.
  bool isTransfer = false;
};

// A conversation read together with the datastore it came from (meta.source).
struct ConversationRead {
  Conversation conversation;
  std::string source;  // "postgresql" (newer datastore) or "firestore" (legacy)
};

// An inbound customer message as a channel would deliver it. The same email
// within a store is the same contact.
struct InboundMessageInput {
  std::string channel = "online_store";
  std::optional<std::string> customerName;
  std::optional<std::string> customerEmail;
  std::optional<std::string> customerPhone;
  std::optional<std::string> channelRecipient;  // Messenger/Instagram/WhatsApp identity
  std::optional<std::string> sessionId;
  std::string text;
  std::optional<std::string> conversationId;    // continue this one; else start a new one
  bool legacy = false;                          // create as an unmigrated older-datastore record
  std::optional<std::string> customerId;        // this contact (storefront sessions); else by email, else new
  // A message with attachments: contentType "file", `filesJson` the stored
  // entries ({id, name, size, contentType}); `eventFilesJson` the same with
  // their URLs, for the message.created payload.
  std::string contentType = "text";
  std::string filesJson = "[]";
  std::optional<std::string> eventFilesJson;
};

class ConversationService {
 public:
  explicit ConversationService(internal::ServiceContext& ctx);
  ConversationService(const ConversationService&) = delete;
  ConversationService& operator=(const ConversationService&) = delete;

  // ---- Conversations ----
  Result<Page<Conversation>> ListConversations(const Principal& p, const ConversationFilter& f, const PageRequest& page);
  // The same, with the order the request named (?sort= without q): absent or
  // "lastActive" lists; "relevance" (a search's order) and anything else are
  // INVALID_PARAMS, checked before the permission.
  Result<Page<Conversation>> ListConversations(const Principal& p, const ConversationFilter& f, const PageRequest& page,
                                               const std::optional<std::string>& sort);
  // The same page, each item the conversation's list JSON (JsonView::kList),
  // byte for byte what AppendJson writes: rows unchanged since they were
  // last listed come from the list's JSON cache (ServiceOptions::
  // listCacheBytes), the rest are read whole and serialized.
  Result<Page<std::shared_ptr<const std::string>>> ListConversationsJson(const Principal& p,
                                                                         const ConversationFilter& f,
                                                                         const PageRequest& page,
                                                                         const std::optional<std::string>& sort);
  // The conversations ListConversations would list that match `s`
  // (conversation_search.cc), with where each matched.
  Result<Page<ConversationSearchHit>> SearchConversations(const Principal& p, const ConversationFilter& f,
                                                          const ConversationSearchRequest& s,
                                                          const PageRequest& page);
  Result<ConversationRead> GetConversation(const Principal& p, const std::string& id);
  Result<Page<Conversation>> ListRelated(const Principal& p, const std::string& id, const PageRequest& page);
  Result<std::vector<BrowsedPage>> ListBrowsedPages(const Principal& p, const std::string& id);
  // NOT_FOUND until the summary of a resolve has been generated. Reopening
  // keeps the last summary; resolving again replaces it once the new one is made.
  Result<Summary> GetSummary(const Principal& p, const std::string& id);
  // Resolving queues a summary job (ServiceOptions::queueSummaries).
  Result<Conversation> SetState(const Principal& p, const std::string& id, const std::optional<std::string>& status);
  // memberId empty optional: unassign.
  Result<Conversation> Assign(const Principal& p, const std::string& id, const std::optional<std::string>& memberId);
  // An assignment as a request states it, where "not said" and "null" differ:
  // absent is a mistake (INVALID_PARAMS, nothing changes), null unassigns.
  // Every surface passes what it parsed, so the rule and its message are one.
  struct AssignTarget {
    enum class Kind : std::uint8_t { kAbsent, kUnassign, kMember };
    Kind kind = Kind::kAbsent;
    std::string memberId;  // kMember only
    static AssignTarget Absent() { return {}; }
    static AssignTarget Unassign() { return {Kind::kUnassign, {}}; }
    static AssignTarget Member(std::string id) { return {Kind::kMember, std::move(id)}; }
  };
  Result<Conversation> Assign(const Principal& p, const std::string& id, const AssignTarget& target);
  Result<Conversation> MarkRead(const Principal& p, const std::string& id);
  Result<TypingState> SetTyping(const Principal& p, const std::string& id, const std::optional<std::string>& memberId,
                                std::optional<bool> active);
  // Who is typing in the conversation now: rows with active true updated in
  // the last kTypingShownMillis (the visitor's has memberId "customer"). The
  // writers never expire a row (spec), so a reader ages them out.
  static constexpr Millis kTypingShownMillis = 10'000;
  Result<std::vector<TypingState>> ListTyping(const Principal& p, const std::string& id);
  // The agent inbox's star (isStarred). No webhook event: the nine event
  // types are the spec's, and a star is the team's own bookmark.
  Result<Conversation> SetStarred(const Principal& p, const std::string& id, std::optional<bool> starred);
  // The inbox's folder counts; "mine" is the session's member (0 for a key).
  Result<InboxCounts> CountInbox(const Principal& p);

  // ---- Messages ----
  Result<Page<Message>> ListMessages(const Principal& p, const std::string& id, const PageRequest& page,
                                     const std::optional<std::string>& order);
  // The same page, each item the message's list JSON (JsonView::kList),
  // byte for byte what AppendJson writes: messages unchanged since they
  // were last listed, and without files, come from the message list's JSON
  // cache (ServiceOptions::listCacheBytes).
  Result<Page<std::shared_ptr<const std::string>>> ListMessagesJson(const Principal& p, const std::string& id,
                                                                    const PageRequest& page,
                                                                    const std::optional<std::string>& order);
  Result<Message> GetMessage(const Principal& p, const std::string& id, const std::string& messageId);
  Result<Message> SendMessage(const Principal& p, const std::string& id, const SendMessageInput& in);
  // SendMessage without waiting for the write: the same rules, write and
  // answer, but `done` gets the answer once the message is committed (or
  // refused), possibly on the store's writer thread (Store::WriteAsync), so
  // it must be quick and must not block. A rule checked before the write
  // answers at once, on this thread. For a host that serves many clients on
  // a few threads: the thread goes on serving while the write waits for its
  // batch. The channel delivery after the commit (ChannelSender::Deliver)
  // then runs on the writer thread too.
  void SendMessageAsync(const Principal& p, const std::string& id, const SendMessageInput& in,
                        std::function<void(Result<Message>)> done);
  // An attachment from the agent inbox, sent as the member's reply (contentType
  // "file", the file in `files`, text the file name), with SendMessage's rules
  // (channel, handoff from the AI agent, auto-assignment, message.created).
  // Kind "attachment"; limits and types as the widget's (UploadFile).
  Result<Message> SendFileAsMember(const Principal& p, const std::string& id, const FileUpload& in);

  // ---- Operator (System principal only; others get FORBIDDEN) ----
  // Records an inbound customer message (creating contact and conversation as
  // needed) and returns the conversation after it.
  Result<Conversation> ReceiveInbound(const Principal& p, const InboundMessageInput& in);
  Status RecordBrowsedPage(const Principal& p, const std::string& id, const BrowsedPage& page);
  Status PutSummary(const Principal& p, const std::string& id, const std::string& text, const std::string& summarizer);

 private:
  internal::ServiceContext& ctx_;
  struct Sent;
  Result<std::pair<MessageQuery, int>> MessagePageQuery(const Principal& p, const PageRequest& page,
                                                        const std::optional<std::string>& order);
  Result<std::optional<std::string>> CheckSend(const Principal& p, const SendMessageInput& in);
  Result<Sent> WriteSend(StoreWriter& w, const Principal& p, const std::string& id, const SendMessageInput& in,
                         const std::optional<std::string>& memberId, Millis now, internal::SentFile* attachment);
  Message AfterSend(const SendMessageInput& in, Sent&& sent);
  Result<Message> SendMessageWith(const Principal& p, const std::string& id, const SendMessageInput& in,
                                  internal::SentFile* attachment);
};

}  // namespace livechat
