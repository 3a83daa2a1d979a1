// ConversationService: reading and sending messages, with the AI handoff, automatic
// assignment and channel deliverability rules.
#include <fmt/format.h>

#include "core/cursor.h"
#include "core/service_internal.h"
#include "livechat/json_codec.h"
#include "livechat/chat_service.h"

namespace livechat {

using namespace internal;

namespace {

// The rules that make an agent reply undeliverable (409 CHANNEL_UNAVAILABLE).
// Checked before anything is written, so a refused reply leaves no trace.
Status CheckDeliverable(const Conversation& c, const Customer* customer, Millis now, Millis window) {
  const std::string& ch = c.channel;
  if (ch == "email") {
    bool hasEmail = (c.customerEmail && !c.customerEmail->empty()) ||
                    (customer && customer->email && !customer->email->empty());
    if (!hasEmail)
      return MakeError(ErrorCode::kChannelUnavailable,
                       "cannot deliver by email: the customer has no email address (send it as a note instead)");
    return Status::Ok();
  }
  if (ch == "facebook" || ch == "instagram" || ch == "whatsapp") {
    bool hasRecipient = customer && ((customer->channelRecipient && !customer->channelRecipient->empty()) ||
                                     (ch == "whatsapp" && customer->phone && !customer->phone->empty()));
    if (!hasRecipient)
      return MakeError(ErrorCode::kChannelUnavailable,
                       fmt::format("cannot deliver on {}: the conversation has no recipient", ch));
    if (!c.lastCustomerMessageAt || now - *c.lastCustomerMessageAt > window)
      return MakeError(ErrorCode::kChannelUnavailable,
                       fmt::format("cannot deliver on {}: the customer's last message is older than the 24-hour "
                                   "messaging window",
                                   ch));
  }
  return Status::Ok();  // online_store (the widget reads it) and channels added later
}

void AddUnique(std::vector<std::string>& v, const std::string& s) {
  for (const auto& x : v)
    if (x == s) return;
  v.push_back(s);
}

}  // namespace

// A message page's query, its conversation still to be found (the page's
// read does), and the page size asked for; one row more is read.
Result<std::pair<MessageQuery, int>> ConversationService::MessagePageQuery(const Principal& p, const PageRequest& page,
                                                                           const std::optional<std::string>& order) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  LC_ASSIGN_OR_RETURN(int limit, ResolveLimit(page.limit, ctx_.limits().messagesDefault, ctx_.limits().messagesMax));
  if (order && *order != "asc" && *order != "desc") return Invalid("order must be asc or desc");
  MessageQuery q;
  q.shopId = p.shopId;
  q.descending = order && *order == "desc";
  q.limit = limit + 1;
  if (page.cursor) {
    auto seq = DecodeMessageCursor(*page.cursor);
    if (!seq) return Invalid("cursor is not valid: pass paging.nextCursor from the previous page unchanged");
    q.afterSeq = *seq;
  }
  return std::pair<MessageQuery, int>{std::move(q), limit};
}

Result<Page<Message>> ConversationService::ListMessages(const Principal& p, const std::string& id, const PageRequest& page,
                                                const std::optional<std::string>& order) {
  LC_ASSIGN_OR_RETURN(auto query, MessagePageQuery(p, page, order));
  // Not a structured binding: the lambdas below capture them (clang 14
  // refuses to capture a binding).
  MessageQuery& q = query.first;
  const int limit = query.second;
  LC_ASSIGN_OR_RETURN(auto rows, ReadValue<std::vector<Message>>(ctx_.store(), [&](StoreReader& r) -> Result<std::vector<Message>> {
                        LC_ASSIGN_OR_RETURN(q.conversationId, LoadConversationId(r, p.shopId, id));
                        return r.ListMessages(q);
                      }));
  Page<Message> out;
  out.hasMore = static_cast<int>(rows.size()) > limit;
  if (out.hasMore) {
    rows.resize(static_cast<std::size_t>(limit));
    out.nextCursor = EncodeMessageCursor(rows.back().seq);
  }
  AddFileUrls(ctx_, rows);
  out.items = std::move(rows);
  return out;
}

