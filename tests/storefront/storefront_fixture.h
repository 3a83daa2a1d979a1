// The storefront API in process, on the REST fixture's service: what a
// widget does through /storefront/ is checked through the REST API agents use.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "livechat/storefront.h"
#include "support/rest_fixture.h"

namespace livechat::testing {

class StorefrontFixture : public RestFixture {
 public:
  explicit StorefrontFixture(StorefrontOptions options = {}, BlobStore* blobs = nullptr)
      : RestFixture(RelaxedLimits(), {}, nullptr, blobs), storefront_(service(), Tuned(std::move(options))) {}

  StorefrontApi& storefront() { return storefront_; }

  // A visitor of `appId` (default: the main store).
  struct Visitor {
    std::string sessionId;
    std::string token;
  };
  Visitor Start(const std::string& appId = "") {
    Reply r = SendStorefront(StorefrontRequest("POST", "/storefront/sessions", "", appId.empty() ? shop.appId : appId, ""));
    REQUIRE_MESSAGE(r.status() == 201, r.raw.body);
    return Visitor{Str(At(r.data(), "sessionId")), Str(At(r.data(), "token"))};
  }

  HttpRequest StorefrontRequest(const std::string& method, const std::string& target, const std::string& body,
                                const std::string& appId, const std::string& token) const {
    HttpRequest req;
    req.method = method;
    req.target = target;
    req.body = body;
    req.peerIp = "198.51.100.20";
    if (!appId.empty()) req.headers.emplace_back("x-app-id", appId);
    if (!token.empty()) req.headers.emplace_back("x-session-token", token);
    if (!body.empty()) req.headers.emplace_back("content-type", "application/json");
    return req;
  }
  Reply SendStorefront(const HttpRequest& req) {
    Reply r;
    r.raw = AwaitReply(storefront_.Handle(req));
    RecordExchange(req, r.raw);  // the contract check (docs/api/README.md)
    r.json = ParseJson(r.raw.body.empty() ? "{}" : r.raw.body);
    return r;
  }
  // One command, as the browser SDK sends it: {command, args}.
  Reply Command(const Visitor& v, const std::string& command, const std::string& argsJson = "[]") {
    std::string body = "{\"command\":\"" + command + "\",\"args\":" + argsJson + "}";
    return SendStorefront(StorefrontRequest("POST", "/storefront/commands", body, shop.appId, v.token));
  }
  Reply PageView(const Visitor& v, const std::string& url, const std::string& title = "Page") {
    return SendStorefront(StorefrontRequest("POST", "/storefront/pageviews",
                                            "{\"url\":\"" + url + "\",\"title\":\"" + title + "\"}", shop.appId,
                                            v.token));
  }
  Reply Updates(const Visitor& v, const std::string& query) {
    return SendStorefront(StorefrontRequest("GET", "/storefront/updates" + query, "", shop.appId, v.token));
  }
  Reply Session(const Visitor& v) {
    return SendStorefront(StorefrontRequest("GET", "/storefront/session", "", shop.appId, v.token));
  }

  std::vector<std::string> EventTypes() {
    std::vector<std::string> out;
    for (const auto& e : Must(service().feed().ListEvents(sys, 1000))) out.push_back(e.type);
    return out;
  }

 private:
  // A fallback re-read far beyond every wait in the tests (unless a test
  // sets its own): a poll that answers in time was woken by the service's
  // conversation observer.
  static StorefrontOptions Tuned(StorefrontOptions o) {
    if (o.fallbackPollMillis == StorefrontOptions{}.fallbackPollMillis) o.fallbackPollMillis = 60'000;
    return o;
  }
  StorefrontApi storefront_;
};

}  // namespace livechat::testing
