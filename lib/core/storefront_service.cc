// StorefrontService: the storefront widget's operations. A visitor session stands
// in for a credential: every call re-reads the session in its transaction
// and acts only on that session's contact and conversation.
#include <algorithm>
#include <functional>

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "livechat/crypto.h"
#include "core/rate_limiter.h"
#include "core/service_internal.h"
#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"
#include "livechat/chat_service.h"

namespace livechat {

using namespace internal;

namespace {

constexpr std::string_view kCustomerTypingId = "customer";
constexpr int kIdentityTextMax = 255;
constexpr int kEmailMax = 254;
constexpr int kPhoneMax = 32;
constexpr int kPageTitleMax = 255;
constexpr int kUrlMax = 2048;
constexpr std::string_view kPendingPages = "pendingPages";
constexpr std::string_view kPendingAttributes = "pendingAttributes";

Error Unauthenticated() {
  return MakeError(ErrorCode::kUnauthenticated, "the visitor session is unknown or has ended: start a new one");
}

// The session as stored now, still usable by this store.
Result<VisitorSession> Reload(StoreReader& r, const VisitorSession& s) {
  LC_ASSIGN_OR_RETURN(auto found, r.FindVisitorSession(s.tokenHash));
  if (!found || found->endedAt || found->shopId != s.shopId || found->id != s.id) return Unauthenticated();
  return std::move(*found);
}

// The session's state object. Stored text is always an object (written here).
rapidjson::Document ParseState(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str(), json.size());
  if (d.HasParseError() || !d.IsObject()) d.SetObject();
  return d;
}

std::string Serialize(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return {buf.GetString(), buf.GetSize()};
}

void SetMember(rapidjson::Document& d, std::string_view key, rapidjson::Value value) {
  auto it = d.FindMember(rapidjson::StringRef(key.data(), key.size()));
  if (it != d.MemberEnd()) {
    it->value = std::move(value);
  } else {
    d.AddMember(rapidjson::Value(key.data(), static_cast<rapidjson::SizeType>(key.size()), d.GetAllocator()),
                std::move(value), d.GetAllocator());
  }
}

void RemoveMember(rapidjson::Document& d, std::string_view key) {
  d.RemoveMember(rapidjson::StringRef(key.data(), key.size()));
}

// Appends to the array `key`, dropping the oldest beyond `keep`.
void AppendBounded(rapidjson::Document& d, std::string_view key, rapidjson::Value value, int keep) {
  auto it = d.FindMember(rapidjson::StringRef(key.data(), key.size()));
  if (it == d.MemberEnd() || !it->value.IsArray()) {
    SetMember(d, key, rapidjson::Value(rapidjson::kArrayType));
    it = d.FindMember(rapidjson::StringRef(key.data(), key.size()));
  }
  it->value.PushBack(std::move(value), d.GetAllocator());
  while (static_cast<int>(it->value.Size()) > keep && it->value.Size() > 0) it->value.Erase(it->value.Begin());
}

Status CheckIdentity(const VisitorIdentity& who) {
  if (who.id) LC_RETURN_IF_ERROR(CheckText(who.id, "id", 64));
  if (who.email) LC_RETURN_IF_ERROR(CheckText(who.email, "email", kEmailMax));
  if (who.name) LC_RETURN_IF_ERROR(CheckText(who.name, "name", kIdentityTextMax));
  if (who.firstName) LC_RETURN_IF_ERROR(CheckText(who.firstName, "firstName", kIdentityTextMax));
  if (who.lastName) LC_RETURN_IF_ERROR(CheckText(who.lastName, "lastName", kIdentityTextMax));
  if (who.phone) LC_RETURN_IF_ERROR(CheckText(who.phone, "phone", kPhoneMax));
  return Status::Ok();
}

Status CheckAttributes(const std::map<std::string, std::string>& attrs, const Limits& limits) {
  if (attrs.empty()) return Invalid("attributes must have at least one key");
  for (const auto& [name, value] : attrs) {
    LC_RETURN_IF_ERROR(CheckText(name, "attribute name", limits.attributeNameMax));
    LC_RETURN_IF_ERROR(CheckText(value, "attribute value", limits.attributeValueMax, /*allowEmpty=*/true));
  }
  return Status::Ok();
}

void ApplyIdentity(Customer& c, const VisitorIdentity& who) {
  if (who.email) {
    c.email = who.email;
    if (c.type == "anonymous") c.type = "guest";
  }
  if (who.id) {
    c.shopifyId = who.id;
    c.type = "customer";
  }
  if (who.firstName) c.firstName = who.firstName;
  if (who.lastName) c.lastName = who.lastName;
  if (who.name) {
    c.name = who.name;
    if (!who.firstName && !who.lastName) {
      auto space = who.name->find(' ');
      c.firstName = who.name->substr(0, space);
      c.lastName = space == std::string::npos ? std::nullopt : std::optional(who.name->substr(space + 1));
    }
  } else if (who.firstName || who.lastName) {
    std::string full = c.firstName.value_or("");
    if (c.lastName) full += (full.empty() ? "" : " ") + *c.lastName;
    c.name = full;
  }
  if (who.phone) c.phone = who.phone;
}

// Upsert by name inside an open transaction (the REST rule: same name, same row).
Status UpsertAttributeIn(StoreWriter& w, Random& random, const std::string& shopId, const std::string& conversationId,
                         const std::string& name, const std::string& value, Millis now) {
  LC_ASSIGN_OR_RETURN(auto existing, w.FindAttributeByName(shopId, conversationId, name));
  if (existing) {
    if (existing->value == value) return Status::Ok();
    existing->value = value;
    existing->updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateAttribute(*existing));
    (void)ok;
    return Status::Ok();
  }
  return w.InsertAttribute(Attribute{random.Uuid(), shopId, conversationId, name, value, now, now});
}

