// The Store's account records: shops, API keys, members and their admin
// sessions. Part of StoreReader / StoreWriter (livechat/store.h), whose
// rules (shop scoping, missing vs. failed, Insert/Update/Delete results)
// hold here too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "livechat/model.h"
#include "livechat/result.h"

namespace livechat {

class ShopReads {
 public:
  virtual ~ShopReads() = default;
  virtual Result<std::optional<Shop>> GetShop(const std::string& shopId) = 0;
  virtual Result<std::optional<Shop>> GetShopByAppId(const std::string& appId) = 0;
};

class ShopWrites {
 public:
  virtual ~ShopWrites() = default;
  virtual Status InsertShop(const Shop& s) = 0;
  virtual Result<bool> UpdateShop(const Shop& s) = 0;
};

class ApiKeyReads {
 public:
  virtual ~ApiKeyReads() = default;
  // Across shops (the key names its shop).
  virtual Result<std::optional<ApiKey>> FindApiKeyByHash(const std::string& keyHash) = 0;
  // createdAt order, revoked keys included.
  virtual Result<std::vector<ApiKey>> ListApiKeys(const std::string& shopId) = 0;
};

class ApiKeyWrites {
 public:
  virtual ~ApiKeyWrites() = default;
  virtual Status InsertApiKey(const ApiKey& k) = 0;
  virtual Result<bool> RevokeApiKey(const std::string& shopId, const std::string& keyId, Millis at) = 0;
  // Replaces the permission mask (and clears `legacy`) of a key that is not revoked.
  virtual Result<bool> UpdateApiKeyPermissions(const std::string& shopId, const std::string& keyId,
                                               std::uint32_t permissions) = 0;
};

// Members in createdAt order.
class MemberAndSessionReads {
 public:
  virtual ~MemberAndSessionReads() = default;
  virtual Result<std::optional<Member>> GetMember(const std::string& shopId, const std::string& memberId) = 0;
  virtual Result<std::vector<Member>> ListMembers(const std::string& shopId) = 0;
  // Across shops (login); email compared case-insensitively.
  virtual Result<std::vector<Member>> FindMembersByEmail(const std::string& email) = 0;
  // Across shops: the token names its session.
  virtual Result<std::optional<AdminSession>> GetSession(const std::string& tokenHash) = 0;
};

class MemberAndSessionWrites {
 public:
  virtual ~MemberAndSessionWrites() = default;
  virtual Status InsertMember(const Member& m) = 0;
  virtual Result<bool> UpdateMember(const Member& m) = 0;
  virtual Result<bool> DeleteMember(const std::string& shopId, const std::string& memberId) = 0;
  virtual Status InsertSession(const AdminSession& s) = 0;
  virtual Status DeleteSession(const std::string& tokenHash) = 0;
  // Admin sessions of the store (of one member when `memberId` is not empty).
  // Returns how many were removed.
  virtual Result<std::int64_t> DeleteSessions(const std::string& shopId, const std::string& memberId) = 0;
};

}  // namespace livechat
