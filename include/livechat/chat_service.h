// ChatService: the one entry for every operation of every surface (REST,
// GraphQL, MCP, storefront, livechatctl). Permission checks, limits,
// validation, state transitions and event emission all live behind it, so the
// surfaces behave the same by construction.
//
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/address_policy.h"
#include "livechat/blob_store.h"
#include "livechat/channel_sender.h"
#include "livechat/clock.h"
#include "livechat/knowledge.h"
#include "livechat/metrics.h"
#include "livechat/model.h"
#include "livechat/principal.h"
#include "livechat/random.h"
#include "livechat/rate_counters.h"
#include "livechat/result.h"
#include "livechat/store.h"

namespace livechat {

class LoginThrottle;
class RateLimiter;
class RateWindows;

// Every number here is a setting; the defaults are the spec's.
struct Limits {
  int rateLimitPerKey = 120;        // requests per window per API key
  int rateLimitPerIp = 300;         // requests per window per source IP
  Millis rateWindowMillis = 60'000; // fixed window from the first request
  Millis keyActivationDelayMillis = 0;  // spec allows up to 30 s; see docs/decisions.md
  int maxActiveKeys = 5;
  int keyNameMax = 50;
  int conversationsDefault = 20, conversationsMax = 100;
  int messagesDefault = 50, messagesMax = 100;
  int relatedDefault = 6, relatedMax = 50;
  int customerConversationsDefault = 20, customerConversationsMax = 100;
  int messageTextMax = 5000;        // characters (Unicode code points)
  int noteTextMax = 150;
  int tagMax = 100;
  int attributeNameMax = 255, attributeValueMax = 1000;
  int browsedPagesKept = 50;
  Millis browsedPagesTtlMillis = 24 * 3600 * 1000;
  Millis channelWindowMillis = 24 * 3600 * 1000;  // Messenger / Instagram / WhatsApp
  Millis sessionTtlMillis = 7 * 24 * 3600 * 1000; // admin inbox login
  // Admin sign-in throttling (docs/decisions.md, "Sign-in throttling"): failed
  // passwords allowed before each attempt must wait, per account and per
  // source address; the first wait, doubling per further failure up to the
  // cap; how long a key's failures are remembered; keys kept per table.
  int loginFreeFailuresPerAccount = 5;
  int loginFreeFailuresPerAddress = 20;
  Millis loginFirstDelayMillis = 1'000;
  Millis loginMaxDelayMillis = 15 * 60 * 1000;
  Millis loginForgetAfterMillis = 24 * 3600 * 1000;
  std::size_t loginTrackedKeysMax = 10'000;
  int webhookSubscriptionsMax = 10;
  std::size_t webhookMetadataMax = 2048;          // bytes, serialized
  int webhookAttemptsKept = 50;                   // attempt log per subscription
  int visitorSessionsPerIp = 30;                  // new storefront sessions per window per source IP
  // Uploaded files (docs/operations.md, "Files"). Bytes, inclusive: N is accepted, N + 1 refused.
  std::int64_t attachmentMaxBytes = 10 * 1024 * 1024;  // widget attachments
  std::int64_t imageMaxBytes = 2 * 1024 * 1024;        // logos, avatars, icons
  std::int64_t importMaxBytes = 5 * 1024 * 1024;       // contact import CSV files
  int importRowsMax = 10'000;                          // data rows of one contact import (header not counted)
  Millis fileUrlTtlMillis = 3600 * 1000;               // a signed attachment URL in a read
  Millis webhookFileUrlTtlMillis = 24 * 3600 * 1000;   // ... in a webhook payload (outlives the retry ladder)
};

struct ServiceOptions {
  Store* store = nullptr;                // required; not owned
  Clock* clock = nullptr;                // null: Clock::Default()
  Random* random = nullptr;              // null: Random::Default()
  ChannelSender* channelSender = nullptr;  // null: NullChannelSender()
  Resolver* resolver = nullptr;          // null: Resolver::Default() (webhook url checks)
  bool allowPrivateWebhookTargets = false;  // local development and tests only
  // Called after a write that may have queued webhook deliveries (wakes the
  // dispatcher). Must be cheap and thread-safe.
  std::function<void()> onEventsQueued;
  // Resolving queues a summary job in the same transaction (a SummaryWorker
  // makes the summary; livechat/summarizer.h) and reopening removes a job
  // not yet run. Off: no jobs (a Store without summary jobs, or no worker).
  bool queueSummaries = true;
  // Called after a resolve queued a summary job (wakes the worker). Must be
  // cheap and thread-safe.
  std::function<void()> onSummaryQueued;
  // How long the change feed (GET /chat/events) keeps events: 1 to 365
  // days. PruneEventFeed removes older ones, unless a delivery waits for them.
  int eventRetentionDays = 7;
  Limits limits;
  // Where the request windows (per key, per address, visitor starts) are
  // counted; null: in this process. Several instances on one database pass
  // the database's (OpenPostgresRateWindows, with limits.rateWindowMillis)
  // so each limit holds across them. Not owned.
  RateWindows* rateWindows = nullptr;
  MetricsRegistry* metrics = nullptr;    // null: nothing counted; not owned
  // Where uploaded files' bytes live; null: every upload is refused (INTERNAL,
  // "uploads are not configured"). Not owned.
  BlobStore* blobs = nullptr;
  // Signs attachment URLs (HMAC-SHA256). Every process serving the same
  // database needs the same one; empty: a random secret for this instance
  // (its URLs stop working when it exits).
  std::string fileUrlSecret;
  // Prefix of the file URLs in reads ("https://chat.example.com"); empty:
  // URLs are root-relative ("/files/{id}").
  std::string fileBaseUrl;
};

template <typename T>
struct Page {
  std::vector<T> items;
  std::optional<std::string> nextCursor;  // null on the last page
  bool hasMore = false;
};

// `limit` as the caller sent it (null: the endpoint's default); a value above
// the maximum is clamped, below 1 is INVALID_PARAMS. `cursor` from
// paging.nextCursor; undecodable is INVALID_PARAMS.
struct PageRequest {
  std::optional<std::int64_t> limit;
  std::optional<std::string> cursor;
};

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

// One window a request was counted in, as the IETF RateLimit fields
// (draft-ietf-httpapi-ratelimit-headers) name it.
struct RatePolicy {
  std::string name;          // "key" (per API key) or "ip" (per source address)
  int quota = 0;             // requests per window (q)
  int windowSeconds = 60;    // w
  int remaining = 0;         // r
  Millis resetInMillis = 0;  // t, until this window ends
};

// What to do with a write that carries an Idempotency-Key.
struct IdempotentStart {
  enum class Kind { kRun, kReplay };
  Kind kind = Kind::kRun;
  // kReplay: the response of the first request with the key.
  int status = 0;
  std::string contentType;
  std::string body;
};
// The Idempotency-Key header's key: 1 to 255 printable ASCII characters, as a
// bare value or a Structured Field string ("..."). kInvalidParams otherwise.
Result<std::string> ParseIdempotencyKey(std::string_view header);
// What makes two requests the same: method, request target and body.
std::string IdempotencyFingerprint(std::string_view method, std::string_view target, std::string_view body);

// GET /chat/events: where to start, how many, which types.
// `after` value that starts at the end of the feed: an empty page whose
// nextCursor is the position of the newest event.
inline constexpr char kEventFeedNow[] = "now";
struct EventFeedRequest {
  std::optional<std::string> after;             // a cursor: paging.nextCursor, or an event's own, or kEventFeedNow
  std::optional<std::int64_t> limit;            // 1..500 (above: 500), default 100
  std::optional<std::vector<std::string>> types;  // event names; absent: all
};
struct EventFeedPage {
  std::vector<Event> items;  // oldest first, each with its seq
  std::vector<std::string> cursors;  // one per item: resume after it
  std::string nextCursor;    // always set: where the next call resumes, even after an empty page
  bool hasMore = false;
};

struct RateDecision {
  bool allowed = true;
  int limit = 0;       // X-RateLimit-Limit
  int remaining = 0;   // X-RateLimit-Remaining
  Millis resetInMillis = 0;
  // Every window the request was counted in, the key's first.
  std::vector<RatePolicy> policies;
};

// ---- Operator inputs (livechatctl, demo) ----
struct CreateShopInput {
  std::string name;
  Plan plan = Plan::kPro;
  bool autoAssign = false;
};
struct CreateKeyInput {
  std::string name;
  std::uint32_t permissions = 0;
  bool legacy = false;
};
struct CreatedKey {
  ApiKey key;
  std::string secret;  // the full sk_ value, returned once and never again
};
struct CreateMemberInput {
  std::string email;
  std::optional<std::string> firstName, lastName;
  std::string role = "member";
  std::optional<std::string> password;
  bool active = true;
  std::optional<std::string> avatarUrl;
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
struct SeedInput {
  int conversations = 0;
  int messagesPerConversation = 0;
};
// Relay connection arguments (GraphQL customers). Forward with first/after,
// backward with last/before. No default and no cap (spec); negative is
// INVALID_PARAMS.
struct CustomerPageRequest {
  std::optional<std::int64_t> first, last;
  std::optional<std::string> after, before;
};
struct CustomerPage {
  std::vector<Customer> items;
  std::vector<std::string> cursors;  // one per item
  bool hasNextPage = false, hasPreviousPage = false;
  std::int64_t totalCount = 0;       // the whole store, not the page
};

struct CreateWebhookInput {
  std::optional<std::string> url;
  std::optional<std::vector<std::string>> events;
  std::optional<std::string> metadataJson;  // a JSON object, serialized compactly by the caller
  bool legacy = false;                      // the /webhook/subscriptions endpoint (Pro or Plus only)
  std::optional<std::string> signatureFormat;  // "livechat" (default) | "standard"
};
struct UpdateWebhookInput {
  std::optional<bool> isActive;
  std::optional<std::vector<std::string>> events;
  std::optional<std::string> url;
  std::optional<std::string> metadataJson;
  std::optional<std::string> signatureFormat;
};
// ---- Legacy conversations (livechatctl import legacy / migrate) ----
struct LegacyImportResult {
  std::int64_t imported = 0;         // conversations written
  std::int64_t skipped = 0;          // already imported (same firestoreId): left as they are
  std::int64_t messages = 0;         // messages written
  std::int64_t contactsCreated = 0;  // new contacts (the others matched by email)
};
struct LegacyMigrationResult {
  std::int64_t migrated = 0;
  std::int64_t remaining = 0;        // still in the older datastore after this run
};
// ---- Store knowledge and the AI agent ----
struct CatalogImportResult {
  std::map<std::string, std::int64_t> written;  // kind -> records written (inserted or replaced)
  bool sizeChart = false, loyaltyProgram = false, settings = false;
};
// An after-sale request (customer_support): stored, and shown to agents as
// an internal note in the conversation.
struct SupportRequestInput {
  std::optional<std::string> type;         // return | refund | cancel | edit
  std::optional<std::string> orderNumber;  // must name an order of the store
  std::optional<std::string> reason;       // required, up to 1000 characters
  std::optional<std::string> details;      // up to 5000 characters
};
struct SetupStatus {
  std::vector<std::pair<std::string, bool>> checklist;  // step -> done, in display order
  std::int64_t trainingCount = 0;   // knowledge entries + product FAQ entries
  std::int64_t scenarioCount = 0;
  std::vector<std::string> enabledSkills;
};

// ---- Platform requests and privacy (chat_service_privacy.cc) ----
namespace platform_topic {
inline constexpr const char* kAppUninstalled = "app_uninstalled";
inline constexpr const char* kCustomersRedact = "customers_redact";
inline constexpr const char* kCustomersDataRequest = "customers_data_request";
inline constexpr const char* kShopRedact = "shop_redact";
}  // namespace platform_topic

// A signed request from the e-commerce platform, already verified and
// parsed by its adapter. The store is the principal's.
struct PlatformRequestInput {
  std::string topic;                       // one of platform_topic
  std::optional<std::string> deliveryId;   // the platform's webhook id header
  std::string bodyDigest;                  // SHA-256 hex of the raw body
  // customers_redact / customers_data_request: who. A contact matches by
  // shopifyId == customerId, or by email (case-insensitive).
  std::optional<std::string> customerId, customerEmail, customerPhone;
  std::vector<std::string> orders;         // orders_to_redact / orders_requested: order ids or numbers
  std::optional<std::string> dataRequestId;  // customers_data_request: required
};

struct LoginResult {
  std::string token;  // cookie value, returned once
  AdminSession session;
  Member member;
};

// ---- Uploaded files (chat_service_files.cc) ----
struct FileUpload {
  std::string kind;         // import | logo | avatar | icon | attachment
  std::string name;         // the uploader's file name; a path is cut to its last part, controls dropped
  std::string contentType;  // as declared; must be allowed for the kind and match the bytes' magic
  std::string bytes;
  std::optional<std::string> memberId;  // avatar: whose (operator); an admin session's is its own
};
struct FileContent {
  FileRecord file;
  std::string bytes;
};
// How a download proves its right to a file: a credential (already
// authenticated, any store's) and/or a signed URL's query values.
struct FileAccess {
  std::optional<Principal> principal;
  std::optional<std::string> expires;    // Unix seconds
  std::optional<std::string> signature;  // lowercase hex HMAC-SHA256
};
struct CsvImportResult {
  FileRecord file;           // the CSV, kept as a contact import
  std::int64_t rows = 0;     // data rows read
  std::int64_t created = 0;  // new contacts
  std::int64_t updated = 0;  // existing contacts (same email) updated
};

// ---- Storefront visitor inputs and outputs (chat_service_storefront.cc) ----
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

class ChatService {
 public:
  explicit ChatService(ServiceOptions options);
  ~ChatService();
  ChatService(const ChatService&) = delete;
  ChatService& operator=(const ChatService&) = delete;

