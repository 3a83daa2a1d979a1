#include <arpa/inet.h>

#include <cctype>
#include <cstring>

#include "livechat/http.h"

namespace livechat {
namespace {

struct IpBytes {
  bool v6 = false;
  std::uint8_t bytes[16] = {};
};

// Parses a bare IPv4 or IPv6 address. IPv4-mapped IPv6 ("::ffff:10.0.0.1") is
// folded to IPv4 so a dual-stack listener matches IPv4 networks.
std::optional<IpBytes> ParseIp(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::string s(text);
  // A zone index ("fe80::1%eth0") names an interface, not part of the address.
  if (auto pct = s.find('%'); pct != std::string::npos) s.resize(pct);
  IpBytes ip;
  if (inet_pton(AF_INET, s.c_str(), ip.bytes) == 1) return ip;
  if (inet_pton(AF_INET6, s.c_str(), ip.bytes) == 1) {
    static const std::uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(ip.bytes, kMapped, 12) == 0) {
      std::memmove(ip.bytes, ip.bytes + 12, 4);
      std::memset(ip.bytes + 4, 0, 12);
      return ip;
    }
    ip.v6 = true;
    return ip;
  }
  return std::nullopt;
}

// X-Forwarded-For entries sometimes carry a port ("1.2.3.4:5678",
// "[2001:db8::1]:443") or brackets; reduce them to the bare address.
std::string StripPort(std::string_view entry) {
  if (!entry.empty() && entry.front() == '[') {
    auto close = entry.find(']');
    if (close != std::string_view::npos) return std::string(entry.substr(1, close - 1));
  }
  auto colon = entry.find(':');
  if (colon != std::string_view::npos && entry.find(':', colon + 1) == std::string_view::npos)
    return std::string(entry.substr(0, colon));
  return std::string(entry);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool Trusted(std::string_view address, const std::vector<Cidr>& proxies) {
  for (const auto& net : proxies)
    if (net.Contains(address)) return true;
  return false;
}

}  // namespace

std::optional<Cidr> Cidr::Parse(std::string_view text) {
  text = Trim(text);
  std::string_view addr = text;
  std::optional<int> prefix;
  if (auto slash = text.find('/'); slash != std::string_view::npos) {
    addr = text.substr(0, slash);
    std::string_view digits = text.substr(slash + 1);
    if (digits.empty() || digits.size() > 3) return std::nullopt;
    int value = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + (c - '0');
    }
    prefix = value;
  }
  auto ip = ParseIp(addr);
  if (!ip) return std::nullopt;
  const int maxPrefix = ip->v6 ? 128 : 32;
  // "::ffff:10.0.0.0/104" folds to IPv4; its prefix counts the 96 mapped bits.
  if (prefix && !ip->v6 && addr.find(':') != std::string_view::npos) {
    if (*prefix < 96) return std::nullopt;
    *prefix -= 96;
  }
  if (prefix && (*prefix < 0 || *prefix > maxPrefix)) return std::nullopt;

  Cidr out;
  out.text_ = std::string(text);
  out.v6_ = ip->v6;
  out.prefix_ = prefix.value_or(maxPrefix);
  std::memcpy(out.bytes_, ip->bytes, sizeof out.bytes_);
  // Clear host bits so Contains compares the network part only.
  for (int bit = out.prefix_; bit < maxPrefix; ++bit)
    out.bytes_[bit / 8] = static_cast<std::uint8_t>(out.bytes_[bit / 8] & ~(0x80 >> (bit % 8)));
  return out;
}

bool Cidr::Contains(std::string_view address) const {
  auto ip = ParseIp(Trim(address));
  if (!ip || ip->v6 != v6_) return false;
  int full = prefix_ / 8;
  if (std::memcmp(ip->bytes, bytes_, static_cast<std::size_t>(full)) != 0) return false;
  int rest = prefix_ % 8;
  if (rest == 0) return true;
  auto mask = static_cast<std::uint8_t>(0xFF << (8 - rest));
  return (ip->bytes[full] & mask) == (bytes_[full] & mask);
}

std::string ClientIp(const HttpRequest& req, const std::vector<Cidr>& trustedProxies) {
  if (trustedProxies.empty() || !Trusted(req.peerIp, trustedProxies)) return req.peerIp;

  // Several X-Forwarded-For headers form one list, in order.
  std::vector<std::string> hops;
  for (const auto& [name, value] : req.headers) {
    if (name.size() != 15) continue;
    std::string lower;
    for (char c : name) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    if (lower != "x-forwarded-for") continue;
    std::string_view rest = value;
    while (true) {
      auto comma = rest.find(',');
      std::string_view entry = Trim(rest.substr(0, comma));
      if (!entry.empty()) hops.push_back(StripPort(entry));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  // Walk from the nearest hop: entries right of the first untrusted one were
  // written by our proxies; anything left of it is the client's own claim.
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
    if (Trusted(*it, trustedProxies)) continue;
    // A garbled entry written by a trusted proxy identifies nobody; fall back to the peer.
    return ParseIp(*it) ? *it : req.peerIp;
  }
  // Every hop is a proxy of ours: the furthest one is the best we know.
  return hops.empty() ? req.peerIp : hops.front();
}

}  // namespace livechat
