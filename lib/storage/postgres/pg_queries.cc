#include "storage/postgres/pg_queries.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <set>
#include <utility>

#include "livechat/model.h"
#include "storage/common/json_columns.h"

namespace livechat::pg {

using storage::DecodeStringArray;
using storage::DecodeStringMap;
using storage::EncodeStringArray;
using storage::EncodeStringMap;

using storage::DecodeStringArray;
using storage::DecodeStringMap;
using storage::EncodeStringArray;
using storage::EncodeStringMap;
namespace {

// A table's column layout, from which the statement texts are derived once.
// `cols` are the columns Insert and Update write, in the order the Bind*
// functions bind them, followed by `keys`; a Read* function reads the select
// list: lead, keys, cols, tail.
struct Table {
  const char* name;
  std::vector<std::string> lead;
  std::vector<std::string> keys;
  std::vector<std::string> cols;
  std::vector<std::string> tail;

  std::string Select() const {
    std::string sql = "SELECT ";
    bool first = true;
    for (const auto* part : {&lead, &keys, &cols, &tail}) {
      for (const auto& c : *part) {
        if (!first) sql += ", ";
        first = false;
        sql += c;
      }
    }
    return sql + " FROM " + name + " ";
  }

  // Placeholders ?1.. follow cols then keys then `extra`.
  std::string Insert(std::initializer_list<const char*> extra = {}) const {
    std::string names, values;
    int n = 0;
    auto add = [&](const std::string& c) {
      if (n > 0) {
        names += ", ";
        values += ", ";
      }
      names += c;
      values += "?" + std::to_string(++n);
    };
    for (const auto& c : cols) add(c);
    for (const auto& k : keys) add(k);
    for (const char* e : extra) add(e);
    return std::string("INSERT INTO ") + name + " (" + names + ") VALUES (" + values + ")";
  }

  // SET cols from ?1.., WHERE keys from the following placeholders.
  // `extraSet` is appended to the SET list and may use later placeholders.
  std::string Update(const std::string& extraSet = "") const {
    std::string sql = std::string("UPDATE ") + name + " SET ";
    int n = 0;
    for (const auto& c : cols) {
      if (n > 0) sql += ", ";
      sql += c + " = ?" + std::to_string(++n);
    }
    if (!extraSet.empty()) sql += ", " + extraSet;
    sql += " WHERE ";
    for (size_t i = 0; i < keys.size(); ++i) {
      if (i > 0) sql += " AND ";
      sql += keys[i] + " = ?" + std::to_string(++n);
    }
    return sql;
  }

