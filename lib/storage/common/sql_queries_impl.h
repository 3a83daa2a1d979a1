// The definitions of SqlQueries (sql_queries.h), included by exactly one
// file of each backend (sqlite_queries.cc, pg_queries.cc), which
// instantiates them with its dialect. Nothing here includes a database's
// header: statements are `typename D::Statement`.
#pragma once

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "livechat/model.h"
#include "storage/common/json_columns.h"
#include "storage/common/sql_queries.h"

namespace livechat::storage {
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

  std::string Select() const { return "SELECT " + Columns() + " FROM " + name + " "; }

  // The select list alone, for a query that selects more; `qualifier`
  // ("conversations.") where a joined table shares a column name.
  std::string Columns(const std::string& qualifier = "") const {
    std::string sql;
    for (const auto* part : {&lead, &keys, &cols, &tail}) {
      for (const auto& c : *part) {
        if (!sql.empty()) sql += ", ";
        sql += qualifier + c;
      }
    }
    return sql;
  }
  std::size_t Width() const { return lead.size() + keys.size() + cols.size() + tail.size(); }

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

const Table kEvents{"events", {}, {"id"}, {"shop_id", "type", "conversation_id", "occurred_at", "data_json"}, {"seq"}};

// ---- binding (cols, then keys) and reading (lead, keys, cols, tail) ----

const auto BindShop = [](auto& st, const Shop& s) -> void {
  st.Add(s.appId).Add(s.name).Add(PlanName(s.plan)).Add(s.autoAssign).Add(s.installed).Add(s.createdAt);
  st.Add(s.id);
};

const auto ReadShop = [](const auto& st) -> Result<Shop> {
  Shop s;
  int i = 0;
  s.id = st.Text(i++);
  s.appId = st.Text(i++);
  s.name = st.Text(i++);
  std::string plan = st.Text(i++);
  auto parsed = ParsePlan(plan);
  if (!parsed) return Error{ErrorCode::kInternal, "storage: shop " + s.id + " has unknown plan '" + plan + "'"};
  s.plan = *parsed;
  s.autoAssign = st.Bool(i++);
  s.installed = st.Bool(i++);
  s.createdAt = st.Int(i++);
  return s;
};

const auto BindApiKey = [](auto& st, const ApiKey& k) -> void {
  st.Add(k.name).Add(k.keyHash).Add(k.prefix).Add(static_cast<std::int64_t>(k.permissions)).Add(k.legacy);
  st.Add(k.createdAt).Add(k.activeFrom).Add(k.revokedAt).Add(k.lastUsedAt);
  st.Add(k.shopId).Add(k.id);
};

const auto ReadApiKey = [](const auto& st) -> Result<ApiKey> {
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
};

const auto BindMember = [](auto& st, const Member& m) -> void {
  st.Add(m.email).Add(m.firstName).Add(m.lastName).Add(m.avatarUrl).Add(m.role).Add(m.active);
  st.Add(m.enableAwayMode).Add(m.passwordHash).Add(m.createdAt);
  st.Add(m.shopId).Add(m.id);
};

const auto ReadMember = [](const auto& st) -> Result<Member> {
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
};

const auto BindCustomer = [](auto& st, const Customer& c) -> void {
  st.Add(c.shopifyId).Add(c.name).Add(c.firstName).Add(c.lastName).Add(c.email).Add(c.phone).Add(c.type);
  st.Add(EncodeStringArray(c.channels)).Add(EncodeStringArray(c.tags)).Add(c.note);
  st.Add(EncodeStringMap(c.customAttributes));
  st.Add(c.address1).Add(c.address2).Add(c.city).Add(c.zip).Add(c.country).Add(c.countryCode);
  st.Add(c.ordersCount).Add(c.totalSpent);
  st.Add(c.ipAddress).Add(c.ipLocation).Add(c.browser).Add(c.browserVersion).Add(c.os).Add(c.deviceType);
  st.Add(c.senderSeq).Add(c.lastChatAt).Add(c.createdAt).Add(c.updatedAt).Add(c.channelRecipient);
  st.Add(c.redactedAt);
  st.Add(c.shopId).Add(c.id);
};

const auto ReadCustomer = [](const auto& st) -> Result<Customer> {
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
};

const auto BindConversation = [](auto& st, const Conversation& c) -> void {
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
};

// What a Bind* lambda would bind, recorded: two rows compared column by
// column, then only the columns that differ bound to a statement.
class BoundValues {
 public:
  BoundValues& Add(std::string_view v) { return Put(Value{Kind::kText, 0, 0, std::string(v)}); }
  BoundValues& Add(const std::string& v) { return Add(std::string_view(v)); }
  BoundValues& Add(const char* v) { return Add(std::string_view(v)); }
  BoundValues& Add(std::int64_t v) { return Put(Value{Kind::kInt, v, 0, {}}); }
  BoundValues& Add(int v) { return Add(static_cast<std::int64_t>(v)); }
  BoundValues& Add(bool v) { return Add(static_cast<std::int64_t>(v ? 1 : 0)); }
  BoundValues& Add(double v) { return Put(Value{Kind::kReal, 0, v, {}}); }
  BoundValues& AddNull() { return Put(Value{Kind::kNull, 0, 0, {}}); }
  template <typename T>
  BoundValues& Add(const std::optional<T>& v) {
    return v ? Add(*v) : AddNull();
  }

  bool Same(const BoundValues& o, std::size_t i) const { return values_[i] == o.values_[i]; }
  template <class Statement>
  void BindTo(Statement& st, std::size_t i) const {
    const Value& v = values_[i];
    switch (v.kind) {
      case Kind::kNull: st.AddNull(); break;
      case Kind::kInt: st.Add(v.i); break;
      case Kind::kReal: st.Add(v.d); break;
      case Kind::kText: st.Add(v.text); break;
    }
  }

 private:
  enum class Kind { kNull, kInt, kReal, kText };
  struct Value {
    Kind kind;
    std::int64_t i;
    double d;
    std::string text;
    bool operator==(const Value&) const = default;
  };
  BoundValues& Put(Value v) {
    values_.push_back(std::move(v));
    return *this;
  }
  std::vector<Value> values_;
};

// Into a record already in place (a page's vector), so a row is decoded
// where it stays instead of being moved there; text is assigned from the
// column's bytes, not built as a temporary and moved in.
const auto ReadConversationInto = [](const auto& st, Conversation& c) -> Status {
  int i = 0;
  c.shopId.assign(st.TextView(i++));
  c.id.assign(st.TextView(i++));
  c.firestoreId = st.OptText(i++);
  c.sessionId = st.OptText(i++);
  c.customerUuid = st.OptText(i++);
  c.customerName = st.OptText(i++);
  c.customerEmail = st.OptText(i++);
  c.customerType.assign(st.TextView(i++));
  c.status.assign(st.TextView(i++));
  c.isChatBot = st.Bool(i++);
  c.hasChatBot = st.Bool(i++);
  c.isRead = st.Bool(i++);
  c.isCustomerRead = st.Bool(i++);
  c.isOnline = st.Bool(i++);
  c.isBlock = st.Bool(i++);
  c.isStarred = st.Bool(i++);
  c.hasFirstMsg = st.Bool(i++);
  c.hidePreChatMessage.assign(st.TextView(i++));
  c.memberId = st.OptText(i++);
  c.channel.assign(st.TextView(i++));
  LC_ASSIGN_OR_RETURN(c.channels, DecodeStringArray(st.TextView(i++)));
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
  LC_ASSIGN_OR_RETURN(c.tags, DecodeStringArray(st.TextView(i++)));
  return Status::Ok();
};

const auto ReadConversation = [](const auto& st) -> Result<Conversation> {
  Conversation c;
  LC_RETURN_IF_ERROR(ReadConversationInto(st, c));
  return c;
};

const auto BindMessage = [](auto& st, const Message& m) -> void {
  st.Add(m.text).Add(m.senderName).Add(m.senderType).Add(m.memberId);
  st.Add(m.isAdmin).Add(m.isAutomated).Add(m.isBot).Add(m.isNote).Add(m.isFirst).Add(m.isTransfer);
  st.Add(m.isQuickReplyMsg).Add(m.isAskBotMessage).Add(m.isDeleted);
  st.Add(m.contentType).Add(m.topic).Add(m.chatbotProductsJson).Add(m.chatbotFaqsJson).Add(m.filesJson);
  st.Add(m.replyMessageJson).Add(m.createdAt);
  st.Add(m.shopId).Add(m.conversationId).Add(m.id);
};

// Into a record the caller placed, so a page's rows are decoded where they
// stay (FetchAll), as conversations are.
const auto ReadMessageInto = [](const auto& st, Message& m) -> Status {
  int i = 0;
  m.seq = st.Int(i++);
  m.shopId.assign(st.TextView(i++));
  m.conversationId.assign(st.TextView(i++));
  m.id.assign(st.TextView(i++));
  m.text.assign(st.TextView(i++));
  m.senderName.assign(st.TextView(i++));
  m.senderType.assign(st.TextView(i++));
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
  m.contentType.assign(st.TextView(i++));
  m.topic = st.OptText(i++);
  m.chatbotProductsJson.assign(st.TextView(i++));
  m.chatbotFaqsJson.assign(st.TextView(i++));
  m.filesJson.assign(st.TextView(i++));
  m.replyMessageJson = st.OptText(i++);
  m.createdAt = st.Int(i++);
  return Status::Ok();
};

const auto ReadMessage = [](const auto& st) -> Result<Message> {
  Message m;
  LC_RETURN_IF_ERROR(ReadMessageInto(st, m));
  return m;
};

const auto BindNote = [](auto& st, const Note& n) -> void {
  st.Add(n.text).Add(n.isUpdated).Add(n.createdAt).Add(n.updatedAt);
  st.Add(n.shopId).Add(n.conversationId).Add(n.id);
};

const auto ReadNote = [](const auto& st) -> Result<Note> {
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
};

const auto BindAttribute = [](auto& st, const Attribute& a) -> void {
  st.Add(a.name).Add(a.value).Add(a.createdAt).Add(a.updatedAt);
  st.Add(a.shopId).Add(a.conversationId).Add(a.id);
};

const auto ReadAttribute = [](const auto& st) -> Result<Attribute> {
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
};

const auto ReadSession = [](const auto& st) -> Result<AdminSession> {
  AdminSession s;
  int i = 0;
  s.tokenHash = st.Text(i++);
  s.shopId = st.Text(i++);
  s.memberId = st.Text(i++);
  s.createdAt = st.Int(i++);
  s.expiresAt = st.Int(i++);
  return s;
};

const auto ReadEvent = [](const auto& st) -> Result<Event> {
  Event e;
  int i = 0;
  e.id = st.Text(i++);
  e.shopId = st.Text(i++);
  e.type = st.Text(i++);
  e.conversationId = st.OptText(i++);
  e.occurredAt = st.Int(i++);
  e.dataJson = st.Text(i++);
  e.seq = st.Int(i++);
  return e;
};

const auto ReadBrowsedPage = [](const auto& st) -> Result<BrowsedPage> { return BrowsedPage{st.Text(0), st.OptText(1), st.Int(2)}; };

const auto ReadSummary = [](const auto& st) -> Result<Summary> { return Summary{st.Text(0), st.Text(1), st.Text(2), st.Int(3)}; };

const auto ReadTyping = [](const auto& st) -> Result<TypingState> {
  return TypingState{st.Text(0), st.Text(1), st.Bool(2), st.Int(3)};
};

const auto ReadTagCount = [](const auto& st) -> Result<TagCount> { return TagCount{st.Text(0), st.Int(1)}; };

// `read` returns the record, or (like FetchAll's) fills one in place: a
// record of many strings is then built where the caller gets it, and every
// path returns `out`, so nothing is moved on the way.
template <typename T, typename St, typename F>
Result<std::optional<T>> FetchOne(St& st, F read) {
  Result<std::optional<T>> out{std::optional<T>()};
  Result<bool> row = st.Step();
  if (!row.ok()) {
    out = row.take_error();
  } else if (*row) {
    if constexpr (std::is_invocable_r_v<Status, F, St&, T&>) {
      Status filled = read(st, out->emplace());
      if (!filled.ok()) out = filled.take_error();
    } else {
      Result<T> value = read(st);
      if (value.ok()) {
        out->emplace(std::move(value).value());
      } else {
        out = value.take_error();
      }
    }
  }
  return out;
}

// `expected`: the rows a LIMIT allows, reserved up front so a page's
// records are not moved again each time the vector grows.
template <typename T, typename St, typename F>
Result<std::vector<T>> FetchAll(St& st, F read, std::int64_t expected = 0) {
  std::vector<T> out;
  if (expected > 0) out.reserve(static_cast<std::size_t>(std::min<std::int64_t>(expected, 1000)));
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return out;
    if constexpr (std::is_invocable_r_v<Status, F, St&, T&>) {
      LC_RETURN_IF_ERROR(read(st, out.emplace_back()));
    } else {
      LC_ASSIGN_OR_RETURN(T value, read(st));
      out.push_back(std::move(value));
    }
  }
}