  const Limits& limits() const { return options_.limits; }
  Clock& clock() const { return *clock_; }
  // Every write through it tells the conversation observer which
  // conversations it changed (SetConversationObserver).
  Store& store() const { return *store_; }

  // ---- Authentication ----
  // Empty key: UNAUTHENTICATED. Malformed, unknown, revoked, or not yet
  // active: INVALID_API_KEY. The comparison is on the SHA-256 of the key, in
  // constant time.
  Result<Principal> AuthenticateApiKey(const std::string& apiKey);
  // App ID + sk_ key of that store (GraphQL, MCP). Missing: UNAUTHENTICATED;
  // wrong: INVALID_API_KEY.
  Result<Principal> AuthenticateAppKey(const std::string& appId, const std::string& apiKey);
  // Admin inbox session cookie. Missing: UNAUTHENTICATED; unknown or expired: UNAUTHENTICATED.
  Result<Principal> AuthenticateSession(const std::string& token);
  // Email + password of an active member. `shopId` picks the store when the
  // email belongs to members of several. Wrong: UNAUTHENTICATED (one message
  // for all causes, and the same cost whether or not the email is a member's).
  // Too many recent failures for the email or for `sourceIp` (the client's
  // address; Limits::login*): RATE_LIMITED before the password is looked at,
  // and *retryAfterMillis (when given) is set to the wait; otherwise it is
  // left unchanged.
  Result<LoginResult> Login(const std::string& email, const std::string& password,
                            const std::optional<std::string>& shopId, const std::string& sourceIp,
                            Millis* retryAfterMillis = nullptr);
  Status Logout(const std::string& token);