Result<Page<std::shared_ptr<const std::string>>> ConversationService::ListMessagesJson(
    const Principal& p, const std::string& id, const PageRequest& page, const std::optional<std::string>& order) {
  using Json = std::shared_ptr<const std::string>;
  RowJsonCache& cache = ctx_.messageCache;
  auto toJson = [](const Message& m) {
    std::string json;
    AppendJson(json, m, JsonView::kList);
    return std::make_shared<const std::string>(std::move(json));
  };
  Page<Json> out;
  if (!cache.enabled()) {
    LC_ASSIGN_OR_RETURN(Page<Message> rows, ListMessages(p, id, page, order));
    for (const Message& m : rows.items) out.items.push_back(toJson(m));
    out.nextCursor = std::move(rows.nextCursor);
    out.hasMore = rows.hasMore;
    return out;
  }
  LC_ASSIGN_OR_RETURN(auto query, MessagePageQuery(p, page, order));
  // Not a structured binding: the lambdas below capture them (clang 14
  // refuses to capture a binding).
  MessageQuery& q = query.first;
  const int limit = query.second;
  std::vector<MessageVersion> versions;
  std::optional<std::vector<Message>> unversioned;
  std::vector<Message> changed;
  KeptPage kept(cache);
  // As the conversation list: the versions and the rows not kept in one
  // read; serialized after it (a file's URL is signed then, as ListMessages
  // signs it).
  LC_RETURN_IF_ERROR(ctx_.store().Read([&](StoreReader& r) -> Status {
    unversioned.reset();
    changed.clear();
    LC_ASSIGN_OR_RETURN(q.conversationId, LoadConversationId(r, p.shopId, id));
    LC_ASSIGN_OR_RETURN(auto listed, r.ListMessageVersions(q));
    if (!listed) {
      LC_ASSIGN_OR_RETURN(auto rows, r.ListMessages(q));
      unversioned = std::move(rows);
      return Status::Ok();
    }
    versions = std::move(*listed);
    std::vector<KeptRow> shown;
    for (std::size_t i = 0; i < versions.size() && i < static_cast<std::size_t>(limit); ++i)
      // A file's JSON holds a URL signed for now: never kept.
      shown.push_back(KeptRow{versions[i].seq, versions[i].version, versions[i].plain});
    const std::vector<std::int64_t> missing = kept.Look(std::move(shown));
    if (missing.empty()) return Status::Ok();
    LC_ASSIGN_OR_RETURN(changed, r.ListMessagesBySeq(p.shopId, q.conversationId, missing));
    return Status::Ok();
  }));
  if (unversioned) {
    // A store without row versions: the rows as ListMessages reads them.
    out.hasMore = static_cast<int>(unversioned->size()) > limit;
    if (out.hasMore) {
      unversioned->resize(static_cast<std::size_t>(limit));
      out.nextCursor = EncodeMessageCursor(unversioned->back().seq);
    }
    AddFileUrls(ctx_, *unversioned);
    for (const Message& m : *unversioned) out.items.push_back(toJson(m));
    return out;
  }
  AddFileUrls(ctx_, changed);
  LC_RETURN_IF_ERROR(kept.Fill(changed, [](const Message& m) { return m.seq; }, toJson));
  out.items = std::move(kept.items);
  out.hasMore = static_cast<int>(versions.size()) > limit;
  if (out.hasMore && limit > 0) out.nextCursor = EncodeMessageCursor(versions[static_cast<std::size_t>(limit) - 1].seq);
  return out;
}

Result<Message> ConversationService::GetMessage(const Principal& p, const std::string& id, const std::string& messageId) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  LC_ASSIGN_OR_RETURN(Message m, ReadValue<Message>(ctx_.store(), [&](StoreReader& r) -> Result<Message> {
    LC_ASSIGN_OR_RETURN(std::string conversationId, LoadConversationId(r, p.shopId, id));
    LC_ASSIGN_OR_RETURN(auto found, r.GetMessage(p.shopId, conversationId, messageId));
    if (!found) return NotFound("message");
    return std::move(*found);
  }));
  AddFileUrls(ctx_, m, ctx_.clock->NowMillis() + ctx_.limits().fileUrlTtlMillis);
  return m;
}

