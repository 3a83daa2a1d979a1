// ChatService: the customer connection behind the GraphQL Customer API
// (Relay pagination over the whole store, keyset on createdAt + id).
#include <algorithm>
#include <limits>

#include "core/cursor.h"
#include "core/service_internal.h"
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

Result<CustomerPage> ChatService::ListCustomersPage(const Principal& p, const CustomerPageRequest& req) {
  LC_RETURN_IF_ERROR(Require(p, kPermReadCustomers));
  if (req.first && *req.first < 0) return Invalid("first must not be negative");
  if (req.last && *req.last < 0) return Invalid("last must not be negative");
  LC_ASSIGN_OR_RETURN(auto after, DecodeArg(req.after, "after"));
  LC_ASSIGN_OR_RETURN(auto before, DecodeArg(req.before, "before"));
  constexpr std::int64_t kAll = std::numeric_limits<std::int64_t>::max() / 2;

  return ReadValue<CustomerPage>(store(), [&](StoreReader& r) -> Result<CustomerPage> {
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

}  // namespace livechat
