#include "rest/rest_routes.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "livechat/json_codec.h"
#include "rest/event_stream.h"
#include "rest/rest_request.h"
#include "rest/rest_response.h"

namespace livechat::rest {
namespace {

struct RouteContext {
  ChatService& service;
  const Principal& principal;
  const ParsedTarget& target;
  std::vector<std::string> params;  // path parameters, in pattern order
  const JsonBody* body;             // null when the route reads no body or none was sent
  const HttpRequest& req;
  EventStreams* streams;            // null: no live streams on this surface
  bool mayAnswerLater;              // the route may answer with HttpResponse::deferred
};

using Handler = Result<HttpResponse> (*)(RouteContext&);

// "{name}" in a pattern matches any one segment and captures it; the names
// are the OpenAPI document's path parameters (route templates in metrics).
struct Route {
  std::vector<std::string_view> pattern;
  std::string_view method;
  BodyRule body;
  Handler handler;
  // Served only under /api/chat/... to an admin session: the public API has
  // no such operation (spec rule 8: no endpoint deletes a contact).
  bool adminOnly = false;
  // Only reads the store, briefly (no stream, no wait, no write): served
  // inside the read transaction that checks the API key (PlainRead).
  bool oneRead = false;
  // A plain read of a bounded number of rows found through an index, at
  // any size of store: what a host may run on its I/O threads
  // (ChatBoundedRead). The conversation list is bounded only without a
  // search and with at most one indexed filter (ListServedByIndex).
  bool bounded = false;
};

// A GET whose handler only reads the store, briefly.
Route PlainRead(std::vector<std::string_view> pattern, Handler handler, bool bounded = true) {
  return {std::move(pattern), "GET", BodyRule::kNone, handler, /*adminOnly=*/false, /*oneRead=*/true, bounded};
}

HttpResponse Ok(std::string body, int status = 200) { return JsonResponse(status, std::move(body)); }

std::string ConversationDetail(const Conversation& c) { return ToJson(c, JsonView::kDetail); }
void AppendConversationItem(std::string& out, const Conversation& c) { AppendJson(out, c, JsonView::kList); }

HttpResponse PagedConversations(const Page<Conversation>& page) {
  return Ok(PagedBody(page.items, AppendConversationItem, page.nextCursor, page.hasMore));
}

// A page whose items come as their JSON already (the lists' caches).
HttpResponse PagedPieces(const Page<std::shared_ptr<const std::string>>& page) {
  std::size_t size = 128;
  for (const auto& item : page.items) size += item->size() + 1;
  std::string body;
  body.reserve(size);
  body += "{\"data\":[";
  for (std::size_t i = 0; i < page.items.size(); ++i) {
    if (i) body.push_back(',');
    body += *page.items[i];
  }
  body.push_back(']');
  AppendPaging(body, page.nextCursor, page.hasMore);
  return Ok(std::move(body));
}

HttpResponse Deleted(const std::string& id) {
  std::string data = "{\"id\":";
  AppendJsonString(data, id);
  data += ",\"deleted\":true}";
  return Ok(DataEnvelope(data));
}

HttpResponse TagList(const std::vector<std::string>& tags) {
  return Ok(DataEnvelope(JsonArray(tags, [](const std::string& t) {
    std::string out;
    AppendJsonString(out, t);
    return out;
  })));
}

// ---- Conversations ----

// A search hit: the list item with where it matched.
void AppendConversationHit(std::string& out, const ConversationSearchHit& hit) {
  AppendConversationItem(out, hit.conversation);
  out.pop_back();
  out += ",\"highlight\":{\"field\":";
  AppendJsonString(out, hit.highlight.field);
  out += ",\"text\":";
  AppendJsonString(out, hit.highlight.text);
  out += ",\"ranges\":[";
  bool first = true;
  for (const auto& [from, to] : hit.highlight.ranges) {
    out += first ? "[" : ",[";
    first = false;
    out += std::to_string(from) + "," + std::to_string(to) + "]";
  }
  out += "]}}";
}

Result<HttpResponse> ListConversations(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(ConversationFilter filter, FilterFromQuery(c.target));
  LC_ASSIGN_OR_RETURN(PageRequest page, PageFromQuery(c.target));
  auto q = c.target.Query("q");
  auto sort = c.target.Query("sort");
  if (q) {
    ConversationSearchRequest search{*q, sort};
    LC_ASSIGN_OR_RETURN(Page<ConversationSearchHit> result,
                        c.service.conversations().SearchConversations(c.principal, filter, search, page));
    return Ok(PagedBody(result.items, AppendConversationHit, result.nextCursor, result.hasMore));
  }
  LC_ASSIGN_OR_RETURN(Page<std::shared_ptr<const std::string>> result,
                      c.service.conversations().ListConversationsJson(c.principal, filter, page, sort));
  return PagedPieces(result);
}

Result<HttpResponse> GetConversation(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(ConversationRead read, c.service.conversations().GetConversation(c.principal, c.params[0]));
  std::string body = "{\"data\":";
  body.reserve(2048);  // a detail is about 1 KB: one allocation
  AppendJson(body, read.conversation, JsonView::kDetail);
  body += ",\"meta\":{\"source\":";
  AppendJsonString(body, read.source);
  body += "}}";
  return Ok(std::move(body));
}

Result<HttpResponse> ListRelated(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(PageRequest page, PageFromQuery(c.target));
  LC_ASSIGN_OR_RETURN(Page<Conversation> result, c.service.conversations().ListRelated(c.principal, c.params[0], page));
  return PagedConversations(result);
}

Result<HttpResponse> ListBrowsedPages(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::vector<BrowsedPage> pages, c.service.conversations().ListBrowsedPages(c.principal, c.params[0]));
  return Ok(DataEnvelope(JsonArray(pages, [](const BrowsedPage& p) { return ToJson(p); })));
}

Result<HttpResponse> GetSummary(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(Summary summary, c.service.conversations().GetSummary(c.principal, c.params[0]));
  return Ok(DataEnvelope(ToJson(summary)));
}

Result<HttpResponse> SetState(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::optional<std::string> status, c.body->OptString("status"));
  LC_ASSIGN_OR_RETURN(Conversation conv, c.service.conversations().SetState(c.principal, c.params[0], status));
  return Ok(DataEnvelope(ConversationDetail(conv)));
}

