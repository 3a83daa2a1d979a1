// DirectoryService: stores, customers, members and API keys. The customer
// connection behind the GraphQL Customer API is Relay pagination over the
// whole store, keyset on createdAt + id.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "livechat/crypto.h"
#include "core/cursor.h"
#include "core/service_internal.h"
#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"
#include "livechat/chat_service.h"

namespace livechat {

using namespace internal;

namespace {

Result<std::optional<CustomerKey>> DecodeArg(const std::optional<std::string>& cursor, std::string_view name) {
  if (!cursor) return std::optional<CustomerKey>();
  auto key = DecodeCustomerCursor(*cursor);
  if (!key) return Invalid(std::string(name) + " is not a valid cursor: pass a cursor from this API unchanged");
  return std::optional<CustomerKey>(std::move(*key));
}

// True when a customer exists at `key` or on the given side of it.
Result<bool> ExistsBeyond(StoreReader& r, const std::string& shopId, const CustomerKey& key, bool before) {
  CustomerQuery q;
  q.shopId = shopId;
  q.limit = 1;
  if (before) {
    q.before = key;
    q.descending = true;
  } else {
    q.after = key;
  }
  LC_ASSIGN_OR_RETURN(auto rows, r.ListCustomers(q));
  if (!rows.empty()) return true;
  LC_ASSIGN_OR_RETURN(auto at, r.GetCustomer(shopId, key.id));
  return at.has_value() && at->createdAt == key.createdAt;
}

}  // namespace

Result<CustomerPage> DirectoryService::ListCustomersPage(const Principal& p, const CustomerPageRequest& req) {
  LC_RETURN_IF_ERROR(Require(p, kPermReadCustomers));
  if (req.first && *req.first < 0) return Invalid("first must not be negative");
  if (req.last && *req.last < 0) return Invalid("last must not be negative");
  LC_ASSIGN_OR_RETURN(auto after, DecodeArg(req.after, "after"));
  LC_ASSIGN_OR_RETURN(auto before, DecodeArg(req.before, "before"));
  constexpr std::int64_t kAll = std::numeric_limits<std::int64_t>::max() / 2;

  return ReadValue<CustomerPage>(ctx_.store(), [&](StoreReader& r) -> Result<CustomerPage> {
    CustomerPage page;
    LC_ASSIGN_OR_RETURN(page.totalCount, r.CountCustomers(p.shopId));
    CustomerQuery q;
    q.shopId = p.shopId;
    q.after = after;
    q.before = before;
    const bool backward = req.last && !req.first;
    q.descending = backward;
    const std::int64_t want = backward ? *req.last : req.first.value_or(kAll);
    q.limit = want >= kAll ? kAll : want + 1;  // one extra row tells whether more exist
    LC_ASSIGN_OR_RETURN(auto rows, r.ListCustomers(q));
    const bool more = static_cast<std::int64_t>(rows.size()) > want;
    if (more) rows.resize(static_cast<std::size_t>(want));
    if (backward) {
      std::reverse(rows.begin(), rows.end());
      page.hasPreviousPage = more;
      if (before) {
        LC_ASSIGN_OR_RETURN(page.hasNextPage, ExistsBeyond(r, p.shopId, *before, /*before=*/false));
      }
    } else {
      page.hasNextPage = more;
      if (after) {
        LC_ASSIGN_OR_RETURN(page.hasPreviousPage, ExistsBeyond(r, p.shopId, *after, /*before=*/true));
      }
      // first and last together: Relay applies `last` to what `first` kept.
      if (req.last && static_cast<std::int64_t>(rows.size()) > *req.last) {
        rows.erase(rows.begin(), rows.end() - *req.last);
        page.hasPreviousPage = true;
      }
    }
    page.cursors.reserve(rows.size());
    for (const auto& c : rows) page.cursors.push_back(EncodeCustomerCursor({c.createdAt, c.id}));
    page.items = std::move(rows);
    return page;
  });
}

// ---------------------------------------------------------------- customers and members

Result<Customer> DirectoryService::GetCustomer(const Principal& p, const std::string& customerUuid) {
  LC_RETURN_IF_ERROR(Require(p, kPermReadCustomers));
  return ReadValue<Customer>(ctx_.store(), [&](StoreReader& r) -> Result<Customer> {
    LC_ASSIGN_OR_RETURN(auto c, r.GetCustomer(p.shopId, customerUuid));
    if (!c) return NotFound("customer");
    return std::move(*c);
  });
}

Result<Page<Conversation>> DirectoryService::ListCustomerConversations(const Principal& p, const std::string& customerUuid,
                                                                  const PageRequest& page) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  LC_ASSIGN_OR_RETURN(int limit, ResolveLimit(page.limit, ctx_.limits().customerConversationsDefault,
                                              ctx_.limits().customerConversationsMax));
  LC_ASSIGN_OR_RETURN(auto exists, ReadValue<bool>(ctx_.store(), [&](StoreReader& r) -> Result<bool> {
                        LC_ASSIGN_OR_RETURN(auto c, r.GetCustomer(p.shopId, customerUuid));
                        return c.has_value();
                      }));
  if (!exists) return NotFound("customer");
  ConversationQuery q;
  q.shopId = p.shopId;
  q.customerUuid = customerUuid;
  return RunConversationQuery(ctx_.store(), std::move(q), page, limit);
}

