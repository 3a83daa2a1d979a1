// Privacy records (migration 8): channel integrations, the platform
// requests' audit trail, customer-data requests, and the deletes that
// redaction, uninstall and shop redact need.
#include "storage/postgres/pg_queries.h"

namespace livechat::pg {
namespace {

constexpr const char* kPlatformRequestSelect =
    "SELECT shop_id, id, topic, delivery_id, request_key, received_at, outcome, changes_json, message "
    "FROM platform_requests ";

PlatformRequest ReadPlatformRequest(const Statement& st) {
  PlatformRequest r;
  r.shopId = st.Text(0);
  r.id = st.Text(1);
  r.topic = st.Text(2);
  r.deliveryId = st.OptText(3);
  r.requestKey = st.Text(4);
  r.receivedAt = st.Int(5);
  r.outcome = st.Text(6);
  r.changesJson = st.Text(7);
  r.message = st.OptText(8);
  return r;
}

constexpr const char* kDataRequestSelect =
    "SELECT shop_id, id, customer_json, received_at, contacts, export_json FROM data_requests ";

DataRequest ReadDataRequest(const Statement& st) {
  DataRequest d;
  d.shopId = st.Text(0);
  d.id = st.Text(1);
  d.customerJson = st.Text(2);
  d.receivedAt = st.Int(3);
  d.contacts = st.Int(4);
  d.exportJson = st.Text(5);
  return d;
}

template <typename T, typename Read>
Result<std::vector<T>> All(Statement& st, Read read) {
  std::vector<T> out;
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return out;
    out.push_back(read(st));
  }
}

}  // namespace

Result<std::vector<ChannelIntegration>> PgQueries::ListChannelIntegrations(const std::string& shopId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("SELECT shop_id, channel, connected, updated_at "
                                                  "FROM channel_integrations WHERE shop_id = ?1 ORDER BY channel"));
  st.Add(shopId);
  return All<ChannelIntegration>(st, [](const Statement& s) {
    return ChannelIntegration{s.Text(0), s.Text(1), s.Bool(2), s.Int(3)};
  });
}

Status PgQueries::PutChannelIntegration(const ChannelIntegration& i) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("INSERT INTO channel_integrations "
                                                  "(shop_id, channel, connected, updated_at) VALUES (?1, ?2, ?3, ?4) "
                                                  "ON CONFLICT (shop_id, channel) DO UPDATE SET "
                                                  "connected = excluded.connected, updated_at = excluded.updated_at"));
  st.Add(i.shopId).Add(i.channel).Add(i.connected).Add(i.updatedAt);
  return st.Run();
}

Result<std::optional<PlatformRequest>> PgQueries::FindPlatformRequest(const std::string& shopId,
                                                                          const std::string& requestKey) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(std::string(kPlatformRequestSelect) +
                                                  "WHERE shop_id = ?1 AND request_key = ?2 AND outcome = 'applied' "
                                                  "ORDER BY seq LIMIT 1"));
  st.Add(shopId).Add(requestKey);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<PlatformRequest>();
  return std::optional<PlatformRequest>(ReadPlatformRequest(st));
}

Result<std::vector<PlatformRequest>> PgQueries::ListPlatformRequests(const std::string& shopId, int limit) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(std::string(kPlatformRequestSelect) +
                                                  "WHERE shop_id = ?1 ORDER BY received_at DESC, seq DESC LIMIT ?2"));
  st.Add(shopId).Add(limit);
  return All<PlatformRequest>(st, ReadPlatformRequest);
}

Status PgQueries::InsertPlatformRequest(const PlatformRequest& r) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("INSERT INTO platform_requests (shop_id, id, topic, delivery_id, request_key, "
                                    "received_at, outcome, changes_json, message) "
                                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  st.Add(r.shopId).Add(r.id).Add(r.topic).Add(r.deliveryId).Add(r.requestKey).Add(r.receivedAt).Add(r.outcome)
      .Add(r.changesJson).Add(r.message);
  return st.Run();
}

Result<std::optional<DataRequest>> PgQueries::GetDataRequest(const std::string& shopId, const std::string& id) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare(std::string(kDataRequestSelect) + "WHERE shop_id = ?1 AND id = ?2"));
  st.Add(shopId).Add(id);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<DataRequest>();
  return std::optional<DataRequest>(ReadDataRequest(st));
}

Result<std::vector<DataRequest>> PgQueries::ListDataRequests(const std::string& shopId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(std::string(kDataRequestSelect) +
                                                  "WHERE shop_id = ?1 ORDER BY received_at DESC, id"));
  st.Add(shopId);
  return All<DataRequest>(st, ReadDataRequest);
}

Status PgQueries::InsertDataRequest(const DataRequest& d) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("INSERT INTO data_requests (shop_id, id, customer_json, "
                                                  "received_at, contacts, export_json) "
                                                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  st.Add(d.shopId).Add(d.id).Add(d.customerJson).Add(d.receivedAt).Add(d.contacts).Add(d.exportJson);
  return st.Run();
}

Result<bool> PgQueries::UpdateDataRequest(const DataRequest& d) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("UPDATE data_requests SET customer_json = ?3, contacts = ?4, "
                                                  "export_json = ?5 WHERE shop_id = ?1 AND id = ?2"));
  st.Add(d.shopId).Add(d.id).Add(d.customerJson).Add(d.contacts).Add(d.exportJson);
  return RunChanged(st);
}

Result<std::int64_t> PgQueries::DeleteBrowsedPages(const std::string& shopId, const std::string& conversationId) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("DELETE FROM browsed_pages WHERE shop_id = ?1 AND conversation_id = ?2"));
  st.Add(shopId).Add(conversationId);
  LC_RETURN_IF_ERROR(st.Run());
  return static_cast<std::int64_t>(conn_.Changes());
}

}  // namespace livechat::pg