Result<HttpResponse> Assign(RouteContext& c) {
  // JSON presence and null become the core's tri-state; the core decides.
  using Target = ConversationService::AssignTarget;
  Target target = Target::Absent();
  if (c.body->Has("memberId")) {
    target = Target::Unassign();
    if (!c.body->IsNull("memberId")) {
      auto id = c.body->OptString("memberId");
      if (!id.ok()) return MakeError(ErrorCode::kInvalidParams, "memberId must be a string, or null to unassign");
      if (*id) target = Target::Member(std::move(**id));
    }
  }
  LC_ASSIGN_OR_RETURN(Conversation conv, c.service.conversations().Assign(c.principal, c.params[0], target));
  return Ok(DataEnvelope(ConversationDetail(conv)));
}

Result<HttpResponse> MarkRead(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(Conversation conv, c.service.conversations().MarkRead(c.principal, c.params[0]));
  return Ok(DataEnvelope(ConversationDetail(conv)));
}

Result<HttpResponse> SetTyping(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::optional<std::string> memberId, c.body->OptString("memberId"));
  LC_ASSIGN_OR_RETURN(std::optional<bool> active, c.body->OptBool("active"));
  LC_ASSIGN_OR_RETURN(TypingState state, c.service.conversations().SetTyping(c.principal, c.params[0], memberId, active));
  return Ok(DataEnvelope(ToJson(state)));
}

// The agent inbox's own reads and writes (session only, adminOnly routes).
Result<HttpResponse> ListTyping(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::vector<TypingState> rows, c.service.conversations().ListTyping(c.principal, c.params[0]));
  return Ok(DataEnvelope(JsonArray(rows, [](const TypingState& t) { return ToJson(t); })));
}

