#include "demo_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include <rapidjson/document.h>

#include "livechat/json_codec.h"
#include "livechat/principal.h"

namespace livechatd {

extern const char* const kSampleCatalog;  // examples/catalog/sample_catalog.json, compiled in

namespace {

constexpr const char* kDemoShopName = "Demo Store";

struct Marker {
  std::string shopId;
  std::string apiKey;
};

std::optional<Marker> ReadMarker(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream buf;
  buf << in.rdbuf();
  rapidjson::Document doc;
  doc.Parse(buf.str().c_str());
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  auto shop = doc.FindMember("shopId");
  auto key = doc.FindMember("apiKey");
  if (shop == doc.MemberEnd() || key == doc.MemberEnd() || !shop->value.IsString() || !key->value.IsString())
    return std::nullopt;
  return Marker{shop->value.GetString(), key->value.GetString()};
}

// Written to a temporary file and renamed so a crash never leaves half a
// marker; 0600 because it holds a live credential.
livechat::Status WriteMarker(const std::string& path, const Marker& m) {
  std::string json = "{\"shopId\":";
  livechat::AppendJsonString(json, m.shopId);
  json += ",\"apiKey\":";
  livechat::AppendJsonString(json, m.apiKey);
  json += "}\n";
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  auto fail = [&](const char* what) {
    return livechat::MakeError(livechat::ErrorCode::kInternal,
                               std::string("cannot ") + what + " demo marker " + path + ": " + std::strerror(errno));
  };
  if (fd < 0) return fail("create");
  bool ok = ::write(fd, json.data(), json.size()) == static_cast<ssize_t>(json.size());
  ok = (::fsync(fd) == 0) && ok;
  ::close(fd);
  if (!ok) return fail("write");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename");
  return livechat::Status::Ok();
}

livechat::Result<std::string> NewDemoKey(livechat::ChatService& service, const std::string& shopId) {
  livechat::CreateKeyInput in;
  in.name = "demo";
  in.permissions = livechat::kPermAll;
  auto key = service.directory().CreateApiKey(livechat::Principal::System(shopId), in);
  if (!key.ok()) return key.take_error();
  return std::move(key->secret);
}

}  // namespace

std::string DemoMarkerPath(const std::string& dbPath) { return dbPath + ".demo.json"; }

livechat::Result<DemoStore> EnsureDemoStore(livechat::ChatService& service, const std::string& dbPath) {
  const bool inMemory = dbPath == ":memory:";
  const std::string markerPath = DemoMarkerPath(dbPath);

  if (!inMemory) {
    if (auto marker = ReadMarker(markerPath)) {
      auto shop = service.directory().GetShop(marker->shopId);
      if (shop.ok()) {
        DemoStore found{shop->id, shop->name, marker->apiKey, shop->appId, false};
        auto auth = service.auth().AuthenticateApiKey(marker->apiKey);
        if (auth.ok()) return found;
        if (auth.error().code != livechat::ErrorCode::kInvalidApiKey) return auth.take_error();
        auto key = NewDemoKey(service, shop->id);
        if (!key.ok()) return key.take_error();
        found.apiKey = *key;
        LC_RETURN_IF_ERROR(WriteMarker(markerPath, Marker{found.shopId, found.apiKey}));
        return found;
      }
      if (shop.error().code != livechat::ErrorCode::kNotFound) return shop.take_error();
      // The marker outlived its database: fall through and make a new demo.
    }
  }

  auto created = service.demo().CreateDemo(kDemoShopName);
  if (!created.ok()) return created.take_error();
  DemoStore demo{created->key.shopId, kDemoShopName, created->secret, "", true};
  // The AI agent's side of the demo: the sample catalog, every tool switched
  // on (so /mcp lists all of them), and a playground conversation.
  const auto system = livechat::Principal::System(demo.shopId);
  if (auto imported = service.knowledge().ImportCatalog(system, kSampleCatalog); !imported.ok()) return imported.take_error();
  if (auto ai = service.knowledge().UpdateAiSettings(
          system, R"({"trainingData":{"products":true,"collections":true,"discounts":true},)"
                  R"("skills":{"sizeGuide":true},"loyaltyPartner":"Smile.io"})");
      !ai.ok())
    return ai.take_error();
  livechat::InboundMessageInput playground;
  playground.channel = "playground";
  playground.customerName = "Playground tester";
  playground.text = "Hi! Does the merino crew sweater come in navy, and is it itchy?";
  if (auto conv = service.conversations().ReceiveInbound(system, playground); !conv.ok()) return conv.take_error();
  if (auto shop = service.directory().GetShop(demo.shopId); shop.ok()) {
    demo.shopName = shop->name;
    demo.appId = shop->appId;
  }
  if (!inMemory) LC_RETURN_IF_ERROR(WriteMarker(markerPath, Marker{demo.shopId, demo.apiKey}));
  return demo;
}

}  // namespace livechatd
