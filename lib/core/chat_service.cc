// ChatService: authentication, rate limits and the conversation endpoints.
// Messages live in chat_service_messages.cc, tags/notes/attributes in
// chat_service_items.cc, operator calls in chat_service_admin.cc.
#include "livechat/chat_service.h"

#include <fmt/format.h>

#include <algorithm>

#include "livechat/crypto.h"
#include "core/cursor.h"
#include "core/login_throttle.h"
#include "core/observed_store.h"
#include "core/rate_limiter.h"
#include "core/service_internal.h"
#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"

namespace livechat {

using namespace internal;

ChatService::ChatService(ServiceOptions options)
    : options_(std::move(options)),
      store_(options_.store ? std::make_unique<ObservedStore>(
                                  *options_.store, [this](const std::string& id) { NotifyConversationChanged(id); })
                            : nullptr),
      clock_(options_.clock ? options_.clock : Clock::Default()),
      random_(options_.random ? options_.random : Random::Default()),
      sender_(options_.channelSender ? options_.channelSender : NullChannelSender()),
      resolver_(options_.resolver ? options_.resolver : Resolver::Default()),
      ownLimiter_(options_.rateWindows ? nullptr
                                       : std::make_unique<RateLimiter>(*clock_, options_.limits.rateWindowMillis)),
      limiter_(options_.rateWindows ? options_.rateWindows : ownLimiter_.get()),
      loginThrottle_(std::make_unique<LoginThrottle>(*clock_, options_.limits)) {
  fileUrlSecret_ = options_.fileUrlSecret.empty() ? random_->Hex(32) : options_.fileUrlSecret;
  if (options_.metrics) {
    refusedByIp_ =
        &options_.metrics->GetCounter(metric::kRateLimitRefusals, metric::kRateLimitRefusalsHelp, {{"scope", "ip"}});
    refusedByKey_ =
        &options_.metrics->GetCounter(metric::kRateLimitRefusals, metric::kRateLimitRefusalsHelp, {{"scope", "key"}});
    loginFailures_ = &options_.metrics->GetCounter(metric::kLoginFailures, metric::kLoginFailuresHelp);
    loginThrottledAccount_ =
        &options_.metrics->GetCounter(metric::kLoginThrottled, metric::kLoginThrottledHelp, {{"scope", "account"}});
    loginThrottledAddress_ =
        &options_.metrics->GetCounter(metric::kLoginThrottled, metric::kLoginThrottledHelp, {{"scope", "address"}});
  }
  // Writes by other instances on a shared database (PostgreSQL) wake this
  // instance's long-polls as its own writes do (through store_), and what
  // onEventsQueued wakes: such a write may have queued events, and this
  // instance's live change feeds and dispatcher then read them now rather
  // than at their next poll.
  if (options_.store)
    options_.store->WatchOtherWriters([this](const std::string& id) {
      NotifyConversationChanged(id);
      if (options_.onEventsQueued) options_.onEventsQueued();
    });
}

ChatService::~ChatService() {
  if (options_.store) options_.store->WatchOtherWriters(nullptr);
}

// ---------------------------------------------------------------- auth

Result<Principal> ChatService::AuthenticateApiKey(const std::string& apiKey) {
  if (apiKey.empty()) return MakeError(ErrorCode::kUnauthenticated, "missing API key: send it in the X-Api-Key header");
  const Error invalid = MakeError(ErrorCode::kInvalidApiKey, "invalid API key: unknown or revoked");
  if (!LooksLikeApiKey(apiKey)) {
    return MakeError(ErrorCode::kInvalidApiKey, "invalid API key: expected sk_ followed by 32 hex characters");
  }
  std::string normalized = AsciiLower(apiKey);
  normalized[0] = 's';
  normalized[1] = 'k';
  const std::string hash = Sha256Hex(normalized);
  LC_ASSIGN_OR_RETURN(auto key, ReadValue<std::optional<ApiKey>>(
                                    store(), [&](StoreReader& r) { return r.FindApiKeyByHash(hash); }));
  // The lookup is by hash; the constant-time comparison keeps the decision
  // itself free of early-exit timing whatever the store's index does.
  if (!key || !ConstantTimeEquals(key->keyHash, hash) || key->revokedAt) return invalid;
  if (clock_->NowMillis() < key->activeFrom)
    return MakeError(ErrorCode::kInvalidApiKey, "this API key is not active yet: a new key can take up to 30 seconds");
  Principal p;
  p.kind = Principal::Kind::kApiKey;
  p.shopId = key->shopId;
  p.permissions = key->permissions;
  p.legacy = key->legacy;
  p.keyId = key->id;
  return p;
}

Result<Principal> ChatService::AuthenticateAppKey(const std::string& appId, const std::string& apiKey) {
  if (appId.empty() || apiKey.empty()) return MakeError(ErrorCode::kUnauthenticated, "missing app id or API key");
  LC_ASSIGN_OR_RETURN(auto shop, ReadValue<std::optional<Shop>>(
                                     store(), [&](StoreReader& r) { return r.GetShopByAppId(appId); }));
  if (!shop) return MakeError(ErrorCode::kInvalidApiKey, "invalid app id or API key");
  auto p = AuthenticateApiKey(apiKey);
  if (!p.ok()) return p;
  if (p->shopId != shop->id) return MakeError(ErrorCode::kInvalidApiKey, "invalid app id or API key");
  return p;
}

Result<Principal> ChatService::AuthenticateSession(const std::string& token) {
  if (token.empty()) return MakeError(ErrorCode::kUnauthenticated, "not logged in: POST /api/auth/login first");
  const std::string hash = Sha256Hex(token);
  struct Found {
    std::optional<AdminSession> session;
    std::optional<Member> member;
    bool installed = false;
  };
  LC_ASSIGN_OR_RETURN(auto found, ReadValue<Found>(store(), [&](StoreReader& r) -> Result<Found> {
                        Found f;
                        LC_ASSIGN_OR_RETURN(f.session, r.GetSession(hash));
                        if (f.session) {
                          LC_ASSIGN_OR_RETURN(f.member, r.GetMember(f.session->shopId, f.session->memberId));
                          LC_ASSIGN_OR_RETURN(auto shop, r.GetShop(f.session->shopId));
                          f.installed = shop && shop->installed;
                        }
                        return f;
                      }));
  // Uninstalling deletes the store's sessions; the install check also covers
  // a session created in the moment between the two.
  if (!found.session || !ConstantTimeEquals(found.session->tokenHash, hash) ||
      found.session->expiresAt <= clock_->NowMillis() || !found.member || !found.member->active || !found.installed)
    return MakeError(ErrorCode::kUnauthenticated, "session expired or invalid: log in again");
  Principal p;
  p.kind = Principal::Kind::kAdminSession;
  p.shopId = found.session->shopId;
  p.memberId = found.session->memberId;
  return p;
}

namespace {

// What a password is checked against when no active member with a password
// has the email, so an unknown email costs one hash like a known one and
// timing tells them apart no better than the answer does.
const std::string& StandInPasswordHash() {
  static const std::string hash = HashPassword("no member has this email");
  return hash;
}

// The active members of `email` (in `shopId` when given) whose password this is.
Result<std::vector<Member>> MembersWithPassword(Store& store, const std::string& email, const std::string& password,
                                                const std::optional<std::string>& shopId) {
  LC_ASSIGN_OR_RETURN(auto members, ReadValue<std::vector<Member>>(
                                        store, [&](StoreReader& r) { return r.FindMembersByEmail(email); }));
  std::vector<Member> matches;
  bool checked = false;
  for (auto& m : members) {
    // A member without a password (no inbox sign-in) costs what a stranger does.
    if (!m.active || (shopId && m.shopId != *shopId) || m.passwordHash.empty()) continue;
    checked = true;
    if (VerifyPassword(m.passwordHash, password)) matches.push_back(std::move(m));
  }
  if (!checked) (void)VerifyPassword(StandInPasswordHash(), password);
  return matches;
}

}  // namespace

Result<LoginResult> ChatService::Login(const std::string& email, const std::string& password,
                                       const std::optional<std::string>& shopId, const std::string& sourceIp,
                                       Millis* retryAfterMillis) {
  const Error wrong = MakeError(ErrorCode::kUnauthenticated, "wrong email or password");
  if (email.empty() || password.empty()) return Invalid("email and password are required");
  // Keyed by the email as the store matches it (ASCII case folded), whether a
  // member has it or not: the throttle must not tell known accounts apart.
  const LoginThrottle::Attempt attempt = loginThrottle_->Begin(Sha256Hex(AsciiLower(email)), sourceIp);
  if (!attempt.allowed) {
    Counter* counter = attempt.refusedBy == LoginThrottle::Scope::kAccount ? loginThrottledAccount_
                                                                            : loginThrottledAddress_;
    if (counter) counter->Inc();
    if (retryAfterMillis) *retryAfterMillis = attempt.retryAfterMillis;
    return RetryLaterError(ErrorCode::kRateLimited,
                           fmt::format("too many failed sign-ins: try again in {} s",
                                       std::max<Millis>(1, (attempt.retryAfterMillis + 999) / 1000)),
                           attempt.retryAfterMillis);
  }
  auto matches = MembersWithPassword(store(), email, password, shopId);
  loginThrottle_->Finish(attempt, !matches.ok()       ? LoginThrottle::Outcome::kNotChecked
                                  : matches->empty() ? LoginThrottle::Outcome::kWrongPassword
                                                     : LoginThrottle::Outcome::kRightPassword);
  if (!matches.ok()) return matches.error();
  if (matches->empty()) {
    if (loginFailures_) loginFailures_->Inc();
    return wrong;
  }
  if (matches->size() > 1) return Invalid("this email belongs to members of several stores: pass shopId");
  LoginResult out;
  out.token = random_->Hex(32);
  out.member = std::move(matches->front());
  const Millis now = clock_->NowMillis();
  out.session = AdminSession{Sha256Hex(out.token), out.member.shopId, out.member.id, now,
                             now + limits().sessionTtlMillis};
  LC_RETURN_IF_ERROR(store().Write([&](StoreWriter& w) -> Status {
    // Checked in the write that creates the session, so an uninstall cannot
    // slip between the check and the insert (spec rule 9: the team is signed out).
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(out.member.shopId));
    if (!shop || !shop->installed)
      return MakeError(ErrorCode::kForbidden,
                       "this store has uninstalled the app: the admin inbox is closed until it is installed again");
    return w.InsertSession(out.session);
  }));
  return out;
}

