// ConversationService: the conversation endpoints. Messages live in
// conversation_messages.cc, search in conversation_search.cc.
#include "livechat/chat_service.h"

#include <algorithm>

#include "core/cursor.h"
#include "livechat/json_codec.h"
#include "core/service_internal.h"

namespace livechat {

using namespace internal;

// ---------------------------------------------------------------- conversations

namespace internal {

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

Result<Page<Conversation>> ConversationService::ListConversations(const Principal& p, const ConversationFilter& f,
                                                          const PageRequest& page) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  LC_ASSIGN_OR_RETURN(int limit, ResolveLimit(page.limit, ctx_.limits().conversationsDefault, ctx_.limits().conversationsMax));
  LC_ASSIGN_OR_RETURN(ConversationQuery q, ConversationQueryOf(p, f));
  return RunConversationQuery(ctx_.store(), std::move(q), page, limit);
}

namespace {

// Without a search text the list has one order: naming it is allowed;
// asking for relevance, a search's order, is a mistake worth saying.
Status CheckListSort(const std::optional<std::string>& sort) {
  if (sort && *sort != "lastActive")
    return Invalid(*sort == "relevance" ? "sort=relevance needs q: relevance is the order of a search"
                                        : kSortValuesMessage);
  return Status::Ok();
}

std::shared_ptr<const std::string> ListJson(const Conversation& c) {
  std::string json;
  json.reserve(1024);  // a list row is about 840 bytes
  AppendJson(json, c, JsonView::kList);
  // Kept for as long as the row is unchanged: the size it needs, not the guess.
  json.shrink_to_fit();
  return std::make_shared<const std::string>(std::move(json));
}

}  // namespace

Result<Page<Conversation>> ConversationService::ListConversations(const Principal& p, const ConversationFilter& f,
                                                                  const PageRequest& page,
                                                                  const std::optional<std::string>& sort) {
  LC_RETURN_IF_ERROR(CheckListSort(sort));
  return ListConversations(p, f, page);
}

Result<Page<std::shared_ptr<const std::string>>> ConversationService::ListConversationsJson(
    const Principal& p, const ConversationFilter& f, const PageRequest& page, const std::optional<std::string>& sort) {
  using Json = std::shared_ptr<const std::string>;
  LC_RETURN_IF_ERROR(CheckListSort(sort));
  RowJsonCache& cache = ctx_.listCache;
  Page<Json> out;
  if (!cache.enabled()) {
    LC_ASSIGN_OR_RETURN(Page<Conversation> rows, ListConversations(p, f, page));
    out.items.reserve(rows.items.size());
    for (const Conversation& c : rows.items) out.items.push_back(ListJson(c));
    out.nextCursor = std::move(rows.nextCursor);
    out.hasMore = rows.hasMore;
    return out;
  }
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  LC_ASSIGN_OR_RETURN(int limit, ResolveLimit(page.limit, ctx_.limits().conversationsDefault, ctx_.limits().conversationsMax));
  LC_ASSIGN_OR_RETURN(ConversationQuery q, ConversationQueryOf(p, f));
  if (page.cursor) {
    auto key = DecodeConversationCursor(*page.cursor);
    if (!key) return Invalid("cursor is not valid: pass paging.nextCursor from the previous page unchanged");
    q.after = *key;
  }
  q.limit = limit + 1;  // one extra row tells whether another page exists
  std::vector<ConversationVersion> versions;
  std::optional<std::vector<Conversation>> unversioned;
  std::vector<Conversation> changed;
  KeptPage kept(cache);
  // The versions and the rows that changed are read in one transaction: a
  // version read here is the row as this page shows it. The rows are
  // serialized after it ends.
  LC_RETURN_IF_ERROR(ctx_.store().Read([&](StoreReader& r) -> Status {
    unversioned.reset();
    changed.clear();
    LC_ASSIGN_OR_RETURN(auto listed, r.ListConversationVersions(q));
    if (!listed) {
      LC_ASSIGN_OR_RETURN(auto rows, r.ListConversations(q));
      unversioned = std::move(rows);
      return Status::Ok();
    }
    versions = std::move(*listed);
    std::vector<KeptRow> shown;
    for (std::size_t i = 0; i < versions.size() && i < static_cast<std::size_t>(limit); ++i)
      shown.push_back(KeptRow{versions[i].pgConvoId, versions[i].version, true});
    const std::vector<std::int64_t> missing = kept.Look(std::move(shown));
    if (missing.empty()) return Status::Ok();
    LC_ASSIGN_OR_RETURN(changed, r.ListConversationsByPgId(q.shopId, missing));
    return Status::Ok();
  }));
  if (unversioned) {
    // A store without row versions: the rows as ListConversations reads them.
    out.hasMore = static_cast<int>(unversioned->size()) > limit;
    if (out.hasMore) unversioned->resize(static_cast<std::size_t>(limit));
    for (const Conversation& c : *unversioned) out.items.push_back(ListJson(c));
    if (out.hasMore && !unversioned->empty())
      out.nextCursor = EncodeConversationCursor(
          {unversioned->back().lastActive.value_or(0), unversioned->back().pgConvoId.value_or(0)});
    return out;
  }
  LC_RETURN_IF_ERROR(kept.Fill(changed, [](const Conversation& c) { return c.pgConvoId.value_or(0); }, ListJson));
  out.items = std::move(kept.items);
  out.hasMore = static_cast<int>(versions.size()) > limit;
  if (out.hasMore && limit > 0) {
    const ConversationVersion& last = versions[static_cast<std::size_t>(limit) - 1];
    out.nextCursor = EncodeConversationCursor({last.lastActive, last.pgConvoId});
  }
  return out;
}

Result<ConversationRead> ConversationService::GetConversation(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  LC_ASSIGN_OR_RETURN(auto c, ReadValue<Conversation>(
                                  ctx_.store(), [&](StoreReader& r) { return LoadConversation(r, p.shopId, id); }));
  std::string source = c.inNewDatastore ? "postgresql" : "firestore";
  return ConversationRead{std::move(c), std::move(source)};
}

Result<Page<Conversation>> ConversationService::ListRelated(const Principal& p, const std::string& id, const PageRequest& page) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  LC_ASSIGN_OR_RETURN(int limit, ResolveLimit(page.limit, ctx_.limits().relatedDefault, ctx_.limits().relatedMax));
  LC_ASSIGN_OR_RETURN(auto c, ReadValue<Conversation>(
                                  ctx_.store(), [&](StoreReader& r) { return LoadConversation(r, p.shopId, id); }));
  if (!c.customerUuid) {
    if (page.cursor && !DecodeConversationCursor(*page.cursor)) return Invalid("cursor is not valid");
    return Page<Conversation>{};
  }
  ConversationQuery q;
  q.shopId = p.shopId;
  q.customerUuid = c.customerUuid;
  q.excludeId = c.id;
  return RunConversationQuery(ctx_.store(), std::move(q), page, limit);
}