  // 1-based placeholder number of a written column.
  int ParamOf(const std::string& col) const {
    for (size_t i = 0; i < cols.size(); ++i)
      if (cols[i] == col) return static_cast<int>(i) + 1;
    return 0;
  }
  int ParamCount() const { return static_cast<int>(cols.size() + keys.size()); }
};

const Table kShops{"shops", {}, {"id"}, {"app_id", "name", "plan", "auto_assign", "installed", "created_at"}, {}};

const Table kApiKeys{
    "api_keys",
    {},
    {"shop_id", "id"},
    {"name", "key_hash", "prefix", "permissions", "legacy", "created_at", "active_from", "revoked_at", "last_used_at"},
    {}};

const Table kMembers{"members",
                     {},
                     {"shop_id", "id"},
                     {"email", "first_name", "last_name", "avatar_url", "role", "active", "enable_away_mode",
                      "password_hash", "created_at"},
                     {}};

const Table kCustomers{"customers",
                       {},
                       {"shop_id", "id"},
                       {"shopify_id",
                        "name",
                        "first_name",
                        "last_name",
                        "email",
                        "phone",
                        "type",
                        "channels_json",
                        "tags_json",
                        "note",
                        "custom_attributes_json",
                        "address1",
                        "address2",
                        "city",
                        "zip",
                        "country",
                        "country_code",
                        "orders_count",
                        "total_spent",
                        "ip_address",
                        "ip_location",
                        "browser",
                        "browser_version",
                        "os",
                        "device_type",
                        "sender_seq",
                        "last_chat_at",
                        "created_at",
                        "updated_at",
                        "channel_recipient",
                        "redacted_at"},
                       {}};

// Tags are not in `cols`: UpdateConversation leaves them alone.
const Table kConversations{"conversations",
                           {},
                           {"shop_id", "id"},
                           {"firestore_id",
                            "session_id",
                            "customer_uuid",
                            "customer_name",
                            "customer_email",
                            "customer_type",
                            "status",
                            "is_chat_bot",
                            "has_chat_bot",
                            "is_read",
                            "is_customer_read",
                            "is_online",
                            "is_block",
                            "is_starred",
                            "has_first_msg",
                            "hide_pre_chat_message",
                            "member_id",
                            "channel",
                            "channels_json",
                            "message_count",
                            "last_message_text",
                            "last_message_sender_type",
                            "last_message_created_at",
                            "last_active",
                            "created_at",
                            "updated_at",
                            "last_customer_message_at",
                            "in_new_datastore",
                            "redacted_at"},
                           {"pg_convo_id", "tags_json"}};

const Table kMessages{"messages",
                      {"seq"},
                      {"shop_id", "conversation_id", "id"},
                      {"text",
                       "sender_name",
                       "sender_type",
                       "member_id",
                       "is_admin",
                       "is_automated",
                       "is_bot",
                       "is_note",
                       "is_first",
                       "is_transfer",
                       "is_quick_reply_msg",
                       "is_ask_bot_message",
                       "is_deleted",
                       "content_type",
                       "topic",
                       "chatbot_products_json",
                       "chatbot_faqs_json",
                       "files_json",
                       "reply_message_json",
                       "created_at"},
                      {}};

const Table kNotes{
    "notes", {}, {"shop_id", "conversation_id", "id"}, {"text", "is_updated", "created_at", "updated_at"}, {}};

const Table kAttributes{
    "attributes", {}, {"shop_id", "conversation_id", "id"}, {"name", "value", "created_at", "updated_at"}, {}};

const Table kSessions{"admin_sessions", {}, {"token_hash"}, {"shop_id", "member_id", "created_at", "expires_at"}, {}};

const Table kEvents{"events", {}, {"id"}, {"shop_id", "type", "conversation_id", "occurred_at", "data_json"}, {}};

// ---- binding (cols, then keys) and reading (lead, keys, cols, tail) ----

void BindShop(Statement& st, const Shop& s) {
  st.Add(s.appId).Add(s.name).Add(PlanName(s.plan)).Add(s.autoAssign).Add(s.installed).Add(s.createdAt);
  st.Add(s.id);
}

Result<Shop> ReadShop(const Statement& st) {
  Shop s;
  int i = 0;
  s.id = st.Text(i++);
  s.appId = st.Text(i++);
  s.name = st.Text(i++);
  std::string plan = st.Text(i++);
  auto parsed = ParsePlan(plan);
  if (!parsed) return Error{ErrorCode::kInternal, "postgres: shop " + s.id + " has unknown plan '" + plan + "'"};
  s.plan = *parsed;
  s.autoAssign = st.Bool(i++);
  s.installed = st.Bool(i++);
  s.createdAt = st.Int(i++);
  return s;
}

void BindApiKey(Statement& st, const ApiKey& k) {
  st.Add(k.name).Add(k.keyHash).Add(k.prefix).Add(static_cast<std::int64_t>(k.permissions)).Add(k.legacy);
  st.Add(k.createdAt).Add(k.activeFrom).Add(k.revokedAt).Add(k.lastUsedAt);
  st.Add(k.shopId).Add(k.id);
}

Result<ApiKey> ReadApiKey(const Statement& st) {
  ApiKey k;
  int i = 0;
  k.shopId = st.Text(i++);
  k.id = st.Text(i++);
  k.name = st.Text(i++);
  k.keyHash = st.Text(i++);
  k.prefix = st.Text(i++);
  k.permissions = static_cast<std::uint32_t>(st.Int(i++));
  k.legacy = st.Bool(i++);
  k.createdAt = st.Int(i++);
  k.activeFrom = st.Int(i++);
  k.revokedAt = st.OptInt(i++);
  k.lastUsedAt = st.OptInt(i++);
  return k;
}

void BindMember(Statement& st, const Member& m) {
  st.Add(m.email).Add(m.firstName).Add(m.lastName).Add(m.avatarUrl).Add(m.role).Add(m.active);
  st.Add(m.enableAwayMode).Add(m.passwordHash).Add(m.createdAt);
  st.Add(m.shopId).Add(m.id);
}

Result<Member> ReadMember(const Statement& st) {
  Member m;
  int i = 0;
  m.shopId = st.Text(i++);
  m.id = st.Text(i++);
  m.email = st.Text(i++);
  m.firstName = st.OptText(i++);
  m.lastName = st.OptText(i++);
  m.avatarUrl = st.Text(i++);
  m.role = st.Text(i++);
  m.active = st.Bool(i++);
  m.enableAwayMode = st.OptBool(i++);
  m.passwordHash = st.Text(i++);
  m.createdAt = st.Int(i++);
  return m;
}

void BindCustomer(Statement& st, const Customer& c) {
  st.Add(c.shopifyId).Add(c.name).Add(c.firstName).Add(c.lastName).Add(c.email).Add(c.phone).Add(c.type);
  st.Add(EncodeStringArray(c.channels)).Add(EncodeStringArray(c.tags)).Add(c.note);
  st.Add(EncodeStringMap(c.customAttributes));
  st.Add(c.address1).Add(c.address2).Add(c.city).Add(c.zip).Add(c.country).Add(c.countryCode);
  st.Add(c.ordersCount).Add(c.totalSpent);
  st.Add(c.ipAddress).Add(c.ipLocation).Add(c.browser).Add(c.browserVersion).Add(c.os).Add(c.deviceType);
  st.Add(c.senderSeq).Add(c.lastChatAt).Add(c.createdAt).Add(c.updatedAt).Add(c.channelRecipient);
  st.Add(c.redactedAt);
  st.Add(c.shopId).Add(c.id);
}

Result<Customer> ReadCustomer(const Statement& st) {
  Customer c;
  int i = 0;
  c.shopId = st.Text(i++);
  c.id = st.Text(i++);
  c.shopifyId = st.OptText(i++);
  c.name = st.OptText(i++);
  c.firstName = st.OptText(i++);
  c.lastName = st.OptText(i++);
  c.email = st.OptText(i++);
  c.phone = st.OptText(i++);
  c.type = st.Text(i++);
  LC_ASSIGN_OR_RETURN(c.channels, DecodeStringArray(st.Text(i++)));
  LC_ASSIGN_OR_RETURN(c.tags, DecodeStringArray(st.Text(i++)));
  c.note = st.OptText(i++);
  LC_ASSIGN_OR_RETURN(c.customAttributes, DecodeStringMap(st.Text(i++)));
  c.address1 = st.OptText(i++);
  c.address2 = st.OptText(i++);
  c.city = st.OptText(i++);
  c.zip = st.OptText(i++);
  c.country = st.OptText(i++);
  c.countryCode = st.OptText(i++);
  c.ordersCount = st.OptInt(i++);
  c.totalSpent = st.OptDouble(i++);
  c.ipAddress = st.OptText(i++);
  c.ipLocation = st.OptText(i++);
  c.browser = st.OptText(i++);
  c.browserVersion = st.OptText(i++);
  c.os = st.OptText(i++);
  c.deviceType = st.OptText(i++);
  c.senderSeq = st.OptInt(i++);
  c.lastChatAt = st.OptInt(i++);
  c.createdAt = st.Int(i++);
  c.updatedAt = st.OptInt(i++);
  c.channelRecipient = st.OptText(i++);
  c.redactedAt = st.OptInt(i++);
  return c;
}

void BindConversation(Statement& st, const Conversation& c) {
  st.Add(c.firestoreId).Add(c.sessionId).Add(c.customerUuid).Add(c.customerName).Add(c.customerEmail);
  st.Add(c.customerType).Add(c.status);
  st.Add(c.isChatBot).Add(c.hasChatBot).Add(c.isRead).Add(c.isCustomerRead).Add(c.isOnline).Add(c.isBlock);
  st.Add(c.isStarred).Add(c.hasFirstMsg);
  st.Add(c.hidePreChatMessage).Add(c.memberId).Add(c.channel).Add(EncodeStringArray(c.channels));
  st.Add(c.messageCount);
  if (c.lastMessage) {
    st.Add(c.lastMessage->text).Add(c.lastMessage->senderType).Add(c.lastMessage->createdAt);
  } else {
    st.AddNull().AddNull().AddNull();
  }
  st.Add(c.lastActive).Add(c.createdAt).Add(c.updatedAt).Add(c.lastCustomerMessageAt).Add(c.inNewDatastore);
  st.Add(c.redactedAt);
  st.Add(c.shopId).Add(c.id);
}

Result<Conversation> ReadConversation(const Statement& st) {
  Conversation c;
  int i = 0;
  c.shopId = st.Text(i++);
  c.id = st.Text(i++);
  c.firestoreId = st.OptText(i++);
  c.sessionId = st.OptText(i++);
  c.customerUuid = st.OptText(i++);
  c.customerName = st.OptText(i++);
  c.customerEmail = st.OptText(i++);
  c.customerType = st.Text(i++);
  c.status = st.Text(i++);
  c.isChatBot = st.Bool(i++);
  c.hasChatBot = st.Bool(i++);
  c.isRead = st.Bool(i++);
  c.isCustomerRead = st.Bool(i++);
  c.isOnline = st.Bool(i++);
  c.isBlock = st.Bool(i++);
  c.isStarred = st.Bool(i++);
  c.hasFirstMsg = st.Bool(i++);
  c.hidePreChatMessage = st.Text(i++);
  c.memberId = st.OptText(i++);
  c.channel = st.Text(i++);
  LC_ASSIGN_OR_RETURN(c.channels, DecodeStringArray(st.Text(i++)));
  c.messageCount = st.OptInt(i++);
  // The three last_message columns are all set or all NULL.
  if (!st.IsNull(i + 2)) c.lastMessage = LastMessage{st.Text(i), st.Text(i + 1), st.Int(i + 2)};
  i += 3;
  c.lastActive = st.OptInt(i++);
  c.createdAt = st.OptInt(i++);
  c.updatedAt = st.OptInt(i++);
  c.lastCustomerMessageAt = st.OptInt(i++);
  c.inNewDatastore = st.Bool(i++);
  c.redactedAt = st.OptInt(i++);
  c.pgConvoId = st.OptInt(i++);
  LC_ASSIGN_OR_RETURN(c.tags, DecodeStringArray(st.Text(i++)));
  return c;
}

void BindMessage(Statement& st, const Message& m) {
  st.Add(m.text).Add(m.senderName).Add(m.senderType).Add(m.memberId);
  st.Add(m.isAdmin).Add(m.isAutomated).Add(m.isBot).Add(m.isNote).Add(m.isFirst).Add(m.isTransfer);
  st.Add(m.isQuickReplyMsg).Add(m.isAskBotMessage).Add(m.isDeleted);
  st.Add(m.contentType).Add(m.topic).Add(m.chatbotProductsJson).Add(m.chatbotFaqsJson).Add(m.filesJson);
  st.Add(m.replyMessageJson).Add(m.createdAt);
  st.Add(m.shopId).Add(m.conversationId).Add(m.id);
}

Result<Message> ReadMessage(const Statement& st) {
  Message m;
  int i = 0;
  m.seq = st.Int(i++);
  m.shopId = st.Text(i++);
  m.conversationId = st.Text(i++);
  m.id = st.Text(i++);
  m.text = st.Text(i++);
  m.senderName = st.Text(i++);
  m.senderType = st.Text(i++);
  m.memberId = st.OptText(i++);
  m.isAdmin = st.Bool(i++);
  m.isAutomated = st.Bool(i++);
  m.isBot = st.Bool(i++);
  m.isNote = st.Bool(i++);
  m.isFirst = st.Bool(i++);
  m.isTransfer = st.Bool(i++);
  m.isQuickReplyMsg = st.Bool(i++);
  m.isAskBotMessage = st.Bool(i++);
  m.isDeleted = st.Bool(i++);
  m.contentType = st.Text(i++);
  m.topic = st.OptText(i++);
  m.chatbotProductsJson = st.Text(i++);
  m.chatbotFaqsJson = st.Text(i++);
  m.filesJson = st.Text(i++);
  m.replyMessageJson = st.OptText(i++);
  m.createdAt = st.Int(i++);
  return m;
}

void BindNote(Statement& st, const Note& n) {
  st.Add(n.text).Add(n.isUpdated).Add(n.createdAt).Add(n.updatedAt);
  st.Add(n.shopId).Add(n.conversationId).Add(n.id);
}

Result<Note> ReadNote(const Statement& st) {
  Note n;
  int i = 0;
  n.shopId = st.Text(i++);
  n.conversationId = st.Text(i++);
  n.id = st.Text(i++);
  n.text = st.Text(i++);
  n.isUpdated = st.Bool(i++);
  n.createdAt = st.Int(i++);
  n.updatedAt = st.Int(i++);
  return n;
}

void BindAttribute(Statement& st, const Attribute& a) {
  st.Add(a.name).Add(a.value).Add(a.createdAt).Add(a.updatedAt);
  st.Add(a.shopId).Add(a.conversationId).Add(a.id);
}

Result<Attribute> ReadAttribute(const Statement& st) {
  Attribute a;
  int i = 0;
  a.shopId = st.Text(i++);
  a.conversationId = st.Text(i++);
  a.id = st.Text(i++);
  a.name = st.Text(i++);
  a.value = st.Text(i++);
  a.createdAt = st.Int(i++);
  a.updatedAt = st.Int(i++);
  return a;
}

Result<AdminSession> ReadSession(const Statement& st) {
  AdminSession s;
  int i = 0;
  s.tokenHash = st.Text(i++);
  s.shopId = st.Text(i++);
  s.memberId = st.Text(i++);
  s.createdAt = st.Int(i++);
  s.expiresAt = st.Int(i++);
  return s;
}

Result<Event> ReadEvent(const Statement& st) {
  Event e;
  int i = 0;
  e.id = st.Text(i++);
  e.shopId = st.Text(i++);
  e.type = st.Text(i++);
  e.conversationId = st.OptText(i++);
  e.occurredAt = st.Int(i++);
  e.dataJson = st.Text(i++);
  return e;
}

Result<BrowsedPage> ReadBrowsedPage(const Statement& st) { return BrowsedPage{st.Text(0), st.OptText(1), st.Int(2)}; }

Result<Summary> ReadSummary(const Statement& st) { return Summary{st.Text(0), st.Text(1), st.Text(2), st.Int(3)}; }

Result<TypingState> ReadTyping(const Statement& st) {
  return TypingState{st.Text(0), st.Text(1), st.Bool(2), st.Int(3)};
}

Result<TagCount> ReadTagCount(const Statement& st) { return TagCount{st.Text(0), st.Int(1)}; }

template <typename T>
using RowReader = Result<T> (*)(const Statement&);

template <typename T>
Result<std::optional<T>> FetchOne(Statement& st, RowReader<T> read) {
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<T>();
  LC_ASSIGN_OR_RETURN(T value, read(st));
  return std::optional<T>(std::move(value));
}

template <typename T>
Result<std::vector<T>> FetchAll(Statement& st, RowReader<T> read) {
  std::vector<T> out;
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return out;
    LC_ASSIGN_OR_RETURN(T value, read(st));
    out.push_back(std::move(value));
  }
}

// A non-negative decimal that fits in int64, else nullopt.
std::optional<std::int64_t> ParseSeq(const std::string& s) {
  if (s.empty()) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Tags are unique per conversation; the first occurrence keeps its place.
std::vector<std::string> UniqueTags(const std::vector<std::string>& tags) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& t : tags)
    if (seen.insert(t).second) out.push_back(t);
  return out;
}

}  // namespace