// An INSERT (Table::Insert's text) that also gives the row its first
// row_version (conversations and messages: the lists' JSON caches).
template <class D>
std::string WithRowVersion(std::string insert) {
  insert.insert(insert.find(") VALUES ("), ", row_version");
  insert.insert(insert.size() - 1, std::string(", ") + D::kNewRowVersion);
  return insert;
}

// Integers as a JSON array, the parameter a dialect's k*Of* join reads.
std::string IdArray(const std::vector<std::int64_t>& ids) {
  std::string out = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(ids[i]);
  }
  out += ']';
  return out;
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

template <class D>
Result<bool> SqlQueries<D>::RunChanged(Statement& st) {
  LC_RETURN_IF_ERROR(st.Run());
  return conn_.Changes() > 0;
}

template <class D>
void SqlQueries<D>::OnCallerClock(WebhookDelivery& d) {
  d.nextAttemptAt = FromLease(d.nextAttemptAt);
  d.leaseUntil = FromLease(d.leaseUntil);
}

template <class D>
void SqlQueries<D>::OnCallerClock(SummaryJob& j) {
  j.nextAttemptAt = FromLease(j.nextAttemptAt);
  j.leaseUntil = FromLease(j.leaseUntil);
}

template <class D>
void SqlQueries<D>::OnCallerClock(IdempotencyRecord& r) {
  r.leaseUntil = FromLease(r.leaseUntil);
  r.expiresAt = FromLease(r.expiresAt);
}

// ---- shops ----

template <class D>
Result<std::optional<Shop>> SqlQueries<D>::GetShop(const std::string& shopId) {
  static const std::string sql = kShops.Select() + "WHERE id = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId);
  return FetchOne<Shop>(st, ReadShop);
}

template <class D>
Result<std::optional<Shop>> SqlQueries<D>::GetShopByAppId(const std::string& appId) {
  static const std::string sql = kShops.Select() + "WHERE app_id = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(appId);
  return FetchOne<Shop>(st, ReadShop);
}

template <class D>
Status SqlQueries<D>::InsertShop(const Shop& s) {
  static const std::string sql = kShops.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindShop(st, s);
  return st.Run();
}

template <class D>
Result<bool> SqlQueries<D>::UpdateShop(const Shop& s) {
  static const std::string sql = kShops.Update();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindShop(st, s);
  return RunChanged(st);
}

// ---- API keys ----

template <class D>
Result<std::optional<ApiKey>> SqlQueries<D>::FindApiKeyByHash(const std::string& keyHash) {
  static const std::string sql = kApiKeys.Select() + "WHERE key_hash = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(keyHash);
  return FetchOne<ApiKey>(st, ReadApiKey);
}

template <class D>
Result<std::vector<ApiKey>> SqlQueries<D>::ListApiKeys(const std::string& shopId) {
  static const std::string sql = kApiKeys.Select() + "WHERE shop_id = ?1 ORDER BY created_at, " + std::string(D::kRowOrder);
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId);
  return FetchAll<ApiKey>(st, ReadApiKey);
}

template <class D>
Status SqlQueries<D>::InsertApiKey(const ApiKey& k) {
  static const std::string sql = kApiKeys.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindApiKey(st, k);
  return st.Run();
}

template <class D>
Result<bool> SqlQueries<D>::RevokeApiKey(const std::string& shopId, const std::string& keyId, Millis at) {
  // A second revoke matches (true) but keeps the first instant.
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?1) "
                                                  "WHERE shop_id = ?2 AND id = ?3"));
  st.Add(at).Add(shopId).Add(keyId);
  return RunChanged(st);
}

template <class D>
Result<bool> SqlQueries<D>::UpdateApiKeyPermissions(const std::string& shopId, const std::string& keyId,
                                                    std::uint32_t permissions) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("UPDATE api_keys SET permissions = ?1, legacy = 0 "
                                                  "WHERE shop_id = ?2 AND id = ?3 AND revoked_at IS NULL"));
  st.Add(static_cast<std::int64_t>(permissions)).Add(shopId).Add(keyId);
  return RunChanged(st);
}

// ---- members ----

template <class D>
Result<std::optional<Member>> SqlQueries<D>::GetMember(const std::string& shopId, const std::string& memberId) {
  static const std::string sql = kMembers.Select() + "WHERE shop_id = ?1 AND id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(memberId);
  return FetchOne<Member>(st, ReadMember);
}

template <class D>
Result<std::vector<Member>> SqlQueries<D>::ListMembers(const std::string& shopId) {
  static const std::string sql = kMembers.Select() + "WHERE shop_id = ?1 ORDER BY created_at, " + std::string(D::kRowOrder);
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId);
  return FetchAll<Member>(st, ReadMember);
}

template <class D>
Result<std::vector<Member>> SqlQueries<D>::FindMembersByEmail(const std::string& email) {
  // lower() folds ASCII only, the same on both sides and in the index.
  static const std::string sql = kMembers.Select() + "WHERE lower(email) = lower(?1) ORDER BY created_at, " + std::string(D::kRowOrder);
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(email);
  return FetchAll<Member>(st, ReadMember);
}

template <class D>
Status SqlQueries<D>::InsertMember(const Member& m) {
  static const std::string sql = kMembers.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindMember(st, m);
  return st.Run();
}

template <class D>
Result<bool> SqlQueries<D>::UpdateMember(const Member& m) {
  static const std::string sql = kMembers.Update();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindMember(st, m);
  return RunChanged(st);
}

// ---- customers ----

template <class D>
Result<std::optional<Customer>> SqlQueries<D>::GetCustomer(const std::string& shopId, const std::string& customerId) {
  static const std::string sql = kCustomers.Select() + "WHERE shop_id = ?1 AND id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(customerId);
  return FetchOne<Customer>(st, ReadCustomer);
}

template <class D>
Result<std::optional<Customer>> SqlQueries<D>::FindCustomerByEmail(const std::string& shopId,
                                                                   const std::string& email) {
  // Several contacts may share an address; the oldest is the canonical one.
  static const std::string sql = kCustomers.Select() +
                                 "WHERE shop_id = ?1 AND email IS NOT NULL AND lower(email) = lower(?2) "
                                 "ORDER BY created_at, " + std::string(D::kRowOrder) + " LIMIT 1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(email);
  return FetchOne<Customer>(st, ReadCustomer);
}

template <class D>
Status SqlQueries<D>::InsertCustomer(const Customer& c) {
  static const std::string sql = kCustomers.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindCustomer(st, c);
  return st.Run();
}

template <class D>
Result<bool> SqlQueries<D>::UpdateCustomer(const Customer& c) {
  static const std::string sql = kCustomers.Update();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindCustomer(st, c);
  return RunChanged(st);
}

template <class D>
Result<std::vector<Customer>> SqlQueries<D>::FindCustomersByShopifyId(const std::string& shopId,
                                                                      const std::string& shopifyId) {
  static const std::string sql =
      kCustomers.Select() + "WHERE shop_id = ?1 AND shopify_id = ?2 ORDER BY created_at, " + std::string(D::kRowOrder);
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(shopifyId);
  return FetchAll<Customer>(st, ReadCustomer);
}

template <class D>
Result<std::vector<Customer>> SqlQueries<D>::ListCustomersByEmail(const std::string& shopId,
                                                                  const std::string& email) {
  static const std::string sql = kCustomers.Select() +
                                 "WHERE shop_id = ?1 AND email IS NOT NULL AND lower(email) = lower(?2) "
                                 "ORDER BY created_at, " + std::string(D::kRowOrder);
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(email);
  return FetchAll<Customer>(st, ReadCustomer);
}

template <class D>
Result<std::vector<Customer>> SqlQueries<D>::ListCustomersByPhone(const std::string& shopId,
                                                                  const std::string& phoneKey) {
  if (phoneKey.empty()) return std::vector<Customer>();
  // The store's contacts with a phone, compared through PhoneKey here (one
  // definition of the key, in the core): stored phones are free text, and
  // a redact is rare enough not to be worth a maintained key column.
  static const std::string sql =
      kCustomers.Select() + "WHERE shop_id = ?1 AND (phone IS NOT NULL OR channel_recipient IS NOT NULL) " +
      "ORDER BY created_at, " + std::string(D::kRowOrder);
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

template <class D>
Result<bool> SqlQueries<D>::DeleteCustomer(const std::string& shopId, const std::string& customerId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM customers WHERE shop_id = ?1 AND id = ?2"));
  st.Add(shopId).Add(customerId);
  return RunChanged(st);
}

// ---- conversations ----

namespace {

// The three forms of a conversation's id FindConversation accepts, each a
// query reading `select`'s columns.
struct ConversationLookup {
  std::string byId, byFirestoreId, byPgConvoId;
  explicit ConversationLookup(const std::string& select)
      : byId(select + "WHERE shop_id = ?1 AND id = ?2"),
        byFirestoreId(select + "WHERE shop_id = ?1 AND firestore_id = ?2 ORDER BY rid LIMIT 1"),
        // pg_convo_id, when set, equals rid (schema CHECK), so the key finds it.
        byPgConvoId(select + "WHERE rid = ?1 AND shop_id = ?2 AND pg_convo_id IS NOT NULL") {}
};

template <typename T, typename Conn, typename F>
Result<std::optional<T>> LookUpConversation(Conn& conn, const ConversationLookup& sql, const std::string& shopId,
                                            const std::string& anyId, F read) {
  // Precedence when forms collide: id, then firestoreId, then pgConvoId.
  for (const std::string* form : {&sql.byId, &sql.byFirestoreId}) {
    LC_ASSIGN_OR_RETURN(auto st, conn.Prepare(*form));
    st.Add(shopId).Add(anyId);
    auto found = FetchOne<T>(st, read);
    if (!found.ok() || *found) return found;
  }
  auto pg = ParseSeq(anyId);
  if (!pg) return std::optional<T>();
  LC_ASSIGN_OR_RETURN(auto st, conn.Prepare(sql.byPgConvoId));
  st.Add(*pg).Add(shopId);
  return FetchOne<T>(st, read);
}

}  // namespace

template <class D>
Result<std::optional<Conversation>> SqlQueries<D>::FindConversation(const std::string& shopId,
                                                                    const std::string& anyId) {
  static const ConversationLookup sql(kConversations.Select());
  return LookUpConversation<Conversation>(conn_, sql, shopId, anyId, ReadConversationInto);
}

template <class D>
Result<std::optional<std::string>> SqlQueries<D>::FindConversationId(const std::string& shopId,
                                                                     const std::string& anyId) {
  static const ConversationLookup sql("SELECT id FROM conversations ");
  return LookUpConversation<std::string>(conn_, sql, shopId, anyId,
                                         [](const auto& st) -> Result<std::string> { return st.Text(0); });
}

// The predicates of a conversation list after its shop: the text depends
// only on which filters are present, never on their values, so each shape
// is prepared once per connection. The literal `in_new_datastore = 1` lets
// the planner use the partial list indexes. Shared by the list and the search.
inline std::string ConversationFilterSql(const ConversationQuery& q, const char* tagsOf) {
  std::string sql = " AND in_new_datastore = 1";
  if (q.status) sql += " AND status = :status";
  // The AI playground's test conversations are listed only when asked for
  // by channel (the tool server's list_conversations), never in the inbox.
  if (q.channel) sql += " AND channel = :channel";
  else sql += " AND channel <> 'playground'";
  if (q.assigneeId) sql += " AND member_id = :assignee";
  if (q.unassignedOnly) sql += " AND member_id IS NULL";
  if (q.isRead) sql += " AND is_read = :is_read";
  if (q.isStarred) sql += " AND is_starred = :is_starred";
  if (q.customerUuid) sql += " AND customer_uuid = :customer";
  if (q.email) sql += " AND lower(customer_email) = lower(:email)";
  if (q.excludeId) sql += " AND id <> :exclude";
  if (!q.tagsAny.empty())
    sql +=
        " AND EXISTS (SELECT 1 FROM conversation_tags t WHERE t.shop_id = conversations.shop_id"
        " AND t.conversation_id = conversations.id AND t.tag IN " + std::string(tagsOf) + ")";
  return sql;
}

template <class Statement>
void BindConversationFilters(Statement& st, const ConversationQuery& q) {
  st.Named(":shop", q.shopId);
  if (q.status) st.Named(":status", *q.status);
  if (q.channel) st.Named(":channel", *q.channel);
  if (q.assigneeId) st.Named(":assignee", *q.assigneeId);
  if (q.isRead) st.Named(":is_read", *q.isRead);
  if (q.isStarred) st.Named(":is_starred", *q.isStarred);
  if (q.customerUuid) st.Named(":customer", *q.customerUuid);
  if (q.email) st.Named(":email", *q.email);
  if (q.excludeId) st.Named(":exclude", *q.excludeId);
  if (!q.tagsAny.empty()) st.Named(":tags", EncodeStringArray(q.tagsAny));
  if (q.after) {
    st.Named(":after_active", q.after->lastActive);
    st.Named(":after_pg", q.after->pgConvoId);
  }
  st.Named(":limit", q.limit);
}

template <class D>
Result<std::vector<Conversation>> SqlQueries<D>::ListConversations(const ConversationQuery& q) {
  if (q.limit <= 0) return std::vector<Conversation>();
  static const std::string select = kConversations.Select() + "WHERE shop_id = :shop";
  std::string sql = select + ConversationFilterSql(q, D::kTagsOf);
  if (q.after) sql += " AND (sort_active, pg_convo_id) < (:after_active, :after_pg)";
  sql += " ORDER BY sort_active DESC, pg_convo_id DESC LIMIT :limit";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindConversationFilters(st, q);
  return FetchAll<Conversation>(st, ReadConversationInto, q.limit);
}

// The list's own statement with a select list of three columns: the same
// index, the same order, and of each row only what tells whether a reader's
// copy of it is current.
template <class D>
Result<std::optional<std::vector<ConversationVersion>>> SqlQueries<D>::ListConversationVersions(
    const ConversationQuery& q) {
  std::optional<std::vector<ConversationVersion>> out(std::in_place);
  if (q.limit <= 0) return out;
  std::string sql = "SELECT pg_convo_id, sort_active, row_version FROM conversations WHERE shop_id = :shop" +
                    ConversationFilterSql(q, D::kTagsOf);
  if (q.after) sql += " AND (sort_active, pg_convo_id) < (:after_active, :after_pg)";
  sql += " ORDER BY sort_active DESC, pg_convo_id DESC LIMIT :limit";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindConversationFilters(st, q);
  out->reserve(static_cast<std::size_t>(std::min<std::int64_t>(q.limit, 1000)));
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return out;
    out->push_back(ConversationVersion{st.Int(0), st.Int(1), st.Int(2)});
  }
}

