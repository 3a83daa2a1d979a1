// The PostgreSQL schema and its versioned migrations.
#pragma once

#include "livechat/result.h"
#include "storage/postgres/pg_connection.h"

namespace livechat::pg {

// Brings the database to this build's schema version. Several instances may
// start together on an empty database: a session advisory lock lets one
// migrate while the others wait, then each finds the work done. A database
// newer than this build is refused with a message saying so.
Status Migrate(Connection& conn);

// Taken first by every write transaction (pg_store.cc), and by a copy into
// the database: one writer at a time across every instance.
inline constexpr const char* kWriteLock = "SELECT pg_advisory_xact_lock(7426391805513)";

// The schema version of the database, 0 when it has none.
Result<std::int64_t> CurrentVersion(Connection& conn);

}  // namespace livechat::pg
