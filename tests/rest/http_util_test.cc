// The transport-neutral HTTP helpers of livechat/http.h.
#include <doctest/doctest.h>

#include "livechat/http.h"

namespace livechat {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST_CASE("ParseTarget splits and decodes path segments and query parameters") {
  auto t = ParseTarget("/chat/conversations/abc%2F1/tags/vip%20gold?limit=5&tag=a&tag=b%20c&x=1+2&flag&=v");
  REQUIRE(t.has_value());
  CHECK(t->path == "/chat/conversations/abc%2F1/tags/vip%20gold");
  CHECK(t->segments == std::vector<std::string>{"chat", "conversations", "abc/1", "tags", "vip gold"});
  CHECK(t->Query("limit") == std::optional<std::string>("5"));
  CHECK(t->QueryAll("tag") == std::vector<std::string>{"a", "b c"});
  CHECK(t->Query("x") == std::optional<std::string>("1 2"));
  CHECK(t->Query("flag") == std::optional<std::string>(""));
  CHECK(t->Query("") == std::optional<std::string>("v"));
  CHECK_FALSE(t->Query("missing").has_value());
  CHECK(t->QueryAll("missing").empty());
}

TEST_CASE("ParseTarget: '+' is a space only in the query, empty segments are dropped") {
  auto t = ParseTarget("/chat//members/a+b/?q=a+b");
  REQUIRE(t.has_value());
  CHECK(t->segments == std::vector<std::string>{"chat", "members", "a+b"});
  CHECK(t->Query("q") == std::optional<std::string>("a b"));
  auto root = ParseTarget("/");
  REQUIRE(root.has_value());
  CHECK(root->segments.empty());
  CHECK(root->query.empty());
}

TEST_CASE("ParseTarget rejects malformed targets") {
  CHECK_FALSE(ParseTarget("").has_value());
  CHECK_FALSE(ParseTarget("chat/conversations").has_value());
  CHECK_FALSE(ParseTarget("/chat/%G1").has_value());
  CHECK_FALSE(ParseTarget("/chat/%").has_value());
  CHECK_FALSE(ParseTarget("/chat/%4").has_value());
  CHECK_FALSE(ParseTarget("/chat/a b").has_value());
  CHECK_FALSE(ParseTarget("/chat?x=%zz").has_value());
  CHECK_FALSE(ParseTarget("/chat?%zz=1").has_value());
  CHECK_FALSE(ParseTarget("/chat/%FF").has_value());      // decodes to invalid UTF-8
  CHECK_FALSE(ParseTarget("/chat/a%00b").has_value());    // NUL
  CHECK_FALSE(ParseTarget("/chat/\xFF").has_value());     // raw byte that is not UTF-8
  CHECK_FALSE(ParseTarget("/chat/a\x7F").has_value());
  CHECK(ParseTarget("/chat/\xC3\xA9").has_value());       // raw UTF-8 is tolerated
  CHECK(ParseTarget("/chat/%C3%A9").has_value());
  CHECK(ParseTarget("/chat/%C3%A9")->segments[1] == "\xC3\xA9");
}

TEST_CASE("PercentDecode and PercentEncode") {
  CHECK(PercentDecode("a%2Fb", false) == std::optional<std::string>("a/b"));
  CHECK(PercentDecode("a%2fb", false) == std::optional<std::string>("a/b"));
  CHECK(PercentDecode("a+b", false) == std::optional<std::string>("a+b"));
  CHECK(PercentDecode("a+b", true) == std::optional<std::string>("a b"));
  CHECK(PercentDecode("%2B", true) == std::optional<std::string>("+"));
  CHECK(PercentDecode("", true) == std::optional<std::string>(""));
  CHECK_FALSE(PercentDecode("%", false).has_value());
  CHECK_FALSE(PercentDecode("ab%2", false).has_value());
  CHECK_FALSE(PercentDecode("%G1", false).has_value());

  CHECK(PercentEncode("vip/gold \xC3\xA9") == "vip%2Fgold%20%C3%A9");
  CHECK(PercentEncode("AZaz09-._~") == "AZaz09-._~");
  CHECK(PercentEncode("a+b&c=d?%") == "a%2Bb%26c%3Dd%3F%25");
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  CHECK(PercentDecode(PercentEncode(all), true) == std::optional<std::string>(all));
}

TEST_CASE("IsValidUtf8 and Utf8Length") {
  CHECK(IsValidUtf8(""));
  CHECK(IsValidUtf8("plain ascii"));
  CHECK(IsValidUtf8("\xC3\xA9"));          // é
  CHECK(IsValidUtf8("\xE2\x82\xAC"));      // €
  CHECK(IsValidUtf8("\xF0\x9F\x98\x80"));  // 😀
  CHECK(IsValidUtf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
  CHECK_FALSE(IsValidUtf8("\xFF"));
  CHECK_FALSE(IsValidUtf8("\x80"));                // lone continuation
  CHECK_FALSE(IsValidUtf8("\xC0\xAF"));            // overlong '/'
  CHECK_FALSE(IsValidUtf8("\xE0\x80\xAF"));        // overlong, 3 bytes
  CHECK_FALSE(IsValidUtf8("\xF0\x80\x80\xAF"));    // overlong, 4 bytes
  CHECK_FALSE(IsValidUtf8("\xED\xA0\x80"));        // surrogate U+D800
  CHECK_FALSE(IsValidUtf8("\xED\xBF\xBF"));        // surrogate U+DFFF
  CHECK_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));    // above U+10FFFF
  CHECK_FALSE(IsValidUtf8("\xE2\x82"));            // truncated
  CHECK_FALSE(IsValidUtf8("\xC3\x28"));            // bad continuation
  CHECK(IsValidUtf8(std::string_view("a\0b", 3)));

