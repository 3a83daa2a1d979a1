// A throwaway PostgreSQL database per test, on the server scripts/test.sh
// starts (pg_virtualenv exports PGHOST, PGPORT, PGUSER, PGPASSWORD). Created
// empty on construction, dropped on destruction; `url()` is what
// OpenPostgresStore and livechatd's --db take.
#pragma once

#include <doctest/doctest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

namespace livechat::testing {

class PgTestDatabase {
 public:
  PgTestDatabase() {
    if (std::getenv("PGHOST") == nullptr) {
      FAIL("no PostgreSQL server for this test: PGHOST is not set. Run the suite through ./scripts/test.sh, which "
           "installs PostgreSQL (Debian: apt-get install postgresql) and starts a throwaway server with "
           "pg_virtualenv, or run this binary under `pg_virtualenv -t <command>`.");
    }
    static std::atomic<int> counter{0};
    name_ = "lc_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    Admin("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    Admin("CREATE DATABASE " + name_);
  }
  ~PgTestDatabase() { Admin("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)", false); }
  PgTestDatabase(const PgTestDatabase&) = delete;
  PgTestDatabase& operator=(const PgTestDatabase&) = delete;

  // Host, port, user and password come from the environment.
  std::string url() const { return "postgresql:///" + name_; }
  const std::string& name() const { return name_; }

  // Runs SQL in this database (no result), failing the test on error.
  void Exec(const std::string& sql) const { Run("dbname=" + name_, sql, true); }
  // The first column of the first row of a query in this database.
  std::string Query(const std::string& sql) const {
    PGconn* conn = PQconnectdb(("dbname=" + name_).c_str());
    std::string out;
    PGresult* res = PQexec(conn, sql.c_str());
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
      std::string err = PQerrorMessage(conn);
      PQclear(res);
      PQfinish(conn);
      FAIL("query failed: " << sql << ": " << err);
    }
    if (PQntuples(res) > 0) out = PQgetvalue(res, 0, 0);
    PQclear(res);
    PQfinish(conn);
    return out;
  }

 private:
  static void Admin(const std::string& sql, bool must = true) { Run("dbname=postgres", sql, must); }
  static void Run(const std::string& conninfo, const std::string& sql, bool must) {
    PGconn* conn = PQconnectdb(conninfo.c_str());
    if (PQstatus(conn) != CONNECTION_OK) {
      std::string err = PQerrorMessage(conn);
      PQfinish(conn);
      if (must) FAIL("cannot connect to PostgreSQL (" << conninfo << "): " << err);
      return;
    }
    PGresult* res = PQexec(conn, sql.c_str());
    const bool ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;
    std::string err = ok ? "" : PQerrorMessage(conn);
    PQclear(res);
    PQfinish(conn);
    if (!ok && must) FAIL(sql << ": " << err);
  }

  std::string name_;
};

}  // namespace livechat::testing
