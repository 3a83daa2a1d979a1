#include "livechat/address_policy.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

namespace livechat {
namespace {

using V4 = std::array<std::uint8_t, 4>;
using V6 = std::array<std::uint8_t, 16>;

bool InV4(const V4& a, std::uint32_t net, int prefix) {
  std::uint32_t v = (std::uint32_t{a[0]} << 24) | (std::uint32_t{a[1]} << 16) | (std::uint32_t{a[2]} << 8) | a[3];
  std::uint32_t mask = prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix);
  return (v & mask) == (net & mask);
}

constexpr std::uint32_t Ip4(int a, int b, int c, int d) {
  return (static_cast<std::uint32_t>(a) << 24) | (static_cast<std::uint32_t>(b) << 16) |
         (static_cast<std::uint32_t>(c) << 8) | static_cast<std::uint32_t>(d);
}

bool PublicV4(const V4& a) {
  struct Range {
    std::uint32_t net;
    int prefix;
  };
  static constexpr Range kRefused[] = {
      {Ip4(0, 0, 0, 0), 8},        // "this network", unspecified
      {Ip4(10, 0, 0, 0), 8},       // private
      {Ip4(100, 64, 0, 0), 10},    // CGNAT shared address space
      {Ip4(127, 0, 0, 0), 8},      // loopback
      {Ip4(169, 254, 0, 0), 16},   // link-local (cloud metadata lives here)
      {Ip4(172, 16, 0, 0), 12},    // private
      {Ip4(192, 0, 0, 0), 24},     // IETF protocol assignments
      {Ip4(192, 0, 2, 0), 24},     // documentation TEST-NET-1
      {Ip4(192, 88, 99, 0), 24},   // deprecated 6to4 relay anycast
      {Ip4(192, 168, 0, 0), 16},   // private
      {Ip4(198, 18, 0, 0), 15},    // benchmarking
      {Ip4(198, 51, 100, 0), 24},  // documentation TEST-NET-2
      {Ip4(203, 0, 113, 0), 24},   // documentation TEST-NET-3
      {Ip4(224, 0, 0, 0), 4},      // multicast
      {Ip4(240, 0, 0, 0), 4},      // reserved, and 255.255.255.255 broadcast
  };
  for (const auto& r : kRefused)
    if (InV4(a, r.net, r.prefix)) return false;
  return true;
}

bool Prefix6(const V6& a, std::initializer_list<std::uint8_t> bytes, int bits) {
  int i = 0;
  for (std::uint8_t b : bytes) {
    int take = std::min(8, bits - i * 8);
    if (take <= 0) break;
    std::uint8_t mask = static_cast<std::uint8_t>(0xFF << (8 - take));
    if ((a[static_cast<std::size_t>(i)] & mask) != (b & mask)) return false;
    ++i;
  }
  return true;
}

V4 Tail4(const V6& a, std::size_t at = 12) { return V4{a[at], a[at + 1], a[at + 2], a[at + 3]}; }

bool PublicV6(const V6& a) {
  static const V6 kZero{};
  if (a == kZero) return false;  // unspecified ::
  V6 loop{};
  loop[15] = 1;
  if (a == loop) return false;  // ::1
  // IPv4-mapped ::ffff:0:0/96 and IPv4-compatible ::/96: judge the IPv4 inside.
  bool first10Zero = std::all_of(a.begin(), a.begin() + 10, [](std::uint8_t b) { return b == 0; });
  if (first10Zero && a[10] == 0xff && a[11] == 0xff) return PublicV4(Tail4(a));
  if (first10Zero && a[10] == 0 && a[11] == 0) return false;  // deprecated compatible form
  if (Prefix6(a, {0x00, 0x64, 0xff, 0x9b}, 32) && std::all_of(a.begin() + 4, a.begin() + 12, [](std::uint8_t b) {
        return b == 0;
      }))
    return PublicV4(Tail4(a));                                   // NAT64 64:ff9b::/96
  if (Prefix6(a, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48)) return false;  // local-use NAT64
  if (Prefix6(a, {0x20, 0x02}, 16)) return PublicV4(Tail4(a, 2));        // 6to4 embeds an IPv4
  if (Prefix6(a, {0x01, 0x00, 0, 0, 0, 0, 0, 0}, 64)) return false;      // discard-only
  if (Prefix6(a, {0x20, 0x01, 0x00}, 23)) return false;                  // IETF protocol assignments (Teredo, ...)
  if (Prefix6(a, {0x20, 0x01, 0x0d, 0xb8}, 32)) return false;            // documentation
  if (Prefix6(a, {0x3f, 0xff}, 20)) return false;                        // documentation (RFC 9637)
  if (Prefix6(a, {0xfc}, 7)) return false;                               // unique local
  if (Prefix6(a, {0xfe, 0x80}, 10)) return false;                        // link-local
  if (Prefix6(a, {0xfe, 0xc0}, 10)) return false;                        // site-local (deprecated)
  if (Prefix6(a, {0xff}, 8)) return false;                               // multicast
  return Prefix6(a, {0x20}, 3);  // only global unicast 2000::/3 is routable
}

class GetAddrInfoResolver final : public Resolver {
 public:
  Result<std::vector<std::string>> Resolve(const std::string& host) override {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res);
    if (rc != 0 || !res)
      return MakeError(ErrorCode::kInvalidParams, "url host \"" + host + "\" does not resolve");
    std::vector<std::string> out;
    for (addrinfo* p = res; p; p = p->ai_next) {
      char buf[INET6_ADDRSTRLEN] = {};
      if (p->ai_family == AF_INET)
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(p->ai_addr)->sin_addr, buf, sizeof buf);
      else if (p->ai_family == AF_INET6)
        inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(p->ai_addr)->sin6_addr, buf, sizeof buf);
      else
        continue;
      if (std::find(out.begin(), out.end(), buf) == out.end()) out.emplace_back(buf);
    }
    freeaddrinfo(res);
    if (out.empty()) return MakeError(ErrorCode::kInvalidParams, "url host \"" + host + "\" has no address");
    return out;
  }
};

