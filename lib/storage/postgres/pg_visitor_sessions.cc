// The storefront's visitor sessions (migration 6).
#include "storage/postgres/pg_queries.h"

namespace livechat::pg {
namespace {

Result<VisitorSession> ReadVisitorSession(const Statement& st) {
  VisitorSession s;
  s.shopId = st.Text(0);
  s.id = st.Text(1);
  s.tokenHash = st.Text(2);
  s.customerId = st.OptText(3);
  s.conversationId = st.OptText(4);
  s.stateJson = st.Text(5);
  s.createdAt = st.Int(6);
  s.lastSeenAt = st.Int(7);
  s.endedAt = st.OptInt(8);
  return s;
}

}  // namespace

Result<std::optional<VisitorSession>> PgQueries::FindVisitorSession(const std::string& tokenHash) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("SELECT shop_id, id, token_hash, customer_id, conversation_id, state_json, "
                                    "created_at, last_seen_at, ended_at FROM visitor_sessions WHERE token_hash = ?1"));
  st.Add(tokenHash);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<VisitorSession>();
  LC_ASSIGN_OR_RETURN(VisitorSession s, ReadVisitorSession(st));
  return std::optional<VisitorSession>(std::move(s));
}

Result<std::vector<VisitorSession>> PgQueries::ListVisitorSessionsOfCustomer(const std::string& shopId,
                                                                                 const std::string& customerId) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("SELECT shop_id, id, token_hash, customer_id, conversation_id, state_json, "
                                    "created_at, last_seen_at, ended_at FROM visitor_sessions "
                                    "WHERE shop_id = ?1 AND customer_id = ?2 ORDER BY created_at, id"));
  st.Add(shopId).Add(customerId);
  std::vector<VisitorSession> out;
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return out;
    LC_ASSIGN_OR_RETURN(VisitorSession s, ReadVisitorSession(st));
    out.push_back(std::move(s));
  }
}

Status PgQueries::InsertVisitorSession(const VisitorSession& s) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("INSERT INTO visitor_sessions (shop_id, id, token_hash, customer_id, "
                                    "conversation_id, state_json, created_at, last_seen_at, ended_at) "
                                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  st.Add(s.shopId).Add(s.id).Add(s.tokenHash).Add(s.customerId).Add(s.conversationId).Add(s.stateJson)
      .Add(s.createdAt).Add(s.lastSeenAt).Add(s.endedAt);
  return st.Run();
}

Result<bool> PgQueries::UpdateVisitorSession(const VisitorSession& s) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("UPDATE visitor_sessions SET customer_id = ?3, conversation_id = ?4, "
                                    "state_json = ?5, last_seen_at = ?6, ended_at = ?7 "
                                    "WHERE shop_id = ?1 AND id = ?2"));
  st.Add(s.shopId).Add(s.id).Add(s.customerId).Add(s.conversationId).Add(s.stateJson).Add(s.lastSeenAt)
      .Add(s.endedAt);
  return RunChanged(st);
}

}  // namespace livechat::pg