  CHECK(Utf8Length("") == 0);
  CHECK(Utf8Length("hello") == 5);
  CHECK(Utf8Length("h\xC3\xA9llo\xF0\x9F\x98\x80") == 6);
  CHECK(Utf8Length("\xE2\x82\xAC\xE2\x82\xAC") == 2);
}

TEST_CASE("HttpRequest and HttpResponse headers are matched case-insensitively") {
  HttpRequest req;
  req.headers = {{"content-type", "application/json"}, {"x-api-key", "one"}, {"x-api-key", "two"}};
  CHECK(req.Header("Content-Type") == std::optional<std::string>("application/json"));
  CHECK(req.Header("X-API-KEY") == std::optional<std::string>("one"));
  CHECK_FALSE(req.Header("cookie").has_value());
  CHECK(req.HeaderView("X-Api-Key") == std::optional<std::string_view>("one"));
  CHECK_FALSE(req.HeaderView("x-api-keys").has_value());
  // Only A-Z fold: bytes that differ by 0x20 elsewhere are different names.
  req.headers = {{"a@b", "1"}, {"a-b", "2"}};
  CHECK_FALSE(req.HeaderView("a`b").has_value());
  CHECK_FALSE(req.HeaderView("a\rb").has_value());
  CHECK(req.HeaderView("A@B") == std::optional<std::string_view>("1"));

  HttpResponse resp;
  resp.SetHeader("Content-Type", "text/plain");
  resp.SetHeader("content-type", "application/json");
  resp.SetHeader("Allow", "GET");
  CHECK(resp.headers.size() == 2);
  CHECK(resp.Header("CONTENT-TYPE") == std::optional<std::string>("application/json"));
  CHECK(resp.Header("allow") == std::optional<std::string>("GET"));
}