// VisitorUpdates::view. A digest, not the fields: the widget only compares it,
// and a field shown later joins the digest without a new query parameter.
std::string VisitorView(const VisitorUpdates& u) {
  std::string shown;
  if (u.conversation) {
    const Conversation& c = *u.conversation;
    shown = fmt::format("{}|{}|{}|{}", c.id, c.status, c.isChatBot ? 1 : 0, c.memberId ? 1 : 0);
  }
  std::vector<std::string> typing;
  for (const auto& t : u.typing) typing.push_back(t.memberId);
  std::sort(typing.begin(), typing.end());
  for (const auto& id : typing) shown += "|" + id;
  return Sha256Hex(shown).substr(0, 16);
}

}  // namespace

// The storefront's write path: reload the session, run fn, save the session.
// One transaction, so a rejected call changes nothing.
class StorefrontTx {
 public:
  template <typename T, typename Fn>
  static Result<T> Run(Store& store, const VisitorSession& s, Millis now, Fn&& fn) {
    return WriteValue<T>(store, [&](StoreWriter& w) -> Result<T> {
      LC_ASSIGN_OR_RETURN(VisitorSession cur, Reload(w, s));
      LC_ASSIGN_OR_RETURN(T out, fn(w, cur));
      cur.lastSeenAt = now;
      LC_ASSIGN_OR_RETURN(bool ok, w.UpdateVisitorSession(cur));
      if (!ok) return Unauthenticated();
      return out;
    });
  }
};

namespace {

// A new session of `shopId` inside an open transaction.
Result<VisitorStart> InsertVisitorSession(StoreWriter& w, Random& random, const std::string& shopId, Millis now) {
  VisitorStart out;
  out.token = "vs_" + random.Hex(24);
  out.session.id = random.Uuid();
  out.session.shopId = shopId;
  out.session.tokenHash = Sha256Hex(out.token);
  out.session.createdAt = now;
  out.session.lastSeenAt = now;
  LC_RETURN_IF_ERROR(w.InsertVisitorSession(out.session));
  return out;
}

// Runs `start` in the window of new sessions from `sourceIp`; only a session
// that was created counts (a refusal of any kind gives its place back).
Result<VisitorStart> WithinSessionWindow(RateWindows& limiter, const std::string& sourceIp, int limit,
                                         const std::function<Result<VisitorStart>()>& start) {
  const std::string key = "visitor-start:" + sourceIp;
  auto window = limiter.Take(key, limit);
  if (!window.allowed)
    return RetryLaterError(ErrorCode::kRateLimited,
                           fmt::format("too many new chat sessions from this address; try again in {} s",
                                       (window.resetInMillis + 999) / 1000),
                           window.resetInMillis);
  auto out = start();
  if (!out.ok()) limiter.Return(key, window.at);
  return out;
}

Result<Shop> InstalledShop(const std::optional<Shop>& shop) {
  if (!shop || !shop->installed) return NotFound("store");
  return *shop;
}

}  // namespace

