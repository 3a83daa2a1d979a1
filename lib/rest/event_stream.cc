#include "rest/event_stream.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

#include "livechat/json_codec.h"

namespace livechat::rest {

using Steady = std::chrono::steady_clock;

struct EventStreams::State {
  explicit State(EventStreamOptions o) : options(std::move(o)) {}

  // Waits until a wake-up after `seen`, a stop, or `until`; the generation then.
  std::uint64_t WaitUntil(std::uint64_t seen, Steady::time_point until) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_until(lock, until, [&] { return stopped || generation != seen; });
    return generation;
  }
  bool Stopped() {
    std::lock_guard<std::mutex> lock(mu);
    return stopped;
  }
  void Release(const std::string& owner) {
    std::lock_guard<std::mutex> lock(mu);
    --open;
    if (--perOwner[owner] == 0) perOwner.erase(owner);
  }

  const EventStreamOptions options;
  std::mutex mu;
  std::condition_variable cv;
  std::uint64_t generation = 0;
  bool stopped = false;
  int open = 0;
  std::map<std::string, int> perOwner;
};

namespace {

// Events are written in pieces of about this size: a blocking send of one
// piece is bounded by the socket's send timeout, and many small events still
// cost few writes.
constexpr std::size_t kWriteBytes = 16 * 1024;

class Stream {
 public:
  Stream(std::shared_ptr<EventStreams::State> state, ChatService& service, Principal p, EventFeedRequest r,
         EventFeedPage first, std::uint64_t seen)
      : state_(std::move(state)), service_(service), p_(std::move(p)), r_(std::move(r)), page_(std::move(first)),
        seen_(seen) {}

  void Run(StreamSink& sink) {
    const EventStreamOptions& o = state_->options;
    const auto start = Steady::now();
    const auto end = start + std::chrono::milliseconds(o.lifetimeMillis);
    lastWrite_ = start;
    // The reconnect hint goes out with the first page, so the client learns
    // it before anything can fail.
    std::string out = "retry: " + std::to_string(o.retryMillis) + "\n\n";
    for (;;) {
      for (std::size_t i = 0; i < page_.items.size(); ++i) {
        out += SseEvent(page_.items[i], page_.cursors[i]);
        if (out.size() >= kWriteBytes && !Flush(sink, out)) return;
      }
      if (!Flush(sink, out)) return;
      r_.after = page_.nextCursor;
      // A full page: the rest follows at once. Otherwise wait for a local
      // write, the poll (other instances' writes), a heartbeat, or the end.
      if (!page_.hasMore && !Wait(sink, end)) return;
      if (state_->Stopped() || Steady::now() >= end) return;
      seen_ = Generation();
      auto next = service_.feed().ListEventFeed(p_, r_);
      // A cursor pruned meanwhile, or a failing store: the stream ends, and
      // the client's reconnect gets the error as JSON.
      if (!next.ok()) return;
      page_ = std::move(next).value();
    }
  }

 private:
  std::uint64_t Generation() {
    std::lock_guard<std::mutex> lock(state_->mu);
    return state_->generation;
  }

  bool Flush(StreamSink& sink, std::string& out) {
    if (out.empty()) return true;
    const bool ok = sink.Write(out);
    out.clear();
    lastWrite_ = Steady::now();
    return ok;
  }

  // True when the store should be read now; false when the stream is over
  // (stopped, at its end of life, or a heartbeat could not be written).
  bool Wait(StreamSink& sink, Steady::time_point end) {
    const EventStreamOptions& o = state_->options;
    const auto poll = Steady::now() + std::chrono::milliseconds(o.pollMillis);
    for (;;) {
      const auto beat = lastWrite_ + std::chrono::milliseconds(o.heartbeatMillis);
      const std::uint64_t now = state_->WaitUntil(seen_, std::min({poll, beat, end}));
      if (state_->Stopped() || Steady::now() >= end) return false;
      if (!sink.Open()) return false;  // hung up: its place is free now, not at the next heartbeat
      if (now != seen_) return true;
      const auto t = Steady::now();
      if (t >= beat) {
        std::string comment = ": heartbeat\n\n";
        if (!Flush(sink, comment)) return false;
      }
      if (t >= poll) return true;
    }
  }