template <class D>
Result<std::vector<Conversation>> SqlQueries<D>::ListConversationsByPgId(const std::string& shopId,
                                                                        const std::vector<std::int64_t>& pgConvoIds) {
  if (pgConvoIds.empty()) return std::vector<Conversation>();
  // pg_convo_id is the row's rid (the schema's CHECK): one primary-key seek
  // per id, the ids driving the join (with `rid IN (...)` SQLite chose to
  // scan the shop's rows by an index on shop_id instead). in_new_datastore
  // = 1: only what the list lists.
  static const std::string sql = "SELECT " + kConversations.Columns("conversations.") + " FROM " +
                                 D::kConversationsOfRids +
                                 " AND conversations.shop_id = :shop AND conversations.in_new_datastore = 1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Named(":shop", shopId).Named(":rids", IdArray(pgConvoIds));
  return FetchAll<Conversation>(st, ReadConversationInto, static_cast<std::int64_t>(pgConvoIds.size()));
}

// The backend finds the matching texts (D::kConversationHits: one row per
// conversation, its best text); the filters and the order are the list's.
template <class D>
Result<std::vector<ConversationHit>> SqlQueries<D>::SearchConversations(const ConversationQuery& q,
                                                                        const ConversationSearch& s) {
  std::vector<ConversationHit> out;
  if (q.limit <= 0 || s.words.empty()) return out;
  std::string sql = "SELECT " + kConversations.Columns() +
                    ", hits.score, hits.src, hits.hit_ref, sort_active AS sort_key FROM conversations JOIN " +
                    std::string(D::kConversationHits) +
                    " AS hits ON hits.conv_rid = conversations.rid WHERE conversations.shop_id = :shop" +
                    ConversationFilterSql(q, D::kTagsOf);
  std::string order;
  if (s.byRelevance) {
    if (s.after)
      sql += " AND (hits.score < :after_score OR (hits.score = :after_score AND pg_convo_id < :after_pg))";
    order = " ORDER BY score DESC, pg_convo_id DESC";
  } else {
    if (q.after) sql += " AND (sort_active, pg_convo_id) < (:after_active, :after_pg)";
    order = " ORDER BY sort_key DESC, pg_convo_id DESC";
  }
  // The page first, then the text each of its rows matched: reading the
  // texts of every candidate would cost more than the search.
  sql = "SELECT page.*, " + std::string(D::kHitText) + " FROM (" + sql + order + " LIMIT :limit) AS page" + order;
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindConversationFilters(st, q);
  if (s.byRelevance && s.after) {
    st.Named(":after_score", s.after->relevance);
    st.Named(":after_pg", s.after->pgConvoId);
  }
  st.Named(":cap", static_cast<std::int64_t>(kSearchCandidates));
  LC_ASSIGN_OR_RETURN(bool mayMatch, D::BindSearchWords(conn_, st, q.shopId, s.words, s.prefixLast));
  if (!mayMatch) return out;
  const int n = static_cast<int>(kConversations.Width());
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    ConversationHit h;
    LC_ASSIGN_OR_RETURN(h.conversation, ReadConversation(st));
    h.relevance = st.Double(n);
    h.source = st.Text(n + 1);
    h.text = st.Text(n + 4);
    out.push_back(std::move(h));
  }
  return out;
}

// Both spell `in_new_datastore = 0` literally for the partial index
// conversations_legacy (migration 11).
template <class D>
Result<std::vector<Conversation>> SqlQueries<D>::ListLegacyConversations(const std::string& shopId, int limit) {
  if (limit <= 0) return std::vector<Conversation>();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(kConversations.Select() +
                                                  "WHERE shop_id = ?1 AND in_new_datastore = 0 ORDER BY rid LIMIT ?2"));
  st.Add(shopId).Add(static_cast<std::int64_t>(limit));
  return FetchAll<Conversation>(st, ReadConversationInto);
}

template <class D>
Result<std::int64_t> SqlQueries<D>::CountLegacyConversations(const std::string& shopId) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("SELECT count(*) FROM conversations WHERE shop_id = ?1 AND in_new_datastore = 0"));
  st.Add(shopId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Int(0) : 0;
}

template <class D>
Result<std::vector<Conversation>> SqlQueries<D>::ListConversationsOfCustomer(const std::string& shopId,
                                                                             const std::string& customerId) {
  static const std::string sql = kConversations.Select() + "WHERE shop_id = ?1 AND customer_uuid = ?2 ORDER BY rid";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(customerId);
  return FetchAll<Conversation>(st, ReadConversationInto);
}

template <class D>
Status SqlQueries<D>::DoInsertConversation(Conversation& c) {
  std::optional<std::int64_t> rid = c.pgConvoId;
  if (!rid) {
    // Drawn like SQLite's own rowid; the one writer (on PostgreSQL, the one
    // write lock across instances) makes this race-free.
    LC_ASSIGN_OR_RETURN(std::int64_t next, conn_.QueryInt("SELECT coalesce(max(rid), 0) + 1 FROM conversations"));
    rid = next;
  }
  std::optional<std::int64_t> pg = c.pgConvoId;
  if (!pg && c.inNewDatastore) pg = rid;
  std::vector<std::string> tags = UniqueTags(c.tags);

  // Every statement that writes a conversation row sets its row_version
  // anew: what a reader built from the row is keyed by it.
  static const std::string sql = WithRowVersion<D>(kConversations.Insert({"rid", "pg_convo_id", "tags_json"}));
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

template <class D>
Result<bool> SqlQueries<D>::DoUpdateConversation(const Conversation& c, const Conversation* before) {
  // Only the changed columns: SQLite rewrites index entries by the SET list,
  // not by what changed, and a conversation has ten indexes. (PostgreSQL
  // compares the indexed values itself; there this saves only binding.) Each
  // set of changed columns is its own cached statement: a few dozen at most,
  // as the callers change fixed groups of fields. A move of the row (its pg
  // id) takes the full statement.
  if (before && before->shopId == c.shopId && before->id == c.id && before->pgConvoId == c.pgConvoId &&
      before->inNewDatastore == c.inNewDatastore) {
    BoundValues now, was;
    BindConversation(now, c);
    BindConversation(was, *before);
    const std::size_t ncols = kConversations.cols.size();
    std::string sql = "UPDATE conversations SET ";
    std::vector<std::size_t> changed;
    for (std::size_t i = 0; i < ncols; ++i) {
      if (now.Same(was, i)) continue;
      if (!changed.empty()) sql += ", ";
      changed.push_back(i);
      sql += kConversations.cols[i] + " = ?" + std::to_string(changed.size());
    }
    if (changed.empty()) {
      // Nothing to write; the answer is still whether the row is there.
      LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT 1 FROM conversations WHERE shop_id = ?1 AND id = ?2"));
      st.Add(c.shopId).Add(c.id);
      LC_ASSIGN_OR_RETURN(bool found, st.Step());
      return found;
    }
    const std::size_t n = changed.size();
    sql += std::string(", row_version = ") + D::kNewRowVersion;
    sql += " WHERE shop_id = ?" + std::to_string(n + 1) + " AND id = ?" + std::to_string(n + 2);
    LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
    for (std::size_t i : changed) now.BindTo(st, i);
    st.Add(c.shopId).Add(c.id);
    return RunChanged(st);
  }

  // A pgConvoId moves the row to that rid (they are equal by the schema);
  // without one, a row in the new datastore exposes its rid, so migrating a
  // legacy record by setting inNewDatastore gives it a pg id. The SET
  // expressions read the old rid.
  static const std::string sql = [] {
    // Typed: PostgreSQL deduces a parameter's type from its first use, and
    // `IS NOT NULL` gives it none.
    const std::string pg = "CAST(?" + std::to_string(kConversations.ParamCount() + 1) + " AS BIGINT)";
    const std::string inNew = "CAST(?" + std::to_string(kConversations.ParamOf("in_new_datastore")) + " AS BIGINT)";
    return kConversations.Update("rid = coalesce(" + pg + ", rid), pg_convo_id = CASE WHEN " + pg +
                                 " IS NOT NULL THEN " + pg + " WHEN " + inNew + " = 1 THEN rid ELSE NULL END" +
                                 ", row_version = " + D::kNewRowVersion);
  }();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindConversation(st, c);
  st.Add(c.pgConvoId);
  return RunChanged(st);
}

template <class D>
Status SqlQueries<D>::WriteTagRows(const std::string& shopId, const std::string& conversationId,
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

template <class D>
Status SqlQueries<D>::ReplaceConversationTags(const std::string& shopId, const std::string& conversationId,
                                              const std::vector<std::string>& tags) {
  std::vector<std::string> unique = UniqueTags(tags);
  {
    static const std::string sql = std::string("UPDATE conversations SET tags_json = ?1, row_version = ") +
                                   D::kNewRowVersion + " WHERE shop_id = ?2 AND id = ?3";
    LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
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

// One scan of the shop's rows (conversations_list's prefix) rather than five
// counts: the inbox asks for all of them after every change it hears of.
template <class D>
Result<InboxCounts> SqlQueries<D>::CountInbox(const std::string& shopId, const std::string& memberId) {
  static const std::string sql =
      "SELECT"
      " COALESCE(SUM(CASE WHEN status = 'open' THEN 1 ELSE 0 END), 0),"
      " COALESCE(SUM(CASE WHEN status = 'open' AND is_read = 0 THEN 1 ELSE 0 END), 0),"
      " COALESCE(SUM(CASE WHEN status = 'open' AND member_id = ?2 THEN 1 ELSE 0 END), 0),"
      " COALESCE(SUM(CASE WHEN status = 'open' AND member_id IS NULL THEN 1 ELSE 0 END), 0),"
      " COALESCE(SUM(CASE WHEN is_starred = 1 THEN 1 ELSE 0 END), 0)"
      " FROM conversations WHERE shop_id = ?1 AND in_new_datastore = 1 AND channel <> 'playground'";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(memberId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  InboxCounts out;
  if (row) out = InboxCounts{st.Int(0), st.Int(1), st.Int(2), st.Int(3), st.Int(4)};
  return out;
}

template <class D>
Result<std::vector<TagCount>> SqlQueries<D>::ListTagCatalog(const std::string& shopId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT tag, count(*) FROM conversation_tags WHERE shop_id = ?1 "
                                                  "GROUP BY tag ORDER BY tag"));
  st.Add(shopId);
  return FetchAll<TagCount>(st, ReadTagCount);
}

// ---- messages ----

// The predicates and order of a conversation's message page after its
// shop and conversation; shared by the page and its versions.
inline std::string MessagePageSql(const MessageQuery& q) {
  std::string sql;
  if (q.afterSeq) sql += q.descending ? " AND seq < :after" : " AND seq > :after";
  if (!q.includeDeleted) sql += " AND is_deleted = 0";
  if (!q.includeNotes) sql += " AND is_note = 0";
  sql += q.descending ? " ORDER BY seq DESC" : " ORDER BY seq";
  sql += " LIMIT :limit";
  return sql;
}

template <class Statement>
void BindMessagePage(Statement& st, const MessageQuery& q) {
  st.Named(":shop", q.shopId).Named(":conv", q.conversationId).Named(":limit", q.limit);
  if (q.afterSeq) st.Named(":after", *q.afterSeq);
}

template <class D>
Result<std::vector<Message>> SqlQueries<D>::ListMessages(const MessageQuery& q) {
  if (q.limit <= 0) return std::vector<Message>();
  static const std::string select = kMessages.Select() + "WHERE shop_id = :shop AND conversation_id = :conv";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(select + MessagePageSql(q)));
  BindMessagePage(st, q);
  return FetchAll<Message>(st, ReadMessageInto, q.limit);
}

template <class D>
Result<std::optional<std::vector<MessageVersion>>> SqlQueries<D>::ListMessageVersions(const MessageQuery& q) {
  std::optional<std::vector<MessageVersion>> out(std::in_place);
  if (q.limit <= 0) return out;
  static const std::string select =
      "SELECT seq, row_version, coalesce(length(files_json), 0) FROM messages "
      "WHERE shop_id = :shop AND conversation_id = :conv";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(select + MessagePageSql(q)));
  BindMessagePage(st, q);
  out->reserve(static_cast<std::size_t>(std::min(q.limit, 1000)));
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return out;
    // "[]" (or nothing): no files.
    out->push_back(MessageVersion{st.Int(0), st.Int(1), st.Int(2) <= 2});
  }
}