Status ChatService::Logout(const std::string& token) {
  if (token.empty()) return Status::Ok();
  const std::string hash = Sha256Hex(token);
  return store().Write([&](StoreWriter& w) { return w.DeleteSession(hash); });
}

RateDecision ChatService::CheckRateLimit(const std::string& keyId, const std::string& sourceIp) {
  // The windows are per minute (spec: rate limits).
  auto policy = [](const char* name, const RateWindows::Outcome& o) {
    return RatePolicy{name, o.limit, 60, o.remaining < 0 ? 0 : o.remaining, o.resetInMillis};
  };
  auto decide = [&](const RateWindows::Outcome& o, std::vector<RatePolicy> policies) {
    return RateDecision{o.allowed, o.limit, o.remaining, o.resetInMillis, std::move(policies)};
  };
  // The IP window is counted first so that unauthenticated floods (key
  // guessing) are limited before any key lookup matters.
  auto ip = limiter_->Hit("ip:" + sourceIp, limits().rateLimitPerIp);
  if (!ip.allowed && refusedByIp_) refusedByIp_->Inc();
  if (!ip.allowed || keyId.empty()) return decide(ip, {policy("ip", ip)});
  auto key = limiter_->Hit("key:" + keyId, limits().rateLimitPerKey);
  if (!key.allowed && refusedByKey_) refusedByKey_->Inc();
  std::vector<RatePolicy> both{policy("key", key), policy("ip", ip)};
  if (!key.allowed) return decide(key, std::move(both));
  return decide(key.remaining <= ip.remaining ? key : ip, std::move(both));
}

