// Who is calling: resolved from a credential by AuthService::Authenticate*, then
// passed to every call. The store id always comes from here, never from input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "livechat/model.h"

namespace livechat {

struct Principal {
  enum class Kind : std::uint8_t {
    kApiKey,        // X-Api-Key (REST) or the same key on GraphQL / MCP
    kAdminSession,  // a team member logged in to the admin inbox (/api/chat/...)
    kSystem,        // the operator (livechatctl, demo seeding): every permission
  };
  Kind kind = Kind::kApiKey;
  std::string shopId;
  std::uint32_t permissions = 0;
  bool legacy = false;                 // key from before permissions: passes every check
  std::optional<std::string> keyId;    // kApiKey
  std::optional<std::string> memberId; // kAdminSession: the acting member

  bool Has(Permission p) const {
    if (legacy || kind != Kind::kApiKey) return true;
    return (permissions & p) != 0;
  }

  static Principal System(std::string shopId) {
    Principal p;
    p.kind = Kind::kSystem;
    p.shopId = std::move(shopId);
    return p;
  }
};

}  // namespace livechat
