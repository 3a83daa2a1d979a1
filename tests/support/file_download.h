// GET /files/... through FileServer in process, recorded for the contract
// check like every fixture exchange. Header-only: only suites linking
// livechat::rest include it.
#pragma once

#include <string>

#include "livechat/file_server.h"
#include "support/exchange_recorder.h"

namespace livechat::testing {

inline HttpResponse DownloadFile(FileServer& files, const std::string& target, const std::string& apiKey = "",
                                 const std::string& method = "GET") {
  HttpRequest req;
  req.method = method;
  req.target = target;
  req.peerIp = "203.0.113.7";
  if (!apiKey.empty()) req.headers.emplace_back("x-api-key", apiKey);
  HttpResponse resp = files.Handle(req);
  RecordExchange(req, resp);
  return resp;
}

}  // namespace livechat::testing
