// The webhook dispatcher: claims due deliveries from the outbox, signs and
// sends them, and records each attempt. Retry schedule, disabling and
// truncation follow the spec's Delivery rules; see docs/webhooks.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unordered_set>

#include "livechat/json_codec.h"
#include "livechat/store.h"
#include "livechat/webhooks.h"

namespace livechat {

namespace {

// The store may read a lease back a few milliseconds off what was claimed
// (PostgreSQL: the distance to the database's clock is measured per
// transaction). A lease another sender took is at least a whole lease later,
// which is why a lease is never shorter than twice this.
constexpr Millis kOwnLeaseSlack = 1000;

}  // namespace

struct WebhookDispatcher::Impl {
  DispatcherOptions o;
  Clock* clock;
  Random* random;
  Resolver* resolver;

  std::mutex mu;  // guards inFlight
  std::unordered_set<std::string> inFlight;  // subscription ids being sent to now

  explicit Impl(DispatcherOptions opts)
      : o(std::move(opts)),
        clock(o.clock ? o.clock : Clock::Default()),
        random(o.random ? o.random : Random::Default()),
        resolver(o.resolver ? o.resolver : Resolver::Default()) {
    o.leaseMillis = std::max<Millis>(o.leaseMillis, 2 * kOwnLeaseSlack);
  }

  // Set while Stop() waits: a run in progress sends nothing more.
  std::atomic<bool> stopping{false};

  // Leases a run of due deliveries (up to `max`) of one subscription that
  // has nothing in flight here, marking it in flight. Empty when nothing is
  // due.
  std::vector<WebhookDelivery> ClaimRun(Millis now, int max) {
    std::vector<WebhookDelivery> due;
    Status st = o.store->Read([&](StoreReader& r) -> Status {
      LC_ASSIGN_OR_RETURN(due, r.ListDueDeliveries(now, 64));
      return Status::Ok();
    });
    if (!st.ok()) return {};
    for (auto& d : due) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (inFlight.count(d.subscriptionId)) continue;
        inFlight.insert(d.subscriptionId);
      }
      std::vector<WebhookDelivery> run;
      Status cs = o.store->Write([&](StoreWriter& w) -> Status {
        LC_ASSIGN_OR_RETURN(run, w.ClaimDeliveries(d.shopId, d.subscriptionId, now, now + o.leaseMillis, max));
        return Status::Ok();
      });
      if (cs.ok() && !run.empty()) return run;
      Release(d.subscriptionId);  // another process took it
    }
    return {};
  }

  void Release(const std::string& subscriptionId) {
    std::lock_guard<std::mutex> lock(mu);
    inFlight.erase(subscriptionId);
  }

  Millis RetryDelay(int failedAttempts, std::optional<std::int64_t> retryAfterSeconds) {
    const auto& d = o.retryDelays;
    Millis base = d[static_cast<std::size_t>(std::min<int>(failedAttempts, static_cast<int>(d.size())) - 1)];
    if (o.jitter > 0) {
      std::uint32_t r = 0;
      random->Fill(reinterpret_cast<std::uint8_t*>(&r), sizeof r);
      double f = (static_cast<double>(r) / 4294967295.0 * 2.0 - 1.0) * o.jitter;  // [-jitter, +jitter]
      base = static_cast<Millis>(std::llround(static_cast<double>(base) * (1.0 + f)));
    }
    // A receiver's Retry-After is honoured within the schedule: it can push
    // the next attempt later, never past the schedule's longest wait.
    if (retryAfterSeconds && *retryAfterSeconds > 0) {
      // Fix: cap in seconds before converting, so a hostile "Retry-After:
      // 9223372036854775807" cannot overflow the multiplication (UB).
      const std::int64_t capSeconds = d.back() / 1000 + 1;
      Millis want = std::min<std::int64_t>(*retryAfterSeconds, capSeconds) * 1000;
      base = std::max(base, std::min(want, d.back()));
    }
    return std::max<Millis>(base, 0);
  }
};

WebhookDispatcher::WebhookDispatcher(DispatcherOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))),
      loop_([this] { return RunOnce(impl_->o.runLength) > 0; }, impl_->o.idlePollMillis) {}

WebhookDispatcher::~WebhookDispatcher() { Stop(); }

