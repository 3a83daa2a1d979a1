#include "storage/postgres/pg_connection.h"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <utility>

namespace livechat::pg {
namespace {

constexpr std::string_view kSqlStateTag = " [SQLSTATE ";

// Rewrites SQLite-style parameters (`?1`, `?`, `:name`) to PostgreSQL's `$n`
// outside string literals and quoted identifiers; `::type` casts stay.
Result<std::string> RewriteParameters(std::string_view sql, std::vector<std::string>& names) {
  std::string out;
  out.reserve(sql.size() + 16);
  std::size_t implicit = 0;
  for (std::size_t i = 0; i < sql.size();) {
    const char c = sql[i];
    if (c == '\'' || c == '"') {
      const std::size_t end = sql.find(c, i + 1);
      if (end == std::string_view::npos) return Error{ErrorCode::kInternal, "pg: unterminated quote in SQL"};
      out.append(sql.substr(i, end + 1 - i));
      i = end + 1;
      continue;
    }
    if (c == ':' && i + 1 < sql.size() && sql[i + 1] == ':') {
      out += "::";
      i += 2;
      continue;
    }
    auto isIdent = [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
    };
    if (c == ':' && i + 1 < sql.size() && isIdent(sql[i + 1])) {
      std::size_t j = i + 1;
      while (j < sql.size() && isIdent(sql[j])) ++j;
      std::string name(sql.substr(i, j - i));
      std::size_t n = 0;
      while (n < names.size() && names[n] != name) ++n;
      if (n == names.size()) names.push_back(name);
      out += "$" + std::to_string(n + 1);
      i = j;
      continue;
    }
    if (c == '?') {
      std::size_t j = i + 1;
      while (j < sql.size() && sql[j] >= '0' && sql[j] <= '9') ++j;
      std::size_t n = 0;
      if (j > i + 1) {
        std::from_chars(sql.data() + i + 1, sql.data() + j, n);
      } else {
        n = ++implicit;
      }
      if (n == 0) return Error{ErrorCode::kInternal, "pg: parameter ?0 in SQL"};
      if (names.size() < n) names.resize(n);
      out += "$" + std::to_string(n);
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

// What ends by itself (space freed, the server back, a connection slot
// free) is kUnavailable, so the client is told to retry: class 08
// (connection exception), 53 (insufficient resources: disk full, out of
// memory, too many connections), 57P01-57P03 (the server shutting down or
// starting). A connection that is no longer usable is the same, whatever
// the result says.
ErrorCode CodeFor(PGconn* conn, std::string_view state) {
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) return ErrorCode::kUnavailable;
  if (state.size() != 5) return ErrorCode::kInternal;
  const std::string_view cls = state.substr(0, 2);
  if (cls == "08" || cls == "53") return ErrorCode::kUnavailable;
  if (state == "57P01" || state == "57P02" || state == "57P03") return ErrorCode::kUnavailable;
  return ErrorCode::kInternal;
}

constexpr std::string_view kSettingsTables[] = {"shops", "members", "channel_integrations", "webhook_subscriptions"};

bool IsSettingsTable(std::string_view t) {
  for (std::string_view s : kSettingsTables)
    if (t == s) return true;
  return false;
}

// The statement's words, lower-cased, and its other characters one token
// each; a quoted identifier or a string literal is one token, quotes kept.
std::vector<std::string> Tokens(std::string_view sql) {
  std::vector<std::string> out;
  auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  for (std::size_t i = 0; i < sql.size();) {
    const char c = sql[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (word(c)) {
      std::string w;
      for (; i < sql.size() && word(sql[i]); ++i) w += static_cast<char>(std::tolower(static_cast<unsigned char>(sql[i])));
      out.push_back(std::move(w));
    } else if (c == '\'' || c == '"') {
      std::size_t end = sql.find(c, i + 1);
      if (end == std::string_view::npos) end = sql.size() - 1;
      out.emplace_back(sql.substr(i, end + 1 - i));
      i = end + 1;
    } else {
      out.emplace_back(1, c);
      ++i;
    }
  }
  return out;
}

// A plain table name: not quoted, not schema-qualified (the caller checks
// the next token is not "."), not a keyword standing where a name could.
bool Bare(std::string_view t) {
  return !t.empty() && (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_') && t != "only";
}

}  // namespace

// Connection::Kind of a statement, from its text: anything not recognised
// as harmless forgets. A SELECT leaves the kept reads: no function of the
// schema writes a settings table (they write rate windows, cost buckets and
// search rows).
Connection::Kind Connection::KindOf(std::string_view sql) {
  const std::vector<std::string> t = Tokens(sql);
  auto at = [&](std::size_t i) { return i < t.size() ? std::string_view(t[i]) : std::string_view(); };
  if (at(0) == "select") {
    // Kept: one table, named plainly, nothing computed, joined or nested.
    std::size_t from = 0;
    int froms = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i] == "join" || t[i] == "(") return Kind::kLeaves;
      if (t[i] == "from") {
        ++froms;
        from = i;
      }
    }
    if (froms != 1) return Kind::kLeaves;
    const std::string_view next = at(from + 2);
    const bool alone = next.empty() || next == "where" || next == "order";
    return Bare(at(from + 1)) && IsSettingsTable(at(from + 1)) && alone ? Kind::kSettingsRead : Kind::kLeaves;
  }
  if (at(0) == "insert" && at(1) == "into" && Bare(at(2)) && at(3) != "." && !IsSettingsTable(at(2)))
    return Kind::kLeaves;
  if (at(0) == "update" && Bare(at(1)) && at(2) != "." && !IsSettingsTable(at(1))) return Kind::kLeaves;
  return Kind::kForgets;
}

// Simple-protocol commands that change no rows and end nothing: every
// statement of `sql` opens or releases a savepoint or sets when the
// constraints are checked.
bool Connection::ExecLeaves(std::string_view sql) {
  const std::vector<std::string> t = Tokens(sql);
  bool start = true;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == ";") {
      start = true;
      continue;
    }
    if (!start) continue;
    start = false;
    const bool ok = t[i] == "savepoint" || t[i] == "release" ||
                    (t[i] == "set" && i + 1 < t.size() && t[i + 1] == "constraints");
    if (!ok) return false;
  }
  return true;
}