  // Fixed-window rate limiting (spec: Limits). Counts this request. `keyId`
  // empty for unauthenticated requests (IP only). The decision reported is the
  // tighter of the two windows.
  RateDecision CheckRateLimit(const std::string& keyId, const std::string& sourceIp);

  // ---- Conversations ----
  Result<Page<Conversation>> ListConversations(const Principal& p, const ConversationFilter& f, const PageRequest& page);
  // The conversations ListConversations would list that match `s`
  // (chat_service_search.cc), with where each matched.
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
  Result<Message> GetMessage(const Principal& p, const std::string& id, const std::string& messageId);
  Result<Message> SendMessage(const Principal& p, const std::string& id, const SendMessageInput& in);
  // An attachment from the agent inbox, sent as the member's reply (contentType
  // "file", the file in `files`, text the file name), with SendMessage's rules
  // (channel, handoff from the AI agent, auto-assignment, message.created).
  // Kind "attachment"; limits and types as the widget's (UploadFile).
  Result<Message> SendFileAsMember(const Principal& p, const std::string& id, const FileUpload& in);

  // ---- Tags, notes, attributes ----
  Result<std::vector<TagCount>> ListTagCatalog(const Principal& p);
  Result<std::vector<std::string>> AddTags(const Principal& p, const std::string& id, const std::vector<std::string>& tags);
  Result<std::vector<std::string>> RemoveTag(const Principal& p, const std::string& id, const std::string& tag);
  Result<std::vector<Note>> ListNotes(const Principal& p, const std::string& id);
  Result<Note> CreateNote(const Principal& p, const std::string& id, const std::optional<std::string>& text);
  Result<Note> UpdateNote(const Principal& p, const std::string& id, const std::string& noteId,
                          const std::optional<std::string>& text);
  Status DeleteNote(const Principal& p, const std::string& id, const std::string& noteId);
  Result<std::vector<Attribute>> ListAttributes(const Principal& p, const std::string& id);
  // Upsert by name. `created` tells the caller whether a new row was made.
  Result<Attribute> UpsertAttribute(const Principal& p, const std::string& id, const std::optional<std::string>& name,
                                    const std::optional<std::string>& value, bool* created = nullptr);
  // Either field may be absent (left unchanged); a new name must not clash.
  Result<Attribute> UpdateAttribute(const Principal& p, const std::string& id, const std::string& attributeId,
                                    const std::optional<std::string>& name, const std::optional<std::string>& value);
  Status DeleteAttribute(const Principal& p, const std::string& id, const std::string& attributeId);

