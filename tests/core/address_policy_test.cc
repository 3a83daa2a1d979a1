#include <doctest/doctest.h>

#include "livechat/address_policy.h"

namespace livechat {

TEST_CASE("address policy: every refused IPv4 range, at its edges") {
  const char* refused[] = {
      "0.0.0.0",        "0.255.255.255", "10.0.0.1",      "10.255.255.255", "100.64.0.0",   "100.127.255.255",
      "127.0.0.1",      "127.255.255.254", "169.254.169.254", "172.16.0.1",  "172.31.255.255", "192.0.0.8",
      "192.0.2.1",      "192.168.1.1",   "198.18.0.1",    "198.19.255.255", "198.51.100.7", "203.0.113.9",
      "224.0.0.1",      "239.255.255.255", "240.0.0.1",   "255.255.255.255"};
  for (const char* ip : refused) {
    CAPTURE(ip);
    CHECK_FALSE(IsPublicAddress(ip));
  }
  const char* allowed[] = {"1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.0", "172.15.255.255",
                           "172.32.0.0", "198.17.255.255", "198.20.0.0", "223.255.255.255", "93.184.216.34"};
  for (const char* ip : allowed) {
    CAPTURE(ip);
    CHECK(IsPublicAddress(ip));
  }
}

TEST_CASE("address policy: IPv6 ranges and forms that embed IPv4") {
  const char* refused[] = {"::",          "::1",           "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
                           "::127.0.0.1", "64:ff9b::10.0.0.1", "64:ff9b:1::1", "2002:0a00:0001::1", "100::1",
                           "2001:db8::1", "3fff::1",       "fc00::1",          "fd12:3456::1",     "fe80::1",
                           "fec0::1",     "ff02::1",       "2001::1",          "::ffff:0:0"};
  for (const char* ip : refused) {
    CAPTURE(ip);
    CHECK_FALSE(IsPublicAddress(ip));
  }
  const char* allowed[] = {"2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8",
                           "64:ff9b::8.8.8.8", "2002:0808:0808::1"};
  for (const char* ip : allowed) {
    CAPTURE(ip);
    CHECK(IsPublicAddress(ip));
  }
  CHECK_FALSE(IsPublicAddress("not-an-ip"));
  CHECK_FALSE(IsPublicAddress(""));
}

TEST_CASE("https URLs: parsed parts and refusals") {
  auto t = ParseHttpsUrl("https://Hooks.Example.com:8443/in?x=1#frag");
  REQUIRE(t.ok());
  CHECK(t->host == "hooks.example.com");
  CHECK(t->port == 8443);
  CHECK(t->pathAndQuery == "/in?x=1");
  auto v6 = ParseHttpsUrl("https://[2606:4700::1]/h");
  REQUIRE(v6.ok());
  CHECK(v6->host == "2606:4700::1");
  CHECK(v6->port == 443);
  auto bare = ParseHttpsUrl("https://example.com");
  REQUIRE(bare.ok());
  CHECK(bare->pathAndQuery == "/");
  for (const char* bad : {"http://example.com/", "ftp://x", "https://", "https://user:pw@example.com/",
                          "https://example.com:0/", "https://example.com:65536/", "https://exa mple.com/",
                          "https://[::1/", "example.com/hook"}) {
    CAPTURE(bad);
    auto r = ParseHttpsUrl(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidParams);
  }
  CHECK(ParseHttpsUrl("https://e.com/" + std::string(2048 - 14, 'a')).ok());
  CHECK_FALSE(ParseHttpsUrl("https://e.com/" + std::string(2048 - 13, 'a')).ok());
}

TEST_CASE("webhook targets: every resolved address must be public; the checked one is returned") {
  TableResolver r;
  r.Set("hooks.example.com", {"93.184.216.34", "2606:4700::1"});
  r.Set("rebind.example.com", {"93.184.216.34", "10.0.0.5"});
  r.Set("local.example.com", {"127.0.0.1"});
  auto ok = CheckWebhookTarget("https://hooks.example.com/x", r, false);
  REQUIRE(ok.ok());
  CHECK(ok->address == "93.184.216.34");
  auto mixed = CheckWebhookTarget("https://rebind.example.com/x", r, false);
  REQUIRE_FALSE(mixed.ok());
  CHECK(mixed.error().message.find("10.0.0.5") != std::string::npos);
  CHECK_FALSE(CheckWebhookTarget("https://local.example.com/x", r, false).ok());
  CHECK_FALSE(CheckWebhookTarget("https://127.0.0.1/x", r, false).ok());
  CHECK_FALSE(CheckWebhookTarget("https://[::ffff:192.168.0.1]/x", r, false).ok());
  CHECK_FALSE(CheckWebhookTarget("https://nowhere.example.com/x", r, false).ok());
  // Allowed for local development and tests only.
  auto local = CheckWebhookTarget("https://local.example.com/x", r, true);
  REQUIRE(local.ok());
  CHECK(local->address == "127.0.0.1");
}

}  // namespace livechat