Result<VisitorStart> StorefrontService::StartVisitorSession(const std::string& appId, const std::string& sourceIp) {
  if (appId.empty()) return MakeError(ErrorCode::kUnauthenticated, "the store's App ID is required (X-App-Id)");
  const Millis now = ctx_.clock->NowMillis();
  return WithinSessionWindow(*ctx_.limiter, sourceIp, ctx_.limits().visitorSessionsPerIp, [&] {
    return WriteValue<VisitorStart>(ctx_.store(), [&](StoreWriter& w) -> Result<VisitorStart> {
      LC_ASSIGN_OR_RETURN(auto found, w.GetShopByAppId(appId));
      LC_ASSIGN_OR_RETURN(Shop shop, InstalledShop(found));
      return InsertVisitorSession(w, *ctx_.random, shop.id, now);
    });
  });
}

Result<VisitorStart> StorefrontService::RenewVisitorSession(const VisitorSession& s, const std::string& sourceIp) {
  const Millis now = ctx_.clock->NowMillis();
  return WithinSessionWindow(*ctx_.limiter, sourceIp, ctx_.limits().visitorSessionsPerIp, [&] {
    return WriteValue<VisitorStart>(ctx_.store(), [&](StoreWriter& w) -> Result<VisitorStart> {
      LC_ASSIGN_OR_RETURN(VisitorSession cur, Reload(w, s));
      LC_ASSIGN_OR_RETURN(auto found, w.GetShop(cur.shopId));
      LC_ASSIGN_OR_RETURN(Shop shop, InstalledShop(found));
      cur.endedAt = now;
      cur.lastSeenAt = now;
      LC_ASSIGN_OR_RETURN(bool ok, w.UpdateVisitorSession(cur));
      if (!ok) return Unauthenticated();
      return InsertVisitorSession(w, *ctx_.random, shop.id, now);
    });
  });
}

Result<VisitorSession> StorefrontService::AuthenticateVisitor(const std::string& appId, const std::string& token) {
  if (token.empty()) return MakeError(ErrorCode::kUnauthenticated, "a visitor session token is required");
  const std::string hash = Sha256Hex(token);
  return ReadValue<VisitorSession>(ctx_.store(), [&](StoreReader& r) -> Result<VisitorSession> {
    LC_ASSIGN_OR_RETURN(auto s, r.FindVisitorSession(hash));
    if (!s || s->endedAt) return Unauthenticated();
    // The hash matched, but a token of another store's widget is not this store's.
    LC_ASSIGN_OR_RETURN(auto shop, r.GetShop(s->shopId));
    if (!shop || shop->appId != appId || !ConstantTimeEquals(s->tokenHash, hash)) return Unauthenticated();
    return std::move(*s);
  });
}

Status StorefrontService::EndVisitorSession(const VisitorSession& s) {
  const Millis now = ctx_.clock->NowMillis();
  auto out = StorefrontTx::Run<bool>(ctx_.store(), s, now, [&](StoreWriter&, VisitorSession& cur) -> Result<bool> {
    cur.endedAt = now;
    return true;
  });
  if (!out.ok()) return out.take_error();
  return Status::Ok();
}

