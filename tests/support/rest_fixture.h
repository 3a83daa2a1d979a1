// In-process REST fixture: a real SQLite store at ":memory:", a ManualClock,
// a seeded Random, a ChatService and the RestApi in front of it, with one
// store, one active agent and one key carrying every permission.
//
// Header-only on purpose: every .cc under tests/support/ is compiled into
// every suite, and only test_rest links livechat::rest.
#pragma once

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "livechat/chat_service.h"
#include "livechat/clock.h"
#include "livechat/random.h"
#include "livechat/rest.h"
#include "livechat/sqlite_store.h"
#include "support/exchange_recorder.h"
#include "support/test_store.h"

namespace livechat::testing {

constexpr std::uint32_t kAllRestPerms = kPermReadConversations | kPermManageConversations | kPermReadCustomers;

// Rate limits out of the way for tests that are not about them.
inline Limits RelaxedLimits() {
  Limits l;
  l.rateLimitPerKey = 1'000'000;
  l.rateLimitPerIp = 1'000'000;
  return l;
}

// ---- JSON access that fails the test instead of tripping RapidJSON asserts ----

inline rapidjson::Document ParseJson(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.data(), text.size());
  REQUIRE_MESSAGE(!d.HasParseError(), "response is not JSON: " << text);
  return d;
}

inline const rapidjson::Value& At(const rapidjson::Value& v, const char* key) {
  REQUIRE_MESSAGE(v.IsObject(), "not an object while looking for " << key);
  auto it = v.FindMember(key);
  REQUIRE_MESSAGE(it != v.MemberEnd(), "missing key " << key);
  return it->value;
}

// `int`, not size_t: a literal 0 must not be ambiguous with the key overload.
inline const rapidjson::Value& At(const rapidjson::Value& v, int i) {
  REQUIRE(v.IsArray());
  REQUIRE(i >= 0);
  REQUIRE(static_cast<rapidjson::SizeType>(i) < v.Size());
  return v[static_cast<rapidjson::SizeType>(i)];
}

inline std::string Str(const rapidjson::Value& v) {
  REQUIRE(v.IsString());
  return std::string(v.GetString(), v.GetStringLength());
}

inline std::set<std::string> KeySet(const rapidjson::Value& v) {
  REQUIRE(v.IsObject());
  std::set<std::string> out;
  for (const auto& m : v.GetObject()) out.emplace(m.name.GetString(), m.name.GetStringLength());
  return out;
}

inline std::vector<std::string> StrList(const rapidjson::Value& v) {
  REQUIRE(v.IsArray());
  std::vector<std::string> out;
  for (const auto& e : v.GetArray()) out.push_back(Str(e));
  return out;
}

// Values of `key` of every object of an array.
inline std::vector<std::string> Column(const rapidjson::Value& arr, const char* key) {
  REQUIRE(arr.IsArray());
  std::vector<std::string> out;
  for (const auto& e : arr.GetArray()) out.push_back(Str(At(e, key)));
  return out;
}

// Runs a streamed response's producer (HttpResponse::stream) as a host
// would, appending what it writes to `resp.body`, until `enough(body)` says
// so (that Write fails, as when the client goes) or the producer returns.
inline void ConsumeStream(HttpResponse& resp, const std::function<bool(const std::string&)>& enough) {
  struct Sink final : StreamSink {
    std::string& body;
    const std::function<bool(const std::string&)>& enough;
    bool done = false;
    Sink(std::string& b, const std::function<bool(const std::string&)>& e) : body(b), enough(e) {}
    bool Write(std::string_view bytes) override {
      if (done) return false;
      body.append(bytes);
      done = enough(body);
      return !done;
    }
  } sink(resp.body, enough);
  auto produce = std::move(resp.stream);
  resp.stream = nullptr;
  produce(sink);
}

// A streamed response read until it is idle: its first heartbeat comes once
// every event so far was written.
inline bool UntilHeartbeat(const std::string& body) { return body.find("\n: heartbeat\n") != std::string::npos; }

// A parsed response: status, headers and the JSON body (a stream's text in
// raw.body, no JSON).
struct Reply {
  HttpResponse raw;
  rapidjson::Document json;

  int status() const { return raw.status; }
  const rapidjson::Value& data() const { return At(json, "data"); }
  std::string code() const { return Str(At(At(json, "error"), "code")); }
  std::string message() const { return Str(At(At(json, "error"), "message")); }
  std::string header(const char* name) const { return raw.Header(name).value_or("<absent>"); }
};