Result<HttpResponse> SetStarred(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::optional<bool> starred, c.body->OptBool("starred"));
  LC_ASSIGN_OR_RETURN(Conversation conv, c.service.conversations().SetStarred(c.principal, c.params[0], starred));
  return Ok(DataEnvelope(ConversationDetail(conv)));
}

Result<HttpResponse> CountInbox(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(InboxCounts n, c.service.conversations().CountInbox(c.principal));
  return Ok(DataEnvelope("{\"open\":" + std::to_string(n.open) + ",\"unread\":" + std::to_string(n.unread) +
                         ",\"mine\":" + std::to_string(n.mine) + ",\"unassigned\":" + std::to_string(n.unassigned) +
                         ",\"starred\":" + std::to_string(n.starred) + "}"));
}

// The raw bytes as the body, their type as Content-Type, ?name= the file name
// (like POST /api/files).
Result<HttpResponse> SendFile(RouteContext& c) {
  FileUpload in;
  in.kind = "attachment";
  in.name = c.target.Query("name").value_or("");
  in.contentType = c.req.Header("content-type").value_or("");
  in.bytes = c.req.body;
  LC_ASSIGN_OR_RETURN(Message m, c.service.conversations().SendFileAsMember(c.principal, c.params[0], in));
  return Ok(DataEnvelope(ToJson(m, JsonView::kDetail)), 201);
}

// ---- Messages ----

Result<HttpResponse> ListMessages(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(PageRequest page, PageFromQuery(c.target));
  LC_ASSIGN_OR_RETURN(
      Page<std::shared_ptr<const std::string>> result,
      c.service.conversations().ListMessagesJson(c.principal, c.params[0], page, c.target.Query("order")));
  return PagedPieces(result);
}

Result<HttpResponse> GetMessage(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(Message m, c.service.conversations().GetMessage(c.principal, c.params[0], c.params[1]));
  return Ok(DataEnvelope(ToJson(m, JsonView::kDetail)));
}

Result<HttpResponse> SendMessage(RouteContext& c) {
  SendMessageInput in;
  LC_ASSIGN_OR_RETURN(in.text, c.body->OptString("text"));
  LC_ASSIGN_OR_RETURN(in.memberId, c.body->OptString("memberId"));
  LC_ASSIGN_OR_RETURN(std::optional<bool> isNote, c.body->OptBool("isNote"));
  LC_ASSIGN_OR_RETURN(std::optional<bool> asCustomer, c.body->OptBool("asCustomer"));
  in.isNote = isNote.value_or(false);
  in.asCustomer = asCustomer.value_or(false);
  if (c.mayAnswerLater) {
    // The thread serving the request hands the write to the store's writer
    // and goes on; the answer is written once the message is committed
    // (docs/decisions.md, "Sends handed to the writer").
    HttpResponse later;
    later.deferred = [&service = c.service, p = c.principal, id = c.params[0], in](HttpReply reply) {
      service.conversations().SendMessageAsync(p, id, in, [reply = std::move(reply)](Result<Message> m) {
        reply(m.ok() ? Ok(DataEnvelope(ToJson(*m, JsonView::kDetail)), 201) : ErrorResponse(m.error()));
      });
    };
    return later;
  }
  LC_ASSIGN_OR_RETURN(Message m, c.service.conversations().SendMessage(c.principal, c.params[0], in));
  return Ok(DataEnvelope(ToJson(m, JsonView::kDetail)), 201);
}

// ---- Tags, notes, attributes ----

Result<HttpResponse> ListTagCatalog(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::vector<TagCount> tags, c.service.annotations().ListTagCatalog(c.principal));
  return Ok(DataEnvelope(JsonArray(tags, [](const TagCount& t) { return ToJson(t); })));
}

Result<HttpResponse> AddTags(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::vector<std::string> tags, c.body->StringArray("tags"));
  LC_ASSIGN_OR_RETURN(std::vector<std::string> result, c.service.annotations().AddTags(c.principal, c.params[0], tags));
  return TagList(result);
}

