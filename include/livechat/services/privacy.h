// PrivacyService: the platform's requests (uninstall, redaction, data
// requests), channel integrations, install state and contact deletion
// (privacy_service.cc).
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include "livechat/services/common.h"
#include "livechat/services/files.h"

namespace livechat {

// ---- Platform requests and privacy (privacy_service.cc) ----
namespace platform_topic {
inline constexpr const char* kAppUninstalled = "app_uninstalled";
inline constexpr const char* kCustomersRedact = "customers_redact";
inline constexpr const char* kCustomersDataRequest = "customers_data_request";
inline constexpr const char* kShopRedact = "shop_redact";
}  // namespace platform_topic

// A signed request from the e-commerce platform, already verified and
// parsed by its adapter. The store is the principal's.
struct PlatformRequestInput {
  std::string topic;                       // one of platform_topic
  std::optional<std::string> deliveryId;   // the platform's webhook id header
  std::string bodyDigest;                  // SHA-256 hex of the raw body
  // customers_redact / customers_data_request: who. A contact matches by
  // shopifyId == customerId, or by email (case-insensitive).
  std::optional<std::string> customerId, customerEmail, customerPhone;
  std::vector<std::string> orders;         // orders_to_redact / orders_requested: order ids or numbers
  std::optional<std::string> dataRequestId;  // customers_data_request: required
};

class PrivacyService {
 public:
  // `files` removes a shop redact's uploaded bytes.
  PrivacyService(internal::ServiceContext& ctx, FileService& files);
  PrivacyService(const PrivacyService&) = delete;
  PrivacyService& operator=(const PrivacyService&) = delete;

  // ---- Platform requests, privacy, install state (privacy_service.cc) ----
  // Applies one platform request to the principal's store (System only) and
  // records it in the audit trail in the same transaction. The same request
  // again (same delivery id, or same body; a data request: same data request
  // id) changes nothing and is recorded with outcome "replay". A request the
  // store's state forbids (shop redact while installed) is recorded as
  // "refused" and returned as such, not as an error. Unknown store: NOT_FOUND.
  Result<PlatformRequest> ApplyPlatformRequest(const Principal& p, const PlatformRequestInput& in);
  // The audit trail, newest first; `limit` 1..1000.
  // limit: 1 to kPlatformRequestsLimitMax.
  static constexpr int kPlatformRequestsLimitMax = 1000;
  Result<std::vector<PlatformRequest>> ListPlatformRequests(const Principal& p, int limit);
  Result<std::vector<DataRequest>> ListDataRequests(const Principal& p);
  Result<DataRequest> GetDataRequest(const Principal& p, const std::string& id);
  // email, facebook, instagram, whatsapp, each with its state (connected
  // unless disconnected by uninstall or the operator).
  Result<std::vector<ChannelIntegration>> ListChannelIntegrations(const Principal& p);
  Result<ChannelIntegration> SetChannelIntegration(const Principal& p, const std::string& channel, bool connected);
  // Marks the store installed again (or uninstalled) without a platform
  // request. Channels stay as they are; sessions are not restored.
  Result<Shop> SetShopInstalled(const Principal& p, bool installed);
  // The admin inbox's contact delete (an admin session, or the operator; API
  // keys: FORBIDDEN, spec rule 8). The contact row goes; its conversations
  // stay, detached and redacted.
  Status DeleteCustomer(const Principal& p, const std::string& customerUuid);

 private:
  internal::ServiceContext& ctx_;
  FileService& files_;
};

}  // namespace livechat
