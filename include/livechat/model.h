// The records of the spec (Conversation, Message, Customer, Member, Note,
// Attribute) and the service's own (stores, API keys, sessions, events).
// Plain values: no behaviour, no I/O. Times are Unix milliseconds, UTC.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace livechat {

using Millis = std::int64_t;

enum class Plan : std::uint8_t { kFree, kBasic, kPro, kPlus };
// The plans' names, in Plan's order: the list every surface checks and names.
inline constexpr std::array<std::string_view, 4> kPlanNames = {"free", "basic", "pro", "plus"};
std::string_view PlanName(Plan p);
std::optional<Plan> ParsePlan(std::string_view s);
inline bool PlanAllowsApiKeys(Plan p) { return p == Plan::kPro || p == Plan::kPlus; }

// A shop. `id` is the internal store id (shopId on every record); `appId` is
// the public App ID used by GraphQL, MCP and the storefront.
struct Shop {
  std::string id;
  std::string appId;
  std::string name;
  Plan plan = Plan::kFree;
  bool autoAssign = false;   // inbox setting: an agent reply assigns the replier
  bool installed = true;
  Millis createdAt = 0;
};

// Permission bits of an API key (spec: Authentication §6, and the tool-server
// admin permissions for later surfaces).
enum Permission : std::uint32_t {
  kPermNone = 0,
  kPermReadConversations = 1u << 0,
  kPermManageConversations = 1u << 1,
  kPermReadCustomers = 1u << 2,
  kPermReadSetupStatus = 1u << 3,
  kPermReadSettings = 1u << 4,
  kPermManageWidgetSettings = 1u << 5,
  kPermManageAllSettings = 1u << 6,
  kPermManageKnowledge = 1u << 7,
};
// Every permission above: the demo keys' mask, so a demo shows every surface
// (the tool server's admin tools included). A new permission goes in here too.
inline constexpr std::uint32_t kPermAll = kPermReadConversations | kPermManageConversations | kPermReadCustomers |
                                          kPermReadSetupStatus | kPermReadSettings | kPermManageWidgetSettings |
                                          kPermManageAllSettings | kPermManageKnowledge;
// Slugs: read_conversations, manage_conversations, read_customers,
// read_setup_status, read_settings, manage_widget_settings,
// manage_all_settings, manage_knowledge.
std::optional<Permission> ParsePermissionSlug(std::string_view slug);
// Every permission's slug, in bit order (for a message or a CLI's help).
std::vector<std::string_view> PermissionSlugs();
std::string_view PermissionSlug(Permission p);
// Human name as the spec writes it: "Read conversations", ...
std::string_view PermissionDisplayName(Permission p);
std::vector<std::string> PermissionSlugs(std::uint32_t mask);

struct ApiKey {
  std::string id;
  std::string shopId;
  std::string name;
  std::string keyHash;        // hex SHA-256 of the full sk_ value; the value itself is never stored
  std::string prefix;         // "sk_" + first 4 hex, for display
  std::uint32_t permissions = 0;
  bool legacy = false;        // created before permissions existed: passes every check
  Millis createdAt = 0;
  Millis activeFrom = 0;      // refused before this instant (spec: new key, up to 30 s)
  std::optional<Millis> revokedAt;
  std::optional<Millis> lastUsedAt;
};

struct Member {
  std::string id;
  std::string shopId;
  std::string email;
  std::optional<std::string> firstName;
  std::optional<std::string> lastName;
  std::string avatarUrl;
  std::string role = "member";  // admin | member
  bool active = true;
  std::optional<bool> enableAwayMode;
  std::string passwordHash;     // libsodium crypto_pwhash_str; empty = cannot log in; never serialized
  Millis createdAt = 0;
};
// "First Last", trimmed; falls back to the email when both names are unset.
std::string MemberFullName(const Member& m);

struct Customer {
  std::string id;
  std::string shopId;
  std::optional<std::string> shopifyId;
  std::optional<std::string> name, firstName, lastName, email, phone;
  std::string type = "anonymous";            // anonymous | guest | customer
  std::vector<std::string> channels;
  std::vector<std::string> tags;
  std::optional<std::string> note;
  std::map<std::string, std::string> customAttributes;
  std::optional<std::string> address1, address2, city, zip, country, countryCode;
  std::optional<std::int64_t> ordersCount;
  std::optional<double> totalSpent;
  std::optional<std::string> ipAddress, ipLocation, browser, browserVersion, os, deviceType;
  std::optional<std::int64_t> senderSeq;
  std::optional<Millis> lastChatAt;
  Millis createdAt = 0;
  std::optional<Millis> updatedAt;
  // Channel identity for Messenger / Instagram / WhatsApp delivery (page-scoped
  // id or phone). Internal: never serialized.
  std::optional<std::string> channelRecipient;
  // Set by a customer-redact request (spec rule 8): the personal fields are
  // cleared and the contact reads as isRedacted.
  std::optional<Millis> redactedAt;
};

