// Migrations applied to an existing file: a database left at an older schema
// version is brought up to date on open, with derived data backfilled.
#include <sqlite3.h>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

std::int64_t CountOf(Store& s, const std::string& shop) {
  return Get(s, [&](StoreReader& r) { return r.CountCustomers(shop); });
}

void Exec(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
  CHECK_MESSAGE(rc == SQLITE_OK, (err ? err : ""));
  sqlite3_free(err);
  sqlite3_close(db);
}

// What a search of shop-a finds: "source:conversation" per hit, and
// ":text" after it when asked.
std::vector<std::string> Found(Store& s, std::vector<std::string> words, bool withText = false) {
  ConversationQuery q;
  q.shopId = "shop-a";
  ConversationSearch search;
  search.words = std::move(words);
  auto hits = Get(s, [&](StoreReader& r) { return r.SearchConversations(q, search); });
  std::vector<std::string> out;
  for (const auto& h : hits) out.push_back(h.source + ":" + h.conversation.id + (withText ? ":" + h.text : ""));
  return out;
}

// What the migrations after 7 added, undone; each later migration adds its
// undo here (newest first).
// Migration 19 (message row versions): the column and its triggers.
const std::string kUndoV19 =
    "DROP TRIGGER messages_row_version_update; DROP TRIGGER messages_row_version_insert; "
    "ALTER TABLE messages DROP COLUMN row_version; ";
// Migration 18 (conversation row versions): the column and its triggers.
const std::string kUndoV18 = kUndoV19 +
    "DROP TRIGGER conversations_row_version_update; DROP TRIGGER conversations_row_version_insert; "
    "ALTER TABLE conversations DROP COLUMN row_version; ";
// Migration 17 (a new message indexed at its commit): the insert trigger back.
const std::string kUndoV17 = kUndoV18 +
    "CREATE TRIGGER messages_search_insert AFTER INSERT ON messages WHEN NEW.is_deleted = 0 AND NEW.text <> '' BEGIN "
    "INSERT INTO conversation_text_fts (rowid, shop, body, conv) "
    "SELECT NEW.seq * 2, 'h' || lower(hex(NEW.shop_id)), NEW.text, rid FROM conversations "
    "WHERE shop_id = NEW.shop_id AND id = NEW.conversation_id; END; ";
// Migration 16 (the agent inbox): its two indexes.
const std::string kUndoV16 = kUndoV17 + "DROP INDEX conversations_inbox_counts; DROP INDEX conversations_starred; ";
// Migration 15 (conversation search): its triggers, view and indexes.
const std::string kUndoV15 = kUndoV16 +
    "DROP TRIGGER messages_search_insert; DROP TRIGGER messages_search_update; DROP TRIGGER messages_search_delete; "
    "DROP TRIGGER notes_search_insert; DROP TRIGGER notes_search_update; DROP TRIGGER notes_search_delete; "
    "DROP TRIGGER conversations_search_insert; DROP TRIGGER conversations_search_update; "
    "DROP TRIGGER conversations_search_delete; DROP TRIGGER conversation_tags_search_insert; "
    "DROP TRIGGER conversation_tags_search_delete; DROP TRIGGER customers_search_insert; "
    "DROP TRIGGER customers_search_update; DROP TRIGGER customers_search_delete; "
    "DROP VIEW conversation_header_text; DROP TABLE conversation_text_fts; DROP TABLE conversation_header_fts; ";
const std::string kUndoAfterV7 = kUndoV15 +
    "DROP INDEX webhook_deliveries_event; DROP TABLE event_feed; DROP TABLE idempotency_keys; "
    "ALTER TABLE webhook_subscriptions DROP COLUMN previous_secret_expires_at; "
    "ALTER TABLE webhook_subscriptions DROP COLUMN previous_secret; "
    "ALTER TABLE webhook_subscriptions DROP COLUMN signature_format; "
    "DROP INDEX conversations_legacy; DROP TABLE summary_jobs; DROP TABLE files; "
    "DROP TABLE channel_integrations; DROP TABLE platform_requests; DROP TABLE data_requests; "
    "DROP INDEX customers_shopify; DROP INDEX conversations_customer_all; DROP INDEX visitor_sessions_customer; "
    "DROP INDEX admin_sessions_shop; ALTER TABLE customers DROP COLUMN redacted_at; "
    "ALTER TABLE conversations DROP COLUMN redacted_at; ";