Result<HttpResponse> RemoveTag(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::vector<std::string> result, c.service.annotations().RemoveTag(c.principal, c.params[0], c.params[1]));
  return TagList(result);
}

Result<HttpResponse> ListNotes(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::vector<Note> notes, c.service.annotations().ListNotes(c.principal, c.params[0]));
  return Ok(DataEnvelope(JsonArray(notes, [](const Note& n) { return ToJson(n); })));
}

Result<HttpResponse> CreateNote(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::optional<std::string> text, c.body->OptString("text"));
  LC_ASSIGN_OR_RETURN(Note note, c.service.annotations().CreateNote(c.principal, c.params[0], text));
  return Ok(DataEnvelope(ToJson(note)), 201);
}

Result<HttpResponse> UpdateNote(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::optional<std::string> text, c.body->OptString("text"));
  LC_ASSIGN_OR_RETURN(Note note, c.service.annotations().UpdateNote(c.principal, c.params[0], c.params[1], text));
  return Ok(DataEnvelope(ToJson(note)));
}

Result<HttpResponse> DeleteNote(RouteContext& c) {
  LC_RETURN_IF_ERROR(c.service.annotations().DeleteNote(c.principal, c.params[0], c.params[1]));
  return Deleted(c.params[1]);
}

Result<HttpResponse> ListAttributes(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::vector<Attribute> attrs, c.service.annotations().ListAttributes(c.principal, c.params[0]));
  return Ok(DataEnvelope(JsonArray(attrs, [](const Attribute& a) { return ToJson(a); })));
}

Result<HttpResponse> UpsertAttribute(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::optional<std::string> name, c.body->OptString("name"));
  LC_ASSIGN_OR_RETURN(std::optional<std::string> value, c.body->OptString("value"));
  bool created = false;
  LC_ASSIGN_OR_RETURN(Attribute attr, c.service.annotations().UpsertAttribute(c.principal, c.params[0], name, value, &created));
  return Ok(DataEnvelope(ToJson(attr)), created ? 201 : 200);
}

Result<HttpResponse> UpdateAttribute(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::optional<std::string> name, c.body->OptString("name"));
  LC_ASSIGN_OR_RETURN(std::optional<std::string> value, c.body->OptString("value"));
  LC_ASSIGN_OR_RETURN(Attribute attr, c.service.annotations().UpdateAttribute(c.principal, c.params[0], c.params[1], name, value));
  return Ok(DataEnvelope(ToJson(attr)));
}

Result<HttpResponse> DeleteAttribute(RouteContext& c) {
  LC_RETURN_IF_ERROR(c.service.annotations().DeleteAttribute(c.principal, c.params[0], c.params[1]));
  return Deleted(c.params[1]);
}

// ---- Customers and members ----

Result<HttpResponse> GetCustomer(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(Customer customer, c.service.directory().GetCustomer(c.principal, c.params[0]));
  return Ok(DataEnvelope(ToJson(customer)));
}

Result<HttpResponse> ListCustomerConversations(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(PageRequest page, PageFromQuery(c.target));
  LC_ASSIGN_OR_RETURN(Page<Conversation> result, c.service.directory().ListCustomerConversations(c.principal, c.params[0], page));
  return PagedConversations(result);
}

Result<HttpResponse> ListMembers(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(std::vector<Member> members, c.service.directory().ListMembers(c.principal));
  return Ok(DataEnvelope(JsonArray(members, [](const Member& m) { return ToJson(m); })));
}

Result<HttpResponse> GetMember(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(Member member, c.service.directory().GetMember(c.principal, c.params[0]));
  return Ok(DataEnvelope(ToJson(member)));
}

// ---- Webhook management ----

std::string SubscriptionJson(const WebhookSubscription& s) { return ToJson(s); }

// ---- The change feed ----