// ---------------------------------------------------------------- conversations

namespace {

Result<Page<Conversation>> RunConversationQuery(Store& store, ConversationQuery q, const PageRequest& page, int limit) {
  if (page.cursor) {
    auto key = DecodeConversationCursor(*page.cursor);
    if (!key) return Invalid("cursor is not valid: pass paging.nextCursor from the previous page unchanged");
    q.after = *key;
  }
  q.limit = limit + 1;  // one extra row tells whether another page exists
  LC_ASSIGN_OR_RETURN(auto rows, ReadValue<std::vector<Conversation>>(
                                     store, [&](StoreReader& r) { return r.ListConversations(q); }));
  Page<Conversation> out;
  out.hasMore = static_cast<int>(rows.size()) > limit;
  if (out.hasMore) rows.resize(static_cast<std::size_t>(limit));
  if (out.hasMore && !rows.empty()) {
    const auto& last = rows.back();
    out.nextCursor = EncodeConversationCursor({last.lastActive.value_or(0), last.pgConvoId.value_or(0)});
  }
  out.items = std::move(rows);
  return out;
}

}  // namespace

namespace internal {

Result<ConversationQuery> ConversationQueryOf(const Principal& p, const ConversationFilter& f) {
  ConversationQuery q;
  q.shopId = p.shopId;
  if (f.status) {
    if (*f.status != "open" && *f.status != "resolved") return Invalid("status must be open or resolved");
    q.status = f.status;
  }
  if (f.channel) {
    if (!IsKnownChannel(*f.channel)) return Invalid(UnknownChannelMessage());
    q.channel = f.channel;
  }
  if (f.assigneeId) {
    if (f.assigneeId->empty()) return Invalid("assigneeId must be a member id or unassigned");
    if (*f.assigneeId == "unassigned")
      q.unassignedOnly = true;
    else
      q.assigneeId = f.assigneeId;
  }
  q.isRead = f.isRead;
  for (const auto& t : f.tags)
    if (!t.empty()) q.tagsAny.push_back(t);
  q.customerUuid = f.customerUuid;
  q.email = f.email;
  q.isStarred = f.isStarred;
  return q;
}

}  // namespace internal