Result<bool> PgQueries::RunChanged(Statement& st) {
  LC_RETURN_IF_ERROR(st.Run());
  return conn_.Changes() > 0;
}

// ---- shops ----

Result<std::optional<Shop>> PgQueries::GetShop(const std::string& shopId) {
  static const std::string sql = kShops.Select() + "WHERE id = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId);
  return FetchOne<Shop>(st, ReadShop);
}

Result<std::optional<Shop>> PgQueries::GetShopByAppId(const std::string& appId) {
  static const std::string sql = kShops.Select() + "WHERE app_id = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(appId);
  return FetchOne<Shop>(st, ReadShop);
}

Status PgQueries::InsertShop(const Shop& s) {
  static const std::string sql = kShops.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindShop(st, s);
  return st.Run();
}

Result<bool> PgQueries::UpdateShop(const Shop& s) {
  static const std::string sql = kShops.Update();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindShop(st, s);
  return RunChanged(st);
}

// ---- API keys ----

Result<std::optional<ApiKey>> PgQueries::FindApiKeyByHash(const std::string& keyHash) {
  static const std::string sql = kApiKeys.Select() + "WHERE key_hash = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(keyHash);
  return FetchOne<ApiKey>(st, ReadApiKey);
}

Result<std::vector<ApiKey>> PgQueries::ListApiKeys(const std::string& shopId) {
  static const std::string sql = kApiKeys.Select() + "WHERE shop_id = ?1 ORDER BY created_at, rid";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId);
  return FetchAll<ApiKey>(st, ReadApiKey);
}

