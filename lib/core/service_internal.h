// Helpers shared by the services' translation units: permission checks,
// limit resolution, event construction and store access patterns.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "livechat/base/json_writer.h"
#include "core/service_context.h"
#include "livechat/chat_service.h"

namespace livechat::internal {

inline Error NotFound(std::string_view what) { return MakeError(ErrorCode::kNotFound, std::string(what) + " not found"); }
inline Error Invalid(std::string message) { return MakeError(ErrorCode::kInvalidParams, std::move(message)); }

// The orders a conversation list or search may name (?sort=).
inline constexpr const char* kSortValuesMessage = "sort must be relevance or lastActive";

// FORBIDDEN naming the missing permission as the settings panel shows it.
Status Require(const Principal& p, Permission perm);
// "Manage conversations" covers every read of conversation data.
Status RequireReadConversations(const Principal& p);
Status RequireSystem(const Principal& p);

// The spec's paginated-endpoint rule: null -> default, > max -> max, < 1 -> 400.
Result<int> ResolveLimit(const std::optional<std::int64_t>& limit, int def, int max);

// Validates a text field: present, valid UTF-8, not blank (unless allowEmpty),
// at most `max` code points. `field` names it in the message.
Status CheckText(const std::optional<std::string>& v, std::string_view field, int max, bool allowEmpty = false);

// Runs fn in a read snapshot and returns what it produced.
// The value is built in `out` and every path returns `out`, so the record
// is not moved again on its way to the caller (a retried transaction
// assigns it anew).
template <typename T>
Result<T> ReadValue(Store& store, const std::function<Result<T>(StoreReader&)>& fn) {
  Result<T> out{Error{}};
  Status st = store.Read([&](StoreReader& r) -> Status {
    out = fn(r);
    if (!out.ok()) return out.take_error();
    return Status::Ok();
  });
  if (!st.ok()) out = st.take_error();
  return out;
}

// Runs fn in one write transaction (rolled back on error) and returns its value.
template <typename T>
Result<T> WriteValue(Store& store, const std::function<Result<T>(StoreWriter&)>& fn) {
  Result<T> out{Error{}};
  Status st = store.Write([&](StoreWriter& w) -> Status {
    out = fn(w);
    if (!out.ok()) return out.take_error();
    return Status::Ok();
  });
  if (!st.ok()) out = st.take_error();
  return out;
}

// A conversation of this shop by any id form, or NOT_FOUND.
Result<Conversation> LoadConversation(StoreReader& r, const std::string& shopId, const std::string& id);
// Its id alone: the same 404, without reading the conversation's row.
Result<std::string> LoadConversationId(StoreReader& r, const std::string& shopId, const std::string& id);
// The store query a list filter asks for, its values checked (INVALID_PARAMS).
Result<ConversationQuery> ConversationQueryOf(const Principal& p, const ConversationFilter& f);
// One page of a store query (conversations of the inbox, of a customer), a
// cursor from the previous page continuing it; `limit` already resolved.
Result<Page<Conversation>> RunConversationQuery(Store& store, ConversationQuery q, const PageRequest& page, int limit);
// An active member of this shop, or INVALID_PARAMS naming `field`.
Result<Member> LoadActiveMember(StoreReader& r, const std::string& shopId, const std::optional<std::string>& memberId,
                                std::string_view field);

// A new contact of a shop as a channel first sees it: the name split at its
// first space, `guest` with an email, else `anonymous`.
Customer NewContact(Random& random, const std::string& shopId, const std::optional<std::string>& name,
                    const std::optional<std::string>& email, const std::optional<std::string>& phone, Millis now);

// Removes the records of a shop's uploaded files that shop redact deletes
// (contact imports, logos, avatars, icons; not widget attachments, which
// are conversation history) inside an open transaction; returns how many.
// FileService::PurgeShopUploads removes the bytes (file_service.cc).
Result<std::int64_t> DeleteShopUploadRecords(StoreWriter& w, const std::string& shopId);

// The summary of a redacted conversation, as the extractive summarizer
// writes it: nothing of the content, only the count of messages that are
// neither notes nor deleted (summary_worker.cc). A customer redact replaces
// an existing summary with it; the worker stores it when a redact landed
// while a summarizer ran.
Result<Summary> RedactedSummary(StoreReader& r, const Conversation& c, Millis at);

// CHANNEL_UNAVAILABLE when the store's integration for `channel` is
// disconnected (uninstall, or the operator); channels without one pass
// (privacy_service.cc).
Status CheckChannelConnected(StoreReader& r, const std::string& shopId, const std::string& channel);

// A message with attachments adds contentType and files (`filesJson`: the
// entries with their URLs; the message's own when null).
std::string MessageEventData(const Message& m, const std::string* filesJson = nullptr);
// The customer.created event's data; of a redacted contact, the form a
// redact rewrites undelivered events to (privacy_service.cc).
std::string CustomerCreatedData(const Customer& c);

// An inbound customer message written inside an open transaction: the contact
// and the conversation are created as needed, with their events
// (conversation_messages.cc). ReceiveInbound and the storefront share it.
struct InboundRecord {
  Conversation conversation;
  Message message;
  Customer customer;
  bool newConversation = false;
};
Result<InboundRecord> RecordInbound(StoreWriter& w, Random& random, const std::string& shopId,
                                    const InboundMessageInput& in, Millis now);

// Appends the events to the outbox and, in the same transaction, one delivery
// row per matching active webhook subscription (webhook_service.cc).
Status EmitEvents(StoreWriter& w, Random& random, const std::vector<Event>& events);
inline Status EmitEvent(StoreWriter& w, Random& random, const Event& e) { return EmitEvents(w, random, {e}); }

}  // namespace livechat::internal