TEST_CASE("Cidr parses networks and single addresses and tests membership") {
  auto ten = Cidr::Parse("10.0.0.0/8");
  REQUIRE(ten.has_value());
  CHECK(ten->text() == "10.0.0.0/8");
  CHECK(ten->Contains("10.1.2.3"));
  CHECK(ten->Contains("10.255.255.255"));
  CHECK_FALSE(ten->Contains("11.0.0.1"));
  CHECK(ten->Contains("::ffff:10.0.0.1"));  // IPv4-mapped form from a dual-stack socket
  CHECK_FALSE(ten->Contains("2001:db8::1"));
  CHECK_FALSE(ten->Contains("not an address"));
  CHECK_FALSE(ten->Contains(""));

  auto odd = Cidr::Parse("10.0.0.0/12");
  REQUIRE(odd.has_value());
  CHECK(odd->Contains("10.15.255.255"));
  CHECK_FALSE(odd->Contains("10.16.0.0"));

  auto hostBits = Cidr::Parse("192.168.1.77/24");  // host bits are ignored
  REQUIRE(hostBits.has_value());
  CHECK(hostBits->Contains("192.168.1.1"));
  CHECK_FALSE(hostBits->Contains("192.168.2.1"));

  auto single = Cidr::Parse("203.0.113.9");
  REQUIRE(single.has_value());
  CHECK(single->Contains("203.0.113.9"));
  CHECK_FALSE(single->Contains("203.0.113.10"));

  auto any4 = Cidr::Parse("0.0.0.0/0");
  REQUIRE(any4.has_value());
  CHECK(any4->Contains("8.8.8.8"));
  CHECK_FALSE(any4->Contains("::1"));

  auto loop6 = Cidr::Parse("::1/128");
  REQUIRE(loop6.has_value());
  CHECK(loop6->Contains("::1"));
  CHECK_FALSE(loop6->Contains("::2"));

  auto doc = Cidr::Parse("2001:db8::/32");
  REQUIRE(doc.has_value());
  CHECK(doc->Contains("2001:db8:1::5"));
  CHECK(doc->Contains("2001:DB8::"));
  CHECK_FALSE(doc->Contains("2001:db9::1"));
  CHECK_FALSE(doc->Contains("10.0.0.1"));

  auto mapped = Cidr::Parse("::ffff:10.0.0.0/104");
  REQUIRE(mapped.has_value());
  CHECK(mapped->Contains("10.9.9.9"));
  CHECK_FALSE(mapped->Contains("11.0.0.0"));

  CHECK_FALSE(Cidr::Parse("").has_value());
  CHECK_FALSE(Cidr::Parse("abc").has_value());
  CHECK_FALSE(Cidr::Parse("10.0.0.0/33").has_value());
  CHECK_FALSE(Cidr::Parse("10.0.0.0/").has_value());
  CHECK_FALSE(Cidr::Parse("10.0.0.0/x").has_value());
  CHECK_FALSE(Cidr::Parse("10.0.0/8").has_value());
  CHECK_FALSE(Cidr::Parse("::1/129").has_value());
  CHECK_FALSE(Cidr::Parse("10.0.0.0/-1").has_value());
}

HttpRequest FromPeer(std::string peer, Pairs headers = {}) {
  HttpRequest req;
  req.peerIp = std::move(peer);
  req.headers = std::move(headers);
  return req;
}

TEST_CASE("ClientIp believes X-Forwarded-For only from a trusted proxy") {
  std::vector<Cidr> proxies = {*Cidr::Parse("10.0.0.0/8"), *Cidr::Parse("::1")};

  // No trusted proxies configured: the peer, whatever the header says.
  CHECK(ClientIp(FromPeer("10.0.0.1", {{"x-forwarded-for", "198.51.100.1"}}), {}) == "10.0.0.1");
  // Untrusted peer: its header is a claim, not a fact.
  CHECK(ClientIp(FromPeer("192.0.2.5", {{"x-forwarded-for", "198.51.100.1"}}), proxies) == "192.0.2.5");
  // Trusted peer without a header.
  CHECK(ClientIp(FromPeer("10.0.0.1"), proxies) == "10.0.0.1");
  // Trusted peer: the right-most entry that is not one of our proxies.
  CHECK(ClientIp(FromPeer("10.0.0.1", {{"x-forwarded-for", "198.51.100.1"}}), proxies) == "198.51.100.1");
  CHECK(ClientIp(FromPeer("10.0.0.1", {{"x-forwarded-for", "6.6.6.6, 198.51.100.1, 10.0.0.2"}}), proxies) ==
        "198.51.100.1");
  // A client-supplied left part cannot win over what the proxy appended.
  CHECK(ClientIp(FromPeer("10.0.0.1", {{"x-forwarded-for", "10.9.9.9, 198.51.100.1"}}), proxies) ==
        "198.51.100.1");
  // Several headers form one list, in order.
  CHECK(ClientIp(FromPeer("::1", {{"x-forwarded-for", "1.1.1.1"}, {"X-Forwarded-For", "2.2.2.2, 10.0.0.3"}}),
                 proxies) == "2.2.2.2");
  // Every hop is ours: the furthest one.
  CHECK(ClientIp(FromPeer("10.0.0.1", {{"x-forwarded-for", "10.0.0.5, 10.0.0.6"}}), proxies) == "10.0.0.5");
  // Ports and brackets are stripped.
  CHECK(ClientIp(FromPeer("10.0.0.1", {{"x-forwarded-for", "198.51.100.1:5678"}}), proxies) == "198.51.100.1");
  CHECK(ClientIp(FromPeer("10.0.0.1", {{"x-forwarded-for", "[2001:db8::7]:443"}}), proxies) == "2001:db8::7");
  CHECK(ClientIp(FromPeer("10.0.0.1", {{"x-forwarded-for", "2001:db8::7"}}), proxies) == "2001:db8::7");
  // Garbage written where an address belongs identifies nobody.
  CHECK(ClientIp(FromPeer("10.0.0.1", {{"x-forwarded-for", "unknown"}}), proxies) == "10.0.0.1");
  CHECK(ClientIp(FromPeer("10.0.0.1", {{"x-forwarded-for", " , "}}), proxies) == "10.0.0.1");
}