Status PgQueries::InsertApiKey(const ApiKey& k) {
  static const std::string sql = kApiKeys.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindApiKey(st, k);
  return st.Run();
}

Result<bool> PgQueries::RevokeApiKey(const std::string& shopId, const std::string& keyId, Millis at) {
  // A second revoke matches (true) but keeps the first instant.
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?1) "
                                                  "WHERE shop_id = ?2 AND id = ?3"));
  st.Add(at).Add(shopId).Add(keyId);
  return RunChanged(st);
}

Result<bool> PgQueries::UpdateApiKeyPermissions(const std::string& shopId, const std::string& keyId,
                                                    std::uint32_t permissions) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("UPDATE api_keys SET permissions = ?1, legacy = 0 "
                                                  "WHERE shop_id = ?2 AND id = ?3 AND revoked_at IS NULL"));
  st.Add(static_cast<std::int64_t>(permissions)).Add(shopId).Add(keyId);
  return RunChanged(st);
}

// ---- members ----

Result<std::optional<Member>> PgQueries::GetMember(const std::string& shopId, const std::string& memberId) {
  static const std::string sql = kMembers.Select() + "WHERE shop_id = ?1 AND id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(memberId);
  return FetchOne<Member>(st, ReadMember);
}

Result<std::vector<Member>> PgQueries::ListMembers(const std::string& shopId) {
  static const std::string sql = kMembers.Select() + "WHERE shop_id = ?1 ORDER BY created_at, rid";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId);
  return FetchAll<Member>(st, ReadMember);
}

Result<std::vector<Member>> PgQueries::FindMembersByEmail(const std::string& email) {
  // lower() folds ASCII only, the same on both sides and in the index.
  static const std::string sql = kMembers.Select() + "WHERE lower(email) = lower(?1) ORDER BY created_at, rid";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(email);
  return FetchAll<Member>(st, ReadMember);
}

Status PgQueries::InsertMember(const Member& m) {
  static const std::string sql = kMembers.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindMember(st, m);
  return st.Run();
}

Result<bool> PgQueries::UpdateMember(const Member& m) {
  static const std::string sql = kMembers.Update();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindMember(st, m);
  return RunChanged(st);
}

// ---- customers ----

Result<std::optional<Customer>> PgQueries::GetCustomer(const std::string& shopId, const std::string& customerId) {
  static const std::string sql = kCustomers.Select() + "WHERE shop_id = ?1 AND id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(customerId);
  return FetchOne<Customer>(st, ReadCustomer);
}

Result<std::optional<Customer>> PgQueries::FindCustomerByEmail(const std::string& shopId,
                                                                   const std::string& email) {
  // Several contacts may share an address; the oldest is the canonical one.
  static const std::string sql = kCustomers.Select() +
                                 "WHERE shop_id = ?1 AND email IS NOT NULL AND lower(email) = lower(?2) "
                                 "ORDER BY created_at, rid LIMIT 1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(email);
  return FetchOne<Customer>(st, ReadCustomer);
}

Status PgQueries::InsertCustomer(const Customer& c) {
  static const std::string sql = kCustomers.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindCustomer(st, c);
  return st.Run();
}