Result<std::vector<BrowsedPage>> ConversationService::ListBrowsedPages(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  const Millis since = ctx_.clock->NowMillis() - ctx_.limits().browsedPagesTtlMillis;
  return ReadValue<std::vector<BrowsedPage>>(ctx_.store(), [&](StoreReader& r) -> Result<std::vector<BrowsedPage>> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(r, p.shopId, id));
    if (!c.inNewDatastore) return std::vector<BrowsedPage>{};  // spec: older conversations return an empty list
    return r.ListBrowsedPages(p.shopId, c.id, since, ctx_.limits().browsedPagesKept);
  });
}

Result<Summary> ConversationService::GetSummary(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  return ReadValue<Summary>(ctx_.store(), [&](StoreReader& r) -> Result<Summary> {
    LC_ASSIGN_OR_RETURN(std::string conversationId, LoadConversationId(r, p.shopId, id));
    LC_ASSIGN_OR_RETURN(auto s, r.GetSummary(p.shopId, conversationId));
    if (!s) return MakeError(ErrorCode::kNotFound, "summary not found: it has not been generated yet");
    return std::move(*s);
  });
}

Result<Conversation> ConversationService::SetState(const Principal& p, const std::string& id,
                                           const std::optional<std::string>& status) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  if (!status) return Invalid("status is required: open or resolved");
  if (*status != "open" && *status != "resolved") return Invalid("status must be open or resolved");
  const Millis now = ctx_.clock->NowMillis();
  bool summaryQueued = false;
  auto out = WriteValue<Conversation>(ctx_.store(), [&](StoreWriter& w) -> Result<Conversation> {
    summaryQueued = false;
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    if (c.status == *status) return c;  // naming the current state changes nothing and fires nothing
    const Conversation before = c;
    const std::string previous = c.status;
    c.status = *status;
    c.updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c, before));
    if (!ok) return NotFound("conversation");
    Event e{ctx_.random->TimeOrderedUuid(now), p.shopId, "conversation.state_changed", c.id, now,
            JsonObject().Str("status", c.status).Str("previousStatus", previous).Done()};
    LC_RETURN_IF_ERROR(EmitEvent(w, *ctx_.random, e));
    if (ctx_.options.queueSummaries && c.status == "resolved") {
      // The event id names the job: unique per resolve, and no extra draw
      // from the random source.
      LC_RETURN_IF_ERROR(w.PutSummaryJob(SummaryJob{e.id, p.shopId, c.id, now, 0, now, 0}));
      summaryQueued = true;
    } else if (ctx_.options.queueSummaries) {
      LC_ASSIGN_OR_RETURN(bool dropped, w.DeleteSummaryJob(p.shopId, c.id, ""));
      (void)dropped;
    }
    return c;
  });
  if (out.ok()) {
    ctx_.NotifyEventsQueued();
    if (summaryQueued && ctx_.options.onSummaryQueued) ctx_.options.onSummaryQueued();
  }
  return out;
}

