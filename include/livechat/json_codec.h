// The JSON forms of the records, shared by every surface that returns them
// (REST, MCP, the storefront). Field names and presence rules are the spec's:
// "Detail only" keys appear only in the detail view; nullable keys are always
// present, as null when unset; internal fields never appear.
#pragma once

#include <string>
#include <string_view>

#include "livechat/base/json_text.h"
#include "livechat/knowledge.h"
#include "livechat/model.h"

namespace livechat {

enum class JsonView { kList, kDetail };

std::string ToJson(const Conversation& c, JsonView view);
std::string ToJson(const Message& m, JsonView view);
// The same JSON appended to `out`: a page of records written into the one
// response buffer.
void AppendJson(std::string& out, const Conversation& c, JsonView view);
void AppendJson(std::string& out, const Message& m, JsonView view);
std::string ToJson(const Customer& c);
std::string ToJson(const Member& m);
std::string ToJson(const Note& n);
std::string ToJson(const Attribute& a);
std::string ToJson(const BrowsedPage& p);
std::string ToJson(const Summary& s);
std::string ToJson(const TagCount& t);
// An uploaded file's record (without its URL, which depends on who asks).
std::string ToJson(const FileRecord& f);
std::string ToJson(const TypingState& t);
// An API key's public view (never the secret or its hash).
std::string ToJson(const ApiKey& k);
std::string ToJson(const Shop& s);
// {"trainingData":{products,collections,discounts},"skills":{sizeGuide,
// orderTracking,afterSaleSupport,humanAgentTransfer},"loyaltyPartner":null|name}
std::string ToJson(const AiSettings& s);
// A webhook subscription as the spec's table: the secret is included (create
// and list return it); lastDelivery* keys appear only after the first attempt.
std::string ToJson(const WebhookSubscription& s);
std::string ToJson(const WebhookDelivery& d);
std::string ToJson(const DeliveryAttempt& a);
// {"channel","connected","updatedAt"}; updatedAt null for a never-changed channel.
std::string ToJson(const ChannelIntegration& i);
// An audit-trail row: id, storeId, topic, deliveryId, receivedAt, outcome, changes, message.
std::string ToJson(const PlatformRequest& r);
// id, storeId, customer, receivedAt, contacts (and `export` when asked).
std::string ToJson(const DataRequest& d, bool withExport);
// Outbox event as the webhook envelope: eventId, type, shopId, conversationId, occurredAt, data.
std::string EventEnvelopeJson(const Event& e);
// A change-feed item: the webhook body's fields (`id`, `type`,
// `conversationId`, `data`), `createdAt`, and `cursor` (resume after it).
std::string FeedEventJson(const Event& e, const std::string& cursor);

}  // namespace livechat
