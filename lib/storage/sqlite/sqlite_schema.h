// Numbered schema migrations, recorded in PRAGMA user_version.
#pragma once

#include "livechat/result.h"
#include "storage/sqlite/sqlite_connection.h"

namespace livechat::sqlite {

// Brings the database to SqliteSchemaVersion() in one IMMEDIATE transaction,
// so two processes opening a new file at once do not both migrate it.
// A database newer than this build is refused (kInternal).
Status Migrate(Connection& conn);

}  // namespace livechat::sqlite