Result<Page<Conversation>> ChatService::ListConversations(const Principal& p, const ConversationFilter& f,
                                                          const PageRequest& page) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  LC_ASSIGN_OR_RETURN(int limit, ResolveLimit(page.limit, limits().conversationsDefault, limits().conversationsMax));
  LC_ASSIGN_OR_RETURN(ConversationQuery q, ConversationQueryOf(p, f));
  return RunConversationQuery(store(), std::move(q), page, limit);
}

Result<ConversationRead> ChatService::GetConversation(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  LC_ASSIGN_OR_RETURN(auto c, ReadValue<Conversation>(
                                  store(), [&](StoreReader& r) { return LoadConversation(r, p.shopId, id); }));
  std::string source = c.inNewDatastore ? "postgresql" : "firestore";
  return ConversationRead{std::move(c), std::move(source)};
}

Result<Page<Conversation>> ChatService::ListRelated(const Principal& p, const std::string& id, const PageRequest& page) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  LC_ASSIGN_OR_RETURN(int limit, ResolveLimit(page.limit, limits().relatedDefault, limits().relatedMax));
  LC_ASSIGN_OR_RETURN(auto c, ReadValue<Conversation>(
                                  store(), [&](StoreReader& r) { return LoadConversation(r, p.shopId, id); }));
  if (!c.customerUuid) {
    if (page.cursor && !DecodeConversationCursor(*page.cursor)) return Invalid("cursor is not valid");
    return Page<Conversation>{};
  }
  ConversationQuery q;
  q.shopId = p.shopId;
  q.customerUuid = c.customerUuid;
  q.excludeId = c.id;
  return RunConversationQuery(store(), std::move(q), page, limit);
}

Result<std::vector<BrowsedPage>> ChatService::ListBrowsedPages(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  const Millis since = clock_->NowMillis() - limits().browsedPagesTtlMillis;
  return ReadValue<std::vector<BrowsedPage>>(store(), [&](StoreReader& r) -> Result<std::vector<BrowsedPage>> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(r, p.shopId, id));
    if (!c.inNewDatastore) return std::vector<BrowsedPage>{};  // spec: older conversations return an empty list
    return r.ListBrowsedPages(p.shopId, c.id, since, limits().browsedPagesKept);
  });
}