std::string WebhookDispatcher::BuildPayload(const Event& e) const {
  std::string body = EventEnvelopeJson(e);
  if (body.size() <= impl_->o.maxPayloadBytes) return body;
  // The envelope is kept; only data is replaced (spec: Delivery rules 7).
  Event cut = e;
  cut.dataJson = fmt::format("{{\"truncated\":true,\"originalSize\":{}}}", body.size());
  return EventEnvelopeJson(cut);
}

namespace {

enum class Outcome { kSucceeded, kRetry, kDropped, kGone };

Outcome Classify(const WebhookResponse& r) {
  if (r.status >= 200 && r.status < 300) return Outcome::kSucceeded;
  if (r.status == 410) return Outcome::kGone;
  // 429 is the one 4xx that says "later", so it is retried like a 5xx.
  if (r.status == 0 || r.status >= 500 || r.status == 429) return Outcome::kRetry;
  return Outcome::kDropped;  // 3xx (redirects are never followed) and other 4xx
}

}  // namespace

namespace {

// A claimed run's next delivery is sent only while at least half of the
// lease is left, and at least two send timeouts: a send started then ends
// before the lease does (livechatd's lease is at least three timeouts), so
// no other process can claim the subscription while this one still sends.
bool LeaseLeftForAnother(Millis now, const WebhookDelivery& d, Millis leaseMillis, Millis timeoutMillis) {
  return d.leaseUntil - now >= std::max(leaseMillis / 2, 2 * timeoutMillis);
}

bool StillOurs(const std::optional<WebhookDelivery>& now, const WebhookDelivery& claimed) {
  return now && now->state == "pending" && std::llabs(now->leaseUntil - claimed.leaseUntil) <= kOwnLeaseSlack;
}

}  // namespace