Error PgError(PGconn* conn, const PGresult* res, std::string_view what) {
  std::string msg = "postgres: ";
  msg += what;
  msg += ": ";
  const char* text = res != nullptr ? PQresultErrorMessage(res) : nullptr;
  if (text == nullptr || *text == '\0') text = conn != nullptr ? PQerrorMessage(conn) : "no connection";
  std::string_view t(text);
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.remove_suffix(1);
  msg += t;
  std::string_view state;
  if (res != nullptr) {
    if (const char* s = PQresultErrorField(res, PG_DIAG_SQLSTATE); s != nullptr) {
      state = s;
      msg += kSqlStateTag;
      msg += state;
      msg += "]";
    }
  }
  return Error{CodeFor(conn, state), std::move(msg)};
}

std::string_view SqlState(const Error& e) {
  const std::size_t at = e.message.rfind(kSqlStateTag);
  if (at == std::string::npos) return {};
  std::string_view rest = std::string_view(e.message).substr(at + kSqlStateTag.size());
  return rest.substr(0, rest.find(']'));
}

Result<std::unique_ptr<Connection>> Connection::Open(const std::string& url) {
  PGconn* conn = PQconnectdb(url.c_str());
  if (conn == nullptr) return Error{ErrorCode::kInternal, "postgres: out of memory connecting"};
  if (PQstatus(conn) != CONNECTION_OK) {
    Error err = PgError(conn, nullptr, "connect");
    PQfinish(conn);
    return err;
  }
  std::unique_ptr<Connection> c(new Connection(conn));
  // Times are integers of milliseconds everywhere; UTC only matters for
  // anything the server formats itself. Notices (e.g. "relation already
  // exists, skipping") are not errors and must not reach stderr.
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);
  LC_RETURN_IF_ERROR(c->Exec("SET TIME ZONE 'UTC'"));
  return c;
}

