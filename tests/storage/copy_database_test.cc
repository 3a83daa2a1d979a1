// Moving an installation: CopySqliteToPostgres (livechat/open_store.h) copies
// a SQLite database filled through the service into an empty PostgreSQL
// database, and the service on PostgreSQL then answers exactly as it did on
// SQLite: the same keys authenticate, the same cursors page on, knowledge is
// found, and new records get ids after the copied ones.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "livechat/address_policy.h"
#include "livechat/chat_service.h"
#include "livechat/open_store.h"
#include "livechat/postgres_store.h"
#include "livechat/sqlite_store.h"
#include "support/pg_database.h"
#include "support/sample_catalog.h"

namespace livechat::testing {
namespace {

template <typename T>
T Must(Result<T> r) {
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(r).value();
}

struct TempFile {
  std::filesystem::path path;
  TempFile() {
    static int n = 0;
    path = std::filesystem::temp_directory_path() /
           ("livechat_copy_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + ".db");
    Clean();
  }
  ~TempFile() { Clean(); }
  void Clean() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  }
};

// A service on one database; closed (store and all) when it goes.
struct Service {
  ManualClock* clock;
  TableResolver resolver;  // the webhook's host, without DNS
  std::unique_ptr<Store> store;
  std::unique_ptr<ChatService> service;
  Service(const std::string& db, ManualClock& c) : clock(&c) {
    StoreConfig config;
    config.db = db;
    config.readers = 2;
    store = Must(OpenStore(config));
    ServiceOptions o;
    o.store = store.get();
    o.clock = clock;
    resolver.Set("receiver.example", {"93.184.216.34"});
    o.resolver = &resolver;
    service = std::make_unique<ChatService>(o);
  }
};

std::vector<std::string> Ids(const Page<Conversation>& page) {
  std::vector<std::string> out;
  for (const auto& c : page.items) out.push_back(c.id);
  return out;
}

std::int64_t RowsOf(const std::vector<CopiedTable>& copied, const std::string& table) {
  for (const auto& t : copied)
    if (t.table == table) return t.rows;
  FAIL("no table " << table << " in the copy's report");
  return -1;
}

TEST_CASE("copy-to-postgres: every record, the same ids and cursors, counters continue after them") {
  TempFile file;
  PgTestDatabase pg;
  ManualClock clock;

  std::string key, shopId, firstPageCursor, convoId;
  std::vector<std::string> secondPage, messageIds;
  std::int64_t maxPgConvoId = 0, maxMessageSeq = 0, events = 0, customers = 0;
  std::vector<std::string> knowledgeHits;
  {
    Service s(file.path.string(), clock);
    CreatedKey demo = Must(s.service->demo().CreateDemo("Copied Store"));
    key = demo.secret;
    Principal p = Must(s.service->auth().AuthenticateApiKey(key));
    shopId = p.shopId;
    Principal sys = Principal::System(shopId);
    Must(s.service->knowledge().ImportCatalog(sys, ReadSampleCatalog()));
    CreateWebhookInput hook;
    hook.url = "https://receiver.example/hooks";
    hook.events = std::vector<std::string>{"message.created"};
    Must(s.service->webhooks().CreateWebhook(sys, hook));
    // More conversations than a page, at distinct times, so the list pages.
    for (int i = 0; i < 7; ++i) {
      clock.Advance(1000);
      InboundMessageInput in;
      in.channel = "email";
      in.customerName = "Buyer " + std::to_string(i);
      in.customerEmail = "buyer" + std::to_string(i) + "@example.com";
      in.text = "Where is order #" + std::to_string(1000 + i) + "?";
      Conversation c = Must(s.service->conversations().ReceiveInbound(sys, in));
      maxPgConvoId = std::max(maxPgConvoId, c.pgConvoId.value_or(0));
      convoId = c.id;
    }
    SendMessageInput reply;
    reply.text = "It ships tomorrow.";
    reply.memberId = Must(s.service->directory().ListMembers(sys)).front().id;
    Message m = Must(s.service->conversations().SendMessage(sys, convoId, reply));
    maxMessageSeq = m.seq;

    Page<Conversation> first = Must(s.service->conversations().ListConversations(p, {}, PageRequest{3, std::nullopt}));
    REQUIRE(first.nextCursor.has_value());
    firstPageCursor = *first.nextCursor;
    secondPage = Ids(Must(s.service->conversations().ListConversations(p, {}, PageRequest{3, firstPageCursor})));
    REQUIRE(secondPage.size() == 3);
    for (const auto& msg : Must(s.service->conversations().ListMessages(p, convoId, PageRequest{}, std::nullopt)).items)
      messageIds.push_back(msg.id);
    for (const auto& hit : Must(s.service->knowledge().SearchCatalog(sys, "knowledge", "return policy refund", 5)))
      knowledgeHits.push_back(hit.item.id);
    REQUIRE_FALSE(knowledgeHits.empty());
    events = static_cast<std::int64_t>(Must(s.service->feed().ListEvents(sys, 1000)).size());
    customers = Must(s.service->directory().ListCustomersPage(sys, CustomerPageRequest{})).totalCount;
    REQUIRE(customers >= 7);
  }

  std::vector<CopiedTable> copied = Must(CopySqliteToPostgres(file.path.string(), pg.url()));
  // The report names every record table with its rows; spot-check exact counts.
  CHECK(RowsOf(copied, "shops") == 1);
  CHECK(RowsOf(copied, "events") == events);
  CHECK(RowsOf(copied, "customers") == customers);
  CHECK(RowsOf(copied, "webhook_subscriptions") == 1);
  CHECK(RowsOf(copied, "messages") == std::stoll(pg.Query("SELECT count(*) FROM messages")));
  CHECK(RowsOf(copied, "catalog_items") == std::stoll(pg.Query("SELECT count(*) FROM catalog_items")));
  CHECK(RowsOf(copied, "catalog_items") > 30);
  // The customer count is kept by PostgreSQL's triggers, not copied.
  CHECK(pg.Query("SELECT n FROM shop_customer_counts WHERE shop_id = '" + shopId + "'") == std::to_string(customers));

  {
    Service s(pg.url(), clock);
    Principal p = Must(s.service->auth().AuthenticateApiKey(key));  // the key's hash came across
    CHECK(p.shopId == shopId);
    Principal sys = Principal::System(shopId);
    // A cursor handed out by the SQLite installation pages on PostgreSQL.
    CHECK(Ids(Must(s.service->conversations().ListConversations(p, {}, PageRequest{3, firstPageCursor}))) == secondPage);
    std::vector<std::string> gotMessages;
    for (const auto& msg : Must(s.service->conversations().ListMessages(p, convoId, PageRequest{}, std::nullopt)).items)
      gotMessages.push_back(msg.id);
    CHECK(gotMessages == messageIds);
    // The full-text index was built from the copied items.
    std::vector<std::string> hits;
    for (const auto& hit : Must(s.service->knowledge().SearchCatalog(sys, "knowledge", "return policy refund", 5)))
      hits.push_back(hit.item.id);
    CHECK(hits == knowledgeHits);
    CHECK(Must(s.service->directory().ListCustomersPage(sys, CustomerPageRequest{})).totalCount == customers);
    CHECK(Must(s.service->webhooks().ListWebhooks(sys)).size() == 1);

    // New records continue after the copied ids.
    clock.Advance(1000);
    InboundMessageInput in;
    in.channel = "email";
    in.customerName = "After Move";
    in.customerEmail = "after@example.com";
    in.text = "Hello from the new database";
    Conversation c = Must(s.service->conversations().ReceiveInbound(sys, in));
    CHECK(c.pgConvoId.value_or(0) == maxPgConvoId + 1);
    SendMessageInput reply;
    reply.text = "Welcome";
    reply.memberId = Must(s.service->directory().ListMembers(sys)).front().id;
    CHECK(Must(s.service->conversations().SendMessage(sys, c.id, reply)).seq > maxMessageSeq);
    CHECK(static_cast<std::int64_t>(Must(s.service->feed().ListEvents(sys, 1000)).size()) > events);
  }

  // A second copy finds the target in use and writes nothing.
  const std::string before = pg.Query("SELECT count(*) FROM messages");
  auto again = CopySqliteToPostgres(file.path.string(), pg.url());
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().code == ErrorCode::kConflict);
  CHECK(again.error().message.find("the PostgreSQL database is not empty (") == 0);
  CHECK(pg.Query("SELECT count(*) FROM messages") == before);
}

TEST_CASE("copy-to-postgres: a schema that drifted, a missing file or the wrong URL is refused, writing nothing") {
  TempFile file;
  ManualClock clock;
  {
    Service s(file.path.string(), clock);
    Must(s.service->demo().CreateDemo("Drift"));
  }
  PgTestDatabase pg;
  {
    // Migrate the target, then give it a column the SQLite schema lacks.
    Service s(pg.url(), clock);
  }
  pg.Exec("ALTER TABLE notes ADD COLUMN pinned BIGINT");
  auto drift = CopySqliteToPostgres(file.path.string(), pg.url());
  REQUIRE_FALSE(drift.ok());
  CHECK(drift.error().code == ErrorCode::kInternal);
  CHECK(drift.error().message ==
        "the PostgreSQL column notes.pinned has no SQLite column: the two schemas differ, so this build cannot copy "
        "every record (nothing was written)");
  CHECK(pg.Query("SELECT count(*) FROM shops") == "0");
  CHECK(pg.Query("SELECT count(*) FROM conversations") == "0");

  auto missing = CopySqliteToPostgres(file.path.string() + ".nope", pg.url());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  CHECK(missing.error().message == "no SQLite database at " + file.path.string() + ".nope");
  CHECK_FALSE(std::filesystem::exists(file.path.string() + ".nope"));

  auto notPg = CopySqliteToPostgres(file.path.string(), "/tmp/other.db");
  REQUIRE_FALSE(notPg.ok());
  CHECK(notPg.error().code == ErrorCode::kInvalidParams);
  CHECK(notPg.error().message == "the target must be a postgresql:// or postgres:// URL, not \"/tmp/other.db\"");
}

}  // namespace
}  // namespace livechat::testing