inline const std::vector<std::string> kConversationListKeys = {
    "id", "firestoreId", "pgConvoId", "shopId", "sessionId", "customerUuid", "customerName",
    "customerEmail", "customerType", "status", "isChatBot", "hasChatBot", "isRead", "isCustomerRead",
    "isOnline", "isBlock", "isStarred", "hasFirstMsg", "hidePreChatMessage", "memberId", "channels",
    "tags", "messageCount", "lastMessage", "lastActive", "createdAt", "updatedAt",
    "isRedacted"};  // beyond the spec's table: the redaction label (docs/decisions.md)
inline const std::vector<std::string> kConversationDetailOnlyKeys = {"customerPhone", "memberName", "teamId",
                                                                     "unreadCount"};
inline const std::vector<std::string> kMessageListKeys = {
    "id", "text", "senderName", "senderType", "memberId", "isAdmin", "isAutomated", "isBot", "isNote", "isFirst",
    "isTransfer", "isQuickReplyMsg", "isAskBotMessage", "topic", "chatbotProducts", "chatbotFaqs", "files",
    "replyMessage", "createdAt"};
inline const std::vector<std::string> kCustomerKeys = {
    "id", "shopifyId", "name", "firstName", "lastName", "email", "phone", "type", "channels", "tags",
    "note", "customAttributes", "address1", "address2", "city", "zip", "country", "countryCode",
    "ordersCount", "totalSpent", "ipAddress", "ipLocation", "browser", "browserVersion", "os", "deviceType",
    "senderSeq", "lastChatAt", "createdAt", "updatedAt", "isRedacted"};
inline const std::vector<std::string> kMemberKeys = {"id", "email", "firstName", "lastName", "fullName",
                                                     "avatarUrl", "role", "active", "enableAwayMode", "createdAt"};
inline const std::vector<std::string> kNoteKeys = {"id", "text", "isUpdated", "createdAt", "updatedAt"};
inline const std::vector<std::string> kAttributeKeys = {"id", "name", "value", "createdAt", "updatedAt"};

inline std::set<std::string> Keys(std::vector<std::string> a, const std::vector<std::string>& b = {}) {
  a.insert(a.end(), b.begin(), b.end());
  return std::set<std::string>(a.begin(), a.end());
}

class RestFixture {
 public:
  // `blobs`: where uploads go (null: uploads are refused); not owned.
  explicit RestFixture(Limits limits = RelaxedLimits(), RestOptions options = {}, Resolver* resolver = nullptr,
                       BlobStore* blobs = nullptr)
      : RestFixture(OpenStore(), limits, std::move(options), resolver, blobs) {}
  // On a store the test opened itself (e.g. a SQLite file with a size cap).
  RestFixture(std::unique_ptr<Store> store, Limits limits, RestOptions options = {}, Resolver* resolver = nullptr,
              BlobStore* blobs = nullptr)
      : random_(NewSeededRandom(7)), store_(std::move(store)) {
    ServiceOptions so;
    so.store = store_.get();
    so.clock = &clock;
    so.random = random_.get();
    so.limits = limits;
    so.resolver = resolver;
    so.blobs = blobs;
    so.fileUrlSecret = "rest-fixture-file-secret";
    service_ = std::make_unique<ChatService>(so);
    // Sends answer later, as in livechatd; Send waits (AwaitReply).
    options.answerSendsLater = true;
    api_ = std::make_unique<RestApi>(*service_, std::move(options));

    shop = NewShop("Main store");
    sys = Principal::System(shop.id);
    key = NewKey(kAllRestPerms);
    CreateMemberInput mi;
    mi.email = "agent@example.com";
    mi.firstName = "Ada";
    mi.lastName = "Agent";
    mi.password = std::string("correct horse battery");
    agent = Must(service_->directory().CreateMember(sys, mi));
  }

  static std::unique_ptr<Store> OpenStore() {
    auto opened = testing::OpenTestStore();
    REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
    return std::move(opened).value();
  }

  ChatService& service() { return *service_; }
  Store& store() { return *store_; }
  RestApi& api() { return *api_; }