Connection::~Connection() { PQfinish(conn_); }

namespace {
// A statement's text as an error names it.
std::string Shortened(const std::string& sql) { return sql.size() > 80 ? sql.substr(0, 80) + "..." : sql; }
}  // namespace

Status Connection::Exec(const std::string& sql) {
  // A COMMIT after a deferred statement failed would end the aborted
  // transaction as a ROLLBACK and report success: the deferred error comes
  // first. A ROLLBACK is what follows an error, so it runs regardless.
  if (pending_ > 0) {
    Status flushed = Flush();
    if (!flushed.ok() && sql.rfind("ROLLBACK", 0) != 0) return flushed;
  }
  // "SET CONSTRAINTS ALL IMMEDIATE; ...; RELEASE SAVEPOINT w" and
  // "SAVEPOINT w" keep them; BEGIN, COMMIT and any ROLLBACK do not.
  Touch(ExecLeaves(sql) ? Kind::kLeaves : Kind::kForgets);
  PGresult* res = PQexec(conn_, sql.c_str());
  const ExecStatusType status = PQresultStatus(res);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
    PQclear(res);
    return Status::Ok();
  }
  const std::string what = Shortened(sql);
  Error err = PgError(conn_, res, what);
  PQclear(res);
  return err;
}

Status Connection::EnterPipeline() {
  if (PQpipelineStatus(conn_) != PQ_PIPELINE_OFF) return Status::Ok();
  if (PQenterPipelineMode(conn_) == 1) return Status::Ok();
  return PgError(conn_, nullptr, "enter pipeline mode");
}

Status Connection::SendPrepared(const Prepared& prepared, const std::vector<const char*>& params) {
  LC_RETURN_IF_ERROR(EnterPipeline());
  // A send that fails leaves the pipeline in a state nothing here can read
  // back: the connection is replaced (Ok), here and below.
  if (PQsendQueryPrepared(conn_, prepared.name.c_str(), static_cast<int>(params.size()), params.data(), nullptr,
                          nullptr, 0) != 1) {
    broken_ = true;
    return PgError(conn_, nullptr, "send deferred query");
  }
  ++pending_;
  return Status::Ok();
}

Status Connection::ReadPipeline(std::optional<Error>& deferredError, std::vector<PGresult*>* rest) {
  const std::size_t deferred = pending_;
  pending_ = 0;
  if (!syncSent_ && PQpipelineSync(conn_) != 1) {
    // Nothing can be read back without the sync; the connection is unusable.
    syncSent_ = false;
    broken_ = true;
    return PgError(conn_, nullptr, "pipeline sync");
  }
  syncSent_ = false;
  // Each statement's results end with a null; the sync's own result ends
  // the pipeline. Bounded: a lost connection gives nulls forever.
  const std::size_t statements = deferred + (rest != nullptr ? rest->size() : 0);
  std::size_t index = 0;
  std::size_t nulls = 0;
  for (;;) {
    PGresult* r = PQgetResult(conn_);
    if (r == nullptr) {
      ++index;
      if (++nulls > statements + 1 || PQstatus(conn_) != CONNECTION_OK) {
        if (rest != nullptr)
          for (PGresult*& kept : *rest) {
            if (kept != nullptr) PQclear(kept);
            kept = nullptr;
          }
        broken_ = true;
        return PgError(conn_, nullptr, "pipeline: connection lost");
      }
      continue;
    }
    nulls = 0;
    const ExecStatusType status = PQresultStatus(r);
    if (status == PGRES_PIPELINE_SYNC) {
      PQclear(r);
      break;
    }
    if (index < deferred) {
      if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_PIPELINE_ABORTED &&
          !deferredError)
        deferredError = PgError(conn_, r, "deferred query");
      PQclear(r);
    } else if (rest != nullptr && index - deferred < rest->size() && (*rest)[index - deferred] == nullptr) {
      (*rest)[index - deferred] = r;
    } else {
      PQclear(r);
    }
  }
  if (PQexitPipelineMode(conn_) != 1) {
    broken_ = true;
    return PgError(conn_, nullptr, "exit pipeline mode");
  }
  return Status::Ok();
}