struct LastMessage {
  std::string text;
  std::string senderType;  // customer | agent | bot | system
  Millis createdAt = 0;
};

// A phone number in the one form numbers are compared in (a redact names a
// contact by phone): its digits, so "+1 (555) 010-0000", "+15550100000" and
// "15550100000" are one number, and a leading "00" (the international
// prefix) counts as "+". No country is guessed: "555-010-0000" is another
// number, because a wrong guess would reach someone else. Empty, equal to
// nothing, when the value is no phone number: anything but digits, spaces,
// "-", "(", ")", "." and one leading "+", or fewer than 7 or more than 15
// digits (E.164's bounds).
std::string PhoneKey(std::string_view phone);

// Channels a conversation can start on (list filter `channel`), the one list
// every surface checks against and names in its messages and help.
// "playground": the AI playground's test conversations (the tool server's
// list_conversations); the store talks to its own AI agent there.
inline constexpr std::array<std::string_view, 6> kChannels = {"online_store", "email",     "facebook",
                                                              "instagram",    "whatsapp",  "playground"};
// Those of them that depend on an integration (livechatctl integrations, the
// uninstall's disconnect). online_store is the widget: part of the app
// itself, not a connection to another service.
inline constexpr std::array<std::string_view, 4> kIntegratedChannels = {"email", "facebook", "instagram", "whatsapp"};
bool IsKnownChannel(std::string_view channel);
bool IsIntegratedChannel(std::string_view channel);
// The names joined by `separator` ("a, b" in a message, "a|b" in a CLI's help).
std::string JoinNames(std::span<const std::string_view> names, std::string_view separator);
// The refusals of the channel and role rules, one text for every surface (a
// CLI prefixes its option's dashes):
// "channel must be one of online_store, email, facebook, instagram, whatsapp, playground"
std::string UnknownChannelMessage();
// "channel must be one of email, facebook, instagram, whatsapp"
std::string UnknownIntegratedChannelMessage();
// A team member's role: admin or member.
inline constexpr std::array<std::string_view, 2> kMemberRoles = {"admin", "member"};
inline bool IsMemberRole(std::string_view role) { return role == kMemberRoles[0] || role == kMemberRoles[1]; }
inline constexpr std::string_view kMemberRoleMessage = "role must be admin or member";

struct Conversation {
  std::string id;                          // app-wide id (UUID)
  std::optional<std::string> firestoreId;  // older datastore id (legacy and migrated records)
  std::optional<std::int64_t> pgConvoId;   // numeric id in the newer datastore (null for unmigrated legacy)
  std::string shopId;
  std::optional<std::string> sessionId;
  std::optional<std::string> customerUuid;
  std::optional<std::string> customerName;
  std::optional<std::string> customerEmail;
  std::string customerType = "anonymous";
  std::string status = "open";             // open | resolved
  bool isChatBot = false, hasChatBot = false, isRead = false, isCustomerRead = true,
       isOnline = false, isBlock = false, isStarred = false, hasFirstMsg = false;
  std::string hidePreChatMessage;          // "" | by-user | by-admin
  std::optional<std::string> memberId;
  std::string channel = "online_store";    // the channel it started on
  std::vector<std::string> channels;       // every channel used
  std::vector<std::string> tags;           // in insertion order, unique
  std::optional<std::int64_t> messageCount;
  std::optional<LastMessage> lastMessage;
  std::optional<Millis> lastActive;
  std::optional<Millis> createdAt;
  std::optional<Millis> updatedAt;
  std::optional<Millis> lastCustomerMessageAt;  // internal: 24-hour messaging window
  bool inNewDatastore = true;  // false: an unmigrated legacy record (never listed; spec rule 5)
  // Set when its contact was redacted or deleted: the history stays, under
  // that label, without the contact's personal fields.
  std::optional<Millis> redactedAt;
};