Result<Message> ConversationService::SendMessage(const Principal& p, const std::string& id, const SendMessageInput& in) {
  return SendMessageWith(p, id, in, nullptr);
}

Result<Message> ConversationService::SendFileAsMember(const Principal& p, const std::string& id, const FileUpload& upload) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  if (upload.kind != "attachment") return Invalid("a conversation's files are attachments (kind attachment)");
  if (!p.memberId) return Invalid("an attachment is sent by a signed-in member");
  const Millis now = ctx_.clock->NowMillis();
  LC_ASSIGN_OR_RETURN(SentFile sent, PrepareAttachment(ctx_, &p, "member", *p.memberId, p.shopId, upload, now));
  SendMessageInput in;
  in.text = sent.file.name;
  auto out = SendMessageWith(p, id, in, &sent);
  if (!out.ok()) {
    (void)ctx_.options.blobs->Delete(sent.blobKey);  // a refused send leaves no bytes behind
    return out;
  }
  AddFileUrls(ctx_, *out, now + ctx_.limits().fileUrlTtlMillis);
  return out;
}

// What a send wrote, for the work after its commit.
struct ConversationService::Sent {
  Message message;
  Conversation conversation;
  std::optional<Customer> customer;
};

// The rules a send checks before it reads anything.
Result<std::optional<std::string>> ConversationService::CheckSend(const Principal& p, const SendMessageInput& in) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  LC_RETURN_IF_ERROR(CheckText(in.text, "text", ctx_.limits().messageTextMax));
  std::optional<std::string> memberId = in.memberId;
  if (!memberId && p.memberId) memberId = p.memberId;  // an inbox session replies as itself
  if (in.asBot && (in.asCustomer || in.isNote)) return Invalid("a bot reply is neither a customer message nor a note");
  if (in.isTransfer && !in.asBot) return Invalid("only the AI agent hands a conversation over");
  if (!in.asCustomer && !in.asBot && (!memberId || memberId->empty()))
    return Invalid("memberId is required unless asCustomer is true");
  return memberId;
}