Status Connection::Flush() {
  if (pending_ == 0 && !syncSent_) return Status::Ok();
  std::optional<Error> deferredError;
  LC_RETURN_IF_ERROR(ReadPipeline(deferredError, nullptr));
  if (deferredError) {
    Touch(Kind::kForgets);  // the transaction is aborted: nothing read stands
    return *deferredError;
  }
  return Status::Ok();
}

Status Connection::SendCommand(const char* sql) {
  Touch(Kind::kForgets);
  LC_RETURN_IF_ERROR(EnterPipeline());
  if (PQsendQueryParams(conn_, sql, 0, nullptr, nullptr, nullptr, nullptr, 0) != 1) {
    broken_ = true;
    return PgError(conn_, nullptr, sql);
  }
  ++pending_;
  return Status::Ok();
}

Status Connection::SendWithoutWaiting(const char* sql) {
  LC_RETURN_IF_ERROR(SendCommand(sql));
  if (PQpipelineSync(conn_) != 1) {
    broken_ = true;
    return PgError(conn_, nullptr, "pipeline sync");
  }
  syncSent_ = true;
  return Status::Ok();
}

Status Connection::SendAhead(const char* sql) {
  // What an earlier sync ended is read first: the pipeline behind it is a
  // new one, which the next statement's sync ends.
  if (syncSent_) LC_RETURN_IF_ERROR(Flush());
  return SendCommand(sql);
}

Status Connection::ExecEach(const std::vector<std::string>& statements) {
  if (syncSent_) LC_RETURN_IF_ERROR(Flush());
  bool leaves = true;
  for (const auto& sql : statements) leaves = leaves && ExecLeaves(sql);
  Touch(leaves ? Kind::kLeaves : Kind::kForgets);
  LC_RETURN_IF_ERROR(EnterPipeline());
  for (const auto& sql : statements)
    if (PQsendQueryParams(conn_, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) != 1) {
      broken_ = true;
      return PgError(conn_, nullptr, Shortened(sql));
    }
  std::vector<PGresult*> results(statements.size(), nullptr);
  std::optional<Error> deferredError;
  Status read = ReadPipeline(deferredError, &results);
  std::optional<Error> first = deferredError;
  for (std::size_t i = 0; i < results.size(); ++i) {
    PGresult* r = results[i];
    if (!first && r != nullptr) {
      const ExecStatusType status = PQresultStatus(r);
      if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        const std::string& sql = statements[i];
        first = PgError(conn_, r, Shortened(sql));
      } else if (statements[i] == "COMMIT" && std::string_view(PQcmdStatus(r)) == "ROLLBACK") {
        // An aborted transaction's COMMIT answers ROLLBACK, not an error.
        first = Error{ErrorCode::kInternal, "postgres: COMMIT rolled back an aborted transaction"};
      }
    }
    if (r != nullptr) PQclear(r);
  }
  if (!read.ok()) return read;
  if (first) {
    Touch(Kind::kForgets);
    return *first;
  }
  return Status::Ok();
}

Result<std::int64_t> Connection::ExecInt(const std::string& sql) {
  LC_RETURN_IF_ERROR(Flush());
  Touch(Kind::kForgets);
  PGresult* res = PQexec(conn_, sql.c_str());
  if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) < 1 || PQgetisnull(res, 0, 0)) {
    const std::string what = Shortened(sql);
    Error err = PQresultStatus(res) == PGRES_TUPLES_OK ? Error{ErrorCode::kInternal, "postgres: no value from " + what}
                                                       : PgError(conn_, res, what);
    PQclear(res);
    return err;
  }
  const std::int64_t value = std::strtoll(PQgetvalue(res, 0, 0), nullptr, 10);
  PQclear(res);
  return value;
}