Result<Summary> ChatService::GetSummary(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  return ReadValue<Summary>(store(), [&](StoreReader& r) -> Result<Summary> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(r, p.shopId, id));
    LC_ASSIGN_OR_RETURN(auto s, r.GetSummary(p.shopId, c.id));
    if (!s) return MakeError(ErrorCode::kNotFound, "summary not found: it has not been generated yet");
    return std::move(*s);
  });
}

Result<Conversation> ChatService::SetState(const Principal& p, const std::string& id,
                                           const std::optional<std::string>& status) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  if (!status) return Invalid("status is required: open or resolved");
  if (*status != "open" && *status != "resolved") return Invalid("status must be open or resolved");
  const Millis now = clock_->NowMillis();
  bool summaryQueued = false;
  auto out = WriteValue<Conversation>(store(), [&](StoreWriter& w) -> Result<Conversation> {
    summaryQueued = false;
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    if (c.status == *status) return c;  // naming the current state changes nothing and fires nothing
    const std::string previous = c.status;
    c.status = *status;
    c.updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c));
    if (!ok) return NotFound("conversation");
    Event e{random_->Uuid(), p.shopId, "conversation.state_changed", c.id, now,
            JsonObject().Str("status", c.status).Str("previousStatus", previous).Done()};
    LC_RETURN_IF_ERROR(EmitEvent(w, *random_, e));
    if (options_.queueSummaries && c.status == "resolved") {
      // The event id names the job: unique per resolve, and no extra draw
      // from the random source.
      LC_RETURN_IF_ERROR(w.PutSummaryJob(SummaryJob{e.id, p.shopId, c.id, now, 0, now, 0}));
      summaryQueued = true;
    } else if (options_.queueSummaries) {
      LC_ASSIGN_OR_RETURN(bool dropped, w.DeleteSummaryJob(p.shopId, c.id, ""));
      (void)dropped;
    }
    return c;
  });
  if (out.ok()) {
    NotifyEventsQueued();
    if (summaryQueued && options_.onSummaryQueued) options_.onSummaryQueued();
  }
  return out;
}

Result<Conversation> ChatService::Assign(const Principal& p, const std::string& id, const AssignTarget& target) {
  // Checked before the permission, as the surfaces always did: a malformed
  // request is reported as such whoever sends it.
  if (target.kind == AssignTarget::Kind::kAbsent)
    return MakeError(ErrorCode::kInvalidParams, "memberId is required: a member id, or null to unassign");
  return Assign(p, id,
                target.kind == AssignTarget::Kind::kMember ? std::optional<std::string>(target.memberId) : std::nullopt);
}

Result<Conversation> ChatService::Assign(const Principal& p, const std::string& id,
                                         const std::optional<std::string>& memberId) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  const Millis now = clock_->NowMillis();
  auto out = WriteValue<Conversation>(store(), [&](StoreWriter& w) -> Result<Conversation> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    if (memberId) LC_RETURN_IF_ERROR(LoadActiveMember(w, p.shopId, memberId, "memberId"));
    if (c.memberId == memberId) return c;
    auto previous = c.memberId;
    c.memberId = memberId;
    c.updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c));
    if (!ok) return NotFound("conversation");
    Event e{random_->Uuid(), p.shopId, "conversation.assigned", c.id, now,
            JsonObject().Str("memberId", c.memberId).Str("previousMemberId", previous).Done()};
    LC_RETURN_IF_ERROR(EmitEvent(w, *random_, e));
    return c;
  });
  if (out.ok()) NotifyEventsQueued();
  return out;
}

Result<Conversation> ChatService::MarkRead(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  const Millis now = clock_->NowMillis();
  return WriteValue<Conversation>(store(), [&](StoreWriter& w) -> Result<Conversation> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    if (c.isRead) return c;
    c.isRead = true;
    c.updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c));
    if (!ok) return NotFound("conversation");
    return c;
  });
}