template <class D>
Result<std::vector<Message>> SqlQueries<D>::ListMessagesBySeq(const std::string& shopId,
                                                              const std::string& conversationId,
                                                              const std::vector<std::int64_t>& seqs) {
  if (seqs.empty()) return std::vector<Message>();
  // The seqs drive the join: one primary-key seek each.
  static const std::string sql = "SELECT " + kMessages.Columns("messages.") + " FROM " + D::kMessagesOfSeqs +
                                 " AND messages.shop_id = :shop AND messages.conversation_id = :conv";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Named(":shop", shopId).Named(":conv", conversationId).Named(":seqs", IdArray(seqs));
  return FetchAll<Message>(st, ReadMessageInto, static_cast<std::int64_t>(seqs.size()));
}

template <class D>
Result<std::optional<Message>> SqlQueries<D>::GetMessage(const std::string& shopId, const std::string& conversationId,
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

template <class D>
Status SqlQueries<D>::DoInsertMessage(Message& m) {
  static const std::string sql = WithRowVersion<D>(kMessages.Insert()) + " RETURNING seq";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindMessage(st, m);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Error{ErrorCode::kInternal, "storage: INSERT ... RETURNING seq gave no row"};
  m.seq = st.Int(0);
  D::MessageInserted(conn_, m.seq);
  return Status::Ok();
}

template <class D>
Result<bool> SqlQueries<D>::DoUpdateMessage(const Message& m) {
  static const std::string sql = kMessages.Update(std::string("row_version = ") + D::kNewRowVersion);
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindMessage(st, m);
  return RunChanged(st);
}

// ---- notes ----

template <class D>
Result<std::vector<Note>> SqlQueries<D>::ListNotes(const std::string& shopId, const std::string& conversationId) {
  static const std::string sql =
      kNotes.Select() + "WHERE shop_id = ?1 AND conversation_id = ?2 ORDER BY created_at, " + std::string(D::kRowOrder);
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(conversationId);
  return FetchAll<Note>(st, ReadNote);
}

template <class D>
Result<std::optional<Note>> SqlQueries<D>::GetNote(const std::string& shopId, const std::string& conversationId,
                                                   const std::string& noteId) {
  static const std::string sql = kNotes.Select() + "WHERE shop_id = ?1 AND id = ?2 AND conversation_id = ?3";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(noteId).Add(conversationId);
  return FetchOne<Note>(st, ReadNote);
}

template <class D>
Status SqlQueries<D>::InsertNote(const Note& n) {
  static const std::string sql = kNotes.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindNote(st, n);
  return st.Run();
}

template <class D>
Result<bool> SqlQueries<D>::UpdateNote(const Note& n) {
  static const std::string sql = kNotes.Update();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindNote(st, n);
  return RunChanged(st);
}

template <class D>
Result<bool> SqlQueries<D>::DeleteNote(const std::string& shopId, const std::string& conversationId,
                                       const std::string& noteId) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("DELETE FROM notes WHERE shop_id = ?1 AND id = ?2 AND conversation_id = ?3"));
  st.Add(shopId).Add(noteId).Add(conversationId);
  return RunChanged(st);
}

// ---- attributes ----

template <class D>
Result<std::vector<Attribute>> SqlQueries<D>::ListAttributes(const std::string& shopId,
                                                             const std::string& conversationId) {
  static const std::string sql =
      kAttributes.Select() + "WHERE shop_id = ?1 AND conversation_id = ?2 ORDER BY created_at, " + std::string(D::kRowOrder);
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(conversationId);
  return FetchAll<Attribute>(st, ReadAttribute);
}

template <class D>
Result<std::optional<Attribute>> SqlQueries<D>::GetAttribute(const std::string& shopId,
                                                             const std::string& conversationId,
                                                             const std::string& attributeId) {
  static const std::string sql = kAttributes.Select() + "WHERE shop_id = ?1 AND id = ?2 AND conversation_id = ?3";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(attributeId).Add(conversationId);
  return FetchOne<Attribute>(st, ReadAttribute);
}

template <class D>
Result<std::optional<Attribute>> SqlQueries<D>::FindAttributeByName(const std::string& shopId,
                                                                    const std::string& conversationId,
                                                                    const std::string& name) {
  // Names are not unique in the schema (a rename could collide); the oldest wins.
  static const std::string sql = kAttributes.Select() +
                                 "WHERE shop_id = ?1 AND conversation_id = ?2 AND name = ?3 "
                                 "ORDER BY created_at, " + std::string(D::kRowOrder) + " LIMIT 1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(conversationId).Add(name);
  return FetchOne<Attribute>(st, ReadAttribute);
}

template <class D>
Status SqlQueries<D>::InsertAttribute(const Attribute& a) {
  static const std::string sql = kAttributes.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindAttribute(st, a);
  return st.Run();
}

template <class D>
Result<bool> SqlQueries<D>::UpdateAttribute(const Attribute& a) {
  static const std::string sql = kAttributes.Update();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  BindAttribute(st, a);
  return RunChanged(st);
}

template <class D>
Result<bool> SqlQueries<D>::DeleteAttribute(const std::string& shopId, const std::string& conversationId,
                                            const std::string& attributeId) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("DELETE FROM attributes WHERE shop_id = ?1 AND id = ?2 AND conversation_id = ?3"));
  st.Add(shopId).Add(attributeId).Add(conversationId);
  return RunChanged(st);
}

// ---- browsed pages ----

template <class D>
Result<std::vector<BrowsedPage>> SqlQueries<D>::ListBrowsedPages(const std::string& shopId,
                                                                 const std::string& conversationId, Millis sinceMillis,
                                                                 int limit) {
  if (limit <= 0) return std::vector<BrowsedPage>();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT url, title, viewed_at FROM browsed_pages "
                                                  "WHERE shop_id = ?1 AND conversation_id = ?2 AND viewed_at >= ?3 "
                                                  "ORDER BY viewed_at DESC, seq DESC LIMIT ?4"));
  st.Add(shopId).Add(conversationId).Add(sinceMillis).Add(limit);
  return FetchAll<BrowsedPage>(st, ReadBrowsedPage);
}

template <class D>
Status SqlQueries<D>::InsertBrowsedPage(const std::string& shopId, const std::string& conversationId,
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

template <class D>
Result<std::optional<Summary>> SqlQueries<D>::GetSummary(const std::string& shopId, const std::string& conversationId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT conversation_id, text, summarizer, generated_at "
                                                  "FROM summaries WHERE shop_id = ?1 AND conversation_id = ?2"));
  st.Add(shopId).Add(conversationId);
  return FetchOne<Summary>(st, ReadSummary);
}

template <class D>
Status SqlQueries<D>::PutSummary(const std::string& shopId, const Summary& s) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("INSERT INTO summaries (shop_id, conversation_id, text, summarizer, generated_at) "
                                    "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (shop_id, conversation_id) DO UPDATE SET "
                                    "text = excluded.text, summarizer = excluded.summarizer, "
                                    "generated_at = excluded.generated_at"));
  st.Add(shopId).Add(s.conversationId).Add(s.text).Add(s.summarizer).Add(s.generatedAt);
  return st.Run();
}

template <class D>
Result<std::vector<TypingState>> SqlQueries<D>::ListTyping(const std::string& shopId,
                                                           const std::string& conversationId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT conversation_id, member_id, active, updated_at FROM typing "
                                                  "WHERE shop_id = ?1 AND conversation_id = ?2 ORDER BY member_id"));
  st.Add(shopId).Add(conversationId);
  return FetchAll<TypingState>(st, ReadTyping);
}

template <class D>
Status SqlQueries<D>::DoPutTyping(const std::string& shopId, const TypingState& t) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("INSERT INTO typing (shop_id, conversation_id, member_id, active, updated_at) "
                                    "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (shop_id, conversation_id, member_id) "
                                    "DO UPDATE SET active = excluded.active, updated_at = excluded.updated_at"));
  st.Add(shopId).Add(t.conversationId).Add(t.memberId).Add(t.active).Add(t.updatedAt);
  return st.Run();
}

// ---- sessions ----

template <class D>
Result<std::optional<AdminSession>> SqlQueries<D>::GetSession(const std::string& tokenHash) {
  static const std::string sql = kSessions.Select() + "WHERE token_hash = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(tokenHash);
  return FetchOne<AdminSession>(st, ReadSession);
}

template <class D>
Status SqlQueries<D>::InsertSession(const AdminSession& s) {
  static const std::string sql = kSessions.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(s.shopId).Add(s.memberId).Add(s.createdAt).Add(s.expiresAt).Add(s.tokenHash);
  return st.Run();
}

template <class D>
Status SqlQueries<D>::DeleteSession(const std::string& tokenHash) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM admin_sessions WHERE token_hash = ?1"));
  st.Add(tokenHash);
  return st.Run();
}

template <class D>
Result<std::int64_t> SqlQueries<D>::DeleteSessions(const std::string& shopId, const std::string& memberId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM admin_sessions WHERE shop_id = ?1 AND "
                                                  "(?2 = '' OR member_id = ?2)"));
  st.Add(shopId).Add(memberId);
  LC_RETURN_IF_ERROR(st.Run());
  return static_cast<std::int64_t>(conn_.Changes());
}

template <class D>
Result<bool> SqlQueries<D>::DeleteMember(const std::string& shopId, const std::string& memberId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM members WHERE shop_id = ?1 AND id = ?2"));
  st.Add(shopId).Add(memberId);
  return RunChanged(st);
}