bool IsIpLiteral(const std::string& s) {
  std::uint8_t buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

Error Bad(std::string why) { return MakeError(ErrorCode::kInvalidParams, "url " + std::move(why)); }

}  // namespace

Resolver* Resolver::Default() {
  static GetAddrInfoResolver* r = new GetAddrInfoResolver();  // never destroyed
  return r;
}

void TableResolver::Set(std::string host, std::vector<std::string> addresses) {
  // Fix: replace an existing entry. Appending left the first entry in force
  // (Resolve returns the first match), so a re-pointed name never changed.
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [h, a] : table_)
    if (h == host) {
      a = std::move(addresses);
      return;
    }
  table_.emplace_back(std::move(host), std::move(addresses));
}

Result<std::vector<std::string>> TableResolver::Resolve(const std::string& host) {
  if (IsIpLiteral(host)) return std::vector<std::string>{host};
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [h, a] : table_)
    if (h == host) return a;
  return MakeError(ErrorCode::kInvalidParams, "url host \"" + host + "\" does not resolve");
}

bool IsPublicAddress(std::string_view ip) {
  std::string s(ip);
  V4 a4;
  if (inet_pton(AF_INET, s.c_str(), a4.data()) == 1) return PublicV4(a4);
  V6 a6;
  if (inet_pton(AF_INET6, s.c_str(), a6.data()) == 1) return PublicV6(a6);
  return false;
}

Result<HttpsTarget> ParseHttpsUrl(std::string_view url) {
  if (url.empty()) return Bad("is required");
  if (url.size() > 2048) return Bad("must be at most 2,048 bytes");
  for (char c : url)
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f)
      return Bad("must not contain spaces, control or non-ASCII characters (percent-encode them)");
  constexpr std::string_view kScheme = "https://";
  if (url.size() < kScheme.size() ||
      !std::equal(kScheme.begin(), kScheme.end(), url.begin(), [](char a, char b) { return a == std::tolower(b); }))
    return Bad("must start with https://");
  std::string_view rest = url.substr(kScheme.size());
  std::size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  std::string_view tail = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  if (auto hash = tail.find('#'); hash != std::string_view::npos) tail = tail.substr(0, hash);
  if (authority.find('@') != std::string_view::npos) return Bad("must not contain user info");
  HttpsTarget t;
  t.url = std::string(url);
  std::string_view hostPart = authority;
  std::string_view portPart;
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string_view::npos) return Bad("has an unterminated IPv6 literal");
    hostPart = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return Bad("has junk after the IPv6 literal");
      portPart = after.substr(1);
    }
    std::uint8_t buf[16];
    if (inet_pton(AF_INET6, std::string(hostPart).c_str(), buf) != 1) return Bad("has an invalid IPv6 literal");
  } else if (auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    hostPart = authority.substr(0, colon);
    portPart = authority.substr(colon + 1);
  }
  if (hostPart.empty()) return Bad("has no host");
  if (!portPart.data() || authority.find(':') == std::string_view::npos) {
    t.port = 443;
  } else {
    int port = 0;
    auto [p, ec] = std::from_chars(portPart.data(), portPart.data() + portPart.size(), port);
    if (portPart.empty() || ec != std::errc() || p != portPart.data() + portPart.size() || port < 1 || port > 65535)
      return Bad("has an invalid port");
    t.port = port;
  }
  t.host.resize(hostPart.size());
  std::transform(hostPart.begin(), hostPart.end(), t.host.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (char c : t.host)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':'))
      return Bad("has an invalid host name");
  t.pathAndQuery = tail.empty() ? "/" : std::string(tail);
  if (t.pathAndQuery.front() == '?') t.pathAndQuery = "/" + t.pathAndQuery;
  return t;
}

Result<HttpsTarget> CheckWebhookTarget(std::string_view url, Resolver& resolver, bool allowPrivate) {
  LC_ASSIGN_OR_RETURN(auto t, ParseHttpsUrl(url));
  LC_ASSIGN_OR_RETURN(auto addrs, resolver.Resolve(t.host));
  if (addrs.empty()) return Bad("host has no address");
  if (!allowPrivate) {
    // Every address must be public: a name that also points inside would let
    // a later connection pick the private one.
    for (const auto& a : addrs)
      if (!IsPublicAddress(a))
        return Bad("must resolve to a public address (" + t.host + " resolves to " + a +
                   ", which is private, loopback, link-local or reserved)");
  }
  t.address = addrs.front();
  return t;
}

}  // namespace livechat