Result<Statement> Connection::Prepare(std::string_view sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    // PQprepare waits, which pipeline mode does not allow: what is in
    // flight is read first (once per statement and connection).
    LC_RETURN_IF_ERROR(Flush());
    Prepared p;
    LC_ASSIGN_OR_RETURN(std::string text, RewriteParameters(sql, p.names));
    p.name = "lc" + std::to_string(++nextName_);
    p.kind = KindOf(text);
    PGresult* res = PQprepare(conn_, p.name.c_str(), text.c_str(), static_cast<int>(p.names.size()), nullptr);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
      Error err = PgError(conn_, res, "prepare " + text.substr(0, 120));
      PQclear(res);
      return err;
    }
    PQclear(res);
    it = cache_.emplace(std::string(sql), std::move(p)).first;
  }
  return Statement(this, &it->second);
}

Result<std::int64_t> Connection::QueryInt(const std::string& sql) {
  LC_ASSIGN_OR_RETURN(Statement st, Prepare(sql));
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Error{ErrorCode::kInternal, "postgres: no row from " + sql};
  return st.Int(0);
}

Statement::Statement(Connection* conn, const Connection::Prepared* prepared)
    : conn_(conn), prepared_(prepared), values_(prepared->names.size()) {}

Statement::Statement(Statement&& o) noexcept
    : conn_(o.conn_),
      prepared_(o.prepared_),
      values_(std::move(o.values_)),
      next_(o.next_),
      bindError_(std::move(o.bindError_)),
      res_(o.res_),
      kept_(std::move(o.kept_)),
      row_(o.row_),
      ran_(o.ran_) {
  o.res_ = nullptr;
}

Statement::~Statement() {
  if (res_ != nullptr && !kept_) PQclear(res_);
}

bool Statement::Seek(const char* name) {
  const auto& names = prepared_->names;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) {
      next_ = i;
      return true;
    }
  }
  if (bindError_.empty()) bindError_ = std::string("no parameter ") + name;
  return false;
}

Statement& Statement::Set(std::optional<std::string> v) {
  if (next_ >= values_.size()) {
    if (bindError_.empty()) bindError_ = "too many parameters (" + std::to_string(next_ + 1) + ")";
    ++next_;
    return *this;
  }
  values_[next_++] = std::move(v);
  return *this;
}

Statement& Statement::Add(std::string_view v) {
  // PostgreSQL text cannot hold NUL; the service's validators refuse it
  // before storage, so one here is a defect to report, not to truncate.
  if (v.find('\0') != std::string_view::npos && bindError_.empty()) bindError_ = "text with a NUL byte";
  return Set(std::string(v));
}

Statement& Statement::Add(std::int64_t v) { return Set(std::to_string(v)); }

Statement& Statement::Add(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  return Set(std::string(buf, end));
}

Statement& Statement::AddNull() { return Set(std::nullopt); }

