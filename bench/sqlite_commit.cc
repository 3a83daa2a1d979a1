// The write ceiling for bench/writes.sh: SQLite's own rate of one-row commits
// (BEGIN IMMEDIATE; INSERT one row; COMMIT) from one connection, on a WAL
// file with the pragmas livechat's store uses (synchronous NORMAL, foreign
// keys on), through a prepared statement. Nothing of livechat runs: this is
// what the database alone commits, the figure a message send is compared to.
//
//   bench_sqlite_commit FILE SECONDS   -> prints "commits/s N"
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

bool Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) == SQLITE_OK) return true;
  std::fprintf(stderr, "%s: %s\n", sql, err != nullptr ? err : "error");
  sqlite3_free(err);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bench_sqlite_commit FILE SECONDS\n");
    return 2;
  }
  const double seconds = std::atof(argv[2]);
  sqlite3* db = nullptr;
  if (sqlite3_open(argv[1], &db) != SQLITE_OK) {
    std::fprintf(stderr, "cannot open %s\n", argv[1]);
    return 1;
  }
  if (!Exec(db, "PRAGMA journal_mode = WAL") || !Exec(db, "PRAGMA synchronous = NORMAL") ||
      !Exec(db, "PRAGMA foreign_keys = ON") ||
      !Exec(db, "CREATE TABLE IF NOT EXISTS one_row (id INTEGER PRIMARY KEY, body TEXT NOT NULL)"))
    return 1;
  sqlite3_stmt* insert = nullptr;
  if (sqlite3_prepare_v2(db, "INSERT INTO one_row (body) VALUES (?1)", -1, &insert, nullptr) != SQLITE_OK) return 1;
  // A body the size of a short chat message.
  const std::string body = "Thanks for waiting, your parcel ships today.";
  const auto start = std::chrono::steady_clock::now();
  const auto until = start + std::chrono::duration<double>(seconds);
  long commits = 0;
  while (std::chrono::steady_clock::now() < until) {
    if (!Exec(db, "BEGIN IMMEDIATE")) return 1;
    sqlite3_bind_text(insert, 1, body.data(), static_cast<int>(body.size()), SQLITE_STATIC);
    if (sqlite3_step(insert) != SQLITE_DONE) return 1;
    sqlite3_reset(insert);
    if (!Exec(db, "COMMIT")) return 1;
    ++commits;
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("commits/s %.0f\n", commits / elapsed);
  sqlite3_finalize(insert);
  sqlite3_close(db);
  return 0;
}