Result<bool> PgQueries::UpdateCustomer(const Customer& c) {
  static const std::string sql = kCustomers.Update();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindCustomer(st, c);
  return RunChanged(st);
}

Result<std::vector<Customer>> PgQueries::FindCustomersByShopifyId(const std::string& shopId,
                                                                      const std::string& shopifyId) {
  static const std::string sql =
      kCustomers.Select() + "WHERE shop_id = ?1 AND shopify_id = ?2 ORDER BY created_at, rid";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(shopifyId);
  return FetchAll<Customer>(st, ReadCustomer);
}

Result<std::vector<Customer>> PgQueries::ListCustomersByEmail(const std::string& shopId,
                                                                  const std::string& email) {
  static const std::string sql = kCustomers.Select() +
                                 "WHERE shop_id = ?1 AND email IS NOT NULL AND lower(email) = lower(?2) "
                                 "ORDER BY created_at, rid";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(email);
  return FetchAll<Customer>(st, ReadCustomer);
}

Result<std::vector<Customer>> PgQueries::ListCustomersByPhone(const std::string& shopId,
                                                                  const std::string& phoneKey) {
  if (phoneKey.empty()) return std::vector<Customer>();
  // The store's contacts with a phone, compared through PhoneKey here
  // rather than in SQL (one definition of the key, in the core): stored
  // phones are free text, and a redact is rare enough not to be worth a
  // maintained key column.
  static const std::string sql =
      kCustomers.Select() +
      "WHERE shop_id = ?1 AND (phone IS NOT NULL OR (channel_recipient IS NOT NULL "
      "AND channels_json::jsonb @> '[\"whatsapp\"]'::jsonb)) ORDER BY created_at, rid";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId);
  LC_ASSIGN_OR_RETURN(std::vector<Customer> all, FetchAll<Customer>(st, ReadCustomer));
  std::vector<Customer> out;
  for (auto& c : all) {
    const bool whatsapp = std::find(c.channels.begin(), c.channels.end(), "whatsapp") != c.channels.end();
    if ((c.phone && PhoneKey(*c.phone) == phoneKey) ||
        (whatsapp && c.channelRecipient && PhoneKey(*c.channelRecipient) == phoneKey))
      out.push_back(std::move(c));
  }
  return out;
}

Result<bool> PgQueries::DeleteCustomer(const std::string& shopId, const std::string& customerId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM customers WHERE shop_id = ?1 AND id = ?2"));
  st.Add(shopId).Add(customerId);
  return RunChanged(st);
}

// ---- conversations ----

Result<std::optional<Conversation>> PgQueries::FindConversation(const std::string& shopId,
                                                                    const std::string& anyId) {
  // Precedence when forms collide: id, then firestoreId, then pgConvoId.
  {
    static const std::string sql = kConversations.Select() + "WHERE shop_id = ?1 AND id = ?2";
    LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
    st.Add(shopId).Add(anyId);
    LC_ASSIGN_OR_RETURN(auto found, FetchOne<Conversation>(st, ReadConversation));
    if (found) return found;
  }
  {
    static const std::string sql =
        kConversations.Select() + "WHERE shop_id = ?1 AND firestore_id = ?2 ORDER BY rid LIMIT 1";
    LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
    st.Add(shopId).Add(anyId);
    LC_ASSIGN_OR_RETURN(auto found, FetchOne<Conversation>(st, ReadConversation));
    if (found) return found;
  }
  auto pg = ParseSeq(anyId);
  if (!pg) return std::optional<Conversation>();
  // pg_convo_id, when set, equals rid (schema CHECK), so the primary key finds it.
  static const std::string sql =
      kConversations.Select() + "WHERE rid = ?1 AND shop_id = ?2 AND pg_convo_id IS NOT NULL";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(*pg).Add(shopId);
  return FetchOne<Conversation>(st, ReadConversation);
}

Result<std::vector<Conversation>> PgQueries::ListConversations(const ConversationQuery& q) {
  if (q.limit <= 0) return std::vector<Conversation>();
  // The text depends only on which filters are present, never on their
  // values, so each shape is prepared once per connection. The literal
  // `in_new_datastore = 1` lets the planner use the partial list indexes.
  std::string sql = kConversations.Select() + "WHERE shop_id = :shop AND in_new_datastore = 1";
  if (q.status) sql += " AND status = :status";
  // The AI playground's test conversations are listed only when asked for
  // by channel (the tool server's list_conversations), never in the inbox.
  if (q.channel) sql += " AND channel = :channel";
  else sql += " AND channel <> 'playground'";
  if (q.assigneeId) sql += " AND member_id = :assignee";
  if (q.unassignedOnly) sql += " AND member_id IS NULL";
  if (q.isRead) sql += " AND is_read = :is_read";
  if (q.customerUuid) sql += " AND customer_uuid = :customer";
  if (q.email) sql += " AND lower(customer_email) = lower(:email)";
  if (q.excludeId) sql += " AND id <> :exclude";
  if (!q.tagsAny.empty())
    sql +=
        " AND EXISTS (SELECT 1 FROM conversation_tags t WHERE t.shop_id = conversations.shop_id"
        " AND t.conversation_id = conversations.id AND t.tag IN (SELECT jsonb_array_elements_text(:tags::jsonb)))";
  if (q.after) sql += " AND (sort_active, pg_convo_id) < (:after_active, :after_pg)";
  sql += " ORDER BY sort_active DESC, pg_convo_id DESC LIMIT :limit";

  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Named(":shop", q.shopId);
  if (q.status) st.Named(":status", *q.status);
  if (q.channel) st.Named(":channel", *q.channel);
  if (q.assigneeId) st.Named(":assignee", *q.assigneeId);
  if (q.isRead) st.Named(":is_read", *q.isRead);
  if (q.customerUuid) st.Named(":customer", *q.customerUuid);
  if (q.email) st.Named(":email", *q.email);
  if (q.excludeId) st.Named(":exclude", *q.excludeId);
  if (!q.tagsAny.empty()) st.Named(":tags", EncodeStringArray(q.tagsAny));
  if (q.after) {
    st.Named(":after_active", q.after->lastActive);
    st.Named(":after_pg", q.after->pgConvoId);
  }
  st.Named(":limit", q.limit);
  return FetchAll<Conversation>(st, ReadConversation);
}

