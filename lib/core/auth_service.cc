// AuthService: API keys, App ID + key, admin sessions, sign-in and
// sign-out, and the request rate limits.
#include "livechat/chat_service.h"

#include <fmt/format.h>

#include <algorithm>

#include "livechat/crypto.h"
#include "core/login_throttle.h"
#include "core/rate_limiter.h"
#include "core/service_internal.h"
#include "livechat/base/ascii.h"

namespace livechat {

using namespace internal;

// ---------------------------------------------------------------- auth

namespace {

// The SHA-256 under which the store keeps `apiKey`, or why the key is refused
// before any lookup (missing, malformed).
Result<std::string> ApiKeyHash(const std::string& apiKey) {
  if (apiKey.empty()) return MakeError(ErrorCode::kUnauthenticated, "missing API key: send it in the X-Api-Key header");
  if (!LooksLikeApiKey(apiKey)) {
    return MakeError(ErrorCode::kInvalidApiKey, "invalid API key: expected sk_ followed by 32 hex characters");
  }
  std::string normalized = AsciiLower(apiKey);
  normalized[0] = 's';
  normalized[1] = 'k';
  return Sha256Hex(normalized);
}

// The decision on the record found under `hash` (none: unknown key).
Result<Principal> ApiKeyPrincipal(const std::optional<ApiKey>& key, const std::string& hash, Millis now) {
  // The lookup is by hash; the constant-time comparison keeps the decision
  // itself free of early-exit timing whatever the store's index does.
  if (!key || !ConstantTimeEquals(key->keyHash, hash) || key->revokedAt)
    return MakeError(ErrorCode::kInvalidApiKey, "invalid API key: unknown or revoked");
  if (now < key->activeFrom)
    return MakeError(ErrorCode::kInvalidApiKey, "this API key is not active yet: a new key can take up to 30 seconds");
  Principal p;
  p.kind = Principal::Kind::kApiKey;
  p.shopId = key->shopId;
  p.permissions = key->permissions;
  p.legacy = key->legacy;
  p.keyId = key->id;
  return p;
}

}  // namespace

Result<Principal> AuthService::AuthenticateApiKey(const std::string& apiKey) {
  LC_ASSIGN_OR_RETURN(const std::string hash, ApiKeyHash(apiKey));
  LC_ASSIGN_OR_RETURN(auto key, ReadValue<std::optional<ApiKey>>(
                                    ctx_.store(), [&](StoreReader& r) { return r.FindApiKeyByHash(hash); }));
  return ApiKeyPrincipal(key, hash, ctx_.clock->NowMillis());
}

Status AuthService::ReadAsApiKey(const std::string& apiKey, const std::function<void(const Result<Principal>&)>& then) {
  Result<std::string> hash = ApiKeyHash(apiKey);
  if (!hash.ok()) {
    then(hash.error());
    return Status::Ok();
  }
  bool called = false;
  Status st = ctx_.store().Read([&](StoreReader& r) -> Status {
    called = true;
    Result<std::optional<ApiKey>> key = r.FindApiKeyByHash(*hash);
    if (!key.ok()) {
      then(key.error());
    } else {
      then(ApiKeyPrincipal(*key, *hash, ctx_.clock->NowMillis()));
    }
    return Status::Ok();
  });
  // The transaction could not begin: the caller is answered with the store's
  // error, as AuthenticateApiKey's would be.
  if (!called) then(st.ok() ? Result<Principal>(MakeError(ErrorCode::kInternal, "store read did not run")) : st.error());
  return st;
}

Result<Principal> AuthService::AuthenticateAppKey(const std::string& appId, const std::string& apiKey) {
  if (appId.empty() || apiKey.empty()) return MakeError(ErrorCode::kUnauthenticated, "missing app id or API key");
  LC_ASSIGN_OR_RETURN(auto shop, ReadValue<std::optional<Shop>>(
                                     ctx_.store(), [&](StoreReader& r) { return r.GetShopByAppId(appId); }));
  if (!shop) return MakeError(ErrorCode::kInvalidApiKey, "invalid app id or API key");
  auto p = AuthenticateApiKey(apiKey);
  if (!p.ok()) return p;
  if (p->shopId != shop->id) return MakeError(ErrorCode::kInvalidApiKey, "invalid app id or API key");
  return p;
}

Result<Principal> AuthService::AuthenticateSession(const std::string& token) {
  if (token.empty()) return MakeError(ErrorCode::kUnauthenticated, "not logged in: POST /api/auth/login first");
  const std::string hash = Sha256Hex(token);
  struct Found {
    std::optional<AdminSession> session;
    std::optional<Member> member;
    bool installed = false;
  };
  LC_ASSIGN_OR_RETURN(auto found, ReadValue<Found>(ctx_.store(), [&](StoreReader& r) -> Result<Found> {
                        Found f;
                        LC_ASSIGN_OR_RETURN(f.session, r.GetSession(hash));
                        if (f.session) {
                          LC_ASSIGN_OR_RETURN(f.member, r.GetMember(f.session->shopId, f.session->memberId));
                          LC_ASSIGN_OR_RETURN(auto shop, r.GetShop(f.session->shopId));
                          f.installed = shop && shop->installed;
                        }
                        return f;
                      }));
  // Uninstalling deletes the store's sessions; the install check also covers
  // a session created in the moment between the two.
  if (!found.session || !ConstantTimeEquals(found.session->tokenHash, hash) ||
      found.session->expiresAt <= ctx_.clock->NowMillis() || !found.member || !found.member->active || !found.installed)
    return MakeError(ErrorCode::kUnauthenticated, "session expired or invalid: log in again");
  Principal p;
  p.kind = Principal::Kind::kAdminSession;
  p.shopId = found.session->shopId;
  p.memberId = found.session->memberId;
  return p;
}

namespace {

// What a password is checked against when no active member with a password
// has the email, so an unknown email costs one hash like a known one and
// timing tells them apart no better than the answer does.
const std::string& StandInPasswordHash() {
  static const std::string hash = HashPassword("no member has this email");
  return hash;
}

// The active members of `email` (in `shopId` when given) whose password this is.
Result<std::vector<Member>> MembersWithPassword(Store& store, const std::string& email, const std::string& password,
                                                const std::optional<std::string>& shopId) {
  LC_ASSIGN_OR_RETURN(auto members, ReadValue<std::vector<Member>>(
                                        store, [&](StoreReader& r) { return r.FindMembersByEmail(email); }));
  std::vector<Member> matches;
  bool checked = false;
  for (auto& m : members) {
    // A member without a password (no inbox sign-in) costs what a stranger does.
    if (!m.active || (shopId && m.shopId != *shopId) || m.passwordHash.empty()) continue;
    checked = true;
    if (VerifyPassword(m.passwordHash, password)) matches.push_back(std::move(m));
  }
  if (!checked) (void)VerifyPassword(StandInPasswordHash(), password);
  return matches;
}

}  // namespace

Result<LoginResult> AuthService::Login(const std::string& email, const std::string& password,
                                       const std::optional<std::string>& shopId, const std::string& sourceIp,
                                       Millis* retryAfterMillis) {
  const Error wrong = MakeError(ErrorCode::kUnauthenticated, "wrong email or password");
  if (email.empty() || password.empty()) return Invalid("email and password are required");
  // Keyed by the email as the store matches it (ASCII case folded), whether a
  // member has it or not: the throttle must not tell known accounts apart.
  const LoginThrottle::Attempt attempt = ctx_.loginThrottle->Begin(Sha256Hex(AsciiLower(email)), sourceIp);
  if (!attempt.allowed) {
    Counter* counter = attempt.refusedBy == LoginThrottle::Scope::kAccount ? ctx_.loginThrottledAccount
                                                                            : ctx_.loginThrottledAddress;
    if (counter) counter->Inc();
    if (retryAfterMillis) *retryAfterMillis = attempt.retryAfterMillis;
    return RetryLaterError(ErrorCode::kRateLimited,
                           fmt::format("too many failed sign-ins: try again in {} s",
                                       std::max<Millis>(1, (attempt.retryAfterMillis + 999) / 1000)),
                           attempt.retryAfterMillis);
  }
  auto matches = MembersWithPassword(ctx_.store(), email, password, shopId);
  ctx_.loginThrottle->Finish(attempt, !matches.ok()       ? LoginThrottle::Outcome::kNotChecked
                                      : matches->empty() ? LoginThrottle::Outcome::kWrongPassword
                                                         : LoginThrottle::Outcome::kRightPassword);
  if (!matches.ok()) return matches.error();
  if (matches->empty()) {
    if (ctx_.loginFailures) ctx_.loginFailures->Inc();
    return wrong;
  }
  if (matches->size() > 1) return Invalid("this email belongs to members of several stores: pass shopId");
  LoginResult out;
  out.token = ctx_.random->Hex(32);
  out.member = std::move(matches->front());
  const Millis now = ctx_.clock->NowMillis();
  out.session = AdminSession{Sha256Hex(out.token), out.member.shopId, out.member.id, now,
                             now + ctx_.limits().sessionTtlMillis};
  LC_RETURN_IF_ERROR(ctx_.store().Write([&](StoreWriter& w) -> Status {
    // Checked in the write that creates the session, so an uninstall cannot
    // slip between the check and the insert (spec rule 9: the team is signed out).
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(out.member.shopId));
    if (!shop || !shop->installed)
      return MakeError(ErrorCode::kForbidden,
                       "this store has uninstalled the app: the admin inbox is closed until it is installed again");
    return w.InsertSession(out.session);
  }));
  return out;
}

