// The tool server's sessions in PostgreSQL (livechat/mcp_sessions.h): a
// session opened through one livechatd instance is found by every other.
#include <cstdio>

#include "livechat/postgres_store.h"
#include "storage/postgres/pg_pool.h"

namespace livechat {
namespace {

using pg::Connection;

class PgMcpSessions final : public McpSessions {
 public:
  explicit PgMcpSessions(const std::string& url) : pool_(url, 4) {}

  void Open(const std::string& id, const McpSession& s, std::size_t maxPerStore) override {
    Status st = pool_.With([&](Connection& c) -> Status {
      LC_ASSIGN_OR_RETURN(pg::Statement ins,
                          c.Prepare("INSERT INTO mcp_sessions (id, shop_id, version) VALUES (?1, ?2, ?3)"));
      ins.Add(id).Add(s.shopId).Add(s.version);
      LC_RETURN_IF_ERROR(ins.Run());
      // The store's sessions beyond the newest maxPerStore.
      LC_ASSIGN_OR_RETURN(pg::Statement del,
                          c.Prepare("DELETE FROM mcp_sessions WHERE shop_id = ?1 AND seq <= "
                                    "(SELECT seq FROM mcp_sessions WHERE shop_id = ?1 ORDER BY seq DESC "
                                    "LIMIT 1 OFFSET ?2)"));
      del.Add(s.shopId).Add(static_cast<std::int64_t>(maxPerStore));
      return del.Run();
    });
    // The client gets its id either way; an unrecorded one answers 404 on
    // its next request, and the protocol's answer to that is a new
    // initialize.
    if (!st.ok()) std::fprintf(stderr, "livechat: MCP session not recorded: %s\n", st.error().message.c_str());
  }

  std::optional<McpSession> Find(const std::string& id, const std::string& shopId) override {
    std::optional<McpSession> out;
    Status st = pool_.With([&](Connection& c) -> Status {
      LC_ASSIGN_OR_RETURN(pg::Statement q,
                          c.Prepare("SELECT version FROM mcp_sessions WHERE id = ?1 AND shop_id = ?2"));
      q.Add(id).Add(shopId);
      LC_ASSIGN_OR_RETURN(bool row, q.Step());
      if (row) out = McpSession{shopId, q.Text(0)};
      return Status::Ok();
    });
    if (!st.ok()) std::fprintf(stderr, "livechat: MCP session lookup failed: %s\n", st.error().message.c_str());
    return out;
  }

  void End(const std::string& id, const std::string& shopId) override {
    Status st = pool_.With([&](Connection& c) -> Status {
      LC_ASSIGN_OR_RETURN(pg::Statement d, c.Prepare("DELETE FROM mcp_sessions WHERE id = ?1 AND shop_id = ?2"));
      d.Add(id).Add(shopId);
      return d.Run();
    });
    if (!st.ok()) std::fprintf(stderr, "livechat: MCP session not ended: %s\n", st.error().message.c_str());
  }

 private:
  pg::ConnectionPool pool_;
};

}  // namespace

std::unique_ptr<McpSessions> OpenPostgresMcpSessions(const std::string& url) {
  return std::make_unique<PgMcpSessions>(url);
}

}  // namespace livechat
