// EventFeedService: the change feed (GET /chat/events). Every event a webhook
// subscription could receive, kept in the outbox for the retention period,
// read by position: a client that stores the cursor of the last event it
// handled and asks again from there never misses one and never sees one
// twice, whatever it was doing meanwhile. The order is seq order, which is
// the order events became visible (one writer at a time on both backends).
#include <fmt/format.h>

#include <algorithm>

#include "core/cursor.h"
#include "core/service_internal.h"
#include "livechat/chat_service.h"
#include "livechat/webhooks.h"

namespace livechat {

using namespace internal;

namespace {

constexpr int kDefaultLimit = 100;
constexpr int kMaxLimit = 500;

// The event types the caller may read: conversations' and messages' with
// Read conversations, customer.created only with Read customers too.
bool MayRead(const Principal& p, const std::string& type) {
  if (type == "customer.created") return p.Has(kPermReadCustomers);
  return true;
}

}  // namespace

Result<EventFeedPage> EventFeedService::ListEventFeed(const Principal& p, const EventFeedRequest& r) {
  LC_RETURN_IF_ERROR(Require(p, kPermReadConversations));
  LC_ASSIGN_OR_RETURN(int limit, ResolveLimit(r.limit, kDefaultLimit, kMaxLimit));
  std::int64_t after = 0;
  // "now": the end of the feed as it stands, for a client that reads the
  // current state first and wants only what happens next (the inbox).
  const bool fromNow = r.after && *r.after == kEventFeedNow;
  if (r.after && !fromNow) {
    auto seq = DecodeEventCursor(*r.after);
    if (!seq || *seq < 0)
      return Invalid("after is not a valid cursor: pass paging.nextCursor, or an event's cursor, unchanged");
    after = *seq;
  }
  std::vector<std::string> types;
  if (r.types) {
    for (const auto& t : *r.types) {
      if (!IsWebhookEventName(t)) {
        std::string all;
        for (const auto& n : WebhookEventNames()) all += (all.empty() ? "" : ", ") + n;
        return Invalid(fmt::format("unknown event type \"{}\" in types: use one of {}", t, all));
      }
      if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
    }
  } else {
    types = WebhookEventNames();
  }
  // Types the key may not read are left out, not refused: the feed is the
  // store's, seen through the key's permissions.
  types.erase(std::remove_if(types.begin(), types.end(), [&](const std::string& t) { return !MayRead(p, t); }),
              types.end());

  EventFeedPage page;
  LC_RETURN_IF_ERROR(ctx_.store().Read([&](StoreReader& rd) -> Status {
    // The mark and the page come from one snapshot, so an event pruned
    // after the check cannot go missing unnoticed.
    LC_ASSIGN_OR_RETURN(std::int64_t pruned, rd.GetEventsPrunedThrough());
    if (fromNow) {
      // The prune mark is the whole database's: a store quiet for longer
      // than the retention has its newest event below it (or none), and a
      // position there would be answered 410 at the next read.
      LC_ASSIGN_OR_RETURN(std::int64_t last, rd.GetLastEventSeq(p.shopId));
      after = std::max(last, pruned);
      return Status::Ok();
    }
    if (r.after && after < pruned)
      return MakeError(ErrorCode::kCursorExpired,
                       fmt::format("this cursor is older than the events kept ({} days): read the store's current "
                                   "state, then follow the feed from GET /chat/events without after",
                                   ctx_.options.eventRetentionDays));
    LC_ASSIGN_OR_RETURN(auto rows, rd.ListEventsAfter(p.shopId, after, types, limit + 1));
    page.hasMore = static_cast<int>(rows.size()) > limit;
    if (page.hasMore) rows.resize(static_cast<std::size_t>(limit));
    page.items = std::move(rows);
    // An empty page moves the position up to the prune mark: nothing of this
    // store lies between (every new event's seq is above it), and a quiet
    // store's follower (a live stream, the inbox) would otherwise fall below
    // the mark as other stores' events are pruned, and get 410.
    if (page.items.empty()) after = std::max(after, pruned);
    return Status::Ok();
  }));
  for (const auto& e : page.items) page.cursors.push_back(EncodeEventCursor(e.seq));
  page.nextCursor = page.items.empty() ? EncodeEventCursor(after) : page.cursors.back();
  return page;
}

Result<std::int64_t> EventFeedService::PruneEventFeed(int limit) {
  const Millis before = ctx_.clock->NowMillis() - static_cast<Millis>(ctx_.options.eventRetentionDays) * 24 * 3600 * 1000;
  return WriteValue<std::int64_t>(ctx_.store(), [&](StoreWriter& w) { return w.PruneEvents(before, limit); });
}

Result<std::vector<Event>> EventFeedService::ListEvents(const Principal& p, int limit) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  return ReadValue<std::vector<Event>>(ctx_.store(), [&](StoreReader& r) { return r.ListEvents(p.shopId, limit); });
}

}  // namespace livechat
