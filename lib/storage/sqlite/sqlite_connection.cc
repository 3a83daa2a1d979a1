#include "storage/sqlite/sqlite_connection.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>


namespace livechat::sqlite {

namespace {

// A full disk (or max_page_count reached) ends when space returns, so the
// caller is told to come back, not that the server is broken. SQLite says
// SQLITE_FULL for a full database file or WAL. Growing the shared-memory
// index (-shm) on a full disk is SQLITE_IOERR_SHMSIZE, which SQLite 3.40
// reports with system errno 0: the first writes after a restart hit it when
// the WAL file kept its old size and the index was rebuilt small (the soak
// saw every write answered 500 for its whole full-disk period). Failing to
// grow that index has no other cause than space. Other I/O errors count as
// a full disk when their system errno says so.
ErrorCode CodeFor(sqlite3* db, int rc) {
  if ((rc & 0xff) == SQLITE_FULL) return ErrorCode::kUnavailable;
  if (rc == SQLITE_IOERR_SHMSIZE) return ErrorCode::kUnavailable;
  if ((rc & 0xff) == SQLITE_IOERR && db != nullptr) {
    const int err = sqlite3_system_errno(db);
    if (err == ENOSPC || err == EDQUOT) return ErrorCode::kUnavailable;
  }
  return ErrorCode::kInternal;
}

}  // namespace

Error SqliteError(sqlite3* db, int rc, std::string_view what) {
  std::string msg = "sqlite: ";
  msg += what;
  msg += ": ";
  // The connection's message describes the last failing call, which is only
  // this one when the codes agree.
  if (db != nullptr && (sqlite3_errcode(db) == rc || sqlite3_extended_errcode(db) == rc))
    msg += sqlite3_errmsg(db);
  else
    msg += sqlite3_errstr(rc);
  msg += " (code " + std::to_string(rc) + ")";
  return Error{CodeFor(db, rc), std::move(msg)};
}

namespace {

// livechat_rank(fts): the conversation search's relevance (sqlite_queries.cc).
// BM25's term-frequency and length parts without its IDF: every row a
// search ranks holds every word of the query, so IDF would weigh each row
// alike, and computing it counts every row holding each phrase (the shop
// token's phrase, phrase 0, holds all of the shop's) on every query, which
// is what made bm25() cost tens of milliseconds on a large store.
void LivechatRank(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* out, int, sqlite3_value**) {
  constexpr double k1 = 1.2, b = 0.75;
  const int phrases = api->xPhraseCount(fts);
  sqlite3_int64 rows = 0, total = 0;
  int length = 0, instances = 0;
  if (api->xRowCount(fts, &rows) != SQLITE_OK || api->xColumnTotalSize(fts, -1, &total) != SQLITE_OK ||
      api->xColumnSize(fts, -1, &length) != SQLITE_OK || api->xInstCount(fts, &instances) != SQLITE_OK) {
    sqlite3_result_error(out, "livechat_rank: cannot read the row's statistics", -1);
    return;
  }
  std::vector<int> tf(static_cast<std::size_t>(std::max(phrases, 0)), 0);
  for (int i = 0; i < instances; ++i) {
    int phrase = 0, column = 0, offset = 0;
    if (api->xInst(fts, i, &phrase, &column, &offset) == SQLITE_OK && phrase > 0 && phrase < phrases)
      ++tf[static_cast<std::size_t>(phrase)];
  }
  const double avg = rows > 0 ? static_cast<double>(total) / static_cast<double>(rows) : 1.0;
  const double norm = k1 * (1 - b + b * static_cast<double>(length) / (avg > 0 ? avg : 1.0));
  double score = 0;
  for (int f : tf)
    if (f > 0) score += f * (k1 + 1) / (f + norm);
  sqlite3_result_double(out, score);
}

// livechat_bm25(fts, filters, w1, w2, ...): FTS5's own bm25() with the
// same column weights and the same arithmetic, for a query whose first
// `filters` phrases only filter (the catalog's scope and parent tokens,
// which sit in columns weighted 0). bm25() counts the rows holding every
// phrase for its IDF, and the scope token's phrase holds every record of
// the store's kind: 10,000 rows read per query on a 10,000-product catalog,
// most of a product search's time (bench/RESULTS.md). A phrase found only
// in a zero-weight column adds 0 to bm25's sum whatever its IDF, so not
// counting it leaves every score exactly as bm25() computes it (the
// conformance suite compares the two).
struct Bm25Data {
  double avgdl = 0;
  std::vector<double> idf;
};

int CountRow(const Fts5ExtensionApi*, Fts5Context*, void* n) {
  ++*static_cast<sqlite3_int64*>(n);
  return SQLITE_OK;
}

void LivechatBm25(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* out, int nVal,
                  sqlite3_value** vals) {
  constexpr double k1 = 1.2, b = 0.75;
  if (nVal < 1) {
    sqlite3_result_error(out, "livechat_bm25: the number of filter phrases is missing", -1);
    return;
  }
  auto* data = static_cast<Bm25Data*>(api->xGetAuxdata(fts, 0));
  if (data == nullptr) {
    auto fresh = std::make_unique<Bm25Data>();
    const int phrases = api->xPhraseCount(fts);
    const int filters = std::clamp(sqlite3_value_int(vals[0]), 0, std::max(phrases, 0));
    sqlite3_int64 rows = 0, tokens = 0;
    int rc = api->xRowCount(fts, &rows);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
    fresh->avgdl = static_cast<double>(tokens) / static_cast<double>(rows);
    fresh->idf.assign(static_cast<std::size_t>(std::max(phrases, 0)), 0.0);
    for (int i = filters; rc == SQLITE_OK && i < phrases; ++i) {
      sqlite3_int64 hits = 0;
      rc = api->xQueryPhrase(fts, i, &hits, &CountRow);
      double idf = std::log((static_cast<double>(rows - hits) + 0.5) / (static_cast<double>(hits) + 0.5));
      fresh->idf[static_cast<std::size_t>(i)] = idf <= 0.0 ? 1e-6 : idf;
    }
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(out, rc);
      return;
    }
    // Owned by the cursor from here on: xSetAuxdata deletes it itself when
    // it fails.
    data = fresh.release();
    rc = api->xSetAuxdata(fts, data, [](void* d) { delete static_cast<Bm25Data*>(d); });
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(out, rc);
      return;
    }
  }
  std::vector<double> freq(data->idf.size(), 0.0);
  int instances = 0, length = 0;
  int rc = api->xInstCount(fts, &instances);
  for (int i = 0; rc == SQLITE_OK && i < instances; ++i) {
    int phrase = 0, column = 0, offset = 0;
    rc = api->xInst(fts, i, &phrase, &column, &offset);
    if (rc == SQLITE_OK && phrase >= 0 && static_cast<std::size_t>(phrase) < freq.size())
      freq[static_cast<std::size_t>(phrase)] += nVal > column + 1 ? sqlite3_value_double(vals[column + 1]) : 1.0;
  }
  if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &length);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(out, rc);
    return;
  }
  double score = 0;
  for (std::size_t i = 0; i < freq.size(); ++i)
    score += data->idf[i] * ((freq[i] * (k1 + 1.0)) / (freq[i] + k1 * (1 - b + b * length / data->avgdl)));
  sqlite3_result_double(out, -1.0 * score);
}