Status Statement::Execute(bool defer) {
  ran_ = true;
  if (!bindError_.empty()) return Error{ErrorCode::kInternal, "postgres: bind: " + bindError_};
  // Not while deferred statements are unread: one of them may have aborted
  // the transaction, and this read must then fail with its error.
  const bool keep =
      conn_->keepSettings_ && prepared_->kind == Connection::Kind::kSettingsRead && conn_->pending_ == 0;
  std::string key;
  if (keep) {
    key = KeptKey();
    if (auto it = conn_->kept_.find(key); it != conn_->kept_.end()) {
      kept_ = it->second;
      res_ = kept_.get();
      conn_->changes_ = PQntuples(res_);
      ++conn_->keptHits_;
      return Status::Ok();
    }
  }
  conn_->Touch(prepared_->kind);
  std::vector<const char*> params(values_.size());
  for (std::size_t i = 0; i < values_.size(); ++i) params[i] = values_[i] ? values_[i]->c_str() : nullptr;
  if (defer && conn_->deferring_) {
    if (conn_->syncSent_) LC_RETURN_IF_ERROR(conn_->Flush());
    return conn_->SendPrepared(*prepared_, params);
  }
  if (conn_->syncSent_) LC_RETURN_IF_ERROR(conn_->Flush());
  if (conn_->pending_ > 0) {
    // After the deferred statements, in the same round trip.
    if (PQsendQueryPrepared(conn_->conn_, prepared_->name.c_str(), static_cast<int>(params.size()), params.data(),
                            nullptr, nullptr, 0) != 1) {
      conn_->broken_ = true;
      return PgError(conn_->conn_, nullptr, "send query");
    }
    std::vector<PGresult*> results(1, nullptr);
    std::optional<Error> deferredError;
    Status read = conn_->ReadPipeline(deferredError, &results);
    res_ = results[0];
    if (read.ok() && deferredError) read = *deferredError;
    if (read.ok() && res_ == nullptr) read = Error{ErrorCode::kInternal, "postgres: no result from a query"};
    if (!read.ok()) {
      if (res_ != nullptr) PQclear(res_);
      res_ = nullptr;
      conn_->Touch(Connection::Kind::kForgets);
      return read;
    }
  } else {
    res_ = PQexecPrepared(conn_->conn_, prepared_->name.c_str(), static_cast<int>(params.size()), params.data(),
                          nullptr, nullptr, 0);
  }
  const ExecStatusType status = PQresultStatus(res_);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    conn_->Touch(Connection::Kind::kForgets);  // the transaction is aborted: nothing read stands
    return PgError(conn_->conn_, res_, "query");
  }
  const char* tuples = PQcmdTuples(res_);
  conn_->changes_ = (tuples != nullptr && *tuples != '\0') ? std::strtoll(tuples, nullptr, 10) : 0;
  if (keep) {
    // A handful of settings rows per transaction; the bound is a backstop.
    if (conn_->kept_.size() >= 64) conn_->kept_.clear();
    kept_ = std::shared_ptr<PGresult>(res_, PQclear);
    conn_->kept_.emplace(std::move(key), kept_);
  }
  return Status::Ok();
}

std::string Statement::KeptKey() const {
  std::string key = prepared_->name;
  for (const auto& v : values_) {
    // Length-prefixed, so no two parameter lists share a key; null apart.
    if (!v) {
      key += "\x01N";
      continue;
    }
    key += '\x02';
    key += std::to_string(v->size());
    key += ':';
    key += *v;
  }
  return key;
}

Result<bool> Statement::Step() {
  if (!ran_) LC_RETURN_IF_ERROR(Execute());
  if (res_ == nullptr) return false;
  ++row_;
  return row_ < PQntuples(res_);
}

Status Statement::Run() {
  if (!ran_) return Execute();
  return Status::Ok();
}

Status Statement::RunDeferred() {
  if (!ran_) return Execute(/*defer=*/true);
  return Status::Ok();
}

std::string Statement::Text(int col) const {
  return std::string(PQgetvalue(res_, row_, col), static_cast<std::size_t>(PQgetlength(res_, row_, col)));
}

std::string_view Statement::TextView(int col) const {
  return std::string_view(PQgetvalue(res_, row_, col), static_cast<std::size_t>(PQgetlength(res_, row_, col)));
}

std::int64_t Statement::Int(int col) const {
  const char* v = PQgetvalue(res_, row_, col);
  // A boolean result reads as 1 or 0, like SQLite's.
  if (*v == 't') return 1;
  if (*v == 'f') return 0;
  return std::strtoll(v, nullptr, 10);
}

bool Statement::Bool(int col) const { return Int(col) != 0; }

double Statement::Double(int col) const { return std::strtod(PQgetvalue(res_, row_, col), nullptr); }

std::optional<std::string> Statement::OptText(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Text(col);
}

std::optional<std::int64_t> Statement::OptInt(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Int(col);
}

std::optional<bool> Statement::OptBool(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Bool(col);
}

std::optional<double> Statement::OptDouble(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Double(col);
}

}  // namespace livechat::pg
