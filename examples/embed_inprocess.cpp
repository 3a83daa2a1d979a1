// Embedding livechat in-process: a SQLite store, the ChatService, a shop with
// an API key and a conversation, and the REST adapter driven with an
// HttpRequest built by hand -- no sockets. A product with its own HTTP server
// bridges its requests to RestApi::Handle the same way livechatd does.
//
// Build against an installed livechat:
//   cmake -S examples -B build-examples -DCMAKE_PREFIX_PATH=/usr/local
//   cmake --build build-examples && ./build-examples/embed_inprocess
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <livechat/chat_service.h>
#include <livechat/http.h>
#include <livechat/principal.h>
#include <livechat/rest.h>
#include <livechat/sqlite_store.h>

namespace {

int Fail(const char* what, const livechat::Error& e) {
  std::fprintf(stderr, "%s: %s %s\n", what, std::string(livechat::ErrorCodeName(e.code)).c_str(),
               e.message.c_str());
  return 1;
}

}  // namespace

int main() {
  // A throwaway database file; ":memory:" works too.
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "livechat-embed-example";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);

  livechat::SqliteOptions sqlite;
  sqlite.path = (dir / "example.db").string();
  auto store = livechat::OpenSqliteStore(sqlite);
  if (!store.ok()) return Fail("open store", store.error());

  livechat::ServiceOptions options;
  options.store = store->get();  // not owned: the store outlives the service
  livechat::ChatService service(options);

  // Operator calls run as the System principal of the store.
  auto shop = service.directory().CreateShop({"Example Shop", livechat::Plan::kPro, false});
  if (!shop.ok()) return Fail("create shop", shop.error());
  const auto system = livechat::Principal::System(shop->id);

  livechat::CreateKeyInput keyInput;
  keyInput.name = "example";
  keyInput.permissions = livechat::kPermReadConversations | livechat::kPermManageConversations;
  auto key = service.directory().CreateApiKey(system, keyInput);
  if (!key.ok()) return Fail("create key", key.error());

  livechat::InboundMessageInput inbound;
  inbound.channel = "online_store";
  inbound.customerName = "Casey Customer";
  inbound.customerEmail = "casey@example.com";
  inbound.text = "Hello! Is my order on its way?";
  auto conversation = service.conversations().ReceiveInbound(system, inbound);
  if (!conversation.ok()) return Fail("receive inbound", conversation.error());

  livechat::RestApi rest(service, livechat::RestOptions{});
  livechat::HttpRequest request;
  request.method = "GET";
  request.target = "/chat/conversations?limit=5";
  request.headers = {{"x-api-key", key->secret}};
  request.peerIp = "127.0.0.1";
  // A message send answers later (HttpResponse::deferred): AwaitReply waits
  // for it, as a host with a thread per request can.
  livechat::HttpResponse response = livechat::AwaitReply(rest.Handle(request));

  std::printf("GET %s -> %d\n%s\n", request.target.c_str(), response.status, response.body.c_str());

  std::filesystem::remove_all(dir);
  return response.status == 200 ? 0 : 1;
}
