// The route table of the conversations API (/chat/... and its admin mirror
// /api/chat/...): path pattern + method -> handler.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "livechat/chat_service.h"
#include "livechat/http.h"

namespace livechat::rest {

// Routes `target.segments[first..]` (which begin with "chat") for an
// authenticated principal. Unknown path: 404 NOT_FOUND; known path with
// another method: 405 METHOD_NOT_ALLOWED with an Allow header.
HttpResponse DispatchChat(ChatService& service, const Principal& principal, const HttpRequest& req,
                          const ParsedTarget& target, std::size_t first, std::size_t maxBodyBytes);

// The route template ("/chat/conversations/{conversationId}") that
// `segments[first..]` match under any method, or empty optional.
std::optional<std::string> ChatRouteTemplate(const std::vector<std::string>& segments, std::size_t first);

class JsonBody;
// The webhook bodies, shared by /chat/webhooks and the legacy /webhook/subscriptions.
Result<CreateWebhookInput> CreateWebhookFromBody(const JsonBody& body);
Result<UpdateWebhookInput> UpdateWebhookFromBody(const JsonBody& body);

}  // namespace livechat::rest
