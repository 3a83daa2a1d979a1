// EventFeedService: the events the store recorded, as the outbox and as
// the change feed (event_feed_service.cc).
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include "livechat/services/common.h"

namespace livechat {

// GET /chat/events: where to start, how many, which types.
// `after` value that starts at the end of the feed: an empty page whose
// nextCursor is the position of the newest event.
inline constexpr char kEventFeedNow[] = "now";
struct EventFeedRequest {
  std::optional<std::string> after;             // a cursor: paging.nextCursor, or an event's own, or kEventFeedNow
  std::optional<std::int64_t> limit;            // 1..500 (above: 500), default 100
  std::optional<std::vector<std::string>> types;  // event names; absent: all
};
struct EventFeedPage {
  std::vector<Event> items;  // oldest first, each with its seq
  std::vector<std::string> cursors;  // one per item: resume after it
  std::string nextCursor;    // always set: where the next call resumes, even after an empty page
  bool hasMore = false;
};

class EventFeedService {
 public:
  explicit EventFeedService(internal::ServiceContext& ctx);
  EventFeedService(const EventFeedService&) = delete;
  EventFeedService& operator=(const EventFeedService&) = delete;

  // Outbox (tests; the webhook dispatcher reads its own way).
  Result<std::vector<Event>> ListEvents(const Principal& p, int limit);
  // The change feed (event_feed_service.cc): the store's events after
  // `r.after` in the order they became visible. Needs Read conversations;
  // customer.created is left out without Read customers. Errors:
  // kInvalidParams (cursor, limit, an unknown type), kCursorExpired (410:
  // events after the cursor were pruned).
  Result<EventFeedPage> ListEventFeed(const Principal& p, const EventFeedRequest& r);
  // Removes up to `limit` events older than the retention period that no
  // delivery waits for (livechatd runs it every minute). How many.
  Result<std::int64_t> PruneEventFeed(int limit = 1000);

 private:
  internal::ServiceContext& ctx_;
};

}  // namespace livechat