// Back to version 7: 8 (privacy), 9 (files), 10 (summary jobs) and later are applied again on open.
const std::string kUndoV8 = kUndoAfterV7 + "PRAGMA user_version = 7;";
const std::string& kUndoV9 = kUndoV8;
const std::string& kUndoV10 = kUndoV8;
// Back to version 5: 6 (store knowledge), 7 (visitor sessions) and later.
const std::string kUndoV6 = kUndoAfterV7 +
    "DROP TABLE visitor_sessions; DROP TABLE catalog_fts; DROP TABLE catalog_keys; DROP TABLE catalog_items; "
    "DROP TABLE shop_documents; PRAGMA user_version = 5;";

// Puts the file back to schema version 4 (before the customer counters).
void DowngradeToV4(const std::string& path) {
  Exec(path, kUndoV6.c_str());
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db,
                        "DROP TRIGGER customers_count_insert; DROP TRIGGER customers_count_delete; "
                        "DROP TABLE shop_customer_counts; PRAGMA user_version = 4;",
                        nullptr, nullptr, &err);
  CHECK_MESSAGE(rc == SQLITE_OK, (err ? err : ""));
  sqlite3_free(err);
  sqlite3_close(db);
}

}  // namespace

TEST_CASE("sqlite migration 5: customer counts are backfilled, then kept by every insert") {
  TempDir dir;
  const SqliteOptions options{dir.File("migrate.db"), 2, 5000};
  {
    auto s = OpenOrFail(options);
    Put(*s, [&](StoreWriter& w) -> Status {
      LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-a")));
      LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-b")));
      for (int i = 0; i < 3; ++i) LC_RETURN_IF_ERROR(w.InsertCustomer(MakeSparseCustomer("shop-a", "a" + std::to_string(i))));
      for (int i = 0; i < 2; ++i) LC_RETURN_IF_ERROR(w.InsertCustomer(MakeSparseCustomer("shop-b", "b" + std::to_string(i))));
      return Status::Ok();
    });
    CHECK(CountOf(*s, "shop-a") == 3);
    CHECK(CountOf(*s, "shop-b") == 2);
  }
  DowngradeToV4(options.path);
  auto s = OpenOrFail(options);
  CHECK(s->Healthy());
  CHECK(CountOf(*s, "shop-a") == 3);
  CHECK(CountOf(*s, "shop-b") == 2);
  CHECK(CountOf(*s, "shop-none") == 0);
  Put(*s, [&](StoreWriter& w) { return w.InsertCustomer(MakeSparseCustomer("shop-a", "a9")); });
  CHECK(CountOf(*s, "shop-a") == 4);
  // A rolled-back insert leaves the count as it was.
  Status failed = s->Write([&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertCustomer(MakeSparseCustomer("shop-b", "b9")));
    return MakeError(ErrorCode::kInternal, "abort");
  });
  CHECK_FALSE(failed.ok());
  CHECK(CountOf(*s, "shop-b") == 2);
}

TEST_CASE("sqlite migrations 6 and 7: a version 5 file gains the store-knowledge and visitor tables and keeps its data") {
  TempDir dir;
  const SqliteOptions options{dir.File("migrate6.db"), 2, 5000};
  {
    auto s = OpenOrFail(options);
    Put(*s, [&](StoreWriter& w) { return w.InsertShop(MakeShop("shop-a")); });
  }
  Exec(options.path, kUndoV6.c_str());
  auto s = OpenOrFail(options);
  CHECK(s->Healthy());
  CHECK(Get(s.operator*(), [&](StoreReader& r) { return r.GetShop("shop-a"); }).has_value());
  CatalogItem item{"shop-a", "knowledge", "k1", "", "How long does shipping take?", "Three days.", "{}", 1};
  Put(*s, [&](StoreWriter& w) { return w.PutCatalogItem(item, {"k-one"}); });
  auto hits = Get(*s, [&](StoreReader& r) { return r.SearchCatalog("shop-a", "knowledge", {"shipping"}, 5); });
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].item.id == "k1");
}