  // ---- Customers and members ----
  Result<Customer> GetCustomer(const Principal& p, const std::string& customerUuid);
  Result<Page<Conversation>> ListCustomerConversations(const Principal& p, const std::string& customerUuid,
                                                       const PageRequest& page);
  // Read customers permission. Stable order: createdAt, then id.
  Result<CustomerPage> ListCustomersPage(const Principal& p, const CustomerPageRequest& r);
  Result<std::vector<Member>> ListMembers(const Principal& p);
  Result<Member> GetMember(const Principal& p, const std::string& memberId);

  // ---- Operator (System principal only; others get FORBIDDEN) ----
  Result<Shop> CreateShop(const CreateShopInput& in);
  Result<Shop> GetShop(const std::string& shopId);
  Result<CreatedKey> CreateApiKey(const Principal& p, const CreateKeyInput& in);
  Result<std::vector<ApiKey>> ListApiKeys(const Principal& p);
  Status DeleteApiKey(const Principal& p, const std::string& keyId);
  // Takes effect on the key's next request (spec: Authentication §6).
  Result<ApiKey> UpdateApiKeyPermissions(const Principal& p, const std::string& keyId, std::uint32_t permissions);
  Result<Member> CreateMember(const Principal& p, const CreateMemberInput& in);
  // Records an inbound customer message (creating contact and conversation as
  // needed) and returns the conversation after it.
  Result<Conversation> ReceiveInbound(const Principal& p, const InboundMessageInput& in);
  Status RecordBrowsedPage(const Principal& p, const std::string& id, const BrowsedPage& page);
  Status PutSummary(const Principal& p, const std::string& id, const std::string& text, const std::string& summarizer);
  Status Seed(const Principal& p, const SeedInput& in);
  // A demo store: members, customers, conversations on several channels,
  // messages, tags, notes, attributes, and a key with every permission. Its
  // admin signs in to the inbox with kDemoAgentEmail / kDemoAgentPassword
  // (a demo on loopback; never a store with real customers).
  Result<CreatedKey> CreateDemo(const std::string& shopName);
  static constexpr const char* kDemoAgentEmail = "ada@demo.example";
  static constexpr const char* kDemoAgentPassword = "demo-password";