// ---- events ----

template <class D>
Result<std::vector<Event>> SqlQueries<D>::ListEvents(const std::string& shopId, int limit) {
  if (limit <= 0) return std::vector<Event>();
  static const std::string sql = kEvents.Select() + "WHERE shop_id = ?1 ORDER BY seq LIMIT ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(limit);
  return FetchAll<Event>(st, ReadEvent);
}

template <class D>
Result<std::vector<Event>> SqlQueries<D>::ListEventsOfCustomer(const std::string& shopId,
                                                               const std::string& customerId) {
  // The backend's filter reads data_json.customerId, skipping most rows
  // before any JSON is parsed and reading a malformed row as no match.
  static const std::string sql =
      kEvents.Select() + "WHERE shop_id = ?1 AND " + std::string(D::kEventOfCustomer) + " ORDER BY seq";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(customerId);
  return FetchAll<Event>(st, ReadEvent);
}

template <class D>
Result<bool> SqlQueries<D>::UpdateEventData(const std::string& shopId, const std::string& eventId,
                                            const std::string& dataJson) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("UPDATE events SET data_json = ?3 WHERE shop_id = ?1 AND id = ?2"));
  st.Add(shopId).Add(eventId).Add(dataJson);
  return RunChanged(st);
}

template <class D>
Result<std::vector<Event>> SqlQueries<D>::ListEventsAfter(const std::string& shopId, std::int64_t afterSeq,
                                                          const std::vector<std::string>& types, int limit) {
  if (limit <= 0 || types.empty()) return std::vector<Event>();
  // One statement text per number of types (at most the nine names), each
  // walking events_shop (shop_id, seq) from the position.
  std::string sql = kEvents.Select() + "WHERE shop_id = ?1 AND seq > ?2 AND type IN (";
  for (std::size_t i = 0; i < types.size(); ++i) sql += (i ? ", ?" : "?") + std::to_string(i + 4);
  sql += ") ORDER BY seq LIMIT ?3";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(afterSeq).Add(limit);
  for (const auto& t : types) st.Add(t);
  return FetchAll<Event>(st, ReadEvent);
}

// events_shop (shop_id, seq): one index probe from the end.
template <class D>
Result<std::int64_t> SqlQueries<D>::GetLastEventSeq(const std::string& shopId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT coalesce(max(seq), 0) FROM events WHERE shop_id = ?1"));
  st.Add(shopId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Int(0) : std::int64_t{0};
}

template <class D>
Result<std::int64_t> SqlQueries<D>::GetEventsPrunedThrough() {
  return conn_.QueryInt("SELECT coalesce(max(pruned_through), 0) FROM event_feed");
}

template <class D>
Result<std::int64_t> SqlQueries<D>::PruneEvents(Millis before, int limit) {
  if (limit <= 0) return std::int64_t{0};
  // Oldest first by seq; an event a delivery still waits for is kept (the
  // dispatcher reads it) and skipped, so later events can still go.
  LC_ASSIGN_OR_RETURN(Statement pick, conn_.Prepare(
                                          "SELECT e.seq FROM events AS e WHERE e.occurred_at < ?1 AND NOT EXISTS "
                                          "(SELECT 1 FROM webhook_deliveries AS d WHERE d.event_id = e.id AND "
                                          "d.state = 'pending') ORDER BY e.seq LIMIT ?2"));
  pick.Add(before).Add(limit);
  std::vector<std::int64_t> seqs;
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, pick.Step());
    if (!row) break;
    seqs.push_back(pick.Int(0));
  }
  if (seqs.empty()) return std::int64_t{0};
  LC_ASSIGN_OR_RETURN(Statement del, conn_.Prepare("DELETE FROM events WHERE seq >= ?1 AND seq <= ?2 AND seq IN "
                                                   "(SELECT e.seq FROM events AS e WHERE e.occurred_at < ?3 AND "
                                                   "e.seq >= ?1 AND e.seq <= ?2 AND NOT EXISTS (SELECT 1 FROM "
                                                   "webhook_deliveries AS d WHERE d.event_id = e.id AND "
                                                   "d.state = 'pending'))"));
  del.Add(seqs.front()).Add(seqs.back()).Add(before);
  LC_RETURN_IF_ERROR(del.Run());
  const auto removed = static_cast<std::int64_t>(conn_.Changes());
  LC_ASSIGN_OR_RETURN(Statement mark, conn_.Prepare("UPDATE event_feed SET pruned_through = ?1 WHERE id = 1 AND "
                                                    "pruned_through < ?1"));
  mark.Add(seqs.back());
  LC_RETURN_IF_ERROR(mark.Run());
  return removed;
}

template <class D>
Status SqlQueries<D>::AppendEvent(const Event& e) {
  static const std::string sql = kEvents.Insert();
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(e.shopId).Add(e.type).Add(e.conversationId).Add(e.occurredAt).Add(e.dataJson).Add(e.id);
  // Nothing branches on it (its id is fresh): on PostgreSQL it rides with
  // the write's next statement that waits (pg_connection.h).
  return st.RunDeferred();
}

template <class D>
Result<std::vector<Customer>> SqlQueries<D>::ListCustomers(const CustomerQuery& q) {
  if (q.limit <= 0) return std::vector<Customer>();
  // Row-value comparisons on (created_at, id) walk customers_order as a keyset.
  // Named: a PostgreSQL statement must use every parameter it declares,
  // and the cursors are optional.
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

template <class D>
Result<std::int64_t> SqlQueries<D>::CountCustomers(const std::string& shopId) {
  // Maintained by triggers (migration 5): O(1) instead of a scan per request.
  static const std::string sql = "SELECT n FROM shop_customer_counts WHERE shop_id = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Int(0) : 0;
}

// The webhook tables: subscriptions, outbox deliveries and the attempt log.


namespace {

constexpr const char* kSubCols =
    "shop_id, id, url, events_json, is_active, secret, secret_hash, metadata_json, legacy, created_at, updated_at, "
    "last_delivery_at, last_delivery_status, last_delivery_status_code, last_delivery_error, signature_format, "
    "previous_secret, previous_secret_expires_at";
constexpr const char* kDeliveryCols =
    "id, shop_id, subscription_id, event_id, state, attempts, next_attempt_at, lease_until, last_attempt_at, created_at";
constexpr const char* kAttemptCols =
    "delivery_id, subscription_id, shop_id, event_id, event_type, attempt, at, status_code, error, duration_ms, outcome";

const auto ReadSub = [](const auto& st) -> Result<WebhookSubscription> {
  WebhookSubscription s;
  s.shopId = st.Text(0);
  s.id = st.Text(1);
  s.url = st.Text(2);
  LC_ASSIGN_OR_RETURN(s.events, DecodeStringArray(st.Text(3)));
  s.isActive = st.Bool(4);
  s.secret = st.Text(5);
  s.secretHash = st.Text(6);
  s.metadataJson = st.Text(7);
  s.legacy = st.Bool(8);
  s.createdAt = st.Int(9);
  s.updatedAt = st.Int(10);
  s.lastDeliveryAt = st.OptInt(11);
  s.lastDeliveryStatus = st.OptText(12);
  if (auto c = st.OptInt(13)) s.lastDeliveryStatusCode = static_cast<int>(*c);
  s.lastDeliveryError = st.OptText(14);
  s.signatureFormat = st.Text(15);
  s.previousSecret = st.OptText(16);
  s.previousSecretExpiresAt = st.OptInt(17);
  return s;
};

const auto ReadDelivery = [](const auto& st) -> Result<WebhookDelivery> {
  WebhookDelivery d;
  d.id = st.Text(0);
  d.shopId = st.Text(1);
  d.subscriptionId = st.Text(2);
  d.eventId = st.Text(3);
  d.state = st.Text(4);
  d.attempts = static_cast<int>(st.Int(5));
  d.nextAttemptAt = st.Int(6);
  d.leaseUntil = st.Int(7);
  d.lastAttemptAt = st.OptInt(8);
  d.createdAt = st.Int(9);
  return d;
};

const auto ReadAttempt = [](const auto& st) -> Result<DeliveryAttempt> {
  DeliveryAttempt a;
  a.deliveryId = st.Text(0);
  a.subscriptionId = st.Text(1);
  a.shopId = st.Text(2);
  a.eventId = st.Text(3);
  a.eventType = st.Text(4);
  a.attempt = static_cast<int>(st.Int(5));
  a.at = st.Int(6);
  if (auto c = st.OptInt(7)) a.statusCode = static_cast<int>(*c);
  a.error = st.OptText(8);
  a.durationMillis = st.Int(9);
  a.outcome = st.Text(10);
  return a;
};

std::string Sel(const char* cols, const char* table) { return std::string("SELECT ") + cols + " FROM " + table + " "; }

}  // namespace

template <class D>
Result<std::optional<Event>> SqlQueries<D>::GetEvent(const std::string& shopId, const std::string& eventId) {
  static const std::string sql =
      kEvents.Select() + "WHERE id = ?1 AND shop_id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(eventId).Add(shopId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<Event>();
  Event e;
  e.id = st.Text(0);
  e.shopId = st.Text(1);
  e.type = st.Text(2);
  e.conversationId = st.OptText(3);
  e.occurredAt = st.Int(4);
  e.dataJson = st.Text(5);
  return std::optional<Event>(std::move(e));
}

template <class D>
Result<std::vector<WebhookSubscription>> SqlQueries<D>::ListSubscriptions(const std::string& shopId) {
  static const std::string sql =
      Sel(kSubCols, "webhook_subscriptions") + "WHERE shop_id = ?1 ORDER BY created_at, id";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId);
  return FetchAll<WebhookSubscription>(st, ReadSub);
}

template <class D>
Result<std::optional<WebhookSubscription>> SqlQueries<D>::GetSubscription(const std::string& shopId,
                                                                          const std::string& subscriptionId) {
  static const std::string sql = Sel(kSubCols, "webhook_subscriptions") + "WHERE shop_id = ?1 AND id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(subscriptionId);
  return FetchOne<WebhookSubscription>(st, ReadSub);
}

template <class D>
Result<std::optional<WebhookSubscription>> SqlQueries<D>::FindSubscriptionByUrl(const std::string& shopId,
                                                                                const std::string& url) {
  static const std::string sql = Sel(kSubCols, "webhook_subscriptions") + "WHERE shop_id = ?1 AND url = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(url);
  return FetchOne<WebhookSubscription>(st, ReadSub);
}

template <class D>
Result<std::optional<WebhookSubscription>> SqlQueries<D>::FindSubscriptionBySecretHash(const std::string& secretHash) {
  static const std::string sql = Sel(kSubCols, "webhook_subscriptions") + "WHERE secret_hash = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(secretHash);
  return FetchOne<WebhookSubscription>(st, ReadSub);
}

template <class D>
Result<std::optional<WebhookDelivery>> SqlQueries<D>::GetDelivery(const std::string& shopId,
                                                                  const std::string& deliveryId) {
  static const std::string sql = Sel(kDeliveryCols, "webhook_deliveries") + "WHERE id = ?1 AND shop_id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(deliveryId).Add(shopId);
  return OnCallerClock(FetchOne<WebhookDelivery>(st, ReadDelivery));
}

template <class D>
Result<std::vector<WebhookDelivery>> SqlQueries<D>::ListDueDeliveries(Millis now, int limit) {
  if (limit <= 0) return std::vector<WebhookDelivery>();
  // The earliest due delivery of each subscription. One per subscription
  // keeps a slow endpoint's backlog from filling every sender; a
  // subscription with a delivery under a live lease (in flight somewhere)
  // lists nothing, so one delivery per subscription is in flight at a time,
  // across processes.
  //
  // Driven by the subscriptions, each probed through the partial indexes of
  // migration 4: the cost follows the number of subscriptions, not the size
  // of the backlog. "lease_until > 0" is spelled out so the leased index
  // applies.
  static const std::string sql =
      "SELECT d.id, d.shop_id, d.subscription_id, d.event_id, d.state, d.attempts, d.next_attempt_at, "
      "d.lease_until, d.last_attempt_at, d.created_at FROM webhook_subscriptions AS s "
      "JOIN webhook_deliveries AS d ON d.rid = (SELECT x.rid FROM webhook_deliveries AS x "
      "WHERE x.shop_id = s.shop_id AND x.subscription_id = s.id AND x.state = 'pending' "
      "ORDER BY x.next_attempt_at, x.rid LIMIT 1) "
      "WHERE d.next_attempt_at <= ?1 AND d.lease_until <= ?1 "
      "AND NOT EXISTS (SELECT 1 FROM webhook_deliveries AS y WHERE y.shop_id = s.shop_id "
      "AND y.subscription_id = s.id AND y.state = 'pending' AND y.lease_until > 0 AND y.lease_until > ?1) "
      "ORDER BY d.next_attempt_at, d.rid LIMIT ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(ToLease(now)).Add(limit);
  return OnCallerClock(FetchAll<WebhookDelivery>(st, ReadDelivery));
}

