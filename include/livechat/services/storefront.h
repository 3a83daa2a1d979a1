// StorefrontService: the widget's API: visitor sessions and what a visitor
// does (storefront_service.cc).
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include "livechat/services/common.h"
#include "livechat/services/files.h"

namespace livechat {

// ---- Storefront visitor inputs and outputs (storefront_service.cc) ----
struct VisitorStart {
  VisitorSession session;
  std::string token;  // the bearer secret for the browser, returned once; only its hash is stored
};
// identify / user:* setters. Unset fields are left as they are.
struct VisitorIdentity {
  std::optional<std::string> id;  // the shop's own customer id (Customer::shopifyId)
  std::optional<std::string> email, name, firstName, lastName, phone;
};
// What the widget has not seen yet: replies after a message seq, the agents'
// typing indicators, and the conversation itself (status, assignment).
struct VisitorUpdates {
  std::vector<Message> messages;     // seq > afterSeq, notes excluded, send order
  std::vector<TypingState> typing;   // agents' rows with active true
  std::optional<Conversation> conversation;
  // Everything the widget shows besides the messages, as 16 hex characters:
  // whether there is a conversation, its status, its bot flag, whether it is
  // assigned, and which agents type. Two polls with the same view show the
  // same; a waiting poll compares it with the one the widget last got.
  std::string view;
};

class StorefrontService {
 public:
  explicit StorefrontService(internal::ServiceContext& ctx);
  StorefrontService(const StorefrontService&) = delete;
  StorefrontService& operator=(const StorefrontService&) = delete;

  // ---- Storefront (the widget's API; storefront_service.cc) ----
  // No credential but the store's public App ID, on any plan (spec). A
  // visitor's calls act only on its own session's contact and conversation.
  // Unknown App ID: NOT_FOUND. At most limits().visitorSessionsPerIp new
  // sessions per rate window from one `sourceIp` (RATE_LIMITED): the widget
  // API has no credential, and sessions are rows that stay. Only sessions
  // created count: a refused call (no or unknown App ID, the window full)
  // does not.
  Result<VisitorStart> StartVisitorSession(const std::string& appId, const std::string& sourceIp);
  // logout / session:reset: ends the session and starts a new one of its
  // store in one transaction, counted in the same window as
  // StartVisitorSession. Refused (the window full, the session already
  // ended): nothing changes, the old token keeps working.
  Result<VisitorStart> RenewVisitorSession(const VisitorSession& s, const std::string& sourceIp);
  // Missing token: UNAUTHENTICATED; unknown, ended, or another store's:
  // UNAUTHENTICATED. Touches lastSeenAt at most once a minute.
  Result<VisitorSession> AuthenticateVisitor(const std::string& appId, const std::string& token);
  // logout / session:reset: the token stops working; the contact and the
  // conversation stay (they are the store's records).
  Status EndVisitorSession(const VisitorSession& s);
  // The first message creates the contact (unless identify did) and the
  // conversation, with customer.created, conversation.created and
  // message.created; page views and conversation attributes set before it
  // are written to the new conversation in the same transaction.
  Result<Message> VisitorSendMessage(const VisitorSession& s, const std::string& text);
  // An attachment from the widget, sent as a message (contentType "file",
  // the file in `files`; text: the caption, or the file name without one),
  // exactly like VisitorSendMessage otherwise. Limits as UploadFile's.
  Result<Message> VisitorSendFile(const VisitorSession& s, const FileUpload& in,
                                  const std::optional<std::string>& caption);
  // Stored as the typing row of member id "customer"; no conversation yet: nothing to show, OK.
  Status VisitorSetTyping(const VisitorSession& s, bool active);
  // Creates the contact when the session has none (an existing contact with
  // that email is adopted), else updates it; an `id` makes it type customer,
  // an email makes an anonymous contact a guest.
  Result<Customer> VisitorIdentify(const VisitorSession& s, const VisitorIdentity& who);
  // Merged into customAttributes (values are strings); creates the contact if needed.
  Result<Customer> VisitorSetCustomerAttributes(const VisitorSession& s, const std::map<std::string, std::string>& attrs);
  // Upserted by name; kept on the session until the conversation exists.
  Status VisitorSetConversationAttributes(const VisitorSession& s, const std::map<std::string, std::string>& attrs);
  // url: http(s), at most 2,048 characters; title at most 255. Kept on the
  // session (the newest limits().browsedPagesKept) until the conversation exists.
  Status VisitorRecordPageView(const VisitorSession& s, const BrowsedPage& page);
  // Hands the conversation to a human: isChatBot false, unread for agents, an
  // activity line (system, no event). No conversation yet: CONFLICT.
  Result<Conversation> VisitorEscalate(const VisitorSession& s, const std::optional<std::string>& reason);
  // Widget state with no record of its own (pre-chat, commerce context,
  // locale, context, shop data, tracked events): `valueJson` replaces the
  // session state's `key`; JSON null removes it.
  Status VisitorSetState(const VisitorSession& s, const std::string& key, const std::string& valueJson);
  // Appends to the session state's array `key`, keeping the newest `keep`.
  Status VisitorAppendState(const VisitorSession& s, const std::string& key, const std::string& valueJson, int keep);
  Result<VisitorUpdates> VisitorPoll(const VisitorSession& s, std::int64_t afterSeq);

 private:
  internal::ServiceContext& ctx_;
};

}  // namespace livechat