namespace {

// The session's contact, created (with customer.created) when it has none.
Result<Customer> EnsureCustomer(StoreWriter& w, Random& random, VisitorSession& s, const VisitorIdentity* who,
                                Millis now, std::vector<Event>& events) {
  if (s.customerId) {
    LC_ASSIGN_OR_RETURN(auto c, w.GetCustomer(s.shopId, *s.customerId));
    if (c) return std::move(*c);
  }
  // The same email within a store is the same contact (as for inbound mail).
  if (who && who->email) {
    LC_ASSIGN_OR_RETURN(auto found, w.FindCustomerByEmail(s.shopId, *who->email));
    if (found) {
      s.customerId = found->id;
      return std::move(*found);
    }
  }
  Customer c;
  c.id = random.Uuid();
  c.shopId = s.shopId;
  c.type = "anonymous";
  c.channels = {"online_store"};
  c.createdAt = now;
  c.updatedAt = now;
  if (who) ApplyIdentity(c, *who);
  LC_RETURN_IF_ERROR(w.InsertCustomer(c));
  events.push_back(Event{random.TimeOrderedUuid(now), s.shopId, "customer.created", std::nullopt, now, CustomerCreatedData(c)});
  s.customerId = c.id;
  return c;
}

// Writes what waited on the session for the conversation to exist.
Status FlushPending(StoreWriter& w, Random& random, VisitorSession& s, const Conversation& c, int pagesKept,
                    Millis now) {
  rapidjson::Document state = ParseState(s.stateJson);
  auto pages = state.FindMember(rapidjson::StringRef(kPendingPages.data(), kPendingPages.size()));
  if (pages != state.MemberEnd() && pages->value.IsArray()) {
    for (const auto& p : pages->value.GetArray()) {
      BrowsedPage page{p["url"].GetString(), std::nullopt, p["viewedAt"].GetInt64()};
      if (p.HasMember("title") && p["title"].IsString()) page.title = p["title"].GetString();
      LC_RETURN_IF_ERROR(w.InsertBrowsedPage(s.shopId, c.id, page, pagesKept));
    }
  }
  auto attrs = state.FindMember(rapidjson::StringRef(kPendingAttributes.data(), kPendingAttributes.size()));
  if (attrs != state.MemberEnd() && attrs->value.IsObject()) {
    for (const auto& a : attrs->value.GetObject())
      LC_RETURN_IF_ERROR(UpsertAttributeIn(w, random, s.shopId, c.id, a.name.GetString(), a.value.GetString(), now));
  }
  RemoveMember(state, kPendingPages);
  RemoveMember(state, kPendingAttributes);
  s.stateJson = Serialize(state);
  return Status::Ok();
}

// Keeps the conversation's copy of the contact's name, email and type current.
Status SyncConversationContact(StoreWriter& w, const VisitorSession& s, const Customer& c, Millis now) {
  if (!s.conversationId) return Status::Ok();
  LC_ASSIGN_OR_RETURN(auto conv, w.FindConversation(s.shopId, *s.conversationId));
  if (!conv) return Status::Ok();
  const Conversation before = *conv;
  conv->customerName = c.name;
  conv->customerEmail = c.email;
  conv->customerType = c.type;
  conv->updatedAt = now;
  LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(*conv, before));
  (void)ok;
  return Status::Ok();
}

}  // namespace

namespace {

// The widget's inbound message (text or file) in one transaction: the
// session's contact and conversation are created as needed, then `after`
// (the attachment's record) runs with the message, in the same transaction.
Result<Message> SendFromVisitor(Store& store, Random& random, const VisitorSession& s, InboundMessageInput in,
                                int pagesKept, Millis now,
                                const std::function<Status(StoreWriter&, const Message&)>& after) {
  return StorefrontTx::Run<Message>(store, s, now, [&](StoreWriter& w, VisitorSession& cur) -> Result<Message> {
    in.channel = "online_store";
    in.sessionId = cur.id;
    in.customerId = cur.customerId;
    in.conversationId = cur.conversationId;
    LC_ASSIGN_OR_RETURN(InboundRecord rec, RecordInbound(w, random, cur.shopId, in, now));
    cur.customerId = rec.customer.id;
    cur.conversationId = rec.conversation.id;
    if (rec.newConversation) {
      rapidjson::Document state = ParseState(cur.stateJson);
      auto pre = state.FindMember("prechat");
      if (pre != state.MemberEnd() && pre->value.IsObject() && pre->value.HasMember("skipped") &&
          pre->value["skipped"].IsTrue()) {
        rec.conversation.hidePreChatMessage = "by-user";
        LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(rec.conversation));
        (void)ok;
      }
      LC_RETURN_IF_ERROR(FlushPending(w, random, cur, rec.conversation, pagesKept, now));
    }
    if (after) LC_RETURN_IF_ERROR(after(w, rec.message));
    return std::move(rec.message);
  });
}

}  // namespace

Result<Message> StorefrontService::VisitorSendMessage(const VisitorSession& s, const std::string& text) {
  LC_RETURN_IF_ERROR(CheckText(text, "text", ctx_.limits().messageTextMax));
  InboundMessageInput in;
  in.text = text;
  auto out = SendFromVisitor(ctx_.store(), *ctx_.random, s, std::move(in), ctx_.limits().browsedPagesKept, ctx_.clock->NowMillis(), {});
  if (out.ok()) ctx_.NotifyEventsQueued();
  return out;
}