struct Message {
  std::string id;                  // UUID
  std::int64_t seq = 0;            // numeric id, increasing in send order
  std::string conversationId;      // Conversation::id
  std::string shopId;
  std::string text;
  std::string senderName;
  std::string senderType = "customer";  // customer | agent | bot | system
  std::optional<std::string> memberId;
  bool isAdmin = false, isAutomated = false, isBot = false, isNote = false, isFirst = false,
       isTransfer = false, isQuickReplyMsg = false, isAskBotMessage = false, isDeleted = false;
  std::string contentType = "text";     // text | file
  std::optional<std::string> topic;
  // The four nested shapes the spec leaves "not shown" are kept as JSON text
  // (arrays, or an object for replyMessage) and emitted verbatim.
  std::string chatbotProductsJson = "[]";
  std::string chatbotFaqsJson = "[]";
  std::string filesJson = "[]";
  std::optional<std::string> replyMessageJson;
  Millis createdAt = 0;
};

struct Note {
  std::string id;
  std::string shopId;
  std::string conversationId;
  std::string text;
  bool isUpdated = false;
  Millis createdAt = 0, updatedAt = 0;
};

struct Attribute {
  std::string id;
  std::string shopId;
  std::string conversationId;
  std::string name;
  std::string value;
  Millis createdAt = 0, updatedAt = 0;
};

struct BrowsedPage {
  std::string url;
  std::optional<std::string> title;
  Millis viewedAt = 0;
};

struct Summary {
  std::string conversationId;
  std::string text;
  std::string summarizer;  // which Summarizer produced it
  Millis generatedAt = 0;
};

// A summary to generate: queued with the resolve that asks for it, claimed
// by a SummaryWorker under a lease. One per conversation: resolving again
// replaces it (a new id), reopening removes it.
struct SummaryJob {
  std::string id;                 // UUID; a worker completes only the job it claimed
  std::string shopId;
  std::string conversationId;     // Conversation::id
  Millis requestedAt = 0;         // the resolve
  int attempts = 0;               // failed runs so far
  Millis nextAttemptAt = 0;
  Millis leaseUntil = 0;          // claimed by a worker until then
};

struct TagCount {
  std::string name;
  std::int64_t conversationCount = 0;
};

struct TypingState {
  std::string conversationId;
  std::string memberId;
  bool active = false;
  Millis updatedAt = 0;
};

struct AdminSession {
  std::string tokenHash;  // hex SHA-256 of the cookie value
  std::string shopId;
  std::string memberId;
  Millis createdAt = 0, expiresAt = 0;
};

// One row of the transactional outbox. Written in the same transaction as the
// change that fires it; delivered by the webhook dispatcher.
struct Event {
  std::string id;                            // UUID, X-Webhook-Event-Id
  std::string shopId;
  std::string type;                          // message.created, ...
  std::optional<std::string> conversationId;
  Millis occurredAt = 0;
  std::string dataJson = "{}";               // the envelope's `data` object
  std::int64_t seq = 0;                      // its place in the store's change feed (read back; set by the store)
};


// A webhook subscription (spec: Webhook subscription).
struct WebhookSubscription {
  std::string id;
  std::string shopId;
  std::string url;
  std::vector<std::string> events;
  bool isActive = true;
  std::string secret;                // whsec_...; returned by create and list (spec)
  std::string secretHash;            // SHA-256 hex of secret: the legacy endpoints look it up; never serialized
  std::string metadataJson = "{}";   // caller's object, <= 2,048 bytes serialized; never in deliveries
  bool legacy = false;               // created through /webhook/subscriptions
  Millis createdAt = 0, updatedAt = 0;
  std::optional<Millis> lastDeliveryAt;
  std::optional<std::string> lastDeliveryStatus;  // succeeded | failed | dropped | disabled
  std::optional<int> lastDeliveryStatusCode;      // HTTP status of the last attempt; null when none came back
  std::optional<std::string> lastDeliveryError;
  // How deliveries are signed: "livechat" (X-Webhook-Signature, the spec's
  // format, the default) or "standard" (the Standard Webhooks headers).
  std::string signatureFormat = "livechat";
  // After a rotation, the secret it replaced also signs every delivery until
  // previousSecretExpiresAt, so receivers can switch without downtime.
  std::optional<std::string> previousSecret;  // never serialized
  std::optional<Millis> previousSecretExpiresAt;
};

