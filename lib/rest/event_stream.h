// The live form of the change feed: GET /chat/events with Accept:
// text/event-stream. What the feed returns stays EventFeedService::ListEventFeed's
// rule; this file only repeats that read after the last cursor sent (on a
// wake-up after a local write, or on a short poll for other instances' writes)
// and writes each event as a Server-Sent Event whose id is its cursor.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "livechat/chat_service.h"
#include "livechat/http.h"
#include "livechat/rest.h"

namespace livechat::rest {

// The open streams of one RestApi: their count (capped in all and per key),
// the wake-up after local writes, and the stop. Thread-safe.
class EventStreams {
 public:
  struct State;
  // A place among the open streams, given back when the last copy goes.
  using Slot = std::shared_ptr<void>;

  explicit EventStreams(EventStreamOptions options);

  // A place for a new stream of `owner` (the key id, or the session's member):
  // RATE_LIMITED with Retry-After when every place, or every place of the
  // owner, is taken, or the streams are stopped.
  Result<Slot> Open(const std::string& owner);
  // Counts a local write: every waiting stream reads the store now.
  void Wake();
  // Every stream ends at its next wait (at once when waiting); Open refuses.
  void Stop();
  int open() const;

  // The count of wake-ups so far: taken before a read, so a write that
  // commits after the read still wakes the wait that follows it.
  std::uint64_t Generation() const;

  // The response streaming `r`'s feed from `first` (already read, after the
  // generation `seen`) for as long as the client keeps up.
  HttpResponse Response(ChatService& service, const Principal& p, EventFeedRequest r, EventFeedPage first,
                        std::uint64_t seen, Slot slot);

 private:
  std::shared_ptr<State> state_;
};

// True when the request's Accept names text/event-stream (any case, with or
// without parameters). Anything else gets the polled JSON list.
bool WantsEventStream(const HttpRequest& req);

// One event as SSE: `id: <cursor>`, `event: <type>`, `data: <the polled item>`.
std::string SseEvent(const Event& e, const std::string& cursor);

}  // namespace livechat::rest