Result<Message> StorefrontService::VisitorSendFile(const VisitorSession& s, const FileUpload& upload,
                                             const std::optional<std::string>& caption) {
  if (caption) LC_RETURN_IF_ERROR(CheckText(caption, "caption", ctx_.limits().messageTextMax));
  if (upload.kind != "attachment") return Invalid("the widget sends attachments only (kind attachment)");
  const Millis now = ctx_.clock->NowMillis();
  LC_ASSIGN_OR_RETURN(SentFile sent, PrepareAttachment(ctx_, nullptr, "visitor", s.id, s.shopId, upload, now));
  InboundMessageInput in;
  in.text = caption && !Trim(*caption).empty() ? *caption : sent.file.name;
  in.contentType = "file";
  in.filesJson = sent.filesJson;
  in.eventFilesJson = sent.eventFilesJson;
  auto out = SendFromVisitor(ctx_.store(), *ctx_.random, s, std::move(in), ctx_.limits().browsedPagesKept, now,
                             [&](StoreWriter& w, const Message& m) -> Status {
                               sent.file.conversationId = m.conversationId;
                               sent.file.messageId = m.id;
                               return w.InsertFile(sent.file);
                             });
  if (!out.ok()) {
    (void)ctx_.options.blobs->Delete(sent.blobKey);
    return out;
  }
  ctx_.NotifyEventsQueued();
  AddFileUrls(ctx_, *out, now + ctx_.limits().fileUrlTtlMillis);
  return out;
}

Status StorefrontService::VisitorSetTyping(const VisitorSession& s, bool active) {
  const Millis now = ctx_.clock->NowMillis();
  auto out = StorefrontTx::Run<bool>(ctx_.store(), s, now, [&](StoreWriter& w, VisitorSession& cur) -> Result<bool> {
    if (!cur.conversationId) return false;
    LC_RETURN_IF_ERROR(
        w.PutTyping(cur.shopId, TypingState{*cur.conversationId, std::string(kCustomerTypingId), active, now}));
    return true;
  });
  if (!out.ok()) return out.take_error();
  return Status::Ok();
}

Result<Customer> StorefrontService::VisitorIdentify(const VisitorSession& s, const VisitorIdentity& who) {
  LC_RETURN_IF_ERROR(CheckIdentity(who));
  if (!who.id && !who.email && !who.name && !who.firstName && !who.lastName && !who.phone)
    return Invalid("identify needs at least one of id, email, name, firstName, lastName, phone");
  const Millis now = ctx_.clock->NowMillis();
  std::vector<Event> events;
  auto out = StorefrontTx::Run<Customer>(ctx_.store(), s, now, [&](StoreWriter& w, VisitorSession& cur) -> Result<Customer> {
    events.clear();
    LC_ASSIGN_OR_RETURN(Customer c, EnsureCustomer(w, *ctx_.random, cur, &who, now, events));
    ApplyIdentity(c, who);
    c.updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateCustomer(c));
    if (!ok) return NotFound("customer");
    LC_RETURN_IF_ERROR(SyncConversationContact(w, cur, c, now));
    LC_RETURN_IF_ERROR(EmitEvents(w, *ctx_.random, events));
    return c;
  });
  if (out.ok() && !events.empty()) ctx_.NotifyEventsQueued();
  return out;
}

Result<Customer> StorefrontService::VisitorSetCustomerAttributes(const VisitorSession& s,
                                                           const std::map<std::string, std::string>& attrs) {
  LC_RETURN_IF_ERROR(CheckAttributes(attrs, ctx_.limits()));
  const Millis now = ctx_.clock->NowMillis();
  std::vector<Event> events;
  auto out = StorefrontTx::Run<Customer>(ctx_.store(), s, now, [&](StoreWriter& w, VisitorSession& cur) -> Result<Customer> {
    events.clear();
    LC_ASSIGN_OR_RETURN(Customer c, EnsureCustomer(w, *ctx_.random, cur, nullptr, now, events));
    for (const auto& [k, v] : attrs) c.customAttributes[k] = v;
    c.updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateCustomer(c));
    if (!ok) return NotFound("customer");
    LC_RETURN_IF_ERROR(EmitEvents(w, *ctx_.random, events));
    return c;
  });
  if (out.ok() && !events.empty()) ctx_.NotifyEventsQueued();
  return out;
}