Result<std::vector<Member>> DirectoryService::ListMembers(const Principal& p) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  return ReadValue<std::vector<Member>>(ctx_.store(), [&](StoreReader& r) { return r.ListMembers(p.shopId); });
}

Result<Member> DirectoryService::GetMember(const Principal& p, const std::string& memberId) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  return ReadValue<Member>(ctx_.store(), [&](StoreReader& r) -> Result<Member> {
    LC_ASSIGN_OR_RETURN(auto m, r.GetMember(p.shopId, memberId));
    if (!m) return NotFound("member");
    return std::move(*m);
  });
}

Result<Shop> DirectoryService::CreateShop(const CreateShopInput& in) {
  LC_RETURN_IF_ERROR(CheckText(in.name, "name", 255));
  Shop s;
  s.id = "shop_" + ctx_.random->Hex(8);
  s.appId = "app_" + ctx_.random->Hex(12);
  s.name = in.name;
  s.plan = in.plan;
  s.autoAssign = in.autoAssign;
  s.createdAt = ctx_.clock->NowMillis();
  LC_RETURN_IF_ERROR(ctx_.store().Write([&](StoreWriter& w) { return w.InsertShop(s); }));
  return s;
}

Result<Shop> DirectoryService::GetShop(const std::string& shopId) {
  return ReadValue<Shop>(ctx_.store(), [&](StoreReader& r) -> Result<Shop> {
    LC_ASSIGN_OR_RETURN(auto s, r.GetShop(shopId));
    if (!s) return NotFound("store");
    return std::move(*s);
  });
}