Status RegisterRank(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* st = nullptr;
  int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, nullptr);
  if (rc == SQLITE_OK) {
    sqlite3_bind_pointer(st, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
    sqlite3_step(st);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_OK || api == nullptr) return SqliteError(db, rc == SQLITE_OK ? SQLITE_ERROR : rc, "fts5 api");
  rc = api->xCreateFunction(api, "livechat_rank", nullptr, &LivechatRank, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, "create livechat_rank");
  rc = api->xCreateFunction(api, "livechat_bm25", nullptr, &LivechatBm25, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, "create livechat_bm25");
  return Status::Ok();
}

}  // namespace

int Connection::OnBusy(void* self, int priorCalls) {
  // The waits of SQLite's default handler: short first, then 100 ms steps.
  static constexpr int kDelays[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};
  auto* c = static_cast<Connection*>(self);
  const auto now = std::chrono::steady_clock::now();
  if (priorCalls == 0) c->busySince_ = now;
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(now - c->busySince_).count();
  if (waited >= c->busyTimeoutMillis_) return 0;  // SQLITE_BUSY to the caller
  int delay = priorCalls < 12 ? kDelays[priorCalls] : 100;
  delay = static_cast<int>(std::min<std::int64_t>(delay, c->busyTimeoutMillis_ - waited));
  if (c->busyRetries_) c->busyRetries_->Inc();
  sqlite3_sleep(delay);
  return 1;
}


Result<std::unique_ptr<Connection>> Connection::Open(const std::string& path, Mode mode, int busyTimeoutMillis,
                                                     Counter* busyRetries) {
  // The store serialises use of each connection itself, so SQLite's
  // per-connection mutex would only add cost.
  int flags = SQLITE_OPEN_NOMUTEX;
  flags |= mode == Mode::kReadOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    Error err = SqliteError(db, rc, "open " + path);
    sqlite3_close_v2(db);  // a handle is returned even on failure
    return err;
  }
  sqlite3_extended_result_codes(db, 1);
  std::unique_ptr<Connection> conn(new Connection(db));
  conn->busyTimeoutMillis_ = busyTimeoutMillis;
  conn->busyRetries_ = busyRetries;
  rc = sqlite3_busy_handler(db, &Connection::OnBusy, conn.get());
  if (rc != SQLITE_OK) return SqliteError(db, rc, "busy_handler");
  LC_RETURN_IF_ERROR(RegisterRank(db));
  LC_RETURN_IF_ERROR(conn->Exec("PRAGMA foreign_keys = ON"));
  LC_RETURN_IF_ERROR(conn->Exec("PRAGMA synchronous = NORMAL"));
  return conn;
}