template <class D>
Result<std::vector<WebhookDelivery>> SqlQueries<D>::ListDeliveries(const std::string& shopId,
                                                                   const std::string& subscriptionId, int limit) {
  if (limit <= 0) return std::vector<WebhookDelivery>();
  static const std::string sql = Sel(kDeliveryCols, "webhook_deliveries") +
                                 "WHERE shop_id = ?1 AND subscription_id = ?2 ORDER BY rid DESC LIMIT ?3";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(subscriptionId).Add(limit);
  return OnCallerClock(FetchAll<WebhookDelivery>(st, ReadDelivery));
}

template <class D>
Result<std::vector<DeliveryAttempt>> SqlQueries<D>::ListAttempts(const std::string& shopId,
                                                                 const std::string& subscriptionId, int limit) {
  if (limit <= 0) return std::vector<DeliveryAttempt>();
  static const std::string sql = Sel(kAttemptCols, "webhook_attempts") +
                                 "WHERE shop_id = ?1 AND subscription_id = ?2 ORDER BY rid DESC LIMIT ?3";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(subscriptionId).Add(limit);
  return FetchAll<DeliveryAttempt>(st, ReadAttempt);
}

template <class D>
Result<StoreReader::OutboxStats> SqlQueries<D>::GetOutboxStats() {
  static const std::string sql =
      "SELECT COUNT(*), MIN(next_attempt_at) FROM webhook_deliveries WHERE state = 'pending'";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  OutboxStats s;
  if (row) {
    s.pending = st.Int(0);
    if (auto due = st.OptInt(1)) s.oldestDueAt = FromLease(*due);
  }
  return s;
}

template <class D>
Status SqlQueries<D>::InsertSubscription(const WebhookSubscription& s) {
  static const std::string sql = std::string("INSERT INTO webhook_subscriptions (") + kSubCols +
                                 ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(s.shopId).Add(s.id).Add(s.url).Add(EncodeStringArray(s.events)).Add(s.isActive).Add(s.secret)
      .Add(s.secretHash).Add(s.metadataJson).Add(s.legacy).Add(s.createdAt).Add(s.updatedAt).Add(s.lastDeliveryAt)
      .Add(s.lastDeliveryStatus).Add(s.lastDeliveryStatusCode).Add(s.lastDeliveryError).Add(s.signatureFormat)
      .Add(s.previousSecret).Add(s.previousSecretExpiresAt);
  return st.Run();
}

template <class D>
Result<bool> SqlQueries<D>::UpdateSubscription(const WebhookSubscription& s) {
  static const std::string sql =
      "UPDATE webhook_subscriptions SET url = ?3, events_json = ?4, is_active = ?5, metadata_json = ?6, "
      "updated_at = ?7, last_delivery_at = ?8, last_delivery_status = ?9, last_delivery_status_code = ?10, "
      "last_delivery_error = ?11, signature_format = ?12, secret = ?13, secret_hash = ?14, previous_secret = ?15, "
      "previous_secret_expires_at = ?16 WHERE shop_id = ?1 AND id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(s.shopId).Add(s.id).Add(s.url).Add(EncodeStringArray(s.events)).Add(s.isActive).Add(s.metadataJson)
      .Add(s.updatedAt).Add(s.lastDeliveryAt).Add(s.lastDeliveryStatus).Add(s.lastDeliveryStatusCode)
      .Add(s.lastDeliveryError).Add(s.signatureFormat).Add(s.secret).Add(s.secretHash).Add(s.previousSecret)
      .Add(s.previousSecretExpiresAt);
  return RunChanged(st);
}

template <class D>
Result<bool> SqlQueries<D>::DeleteSubscription(const std::string& shopId, const std::string& subscriptionId) {
  static const std::string sql = "DELETE FROM webhook_subscriptions WHERE shop_id = ?1 AND id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(subscriptionId);
  LC_ASSIGN_OR_RETURN(bool removed, RunChanged(st));
  if (!removed) return false;
  for (const char* child : {"DELETE FROM webhook_deliveries WHERE shop_id = ?1 AND subscription_id = ?2",
                            "DELETE FROM webhook_attempts WHERE shop_id = ?1 AND subscription_id = ?2"}) {
    LC_ASSIGN_OR_RETURN(Statement del, conn_.Prepare(child));
    del.Add(shopId).Add(subscriptionId);
    LC_RETURN_IF_ERROR(del.Run());
  }
  return true;
}

template <class D>
Status SqlQueries<D>::DoInsertDelivery(const WebhookDelivery& d) {
  static const std::string sql = std::string("INSERT INTO webhook_deliveries (") + kDeliveryCols +
                                 ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(d.id).Add(d.shopId).Add(d.subscriptionId).Add(d.eventId).Add(d.state).Add(d.attempts)
      .Add(ToLease(d.nextAttemptAt)).Add(ToLease(d.leaseUntil)).Add(d.lastAttemptAt).Add(d.createdAt);
  return st.RunDeferred();  // as AppendEvent's
}

template <class D>
Result<bool> SqlQueries<D>::UpdateDelivery(const WebhookDelivery& d) {
  static const std::string sql =
      "UPDATE webhook_deliveries SET state = ?3, attempts = ?4, next_attempt_at = ?5, lease_until = ?6, "
      "last_attempt_at = ?7 WHERE id = ?1 AND shop_id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(d.id).Add(d.shopId).Add(d.state).Add(d.attempts).Add(ToLease(d.nextAttemptAt)).Add(ToLease(d.leaseUntil))
      .Add(d.lastAttemptAt);
  return RunChanged(st);
}

template <class D>
Result<std::vector<WebhookDelivery>> SqlQueries<D>::ClaimDeliveries(const std::string& shopId,
                                                                    const std::string& subscriptionId, Millis now,
                                                                    Millis leaseUntil, int max) {
  std::vector<WebhookDelivery> run;
  if (max <= 0) return run;
  // Writes run one at a time on both backends (the one SQLite writer; the
  // PostgreSQL store's write lock), so nothing can change between the
  // select and the update below. The run is read through the pending index
  // of migration 4 in due order; its live-lease check seeks the leased one.
  static const std::string pick =
      std::string("SELECT ") + kDeliveryCols + ", rid FROM webhook_deliveries "
      "WHERE shop_id = ?1 AND subscription_id = ?2 AND state = 'pending' AND next_attempt_at <= ?3 "
      "AND lease_until <= ?3 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries AS y WHERE y.shop_id = ?1 "
      "AND y.subscription_id = ?2 AND y.state = 'pending' AND y.lease_until > 0 AND y.lease_until > ?3) "
      "ORDER BY next_attempt_at, rid LIMIT ?4";
  const Millis dbNow = ToLease(now);
  std::int64_t lastRid = 0;
  {
    LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(pick));
    st.Add(shopId).Add(subscriptionId).Add(dbNow).Add(max);
    run.reserve(static_cast<std::size_t>(std::min(max, 1000)));
    for (;;) {
      LC_ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      LC_ASSIGN_OR_RETURN(WebhookDelivery d, ReadDelivery(st));
      lastRid = st.Int(10);
      run.push_back(std::move(d));
    }
  }
  if (run.empty()) return run;
  // Exactly the rows selected: the due, unleased pending ones up to the last
  // in (next_attempt_at, rid) order.
  static const std::string lease =
      "UPDATE webhook_deliveries SET lease_until = ?5 WHERE shop_id = ?1 AND subscription_id = ?2 "
      "AND state = 'pending' AND next_attempt_at <= ?3 AND lease_until <= ?3 "
      "AND (next_attempt_at < ?4 OR (next_attempt_at = ?4 AND rid <= ?6))";
  LC_ASSIGN_OR_RETURN(Statement up, conn_.Prepare(lease));
  up.Add(shopId).Add(subscriptionId).Add(dbNow).Add(run.back().nextAttemptAt).Add(ToLease(leaseUntil)).Add(lastRid);
  LC_RETURN_IF_ERROR(up.Run());
  if (static_cast<std::size_t>(conn_.Changes()) != run.size())
    return MakeError(ErrorCode::kInternal, "claiming webhook deliveries leased a different number of rows");
  for (WebhookDelivery& d : run) {
    d.nextAttemptAt = FromLease(d.nextAttemptAt);
    d.leaseUntil = leaseUntil;
  }
  return run;
}

template <class D>
Result<std::int64_t> SqlQueries<D>::ReleaseDeliveries(const std::string& shopId,
                                                      const std::vector<std::string>& deliveryIds, Millis leaseUntil) {
  static const std::string sql =
      "UPDATE webhook_deliveries SET lease_until = 0 WHERE id = ?1 AND shop_id = ?2 AND state = 'pending' "
      "AND lease_until > 0 AND lease_until BETWEEN ?3 AND ?4";
  constexpr Millis kSlack = 1000;
  const Millis stored = ToLease(leaseUntil);
  std::int64_t released = 0;
  for (const std::string& id : deliveryIds) {
    LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
    st.Add(id).Add(shopId).Add(stored - kSlack).Add(stored + kSlack);
    LC_RETURN_IF_ERROR(st.Run());
    released += static_cast<std::int64_t>(conn_.Changes());
  }
  return released;
}

template <class D>
Result<std::int64_t> SqlQueries<D>::CancelPendingDeliveries(const std::string& shopId,
                                                            const std::string& subscriptionId) {
  static const std::string sql =
      "UPDATE webhook_deliveries SET state = 'cancelled', lease_until = 0 "
      "WHERE shop_id = ?1 AND subscription_id = ?2 AND state = 'pending'";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(subscriptionId);
  LC_RETURN_IF_ERROR(st.Run());
  return static_cast<std::int64_t>(conn_.Changes());
}

template <class D>
Status SqlQueries<D>::InsertAttempt(const DeliveryAttempt& a, int keep) {
  static const std::string sql = std::string("INSERT INTO webhook_attempts (") + kAttemptCols +
                                 ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(a.deliveryId).Add(a.subscriptionId).Add(a.shopId).Add(a.eventId).Add(a.eventType).Add(a.attempt).Add(a.at)
      .Add(a.statusCode).Add(a.error).Add(a.durationMillis).Add(a.outcome);
  LC_RETURN_IF_ERROR(st.Run());
  static const std::string prune =
      "DELETE FROM webhook_attempts WHERE shop_id = ?1 AND subscription_id = ?2 AND rid <= "
      "(SELECT rid FROM webhook_attempts WHERE shop_id = ?1 AND subscription_id = ?2 ORDER BY rid DESC "
      "LIMIT 1 OFFSET ?3)";
  LC_ASSIGN_OR_RETURN(Statement del, conn_.Prepare(prune));
  del.Add(a.shopId).Add(a.subscriptionId).Add(std::max(keep, 0));
  return del.Run();
}

// Privacy records (migration 8): channel integrations, the platform
// requests' audit trail, customer-data requests, and the deletes that
// redaction, uninstall and shop redact need.

namespace {

constexpr const char* kPlatformRequestSelect =
    "SELECT shop_id, id, topic, delivery_id, request_key, received_at, outcome, changes_json, message "
    "FROM platform_requests ";

const auto ReadPlatformRequest = [](const auto& st) -> PlatformRequest {
  PlatformRequest r;
  r.shopId = st.Text(0);
  r.id = st.Text(1);
  r.topic = st.Text(2);
  r.deliveryId = st.OptText(3);
  r.requestKey = st.Text(4);
  r.receivedAt = st.Int(5);
  r.outcome = st.Text(6);
  r.changesJson = st.Text(7);
  r.message = st.OptText(8);
  return r;
};

constexpr const char* kDataRequestSelect =
    "SELECT shop_id, id, customer_json, received_at, contacts, export_json FROM data_requests ";

const auto ReadDataRequest = [](const auto& st) -> DataRequest {
  DataRequest d;
  d.shopId = st.Text(0);
  d.id = st.Text(1);
  d.customerJson = st.Text(2);
  d.receivedAt = st.Int(3);
  d.contacts = st.Int(4);
  d.exportJson = st.Text(5);
  return d;
};

// For readers that cannot fail.
template <typename T, typename St, typename F>
Result<std::vector<T>> FetchPlain(St& st, F read) {
  std::vector<T> out;
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return out;
    out.push_back(read(st));
  }
}

}  // namespace