  // Outbox (tests; the webhook dispatcher reads its own way).
  Result<std::vector<Event>> ListEvents(const Principal& p, int limit);
  // The change feed (chat_service_feed.cc): the store's events after
  // `r.after` in the order they became visible. Needs Read conversations;
  // customer.created is left out without Read customers. Errors:
  // kInvalidParams (cursor, limit, an unknown type), kCursorExpired (410:
  // events after the cursor were pruned).
  Result<EventFeedPage> ListEventFeed(const Principal& p, const EventFeedRequest& r);
  // Removes up to `limit` events older than the retention period that no
  // delivery waits for (livechatd runs it every minute). How many.
  Result<std::int64_t> PruneEventFeed(int limit = 1000);

  // ---- Platform requests, privacy, install state (chat_service_privacy.cc) ----
  // Applies one platform request to the principal's store (System only) and
  // records it in the audit trail in the same transaction. The same request
  // again (same delivery id, or same body; a data request: same data request
  // id) changes nothing and is recorded with outcome "replay". A request the
  // store's state forbids (shop redact while installed) is recorded as
  // "refused" and returned as such, not as an error. Unknown store: NOT_FOUND.
  Result<PlatformRequest> ApplyPlatformRequest(const Principal& p, const PlatformRequestInput& in);
  // The audit trail, newest first; `limit` 1..1000.
  // limit: 1 to kPlatformRequestsLimitMax.
  static constexpr int kPlatformRequestsLimitMax = 1000;
  Result<std::vector<PlatformRequest>> ListPlatformRequests(const Principal& p, int limit);
  Result<std::vector<DataRequest>> ListDataRequests(const Principal& p);
  Result<DataRequest> GetDataRequest(const Principal& p, const std::string& id);
  // email, facebook, instagram, whatsapp, each with its state (connected
  // unless disconnected by uninstall or the operator).
  Result<std::vector<ChannelIntegration>> ListChannelIntegrations(const Principal& p);
  Result<ChannelIntegration> SetChannelIntegration(const Principal& p, const std::string& channel, bool connected);
  // Marks the store installed again (or uninstalled) without a platform
  // request. Channels stay as they are; sessions are not restored.
  Result<Shop> SetShopInstalled(const Principal& p, bool installed);
  // The admin inbox's contact delete (an admin session, or the operator; API
  // keys: FORBIDDEN, spec rule 8). The contact row goes; its conversations
  // stay, detached and redacted.
  Status DeleteCustomer(const Principal& p, const std::string& customerUuid);