Connection::~Connection() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

Status Connection::Exec(const char* sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string msg = std::string("sqlite: ") + sql + ": " + (err != nullptr ? err : sqlite3_errstr(rc)) + " (code " +
                    std::to_string(rc) + ")";
  sqlite3_free(err);
  return Error{CodeFor(db_, rc), std::move(msg)};
}

Result<Statement> Connection::Prepare(std::string_view sql) {
  Recent& slot = recent_[(reinterpret_cast<std::uintptr_t>(sql.data()) >> 4) % recent_.size()];
  if (slot.data == sql.data() && slot.size == sql.size() && std::memcmp(slot.sql->data(), sql.data(), sql.size()) == 0)
    return Statement(db_, slot.stmt);
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    sqlite3_stmt* stmt = nullptr;
    int rc =
        sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) {
      sqlite3_finalize(stmt);
      return SqliteError(db_, rc, "prepare");
    }
    it = cache_.emplace(std::string(sql), stmt).first;
  }
  slot = Recent{sql.data(), sql.size(), &it->first, it->second};
  return Statement(db_, it->second);
}

Status Connection::Run(std::string_view sql) {
  LC_ASSIGN_OR_RETURN(Statement st, Prepare(sql));
  Status run = st.Run();
  if (run.ok()) return run;
  // Named by its SQL, as Exec names it: "sqlite: COMMIT: ...", not "step".
  Error e = run.error();
  constexpr std::string_view kStep = "sqlite: step: ";
  if (e.message.compare(0, kStep.size(), kStep) == 0)
    e.message = "sqlite: " + std::string(sql) + ": " + e.message.substr(kStep.size());
  return e;
}

Result<std::int64_t> Connection::QueryInt(const char* sql) {
  LC_ASSIGN_OR_RETURN(Statement st, Prepare(sql));
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Error{ErrorCode::kInternal, std::string("sqlite: no row from ") + sql};
  return st.Int(0);
}

Statement::~Statement() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Statement& Statement::Record(int rc) {
  if (rc != SQLITE_OK && bindRc_ == SQLITE_OK) bindRc_ = rc;
  ++next_;
  return *this;
}

Statement& Statement::Add(std::string_view v) {
  // SQLITE_TRANSIENT: the caller's buffer may not outlive the step.
  return Record(sqlite3_bind_text64(stmt_, next_, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
}

Statement& Statement::Add(std::int64_t v) { return Record(sqlite3_bind_int64(stmt_, next_, v)); }

Statement& Statement::Add(double v) { return Record(sqlite3_bind_double(stmt_, next_, v)); }

Statement& Statement::AddNull() { return Record(sqlite3_bind_null(stmt_, next_)); }

Result<bool> Statement::Step() {
  if (bindRc_ != SQLITE_OK) return SqliteError(db_, bindRc_, "bind");
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(db_, rc, "step");
}

Status Statement::Run() {
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return Status::Ok();
  }
}

// A column is looked up once (sqlite3_column_value) and read through its
// value: each sqlite3_column_* call checks the index and the statement's
// error state again, and an optional text column took three of them. The
// value is the statement's own, valid until the next step or reset; it is
// read on the thread that owns the connection, opened NOMUTEX: such a
// connection has no mutex, so SQLite's protected and unprotected values
// behave the same on it.
namespace {

std::string_view ValueText(sqlite3_value* v) {
  const unsigned char* p = sqlite3_value_text(v);
  if (p == nullptr) return {};
  return std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_value_bytes(v)));
}

}  // namespace

std::string Statement::Text(int col) const { return std::string(ValueText(sqlite3_column_value(stmt_, col))); }

std::string_view Statement::TextView(int col) const { return ValueText(sqlite3_column_value(stmt_, col)); }

std::optional<std::string> Statement::OptText(int col) const {
  sqlite3_value* v = sqlite3_column_value(stmt_, col);
  if (sqlite3_value_type(v) == SQLITE_NULL) return std::nullopt;
  return std::string(ValueText(v));
}

std::optional<std::int64_t> Statement::OptInt(int col) const {
  sqlite3_value* v = sqlite3_column_value(stmt_, col);
  if (sqlite3_value_type(v) == SQLITE_NULL) return std::nullopt;
  return sqlite3_value_int64(v);
}

std::optional<bool> Statement::OptBool(int col) const {
  sqlite3_value* v = sqlite3_column_value(stmt_, col);
  if (sqlite3_value_type(v) == SQLITE_NULL) return std::nullopt;
  return sqlite3_value_int64(v) != 0;
}

std::optional<double> Statement::OptDouble(int col) const {
  sqlite3_value* v = sqlite3_column_value(stmt_, col);
  if (sqlite3_value_type(v) == SQLITE_NULL) return std::nullopt;
  return sqlite3_value_double(v);
}

}  // namespace livechat::sqlite