  template <typename T>
  static T Must(Result<T> r) {
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    return std::move(r).value();
  }
  static void Must(Status s) { REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message)); }

  Shop NewShop(const std::string& name, bool autoAssign = false) {
    return Must(service_->directory().CreateShop(CreateShopInput{name, Plan::kPro, autoAssign}));
  }
  // The full sk_ value of a new key of `shopId` (default: the main store).
  std::string NewKey(std::uint32_t permissions, bool legacy = false, std::string shopId = "") {
    CreateKeyInput in;
    in.name = "key " + std::to_string(++keys_);
    in.permissions = permissions;
    in.legacy = legacy;
    return Must(service_->directory().CreateApiKey(Principal::System(shopId.empty() ? shop.id : shopId), in)).secret;
  }
  // Revokes the key whose sk_ value is `secret`.
  void RevokeKey(const std::string& secret, const std::string& shopId = "") {
    const Principal p = Principal::System(shopId.empty() ? shop.id : shopId);
    for (const auto& k : Must(service_->directory().ListApiKeys(p)))
      if (!k.revokedAt && secret.rfind(k.prefix, 0) == 0 && service_->auth().AuthenticateApiKey(secret).ok()) {
        Must(service_->directory().DeleteApiKey(p, k.id));
        if (!service_->auth().AuthenticateApiKey(secret).ok()) return;
      }
    FAIL("no active key matches");
  }
  Member NewMember(const std::string& email, bool active = true) {
    CreateMemberInput mi;
    mi.email = email;
    mi.active = active;
    return Must(service_->directory().CreateMember(sys, mi));
  }

  Conversation Inbound(InboundMessageInput in, const std::string& shopId = "") {
    return Must(service_->conversations().ReceiveInbound(Principal::System(shopId.empty() ? shop.id : shopId), in));
  }
  Conversation Inbound(const std::string& text) {
    InboundMessageInput in;
    in.text = text;
    return Inbound(in);
  }
  Conversation InboundFrom(const std::string& email, const std::string& text, const std::string& channel = "online_store") {
    InboundMessageInput in;
    in.channel = channel;
    in.customerEmail = email;
    in.customerName = "Cust " + email.substr(0, email.find('@'));
    in.text = text;
    return Inbound(in);
  }

  // Reads a conversation straight from the service (no REST).
  Conversation Load(const std::string& id) { return Must(service_->conversations().GetConversation(sys, id)).conversation; }
  std::int64_t MessageCount(const std::string& conversationId) {
    MessageQuery q;
    q.shopId = shop.id;
    q.conversationId = Load(conversationId).id;
    q.includeDeleted = true;
    q.limit = 100000;
    std::size_t n = 0;
    Must(store_->Read([&](StoreReader& r) -> Status {
      auto rows = r.ListMessages(q);
      if (!rows.ok()) return rows.take_error();
      n = rows->size();
      return Status::Ok();
    }));
    return static_cast<std::int64_t>(n);
  }

  // ---- HTTP ----
  HttpRequest Request(const std::string& method, const std::string& target, const std::string& body = "") const {
    HttpRequest req;
    req.method = method;
    req.target = target;
    req.body = body;
    req.peerIp = "203.0.113.7";
    req.headers.emplace_back("x-api-key", key);
    if (!body.empty()) req.headers.emplace_back("content-type", "application/json");
    return req;
  }
  // A streamed answer is read until UntilHeartbeat, or `enough`.
  Reply Send(const HttpRequest& req, const std::function<bool(const std::string&)>& enough = UntilHeartbeat) {
    Reply r;
    r.raw = AwaitReply(api_->Handle(req));  // a send answers later (HttpResponse::deferred)
    const bool streamed = static_cast<bool>(r.raw.stream);
    if (streamed) ConsumeStream(r.raw, enough);
    RecordExchange(req, r.raw);
    if (!streamed) r.json = ParseJson(r.raw.body);
    return r;
  }
  Reply Call(const std::string& method, const std::string& target, const std::string& body = "") {
    return Send(Request(method, target, body));
  }
  Reply Get(const std::string& target) { return Call("GET", target); }
  Reply Post(const std::string& target, const std::string& body) { return Call("POST", target, body); }
  Reply Put(const std::string& target, const std::string& body) { return Call("PUT", target, body); }
  Reply Delete(const std::string& target) { return Call("DELETE", target); }
  Reply GetWithKey(const std::string& target, const std::string& apiKey) {
    HttpRequest req = Request("GET", target);
    req.headers = {{"x-api-key", apiKey}};
    return Send(req);
  }

  ManualClock clock;
  Shop shop;
  Principal sys;
  std::string key;
  Member agent;

 private:
  std::unique_ptr<Random> random_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<ChatService> service_;
  std::unique_ptr<RestApi> api_;
  int keys_ = 0;
};

// A JSON string literal for building request bodies.
inline std::string JsonStr(const std::string& s) {
  std::string out;
  AppendJsonString(out, s);
  return out;
}

inline std::string Repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace livechat::testing