  // ---- Webhooks (Manage conversations) ----
  Result<std::vector<WebhookSubscription>> ListWebhooks(const Principal& p);
  // Upsert by url: an existing url is re-activated, keeps its secret, and
  // `created` is false. At most limits().webhookSubscriptionsMax per store.
  Result<WebhookSubscription> CreateWebhook(const Principal& p, const CreateWebhookInput& in, bool* created = nullptr);
  // Resuming a paused subscription requires the Pro or Plus plan.
  Result<WebhookSubscription> UpdateWebhook(const Principal& p, const std::string& id, const UpdateWebhookInput& in);
  Status DeleteWebhook(const Principal& p, const std::string& id);

  // ---- Idempotency-Key (every REST write; chat_service_idempotency.cc) ----
  // Claims `key` for the caller (its API key, or its member for an admin
  // session): kRun when this request is the first and should run, kReplay
  // with the kept response when it already ran with the same fingerprint
  // within 24 hours. Errors: kIdempotencyKeyReused (422) when the key was
  // used with another request, kConflict with retryAfterMillis when the
  // first request is still running.
  Result<IdempotentStart> BeginIdempotentRequest(const Principal& p, const std::string& key,
                                                 const std::string& fingerprint);
  // Keeps the response of the request that claimed `key` for 24 hours; a 5xx
  // or a 429 releases the key instead, so the client's retry runs again.
  Status FinishIdempotentRequest(const Principal& p, const std::string& key, int status,
                                 const std::string& contentType, const std::string& body);
  // A new secret, returned in the subscription (list returns it too). For
  // `graceSeconds` (0 to 604,800; default 86,400) the secret it replaces
  // also signs every delivery, so a receiver can switch without missing one;
  // a rotation during a grace period ends the older secret's.
  Result<WebhookSubscription> RotateWebhookSecret(const Principal& p, const std::string& id,
                                                  std::optional<std::int64_t> graceSeconds);
  Result<std::vector<DeliveryAttempt>> ListWebhookAttempts(const Principal& p, const std::string& id);
  Result<std::vector<WebhookDelivery>> ListWebhookDeliveries(const Principal& p, const std::string& id);
  // Queues the event of one delivery again, as a new delivery of the same event.
  Result<WebhookDelivery> RedeliverWebhook(const Principal& p, const std::string& id, const std::string& deliveryId);
  // The legacy endpoints' credential: a subscription's own whsec_ secret.
  // Missing: UNAUTHENTICATED; wrong: INVALID_API_KEY.
  Result<std::pair<Principal, WebhookSubscription>> AuthenticateWebhookSecret(const std::string& secret);

  // ---- Legacy conversations (chat_service_legacy.cc; operator only) ----
  // Loads an export of the older chat system (docs/operations.md, "Legacy
  // conversations"), all or nothing: one invalid record refuses the file
  // with INVALID_PARAMS naming it. The conversations keep their old id as
  // firestoreId, stay out of the newer datastore (never listed; spec rule 5)
  // and fire no webhook events: they are history, not news. A conversation
  // whose firestoreId is already in the store is skipped, so a file can be
  // loaded again safely.
  Result<LegacyImportResult> ImportLegacy(const Principal& p, std::string_view json);
  // Moves up to `limit` (all when empty) unmigrated conversations into the
  // newer datastore, oldest import first, in transactions of `batch`, so a
  // running server keeps answering in between. Each gets a pgConvoId and is
  // listed from then on. No events.
  Result<LegacyMigrationResult> MigrateLegacy(const Principal& p, std::optional<std::int64_t> limit, int batch = 500);