template <class D>
Result<std::vector<ChannelIntegration>> SqlQueries<D>::ListChannelIntegrations(const std::string& shopId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT shop_id, channel, connected, updated_at "
                                                  "FROM channel_integrations WHERE shop_id = ?1 ORDER BY channel"));
  st.Add(shopId);
  return FetchPlain<ChannelIntegration>(st, [](const auto& s) {
    return ChannelIntegration{s.Text(0), s.Text(1), s.Bool(2), s.Int(3)};
  });
}

template <class D>
Status SqlQueries<D>::PutChannelIntegration(const ChannelIntegration& i) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("INSERT INTO channel_integrations "
                                                  "(shop_id, channel, connected, updated_at) VALUES (?1, ?2, ?3, ?4) "
                                                  "ON CONFLICT (shop_id, channel) DO UPDATE SET "
                                                  "connected = excluded.connected, updated_at = excluded.updated_at"));
  st.Add(i.shopId).Add(i.channel).Add(i.connected).Add(i.updatedAt);
  return st.Run();
}

template <class D>
Result<std::optional<PlatformRequest>> SqlQueries<D>::FindPlatformRequest(const std::string& shopId,
                                                                          const std::string& requestKey) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(std::string(kPlatformRequestSelect) +
                                                  "WHERE shop_id = ?1 AND request_key = ?2 AND outcome = 'applied' "
                                                  "ORDER BY seq LIMIT 1"));
  st.Add(shopId).Add(requestKey);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<PlatformRequest>();
  return std::optional<PlatformRequest>(ReadPlatformRequest(st));
}

template <class D>
Result<std::vector<PlatformRequest>> SqlQueries<D>::ListPlatformRequests(const std::string& shopId, int limit) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(std::string(kPlatformRequestSelect) +
                                                  "WHERE shop_id = ?1 ORDER BY received_at DESC, seq DESC LIMIT ?2"));
  st.Add(shopId).Add(limit);
  return FetchPlain<PlatformRequest>(st, ReadPlatformRequest);
}

template <class D>
Status SqlQueries<D>::InsertPlatformRequest(const PlatformRequest& r) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("INSERT INTO platform_requests (shop_id, id, topic, delivery_id, request_key, "
                                    "received_at, outcome, changes_json, message) "
                                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  st.Add(r.shopId).Add(r.id).Add(r.topic).Add(r.deliveryId).Add(r.requestKey).Add(r.receivedAt).Add(r.outcome)
      .Add(r.changesJson).Add(r.message);
  return st.Run();
}

template <class D>
Result<std::optional<DataRequest>> SqlQueries<D>::GetDataRequest(const std::string& shopId, const std::string& id) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare(std::string(kDataRequestSelect) + "WHERE shop_id = ?1 AND id = ?2"));
  st.Add(shopId).Add(id);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<DataRequest>();
  return std::optional<DataRequest>(ReadDataRequest(st));
}

template <class D>
Result<std::vector<DataRequest>> SqlQueries<D>::ListDataRequests(const std::string& shopId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(std::string(kDataRequestSelect) +
                                                  "WHERE shop_id = ?1 ORDER BY received_at DESC, id"));
  st.Add(shopId);
  return FetchPlain<DataRequest>(st, ReadDataRequest);
}

template <class D>
Status SqlQueries<D>::InsertDataRequest(const DataRequest& d) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("INSERT INTO data_requests (shop_id, id, customer_json, "
                                                  "received_at, contacts, export_json) "
                                                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  st.Add(d.shopId).Add(d.id).Add(d.customerJson).Add(d.receivedAt).Add(d.contacts).Add(d.exportJson);
  return st.Run();
}

template <class D>
Result<bool> SqlQueries<D>::UpdateDataRequest(const DataRequest& d) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("UPDATE data_requests SET customer_json = ?3, contacts = ?4, "
                                                  "export_json = ?5 WHERE shop_id = ?1 AND id = ?2"));
  st.Add(d.shopId).Add(d.id).Add(d.customerJson).Add(d.contacts).Add(d.exportJson);
  return RunChanged(st);
}

template <class D>
Result<std::int64_t> SqlQueries<D>::DeleteBrowsedPages(const std::string& shopId, const std::string& conversationId) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("DELETE FROM browsed_pages WHERE shop_id = ?1 AND conversation_id = ?2"));
  st.Add(shopId).Add(conversationId);
  LC_RETURN_IF_ERROR(st.Run());
  return static_cast<std::int64_t>(conn_.Changes());
}

// Uploaded files' records (migration 9). The bytes are in the BlobStore.

namespace {

constexpr const char* kFileColumns =
    "SELECT shop_id, id, kind, name, size, content_type, sha256, created_at, conversation_id, message_id, "
    "uploader_type, uploader_id FROM files ";

const auto ReadFile = [](const auto& st) -> FileRecord {
  FileRecord f;
  f.shopId = st.Text(0);
  f.id = st.Text(1);
  f.kind = st.Text(2);
  f.name = st.Text(3);
  f.size = st.Int(4);
  f.contentType = st.Text(5);
  f.sha256 = st.Text(6);
  f.createdAt = st.Int(7);
  f.conversationId = st.OptText(8);
  f.messageId = st.OptText(9);
  f.uploaderType = st.Text(10);
  f.uploaderId = st.OptText(11);
  return f;
};

}  // namespace

template <class D>
Result<std::optional<FileRecord>> SqlQueries<D>::GetFile(const std::string& shopId, const std::string& fileId) {
  static const std::string sql = std::string(kFileColumns) + "WHERE shop_id = ?1 AND id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql.c_str()));
  st.Add(shopId).Add(fileId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<FileRecord>();
  return std::optional<FileRecord>(ReadFile(st));
}

template <class D>
Result<std::optional<FileRecord>> SqlQueries<D>::FindFileById(const std::string& fileId) {
  static const std::string sql = std::string(kFileColumns) + "WHERE id = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql.c_str()));
  st.Add(fileId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<FileRecord>();
  return std::optional<FileRecord>(ReadFile(st));
}

template <class D>
Result<std::vector<FileRecord>> SqlQueries<D>::ListFiles(const std::string& shopId, const std::string& kind) {
  static const std::string sql = std::string(kFileColumns) + "WHERE shop_id = ?1 AND kind = ?2 ORDER BY created_at, id";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql.c_str()));
  st.Add(shopId).Add(kind);
  std::vector<FileRecord> out;
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(ReadFile(st));
  }
  return out;
}

template <class D>
Status SqlQueries<D>::InsertFile(const FileRecord& f) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("INSERT INTO files (shop_id, id, kind, name, size, content_type, sha256, "
                                    "created_at, conversation_id, message_id, uploader_type, uploader_id) "
                                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"));
  st.Add(f.shopId).Add(f.id).Add(f.kind).Add(f.name).Add(f.size).Add(f.contentType).Add(f.sha256).Add(f.createdAt)
      .Add(f.conversationId).Add(f.messageId).Add(f.uploaderType).Add(f.uploaderId);
  return st.Run();
}

template <class D>
Result<bool> SqlQueries<D>::DeleteFile(const std::string& shopId, const std::string& fileId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM files WHERE shop_id = ?1 AND id = ?2"));
  st.Add(shopId).Add(fileId);
  return RunChanged(st);
}

template <class D>
Result<std::int64_t> SqlQueries<D>::DeleteFilesOfKind(const std::string& shopId, const std::string& kind) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM files WHERE shop_id = ?1 AND kind = ?2"));
  st.Add(shopId).Add(kind);
  LC_RETURN_IF_ERROR(st.Run());
  return static_cast<std::int64_t>(conn_.Changes());
}

// The storefront's visitor sessions (migration 6).

namespace {

const auto ReadVisitorSession = [](const auto& st) -> Result<VisitorSession> {
  VisitorSession s;
  s.shopId = st.Text(0);
  s.id = st.Text(1);
  s.tokenHash = st.Text(2);
  s.customerId = st.OptText(3);
  s.conversationId = st.OptText(4);
  s.stateJson = st.Text(5);
  s.createdAt = st.Int(6);
  s.lastSeenAt = st.Int(7);
  s.endedAt = st.OptInt(8);
  return s;
};

}  // namespace

template <class D>
Result<std::optional<VisitorSession>> SqlQueries<D>::FindVisitorSession(const std::string& tokenHash) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("SELECT shop_id, id, token_hash, customer_id, conversation_id, state_json, "
                                    "created_at, last_seen_at, ended_at FROM visitor_sessions WHERE token_hash = ?1"));
  st.Add(tokenHash);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<VisitorSession>();
  LC_ASSIGN_OR_RETURN(VisitorSession s, ReadVisitorSession(st));
  return std::optional<VisitorSession>(std::move(s));
}

template <class D>
Result<std::vector<VisitorSession>> SqlQueries<D>::ListVisitorSessionsOfCustomer(const std::string& shopId,
                                                                                 const std::string& customerId) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("SELECT shop_id, id, token_hash, customer_id, conversation_id, state_json, "
                                    "created_at, last_seen_at, ended_at FROM visitor_sessions "
                                    "WHERE shop_id = ?1 AND customer_id = ?2 ORDER BY created_at, id"));
  st.Add(shopId).Add(customerId);
  std::vector<VisitorSession> out;
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return out;
    LC_ASSIGN_OR_RETURN(VisitorSession s, ReadVisitorSession(st));
    out.push_back(std::move(s));
  }
}

template <class D>
Status SqlQueries<D>::InsertVisitorSession(const VisitorSession& s) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("INSERT INTO visitor_sessions (shop_id, id, token_hash, customer_id, "
                                    "conversation_id, state_json, created_at, last_seen_at, ended_at) "
                                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  st.Add(s.shopId).Add(s.id).Add(s.tokenHash).Add(s.customerId).Add(s.conversationId).Add(s.stateJson)
      .Add(s.createdAt).Add(s.lastSeenAt).Add(s.endedAt);
  return st.Run();
}

template <class D>
Result<bool> SqlQueries<D>::UpdateVisitorSession(const VisitorSession& s) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("UPDATE visitor_sessions SET customer_id = ?3, conversation_id = ?4, "
                                    "state_json = ?5, last_seen_at = ?6, ended_at = ?7 "
                                    "WHERE shop_id = ?1 AND id = ?2"));
  st.Add(s.shopId).Add(s.id).Add(s.customerId).Add(s.conversationId).Add(s.stateJson).Add(s.lastSeenAt)
      .Add(s.endedAt);
  return RunChanged(st);
}

// Summary jobs (migration 10): the queue between a resolve and its summary.

namespace {

constexpr const char* kJobCols =
    "shop_id, conversation_id, id, requested_at, attempts, next_attempt_at, lease_until";

const auto ReadJob = [](const auto& st) -> SummaryJob {
  SummaryJob j;
  j.shopId = st.Text(0);
  j.conversationId = st.Text(1);
  j.id = st.Text(2);
  j.requestedAt = st.Int(3);
  j.attempts = static_cast<int>(st.Int(4));
  j.nextAttemptAt = st.Int(5);
  j.leaseUntil = st.Int(6);
  return j;
};

}  // namespace

template <class D>
Result<std::optional<SummaryJob>> SqlQueries<D>::GetSummaryJob(const std::string& shopId,
                                                               const std::string& conversationId) {
  static const std::string sql =
      std::string("SELECT ") + kJobCols + " FROM summary_jobs WHERE shop_id = ?1 AND conversation_id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(conversationId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<SummaryJob>();
  SummaryJob j = ReadJob(st);
  OnCallerClock(j);
  return std::optional<SummaryJob>(std::move(j));
}

