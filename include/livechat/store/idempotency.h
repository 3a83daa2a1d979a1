// Idempotency-Key records (IETF draft-ietf-httpapi-idempotency-key-header):
// the first request with a key runs, and its response is kept for the
// repeats. Part of StoreReader and StoreWriter (livechat/store.h), whose rules (shop scoping,
// missing vs. failed) hold here too. The rules themselves (what matches, how
// long a record lives) are ChatService's (idempotency_service.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "livechat/model.h"
#include "livechat/result.h"

namespace livechat {

struct IdempotencyRecord {
  std::string shopId;
  std::string scope;        // whose key: "key:<api key id>" or "member:<member id>"
  std::string key;          // the Idempotency-Key value
  std::string fingerprint;  // SHA-256 of the method, target and body it was first used with
  bool done = false;        // false: the first request is still running
  int status = 0;           // when done: the response kept for repeats
  std::string contentType;
  std::string body;
  Millis createdAt = 0;
  Millis leaseUntil = 0;    // while running: after this a repeat may run it again
  Millis expiresAt = 0;     // after this the key may be used afresh
};

// A read, so that a repeat whose answer is kept is replayed from a read
// snapshot and never waits for (or adds to) the one writer.
class IdempotencyReads {
 public:
  virtual ~IdempotencyReads() = default;
  virtual Result<std::optional<IdempotencyRecord>> GetIdempotencyRecord(const std::string& shopId,
                                                                        const std::string& scope,
                                                                        const std::string& key) = 0;
};

class IdempotencyWrites {
 public:
  virtual ~IdempotencyWrites() = default;
  // Inserts, or replaces the record of the same (shop, scope, key).
  virtual Status PutIdempotencyRecord(const IdempotencyRecord& r) = 0;
  virtual Result<bool> DeleteIdempotencyRecord(const std::string& shopId, const std::string& scope,
                                               const std::string& key) = 0;
  // Across shops: removes up to `limit` records expired at `now`; how many.
  virtual Result<std::int64_t> PurgeIdempotencyRecords(Millis now, int limit) = 0;
};

}  // namespace livechat