Status AuthService::Logout(const std::string& token) {
  if (token.empty()) return Status::Ok();
  const std::string hash = Sha256Hex(token);
  return ctx_.store().Write([&](StoreWriter& w) { return w.DeleteSession(hash); });
}

RateDecision AuthService::CheckRateLimit(const std::string& keyId, const std::string& sourceIp) {
  // The windows are per minute (spec: rate limits).
  auto policy = [](const char* name, const RateWindows::Outcome& o) {
    return RatePolicy{name, o.limit, 60, o.remaining < 0 ? 0 : o.remaining, o.resetInMillis};
  };
  auto decide = [&](const RateWindows::Outcome& o, std::vector<RatePolicy> policies) {
    return RateDecision{o.allowed, o.limit, o.remaining, o.resetInMillis, std::move(policies)};
  };
  // The IP window is counted first so that unauthenticated floods (key
  // guessing) are limited before any key lookup matters.
  // Both windows in one call: on PostgreSQL one round trip, not two.
  RateWindows::Outcome ip{};
  std::optional<RateWindows::Outcome> counted;
  if (keyId.empty()) {
    ip = ctx_.limiter->Hit("ip:" + sourceIp, ctx_.limits().rateLimitPerIp);
  } else {
    auto both = ctx_.limiter->HitBoth("ip:" + sourceIp, ctx_.limits().rateLimitPerIp, "key:" + keyId,
                                      ctx_.limits().rateLimitPerKey);
    ip = both.first;
    counted = both.second;
  }
  if (!ip.allowed && ctx_.refusedByIp) ctx_.refusedByIp->Inc();
  if (!ip.allowed || !counted) return decide(ip, {policy("ip", ip)});
  const RateWindows::Outcome key = *counted;
  if (!key.allowed && ctx_.refusedByKey) ctx_.refusedByKey->Inc();
  std::vector<RatePolicy> both{policy("key", key), policy("ip", ip)};
  if (!key.allowed) return decide(key, std::move(both));
  return decide(key.remaining <= ip.remaining ? key : ip, std::move(both));
}

}  // namespace livechat