  // ---- Store knowledge and the AI agent (chat_service_knowledge.cc) ----
  // The tool server reads these; any key of the store may read knowledge
  // (which tools are offered is the tool server's gating, not a permission).
  //
  // Loads a catalog file (docs/mcp.md, "Catalog format"), all or nothing:
  // one invalid record refuses the whole file with INVALID_PARAMS naming it.
  // Records are upserted by id. Operator only.
  Result<CatalogImportResult> ImportCatalog(const Principal& p, std::string_view json);
  Result<AiSettings> GetAiSettings(const Principal& p);
  // `patchJson` names some switches ({"skills": {"sizeGuide": true}, ...});
  // the others are kept. Operator, or a key with "Manage all settings".
  Result<AiSettings> UpdateAiSettings(const Principal& p, std::string_view patchJson);
  // Best first; an empty query or one without words is INVALID_PARAMS.
  // With `parentId`, among that record's children only (a product's FAQ).
  Result<std::vector<CatalogHit>> SearchCatalog(const Principal& p, const std::string& kind, std::string_view query,
                                                int limit, const std::string& parentId = "");
  // A discount by its code, case-insensitively; NOT_FOUND when none has it.
  Result<CatalogItem> FindDiscountByCode(const Principal& p, const std::string& code);
  Result<CatalogItem> GetCatalogItem(const Principal& p, const std::string& kind, const std::string& id);
  // In id order; children of `parentId` when not empty.
  Result<std::vector<CatalogItem>> ListCatalogItems(const Principal& p, const std::string& kind,
                                                    const std::string& parentId, int limit);
  // By order number ("#1001" or "1001") or by tracking number; NOT_FOUND
  // when neither matches. When `email` is given it must match the order's;
  // without it the order's personal fields (email, customerName) are null,
  // so a guessed number confirms nothing about who ordered.
  Result<CatalogItem> FindOrder(const Principal& p, const std::optional<std::string>& orderNumber,
                                const std::optional<std::string>& trackingNumber,
                                const std::optional<std::string>& email);
  // "size_chart" or "loyalty_program"; empty when the store has none.
  Result<std::optional<std::string>> GetKnowledgeDocument(const Principal& p, const std::string& name);
  // A conversation's cart: its lines as a JSON array (`[]` when none).
  // With `change`, it runs inside one write transaction with the current
  // lines and returns the new ones, which are stored (Manage conversations):
  // concurrent changes never lose one another. Without it, a read.
  Result<std::string> ChangeCart(const Principal& p, const std::string& conversationId,
                                 const std::function<Result<std::string>(const std::string& lines)>& change);
  // The cart with the cart rules applied (core/shopping.h): without `change`
  // a read; with it the change checked against the store's products (stock
  // and availability refusals are CONFLICT with "OUT_OF_STOCK:" or
  // "UNAVAILABLE:" first in the message) and stored as ChangeCart does.
  // The totals are computed from the lines.
  Result<Cart> ManageCart(const Principal& p, const std::string& conversationId,
                          const std::optional<CartChange>& change);
  // "Manage knowledge and training". Question up to 500, answer up to 5000 characters.
  Result<CatalogItem> CreateKnowledgeEntry(const Principal& p, const std::optional<std::string>& question,
                                           const std::optional<std::string>& answer);
  Result<CatalogItem> CreateSupportRequest(const Principal& p, const std::string& conversationId,
                                           const SupportRequestInput& in);
  // The tool server's update_tags: replaces the whole list. Each tag is cut
  // to 50 characters, blanks and repeats dropped, at most 100 kept.
  Result<std::vector<std::string>> ReplaceTags(const Principal& p, const std::string& id,
                                               const std::vector<std::string>& tags);
  // Public settings by area: widget, assistant, training, skills (JSON
  // object). Reading needs "Read settings" or a settings-write permission;
  // writing the widget area "Manage widget settings" or "Manage all
  // settings", the others "Manage all settings". A patch names some fields.
  Result<std::string> GetSettingsArea(const Principal& p, const std::string& area);
  Result<std::string> UpdateSettingsArea(const Principal& p, const std::string& area, std::string_view patchJson);
  // "Read setup status".
  Result<SetupStatus> GetSetupStatus(const Principal& p);
  // The AI playground's test conversations (channel "playground"), newest
  // activity first. `limit` >= 1 with no maximum (spec: list_conversations).
  Result<std::vector<Conversation>> ListPlaygroundConversations(const Principal& p, std::int64_t limit);
  // ---- Uploaded files (chat_service_files.cc; docs/operations.md "Files") ----
  // Every upload is checked before anything is stored: size against the
  // kind's limit (PAYLOAD_TOO_LARGE naming it), declared type allowed for the
  // kind and matching the bytes (INVALID_PARAMS naming the allowed types).
  //
  // A logo, icon or avatar ("Manage widget settings" for logo and icon; an
  // admin session for its own avatar, the operator for any member's). The
  // widget settings' logoUrl / iconUrl, or the member's avatarUrl, then point
  // at the file's URL. Imports and attachments have calls of their own.
  Result<FileRecord> UploadFile(const Principal& p, const FileUpload& in);
  // The shop's files of one kind, oldest first (operator and admin sessions).
  Result<std::vector<FileRecord>> ListFiles(const Principal& p, const std::string& kind);
  // Logos, icons, avatars and imports; an attachment is conversation history
  // (CONFLICT). Operator and admin sessions.
  Status DeleteFile(const Principal& p, const std::string& fileId);
  // A download. Logos, icons and avatars are public. An attachment needs a
  // credential of its store that may read conversations, or an unexpired
  // URL signature; an import a credential of its store that may read
  // customers. Missing, another store's, no right at all, or a bad
  // signature: NOT_FOUND (one answer for all). A valid but expired signature:
  // FORBIDDEN saying so. A store credential without the permission: FORBIDDEN.
  Result<FileContent> OpenFile(const std::string& fileId, const FileAccess& access);
  // The URL of a file as reads show it: public kinds plain, the others signed
  // until `expiresAt`.
  std::string FileUrl(const FileRecord& f, Millis expiresAt) const;
  // Shop redact (spec rule 8): deletes the store's contact imports, logos,
  // avatars and icons, records and bytes. Widget attachments stay: they are
  // conversation history, which redaction keeps. Idempotent. Operator only
  // (no principal: the platform request names the shop).
  Status PurgeShopUploads(const std::string& shopId);
  // Contact import (operator or admin session): a CSV with a header row
  // (docs/operations.md, "Contact import"), RFC 4180 quoting. All or nothing:
  // the first bad cell refuses the file with INVALID_PARAMS naming its row
  // and column. A row whose email matches a contact updates it (non-empty
  // cells only); the others create contacts. The CSV is kept as an import.
  Result<CsvImportResult> ImportCustomersCsv(const Principal& p, const FileUpload& in);