// The send's write: the message, the conversation's new state, its events.
Result<ConversationService::Sent> ConversationService::WriteSend(StoreWriter& w, const Principal& p,
                                                                 const std::string& id, const SendMessageInput& in,
                                                                 const std::optional<std::string>& memberId,
                                                                 Millis now, internal::SentFile* attachment) {
  LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
  const Conversation before = c;
  std::optional<Customer> customer;
  if (c.customerUuid) {
    LC_ASSIGN_OR_RETURN(customer, w.GetCustomer(p.shopId, *c.customerUuid));
  }
  Message m;
  m.id = ctx_.random->TimeOrderedUuid(now);
  m.conversationId = c.id;
  m.shopId = p.shopId;
  m.text = *in.text;
  m.createdAt = now;
  m.isFirst = c.messageCount.value_or(0) == 0;
  std::vector<Event> events;

  if (in.asCustomer) {
    // Relay of an inbound message: memberId and isNote are ignored.
    m.senderType = "customer";
    m.senderName = c.customerName.value_or(customer && customer->name ? *customer->name : "Customer");
    c.lastCustomerMessageAt = now;
    c.isRead = false;
    c.isCustomerRead = true;
    c.lastMessage = LastMessage{m.text, m.senderType, now};
    c.lastActive = now;
  } else if (in.asBot) {
    LC_RETURN_IF_ERROR(CheckChannelConnected(w, p.shopId, c.channel));
    LC_RETURN_IF_ERROR(CheckDeliverable(c, customer ? &*customer : nullptr, now, ctx_.limits().channelWindowMillis));
    m.senderType = "bot";
    m.senderName = "AI assistant";
    m.isBot = true;
    m.isAdmin = true;
    m.isAutomated = true;
    m.isTransfer = in.isTransfer;
    c.hasChatBot = true;
    c.isChatBot = !in.isTransfer;  // a transfer lets go; any other reply takes (or keeps) the conversation
    c.isCustomerRead = false;
    c.lastMessage = LastMessage{m.text, m.senderType, now};
    c.lastActive = now;
  } else {
    LC_ASSIGN_OR_RETURN(auto member, LoadActiveMember(w, p.shopId, memberId, "memberId"));
    m.senderType = "agent";
    m.senderName = MemberFullName(member);
    m.memberId = member.id;
    m.isAdmin = true;
    m.isNote = in.isNote;
    c.isRead = true;  // an agent writing has read the conversation
    if (!in.isNote) {
      LC_RETURN_IF_ERROR(CheckChannelConnected(w, p.shopId, c.channel));
      LC_RETURN_IF_ERROR(CheckDeliverable(c, customer ? &*customer : nullptr, now, ctx_.limits().channelWindowMillis));
      if (c.isChatBot) c.isChatBot = false;  // the human takes over from the AI agent
      LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
      if (shop && shop->autoAssign && !c.memberId && !c.isChatBot) {
        c.memberId = member.id;
        events.push_back(Event{ctx_.random->TimeOrderedUuid(now), p.shopId, "conversation.assigned", c.id, now,
                               JsonObject().Str("memberId", member.id).Null("previousMemberId").Done()});
      }
      c.isCustomerRead = false;
      c.lastMessage = LastMessage{m.text, m.senderType, now};
      c.lastActive = now;
    }
  }
  c.hasFirstMsg = true;
  c.messageCount = c.messageCount.value_or(0) + 1;
  c.updatedAt = now;
  if (attachment) {
    m.contentType = "file";
    m.filesJson = attachment->filesJson;
  }
  LC_RETURN_IF_ERROR(w.InsertMessage(m));
  if (attachment) {
    attachment->file.conversationId = m.conversationId;
    attachment->file.messageId = m.id;
    LC_RETURN_IF_ERROR(w.InsertFile(attachment->file));
  }
  LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c, before));
  if (!ok) return NotFound("conversation");
  if (in.asCustomer && customer) {
    customer->lastChatAt = now;
    customer->updatedAt = now;
    LC_RETURN_IF_ERROR(w.UpdateCustomer(*customer));
  }
  if (!m.isNote)  // notes are internal: never an event
    events.push_back(Event{ctx_.random->TimeOrderedUuid(now), p.shopId, "message.created", c.id, now,
                           MessageEventData(m, attachment ? &attachment->eventFilesJson : nullptr)});
  LC_RETURN_IF_ERROR(EmitEvents(w, *ctx_.random, events));
  return Sent{std::move(m), std::move(c), std::move(customer)};
}

// After the commit: wake the dispatcher, hand the reply to its channel.
Message ConversationService::AfterSend(const SendMessageInput& in, Sent&& sent) {
  ctx_.NotifyEventsQueued();
  // Delivery happens after the commit: a sender failure never loses the
  // message the agent wrote (the rules above already refused what cannot go).
  if (!in.asCustomer && !in.isNote && sent.conversation.channel != "online_store" &&
      sent.conversation.channel != "playground") {
    Status st = ctx_.sender->Deliver(sent.conversation, sent.customer ? &*sent.customer : nullptr, sent.message);
    (void)st;  // logged by the sender; the message stands
  }
  return std::move(sent.message);
}

Result<Message> ConversationService::SendMessageWith(const Principal& p, const std::string& id, const SendMessageInput& in,
                                             internal::SentFile* attachment) {
  LC_ASSIGN_OR_RETURN(std::optional<std::string> memberId, CheckSend(p, in));
  const Millis now = ctx_.clock->NowMillis();
  LC_ASSIGN_OR_RETURN(auto sent, WriteValue<Sent>(ctx_.store(), [&](StoreWriter& w) {
    return WriteSend(w, p, id, in, memberId, now, attachment);
  }));
  return AfterSend(in, std::move(sent));
}

