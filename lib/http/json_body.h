// The shared JSON-body rule with its parsed document, for the adapters that
// read the body afterwards. Private to lib/: it exposes RapidJSON.
#pragma once

#include <rapidjson/document.h>

#include "livechat/http.h"

namespace livechat::http {

// CheckJsonBody, keeping the document in `out` when the status is kOk.
// Parsing is iterative (no recursion however deep the body).
JsonBodyCheck ReadJsonBody(const HttpRequest& req, std::size_t maxBytes, rapidjson::Document& out);

}  // namespace livechat::http