TEST_CASE("sqlite migration 9: a version 7 file gains the files table and keeps its data") {
  TempDir dir;
  const SqliteOptions options{dir.File("migrate9.db"), 2, 5000};
  {
    auto s = OpenOrFail(options);
    Put(*s, [&](StoreWriter& w) { return w.InsertShop(MakeShop("shop-a")); });
  }
  Exec(options.path, kUndoV9.c_str());
  auto s = OpenOrFail(options);
  CHECK(s->Healthy());
  CHECK(Get(*s, [&](StoreReader& r) { return r.GetShop("shop-a"); }).has_value());
  FileRecord f;
  f.id = "f1";
  f.shopId = "shop-a";
  f.kind = "logo";
  f.name = "logo.png";
  f.size = 3;
  f.contentType = "image/png";
  f.sha256 = "00";
  f.uploaderType = "operator";
  Put(*s, [&](StoreWriter& w) { return w.InsertFile(f); });
  CHECK(Get(*s, [&](StoreReader& r) { return r.FindFileById("f1"); }).has_value());
}

TEST_CASE("sqlite migration 10: a version 7 file gains the summary jobs and keeps its data") {
  TempDir dir;
  const SqliteOptions options{dir.File("migrate10.db"), 2, 5000};
  {
    auto s = OpenOrFail(options);
    Put(*s, [&](StoreWriter& w) -> Status {
      LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-a")));
      Conversation c = MakeConversation("shop-a", "c1", 1000);
      return w.InsertConversation(c);
    });
  }
  Exec(options.path, kUndoV10.c_str());
  auto s = OpenOrFail(options);
  CHECK(s->Healthy());
  CHECK(Get(*s, [&](StoreReader& r) { return r.FindConversation("shop-a", "c1"); }).has_value());
  Put(*s, [&](StoreWriter& w) { return w.PutSummaryJob(SummaryJob{"j1", "shop-a", "c1", 5, 0, 5, 0}); });
  CHECK(Get(*s, [&](StoreReader& r) { return r.GetSummaryQueueStats(); }).pending == 1);
}

TEST_CASE("sqlite migration 8: a version 7 file gains the redaction columns and privacy tables, keeps its data") {
  TempDir dir;
  const SqliteOptions options{dir.File("migrate8.db"), 2, 5000};
  Customer c = MakeSparseCustomer("shop-a", "cu-1");
  {
    auto s = OpenOrFail(options);
    Put(*s, [&](StoreWriter& w) -> Status {
      LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-a")));
      return w.InsertCustomer(c);
    });
  }
  Exec(options.path, kUndoV8.c_str());
  auto s = OpenOrFail(options);
  CHECK(s->Healthy());
  auto got = Get(*s, [&](StoreReader& r) { return r.GetCustomer("shop-a", "cu-1"); });
  REQUIRE(got.has_value());
  CHECK_FALSE(got->redactedAt.has_value());
  Put(*s, [&](StoreWriter& w) { return w.PutChannelIntegration({"shop-a", "email", false, 1}); });
  CHECK(Get(*s, [&](StoreReader& r) { return r.ListChannelIntegrations("shop-a"); }).size() == 1);
}

