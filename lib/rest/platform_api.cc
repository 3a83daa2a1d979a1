// The platform requests' HTTP adapter: route, size, signature, then JSON;
// PrivacyService::ApplyPlatformRequest does the rest.
#include "livechat/platform.h"

#include <rapidjson/document.h>

#include <array>
#include <utility>

#include "livechat/crypto.h"
#include "http/json_body.h"
#include "livechat/json_codec.h"
#include "rest/rest_response.h"

namespace livechat {
namespace {

struct Endpoint {
  std::string_view path;
  std::string_view method;
  const char* topic;
};

constexpr std::array<Endpoint, 4> kEndpoints{{
    {"/platform/app-uninstalled", "POST", platform_topic::kAppUninstalled},
    {"/platform/customers-redact", "POST", platform_topic::kCustomersRedact},
    {"/platform/customers-data-request", "POST", platform_topic::kCustomersDataRequest},
    {"/platform/shop-redact", "POST", platform_topic::kShopRedact},
}};

std::string_view PathOf(std::string_view target) { return target.substr(0, target.find('?')); }

RouteMatch<Endpoint> FindEndpoint(std::string_view target, std::string_view method) {
  const std::string_view path = PathOf(target);
  return MatchRoute(kEndpoints, method, [&](const Endpoint& e) { return e.path == path; });
}

Error Invalid(std::string message) { return MakeError(ErrorCode::kInvalidParams, std::move(message)); }

// Platforms send ids as JSON numbers or strings; both name the same record.
Result<std::optional<std::string>> IdField(const rapidjson::Value& obj, const char* key, const std::string& path) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return std::optional<std::string>();
  const auto& v = it->value;
  if (v.IsString()) return std::optional<std::string>(std::string(v.GetString(), v.GetStringLength()));
  if (v.IsInt64()) return std::optional<std::string>(std::to_string(v.GetInt64()));
  if (v.IsUint64()) return std::optional<std::string>(std::to_string(v.GetUint64()));
  return Invalid(path + " must be a string or a whole number");
}

Result<std::optional<std::string>> StringField(const rapidjson::Value& obj, const char* key, const std::string& path) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return std::optional<std::string>();
  if (!it->value.IsString()) return Invalid(path + " must be a string");
  return std::optional<std::string>(std::string(it->value.GetString(), it->value.GetStringLength()));
}

Status ReadOrders(const rapidjson::Value& body, const char* key, std::vector<std::string>& out) {
  auto it = body.FindMember(key);
  if (it == body.MemberEnd() || it->value.IsNull()) return Status::Ok();
  if (!it->value.IsArray()) return Invalid(std::string(key) + " must be an array of order ids");
  for (const auto& v : it->value.GetArray()) {
    if (v.IsString()) {
      out.emplace_back(v.GetString(), v.GetStringLength());
    } else if (v.IsInt64()) {
      out.push_back(std::to_string(v.GetInt64()));
    } else if (v.IsUint64()) {
      out.push_back(std::to_string(v.GetUint64()));
    } else {
      return Invalid(std::string(key) + " must hold strings or whole numbers");
    }
  }
  return Status::Ok();
}

// The body's fields for `topic`: {"shop_id", "customer": {id, email, phone},
// "orders_to_redact" | "orders_requested", "data_request": {"id"}}.
Error TooLarge(std::size_t maxBytes) {
  return MakeError(ErrorCode::kPayloadTooLarge, "the body is larger than " + std::to_string(maxBytes) + " bytes");
}