Result<HttpResponse> ListEventFeed(RouteContext& c) {
  EventFeedRequest r;
  LC_ASSIGN_OR_RETURN(PageRequest page, PageFromQuery(c.target));
  r.limit = page.limit;
  if (auto after = c.target.Query("after"); after && !after->empty()) r.after = *after;
  if (auto types = c.target.Query("types"); types && !types->empty()) {
    std::vector<std::string> list;
    std::string_view rest = *types;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      std::string_view one = rest.substr(0, comma);
      if (one.empty()) return MakeError(ErrorCode::kInvalidParams, "types must be event names separated by commas");
      list.emplace_back(one);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
      if (rest.empty()) return MakeError(ErrorCode::kInvalidParams, "types must be event names separated by commas");
    }
    r.types = std::move(list);
  }
  if (c.streams && WantsEventStream(c.req)) {
    // The live form. Last-Event-ID, which a reconnecting EventSource sends,
    // means what `after` means and wins over it.
    if (auto last = c.req.Header("last-event-id"); last && !last->empty()) r.after = *last;
    const Principal& p = c.principal;
    const std::string owner = p.keyId ? "key " + *p.keyId : p.memberId ? "member " + *p.memberId : "system";
    // The place first: a refused stream costs no read. The first read's
    // errors (403, 400, 410) are answered as JSON before any stream starts.
    LC_ASSIGN_OR_RETURN(EventStreams::Slot slot, c.streams->Open(owner));
    const std::uint64_t seen = c.streams->Generation();
    LC_ASSIGN_OR_RETURN(EventFeedPage first, c.service.feed().ListEventFeed(p, r));
    return c.streams->Response(c.service, p, std::move(r), std::move(first), seen, std::move(slot));
  }
  LC_ASSIGN_OR_RETURN(EventFeedPage feed, c.service.feed().ListEventFeed(c.principal, r));
  std::string items = "[";
  for (std::size_t i = 0; i < feed.items.size(); ++i) {
    if (i) items += ',';
    items += FeedEventJson(feed.items[i], feed.cursors[i]);
  }
  items += ']';
  return Ok(PagedEnvelope(items, feed.nextCursor, feed.hasMore));
}

Result<HttpResponse> ListWebhooks(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(auto subs, c.service.webhooks().ListWebhooks(c.principal));
  return Ok(DataEnvelope(JsonArray(subs, SubscriptionJson)));
}

}  // namespace

// Shared with the legacy /webhook/subscriptions endpoint.
Result<CreateWebhookInput> CreateWebhookFromBody(const JsonBody& body) {
  CreateWebhookInput in;
  LC_ASSIGN_OR_RETURN(in.url, body.OptString("url"));
  LC_ASSIGN_OR_RETURN(in.events, body.OptStringArray("events"));
  LC_ASSIGN_OR_RETURN(in.metadataJson, body.OptObjectJson("metadata"));
  LC_ASSIGN_OR_RETURN(in.signatureFormat, body.OptString("signatureFormat"));
  return in;  // a "secret" in the body is ignored (spec)
}

Result<UpdateWebhookInput> UpdateWebhookFromBody(const JsonBody& body) {
  UpdateWebhookInput in;
  LC_ASSIGN_OR_RETURN(in.isActive, body.OptBool("isActive"));
  LC_ASSIGN_OR_RETURN(in.events, body.OptStringArray("events"));
  LC_ASSIGN_OR_RETURN(in.url, body.OptString("url"));
  LC_ASSIGN_OR_RETURN(in.metadataJson, body.OptObjectJson("metadata"));
  LC_ASSIGN_OR_RETURN(in.signatureFormat, body.OptString("signatureFormat"));
  return in;
}