// Records one attempt: the delivery's new state, the attempt log and the
// subscription's last status, in one write. An error when the write failed
// (the delivery stays leased until the lease runs out, then is sent again).
//
// In the same transaction it reads what the run's next send needs, as it is
// now: the subscription while it still takes deliveries (nullopt when it was
// paused, deleted or disabled; the rest of its queue is cancelled), so an
// edit made meanwhile, such as a new URL, applies to the next send; whether
// `next` is still pending under this run's lease (a pause and a resume
// cancelled it; another sender took it); and next's event, so a redaction
// made meanwhile is sent redacted.
Result<WebhookDispatcher::Recorded> WebhookDispatcher::RecordAttempt(const WebhookDelivery& d,
                                                                     const WebhookSubscription& sub,
                                                                     const Event& event, const WebhookResponse& resp,
                                                                     Millis duration, const WebhookDelivery* next) {
  Impl& I = *impl_;
  const Millis at = I.clock->NowMillis();
  WebhookDelivery upd = d;
  upd.attempts = d.attempts + 1;
  upd.lastAttemptAt = at;
  upd.leaseUntil = 0;
  DeliveryAttempt att;
  att.deliveryId = d.id;
  att.subscriptionId = sub.id;
  att.shopId = sub.shopId;
  att.eventId = event.id;
  att.eventType = event.type;
  att.attempt = upd.attempts;
  att.at = at;
  if (resp.status) att.statusCode = resp.status;
  if (!resp.error.empty()) att.error = resp.error;
  att.durationMillis = duration;

  bool disable = false;
  switch (Classify(resp)) {
    case Outcome::kSucceeded:
      upd.state = "succeeded";
      att.outcome = "succeeded";
      break;
    case Outcome::kGone:
      upd.state = "dropped";
      att.outcome = "disabled";
      disable = true;
      break;
    case Outcome::kDropped:
      upd.state = "dropped";
      att.outcome = "dropped";
      break;
    case Outcome::kRetry: {
      const int maxAttempts = static_cast<int>(I.o.retryDelays.size()) + 1;
      if (upd.attempts >= maxAttempts) {
        upd.state = "failed";
        att.outcome = "disabled";
        disable = true;  // the seventh failure disables the subscription
      } else {
        upd.state = "pending";
        upd.nextAttemptAt = at + I.RetryDelay(upd.attempts, resp.retryAfterSeconds);
        att.outcome = "retrying";
      }
      break;
    }
  }
  if (!att.error && att.outcome != "succeeded" && resp.status)
    att.error = fmt::format("receiver answered HTTP {}", resp.status);

  Recorded out;
  Status st = I.o.store->Write([&](StoreWriter& w) -> Status {
    out = Recorded();
    // Re-read inside the transaction: the owner may have edited it meanwhile.
    LC_ASSIGN_OR_RETURN(auto cur, w.GetSubscription(sub.shopId, sub.id));
    // Fix: deleted meanwhile: its deliveries and log are gone; writing the
    // attempt would leave an orphan row that nothing lists or prunes.
    if (!cur) return Status::Ok();
    WebhookDelivery write = upd;  // this try's copy: the function may run again
    LC_ASSIGN_OR_RETURN(auto dNow, w.GetDelivery(d.shopId, d.id));
    // Fix: paused while this attempt was in flight, even if resumed since
    // (the pause cancelled this delivery with the rest of its queue): a
    // retry is not scheduled. What happened is still recorded.
    if ((!cur->isActive || (dNow && dNow->state == "cancelled")) && write.state == "pending")
      write.state = "cancelled";
    // Another sender claimed it after this attempt outlived its lease: the
    // row is theirs now; only the attempt is logged.
    const bool takenOver = dNow && dNow->state == "pending" && !StillOurs(dNow, d);
    if (!takenOver) {
      LC_ASSIGN_OR_RETURN(bool okd, w.UpdateDelivery(write));
      (void)okd;
    }
    LC_RETURN_IF_ERROR(w.InsertAttempt(att, I.o.attemptsKept));
    cur->lastDeliveryAt = at;
    cur->lastDeliveryStatus =
        disable ? std::string("disabled") : (att.outcome == "retrying" ? std::string("failed") : att.outcome);
    cur->lastDeliveryStatusCode = att.statusCode;
    cur->lastDeliveryError = att.error;
    if (disable) {
      cur->isActive = false;
      cur->updatedAt = at;
    }
    LC_ASSIGN_OR_RETURN(bool oks, w.UpdateSubscription(*cur));
    (void)oks;
    if (disable) {
      // Fix: disabling stops delivery "for every event" at once, as pausing
      // does; before, other queued deliveries stayed pending and were sent
      // if the subscription was re-enabled before they came due.
      LC_ASSIGN_OR_RETURN(std::int64_t cancelled, w.CancelPendingDeliveries(sub.shopId, sub.id));
      (void)cancelled;
    }
    if (!cur->isActive) return Status::Ok();
    out.sub = std::move(*cur);
    if (next) {
      LC_ASSIGN_OR_RETURN(auto nextNow, w.GetDelivery(next->shopId, next->id));
      out.nextOurs = StillOurs(nextNow, *next);
      if (out.nextOurs) {
        LC_ASSIGN_OR_RETURN(out.nextEvent, w.GetEvent(next->shopId, next->eventId));
      }
    }
    return Status::Ok();
  });
  // Counted once the outcome is written (or its write failed), not before:
  // a scrape in between saw the attempt counted while the queue still
  // showed its delivery due.
  if (I.o.metrics) {
    I.o.metrics
        ->GetCounter(metric::kWebhookDeliveries, "Webhook delivery attempts by outcome", {{"outcome", att.outcome}})
        .Inc();
    I.o.metrics
        ->GetHistogram(metric::kWebhookDuration, "Webhook delivery attempt duration (connect to answer)",
                       DefaultLatencyBuckets())
        .Observe(static_cast<double>(duration) / 1000.0);
  }
  if (!st.ok()) return st.error();
  return out;
}

