// The route table of the conversations API (/chat/... and its admin mirror
// /api/chat/...): path pattern + method -> handler.
#pragma once

#include <functional>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/chat_service.h"
#include "livechat/http.h"

namespace livechat::rest {

// Routes `target.segments[first..]` (which begin with "chat") for an
// authenticated principal. Unknown path: 404 NOT_FOUND; known path with
// another method: 405 METHOD_NOT_ALLOWED with an Allow header.
// Wraps the run of a matched route (rest_api.cc's Idempotency-Key handling):
// a path or method with no route answers 404 or 405 without it.
// `streams`: where GET /chat/events with Accept: text/event-stream opens a
// live stream; null: that request gets the polled list.
using RouteRunner = std::function<HttpResponse(const std::function<HttpResponse()>& run)>;
class EventStreams;
// `mayAnswerLater`: a route may answer with HttpResponse::deferred (a send
// then hands its write to the store's writer thread); false for a caller that
// needs the answer at once (an Idempotency-Key's record of it).
HttpResponse DispatchChat(ChatService& service, const Principal& principal, const HttpRequest& req,
                          const ParsedTarget& target, std::size_t first, std::size_t maxBodyBytes,
                          const RouteRunner& around = {}, EventStreams* streams = nullptr,
                          bool mayAnswerLater = false);

// True when `method` on `segments[first..]` is a route of the public API
// (no admin-only one) that only reads the store, briefly: one that can be
// served inside the read transaction that checks the API key
// (AuthService::ReadAsApiKey).
bool ChatPlainRead(std::string_view method, const std::vector<std::string>& segments, std::size_t first);
// A plain read under /chat/... (from the first segment) that reads a
// bounded number of rows through an index however large the store
// (Route::bounded): no search, no unindexed filter, no store-wide count.
bool ChatBoundedRead(std::string_view method, const ParsedTarget& target);
// A route of the public API (from the first segment) that answers later when
// DispatchChat lets it (mayAnswerLater): a message send.
bool ChatAnswersLater(std::string_view method, const ParsedTarget& target);

// The route template ("/chat/conversations/{conversationId}") that
// `segments[first..]` match under any method, or empty optional.
std::optional<std::string> ChatRouteTemplate(const std::vector<std::string>& segments, std::size_t first);

class JsonBody;
// The webhook bodies, shared by /chat/webhooks and the legacy /webhook/subscriptions.
Result<CreateWebhookInput> CreateWebhookFromBody(const JsonBody& body);
Result<UpdateWebhookInput> UpdateWebhookFromBody(const JsonBody& body);

}  // namespace livechat::rest
