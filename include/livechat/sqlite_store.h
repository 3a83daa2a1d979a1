// The embedded default Store: one SQLite file in WAL mode, one write
// connection behind a mutex, a small pool of read connections.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "livechat/metrics.h"
#include "livechat/result.h"
#include "livechat/store.h"

namespace livechat {

struct SqliteOptions {
  // A file path, or ":memory:" for a private in-memory database (tests).
  std::string path = "livechat.db";
  int readers = 4;
  int busyTimeoutMillis = 5000;
  // Counts waits for another connection's lock (SQLITE_BUSY retries); null: not counted.
  MetricsRegistry* metrics = nullptr;
  // A cap on the database file (SQLite's max_page_count; 0: none, never
  // below the size it already has). A write that would pass it is refused
  // exactly as on a full disk: kUnavailable, nothing written; reads go on.
  std::int64_t maxDatabaseBytes = 0;
  // WAL checkpoints (copying committed pages from the -wal file into the
  // database file, then fsync) run on a thread of their own once the WAL
  // holds `checkpointPages` pages, so no write waits for one. Should that
  // thread fall behind a steady stream of writes, the write that brings the
  // WAL to `writerCheckpointPages` checkpoints itself, as SQLite does by
  // default, which keeps the WAL bounded. 0 for checkpointPages: every
  // checkpoint on the writer at 1,000 pages (SQLite's default).
  int checkpointPages = 1000;
  int writerCheckpointPages = 8000;
};

// Opens (creating if needed) and migrates the database to the current schema
// version (PRAGMA user_version). Errors: kInternal with SQLite's message;
// kUnavailable when the disk is full.
Result<std::unique_ptr<Store>> OpenSqliteStore(const SqliteOptions& options);

// Schema version this build migrates to.
int SqliteSchemaVersion();

// Turns off SQLite's process-wide memory statistics, which take one global
// mutex around every allocation SQLite makes: under concurrent reads (a
// full-text search allocates thousands of times) the threads queue on it.
// livechat reads none of those statistics (nor sets a soft heap limit,
// which needs them). Must run before SQLite is first used in the process,
// with no other thread using SQLite (sqlite3_config); later it changes
// nothing and returns false. livechatd calls it first thing.
bool DisableSqliteMemoryStatistics();

// Lets SQLite keep a statement's or savepoint's journal in memory up to
// `bytes` before moving it to a temporary file (SQLITE_CONFIG_STMTJRNL_SPILL;
// SQLite's default is 64 KiB). Group commit runs each write of a batch in a
// savepoint whose journal holds the original of every page the write
// changes: a message send changes more than 64 KiB of pages, so with the
// default each one created, wrote and deleted a temporary file. A larger
// write (an erasure, an import) still spills past `bytes`, so memory stays
// bounded. Same rules as DisableSqliteMemoryStatistics: before SQLite is
// first used, else false; livechatd calls it first thing with
// kSqliteServerJournalSpillBytes.
bool SetSqliteJournalSpillBytes(int bytes);
inline constexpr int kSqliteServerJournalSpillBytes = 4 << 20;

// Writes a consistent copy of the database at `path` to the new file `to`
// (SQLite's online backup API in one step: a read transaction, so a running
// livechatd keeps reading and writing meanwhile; the copy has no -wal file).
// `to` must not exist: INVALID_PARAMS. Other failures: kInternal.
Status BackupSqliteDatabase(const std::string& path, const std::string& to);

}  // namespace livechat