Result<std::pair<std::string, PlatformRequestInput>> ParseBody(const HttpRequest& req, std::size_t maxBytes,
                                                               const char* topic) {
  rapidjson::Document d;
  const JsonBodyStatus status = http::ReadJsonBody(req, maxBytes, d).status;
  if (status == JsonBodyStatus::kTooLarge) return TooLarge(maxBytes);
  if (status == JsonBodyStatus::kUnsupportedMediaType)
    return MakeError(ErrorCode::kUnsupportedMediaType, "Content-Type must be application/json");
  if (status != JsonBodyStatus::kOk || !d.IsObject()) return Invalid("the body must be a JSON object");
  LC_ASSIGN_OR_RETURN(auto shopId, IdField(d, "shop_id", "shop_id"));
  if (!shopId || shopId->empty()) return Invalid("shop_id is required: the livechat store id of the shop");
  PlatformRequestInput in;
  in.topic = topic;
  const std::string_view t = topic;
  if (t == platform_topic::kCustomersRedact || t == platform_topic::kCustomersDataRequest) {
    auto c = d.FindMember("customer");
    if (c == d.MemberEnd() || !c->value.IsObject()) return Invalid("customer is required: an object {id, email, phone}");
    LC_ASSIGN_OR_RETURN(in.customerId, IdField(c->value, "id", "customer.id"));
    LC_ASSIGN_OR_RETURN(in.customerEmail, StringField(c->value, "email", "customer.email"));
    LC_ASSIGN_OR_RETURN(in.customerPhone, StringField(c->value, "phone", "customer.phone"));
    LC_RETURN_IF_ERROR(ReadOrders(d, t == platform_topic::kCustomersRedact ? "orders_to_redact" : "orders_requested",
                                  in.orders));
  }
  if (t == platform_topic::kCustomersDataRequest) {
    auto r = d.FindMember("data_request");
    if (r == d.MemberEnd() || !r->value.IsObject()) return Invalid("data_request is required: an object {id}");
    LC_ASSIGN_OR_RETURN(in.dataRequestId, IdField(r->value, "id", "data_request.id"));
  }
  return std::make_pair(std::move(*shopId), std::move(in));
}

}  // namespace

std::string PlatformSignature(std::string_view appSecret, std::string_view rawBody) {
  return livechat::HmacSha256Base64(appSecret, rawBody);
}

PlatformApi::PlatformApi(ChatService& service, PlatformOptions options)
    : service_(service), options_(std::move(options)) {}

bool PlatformApi::Owns(std::string_view target) {
  const std::string_view path = PathOf(target);
  return path == "/platform" || path.substr(0, 10) == "/platform/";
}

std::optional<std::string> PlatformApi::RouteTemplate(std::string_view target) {
  if (const Endpoint* e = FindEndpoint(target, "").pathRow) return std::string(e->path);
  return std::nullopt;
}

HttpResponse PlatformApi::Handle(const HttpRequest& req) {
  const RouteMatch<Endpoint> m = FindEndpoint(req.target, req.method);
  const Endpoint* e = m.row ? m.row : m.pathRow;
  if (!e) return rest::ErrorResponse(MakeError(ErrorCode::kNotFound, "no such endpoint: " + std::string(PathOf(req.target))));
  HttpResponse out = [&]() -> HttpResponse {
    if (!m.row) return rest::MethodNotAllowed(req.method, m.allow);
    // Nothing is read from the body before its signature checks out; its
    // size is not reading it.
    if (req.body.size() > options_.maxBodyBytes) return rest::ErrorResponse(TooLarge(options_.maxBodyBytes));
    if (options_.appSecret.empty())
      return rest::ErrorResponse(MakeError(ErrorCode::kUnauthenticated,
                                           "platform requests are not accepted: this server has no platform app "
                                           "secret configured (livechatd --platform-secret)"));
    const auto sig = req.Header("x-platform-hmac-sha256");
    if (!sig || sig->empty())
      return rest::ErrorResponse(
          MakeError(ErrorCode::kUnauthenticated,
                    "missing signature: send the base64 HMAC-SHA256 of the raw body in X-Platform-Hmac-Sha256"));
    if (!livechat::ConstantTimeEquals(livechat::HmacSha256Base64(options_.appSecret, req.body), *sig))
      return rest::ErrorResponse(MakeError(ErrorCode::kUnauthenticated,
                                           "invalid signature: X-Platform-Hmac-Sha256 is not the HMAC-SHA256 of this "
                                           "body under the app secret"));
    auto parsed = ParseBody(req, options_.maxBodyBytes, e->topic);
    if (!parsed.ok()) return rest::ErrorResponse(parsed.error());
    auto& [shopId, in] = *parsed;
    in.deliveryId = req.Header("x-platform-webhook-id");
    if (in.deliveryId && in.deliveryId->empty()) in.deliveryId.reset();
    in.bodyDigest = livechat::Sha256Hex(req.body);
    auto applied = service_.privacy().ApplyPlatformRequest(Principal::System(shopId), in);
    if (!applied.ok()) return rest::ErrorResponse(applied.error());
    if (applied->outcome == "refused")
      return rest::ErrorResponse(MakeError(ErrorCode::kConflict, applied->message.value_or("refused")));
    return rest::JsonResponse(200, rest::DataEnvelope(ToJson(*applied)));
  }();
  out.route = std::string(e->path);
  return out;
}

}  // namespace livechat
