// Outbound request safety (SSRF rules): which addresses a webhook may reach,
// and the resolver seam so the address checked is the address connected to.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/result.h"

namespace livechat {

// Thread-safe.
class Resolver {
 public:
  virtual ~Resolver() = default;
  // Every address (textual IPv4 / IPv6) the host name resolves to. An IP
  // literal resolves to itself. Error kInvalidParams when the name does not resolve.
  virtual Result<std::vector<std::string>> Resolve(const std::string& host) = 0;
  // getaddrinfo. It belongs to livechat; never delete it.
  static Resolver* Default();
};

// A table for tests: host -> addresses; IP literals resolve to themselves.
// Set() replaces a host's entry, so a test can re-point a name between two
// deliveries (DNS rebinding). Thread-safe, as every Resolver.
class TableResolver final : public Resolver {
 public:
  void Set(std::string host, std::vector<std::string> addresses);
  Result<std::vector<std::string>> Resolve(const std::string& host) override;

 private:
  std::mutex mu_;
  std::vector<std::pair<std::string, std::vector<std::string>>> table_;
};

// True only for globally routable unicast addresses. False for unspecified,
// loopback, private (RFC 1918, IPv6 ULA), CGNAT, link-local, multicast,
// broadcast, reserved, benchmarking and documentation ranges, and for IPv6
// forms that embed a non-public IPv4 address (mapped, compatible, NAT64, 6to4).
// False for anything that is not an IP address.
bool IsPublicAddress(std::string_view ip);

struct HttpsTarget {
  std::string url;           // as given
  std::string host;          // lowercase, without brackets
  int port = 443;
  std::string pathAndQuery;  // "/" when empty
  std::string address;       // the checked address to connect to
};

// Parses an https URL (no user info, port 1-65535, at most 2,048 bytes).
// INVALID_PARAMS with a reason otherwise.
Result<HttpsTarget> ParseHttpsUrl(std::string_view url);

// ParseHttpsUrl, then resolves the host and requires every address to be
// public (unless allowPrivate, for local development and tests). The first
// address becomes target.address: connect there, not to a new lookup.
Result<HttpsTarget> CheckWebhookTarget(std::string_view url, Resolver& resolver, bool allowPrivate);

}  // namespace livechat