// Both spell `in_new_datastore = 0` literally for the partial index
// conversations_legacy (migration 11).
Result<std::vector<Conversation>> PgQueries::ListLegacyConversations(const std::string& shopId, int limit) {
  if (limit <= 0) return std::vector<Conversation>();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(kConversations.Select() +
                                                  "WHERE shop_id = ?1 AND in_new_datastore = 0 ORDER BY rid LIMIT ?2"));
  st.Add(shopId).Add(static_cast<std::int64_t>(limit));
  return FetchAll<Conversation>(st, ReadConversation);
}

Result<std::int64_t> PgQueries::CountLegacyConversations(const std::string& shopId) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("SELECT count(*) FROM conversations WHERE shop_id = ?1 AND in_new_datastore = 0"));
  st.Add(shopId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Int(0) : 0;
}

Result<std::vector<Conversation>> PgQueries::ListConversationsOfCustomer(const std::string& shopId,
                                                                             const std::string& customerId) {
  static const std::string sql = kConversations.Select() + "WHERE shop_id = ?1 AND customer_uuid = ?2 ORDER BY rid";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(customerId);
  return FetchAll<Conversation>(st, ReadConversation);
}

Status PgQueries::DoInsertConversation(Conversation& c) {
  std::optional<std::int64_t> rid = c.pgConvoId;
  if (!rid) {
    // Drawn like SQLite's rowid; the store's one write lock (across
    // instances) makes this race-free.
    LC_ASSIGN_OR_RETURN(std::int64_t next, conn_.QueryInt("SELECT coalesce(max(rid), 0) + 1 FROM conversations"));
    rid = next;
  }
  std::optional<std::int64_t> pg = c.pgConvoId;
  if (!pg && c.inNewDatastore) pg = rid;
  std::vector<std::string> tags = UniqueTags(c.tags);

  static const std::string sql = kConversations.Insert({"rid", "pg_convo_id", "tags_json"});
  {
    LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
    BindConversation(st, c);
    st.Add(*rid).Add(pg).Add(EncodeStringArray(tags));
    LC_RETURN_IF_ERROR(st.Run());
  }
  LC_RETURN_IF_ERROR(WriteTagRows(c.shopId, c.id, tags));
  c.pgConvoId = pg;
  return Status::Ok();
}

Result<bool> PgQueries::DoUpdateConversation(const Conversation& c) {
  // A pgConvoId moves the row to that rid (they are equal by the schema);
  // without one, a row in the new datastore exposes its rid, so migrating a
  // legacy record by setting inNewDatastore gives it a pg id. The SET
  // expressions read the old rid.
  static const std::string sql = [] {
    // Typed: PostgreSQL deduces a parameter's type from its first use, and
    // `IS NOT NULL` gives it none.
    const std::string pg = "?" + std::to_string(kConversations.ParamCount() + 1) + "::bigint";
    const std::string inNew = "?" + std::to_string(kConversations.ParamOf("in_new_datastore")) + "::bigint";
    return kConversations.Update("rid = coalesce(" + pg + ", rid), pg_convo_id = CASE WHEN " + pg +
                                 " IS NOT NULL THEN " + pg + " WHEN " + inNew + " = 1 THEN rid ELSE NULL END");
  }();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindConversation(st, c);
  st.Add(c.pgConvoId);
  return RunChanged(st);
}

Status PgQueries::WriteTagRows(const std::string& shopId, const std::string& conversationId,
                                   const std::vector<std::string>& tags) {
  for (const auto& tag : tags) {
    LC_ASSIGN_OR_RETURN(
        Statement st,
        conn_.Prepare("INSERT INTO conversation_tags (shop_id, conversation_id, tag) VALUES (?1, ?2, ?3)"));
    st.Add(shopId).Add(conversationId).Add(tag);
    LC_RETURN_IF_ERROR(st.Run());
  }
  return Status::Ok();
}

Status PgQueries::ReplaceConversationTags(const std::string& shopId, const std::string& conversationId,
                                              const std::vector<std::string>& tags) {
  std::vector<std::string> unique = UniqueTags(tags);
  {
    LC_ASSIGN_OR_RETURN(Statement st,
                        conn_.Prepare("UPDATE conversations SET tags_json = ?1 WHERE shop_id = ?2 AND id = ?3"));
    st.Add(EncodeStringArray(unique)).Add(shopId).Add(conversationId);
    LC_ASSIGN_OR_RETURN(bool matched, RunChanged(st));
    if (!matched) return Error{ErrorCode::kNotFound, "conversation not found"};
  }
  {
    LC_ASSIGN_OR_RETURN(Statement st,
                        conn_.Prepare("DELETE FROM conversation_tags WHERE shop_id = ?1 AND conversation_id = ?2"));
    st.Add(shopId).Add(conversationId);
    LC_RETURN_IF_ERROR(st.Run());
  }
  return WriteTagRows(shopId, conversationId, unique);
}

Result<std::vector<TagCount>> PgQueries::ListTagCatalog(const std::string& shopId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT tag, count(*) FROM conversation_tags WHERE shop_id = ?1 "
                                                  "GROUP BY tag ORDER BY tag"));
  st.Add(shopId);
  return FetchAll<TagCount>(st, ReadTagCount);
}

// ---- messages ----

Result<std::vector<Message>> PgQueries::ListMessages(const MessageQuery& q) {
  if (q.limit <= 0) return std::vector<Message>();
  std::string sql = kMessages.Select() + "WHERE shop_id = :shop AND conversation_id = :conv";
  if (q.afterSeq) sql += q.descending ? " AND seq < :after" : " AND seq > :after";
  if (!q.includeDeleted) sql += " AND is_deleted = 0";
  if (!q.includeNotes) sql += " AND is_note = 0";
  sql += q.descending ? " ORDER BY seq DESC" : " ORDER BY seq";
  sql += " LIMIT :limit";

  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Named(":shop", q.shopId).Named(":conv", q.conversationId).Named(":limit", q.limit);
  if (q.afterSeq) st.Named(":after", *q.afterSeq);
  return FetchAll<Message>(st, ReadMessage);
}

