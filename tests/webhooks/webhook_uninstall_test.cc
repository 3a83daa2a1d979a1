// Spec rule 9: uninstalling the app does not stop webhook subscriptions or
// revoke API keys. A signed uninstall goes through the platform adapter; the
// subscription keeps receiving (and the key keeps managing it) afterwards.
#include <doctest/doctest.h>

#include "livechat/platform.h"
#include "webhook_fixture.h"

namespace livechat::testing {

TEST_CASE("after a platform uninstall, a subscription keeps delivering and the API key keeps working") {
  WebhookFixture f;
  auto sub = f.Subscribe({"message.created", "conversation.created"});
  PlatformApi platform(f.service(), PlatformOptions{"webhook-suite-platform-secret", 256 * 1024});
  const std::string body = R"({"shop_id":)" + JsonStr(f.shop.id) + "}";
  HttpRequest req;
  req.method = "POST";
  req.target = "/platform/app-uninstalled";
  req.body = body;
  req.headers = {{"content-type", "application/json"},
                 {"x-platform-hmac-sha256", PlatformSignature("webhook-suite-platform-secret", body)}};
  HttpResponse resp = platform.Handle(req);
  RecordExchange(req, resp);
  REQUIRE(resp.status == 200);
  CHECK_FALSE(WebhookFixture::Must(f.service().directory().GetShop(f.shop.id)).installed);

  f.Inbound("still there after the uninstall?");
  CHECK(f.Run() == 2);  // conversation.created, then message.created
  REQUIRE(f.transport.count() == 2);
  std::vector<std::string> events;
  for (const auto& r : f.transport.requests()) events.push_back(HeaderOf(r, "X-Webhook-Event"));
  CHECK(events == std::vector<std::string>{"conversation.created", "message.created"});
  CHECK(f.Sub(sub.id).isActive);
  CHECK(f.Sub(sub.id).lastDeliveryStatus == std::optional<std::string>("succeeded"));

  // The key still lists and manages the subscription (rule 9: delete them first).
  auto list = f.Call("GET", "/chat/webhooks");
  REQUIRE(list.status() == 200);
  CHECK(Str(At(At(list.data(), 0), "id")) == sub.id);
  CHECK(f.Call("DELETE", "/chat/webhooks/" + sub.id).status() == 200);
}

}  // namespace livechat::testing