void ConversationService::SendMessageAsync(const Principal& p, const std::string& id, const SendMessageInput& in,
                                           std::function<void(Result<Message>)> done) {
  auto memberId = CheckSend(p, in);
  if (!memberId.ok()) return done(memberId.take_error());
  // What the write and its answer need, kept until the answer: the caller's
  // arguments are gone by then.
  struct Job {
    Principal p;
    std::string id;
    SendMessageInput in;
    std::optional<std::string> memberId;
    Millis now = 0;
    std::optional<Sent> sent;
  };
  auto job = std::make_shared<Job>(Job{p, id, in, std::move(memberId).value(), ctx_.clock->NowMillis(), std::nullopt});
  ctx_.store().WriteAsync(
      [this, job](StoreWriter& w) -> Status {
        auto sent = WriteSend(w, job->p, job->id, job->in, job->memberId, job->now, nullptr);
        if (!sent.ok()) return sent.take_error();
        job->sent = std::move(sent).value();
        return Status::Ok();
      },
      [this, job, done = std::move(done)](Status st) {
        if (!st.ok()) return done(st.take_error());
        done(AfterSend(job->in, std::move(*job->sent)));
      });
}

namespace internal {

std::string CustomerCreatedData(const Customer& c) {
  JsonObject o;
  o.Str("customerId", c.id)
      .Str("email", c.email)
      .Str("firstName", c.firstName)
      .Str("lastName", c.lastName)
      .Str("phone", c.phone)
      .Strings("tags", c.tags);
  // A redacted contact's counts are null, as its read shows them; a new
  // contact's unknown ones are 0.
  if (c.redactedAt) return o.Null("ordersCount").Null("totalSpent").Done();
  return o.Int("ordersCount", c.ordersCount.value_or(0)).Double("totalSpent", c.totalSpent.value_or(0)).Done();
}

Customer NewContact(Random& random, const std::string& shopId, const std::optional<std::string>& name,
                    const std::optional<std::string>& email, const std::optional<std::string>& phone, Millis now) {
  Customer c;
  c.id = random.Uuid();
  c.shopId = shopId;
  c.name = name;
  if (name) {
    auto space = name->find(' ');
    c.firstName = name->substr(0, space);
    if (space != std::string::npos) c.lastName = name->substr(space + 1);
  }
  c.email = email;
  c.phone = phone;
  c.type = (email && !email->empty()) ? "guest" : "anonymous";
  c.createdAt = now;
  return c;
}

Result<InboundRecord> RecordInbound(StoreWriter& w, Random& random, const std::string& shopId,
                                    const InboundMessageInput& in, Millis now) {
  LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(shopId));
  if (!shop) return NotFound("store");
  std::vector<Event> events;