Result<std::optional<Message>> PgQueries::GetMessage(const std::string& shopId, const std::string& conversationId,
                                                         const std::string& idOrSeq) {
  {
    static const std::string sql = kMessages.Select() + "WHERE shop_id = ?1 AND id = ?2 AND conversation_id = ?3";
    LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
    st.Add(shopId).Add(idOrSeq).Add(conversationId);
    LC_ASSIGN_OR_RETURN(auto found, FetchOne<Message>(st, ReadMessage));
    if (found) return found;
  }
  auto seq = ParseSeq(idOrSeq);
  if (!seq) return std::optional<Message>();
  static const std::string sql = kMessages.Select() + "WHERE seq = ?1 AND shop_id = ?2 AND conversation_id = ?3";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(*seq).Add(shopId).Add(conversationId);
  return FetchOne<Message>(st, ReadMessage);
}

Status PgQueries::DoInsertMessage(Message& m) {
  static const std::string sql = kMessages.Insert() + " RETURNING seq";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindMessage(st, m);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Error{ErrorCode::kInternal, "postgres: INSERT ... RETURNING seq gave no row"};
  m.seq = st.Int(0);
  return Status::Ok();
}

Result<bool> PgQueries::DoUpdateMessage(const Message& m) {
  static const std::string sql = kMessages.Update();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindMessage(st, m);
  return RunChanged(st);
}

// ---- notes ----

Result<std::vector<Note>> PgQueries::ListNotes(const std::string& shopId, const std::string& conversationId) {
  static const std::string sql =
      kNotes.Select() + "WHERE shop_id = ?1 AND conversation_id = ?2 ORDER BY created_at, rid";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(conversationId);
  return FetchAll<Note>(st, ReadNote);
}

Result<std::optional<Note>> PgQueries::GetNote(const std::string& shopId, const std::string& conversationId,
                                                   const std::string& noteId) {
  static const std::string sql = kNotes.Select() + "WHERE shop_id = ?1 AND id = ?2 AND conversation_id = ?3";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(noteId).Add(conversationId);
  return FetchOne<Note>(st, ReadNote);
}

Status PgQueries::InsertNote(const Note& n) {
  static const std::string sql = kNotes.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindNote(st, n);
  return st.Run();
}

Result<bool> PgQueries::UpdateNote(const Note& n) {
  static const std::string sql = kNotes.Update();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindNote(st, n);
  return RunChanged(st);
}

Result<bool> PgQueries::DeleteNote(const std::string& shopId, const std::string& conversationId,
                                       const std::string& noteId) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("DELETE FROM notes WHERE shop_id = ?1 AND id = ?2 AND conversation_id = ?3"));
  st.Add(shopId).Add(noteId).Add(conversationId);
  return RunChanged(st);
}

// ---- attributes ----

Result<std::vector<Attribute>> PgQueries::ListAttributes(const std::string& shopId,
                                                             const std::string& conversationId) {
  static const std::string sql =
      kAttributes.Select() + "WHERE shop_id = ?1 AND conversation_id = ?2 ORDER BY created_at, rid";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(conversationId);
  return FetchAll<Attribute>(st, ReadAttribute);
}

Result<std::optional<Attribute>> PgQueries::GetAttribute(const std::string& shopId,
                                                             const std::string& conversationId,
                                                             const std::string& attributeId) {
  static const std::string sql = kAttributes.Select() + "WHERE shop_id = ?1 AND id = ?2 AND conversation_id = ?3";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(attributeId).Add(conversationId);
  return FetchOne<Attribute>(st, ReadAttribute);
}

Result<std::optional<Attribute>> PgQueries::FindAttributeByName(const std::string& shopId,
                                                                    const std::string& conversationId,
                                                                    const std::string& name) {
  // Names are not unique in the schema (a rename could collide); the oldest wins.
  static const std::string sql = kAttributes.Select() +
                                 "WHERE shop_id = ?1 AND conversation_id = ?2 AND name = ?3 "
                                 "ORDER BY created_at, rid LIMIT 1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(conversationId).Add(name);
  return FetchOne<Attribute>(st, ReadAttribute);
}

Status PgQueries::InsertAttribute(const Attribute& a) {
  static const std::string sql = kAttributes.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindAttribute(st, a);
  return st.Run();
}

Result<bool> PgQueries::UpdateAttribute(const Attribute& a) {
  static const std::string sql = kAttributes.Update();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindAttribute(st, a);
  return RunChanged(st);
}

Result<bool> PgQueries::DeleteAttribute(const std::string& shopId, const std::string& conversationId,
                                            const std::string& attributeId) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("DELETE FROM attributes WHERE shop_id = ?1 AND id = ?2 AND conversation_id = ?3"));
  st.Add(shopId).Add(attributeId).Add(conversationId);
  return RunChanged(st);
}

// ---- browsed pages ----

Result<std::vector<BrowsedPage>> PgQueries::ListBrowsedPages(const std::string& shopId,
                                                                 const std::string& conversationId, Millis sinceMillis,
                                                                 int limit) {
  if (limit <= 0) return std::vector<BrowsedPage>();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT url, title, viewed_at FROM browsed_pages "
                                                  "WHERE shop_id = ?1 AND conversation_id = ?2 AND viewed_at >= ?3 "
                                                  "ORDER BY viewed_at DESC, seq DESC LIMIT ?4"));
  st.Add(shopId).Add(conversationId).Add(sinceMillis).Add(limit);
  return FetchAll<BrowsedPage>(st, ReadBrowsedPage);
}

Status PgQueries::InsertBrowsedPage(const std::string& shopId, const std::string& conversationId,
                                        const BrowsedPage& p, int keep) {
  {
    LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("INSERT INTO browsed_pages (shop_id, conversation_id, url, title, "
                                                    "viewed_at) VALUES (?1, ?2, ?3, ?4, ?5)"));
    st.Add(shopId).Add(conversationId).Add(p.url).Add(p.title).Add(p.viewedAt);
    LC_RETURN_IF_ERROR(st.Run());
  }
  // "Most recent" is the list order: viewedAt, then insertion.
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("DELETE FROM browsed_pages WHERE shop_id = ?1 AND conversation_id = ?2 "
                                    "AND seq NOT IN (SELECT seq FROM browsed_pages "
                                    "WHERE shop_id = ?1 AND conversation_id = ?2 "
                                    "ORDER BY viewed_at DESC, seq DESC LIMIT ?3)"));
  st.Add(shopId).Add(conversationId).Add(keep < 0 ? 0 : keep);
  return st.Run();
}