TEST_CASE("sqlite migration 15: a version 14 file's messages, notes, customers and tags become searchable") {
  TempDir dir;
  const SqliteOptions options{dir.File("migrate15.db"), 2, 5000};
  {
    auto s = OpenOrFail(options);
    Put(*s, [&](StoreWriter& w) -> Status {
      LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-a")));
      Customer cu = MakeSparseCustomer("shop-a", "cu1");
      cu.name = "Greta Garbo";
      cu.phone = "+46 8 123 45";
      LC_RETURN_IF_ERROR(w.InsertCustomer(cu));
      Conversation c = MakeConversation("shop-a", "c1", 100);
      c.inNewDatastore = true;
      c.customerUuid = "cu1";
      c.tags = {"vip"};
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
      Message m = MakeMessage("shop-a", "c1", "m1", 100);
      m.text = "the lamp is flickering";
      LC_RETURN_IF_ERROR(w.InsertMessage(m));
      Message gone = MakeMessage("shop-a", "c1", "m2", 101);
      gone.text = "secret deleted words";
      gone.isDeleted = true;
      LC_RETURN_IF_ERROR(w.InsertMessage(gone));
      Note n{"n1", "shop-a", "c1", "customer prefers phone calls", false, 100, 100};
      return w.InsertNote(n);
    });
  }
  Exec(options.path, (kUndoV15 + "PRAGMA user_version = 14;").c_str());
  auto s = OpenOrFail(options);
  CHECK(s->Healthy());
  auto find = [&](std::vector<std::string> words) { return Found(*s, std::move(words)); };
  CHECK(find({"flickering"}) == std::vector<std::string>{"message:c1"});
  CHECK(find({"calls"}) == std::vector<std::string>{"note:c1"});
  CHECK(find({"garbo"}) == std::vector<std::string>{"header:c1"});
  CHECK(find({"46812345"}) == std::vector<std::string>{"header:c1"});
  CHECK(find({"vip"}) == std::vector<std::string>{"header:c1"});
  CHECK(find({"secret"}).empty());
  // And kept from now on.
  Put(*s, [&](StoreWriter& w) {
    Message m = MakeMessage("shop-a", "c1", "m3", 102);
    return w.InsertMessage(m);
  });
  CHECK(find({"text", "m3"}) == std::vector<std::string>{"message:c1"});
}

TEST_CASE("sqlite migration 17: a version 16 file's message insert trigger is dropped; new messages are still found") {
  TempDir dir;
  const SqliteOptions options{dir.File("migrate17.db"), 2, 5000};
  {
    auto s = OpenOrFail(options);
    Put(*s, [&](StoreWriter& w) -> Status {
      LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-a")));
      Conversation c = MakeConversation("shop-a", "c1", 100);
      c.inNewDatastore = true;
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
      Message m = MakeMessage("shop-a", "c1", "m1", 100);
      m.text = "indexed before the upgrade";
      return w.InsertMessage(m);
    });
  }
  Exec(options.path, (kUndoV17 + "PRAGMA user_version = 16;").c_str());
  auto triggers = [&] {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(options.path.c_str(), &db) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE name = 'messages_search_insert'", -1, &st,
                               nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    const int n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
  };
  REQUIRE(triggers() == 1);
  auto s = OpenOrFail(options);
  CHECK(s->Healthy());
  CHECK(triggers() == 0);
  Put(*s, [&](StoreWriter& w) {
    Message m = MakeMessage("shop-a", "c1", "m2", 101);
    m.text = "written after the upgrade";
    return w.InsertMessage(m);
  });
  CHECK(Found(*s, {"before"}, true) == std::vector<std::string>{"message:c1:indexed before the upgrade"});
  CHECK(Found(*s, {"written"}, true) == std::vector<std::string>{"message:c1:written after the upgrade"});
}


TEST_CASE("sqlite migration 18: a version 17 file's conversations get version 0, and a write a new one") {
  TempDir dir;
  const SqliteOptions options{dir.File("migrate18.db"), 2, 5000};
  Conversation c = MakeConversation("shop-a", "c1", 100);
  {
    auto s = OpenOrFail(options);
    Put(*s, [&](StoreWriter& w) -> Status {
      LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-a")));
      return w.InsertConversation(c);
    });
  }
  Exec(options.path, (kUndoV18 + "PRAGMA user_version = 17;").c_str());
  auto s = OpenOrFail(options);
  CHECK(s->Healthy());
  auto versions = [&] {
    auto listed = Get(*s, [&](StoreReader& r) { return r.ListConversationVersions(Query("shop-a")); });
    REQUIRE(listed.has_value());
    REQUIRE(listed->size() == 1);
    CHECK((*listed)[0].pgConvoId == *c.pgConvoId);
    return (*listed)[0].version;
  };
  CHECK(versions() == 0);
  Conversation before = c;
  c.isStarred = true;
  CHECK(PutValue(*s, [&](StoreWriter& w) { return w.UpdateConversation(c, before); }) == true);
  CHECK(versions() != 0);
}