HttpRequest JsonPost(std::optional<std::string> contentType, std::string body) {
  HttpRequest req;
  req.method = "POST";
  req.target = "/x";
  req.body = std::move(body);
  if (contentType) req.headers.emplace_back("content-type", *contentType);
  return req;
}

TEST_CASE("IsJsonMediaType: RFC 9110 media type, case-insensitive, charset only utf-8") {
  for (const char* ok : {"application/json", "Application/JSON", "APPLICATION/JSON; charset=UTF-8",
                         "Application/JSON; charset=UTF-8", "application/json;charset=utf-8",
                         " application/json ;charset=\"utf-8\"", "application/json; foo=bar", "application/json;"}) {
    CAPTURE(ok);
    CHECK(IsJsonMediaType(std::string_view(ok)));
  }
  for (const char* refused : {"application/json;charset=latin1", "application/json; charset=iso-8859-1",
                              "application/json; charset=\"utf-16\"", "text/plain", "text/json", "application/jsonx",
                              "application/problem+json", "application/json-patch", "application/json; noequals",
                              "", "application", "/json"}) {
    CAPTURE(refused);
    CHECK_FALSE(IsJsonMediaType(std::string_view(refused)));
  }
  CHECK_FALSE(IsJsonMediaType(std::nullopt));
}

TEST_CASE("CheckJsonBody: size, media type, empty, UTF-8 and JSON, in that order") {
  auto status = [](std::optional<std::string> type, std::string body, std::size_t max = 16) {
    return CheckJsonBody(JsonPost(std::move(type), std::move(body)), max).status;
  };
  CHECK(status("application/json", "{}") == JsonBodyStatus::kOk);
  CHECK(status("Application/JSON; charset=UTF-8", "[1,2]") == JsonBodyStatus::kOk);
  CHECK(status("application/json;charset=latin1", "{}") == JsonBodyStatus::kUnsupportedMediaType);
  CHECK(status("text/plain", "{}") == JsonBodyStatus::kUnsupportedMediaType);
  CHECK(status(std::nullopt, "{}") == JsonBodyStatus::kUnsupportedMediaType);
  CHECK(status("application/json", "") == JsonBodyStatus::kEmpty);
  CHECK(status("application/json", "{\"a\":\"\xff\"}") == JsonBodyStatus::kNotUtf8);
  CHECK(status("application/json", "\xc3") == JsonBodyStatus::kNotUtf8);
  CHECK(status("application/json", "{\"a\":") == JsonBodyStatus::kMalformedJson);
  // The limit at the boundary: 16 bytes are read, 17 are not (whatever the type).
  CHECK(status("application/json", "{\"a\":\"01234567\"}") == JsonBodyStatus::kOk);
  CHECK(status("text/plain", "{\"a\":\"012345678\"}") == JsonBodyStatus::kTooLarge);
  // The media type is judged before the body.
  CHECK(status("text/plain", "") == JsonBodyStatus::kUnsupportedMediaType);

  const JsonBodyCheck empty = CheckJsonBody(JsonPost("application/json", ""), 16);
  CHECK(empty.parseError == "The document is empty.");
  const JsonBodyCheck bad = CheckJsonBody(JsonPost("application/json", "{\"a\" 1}"), 16);
  CHECK(bad.status == JsonBodyStatus::kMalformedJson);
  CHECK(bad.parseError == "Missing a colon after a name of object member.");
  CHECK(bad.parseOffset == 5);
}

}  // namespace
}  // namespace livechat
