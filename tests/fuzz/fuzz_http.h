// What the HTTP fuzz targets share: a service on a private in-memory SQLite
// store with one shop, an agent, a key with every REST permission, a visitor
// session and a conversation, built once per process; and the reading of a
// fuzz input as an HTTP request.
//
// Input format (the seeds in tests/fuzz/corpus/<target>/ are written in it):
//   METHOD TARGET\n
//   name: value\n        (zero or more headers; names are lowercased)
//   \n
//   body                 (the rest, bytes as they are)
// $KEY, $APP, $SHOP, $TOKEN, $CONV and $CUST anywhere in the target, the
// headers or the body become the setup's key, App ID, shop id, visitor token,
// conversation id and customer id, so a seed reaches past authentication and
// lookups. A target's default credential headers are added unless the input
// names them itself.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <rapidjson/document.h>

#include "livechat/blob_store.h"
#include "livechat/chat_service.h"
#include "livechat/clock.h"
#include "livechat/http.h"
#include "livechat/model.h"
#include "livechat/random.h"
#include "livechat/sqlite_store.h"

namespace livechat::fuzz {

struct World {
  std::unique_ptr<Store> store;
  std::unique_ptr<BlobStore> blobs;
  ManualClock clock;
  std::unique_ptr<Random> random = NewSeededRandom(11);
  std::unique_ptr<ChatService> service;
  Shop shop;
  std::string key, token, conversationId, customerId;

  World() {
    store = Must(OpenSqliteStore(SqliteOptions{":memory:", 1, 5000}));
    // Uploaded bytes go to a directory of this process's own under /tmp
    // (one per process: a target may build its World again).
    static const std::string dir = [] {
      char d[] = "/tmp/livechat-fuzz-XXXXXX";
      if (!mkdtemp(d)) std::abort();
      return std::string(d);
    }();
    blobs = Must(OpenLocalDirBlobStore(dir));
    ServiceOptions so;
    so.store = store.get();
    so.clock = &clock;
    so.random = random.get();
    so.blobs = blobs.get();
    so.fileUrlSecret = "fuzz-file-secret";
    service = std::make_unique<ChatService>(so);
    shop = Must(service->directory().CreateShop(CreateShopInput{"Fuzz store", Plan::kPro, false}));
    const Principal sys = Principal::System(shop.id);
    CreateKeyInput k;
    k.name = "fuzz";
    k.permissions = kPermAll;
    key = Must(service->directory().CreateApiKey(sys, k)).secret;
    CreateMemberInput m;
    m.email = "agent@example.com";
    m.password = std::string("correct horse battery");
    Must(service->directory().CreateMember(sys, m));
    InboundMessageInput in;
    in.channel = "online_store";
    in.customerEmail = std::string("shopper@example.com");
    in.customerName = std::string("Shopper");
    in.text = "hello";
    Conversation c = Must(service->conversations().ReceiveInbound(sys, in));
    conversationId = c.id;
    customerId = c.customerUuid.value_or("");
    token = Must(service->storefront().StartVisitorSession(shop.appId, "203.0.113.7")).token;
  }

  template <typename T>
  static T Must(Result<T> r) {
    if (!r.ok()) std::abort();
    return std::move(r).value();
  }

  std::string Expand(std::string s) const {
    const std::pair<std::string_view, const std::string*> names[] = {
        {"$KEY", &key},     {"$APP", &shop.appId},          {"$SHOP", &shop.id},
        {"$TOKEN", &token}, {"$CONV", &conversationId}, {"$CUST", &customerId}};
    for (const auto& [name, value] : names) {
      for (std::size_t at = s.find(name); at != std::string::npos; at = s.find(name, at + value->size()))
        s.replace(at, name.size(), *value);
    }
    return s;
  }
};

// The request an input stands for; `defaults` are headers added when the
// input does not carry one of that name.
inline HttpRequest ReadRequest(const World& w, std::string_view input,
                               std::initializer_list<std::pair<std::string, std::string>> defaults) {
  HttpRequest req;
  req.peerIp = "203.0.113.9";
  auto line = [&]() {
    const std::size_t nl = input.find('\n');
    std::string_view l = input.substr(0, nl);
    input = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
    return l;
  };
  const std::string_view first = line();
  const std::size_t sp = first.find(' ');
  req.method = std::string(first.substr(0, sp));
  req.target = sp == std::string_view::npos ? "/" : w.Expand(std::string(first.substr(sp + 1)));
  while (!input.empty()) {
    const std::string_view h = line();
    if (h.empty()) break;
    const std::size_t colon = h.find(':');
    std::string name(h.substr(0, colon));
    for (char& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    std::string value = colon == std::string_view::npos ? "" : std::string(h.substr(colon + 1));
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    req.headers.emplace_back(std::move(name), w.Expand(std::move(value)));
  }
  for (const auto& [name, value] : defaults)
    if (!req.Header(name)) req.headers.emplace_back(name, w.Expand(value));
  req.body = w.Expand(std::string(input));
  return req;
}

inline bool IsJson(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  return !d.HasParseError();
}

// What every answer must be, whatever came in: a status a client can read,
// and, when it says JSON, JSON.
inline void CheckResponse(const HttpResponse& r) {
  if (r.status < 100 || r.status > 599) std::abort();
  for (const auto& [name, value] : r.headers) {
    if ((name == "Content-Type" || name == "content-type") && value.rfind("application/json", 0) == 0 &&
        !r.body.empty() && !IsJson(r.body))
      std::abort();
    for (char c : value)
      if (c == '\r' || c == '\n') std::abort();  // no header injection from input
  }
}

}  // namespace livechat::fuzz