namespace {

Result<HttpResponse> CreateWebhook(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(CreateWebhookInput in, CreateWebhookFromBody(*c.body));
  bool created = false;
  LC_ASSIGN_OR_RETURN(auto sub, c.service.webhooks().CreateWebhook(c.principal, in, &created));
  return Ok(DataEnvelope(ToJson(sub)), created ? 201 : 200);
}

Result<HttpResponse> GetWebhook(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(auto subs, c.service.webhooks().ListWebhooks(c.principal));
  for (const auto& s : subs)
    if (s.id == c.params[0]) return Ok(DataEnvelope(ToJson(s)));
  return MakeError(ErrorCode::kNotFound, "subscription not found");
}

Result<HttpResponse> UpdateWebhook(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(UpdateWebhookInput in, UpdateWebhookFromBody(*c.body));
  LC_ASSIGN_OR_RETURN(auto sub, c.service.webhooks().UpdateWebhook(c.principal, c.params[0], in));
  return Ok(DataEnvelope(ToJson(sub)));
}

Result<HttpResponse> RotateWebhookSecret(RouteContext& c) {
  std::optional<std::int64_t> grace;
  if (c.body) {
    LC_ASSIGN_OR_RETURN(grace, c.body->OptInt("gracePeriodSeconds"));
  }
  LC_ASSIGN_OR_RETURN(auto sub, c.service.webhooks().RotateWebhookSecret(c.principal, c.params[0], grace));
  return Ok(DataEnvelope(ToJson(sub)));
}

Result<HttpResponse> DeleteWebhook(RouteContext& c) {
  LC_RETURN_IF_ERROR(c.service.webhooks().DeleteWebhook(c.principal, c.params[0]));
  return Deleted(c.params[0]);
}

Result<HttpResponse> ListWebhookAttempts(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(auto attempts, c.service.webhooks().ListWebhookAttempts(c.principal, c.params[0]));
  return Ok(DataEnvelope(JsonArray(attempts, [](const DeliveryAttempt& a) { return ToJson(a); })));
}

Result<HttpResponse> ListWebhookDeliveries(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(auto deliveries, c.service.webhooks().ListWebhookDeliveries(c.principal, c.params[0]));
  return Ok(DataEnvelope(JsonArray(deliveries, [](const WebhookDelivery& d) { return ToJson(d); })));
}

Result<HttpResponse> DeleteCustomer(RouteContext& c) {
  LC_RETURN_IF_ERROR(c.service.privacy().DeleteCustomer(c.principal, c.params[0]));
  return Deleted(c.params[0]);
}

Result<HttpResponse> RedeliverWebhook(RouteContext& c) {
  LC_ASSIGN_OR_RETURN(auto d, c.service.webhooks().RedeliverWebhook(c.principal, c.params[0], c.params[1]));
  return Ok(DataEnvelope(ToJson(d)), 202);
}

const std::vector<Route>& Routes() {
  using B = BodyRule;
  static const std::vector<Route> kRoutes = {
      PlainRead({"chat", "conversations"}, ListConversations),
      PlainRead({"chat", "conversations", "{conversationId}"}, GetConversation),
      PlainRead({"chat", "conversations", "{conversationId}", "related"}, ListRelated),
      PlainRead({"chat", "conversations", "{conversationId}", "browsed-pages"}, ListBrowsedPages),
      PlainRead({"chat", "conversations", "{conversationId}", "summary"}, GetSummary),
      {{"chat", "conversations", "{conversationId}", "state"}, "POST", B::kRequired, SetState},
      {{"chat", "conversations", "{conversationId}", "assign"}, "POST", B::kRequired, Assign},
      {{"chat", "conversations", "{conversationId}", "read"}, "POST", B::kOptional, MarkRead},
      {{"chat", "conversations", "{conversationId}", "typing"}, "GET", B::kNone, ListTyping, /*adminOnly=*/true},
      {{"chat", "conversations", "{conversationId}", "typing"}, "POST", B::kRequired, SetTyping},
      {{"chat", "conversations", "{conversationId}", "star"}, "POST", B::kRequired, SetStarred, /*adminOnly=*/true},
      {{"chat", "conversations", "{conversationId}", "files"}, "POST", B::kNone, SendFile, /*adminOnly=*/true},
      {{"chat", "inbox-counts"}, "GET", B::kNone, CountInbox, /*adminOnly=*/true},
      PlainRead({"chat", "conversations", "{conversationId}", "messages"}, ListMessages),
      {{"chat", "conversations", "{conversationId}", "messages"}, "POST", B::kRequired, SendMessage},
      PlainRead({"chat", "conversations", "{conversationId}", "messages", "{messageId}"}, GetMessage),
      // Counts every tagged conversation of the store: not bounded.
      PlainRead({"chat", "tags"}, ListTagCatalog, /*bounded=*/false),
      {{"chat", "conversations", "{conversationId}", "tags"}, "POST", B::kRequired, AddTags},
      {{"chat", "conversations", "{conversationId}", "tags", "{tag}"}, "DELETE", B::kNone, RemoveTag},
      PlainRead({"chat", "conversations", "{conversationId}", "notes"}, ListNotes),
      {{"chat", "conversations", "{conversationId}", "notes"}, "POST", B::kRequired, CreateNote},
      {{"chat", "conversations", "{conversationId}", "notes", "{noteId}"}, "PUT", B::kRequired, UpdateNote},
      {{"chat", "conversations", "{conversationId}", "notes", "{noteId}"}, "DELETE", B::kNone, DeleteNote},
      PlainRead({"chat", "conversations", "{conversationId}", "attributes"}, ListAttributes),
      {{"chat", "conversations", "{conversationId}", "attributes"}, "POST", B::kRequired, UpsertAttribute},
      {{"chat", "conversations", "{conversationId}", "attributes", "{attributeId}"}, "PUT", B::kRequired, UpdateAttribute},
      {{"chat", "conversations", "{conversationId}", "attributes", "{attributeId}"}, "DELETE", B::kNone, DeleteAttribute},
      PlainRead({"chat", "customers", "{customerUuid}"}, GetCustomer),
      {{"chat", "customers", "{customerUuid}"}, "DELETE", B::kNone, DeleteCustomer, /*adminOnly=*/true},
      PlainRead({"chat", "customers", "{customerUuid}", "conversations"}, ListCustomerConversations),
      PlainRead({"chat", "members"}, ListMembers),
      PlainRead({"chat", "members", "{memberId}"}, GetMember),
      {{"chat", "events"}, "GET", B::kNone, ListEventFeed},
      {{"chat", "webhooks"}, "GET", B::kNone, ListWebhooks},
      {{"chat", "webhooks"}, "POST", B::kRequired, CreateWebhook},
      {{"chat", "webhooks", "{webhookId}"}, "GET", B::kNone, GetWebhook},
      {{"chat", "webhooks", "{webhookId}"}, "PUT", B::kRequired, UpdateWebhook},
      {{"chat", "webhooks", "{webhookId}"}, "DELETE", B::kNone, DeleteWebhook},
      {{"chat", "webhooks", "{webhookId}", "rotate-secret"}, "POST", B::kOptional, RotateWebhookSecret},
      {{"chat", "webhooks", "{webhookId}", "attempts"}, "GET", B::kNone, ListWebhookAttempts},
      {{"chat", "webhooks", "{webhookId}", "deliveries"}, "GET", B::kNone, ListWebhookDeliveries},
      {{"chat", "webhooks", "{webhookId}", "deliveries", "{deliveryId}", "redeliver"}, "POST", B::kOptional, RedeliverWebhook},
  };
  return kRoutes;
}

// `params`: null when only the match is wanted.
bool Matches(const Route& route, const std::vector<std::string>& segments, std::size_t first,
             std::vector<std::string>* params) {
  if (segments.size() < first || segments.size() - first != route.pattern.size()) return false;
  if (params) params->clear();
  for (std::size_t i = 0; i < route.pattern.size(); ++i) {
    const std::string& seg = segments[first + i];
    if (route.pattern[i].front() == '{') {
      if (params) params->push_back(seg);
    } else if (route.pattern[i] != seg) {
      return false;
    }
  }
  return true;
}

// "/chat/conversations/{conversationId}": built once per route.
const std::string& TemplateOf(const Route& route) {
  static const std::vector<std::string> kTemplates = [] {
    std::vector<std::string> out;
    for (const Route& r : Routes()) {
      std::string t;
      for (std::string_view seg : r.pattern) {
        t += '/';
        t += seg;
      }
      out.push_back(std::move(t));
    }
    return out;
  }();
  return kTemplates[static_cast<std::size_t>(&route - Routes().data())];
}

}  // namespace

