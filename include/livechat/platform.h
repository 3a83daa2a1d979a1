// The platform requests' HTTP adapter: the e-commerce platform calls
// POST /platform/{app-uninstalled,customers-redact,customers-data-request,
// shop-redact}, each body signed with the app secret (HMAC-SHA256 of the raw
// body, base64, in X-Platform-Hmac-Sha256). HttpRequest -> ChatService ->
// HttpResponse; every rule lives in PrivacyService::ApplyPlatformRequest.
// See docs/operations.md, "Platform requests and privacy".
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "livechat/chat_service.h"
#include "livechat/http.h"

namespace livechat {

struct PlatformOptions {
  // The platform app secret. Empty: every platform request is refused with
  // 401 (nothing can be verified, so nothing is applied).
  std::string appSecret;
  std::size_t maxBodyBytes = 256 * 1024;  // larger: 413 PAYLOAD_TOO_LARGE, before the signature is computed
};

// Thread-safe; holds no per-request state.
class PlatformApi {
 public:
  PlatformApi(ChatService& service, PlatformOptions options);

  // True for targets under /platform/.
  static bool Owns(std::string_view target);
  // "/platform/customers-redact", ... for a known endpoint, else empty.
  static std::optional<std::string> RouteTemplate(std::string_view target);
  HttpResponse Handle(const HttpRequest& req);

 private:
  ChatService& service_;
  PlatformOptions options_;
};

// The header value a request with this raw body must carry (tests, examples).
std::string PlatformSignature(std::string_view appSecret, std::string_view rawBody);

}  // namespace livechat