Result<Conversation> ConversationService::Assign(const Principal& p, const std::string& id, const AssignTarget& target) {
  // Checked before the permission, as the surfaces always did: a malformed
  // request is reported as such whoever sends it.
  if (target.kind == AssignTarget::Kind::kAbsent)
    return MakeError(ErrorCode::kInvalidParams, "memberId is required: a member id, or null to unassign");
  return Assign(p, id,
                target.kind == AssignTarget::Kind::kMember ? std::optional<std::string>(target.memberId) : std::nullopt);
}

Result<Conversation> ConversationService::Assign(const Principal& p, const std::string& id,
                                         const std::optional<std::string>& memberId) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  const Millis now = ctx_.clock->NowMillis();
  auto out = WriteValue<Conversation>(ctx_.store(), [&](StoreWriter& w) -> Result<Conversation> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    if (memberId) LC_RETURN_IF_ERROR(LoadActiveMember(w, p.shopId, memberId, "memberId"));
    if (c.memberId == memberId) return c;
    const Conversation before = c;
    auto previous = c.memberId;
    c.memberId = memberId;
    c.updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c, before));
    if (!ok) return NotFound("conversation");
    Event e{ctx_.random->TimeOrderedUuid(now), p.shopId, "conversation.assigned", c.id, now,
            JsonObject().Str("memberId", c.memberId).Str("previousMemberId", previous).Done()};
    LC_RETURN_IF_ERROR(EmitEvent(w, *ctx_.random, e));
    return c;
  });
  if (out.ok()) ctx_.NotifyEventsQueued();
  return out;
}

Result<Conversation> ConversationService::MarkRead(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  const Millis now = ctx_.clock->NowMillis();
  return WriteValue<Conversation>(ctx_.store(), [&](StoreWriter& w) -> Result<Conversation> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    if (c.isRead) return c;
    const Conversation before = c;
    c.isRead = true;
    c.updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c, before));
    if (!ok) return NotFound("conversation");
    return c;
  });
}

Result<TypingState> ConversationService::SetTyping(const Principal& p, const std::string& id,
                                           const std::optional<std::string>& memberId, std::optional<bool> active) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  std::optional<std::string> who = memberId;
  if (!who && p.memberId) who = p.memberId;  // an inbox session types as itself
  if (!active) return Invalid("active is required: true while typing, false when typing stops");
  const Millis now = ctx_.clock->NowMillis();
  return WriteValue<TypingState>(ctx_.store(), [&](StoreWriter& w) -> Result<TypingState> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    LC_ASSIGN_OR_RETURN(auto m, LoadActiveMember(w, p.shopId, who, "memberId"));
    TypingState t{c.id, m.id, *active, now};
    LC_RETURN_IF_ERROR(w.PutTyping(p.shopId, t));
    return t;
  });
}

Result<std::vector<TypingState>> ConversationService::ListTyping(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  const Millis now = ctx_.clock->NowMillis();
  LC_ASSIGN_OR_RETURN(auto rows, ReadValue<std::vector<TypingState>>(
                                     ctx_.store(), [&](StoreReader& r) -> Result<std::vector<TypingState>> {
                                       LC_ASSIGN_OR_RETURN(std::string conversationId,
                                                           LoadConversationId(r, p.shopId, id));
                                       return r.ListTyping(p.shopId, conversationId);
                                     }));
  std::erase_if(rows, [&](const TypingState& t) { return !t.active || now - t.updatedAt > kTypingShownMillis; });
  return rows;
}

Result<Conversation> ConversationService::SetStarred(const Principal& p, const std::string& id, std::optional<bool> starred) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  if (!starred) return Invalid("starred is required: true to star the conversation, false to unstar it");
  const Millis now = ctx_.clock->NowMillis();
  return WriteValue<Conversation>(ctx_.store(), [&](StoreWriter& w) -> Result<Conversation> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    if (c.isStarred == *starred) return c;
    const Conversation before = c;
    c.isStarred = *starred;
    c.updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c, before));
    if (!ok) return NotFound("conversation");
    return c;
  });
}

Result<InboxCounts> ConversationService::CountInbox(const Principal& p) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  return ReadValue<InboxCounts>(ctx_.store(),
                                [&](StoreReader& r) { return r.CountInbox(p.shopId, p.memberId.value_or("")); });
}

Status ConversationService::RecordBrowsedPage(const Principal& p, const std::string& id, const BrowsedPage& page) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  LC_RETURN_IF_ERROR(CheckText(page.url, "url", 2048));
  return ctx_.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    return w.InsertBrowsedPage(p.shopId, c.id, page, ctx_.limits().browsedPagesKept);
  });
}

Status ConversationService::PutSummary(const Principal& p, const std::string& id, const std::string& text,
                               const std::string& summarizer) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  const Millis now = ctx_.clock->NowMillis();
  return ctx_.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    return w.PutSummary(p.shopId, Summary{c.id, text, summarizer, now});
  });
}

}  // namespace livechat
