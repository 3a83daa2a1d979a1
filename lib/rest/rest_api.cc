#include "livechat/rest.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>
#include <utility>

#include "livechat/json_codec.h"
#include "rest/event_stream.h"
#include "rest/rest_request.h"
#include "rest/rest_response.h"
#include "rest/rest_routes.h"

namespace livechat {
namespace {

enum class Surface { kNone, kChat, kAdmin, kLegacyWebhooks };

// Decided on the raw target so even a malformed one is answered by the
// surface it was aimed at (and, on /chat, still counted by the rate limiter).
Surface SurfaceOf(std::string_view target) {
  auto under = [&](std::string_view prefix) {
    if (target.substr(0, prefix.size()) != prefix) return false;
    if (target.size() == prefix.size()) return true;
    char next = target[prefix.size()];
    return next == '/' || next == '?' || next == '#';
  };
  if (under("/chat")) return Surface::kChat;
  if (under("/api")) return Surface::kAdmin;
  if (under("/webhook/subscriptions")) return Surface::kLegacyWebhooks;
  return Surface::kNone;
}

// The value of cookie `name` from the Cookie header, or empty.
std::string CookieValue(const HttpRequest& req, std::string_view name) {
  for (const auto& [key, header] : req.headers) {
    if (key != "cookie" && key != "Cookie") continue;
    std::string_view rest = header;
    while (!rest.empty()) {
      std::size_t semi = rest.find(';');
      std::string_view pair = rest.substr(0, semi);
      while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
      std::size_t eq = pair.find('=');
      if (eq != std::string_view::npos && pair.substr(0, eq) == name) {
        std::string_view value = pair.substr(eq + 1);
        while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
        return std::string(value);
      }
      if (semi == std::string_view::npos) break;
      rest.remove_prefix(semi + 1);
    }
  }
  return "";
}

// Whole seconds, rounded up and at least 1, so a client that waits exactly
// this long is never refused again for the same wait.
std::string RetryAfterSeconds(Millis wait) {
  Millis secs = (wait + 999) / 1000;
  return std::to_string(secs < 1 ? 1 : secs);
}

void SetRateHeaders(HttpResponse& resp, const RateDecision& d) {
  resp.SetHeader("X-RateLimit-Limit", std::to_string(d.limit));
  resp.SetHeader("X-RateLimit-Remaining", std::to_string(d.remaining < 0 ? 0 : d.remaining));
  // The IETF draft's fields: a list of the windows counted, each a quoted
  // policy name with its parameters (q quota, w window, r remaining, t
  // seconds until the window ends).
  // Appended in place: every /chat answer carries them (no temporary per piece).
  std::string policy, state;
  policy.reserve(64);
  state.reserve(64);
  auto number = [](std::string& out, long long v) {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    (void)ec;
    out.append(buf, end);
  };
  for (const RatePolicy& p : d.policies) {
    const char* sep = policy.empty() ? "\"" : ", \"";
    policy.append(sep).append(p.name).append("\";q=");
    number(policy, p.quota);
    policy.append(";w=");
    number(policy, p.windowSeconds);
    state.append(sep).append(p.name).append("\";r=");
    number(state, p.remaining);
    state.append(";t=");
    number(state, (std::max<Millis>(p.resetInMillis, 0) + 999) / 1000);
  }
  if (!policy.empty()) {
    resp.SetHeader("RateLimit-Policy", std::move(policy));
    resp.SetHeader("RateLimit", std::move(state));
  }
  if (!d.allowed) resp.SetHeader("Retry-After", RetryAfterSeconds(d.resetInMillis));
}

HttpResponse RateLimited(const RateDecision& d) {
  return rest::ErrorResponse(RetryLaterError(ErrorCode::kRateLimited,
                                             "rate limit of " + std::to_string(d.limit) +
                                                 " requests per minute exceeded; retry in " +
                                                 RetryAfterSeconds(d.resetInMillis) + " s",
                                             d.resetInMillis));
}

// A failed authentication still costs its source IP a request, so guessing
// keys is throttled like any other traffic.
std::string KeyIdOf(const Result<Principal>& principal) {
  return principal.ok() && principal->keyId ? *principal->keyId : std::string();
}

HttpResponse BadTarget() {
  return rest::ErrorResponse(MakeError(ErrorCode::kInvalidParams, "malformed request target"));
}

}  // namespace

struct RestApi::Impl {
  ChatService& service;
  RestOptions options;
  rest::EventStreams streams;  // the live change feed's open streams