template <class D>
Result<std::vector<SummaryJob>> SqlQueries<D>::ListDueSummaryJobs(Millis now, int limit) {
  std::vector<SummaryJob> due;
  if (limit <= 0) return due;
  static const std::string sql = std::string("SELECT ") + kJobCols +
                                 " FROM summary_jobs WHERE next_attempt_at <= ?1 AND lease_until <= ?1 "
                                 "ORDER BY next_attempt_at, shop_id, conversation_id LIMIT ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(ToLease(now)).Add(limit);
  while (true) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return due;
    due.push_back(ReadJob(st));
    OnCallerClock(due.back());
  }
}

template <class D>
Result<StoreReader::SummaryQueueStats> SqlQueries<D>::GetSummaryQueueStats() {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT COUNT(*), MIN(next_attempt_at) FROM summary_jobs"));
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  SummaryQueueStats s;
  if (row) {
    s.pending = st.Int(0);
    if (auto due = st.OptInt(1)) s.oldestDueAt = FromLease(*due);
  }
  return s;
}

template <class D>
Status SqlQueries<D>::PutSummaryJob(const SummaryJob& j) {
  static const std::string sql =
      std::string("INSERT INTO summary_jobs (") + kJobCols +
      ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (shop_id, conversation_id) DO UPDATE SET "
      "id = excluded.id, requested_at = excluded.requested_at, attempts = excluded.attempts, "
      "next_attempt_at = excluded.next_attempt_at, lease_until = excluded.lease_until";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(j.shopId).Add(j.conversationId).Add(j.id).Add(j.requestedAt).Add(j.attempts)
      .Add(ToLease(j.nextAttemptAt)).Add(ToLease(j.leaseUntil));
  return st.Run();
}

template <class D>
Result<bool> SqlQueries<D>::ClaimSummaryJob(const std::string& shopId, const std::string& conversationId,
                                            const std::string& jobId, Millis now, Millis leaseUntil) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("UPDATE summary_jobs SET lease_until = ?5 WHERE shop_id = ?1 AND "
                                    "conversation_id = ?2 AND id = ?3 AND next_attempt_at <= ?4 AND lease_until <= ?4"));
  st.Add(shopId).Add(conversationId).Add(jobId).Add(ToLease(now)).Add(ToLease(leaseUntil));
  return RunChanged(st);
}

template <class D>
Result<bool> SqlQueries<D>::DeleteSummaryJob(const std::string& shopId, const std::string& conversationId,
                                             const std::string& jobId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM summary_jobs WHERE shop_id = ?1 AND "
                                                  "conversation_id = ?2 AND (?3 = '' OR id = ?3)"));
  st.Add(shopId).Add(conversationId).Add(jobId);
  return RunChanged(st);
}

// ---- Idempotency-Key records ----

namespace {

constexpr const char* kIdemCols =
    "shop_id, scope, key, fingerprint, done, status, content_type, body, created_at, lease_until, expires_at";

const auto ReadIdem = [](const auto& st) -> Result<IdempotencyRecord> {
  IdempotencyRecord r;
  r.shopId = st.Text(0);
  r.scope = st.Text(1);
  r.key = st.Text(2);
  r.fingerprint = st.Text(3);
  r.done = st.Bool(4);
  r.status = static_cast<int>(st.Int(5));
  r.contentType = st.Text(6);
  r.body = st.Text(7);
  r.createdAt = st.Int(8);
  r.leaseUntil = st.Int(9);
  r.expiresAt = st.Int(10);
  return r;
};

}  // namespace

template <class D>
Result<std::optional<IdempotencyRecord>> SqlQueries<D>::GetIdempotencyRecord(const std::string& shopId,
                                                                             const std::string& scope,
                                                                             const std::string& key) {
  static const std::string sql =
      Sel(kIdemCols, "idempotency_keys") + "WHERE shop_id = ?1 AND scope = ?2 AND key = ?3";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(scope).Add(key);
  return OnCallerClock(FetchOne<IdempotencyRecord>(st, ReadIdem));
}

template <class D>
Status SqlQueries<D>::PutIdempotencyRecord(const IdempotencyRecord& r) {
  static const std::string sql =
      std::string("INSERT INTO idempotency_keys (") + kIdemCols +
      ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT (shop_id, scope, key) DO UPDATE SET "
      "fingerprint = excluded.fingerprint, done = excluded.done, status = excluded.status, "
      "content_type = excluded.content_type, body = excluded.body, created_at = excluded.created_at, "
      "lease_until = excluded.lease_until, expires_at = excluded.expires_at";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(r.shopId).Add(r.scope).Add(r.key).Add(r.fingerprint).Add(r.done).Add(r.status).Add(r.contentType)
      .Add(r.body).Add(r.createdAt).Add(ToLease(r.leaseUntil)).Add(ToLease(r.expiresAt));
  return st.Run();
}

template <class D>
Result<bool> SqlQueries<D>::DeleteIdempotencyRecord(const std::string& shopId, const std::string& scope,
                                                    const std::string& key) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM idempotency_keys WHERE shop_id = ?1 AND scope = ?2 "
                                                  "AND key = ?3"));
  st.Add(shopId).Add(scope).Add(key);
  return RunChanged(st);
}

template <class D>
Result<std::int64_t> SqlQueries<D>::PurgeIdempotencyRecords(Millis now, int limit) {
  // The oldest expired first, through the expires_at index; bounded, so a
  // backlog is worked off a little per request instead of stalling one.
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(
                                        "DELETE FROM idempotency_keys WHERE (shop_id, scope, key) IN (SELECT shop_id, "
                                        "scope, key FROM idempotency_keys WHERE expires_at <= ?1 ORDER BY expires_at "
                                        "LIMIT ?2)"));
  st.Add(ToLease(now)).Add(limit);
  LC_RETURN_IF_ERROR(st.Run());
  return static_cast<std::int64_t>(conn_.Changes());
}

// ---- store knowledge: items, keys and documents (the full-text search is
// each backend's own: SqlQueries::Search) ----

namespace {

constexpr const char* kItemCols = "shop_id, kind, id, parent_id, title, body, data_json, updated_at";

const auto ReadItem = [](const auto& st, int i = 0) -> CatalogItem {
  CatalogItem it;
  it.shopId = st.Text(i + 0);
  it.kind = st.Text(i + 1);
  it.id = st.Text(i + 2);
  it.parentId = st.Text(i + 3);
  it.title = st.Text(i + 4);
  it.body = st.Text(i + 5);
  it.dataJson = st.Text(i + 6);
  it.updatedAt = st.Int(i + 7);
  return it;
};

}  // namespace

template <class D>
Result<std::optional<CatalogItem>> SqlQueries<D>::GetCatalogItem(const std::string& shopId, const std::string& kind,
                                                                 const std::string& id) {
  static const std::string sql =
      std::string("SELECT ") + kItemCols + " FROM catalog_items WHERE shop_id = ?1 AND kind = ?2 AND id = ?3";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(kind).Add(id);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<CatalogItem>();
  return std::optional<CatalogItem>(ReadItem(st));
}

template <class D>
Result<std::optional<CatalogItem>> SqlQueries<D>::FindCatalogItemByKey(const std::string& shopId,
                                                                       const std::string& kind,
                                                                       const std::string& key) {
  static const std::string sql =
      "SELECT i.shop_id, i.kind, i.id, i.parent_id, i.title, i.body, i.data_json, i.updated_at "
      "FROM catalog_keys k JOIN catalog_items i ON i.shop_id = k.shop_id AND i.kind = k.kind AND i.id = k.item_id "
      "WHERE k.shop_id = ?1 AND k.kind = ?2 AND k.key = ?3";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(kind).Add(key);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<CatalogItem>();
  return std::optional<CatalogItem>(ReadItem(st));
}

template <class D>
Result<std::vector<CatalogItem>> SqlQueries<D>::ListCatalogItems(const std::string& shopId, const std::string& kind,
                                                                 const std::string& parentId,
                                                                 const std::string& afterId, int limit) {
  // Two statements so each uses its index: (shop, kind, id) or
  // (shop, kind, parent, id).
  static const std::string all = std::string("SELECT ") + kItemCols +
                                 " FROM catalog_items WHERE shop_id = ?1 AND kind = ?2 AND id > ?3 "
                                 "ORDER BY id LIMIT ?4";
  static const std::string children = std::string("SELECT ") + kItemCols +
                                      " FROM catalog_items WHERE shop_id = ?1 AND kind = ?2 AND parent_id = ?5 "
                                      "AND id > ?3 ORDER BY id LIMIT ?4";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(parentId.empty() ? all : children));
  st.Add(shopId).Add(kind).Add(afterId).Add(limit);
  if (!parentId.empty()) st.Add(parentId);
  std::vector<CatalogItem> out;
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(ReadItem(st));
  }
  return out;
}

template <class D>
Result<bool> SqlQueries<D>::DeleteCatalogItem(const std::string& shopId, const std::string& kind,
                                              const std::string& id) {
  static const std::string sel = "SELECT " + std::string(D::kRowOrder) +
                                 " FROM catalog_items WHERE shop_id = ?1 AND kind = ?2 AND id = ?3";
  std::int64_t rowid = 0;
  {
    // Scoped: statements are cached per connection, and the recursion below
    // reuses this one.
    LC_ASSIGN_OR_RETURN(Statement s, conn_.Prepare(sel));
    s.Add(shopId).Add(kind).Add(id);
    LC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return false;
    rowid = s.Int(0);
  }
  static const std::string kids =
      "SELECT kind, id FROM catalog_items WHERE shop_id = ?1 AND parent_id = ?2 AND kind <> ?3";
  std::vector<std::pair<std::string, std::string>> children;
  {
    LC_ASSIGN_OR_RETURN(Statement k, conn_.Prepare(kids));
    k.Add(shopId).Add(id).Add(kind);
    for (;;) {
      LC_ASSIGN_OR_RETURN(bool r, k.Step());
      if (!r) break;
      children.emplace_back(k.Text(0), k.Text(1));
    }
  }
  for (const auto& [ck, cid] : children) {
    LC_ASSIGN_OR_RETURN(bool gone, DeleteCatalogItem(shopId, ck, cid));
    (void)gone;
  }
  if (*D::kDeleteCatalogText != '\0') {
    LC_ASSIGN_OR_RETURN(Statement d, conn_.Prepare(D::kDeleteCatalogText));
    d.Add(rowid);
    LC_RETURN_IF_ERROR(d.Run());
  }
  static const std::string delKeys = "DELETE FROM catalog_keys WHERE shop_id = ?1 AND kind = ?2 AND item_id = ?3";
  LC_ASSIGN_OR_RETURN(Statement dk, conn_.Prepare(delKeys));
  dk.Add(shopId).Add(kind).Add(id);
  LC_RETURN_IF_ERROR(dk.Run());
  static const std::string delItem =
      "DELETE FROM catalog_items WHERE " + std::string(D::kRowOrder) + " = ?1";
  LC_ASSIGN_OR_RETURN(Statement di, conn_.Prepare(delItem));
  di.Add(rowid);
  LC_RETURN_IF_ERROR(di.Run());
  return true;
}

template <class D>
Result<std::vector<CatalogHit>> SqlQueries<D>::SearchCatalog(const std::string& shopId, const std::string& kind,
                                                             const std::vector<std::string>& terms, int limit) {
  return Search(shopId, kind, "", terms, limit);
}

template <class D>
Result<std::vector<CatalogHit>> SqlQueries<D>::SearchCatalogChildren(const std::string& shopId, const std::string& kind,
                                                                     const std::string& parentId,
                                                                     const std::vector<std::string>& terms, int limit) {
  if (parentId.empty()) return std::vector<CatalogHit>();
  return Search(shopId, kind, parentId, terms, limit);
}

template <class D>
Result<std::int64_t> SqlQueries<D>::CountCatalogItems(const std::string& shopId, const std::string& kind) {
  static const std::string sql = "SELECT COUNT(*) FROM catalog_items WHERE shop_id = ?1 AND kind = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(kind);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Int(0) : 0;
}

template <class D>
Result<std::optional<std::string>> SqlQueries<D>::GetShopDocument(const std::string& shopId,
                                                                  const std::string& name) {
  static const std::string sql = "SELECT json FROM shop_documents WHERE shop_id = ?1 AND name = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(name);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(st.Text(0));
}

template <class D>
Status SqlQueries<D>::PutShopDocument(const std::string& shopId, const std::string& name, const std::string& json) {
  static const std::string sql =
      "INSERT INTO shop_documents (shop_id, name, json) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (shop_id, name) DO UPDATE SET json = excluded.json";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(name).Add(json);
  return st.Run();
}

}  // namespace livechat::storage