Status StorefrontService::VisitorSetConversationAttributes(const VisitorSession& s,
                                                     const std::map<std::string, std::string>& attrs) {
  LC_RETURN_IF_ERROR(CheckAttributes(attrs, ctx_.limits()));
  const Millis now = ctx_.clock->NowMillis();
  auto out = StorefrontTx::Run<bool>(ctx_.store(), s, now, [&](StoreWriter& w, VisitorSession& cur) -> Result<bool> {
    if (cur.conversationId) {
      for (const auto& [k, v] : attrs)
        LC_RETURN_IF_ERROR(UpsertAttributeIn(w, *ctx_.random, cur.shopId, *cur.conversationId, k, v, now));
      return true;
    }
    rapidjson::Document state = ParseState(cur.stateJson);
    auto it = state.FindMember(rapidjson::StringRef(kPendingAttributes.data(), kPendingAttributes.size()));
    if (it == state.MemberEnd() || !it->value.IsObject()) {
      SetMember(state, kPendingAttributes, rapidjson::Value(rapidjson::kObjectType));
      it = state.FindMember(rapidjson::StringRef(kPendingAttributes.data(), kPendingAttributes.size()));
    }
    for (const auto& [k, v] : attrs) {
      rapidjson::Value value(v.c_str(), static_cast<rapidjson::SizeType>(v.size()), state.GetAllocator());
      auto m = it->value.FindMember(k.c_str());
      if (m != it->value.MemberEnd()) {
        m->value = std::move(value);
      } else {
        it->value.AddMember(rapidjson::Value(k.c_str(), static_cast<rapidjson::SizeType>(k.size()), state.GetAllocator()),
                            std::move(value), state.GetAllocator());
      }
    }
    cur.stateJson = Serialize(state);
    return true;
  });
  if (!out.ok()) return out.take_error();
  return Status::Ok();
}

Status StorefrontService::VisitorRecordPageView(const VisitorSession& s, const BrowsedPage& page) {
  LC_RETURN_IF_ERROR(CheckText(page.url, "url", kUrlMax));
  if (page.url.rfind("http://", 0) != 0 && page.url.rfind("https://", 0) != 0)
    return Invalid("url must be an http or https address");
  if (page.title) LC_RETURN_IF_ERROR(CheckText(page.title, "title", kPageTitleMax, /*allowEmpty=*/true));
  const Millis now = ctx_.clock->NowMillis();
  const BrowsedPage viewed{page.url, page.title, now};
  auto out = StorefrontTx::Run<bool>(ctx_.store(), s, now, [&](StoreWriter& w, VisitorSession& cur) -> Result<bool> {
    if (cur.conversationId) {
      LC_RETURN_IF_ERROR(w.InsertBrowsedPage(cur.shopId, *cur.conversationId, viewed, ctx_.limits().browsedPagesKept));
      return true;
    }
    rapidjson::Document state = ParseState(cur.stateJson);
    rapidjson::Value entry(rapidjson::kObjectType);
    auto& alloc = state.GetAllocator();
    entry.AddMember("url", rapidjson::Value(viewed.url.c_str(), alloc), alloc);
    if (viewed.title) entry.AddMember("title", rapidjson::Value(viewed.title->c_str(), alloc), alloc);
    entry.AddMember("viewedAt", rapidjson::Value(static_cast<std::int64_t>(now)), alloc);
    AppendBounded(state, kPendingPages, std::move(entry), ctx_.limits().browsedPagesKept);
    cur.stateJson = Serialize(state);
    return true;
  });
  if (!out.ok()) return out.take_error();
  return Status::Ok();
}