  // The public API's authentication: the X-Api-Key header's principal.
  Result<Principal> KeyPrincipal(const HttpRequest& req);
  // Every /chat/... and /webhook/subscriptions answer: the request is counted
  // in its source IP's window and, with `keyId`, its key's; `answer` runs only
  // when both allow it (else 429), and the answer carries their headers.
  template <typename Answer>
  HttpResponse Metered(const std::string& keyId, const std::string& ip, Answer&& answer);
  // A write with an Idempotency-Key runs once per key: `run` answers the
  // first request, a repeat gets that answer again (Idempotent-Replayed:
  // true), the same key on another request 422, a repeat while the first
  // runs 409 with Retry-After. Without the header, or for a read, `run`.
  template <typename Run>
  HttpResponse Idempotent(const Principal& p, const HttpRequest& req, Run&& run);

  HttpResponse HandleChat(const HttpRequest& req, const std::optional<ParsedTarget>& target, const std::string& ip);
  HttpResponse HandleAdmin(const HttpRequest& req, const std::optional<ParsedTarget>& target, const std::string& ip);
  HttpResponse HandleLegacy(const HttpRequest& req, const std::optional<ParsedTarget>& target, const std::string& ip);
  Result<HttpResponse> Legacy(const HttpRequest& req, const ParsedTarget& target);
  HttpResponse Login(const HttpRequest& req, const std::string& ip);
  HttpResponse Upload(const HttpRequest& req, const ParsedTarget& target, const Principal& p, bool import);
  HttpResponse Logout(const HttpRequest& req);
  HttpResponse Session(const Principal& session);
  std::string SessionCookie(const std::string& value, Millis maxAgeMillis) const;

