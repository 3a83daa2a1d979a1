// DirectoryService: who is in a store: the store itself, its customers
// (contacts), members and API keys (directory_service.cc).
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include "livechat/services/common.h"

namespace livechat {

// ---- Operator inputs (livechatctl, demo) ----
struct CreateShopInput {
  std::string name;
  Plan plan = Plan::kPro;
  bool autoAssign = false;
};
struct CreateKeyInput {
  std::string name;
  std::uint32_t permissions = 0;
  bool legacy = false;
};
struct CreatedKey {
  ApiKey key;
  std::string secret;  // the full sk_ value, returned once and never again
};
struct CreateMemberInput {
  std::string email;
  std::optional<std::string> firstName, lastName;
  std::string role = "member";
  std::optional<std::string> password;
  bool active = true;
  std::optional<std::string> avatarUrl;
};
// Relay connection arguments (GraphQL customers). Forward with first/after,
// backward with last/before. No default and no cap (spec); negative is
// INVALID_PARAMS.
struct CustomerPageRequest {
  std::optional<std::int64_t> first, last;
  std::optional<std::string> after, before;
};
struct CustomerPage {
  std::vector<Customer> items;
  std::vector<std::string> cursors;  // one per item
  bool hasNextPage = false, hasPreviousPage = false;
  std::int64_t totalCount = 0;       // the whole store, not the page
};

class DirectoryService {
 public:
  explicit DirectoryService(internal::ServiceContext& ctx);
  DirectoryService(const DirectoryService&) = delete;
  DirectoryService& operator=(const DirectoryService&) = delete;

  // ---- Customers and members ----
  Result<Customer> GetCustomer(const Principal& p, const std::string& customerUuid);
  Result<Page<Conversation>> ListCustomerConversations(const Principal& p, const std::string& customerUuid,
                                                       const PageRequest& page);
  // Read customers permission. Stable order: createdAt, then id.
  Result<CustomerPage> ListCustomersPage(const Principal& p, const CustomerPageRequest& r);
  Result<std::vector<Member>> ListMembers(const Principal& p);
  Result<Member> GetMember(const Principal& p, const std::string& memberId);

  // ---- Operator (System principal only; others get FORBIDDEN) ----
  Result<Shop> CreateShop(const CreateShopInput& in);
  Result<Shop> GetShop(const std::string& shopId);
  Result<CreatedKey> CreateApiKey(const Principal& p, const CreateKeyInput& in);
  Result<std::vector<ApiKey>> ListApiKeys(const Principal& p);
  Status DeleteApiKey(const Principal& p, const std::string& keyId);
  // Takes effect on the key's next request (spec: Authentication §6).
  Result<ApiKey> UpdateApiKeyPermissions(const Principal& p, const std::string& keyId, std::uint32_t permissions);
  Result<Member> CreateMember(const Principal& p, const CreateMemberInput& in);

 private:
  internal::ServiceContext& ctx_;
};

}  // namespace livechat