// WebhookSubscription::signatureFormat's values.
inline constexpr const char* kSignatureLivechat = "livechat";
inline constexpr const char* kSignatureStandard = "standard";

// One event to one subscription. Its id is X-Webhook-Delivery-Id, stable across retries.
struct WebhookDelivery {
  std::string id;
  std::string shopId;
  std::string subscriptionId;
  std::string eventId;
  std::string state = "pending";   // pending | succeeded | failed | dropped | cancelled
  int attempts = 0;
  Millis nextAttemptAt = 0;
  Millis leaseUntil = 0;           // claimed by a sender until then
  std::optional<Millis> lastAttemptAt;
  Millis createdAt = 0;
};

// One HTTP attempt of a delivery (the attempt log).
struct DeliveryAttempt {
  std::string deliveryId;
  std::string subscriptionId;
  std::string shopId;
  std::string eventId;
  std::string eventType;
  int attempt = 0;                 // 1-based
  Millis at = 0;
  std::optional<int> statusCode;
  std::optional<std::string> error;
  Millis durationMillis = 0;
  std::string outcome;             // succeeded | retrying | failed | dropped | disabled
};

// A storefront visitor's session (the widget behind /sdk.js). The token is a
// bearer secret kept in the browser; only its SHA-256 is stored. The contact
// and the conversation are created lazily (identify, first message), so a
// page view alone creates neither.
struct VisitorSession {
  std::string id;                             // sessionId (Conversation::sessionId)
  std::string shopId;
  std::string tokenHash;                      // hex SHA-256 of the token; never serialized
  std::optional<std::string> customerId;
  std::optional<std::string> conversationId;  // Conversation::id
  // What the widget set that has no column of its own: identity given before
  // a contact exists, pre-chat state, commerce context, locale, tracked
  // events, and page views / conversation attributes waiting for the
  // conversation. A JSON object, owned by lib/core/storefront_service.cc.
  std::string stateJson = "{}";
  Millis createdAt = 0, lastSeenAt = 0;
  std::optional<Millis> endedAt;              // logout / session:reset: the token no longer works
};

// An uploaded file's record; its bytes are in the BlobStore under
// "<shopId>/<kind>/<id>" (livechat/blob_store.h).
struct FileRecord {
  std::string id;                              // UUID; also the public URL's path segment
  std::string shopId;
  std::string kind;                            // import | logo | avatar | icon | attachment
  std::string name;                            // the uploader's file name, cleaned (no path, no controls)
  std::int64_t size = 0;                       // bytes
  std::string contentType;                     // the detected type (magic bytes), e.g. image/png
  std::string sha256;                          // lowercase hex of the bytes
  Millis createdAt = 0;
  std::optional<std::string> conversationId;   // attachments: Conversation::id
  std::optional<std::string> messageId;        // attachments: Message::id
  std::string uploaderType;                    // visitor | member | apiKey | operator
  std::optional<std::string> uploaderId;       // session id, member id or key id
};

// A store's connection to one messaging channel (email, facebook, instagram,
// whatsapp). A store without a row is connected: uninstalling the app
// disconnects every channel (spec rule 9) and an agent reply on a
// disconnected channel is CHANNEL_UNAVAILABLE.
struct ChannelIntegration {
  std::string shopId;
  std::string channel;
  bool connected = true;
  Millis updatedAt = 0;
};

// One signed request from the e-commerce platform, as the audit trail keeps
// it: what arrived, and what it changed.
struct PlatformRequest {
  std::string id;                          // ours ("preq_...")
  std::string shopId;
  std::string topic;                       // app_uninstalled | customers_redact | customers_data_request | shop_redact
  std::optional<std::string> deliveryId;   // the platform's webhook id header, when sent
  std::string requestKey;                  // what makes two requests "the same" (see docs/operations.md)
  Millis receivedAt = 0;
  std::string outcome;                     // applied | replay | refused
  std::string changesJson = "{}";          // counts of what changed: {"contacts":1,"conversations":2,...}
  std::optional<std::string> message;      // why it was refused, or what a replay repeats
};

// A customer-data request and its export, assembled when it arrived.
struct DataRequest {
  std::string id;                          // the platform's data request id
  std::string shopId;
  std::string customerJson = "{}";         // the customer as the request named it {id, email, phone}
  Millis receivedAt = 0;
  std::int64_t contacts = 0;               // contacts found for it
  std::string exportJson = "{}";           // everything held on them
};

}  // namespace livechat