// What an older build still running on the file, or SQL by hand, writes:
// statements that do not set row_version. The schema's triggers give the
// row a new one anyway, so no reader keeps serving what it built before.
TEST_CASE("sqlite: a conversation row written without its version gets a new one from the triggers") {
  TempDir dir;
  const SqliteOptions options{dir.File("triggers.db"), 2, 5000};
  auto s = OpenOrFail(options);
  Conversation c = MakeConversation("shop-a", "c1", 100);
  Put(*s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-a")));
    return w.InsertConversation(c);
  });
  auto versionOf = [&](std::int64_t pg) {
    auto listed = Get(*s, [&](StoreReader& r) { return r.ListConversationVersions(Query("shop-a")); });
    REQUIRE(listed.has_value());
    for (const ConversationVersion& v : *listed)
      if (v.pgConvoId == pg) return v.version;
    FAIL("not listed: " << pg);
    return std::int64_t{0};
  };
  const std::int64_t before = versionOf(*c.pgConvoId);
  CHECK(before != 0);
  Exec(options.path, "UPDATE conversations SET status = 'resolved' WHERE id = 'c1'");
  const std::int64_t after = versionOf(*c.pgConvoId);
  CHECK(after != before);
  CHECK(after != 0);
  // Setting it to what it was counts as not setting it.
  Exec(options.path, ("UPDATE conversations SET is_read = 1, row_version = " + std::to_string(after) +
                      " WHERE id = 'c1'").c_str());
  CHECK(versionOf(*c.pgConvoId) != after);
  Exec(options.path,
       "INSERT INTO conversations (rid, shop_id, id, pg_convo_id, customer_type, status, is_chat_bot, has_chat_bot, "
       "is_read, is_customer_read, is_online, is_block, is_starred, has_first_msg, hide_pre_chat_message, channel, "
       "channels_json, tags_json, last_active, in_new_datastore) VALUES (500, 'shop-a', 'by-hand', 500, 'guest', "
       "'open', 0, 0, 0, 0, 0, 0, 0, 0, '', 'online_store', '[]', '[]', 200, 1)");
  CHECK(versionOf(500) != 0);

  // Messages the same.
  Message m = MakeMessage("shop-a", "c1", "m1", 100);
  Put(*s, [&](StoreWriter& w) { return w.InsertMessage(m); });
  auto messageVersion = [&](std::int64_t seq) {
    MessageQuery q;
    q.shopId = "shop-a";
    q.conversationId = "c1";
    auto listed = Get(*s, [&](StoreReader& r) { return r.ListMessageVersions(q); });
    REQUIRE(listed.has_value());
    for (const MessageVersion& v : *listed)
      if (v.seq == seq) return v.version;
    FAIL("not listed: " << seq);
    return std::int64_t{0};
  };
  const std::int64_t mBefore = messageVersion(m.seq);
  CHECK(mBefore != 0);
  Exec(options.path, "UPDATE messages SET text = 'changed by hand' WHERE id = 'm1'");
  CHECK(messageVersion(m.seq) != mBefore);
  CHECK(messageVersion(m.seq) != 0);
  Exec(options.path,
       "INSERT INTO messages (seq, shop_id, id, conversation_id, text, sender_name, sender_type, is_admin, "
       "is_automated, is_bot, is_note, is_first, is_transfer, is_quick_reply_msg, is_ask_bot_message, is_deleted, "
       "content_type, chatbot_products_json, chatbot_faqs_json, files_json, created_at) VALUES (900, 'shop-a', "
       "'m-hand', 'c1', 'x', 'n', 'agent', 1, 0, 0, 0, 0, 0, 0, 0, 0, 'text', '[]', '[]', '[]', 101)");
  CHECK(messageVersion(900) != 0);
}

}  // namespace livechat::testing