int WebhookDispatcher::RunOnce(int max) {
  Impl& I = *impl_;
  int done = 0;
  while (done < max && !I.stopping.load()) {
    const Millis claimedAt = I.clock->NowMillis();
    std::vector<WebhookDelivery> run = I.ClaimRun(claimedAt, std::min(max - done, std::max(I.o.runLength, 1)));
    if (run.empty()) break;
    const std::string subscriptionId = run.front().subscriptionId;
    const std::string shopId = run.front().shopId;
    // The subscription and the first event; each next event is read with
    // the outcome before it (RecordAttempt).
    std::optional<WebhookSubscription> sub;
    std::optional<Event> event;
    Status ls = I.o.store->Read([&](StoreReader& r) -> Status {
      LC_ASSIGN_OR_RETURN(sub, r.GetSubscription(shopId, subscriptionId));
      LC_ASSIGN_OR_RETURN(event, r.GetEvent(shopId, run.front().eventId));
      return Status::Ok();
    });
    if (!ls.ok()) {
      I.Release(subscriptionId);
      break;  // storage trouble: the leases expire and the deliveries are retried later
    }

    std::size_t next = 0;  // the first of the run not attempted
    std::vector<WebhookDelivery> cancelled;
    bool gone = !sub || !sub->isActive;  // paused, disabled or deleted: the rest is cancelled
    for (; next < run.size() && !gone; ++next) {
      const WebhookDelivery& d = run[next];
      const Millis now = I.clock->NowMillis();
      if (next > 0 && (I.stopping.load() || !LeaseLeftForAnother(now, d, I.o.leaseMillis, I.o.timeoutMillis)))
        break;
      if (!event) {
        // Its event is gone (the shop's data was erased): nothing to send.
        // The run ends here; the rest is claimed again with their events.
        cancelled.push_back(d);
        ++done;
        ++next;
        break;
      }
      ++done;
      WebhookResponse resp;
      const Millis t0 = I.clock->MonotonicMillis();
      // The public-address rule is checked on every delivery, and the
      // connection goes to the address checked here (no second lookup).
      auto target = CheckWebhookTarget(sub->url, *I.resolver, I.o.allowPrivateTargets);
      if (!target.ok()) {
        resp.status = 0;
        resp.error = target.error().message;
      } else {
        WebhookRequest req;
        req.target = *target;
        req.body = BuildPayload(*event);
        req.timeoutMillis = I.o.timeoutMillis;
        const std::string ts = std::to_string(now / 1000);
        req.headers = {
            {"Content-Type", "application/json"},
            {"User-Agent", "livechat-webhooks/1"},
            {"X-Webhook-Event", event->type},
            {"X-Webhook-Event-Id", event->id},
            {"X-Webhook-Delivery-Id", d.id},
        };
        for (auto& h : WebhookSignatureHeaders(*sub, event->id, ts, req.body, now)) req.headers.push_back(std::move(h));
        resp = I.o.transport->Send(req);
      }
      const Millis duration = I.clock->MonotonicMillis() - t0;
      const WebhookDelivery* following = next + 1 < run.size() ? &run[next + 1] : nullptr;
      auto recorded = RecordAttempt(d, *sub, *event, resp, duration, following);
      if (!recorded.ok()) {
        ++next;  // its outcome is not stored: it is sent again once its lease ends
        break;
      }
      if (!recorded->sub) {
        gone = true;
        ++next;
        break;
      }
      sub = std::move(recorded->sub);
      if (following && !recorded->nextOurs) {
        ++next;  // the rest is no longer this run's (cancelled, or another sender's)
        break;
      }
      event = std::move(recorded->nextEvent);
    }
    if (gone) {
      // Paused or deleted subscriptions stop delivery for every event (spec):
      // what is left of the run is cancelled, not sent.
      for (std::size_t i = next; i < run.size(); ++i) cancelled.push_back(run[i]);
      done += static_cast<int>(run.size() - next);
      next = run.size();
    }
    std::vector<std::string> unsent;
    for (std::size_t i = next; i < run.size(); ++i) unsent.push_back(run[i].id);
    if (!cancelled.empty() || !unsent.empty()) {
      (void)I.o.store->Write([&](StoreWriter& w) -> Status {
        for (WebhookDelivery c : cancelled) {
          // Only what is still this run's: a delivery the owner's pause
          // already cancelled, or another sender holds, is left as it is.
          LC_ASSIGN_OR_RETURN(auto cur, w.GetDelivery(c.shopId, c.id));
          if (!StillOurs(cur, c)) continue;
          c.state = "cancelled";
          c.leaseUntil = 0;
          LC_ASSIGN_OR_RETURN(bool ok, w.UpdateDelivery(c));
          (void)ok;
        }
        // A run cut short (Stop, the lease half gone, its rest no longer
        // its own): what is still under its lease goes back to the queue at
        // once, for this or another process.
        if (!unsent.empty()) {
          LC_ASSIGN_OR_RETURN(std::int64_t released, w.ReleaseDeliveries(shopId, unsent, run.front().leaseUntil));
          (void)released;
        }
        return Status::Ok();
      });
    }
    I.Release(subscriptionId);
  }
  return done;
}

// One run per pass, so Stop() waits for at most the send in flight: a run
// of the background threads sends nothing more once Stop() has begun. (A
// RunOnce called by its owner on a thread of its own is the owner's to wait
// for.)
void WebhookDispatcher::Start() { loop_.Start(impl_->o.threads); }

void WebhookDispatcher::Stop() {
  impl_->stopping.store(true);
  loop_.Stop();
  impl_->stopping.store(false);
}

void WebhookDispatcher::Notify() { loop_.Notify(); }

}  // namespace livechat