std::optional<std::string> ChatRouteTemplate(const std::vector<std::string>& segments, std::size_t first) {
  std::vector<std::string> params;
  for (const Route& route : Routes()) {
    if (Matches(route, segments, first, &params)) return TemplateOf(route);
  }
  return std::nullopt;
}

bool ChatPlainRead(std::string_view method, const std::vector<std::string>& segments, std::size_t first) {
  for (const Route& route : Routes()) {
    if (route.method == method && !route.adminOnly && Matches(route, segments, first, nullptr)) return route.oneRead;
  }
  return false;
}

namespace {

// The conversation list reads one page through one index when it has no
// search text (q) and at most one filter, of those that have an index of
// their own (lib/storage/sqlite/sqlite_schema.cc: conversations_status,
// _member, _customer, _email, _starred). A second filter, or channel or
// isRead, may walk the whole store to fill a page of rare matches.
bool ListServedByIndex(const ParsedTarget& target) {
  static constexpr std::array<std::string_view, 5> kIndexed{"status", "assigneeId", "customerUuid", "email",
                                                            "isStarred"};
  int filters = 0;
  for (const auto& [key, value] : target.query) {
    if (key == "limit" || key == "cursor") continue;
    if (std::find(kIndexed.begin(), kIndexed.end(), key) == kIndexed.end()) return false;
    ++filters;
  }
  return filters <= 1;
}

}  // namespace