  // ---- Storefront (the widget's API; chat_service_storefront.cc) ----
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
  // Called with a conversation's id after every commit that wrote its row,
  // its messages or its typing (whatever the operation: the store records
  // those writes itself), so a waiting widget re-reads at once instead of
  // polling. One observer (the storefront); null clears it. Must be cheap
  // and thread-safe; it runs on the writer's thread.
  void SetConversationObserver(std::function<void(const std::string& conversationId)> observer);

 private:
  ServiceOptions options_;
  std::unique_ptr<Store> store_;  // options_.store, observed
  Clock* clock_;
  Random* random_;
  ChannelSender* sender_;
  Resolver* resolver_;
  std::unique_ptr<RateLimiter> ownLimiter_;  // when options_.rateWindows is null
  RateWindows* limiter_;
  Counter* refusedByIp_ = nullptr;   // rate-limit refusals, when metrics are on
  Counter* refusedByKey_ = nullptr;
  std::unique_ptr<LoginThrottle> loginThrottle_;
  Counter* loginFailures_ = nullptr;            // sign-in metrics, when metrics are on
  Counter* loginThrottledAccount_ = nullptr;
  Counter* loginThrottledAddress_ = nullptr;

  void NotifyEventsQueued();
  // An attachment riding on a message: its bytes already stored, its record
  // written in the message's transaction (PrepareAttachment).
  struct SentFile {
    FileRecord file;
    std::string blobKey;
    std::string filesJson;       // the message's `files`
    std::string eventFilesJson;  // the same with URLs signed for webhook receivers
  };
  // Checks an attachment (kind "attachment", the widget's limits and types)
  // and stores its bytes; the widget's and the inbox's sends share it.
  Result<SentFile> PrepareAttachment(const Principal* p, const std::string& uploaderType,
                                     const std::string& uploaderId, const std::string& shopId,
                                     const FileUpload& upload, Millis now);
  Result<Message> SendMessageWith(const Principal& p, const std::string& id, const SendMessageInput& in,
                                  SentFile* attachment);
  // Adds each file entry's `url` (signed until `expiresAt` where needed).
  void AddFileUrls(Message& m, Millis expiresAt) const;
  void AddFileUrls(std::vector<Message>& ms) const;
  Result<FileRecord> CheckUpload(const Principal* p, const std::string& uploaderType,
                                 const std::optional<std::string>& uploaderId, const FileUpload& in) const;
  std::string fileUrlSecret_;
  void NotifyConversationChanged(const std::string& conversationId);
  std::mutex observerMu_;
  std::shared_ptr<const std::function<void(const std::string&)>> observer_;
};

}  // namespace livechat