Result<TypingState> ChatService::SetTyping(const Principal& p, const std::string& id,
                                           const std::optional<std::string>& memberId, std::optional<bool> active) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  std::optional<std::string> who = memberId;
  if (!who && p.memberId) who = p.memberId;  // an inbox session types as itself
  if (!active) return Invalid("active is required: true while typing, false when typing stops");
  const Millis now = clock_->NowMillis();
  return WriteValue<TypingState>(store(), [&](StoreWriter& w) -> Result<TypingState> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    LC_ASSIGN_OR_RETURN(auto m, LoadActiveMember(w, p.shopId, who, "memberId"));
    TypingState t{c.id, m.id, *active, now};
    LC_RETURN_IF_ERROR(w.PutTyping(p.shopId, t));
    return t;
  });
}

Result<std::vector<TypingState>> ChatService::ListTyping(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  const Millis now = clock_->NowMillis();
  LC_ASSIGN_OR_RETURN(auto rows, ReadValue<std::vector<TypingState>>(
                                     store(), [&](StoreReader& r) -> Result<std::vector<TypingState>> {
                                       LC_ASSIGN_OR_RETURN(auto c, LoadConversation(r, p.shopId, id));
                                       return r.ListTyping(p.shopId, c.id);
                                     }));
  std::erase_if(rows, [&](const TypingState& t) { return !t.active || now - t.updatedAt > kTypingShownMillis; });
  return rows;
}

Result<Conversation> ChatService::SetStarred(const Principal& p, const std::string& id, std::optional<bool> starred) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  if (!starred) return Invalid("starred is required: true to star the conversation, false to unstar it");
  const Millis now = clock_->NowMillis();
  return WriteValue<Conversation>(store(), [&](StoreWriter& w) -> Result<Conversation> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    if (c.isStarred == *starred) return c;
    c.isStarred = *starred;
    c.updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c));
    if (!ok) return NotFound("conversation");
    return c;
  });
}

Result<InboxCounts> ChatService::CountInbox(const Principal& p) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  return ReadValue<InboxCounts>(store(),
                                [&](StoreReader& r) { return r.CountInbox(p.shopId, p.memberId.value_or("")); });
}

// ---------------------------------------------------------------- customers and members

Result<Customer> ChatService::GetCustomer(const Principal& p, const std::string& customerUuid) {
  LC_RETURN_IF_ERROR(Require(p, kPermReadCustomers));
  return ReadValue<Customer>(store(), [&](StoreReader& r) -> Result<Customer> {
    LC_ASSIGN_OR_RETURN(auto c, r.GetCustomer(p.shopId, customerUuid));
    if (!c) return NotFound("customer");
    return std::move(*c);
  });
}

Result<Page<Conversation>> ChatService::ListCustomerConversations(const Principal& p, const std::string& customerUuid,
                                                                  const PageRequest& page) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  LC_ASSIGN_OR_RETURN(int limit, ResolveLimit(page.limit, limits().customerConversationsDefault,
                                              limits().customerConversationsMax));
  LC_ASSIGN_OR_RETURN(auto exists, ReadValue<bool>(store(), [&](StoreReader& r) -> Result<bool> {
                        LC_ASSIGN_OR_RETURN(auto c, r.GetCustomer(p.shopId, customerUuid));
                        return c.has_value();
                      }));
  if (!exists) return NotFound("customer");
  ConversationQuery q;
  q.shopId = p.shopId;
  q.customerUuid = customerUuid;
  return RunConversationQuery(store(), std::move(q), page, limit);
}

Result<std::vector<Member>> ChatService::ListMembers(const Principal& p) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  return ReadValue<std::vector<Member>>(store(), [&](StoreReader& r) { return r.ListMembers(p.shopId); });
}

Result<Member> ChatService::GetMember(const Principal& p, const std::string& memberId) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  return ReadValue<Member>(store(), [&](StoreReader& r) -> Result<Member> {
    LC_ASSIGN_OR_RETURN(auto m, r.GetMember(p.shopId, memberId));
    if (!m) return NotFound("member");
    return std::move(*m);
  });
}

}  // namespace livechat