bool ChatBoundedRead(std::string_view method, const ParsedTarget& target) {
  for (const Route& route : Routes()) {
    if (route.method == method && !route.adminOnly && Matches(route, target.segments, 0, nullptr))
      return route.oneRead && route.bounded && (route.handler != &ListConversations || ListServedByIndex(target));
  }
  return false;
}

bool ChatAnswersLater(std::string_view method, const ParsedTarget& target) {
  for (const Route& route : Routes()) {
    if (route.method == method && !route.adminOnly && Matches(route, target.segments, 0, nullptr))
      return route.handler == &SendMessage;
  }
  return false;
}

HttpResponse DispatchChat(ChatService& service, const Principal& principal, const HttpRequest& req,
                          const ParsedTarget& target, std::size_t first, std::size_t maxBodyBytes,
                          const RouteRunner& around, EventStreams* streams, bool mayAnswerLater) {
  std::vector<std::string> params;
  const bool admin = principal.kind == Principal::Kind::kAdminSession;
  auto m = MatchRoute(Routes(), req.method, [&](const Route& route) {
    return (admin || !route.adminOnly) && Matches(route, target.segments, first, &params);
  });
  if (m.pathRow == nullptr) return ErrorResponse(MakeError(ErrorCode::kNotFound, "no such endpoint: " + target.path));
  if (m.row == nullptr) {
    HttpResponse resp = MethodNotAllowed(req.method, m.allow);
    resp.route = TemplateOf(*m.pathRow);
    return resp;
  }
  const Route& route = *m.row;
  auto run = [&]() -> HttpResponse {
    auto body = JsonBody::FromRequest(req, route.body, maxBodyBytes);
    if (!body.ok()) return ErrorResponse(body.error());
    // A required body is always present here; handlers of kOptional routes ignore it.
    RouteContext ctx{service, principal, target, std::move(params), body->has_value() ? &**body : nullptr, req,
                     streams, mayAnswerLater};
    Result<HttpResponse> resp = route.handler(ctx);
    return resp.ok() ? std::move(resp).value() : ErrorResponse(resp.error());
  };
  HttpResponse out = around ? around(run) : run();
  out.route = TemplateOf(route);
  if (out.deferred)
    out.deferred = [inner = std::move(out.deferred), route = out.route](HttpReply reply) {
      inner([reply = std::move(reply), route](HttpResponse later) {
        later.route = route;
        reply(std::move(later));
      });
    };
  return out;
}

}  // namespace livechat::rest
