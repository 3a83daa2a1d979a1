#include "rest/rest_response.h"

#include <cstdio>

#include "livechat/json_codec.h"
#include "livechat/rest.h"

namespace livechat::rest {

HttpResponse JsonResponse(int status, std::string body) {
  HttpResponse resp;
  resp.status = status;
  resp.SetHeader("Content-Type", "application/json; charset=utf-8");
  // Every answer is per-key data or an error: nothing here may be cached by intermediaries.
  resp.SetHeader("Cache-Control", "no-store");
  resp.body = std::move(body);
  return resp;
}

HttpResponse ErrorResponse(const Error& e) {
  if (IsServerFault(e)) std::fprintf(stderr, "livechat rest: %s: %s\n", PublicMessage(e).data(), e.message.c_str());
  HttpResponse resp = JsonResponse(RestStatusFor(e.code), RestErrorBody(e));
  if (std::string wait = RetryAfterFor(e); !wait.empty()) resp.SetHeader("Retry-After", wait);
  return resp;
}

HttpResponse MethodNotAllowed(std::string_view method, const std::string& allow) {
  HttpResponse resp = ErrorResponse(MethodNotAllowedError(method, allow));
  resp.SetHeader("Allow", allow);
  return resp;
}

std::string DataEnvelope(std::string_view dataJson) {
  std::string out = "{\"data\":";
  out += dataJson;
  out.push_back('}');
  return out;
}

std::string PagedEnvelope(std::string_view itemsJson, const std::optional<std::string>& nextCursor, bool hasMore) {
  std::string out = "{\"data\":";
  out += itemsJson;
  AppendPaging(out, nextCursor, hasMore);
  return out;
}

void AppendPaging(std::string& out, const std::optional<std::string>& nextCursor, bool hasMore) {
  out += ",\"paging\":{\"nextCursor\":";
  if (nextCursor) {
    AppendJsonString(out, *nextCursor);
  } else {
    out += "null";
  }
  out += ",\"hasMore\":";
  out += hasMore ? "true" : "false";
  out += "}}";
}

}  // namespace livechat::rest