  // The contact: the same email within a store is the same contact.
  std::optional<Customer> customer;
  if (in.customerId) {
    LC_ASSIGN_OR_RETURN(customer, w.GetCustomer(shopId, *in.customerId));
    if (!customer) return NotFound("customer");
  } else if (in.customerEmail && !in.customerEmail->empty()) {
    LC_ASSIGN_OR_RETURN(customer, w.FindCustomerByEmail(shopId, *in.customerEmail));
  }
  std::optional<Conversation> conv;
  if (in.conversationId) {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, shopId, *in.conversationId));
    conv = std::move(c);
    if (!customer && conv->customerUuid) {
      LC_ASSIGN_OR_RETURN(customer, w.GetCustomer(shopId, *conv->customerUuid));
    }
  }
  bool newCustomer = false;
  if (!customer) {
    customer = NewContact(random, shopId, in.customerName, in.customerEmail, in.customerPhone, now);
    newCustomer = true;
  }
  AddUnique(customer->channels, in.channel);
  if (in.channelRecipient) customer->channelRecipient = in.channelRecipient;
  if (in.customerPhone && !customer->phone) customer->phone = in.customerPhone;
  if (in.customerName && !customer->name) customer->name = in.customerName;
  customer->lastChatAt = now;
  customer->updatedAt = now;
  if (newCustomer) {
    LC_RETURN_IF_ERROR(w.InsertCustomer(*customer));
    events.push_back(Event{random.TimeOrderedUuid(now), shopId, "customer.created", std::nullopt, now, CustomerCreatedData(*customer)});
  } else {
    LC_RETURN_IF_ERROR(w.UpdateCustomer(*customer));
  }

  bool newConversation = !conv;
  std::optional<Conversation> before;  // the row as read, for a narrow update
  if (!newConversation) before = *conv;
  if (newConversation) {
    Conversation c;
    c.id = random.Uuid();
    c.shopId = shopId;
    c.inNewDatastore = !in.legacy;
    if (in.legacy) c.firestoreId = random.Hex(10);  // 20 characters, as the older datastore's ids
    c.sessionId = in.sessionId;
    c.customerUuid = customer->id;
    c.customerName = customer->name;
    c.customerEmail = customer->email;
    c.customerType = customer->type;
    c.channel = in.channel;
    c.channels = {in.channel};
    c.createdAt = now;
    c.messageCount = 0;
    conv = std::move(c);
  }
  Conversation& c = *conv;
  AddUnique(c.channels, in.channel);

  Message m;
  m.id = random.TimeOrderedUuid(now);
  m.conversationId = c.id;
  m.shopId = shopId;
  m.text = in.text;
  m.contentType = in.contentType;
  m.filesJson = in.filesJson;
  m.senderType = "customer";
  m.senderName = customer->name.value_or("Customer");
  m.createdAt = now;
  m.isFirst = c.messageCount.value_or(0) == 0;

  c.hasFirstMsg = true;
  c.status = newConversation ? "open" : c.status;
  c.isRead = false;
  c.isCustomerRead = true;
  c.messageCount = c.messageCount.value_or(0) + 1;
  c.lastMessage = LastMessage{m.text, m.senderType, now};
  c.lastActive = now;
  c.lastCustomerMessageAt = now;
  c.updatedAt = now;
  if (newConversation) {
    LC_RETURN_IF_ERROR(w.InsertConversation(c));
    events.push_back(Event{random.TimeOrderedUuid(now), shopId, "conversation.created", c.id, now,
                           JsonObject()
                               .Str("type", c.customerType)
                               .Str("customerId", customer->id)
                               .Str("channel", c.channel)
                               .Bool("isChatBot", c.isChatBot)
                               .Bool("isFirstMessage", true)
                               .Done()});
  } else {
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c, *before));
    if (!ok) return NotFound("conversation");
  }
  LC_RETURN_IF_ERROR(w.InsertMessage(m));
  events.push_back(Event{random.TimeOrderedUuid(now), shopId, "message.created", c.id, now,
                         MessageEventData(m, in.eventFilesJson ? &*in.eventFilesJson : nullptr)});
  LC_RETURN_IF_ERROR(EmitEvents(w, random, events));
  return InboundRecord{std::move(c), std::move(m), std::move(*customer), newConversation};
}

}  // namespace internal

Result<Conversation> ConversationService::ReceiveInbound(const Principal& p, const InboundMessageInput& in) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  if (!IsKnownChannel(in.channel)) return Invalid(UnknownChannelMessage());
  LC_RETURN_IF_ERROR(CheckText(in.text, "text", ctx_.limits().messageTextMax));
  if (in.customerName) LC_RETURN_IF_ERROR(CheckText(in.customerName, "customerName", 255));
  if (in.customerEmail) LC_RETURN_IF_ERROR(CheckText(in.customerEmail, "customerEmail", 254));
  const Millis now = ctx_.clock->NowMillis();

  auto out = WriteValue<Conversation>(ctx_.store(), [&](StoreWriter& w) -> Result<Conversation> {
    LC_ASSIGN_OR_RETURN(InboundRecord rec, RecordInbound(w, *ctx_.random, p.shopId, in, now));
    return std::move(rec.conversation);
  });
  if (out.ok()) ctx_.NotifyEventsQueued();
  return out;
}

}  // namespace livechat
