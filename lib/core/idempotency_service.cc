// IdempotencyService: Idempotency-Key (IETF draft-ietf-httpapi-idempotency-key-header)
// for the REST writes. The first request with a key claims it in the same
// write transaction that checks for it, so of any number of concurrent
// repeats exactly one runs; its response is kept 24 hours for the others.
// The records live in the database, so the guarantee holds across restarts
// and across instances sharing a PostgreSQL database.
#include <fmt/format.h>

#include "livechat/crypto.h"
#include "core/service_internal.h"
#include "livechat/chat_service.h"

namespace livechat {

using namespace internal;

namespace {

constexpr Millis kKeptFor = 24 * 3600 * 1000;
// A first request that has not finished after this is presumed dead (its
// process was killed): a repeat then runs in its place.
constexpr Millis kRunningLease = 60 * 1000;
// Expired records removed by each claim: the table stays as small as the
// last day's keys without a sweeper of its own.
constexpr int kPurgePerClaim = 16;

std::string ScopeOf(const Principal& p) {
  switch (p.kind) {
    case Principal::Kind::kApiKey: return "key:" + p.keyId.value_or("");
    case Principal::Kind::kAdminSession: return "member:" + p.memberId.value_or("");
    case Principal::Kind::kSystem: return "system";
  }
  return "system";
}

}  // namespace

std::string IdempotencyFingerprint(std::string_view method, std::string_view target, std::string_view body) {
  // Lengths first, so no two different requests concatenate to the same text.
  return Sha256Hex(fmt::format("{}:{}\n{}:{}\n{}:", method.size(), method, target.size(), target, body.size()) +
                   std::string(body));
}

Result<std::string> ParseIdempotencyKey(std::string_view header) {
  std::string_view key = header;
  // The draft's form is a Structured Field string ("..."); a bare token is
  // accepted too, as most clients send one.
  if (key.size() >= 2 && key.front() == '"' && key.back() == '"') key = key.substr(1, key.size() - 2);
  if (key.empty() || key.size() > 255)
    return Invalid(fmt::format("Idempotency-Key must be 1 to 255 characters, got {}", key.size()));
  for (char c : key) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e)
      return Invalid("Idempotency-Key must be printable ASCII characters (space to ~)");
  }
  return std::string(key);
}

namespace {

// What a record found at `now` means for a request with `fingerprint`: an
// answer (a replay or a refusal), or nothing when the request may claim
// the key and run.
std::optional<Result<IdempotentStart>> Decide(const std::optional<IdempotencyRecord>& existing,
                                               const std::string& fingerprint, Millis now) {
  if (!existing || existing->expiresAt <= now) return std::nullopt;
  if (existing->fingerprint != fingerprint)
    return Result<IdempotentStart>(MakeError(ErrorCode::kIdempotencyKeyReused,
                                             "this Idempotency-Key was already used with a different request "
                                             "(method, path or body); use a new key for a new request"));
  if (existing->done) {
    IdempotentStart replay;
    replay.kind = IdempotentStart::Kind::kReplay;
    replay.status = existing->status;
    replay.contentType = existing->contentType;
    replay.body = existing->body;
    return Result<IdempotentStart>(std::move(replay));
  }
  if (existing->leaseUntil > now)
    return Result<IdempotentStart>(RetryLaterError(
        ErrorCode::kConflict, "a request with this Idempotency-Key is still being processed; retry shortly", 1000));
  return std::nullopt;
}

}  // namespace

Result<IdempotentStart> IdempotencyService::BeginIdempotentRequest(const Principal& p, const std::string& key,
                                                             const std::string& fingerprint) {
  const std::string scope = ScopeOf(p);
  const Millis now = ctx_.clock->NowMillis();
  // A retry storm repeats a finished request: its answer comes from a read
  // snapshot, so the repeats never queue on the writer. A record is only
  // ever replaced by a later state of the same request (running, then done)
  // or by a new claim after it expired, so what the snapshot shows is an
  // answer this request may be given.
  std::optional<IdempotencyRecord> seen;
  LC_RETURN_IF_ERROR(ctx_.store().Read([&](StoreReader& r) -> Status {
    LC_ASSIGN_OR_RETURN(seen, r.GetIdempotencyRecord(p.shopId, scope, key));
    return Status::Ok();
  }));
  if (auto decided = Decide(seen, fingerprint, now)) return std::move(*decided);
  // No usable record: claim the key in the transaction that checks it
  // again, so of concurrent first requests exactly one runs.
  return WriteValue<IdempotentStart>(ctx_.store(), [&](StoreWriter& w) -> Result<IdempotentStart> {
    LC_ASSIGN_OR_RETURN(std::int64_t purged, w.PurgeIdempotencyRecords(now, kPurgePerClaim));
    (void)purged;
    LC_ASSIGN_OR_RETURN(auto existing, w.GetIdempotencyRecord(p.shopId, scope, key));
    if (auto decided = Decide(existing, fingerprint, now)) return std::move(*decided);
    IdempotencyRecord r;
    r.shopId = p.shopId;
    r.scope = scope;
    r.key = key;
    r.fingerprint = fingerprint;
    r.createdAt = now;
    r.leaseUntil = now + kRunningLease;
    r.expiresAt = now + kKeptFor;
    LC_RETURN_IF_ERROR(w.PutIdempotencyRecord(r));
    return IdempotentStart{};
  });
}

Status IdempotencyService::FinishIdempotentRequest(const Principal& p, const std::string& key, int status,
                                            const std::string& contentType, const std::string& body) {
  const std::string scope = ScopeOf(p);
  const Millis now = ctx_.clock->NowMillis();
  return ctx_.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto r, w.GetIdempotencyRecord(p.shopId, scope, key));
    if (!r || r->done) return Status::Ok();
    // A failure of the server or a refusal by a limit is not the answer to
    // keep: the client's retry must run again.
    if (status >= 500 || status == 429) {
      LC_ASSIGN_OR_RETURN(bool gone, w.DeleteIdempotencyRecord(p.shopId, scope, key));
      (void)gone;
      return Status::Ok();
    }
    r->done = true;
    r->status = status;
    r->contentType = contentType;
    r->body = body;
    r->leaseUntil = 0;
    r->expiresAt = now + kKeptFor;
    return w.PutIdempotencyRecord(*r);
  });
}

}  // namespace livechat