  // The admin surface's own routes (the rest of /api/chat/... is the chat
  // table's): `path` after "/api". Sign-in needs no session; the uploads check
  // the session before the method, like every other /api path.
  struct AdminRoute {
    std::vector<std::string_view> path;
    std::string_view method;
    bool needsSession;
    HttpResponse (*serve)(Impl& api, const HttpRequest& req, const ParsedTarget& target, const std::string& ip,
                          const Principal* session);
    std::string_view route;
    bool At(const std::vector<std::string>& segs) const {
      return segs.size() == path.size() + 1 && std::equal(path.begin(), path.end(), segs.begin() + 1);
    }
  };
  static const std::vector<AdminRoute>& AdminRoutes();
};

namespace {

// The legacy subscription endpoints: the collection and the id form. GET, PUT
// and DELETE act on the subscription the secret names, on either form.
struct LegacyRoute {
  bool withId;
  std::string_view method;
};

constexpr std::array<LegacyRoute, 7> kLegacyRoutes{{
    {false, "GET"}, {false, "POST"}, {false, "PUT"}, {false, "DELETE"},
    {true, "GET"}, {true, "PUT"}, {true, "DELETE"},
}};

}  // namespace

const std::vector<RestApi::Impl::AdminRoute>& RestApi::Impl::AdminRoutes() {
  static const std::vector<AdminRoute> kRoutes = {
      {{"auth", "login"}, "POST", false,
       [](Impl& api, const HttpRequest& req, const ParsedTarget&, const std::string& ip, const Principal*) {
         return api.Login(req, ip);
       },
       "/api/auth/login"},
      {{"auth", "logout"}, "POST", false,
       [](Impl& api, const HttpRequest& req, const ParsedTarget&, const std::string&, const Principal*) {
         return api.Logout(req);
       },
       "/api/auth/logout"},
      {{"auth", "session"}, "GET", true,
       [](Impl& api, const HttpRequest&, const ParsedTarget&, const std::string&, const Principal* p) {
         return api.Session(*p);
       },
       "/api/auth/session"},
      {{"files"}, "POST", true,
       [](Impl& api, const HttpRequest& req, const ParsedTarget& t, const std::string&, const Principal* p) {
         return api.Upload(req, t, *p, /*import=*/false);
       },
       "/api/files"},
      {{"customers", "import"}, "POST", true,
       [](Impl& api, const HttpRequest& req, const ParsedTarget& t, const std::string&, const Principal* p) {
         return api.Upload(req, t, *p, /*import=*/true);
       },
       "/api/customers/import"},
  };
  return kRoutes;
}

RestApi::RestApi(ChatService& service, RestOptions options)
    : impl_(std::make_unique<Impl>(Impl{service, options, rest::EventStreams(options.eventStreams)})) {}

RestApi::~RestApi() = default;

void RestApi::WakeEventStreams() { impl_->streams.Wake(); }

void RestApi::StopEventStreams() { impl_->streams.Stop(); }

int RestApi::OpenEventStreams() const { return impl_->streams.open(); }

bool RestApi::Owns(std::string_view target) { return SurfaceOf(target) != Surface::kNone; }

std::optional<std::string> RestApi::RouteTemplate(std::string_view target) {
  Surface surface = SurfaceOf(target);
  std::optional<ParsedTarget> t = surface == Surface::kNone ? std::nullopt : ParseTarget(target);
  if (!t) return std::nullopt;
  const auto& segs = t->segments;
  switch (surface) {
    case Surface::kChat: return rest::ChatRouteTemplate(segs, 0);
    case Surface::kAdmin:
      for (const Impl::AdminRoute& r : Impl::AdminRoutes())
        if (r.At(segs)) return std::string(r.route);
      if (auto chat = rest::ChatRouteTemplate(segs, 1)) return "/api" + *chat;
      return std::nullopt;
    default:
      if (segs.size() == 2) return std::string("/webhook/subscriptions");
      if (segs.size() == 3) return std::string("/webhook/subscriptions/{id}");
      return std::nullopt;
  }
}

bool RestApi::IsBoundedRead(const HttpRequest& req) {
  if (req.method != "GET" || SurfaceOf(req.target) != Surface::kChat) return false;
  const std::optional<std::string_view> key = req.HeaderView("x-api-key");
  if (!key || key->empty()) return false;
  std::optional<ParsedTarget> target = ParseTarget(req.target);
  return target && rest::ChatBoundedRead(req.method, *target);
}

bool RestApi::IsHandedToWriter(const HttpRequest& req) {
  if (req.method != "POST" || SurfaceOf(req.target) != Surface::kChat || req.HeaderView("idempotency-key")) return false;
  const std::optional<std::string_view> key = req.HeaderView("x-api-key");
  if (!key || key->empty()) return false;
  std::optional<ParsedTarget> target = ParseTarget(req.target);
  return target && rest::ChatAnswersLater(req.method, *target);
}

HttpResponse RestApi::Handle(const HttpRequest& req) {
  Surface surface = SurfaceOf(req.target);
  if (surface == Surface::kNone) return rest::ErrorResponse(MakeError(ErrorCode::kNotFound, "no such endpoint"));
  std::optional<ParsedTarget> target = ParseTarget(req.target);
  std::string ip = ClientIp(req, impl_->options.trustedProxies);
  switch (surface) {
    case Surface::kChat: return impl_->HandleChat(req, target, ip);
    case Surface::kAdmin: {
      HttpResponse resp = impl_->HandleAdmin(req, target, ip);
      if (!resp.route.empty() && resp.route.rfind("/api/", 0) != 0) resp.route.insert(0, "/api");
      return resp;
    }
    default: {
      HttpResponse resp = impl_->HandleLegacy(req, target, ip);
      // Every legacy answer has its route: the path decided the surface.
      if (target && target->segments.size() == 2) resp.route = "/webhook/subscriptions";
      if (target && target->segments.size() == 3) resp.route = "/webhook/subscriptions/{id}";
      return resp;
    }
  }
}

// The legacy subscription endpoints (spec: Webhook management). POST
// authenticates with the store's App ID and an sk_ key and needs the Pro or
// Plus plan; GET, PUT and DELETE authenticate with the subscription's own
// whsec_ secret and act on that subscription only.
HttpResponse RestApi::Impl::HandleLegacy(const HttpRequest& req, const std::optional<ParsedTarget>& target,
                                         const std::string& ip) {
  return Metered("", ip, [&] {
    if (!target) return BadTarget();
    auto r = Legacy(req, *target);
    return r.ok() ? std::move(r).value() : rest::ErrorResponse(r.error());
  });
}

Result<HttpResponse> RestApi::Impl::Legacy(const HttpRequest& req, const ParsedTarget& target) {
  const auto& segs = target.segments;  // {"webhook", "subscriptions", [id]}
  if (segs.size() > 3) return MakeError(ErrorCode::kNotFound, "no such endpoint: " + target.path);
  std::optional<std::string> pathId = segs.size() == 3 ? std::optional<std::string>(segs[2]) : std::nullopt;
  auto m = MatchRoute(kLegacyRoutes, req.method, [&](const LegacyRoute& r) { return r.withId == pathId.has_value(); });
  if (m.row == nullptr) return rest::MethodNotAllowed(req.method, m.allow);
  const std::string secret = req.Header("x-webhook-secret").value_or("");
  if (req.method == "POST") {
    LC_ASSIGN_OR_RETURN(Principal p, service.auth().AuthenticateAppKey(req.Header("x-webhook-app-id").value_or(""), secret));
    LC_ASSIGN_OR_RETURN(auto body, rest::JsonBody::FromRequest(req, rest::BodyRule::kRequired, options.maxBodyBytes));
    LC_ASSIGN_OR_RETURN(CreateWebhookInput in, rest::CreateWebhookFromBody(*body));
    in.legacy = true;
    bool created = false;
    LC_ASSIGN_OR_RETURN(auto sub, service.webhooks().CreateWebhook(p, in, &created));
    return rest::JsonResponse(created ? 201 : 200, rest::DataEnvelope(ToJson(sub)));
  }
  LC_ASSIGN_OR_RETURN(auto auth, service.webhooks().AuthenticateWebhookSecret(secret));
  auto& [p, sub] = auth;
  if (pathId && *pathId != sub.id) return MakeError(ErrorCode::kNotFound, "subscription not found");
  if (req.method == "GET") return rest::JsonResponse(200, rest::DataEnvelope(ToJson(sub)));
  if (req.method == "DELETE") {
    LC_RETURN_IF_ERROR(service.webhooks().DeleteWebhook(p, sub.id));
    std::string data = "{\"id\":";
    AppendJsonString(data, sub.id);
    data += ",\"deleted\":true}";
    return rest::JsonResponse(200, rest::DataEnvelope(data));
  }
  LC_ASSIGN_OR_RETURN(auto body, rest::JsonBody::FromRequest(req, rest::BodyRule::kRequired, options.maxBodyBytes));
  LC_ASSIGN_OR_RETURN(UpdateWebhookInput in, rest::UpdateWebhookFromBody(*body));
  LC_ASSIGN_OR_RETURN(auto updated, service.webhooks().UpdateWebhook(p, sub.id, in));
  return rest::JsonResponse(200, rest::DataEnvelope(ToJson(updated)));
}

Result<Principal> RestApi::Impl::KeyPrincipal(const HttpRequest& req) {
  std::optional<std::string> key = req.Header("x-api-key");
  return key && !key->empty() ? service.auth().AuthenticateApiKey(*key)
                              : Result<Principal>(MakeError(ErrorCode::kUnauthenticated, "missing X-Api-Key header"));
}

template <typename Answer>
HttpResponse RestApi::Impl::Metered(const std::string& keyId, const std::string& ip, Answer&& answer) {
  RateDecision decision = service.auth().CheckRateLimit(keyId, ip);
  HttpResponse resp = decision.allowed ? answer() : RateLimited(decision);
  SetRateHeaders(resp, decision);
  if (resp.deferred)  // the answer that comes later carries them too
    resp.deferred = [inner = std::move(resp.deferred), decision](HttpReply reply) {
      inner([reply = std::move(reply), decision](HttpResponse later) {
        SetRateHeaders(later, decision);
        reply(std::move(later));
      });
    };
  return resp;
}

template <typename Run>
HttpResponse RestApi::Impl::Idempotent(const Principal& p, const HttpRequest& req, Run&& run) {
  if (req.method == "GET" || req.method == "HEAD" || req.method == "OPTIONS") return run();
  const std::optional<std::string> header = req.Header("idempotency-key");
  if (!header) return run();
  Result<std::string> key = ParseIdempotencyKey(*header);
  if (!key.ok()) return rest::ErrorResponse(key.error());
  auto start = service.idempotency().BeginIdempotentRequest(p, *key, IdempotencyFingerprint(req.method, req.target, req.body));
  if (!start.ok()) return rest::ErrorResponse(start.error());
  if (start->kind == IdempotentStart::Kind::kReplay) {
    HttpResponse replay = rest::JsonResponse(start->status, std::move(start->body));
    if (!start->contentType.empty()) replay.SetHeader("Content-Type", start->contentType);
    replay.SetHeader("Idempotent-Replayed", "true");
    return replay;
  }
  HttpResponse resp = run();
  Status kept = service.idempotency().FinishIdempotentRequest(p, *key, resp.status, resp.Header("Content-Type").value_or(""),
                                                resp.body);
  // The request ran: its answer goes out whatever happened to the record
  // (its lease lets a retry run again after a minute).
  if (!kept.ok()) std::fprintf(stderr, "livechat rest: idempotency record not kept: %s\n", kept.error().message.c_str());
  return resp;
}

HttpResponse RestApi::Impl::HandleChat(const HttpRequest& req, const std::optional<ParsedTarget>& target,
                                       const std::string& ip) {
  auto answer = [&](const Result<Principal>& principal) {
    return Metered(KeyIdOf(principal), ip, [&] {
      if (!target) return BadTarget();
      if (!principal.ok()) return rest::ErrorResponse(principal.error());
      // With an Idempotency-Key the answer is recorded as the request ends,
      // so it cannot come later.
      const bool mayAnswerLater = options.answerSendsLater && !req.Header("idempotency-key");
      return rest::DispatchChat(
          service, *principal, req, *target, 0, options.maxBodyBytes,
          [&](const std::function<HttpResponse()>& run) { return Idempotent(*principal, req, run); }, &streams,
          mayAnswerLater);
    });
  };
  const std::optional<std::string> key = req.Header("x-api-key");
  if (target && key && !key->empty() && rest::ChatPlainRead(req.method, target->segments, 0)) {
    // A plain read: its key is checked in its own read transaction.
    std::optional<HttpResponse> resp;
    Status st = service.auth().ReadAsApiKey(*key, [&](const Result<Principal>& principal) { resp = answer(principal); });
    if (resp) return std::move(*resp);
    return rest::ErrorResponse(st.ok() ? MakeError(ErrorCode::kInternal, "the read did not answer") : st.error());
  }
  return answer(KeyPrincipal(req));
}

HttpResponse RestApi::RefuseUnreadBody(const HttpRequest& req, const Error& refusal) {
  const std::string ip = ClientIp(req, impl_->options.trustedProxies);
  auto refuse = [&] { return rest::ErrorResponse(refusal); };
  switch (SurfaceOf(req.target)) {
    case Surface::kChat: return impl_->Metered(KeyIdOf(impl_->KeyPrincipal(req)), ip, refuse);
    case Surface::kLegacyWebhooks: return impl_->Metered("", ip, refuse);
    default: return refuse();
  }
}

HttpResponse RestApi::Impl::HandleAdmin(const HttpRequest& req, const std::optional<ParsedTarget>& target,
                                        const std::string& ip) {
  if (req.Header("x-api-key"))
    return rest::ErrorResponse(MakeError(ErrorCode::kUnauthenticated,
                                         "API keys are not accepted on admin paths (/api/...); sign in to the admin "
                                         "inbox, or call /chat/... with the key"));
  if (!target) return BadTarget();
  const auto& segs = target->segments;
  auto m = MatchRoute(AdminRoutes(), req.method, [&](const AdminRoute& r) { return r.At(segs); });
  const bool underAuth = segs.size() >= 2 && segs[1] == "auth";
  if (m.pathRow == nullptr && underAuth)
    return rest::ErrorResponse(MakeError(ErrorCode::kNotFound, "no such endpoint: " + target->path));
  std::optional<Principal> session;
  if (m.pathRow == nullptr || m.pathRow->needsSession) {
    Result<Principal> principal = service.auth().AuthenticateSession(CookieValue(req, options.sessionCookieName));
    if (!principal.ok()) return rest::ErrorResponse(principal.error());
    session = std::move(principal).value();
  }
  // Cross-site request forgery: the cookie is SameSite=Strict, and a write
  // must also carry a header no form and no cross-origin script can send
  // without a CORS preflight this server never grants. Checked once the
  // route and method are known (a 404 or 405 changes nothing either way).
  // Sign-in creates no state worth forging and has no session to ride on.
  const bool safeMethod = req.method == "GET" || req.method == "HEAD" || req.method == "OPTIONS";
  const bool forgeable = !safeMethod && req.Header(kCsrfHeader).value_or("") != "1";
  auto forged = [] {
    return rest::ErrorResponse(MakeError(ErrorCode::kForbidden, std::string("a write under /api/ needs the header ") +
                                                                    kCsrfHeader +
                                                                    ": 1 (the inbox sends it; see docs/inbox.md)"));
  };
  if (m.pathRow == nullptr) {
    if (segs.size() < 2 || segs[1] != "chat")
      return rest::ErrorResponse(MakeError(ErrorCode::kNotFound, "no such endpoint: " + target->path));
    return rest::DispatchChat(service, *session, req, *target, 1, options.maxBodyBytes,
                              [&](const std::function<HttpResponse()>& run) {
                                return forgeable ? forged() : Idempotent(*session, req, run);
                              },
                              &streams);
  }
  const bool signIn = m.pathRow->route == "/api/auth/login";
  HttpResponse resp = !m.row                  ? rest::MethodNotAllowed(req.method, m.allow)
                      : forgeable && !signIn ? forged()
                                              : m.row->serve(*this, req, *target, ip, session ? &*session : nullptr);
  resp.route = m.pathRow->route;
  return resp;
}

// The admin inbox's uploads: the raw bytes as the body (their type as
// Content-Type, ?name= the file name). POST /api/files?kind=logo|icon|avatar
// answers the file and its URL; POST /api/customers/import the import's
// counts. Limits and types are ChatService's (docs/operations.md, "Files").
HttpResponse RestApi::Impl::Upload(const HttpRequest& req, const ParsedTarget& target, const Principal& p,
                                   bool import) {
  auto answer = [&]() -> Result<HttpResponse> {
    FileUpload in;
    in.kind = import ? "import" : target.Query("kind").value_or("");
    in.name = target.Query("name").value_or("");
    in.contentType = req.Header("content-type").value_or("");
    in.bytes = req.body;
    if (import) {
      LC_ASSIGN_OR_RETURN(CsvImportResult res, service.files().ImportCustomersCsv(p, in));
      return rest::JsonResponse(200, rest::DataEnvelope("{\"rows\":" + std::to_string(res.rows) +
                                                         ",\"created\":" + std::to_string(res.created) +
                                                         ",\"updated\":" + std::to_string(res.updated) +
                                                         ",\"file\":" + ToJson(res.file) + "}"));
    }
    if (in.kind != "logo" && in.kind != "icon" && in.kind != "avatar")
      return MakeError(ErrorCode::kInvalidParams, "kind must be one of logo, icon, avatar");
    LC_ASSIGN_OR_RETURN(FileRecord file, service.files().UploadFile(p, in));
    std::string json = ToJson(file);
    json.pop_back();
    json += ",\"url\":";
    AppendJsonString(json, service.files().FileUrl(file, 0));
    return rest::JsonResponse(201, rest::DataEnvelope(json + "}"));
  };
  auto r = answer();
  return r.ok() ? std::move(r).value() : rest::ErrorResponse(r.error());
}

std::string RestApi::Impl::SessionCookie(const std::string& value, Millis maxAgeMillis) const {
  // Path=/api keeps the cookie off the public /chat API; SameSite=Strict keeps
  // other sites from riding on it.
  std::string cookie = options.sessionCookieName + "=" + value + "; Path=/api; HttpOnly; SameSite=Strict; Max-Age=" +
                       std::to_string(maxAgeMillis < 0 ? 0 : maxAgeMillis / 1000);
  if (options.secureCookies) cookie += "; Secure";
  return cookie;
}

HttpResponse RestApi::Impl::Login(const HttpRequest& req, const std::string& ip) {
  // Every request to this route counts in its source IP's window like the
  // public API; failed passwords are throttled by AuthService::Login itself.
  RateDecision decision = service.auth().CheckRateLimit("", ip);
  if (!decision.allowed) {
    HttpResponse resp = RateLimited(decision);
    SetRateHeaders(resp, decision);
    return resp;
  }
  auto body = rest::JsonBody::FromRequest(req, rest::BodyRule::kRequired, options.maxBodyBytes);
  if (!body.ok()) return rest::ErrorResponse(body.error());
  const rest::JsonBody& json = **body;
  auto email = json.OptString("email");
  if (!email.ok()) return rest::ErrorResponse(email.error());
  auto password = json.OptString("password");
  if (!password.ok()) return rest::ErrorResponse(password.error());
  auto shopId = json.OptString("shopId");
  if (!shopId.ok()) return rest::ErrorResponse(shopId.error());
  // Absent is empty: the core says both are required.
  auto result = service.auth().Login(email->value_or(""), password->value_or(""), *shopId, ip);
  if (!result.ok()) {
    return rest::ErrorResponse(result.error());
  }
  HttpResponse resp = rest::JsonResponse(200, rest::DataEnvelope(ToJson(result->member)));
  resp.SetHeader("Set-Cookie",
                 SessionCookie(result->token, result->session.expiresAt - result->session.createdAt));
  return resp;
}

// Who the cookie signs in: the inbox asks on load (the cookie is HttpOnly).
HttpResponse RestApi::Impl::Session(const Principal& session) {
  auto member = service.directory().GetMember(session, session.memberId.value_or(""));
  if (!member.ok()) return rest::ErrorResponse(member.error());
  std::string data = "{\"member\":" + ToJson(*member) + ",\"shopId\":";
  AppendJsonString(data, session.shopId);
  return rest::JsonResponse(200, rest::DataEnvelope(data + "}"));
}

HttpResponse RestApi::Impl::Logout(const HttpRequest& req) {
  std::string token = CookieValue(req, options.sessionCookieName);
  // Logging out without a session is already the desired end state.
  if (!token.empty()) {
    Status st = service.auth().Logout(token);
    if (!st.ok() && st.error().code == ErrorCode::kInternal) return rest::ErrorResponse(st.error());
  }
  HttpResponse resp = rest::JsonResponse(200, rest::DataEnvelope("{\"loggedOut\":true}"));
  resp.SetHeader("Set-Cookie", SessionCookie("", 0));
  return resp;
}

}  // namespace livechat