Result<Conversation> StorefrontService::VisitorEscalate(const VisitorSession& s, const std::optional<std::string>& reason) {
  if (reason) LC_RETURN_IF_ERROR(CheckText(reason, "reason", 500));
  const Millis now = ctx_.clock->NowMillis();
  return StorefrontTx::Run<Conversation>(ctx_.store(), s, now, [&](StoreWriter& w, VisitorSession& cur) -> Result<Conversation> {
    if (!cur.conversationId)
      return MakeError(ErrorCode::kConflict, "there is no conversation to escalate yet: send a message first");
    LC_ASSIGN_OR_RETURN(Conversation c, LoadConversation(w, cur.shopId, *cur.conversationId));
    const Conversation before = c;
    Message m;
    m.id = ctx_.random->TimeOrderedUuid(now);
    m.conversationId = c.id;
    m.shopId = c.shopId;
    m.text = reason ? fmt::format("The customer asked for a human agent: {}", *reason)
                    : std::string("The customer asked for a human agent.");
    m.senderName = "System";
    m.senderType = "system";
    m.isAutomated = true;
    m.isTransfer = c.isChatBot;
    m.createdAt = now;
    LC_RETURN_IF_ERROR(w.InsertMessage(m));
    c.isChatBot = false;
    c.isRead = false;
    c.status = "open";
    c.messageCount = c.messageCount.value_or(0) + 1;
    c.updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c, before));
    if (!ok) return NotFound("conversation");
    return c;
  });
}

namespace {

// Parses `valueJson`, then applies `change` to the session state in one
// transaction. The service's own keys are not the caller's to write.
Status ChangeState(Store& store, Millis now, const VisitorSession& s, std::string_view key,
                   const std::string& valueJson,
                   const std::function<void(rapidjson::Document&, rapidjson::Value&&)>& change) {
  rapidjson::Document value;
  value.Parse(valueJson.c_str(), valueJson.size());
  if (value.HasParseError()) return Invalid("state value must be JSON");
  if (key == kPendingPages || key == kPendingAttributes) return Invalid("this state key is the service's own");
  auto out = StorefrontTx::Run<bool>(store, s, now, [&](StoreWriter&, VisitorSession& cur) -> Result<bool> {
    rapidjson::Document state = ParseState(cur.stateJson);
    change(state, rapidjson::Value(value, state.GetAllocator()));
    cur.stateJson = Serialize(state);
    return true;
  });
  if (!out.ok()) return out.take_error();
  return Status::Ok();
}

}  // namespace

Status StorefrontService::VisitorSetState(const VisitorSession& s, const std::string& key, const std::string& valueJson) {
  return ChangeState(ctx_.store(), ctx_.clock->NowMillis(), s, key, valueJson,
                     [&key](rapidjson::Document& state, rapidjson::Value&& value) {
                       if (value.IsNull()) {
                         RemoveMember(state, key);
                       } else {
                         SetMember(state, key, std::move(value));
                       }
                     });
}

Status StorefrontService::VisitorAppendState(const VisitorSession& s, const std::string& key, const std::string& valueJson,
                                       int keep) {
  return ChangeState(ctx_.store(), ctx_.clock->NowMillis(), s, key, valueJson,
                     [&key, keep](rapidjson::Document& state, rapidjson::Value&& value) {
                       AppendBounded(state, key, std::move(value), keep);
                     });
}

Result<VisitorUpdates> StorefrontService::VisitorPoll(const VisitorSession& s, std::int64_t afterSeq) {
  auto updates = ReadValue<VisitorUpdates>(ctx_.store(), [&](StoreReader& r) -> Result<VisitorUpdates> {
    LC_ASSIGN_OR_RETURN(VisitorSession cur, Reload(r, s));
    VisitorUpdates out;
    if (!cur.conversationId) return out;
    LC_ASSIGN_OR_RETURN(auto conv, r.FindConversation(cur.shopId, *cur.conversationId));
    if (!conv) return out;
    MessageQuery q;
    q.shopId = cur.shopId;
    q.conversationId = conv->id;
    q.afterSeq = afterSeq;
    q.includeNotes = false;  // internal: never shown to the customer
    q.limit = 100;
    LC_ASSIGN_OR_RETURN(out.messages, r.ListMessages(q));
    LC_ASSIGN_OR_RETURN(auto typing, r.ListTyping(cur.shopId, conv->id));
    for (auto& t : typing)
      if (t.active && t.memberId != kCustomerTypingId) out.typing.push_back(std::move(t));
    out.conversation = std::move(*conv);
    return out;
  });
  if (!updates.ok()) return updates;
  AddFileUrls(ctx_, updates->messages);
  updates->view = VisitorView(*updates);
  return updates;
}

}  // namespace livechat