Result<CreatedKey> DirectoryService::CreateApiKey(const Principal& p, const CreateKeyInput& in) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  LC_RETURN_IF_ERROR(CheckText(in.name, "name", ctx_.limits().keyNameMax));
  const Millis now = ctx_.clock->NowMillis();
  return WriteValue<CreatedKey>(ctx_.store(), [&](StoreWriter& w) -> Result<CreatedKey> {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    if (!PlanAllowsApiKeys(shop->plan))
      return MakeError(ErrorCode::kForbidden,
                       fmt::format("creating an API key requires the Pro or Plus plan (this store is on {})",
                                   PlanName(shop->plan)));
    LC_ASSIGN_OR_RETURN(auto keys, w.ListApiKeys(p.shopId));
    int active = 0;
    for (const auto& k : keys)
      if (!k.revokedAt) ++active;
    if (active >= ctx_.limits().maxActiveKeys)
      return MakeError(ErrorCode::kConflict, fmt::format("this store already has {} active API keys (the maximum): "
                                                         "delete one before creating another",
                                                         ctx_.limits().maxActiveKeys));
    CreatedKey out;
    out.secret = "sk_" + ctx_.random->Hex(16);
    out.key.id = "key_" + ctx_.random->Hex(8);
    out.key.shopId = p.shopId;
    out.key.name = in.name;
    out.key.keyHash = Sha256Hex(out.secret);
    out.key.prefix = out.secret.substr(0, 7);
    out.key.legacy = in.legacy;
    out.key.permissions = in.legacy ? 0 : in.permissions;
    out.key.createdAt = now;
    out.key.activeFrom = now + ctx_.limits().keyActivationDelayMillis;
    LC_RETURN_IF_ERROR(w.InsertApiKey(out.key));
    return out;
  });
}

Result<std::vector<ApiKey>> DirectoryService::ListApiKeys(const Principal& p) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  return ReadValue<std::vector<ApiKey>>(ctx_.store(), [&](StoreReader& r) { return r.ListApiKeys(p.shopId); });
}

Status DirectoryService::DeleteApiKey(const Principal& p, const std::string& keyId) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  const Millis now = ctx_.clock->NowMillis();
  return ctx_.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(bool ok, w.RevokeApiKey(p.shopId, keyId, now));
    if (!ok) return NotFound("API key");
    return Status::Ok();
  });
}

Result<ApiKey> DirectoryService::UpdateApiKeyPermissions(const Principal& p, const std::string& keyId,
                                                    std::uint32_t permissions) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  return WriteValue<ApiKey>(ctx_.store(), [&](StoreWriter& w) -> Result<ApiKey> {
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateApiKeyPermissions(p.shopId, keyId, permissions));
    if (!ok) return NotFound("API key");
    LC_ASSIGN_OR_RETURN(auto keys, w.ListApiKeys(p.shopId));
    for (auto& k : keys)
      if (k.id == keyId) return std::move(k);
    return NotFound("API key");
  });
}

Result<Member> DirectoryService::CreateMember(const Principal& p, const CreateMemberInput& in) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  LC_RETURN_IF_ERROR(CheckText(in.email, "email", 254));
  if (in.email.find('@') == std::string::npos) return Invalid("email must be an email address");
  if (!IsMemberRole(in.role)) return Invalid(std::string(kMemberRoleMessage));
  if (in.firstName) LC_RETURN_IF_ERROR(CheckText(in.firstName, "firstName", 100));
  if (in.lastName) LC_RETURN_IF_ERROR(CheckText(in.lastName, "lastName", 100));
  Member m;
  m.id = "mem_" + ctx_.random->Hex(8);
  m.shopId = p.shopId;
  m.email = in.email;
  m.firstName = in.firstName;
  m.lastName = in.lastName;
  m.role = in.role;
  m.active = in.active;
  m.enableAwayMode = false;
  m.avatarUrl = in.avatarUrl.value_or("https://www.gravatar.com/avatar/" + Sha256Hex(in.email).substr(0, 32) + "?d=identicon");
  m.createdAt = ctx_.clock->NowMillis();
  if (in.password) {
    if (in.password->size() < 8) return Invalid("password must be at least 8 characters");
    m.passwordHash = HashPassword(*in.password);
    if (m.passwordHash.empty()) return MakeError(ErrorCode::kInternal, "could not hash the password");
  }
  LC_RETURN_IF_ERROR(ctx_.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    LC_ASSIGN_OR_RETURN(auto same, w.FindMembersByEmail(in.email));
    for (const auto& other : same)
      if (other.shopId == p.shopId) return Invalid("a member with this email already exists in this store");
    return w.InsertMember(m);
  }));
  return m;
}

}  // namespace livechat