// ---- summaries, typing ----

Result<std::optional<Summary>> PgQueries::GetSummary(const std::string& shopId, const std::string& conversationId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT conversation_id, text, summarizer, generated_at "
                                                  "FROM summaries WHERE shop_id = ?1 AND conversation_id = ?2"));
  st.Add(shopId).Add(conversationId);
  return FetchOne<Summary>(st, ReadSummary);
}

Status PgQueries::PutSummary(const std::string& shopId, const Summary& s) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("INSERT INTO summaries (shop_id, conversation_id, text, summarizer, generated_at) "
                                    "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (shop_id, conversation_id) DO UPDATE SET "
                                    "text = excluded.text, summarizer = excluded.summarizer, "
                                    "generated_at = excluded.generated_at"));
  st.Add(shopId).Add(s.conversationId).Add(s.text).Add(s.summarizer).Add(s.generatedAt);
  return st.Run();
}

Result<std::vector<TypingState>> PgQueries::ListTyping(const std::string& shopId,
                                                           const std::string& conversationId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT conversation_id, member_id, active, updated_at FROM typing "
                                                  "WHERE shop_id = ?1 AND conversation_id = ?2 ORDER BY member_id"));
  st.Add(shopId).Add(conversationId);
  return FetchAll<TypingState>(st, ReadTyping);
}

Status PgQueries::DoPutTyping(const std::string& shopId, const TypingState& t) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("INSERT INTO typing (shop_id, conversation_id, member_id, active, updated_at) "
                                    "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (shop_id, conversation_id, member_id) "
                                    "DO UPDATE SET active = excluded.active, updated_at = excluded.updated_at"));
  st.Add(shopId).Add(t.conversationId).Add(t.memberId).Add(t.active).Add(t.updatedAt);
  return st.Run();
}

// ---- sessions ----

Result<std::optional<AdminSession>> PgQueries::GetSession(const std::string& tokenHash) {
  static const std::string sql = kSessions.Select() + "WHERE token_hash = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(tokenHash);
  return FetchOne<AdminSession>(st, ReadSession);
}

Status PgQueries::InsertSession(const AdminSession& s) {
  static const std::string sql = kSessions.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(s.shopId).Add(s.memberId).Add(s.createdAt).Add(s.expiresAt).Add(s.tokenHash);
  return st.Run();
}

Status PgQueries::DeleteSession(const std::string& tokenHash) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM admin_sessions WHERE token_hash = ?1"));
  st.Add(tokenHash);
  return st.Run();
}

Result<std::int64_t> PgQueries::DeleteSessions(const std::string& shopId, const std::string& memberId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM admin_sessions WHERE shop_id = ?1 AND "
                                                  "(?2 = '' OR member_id = ?2)"));
  st.Add(shopId).Add(memberId);
  LC_RETURN_IF_ERROR(st.Run());
  return static_cast<std::int64_t>(conn_.Changes());
}

Result<bool> PgQueries::DeleteMember(const std::string& shopId, const std::string& memberId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM members WHERE shop_id = ?1 AND id = ?2"));
  st.Add(shopId).Add(memberId);
  return RunChanged(st);
}

// ---- events ----

Result<std::vector<Event>> PgQueries::ListEvents(const std::string& shopId, int limit) {
  if (limit <= 0) return std::vector<Event>();
  static const std::string sql = kEvents.Select() + "WHERE shop_id = ?1 ORDER BY seq LIMIT ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(limit);
  return FetchAll<Event>(st, ReadEvent);
}

Result<std::vector<Event>> PgQueries::ListEventsOfCustomer(const std::string& shopId,
                                                               const std::string& customerId) {
  // strpos() skips most rows before any JSON is parsed; livechat_json_text
  // (pg_schema.cc) reads a malformed row as NULL instead of failing the scan.
  static const std::string sql =
      kEvents.Select() +
      "WHERE shop_id = ?1 AND strpos(data_json, ?2) > 0 "
      "AND livechat_json_text(data_json, 'customerId') = ?2 ORDER BY seq";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(customerId);
  return FetchAll<Event>(st, ReadEvent);
}

Result<bool> PgQueries::UpdateEventData(const std::string& shopId, const std::string& eventId,
                                            const std::string& dataJson) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("UPDATE events SET data_json = ?3 WHERE shop_id = ?1 AND id = ?2"));
  st.Add(shopId).Add(eventId).Add(dataJson);
  return RunChanged(st);
}

Status PgQueries::AppendEvent(const Event& e) {
  static const std::string sql = kEvents.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(e.shopId).Add(e.type).Add(e.conversationId).Add(e.occurredAt).Add(e.dataJson).Add(e.id);
  return st.Run();
}

Result<std::vector<Customer>> PgQueries::ListCustomers(const CustomerQuery& q) {
  if (q.limit <= 0) return std::vector<Customer>();
  // Row-value comparisons on (created_at, id) walk customers_order as a keyset.
  // Named parameters: every parameter of a PostgreSQL statement must appear
  // in it, and the cursors are optional.
  std::string sql = kCustomers.Select() + "WHERE shop_id = :shop";
  if (q.after) sql += " AND (created_at, id) > (:after_at, :after_id)";
  if (q.before) sql += " AND (created_at, id) < (:before_at, :before_id)";
  sql += q.descending ? " ORDER BY created_at DESC, id DESC LIMIT :limit" : " ORDER BY created_at, id LIMIT :limit";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Named(":shop", q.shopId);
  if (q.after) st.Named(":after_at", q.after->createdAt).Named(":after_id", q.after->id);
  if (q.before) st.Named(":before_at", q.before->createdAt).Named(":before_id", q.before->id);
  st.Named(":limit", q.limit);
  return FetchAll<Customer>(st, ReadCustomer);
}

Result<std::int64_t> PgQueries::CountCustomers(const std::string& shopId) {
  // Maintained by triggers (migration 5): O(1) instead of a scan per request.
  static const std::string sql = "SELECT n FROM shop_customer_counts WHERE shop_id = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Int(0) : 0;
}

}  // namespace livechat::pg