  std::shared_ptr<EventStreams::State> state_;
  ChatService& service_;
  const Principal p_;
  EventFeedRequest r_;
  EventFeedPage page_;
  std::uint64_t seen_;
  Steady::time_point lastWrite_;
};

}  // namespace

EventStreams::EventStreams(EventStreamOptions options) : state_(std::make_shared<State>(std::move(options))) {}

Result<EventStreams::Slot> EventStreams::Open(const std::string& owner) {
  State& s = *state_;
  const Millis retry = std::max<Millis>(s.options.retryMillis, 1000);
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.stopped)
    return RetryLaterError(ErrorCode::kRateLimited, "the server is stopping: reconnect to another instance", retry);
  if (s.open >= s.options.maxStreams)
    return RetryLaterError(ErrorCode::kRateLimited,
                           "this server has " + std::to_string(s.options.maxStreams) +
                               " event streams open, its most: poll GET /chat/events, or retry later",
                           retry);
  int& mine = s.perOwner[owner];
  if (mine >= s.options.maxStreamsPerKey) {
    if (mine == 0) s.perOwner.erase(owner);
    return RetryLaterError(ErrorCode::kRateLimited,
                           "this key has " + std::to_string(s.options.maxStreamsPerKey) +
                               " event streams open on this server, its most: close one, or retry later",
                           retry);
  }
  ++mine;
  ++s.open;
  // The deleter gives the place back; it holds the state, not this object.
  return Slot(static_cast<void*>(state_.get()), [state = state_, owner](void*) { state->Release(owner); });
}

void EventStreams::Wake() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    ++state_->generation;
  }
  state_->cv.notify_all();
}

void EventStreams::Stop() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stopped = true;
  }
  state_->cv.notify_all();
}

int EventStreams::open() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->open;
}

std::uint64_t EventStreams::Generation() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->generation;
}

HttpResponse EventStreams::Response(ChatService& service, const Principal& p, EventFeedRequest r,
                                    EventFeedPage first, std::uint64_t seen, Slot slot) {
  HttpResponse resp;
  resp.status = 200;
  resp.SetHeader("Content-Type", "text/event-stream; charset=utf-8");
  resp.SetHeader("Cache-Control", "no-store");
  // Proxies that buffer responses (nginx) pass this one through as it comes.
  resp.SetHeader("X-Accel-Buffering", "no");
  auto stream = std::make_shared<Stream>(state_, service, p, std::move(r), std::move(first), seen);
  resp.stream = [stream, slot = std::move(slot)](StreamSink& sink) { stream->Run(sink); };
  return resp;
}

bool WantsEventStream(const HttpRequest& req) {
  // Accept is a list of media ranges; one naming text/event-stream (not
  // refused with q=0) asks for the stream.
  for (const auto& [name, value] : req.headers) {
    if (name != "accept") continue;
    std::string_view rest = value;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      std::string_view range = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      std::string lower;
      for (char c : range)
        if (c != ' ' && c != '\t') lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      const std::string_view media = std::string_view(lower).substr(0, lower.find(';'));
      if (media != "text/event-stream") continue;
      const std::size_t q = lower.find(";q=");
      if (q != std::string::npos && lower.find_first_not_of("0.", q + 3) >= lower.find(';', q + 3)) continue;
      return true;
    }
  }
  return false;
}

std::string SseEvent(const Event& e, const std::string& cursor) {
  // The data is one line: compact JSON escapes every line break in strings.
  std::string out = "id: " + cursor + "\nevent: " + e.type + "\ndata: " + FeedEventJson(e, cursor) + "\n\n";
  return out;
}

}  // namespace livechat::rest
