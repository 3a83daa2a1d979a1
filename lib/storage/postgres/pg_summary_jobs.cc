// Summary jobs (migration 10): the queue between a resolve and its summary.
#include "storage/postgres/pg_queries.h"

namespace livechat::pg {
namespace {

constexpr const char* kJobCols =
    "shop_id, conversation_id, id, requested_at, attempts, next_attempt_at, lease_until";

SummaryJob ReadJob(const Statement& st) {
  SummaryJob j;
  j.shopId = st.Text(0);
  j.conversationId = st.Text(1);
  j.id = st.Text(2);
  j.requestedAt = st.Int(3);
  j.attempts = static_cast<int>(st.Int(4));
  j.nextAttemptAt = st.Int(5);
  j.leaseUntil = st.Int(6);
  return j;
}

}  // namespace

Result<std::optional<SummaryJob>> PgQueries::GetSummaryJob(const std::string& shopId,
                                                               const std::string& conversationId) {
  static const std::string sql =
      std::string("SELECT ") + kJobCols + " FROM summary_jobs WHERE shop_id = ?1 AND conversation_id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(shopId).Add(conversationId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<SummaryJob>();
  return std::optional<SummaryJob>(ReadJob(st));
}

Result<std::vector<SummaryJob>> PgQueries::ListDueSummaryJobs(Millis now, int limit) {
  std::vector<SummaryJob> due;
  if (limit <= 0) return due;
  static const std::string sql = std::string("SELECT ") + kJobCols +
                                 " FROM summary_jobs WHERE next_attempt_at <= ?1 AND lease_until <= ?1 "
                                 "ORDER BY next_attempt_at, shop_id, conversation_id LIMIT ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(now).Add(limit);
  while (true) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return due;
    due.push_back(ReadJob(st));
  }
}

Result<StoreReader::SummaryQueueStats> PgQueries::GetSummaryQueueStats() {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT COUNT(*), MIN(next_attempt_at) FROM summary_jobs"));
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  SummaryQueueStats s;
  if (row) {
    s.pending = st.Int(0);
    s.oldestDueAt = st.OptInt(1);
  }
  return s;
}

Status PgQueries::PutSummaryJob(const SummaryJob& j) {
  static const std::string sql =
      std::string("INSERT INTO summary_jobs (") + kJobCols +
      ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (shop_id, conversation_id) DO UPDATE SET "
      "id = excluded.id, requested_at = excluded.requested_at, attempts = excluded.attempts, "
      "next_attempt_at = excluded.next_attempt_at, lease_until = excluded.lease_until";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql));
  st.Add(j.shopId).Add(j.conversationId).Add(j.id).Add(j.requestedAt).Add(j.attempts)
      .Add(j.nextAttemptAt).Add(j.leaseUntil);
  return st.Run();
}

Result<bool> PgQueries::ClaimSummaryJob(const std::string& shopId, const std::string& conversationId,
                                            const std::string& jobId, Millis now, Millis leaseUntil) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("UPDATE summary_jobs SET lease_until = ?5 WHERE shop_id = ?1 AND "
                                    "conversation_id = ?2 AND id = ?3 AND next_attempt_at <= ?4 AND lease_until <= ?4"));
  st.Add(shopId).Add(conversationId).Add(jobId).Add(now).Add(leaseUntil);
  return RunChanged(st);
}

Result<bool> PgQueries::DeleteSummaryJob(const std::string& shopId, const std::string& conversationId,
                                             const std::string& jobId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM summary_jobs WHERE shop_id = ?1 AND "
                                                  "conversation_id = ?2 AND (?3 = '' OR id = ?3)"));
  st.Add(shopId).Add(conversationId).Add(jobId);
  return RunChanged(st);
}

}  // namespace livechat::pg
