#include "storage/sqlite/sqlite_schema.h"

#include <array>
#include <string>

#include "livechat/sqlite_store.h"

namespace livechat::sqlite {
namespace {

struct Migration {
  int version;
  const char* sql;
};

// Every table leads with shop_id (the future shard key). Child rows of a
// conversation reference it by (shop_id, id); the checks are deferred to
// COMMIT so a Write may insert in any order.
//
// conversations.rid is the rowid. A conversation with a pgConvoId stores it
// as its rid too (pg_convo_id is NULL or equal to rid), which keeps pg ids
// unique and lets a new one be drawn from the rowid sequence. sort_active is
// the list order's first key: a missing lastActive sorts as 0, matching
// ConversationKey, whose lastActive is not optional.
//
// The list indexes are partial (in_new_datastore = 1) because legacy records
// are never listed; queries must spell that predicate literally to use them.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE shops (
  id TEXT NOT NULL PRIMARY KEY,
  app_id TEXT NOT NULL,
  name TEXT NOT NULL,
  plan TEXT NOT NULL,
  auto_assign INTEGER NOT NULL,
  installed INTEGER NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE UNIQUE INDEX shops_app_id ON shops(app_id);

CREATE TABLE api_keys (
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  prefix TEXT NOT NULL,
  permissions INTEGER NOT NULL,
  legacy INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  active_from INTEGER NOT NULL,
  revoked_at INTEGER,
  last_used_at INTEGER,
  PRIMARY KEY (shop_id, id)
);
CREATE UNIQUE INDEX api_keys_key_hash ON api_keys(key_hash);
CREATE INDEX api_keys_created ON api_keys(shop_id, created_at);

CREATE TABLE members (
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  email TEXT NOT NULL,
  first_name TEXT,
  last_name TEXT,
  avatar_url TEXT NOT NULL,
  role TEXT NOT NULL,
  active INTEGER NOT NULL,
  enable_away_mode INTEGER,
  password_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (shop_id, id)
);
CREATE INDEX members_created ON members(shop_id, created_at);
CREATE INDEX members_email ON members(lower(email));

CREATE TABLE customers (
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  shopify_id TEXT,
  name TEXT,
  first_name TEXT,
  last_name TEXT,
  email TEXT,
  phone TEXT,
  type TEXT NOT NULL,
  channels_json TEXT NOT NULL,
  tags_json TEXT NOT NULL,
  note TEXT,
  custom_attributes_json TEXT NOT NULL,
  address1 TEXT,
  address2 TEXT,
  city TEXT,
  zip TEXT,
  country TEXT,
  country_code TEXT,
  orders_count INTEGER,
  total_spent REAL,
  ip_address TEXT,
  ip_location TEXT,
  browser TEXT,
  browser_version TEXT,
  os TEXT,
  device_type TEXT,
  sender_seq INTEGER,
  last_chat_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER,
  channel_recipient TEXT,
  PRIMARY KEY (shop_id, id)
);
CREATE INDEX customers_email ON customers(shop_id, lower(email)) WHERE email IS NOT NULL;

CREATE TABLE conversations (
  rid INTEGER PRIMARY KEY,
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  firestore_id TEXT,
  pg_convo_id INTEGER CHECK (pg_convo_id IS NULL OR pg_convo_id = rid),
  session_id TEXT,
  customer_uuid TEXT,
  customer_name TEXT,
  customer_email TEXT,
  customer_type TEXT NOT NULL,
  status TEXT NOT NULL,
  is_chat_bot INTEGER NOT NULL,
  has_chat_bot INTEGER NOT NULL,
  is_read INTEGER NOT NULL,
  is_customer_read INTEGER NOT NULL,
  is_online INTEGER NOT NULL,
  is_block INTEGER NOT NULL,
  is_starred INTEGER NOT NULL,
  has_first_msg INTEGER NOT NULL,
  hide_pre_chat_message TEXT NOT NULL,
  member_id TEXT,
  channel TEXT NOT NULL,
  channels_json TEXT NOT NULL,
  tags_json TEXT NOT NULL,
  message_count INTEGER,
  last_message_text TEXT,
  last_message_sender_type TEXT,
  last_message_created_at INTEGER,
  last_active INTEGER,
  created_at INTEGER,
  updated_at INTEGER,
  last_customer_message_at INTEGER,
  in_new_datastore INTEGER NOT NULL CHECK (in_new_datastore = 0 OR pg_convo_id IS NOT NULL),
  sort_active INTEGER NOT NULL GENERATED ALWAYS AS (coalesce(last_active, 0)) VIRTUAL
);
CREATE UNIQUE INDEX conversations_id ON conversations(shop_id, id);
CREATE INDEX conversations_firestore ON conversations(shop_id, firestore_id) WHERE firestore_id IS NOT NULL;
CREATE INDEX conversations_list ON conversations(shop_id, sort_active DESC, pg_convo_id DESC)
  WHERE in_new_datastore = 1;
CREATE INDEX conversations_status ON conversations(shop_id, status, sort_active DESC, pg_convo_id DESC)
  WHERE in_new_datastore = 1;
CREATE INDEX conversations_customer ON conversations(shop_id, customer_uuid, sort_active DESC, pg_convo_id DESC)
  WHERE in_new_datastore = 1;
CREATE INDEX conversations_member ON conversations(shop_id, member_id, sort_active DESC, pg_convo_id DESC)
  WHERE in_new_datastore = 1;
CREATE INDEX conversations_email
  ON conversations(shop_id, lower(customer_email), sort_active DESC, pg_convo_id DESC)
  WHERE in_new_datastore = 1;

CREATE TABLE conversation_tags (
  shop_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  tag TEXT NOT NULL,
  PRIMARY KEY (shop_id, conversation_id, tag),
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
) WITHOUT ROWID;
CREATE INDEX conversation_tags_tag ON conversation_tags(shop_id, tag);

CREATE TABLE messages (
  seq INTEGER PRIMARY KEY,
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  text TEXT NOT NULL,
  sender_name TEXT NOT NULL,
  sender_type TEXT NOT NULL,
  member_id TEXT,
  is_admin INTEGER NOT NULL,
  is_automated INTEGER NOT NULL,
  is_bot INTEGER NOT NULL,
  is_note INTEGER NOT NULL,
  is_first INTEGER NOT NULL,
  is_transfer INTEGER NOT NULL,
  is_quick_reply_msg INTEGER NOT NULL,
  is_ask_bot_message INTEGER NOT NULL,
  is_deleted INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  topic TEXT,
  chatbot_products_json TEXT NOT NULL,
  chatbot_faqs_json TEXT NOT NULL,
  files_json TEXT NOT NULL,
  reply_message_json TEXT,
  created_at INTEGER NOT NULL,
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE UNIQUE INDEX messages_id ON messages(shop_id, id);
CREATE INDEX messages_conversation ON messages(shop_id, conversation_id, seq);

CREATE TABLE notes (
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  text TEXT NOT NULL,
  is_updated INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (shop_id, id),
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX notes_conversation ON notes(shop_id, conversation_id, created_at);

CREATE TABLE attributes (
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (shop_id, id),
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX attributes_conversation ON attributes(shop_id, conversation_id, created_at);
CREATE INDEX attributes_name ON attributes(shop_id, conversation_id, name);

CREATE TABLE browsed_pages (
  seq INTEGER PRIMARY KEY,
  shop_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  url TEXT NOT NULL,
  title TEXT,
  viewed_at INTEGER NOT NULL,
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX browsed_pages_conversation ON browsed_pages(shop_id, conversation_id, viewed_at);

CREATE TABLE summaries (
  shop_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  text TEXT NOT NULL,
  summarizer TEXT NOT NULL,
  generated_at INTEGER NOT NULL,
  PRIMARY KEY (shop_id, conversation_id),
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
) WITHOUT ROWID;

CREATE TABLE typing (
  shop_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  member_id TEXT NOT NULL,
  active INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (shop_id, conversation_id, member_id),
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
) WITHOUT ROWID;

CREATE TABLE admin_sessions (
  token_hash TEXT NOT NULL PRIMARY KEY,
  shop_id TEXT NOT NULL,
  member_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX admin_sessions_member ON admin_sessions(shop_id, member_id);

-- AUTOINCREMENT: the dispatcher may delete delivered events, and a reused
-- seq would reorder the outbox.
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  shop_id TEXT NOT NULL,
  type TEXT NOT NULL,
  conversation_id TEXT,
  occurred_at INTEGER NOT NULL,
  data_json TEXT NOT NULL
);
CREATE INDEX events_shop ON events(shop_id, seq);
)sql";

// Webhooks: subscriptions, one delivery row per (event, subscription), and
// the attempt log. Deliveries are written in the same transaction as the
// event (the transactional outbox).
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE webhook_subscriptions (
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  url TEXT NOT NULL,
  events_json TEXT NOT NULL,
  is_active INTEGER NOT NULL,
  secret TEXT NOT NULL,
  secret_hash TEXT NOT NULL UNIQUE,
  metadata_json TEXT NOT NULL,
  legacy INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  last_delivery_at INTEGER,
  last_delivery_status TEXT,
  last_delivery_status_code INTEGER,
  last_delivery_error TEXT,
  PRIMARY KEY (shop_id, id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX webhook_subscriptions_url ON webhook_subscriptions(shop_id, url);
CREATE INDEX webhook_subscriptions_created ON webhook_subscriptions(shop_id, created_at);

CREATE TABLE webhook_deliveries (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  shop_id TEXT NOT NULL,
  subscription_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  lease_until INTEGER NOT NULL,
  last_attempt_at INTEGER,
  created_at INTEGER NOT NULL
);
-- The dispatcher's scan: only pending rows are indexed, by due time.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at, subscription_id) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries(shop_id, subscription_id, rid);

CREATE TABLE webhook_attempts (
  rid INTEGER PRIMARY KEY,
  shop_id TEXT NOT NULL,
  subscription_id TEXT NOT NULL,
  delivery_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  at INTEGER NOT NULL,
  status_code INTEGER,
  error TEXT,
  duration_ms INTEGER NOT NULL,
  outcome TEXT NOT NULL
);
CREATE INDEX webhook_attempts_subscription ON webhook_attempts(shop_id, subscription_id, rid);
)sql";

// The customer list (GraphQL customers): a stable keyset order.
constexpr const char* kSchemaV3 = R"sql(
CREATE INDEX customers_order ON customers(shop_id, created_at, id);
)sql";

// The dispatcher's claim path, per subscription instead of over the whole
// outbox: its earliest pending delivery, and whether one is leased (in
// flight). Leased rows are few, so the second index stays tiny. Without them
// every claim scanned every pending row: a 20,000-delivery backlog (one
// receiver down for a while) slowed all deliveries to ~40/s.
constexpr const char* kSchemaV4 = R"sql(
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(shop_id, subscription_id, next_attempt_at)
  WHERE state = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries(shop_id, subscription_id, lease_until)
  WHERE state = 'pending' AND lease_until > 0;
)sql";

// The number of customers of each shop (GraphQL's totalCount on every page),
// kept by triggers in the same transaction as the insert or delete, so it is
// exact without counting 100,000 rows per request (measured in bench/RESULTS.md).
constexpr const char* kSchemaV5 = R"sql(
CREATE TABLE shop_customer_counts (
  shop_id TEXT PRIMARY KEY,
  n INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO shop_customer_counts (shop_id, n) SELECT shop_id, COUNT(*) FROM customers GROUP BY shop_id;
CREATE TRIGGER customers_count_insert AFTER INSERT ON customers BEGIN
  INSERT INTO shop_customer_counts (shop_id, n) VALUES (NEW.shop_id, 1)
    ON CONFLICT (shop_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER customers_count_delete AFTER DELETE ON customers BEGIN
  UPDATE shop_customer_counts SET n = n - 1 WHERE shop_id = OLD.shop_id;
END;
)sql";


// Store knowledge (the tool server's data): catalog items of every kind with
// their canonical JSON, exact-match lookup keys (order numbers, tracking
// numbers), and a full-text index. The FTS row shares the item's rowid; its
// `scope` column holds one token naming shop and kind (and `parent` one
// naming its parent), so a search is one FTS5 query that never reads
// another store's or another kind's rows.
constexpr const char* kSchemaV6 = R"sql(
CREATE TABLE catalog_items (
  shop_id TEXT NOT NULL REFERENCES shops(id),
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  parent_id TEXT NOT NULL DEFAULT '',
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  data_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (shop_id, kind, id)
);
CREATE INDEX catalog_items_parent ON catalog_items(shop_id, kind, parent_id, id);
CREATE TABLE catalog_keys (
  shop_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  item_id TEXT NOT NULL,
  PRIMARY KEY (shop_id, kind, key)
) WITHOUT ROWID;
CREATE INDEX catalog_keys_item ON catalog_keys(shop_id, kind, item_id);
CREATE VIRTUAL TABLE catalog_fts USING fts5(scope, parent, title, body,
  tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TABLE shop_documents (
  shop_id TEXT NOT NULL REFERENCES shops(id),
  name TEXT NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (shop_id, name)
) WITHOUT ROWID;
)sql";

// Storefront visitor sessions (the widget). Looked up by the token's hash
// only; conversations carry the session id.
constexpr const char* kSchemaStorefrontSessions = R"sql(
CREATE TABLE visitor_sessions (
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  customer_id TEXT,
  conversation_id TEXT,
  state_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  ended_at INTEGER,
  PRIMARY KEY (shop_id, id)
) WITHOUT ROWID;
)sql";

// Privacy and platform requests (spec rules 7-9): the redaction label on
// contacts and conversations, per-channel integrations (no row: connected),
// the platform requests' audit trail, and customer-data requests with their
// export. request_key is what makes two requests the same (idempotency).
constexpr const char* kSchemaPrivacy = R"sql(
ALTER TABLE customers ADD COLUMN redacted_at INTEGER;
ALTER TABLE conversations ADD COLUMN redacted_at INTEGER;
CREATE INDEX customers_shopify ON customers(shop_id, shopify_id) WHERE shopify_id IS NOT NULL;
CREATE INDEX conversations_customer_all ON conversations(shop_id, customer_uuid) WHERE customer_uuid IS NOT NULL;
CREATE INDEX visitor_sessions_customer ON visitor_sessions(shop_id, customer_id) WHERE customer_id IS NOT NULL;
CREATE INDEX admin_sessions_shop ON admin_sessions(shop_id, member_id);
CREATE TABLE channel_integrations (
  shop_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  connected INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (shop_id, channel)
) WITHOUT ROWID;
CREATE TABLE platform_requests (
  seq INTEGER PRIMARY KEY,
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  topic TEXT NOT NULL,
  delivery_id TEXT,
  request_key TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  changes_json TEXT NOT NULL,
  message TEXT
);
CREATE UNIQUE INDEX platform_requests_id ON platform_requests(shop_id, id);
CREATE INDEX platform_requests_key ON platform_requests(shop_id, request_key, seq);
CREATE INDEX platform_requests_received ON platform_requests(shop_id, received_at DESC, seq DESC);
CREATE TABLE data_requests (
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  customer_json TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  contacts INTEGER NOT NULL,
  export_json TEXT NOT NULL,
  PRIMARY KEY (shop_id, id)
) WITHOUT ROWID;
CREATE INDEX data_requests_received ON data_requests(shop_id, received_at DESC);
)sql";

// Uploaded files' records (the bytes are in the BlobStore). The id is
// unique across shops because a file's URL names only the id.
constexpr const char* kSchemaFiles = R"sql(
CREATE TABLE files (
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  size INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  conversation_id TEXT,
  message_id TEXT,
  uploader_type TEXT NOT NULL,
  uploader_id TEXT,
  PRIMARY KEY (shop_id, id)
) WITHOUT ROWID;
CREATE INDEX files_kind ON files(shop_id, kind, created_at, id);
)sql";

// Migration 11: `livechatctl migrate` walks a shop's unmigrated
// conversations; without this index that is a scan of all its conversations.
constexpr const char* kSchemaLegacyIndex = R"sql(
CREATE INDEX conversations_legacy ON conversations(shop_id, rid) WHERE in_new_datastore = 0;
)sql";

// Summary jobs: one per resolved conversation waiting for its summary,
// written in the resolve's transaction, so a resolve acknowledged is a
// summary that will be made, across restarts. The due index serves the
// worker's claim (across shops).
constexpr const char* kSchemaSummaryJobs = R"sql(
CREATE TABLE summary_jobs (
  shop_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  id TEXT NOT NULL,
  requested_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  lease_until INTEGER NOT NULL,
  PRIMARY KEY (shop_id, conversation_id),
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
) WITHOUT ROWID;
CREATE INDEX summary_jobs_due ON summary_jobs(next_attempt_at);
)sql";

// Standard Webhooks signing and secret rotation (webhook_signer.cc).
constexpr const char* kSchemaWebhookSigning = R"sql(
ALTER TABLE webhook_subscriptions ADD COLUMN signature_format TEXT NOT NULL DEFAULT 'livechat';
ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret TEXT;
ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret_expires_at INTEGER;
)sql";

// Idempotency-Key records (idempotency_service.cc): a day's keys per
// API key or member, the kept response of each.
constexpr const char* kSchemaIdempotency = R"sql(
CREATE TABLE idempotency_keys (
  shop_id TEXT NOT NULL,
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  done INTEGER NOT NULL,
  status INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  lease_until INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (shop_id, scope, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at);
)sql";

// The change feed (GET /chat/events): how far events were pruned, and the
// index that lets the pruning skip events a delivery still waits for.
constexpr const char* kSchemaEventFeed = R"sql(
CREATE TABLE event_feed (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  pruned_through INTEGER NOT NULL
);
INSERT INTO event_feed (id, pruned_through) VALUES (1, 0);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries(event_id) WHERE state = 'pending';
)sql";

// Conversation search (GET /chat/conversations?q=, sqlite_queries.cc): two
// FTS5 indexes kept in the writing transaction, so no write path can forget
// them: by triggers, and for a new message by the store's commit (migration
// 17). The text index holds every message that is not deleted
// (rowid seq * 2) and every note (rowid * 2 + 1; no VACUUM renumbers them, as
// for catalog_fts); the header index one row per conversation (its rid):
// the customer's name, email and phone (also as digits alone, so "5550102"
// finds "+1 555-0102") and the tags. A redact clears those fields, and the
// triggers clear them here. `shop` holds one token naming the shop (its
// hex), so a query never ranks another shop's rows. unicode61 with
// remove_diacritics folds case and accents; no stemmer, so a word typed so
// far matches as a prefix of the word indexed (PostgreSQL: livechat_search).
constexpr const char* kSchemaConversationSearch = R"sql(
CREATE VIRTUAL TABLE conversation_text_fts USING fts5(shop, body, conv UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 2', prefix = '3');
CREATE VIRTUAL TABLE conversation_header_fts USING fts5(shop, name, email, phone, phone_digits, tags,
  tokenize = 'unicode61 remove_diacritics 2', prefix = '3');
CREATE VIEW conversation_header_text AS
  SELECT c.rid AS rid, 'h' || lower(hex(c.shop_id)) AS shop,
    coalesce(nullif(cu.name, ''), nullif(trim(coalesce(cu.first_name, '') || ' ' || coalesce(cu.last_name, '')), ''),
             c.customer_name, '') AS name,
    coalesce(cu.email, c.customer_email, '') AS email,
    coalesce(cu.phone, '') AS phone,
    replace(replace(replace(replace(replace(replace(replace(coalesce(cu.phone, ''), ' ', ''), '-', ''), '(', ''), ')', ''),
      '+', ''), '.', ''), '/', '') AS phone_digits,
    coalesce((SELECT group_concat(t.tag, ' ') FROM conversation_tags t
              WHERE t.shop_id = c.shop_id AND t.conversation_id = c.id), '') AS tags
  FROM conversations c LEFT JOIN customers cu ON cu.shop_id = c.shop_id AND cu.id = c.customer_uuid;

CREATE TRIGGER messages_search_insert AFTER INSERT ON messages WHEN NEW.is_deleted = 0 AND NEW.text <> '' BEGIN
  INSERT INTO conversation_text_fts (rowid, shop, body, conv)
    SELECT NEW.seq * 2, 'h' || lower(hex(NEW.shop_id)), NEW.text, rid FROM conversations
    WHERE shop_id = NEW.shop_id AND id = NEW.conversation_id;
END;
CREATE TRIGGER messages_search_update AFTER UPDATE OF text, is_deleted ON messages
WHEN OLD.text IS NOT NEW.text OR OLD.is_deleted IS NOT NEW.is_deleted BEGIN
  DELETE FROM conversation_text_fts WHERE rowid = OLD.seq * 2;
  INSERT INTO conversation_text_fts (rowid, shop, body, conv)
    SELECT NEW.seq * 2, 'h' || lower(hex(NEW.shop_id)), NEW.text, rid FROM conversations
    WHERE shop_id = NEW.shop_id AND id = NEW.conversation_id AND NEW.is_deleted = 0 AND NEW.text <> '';
END;
CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
  DELETE FROM conversation_text_fts WHERE rowid = OLD.seq * 2;
END;

CREATE TRIGGER notes_search_insert AFTER INSERT ON notes WHEN NEW.text <> '' BEGIN
  INSERT INTO conversation_text_fts (rowid, shop, body, conv)
    SELECT NEW.rowid * 2 + 1, 'h' || lower(hex(NEW.shop_id)), NEW.text, rid FROM conversations
    WHERE shop_id = NEW.shop_id AND id = NEW.conversation_id;
END;
CREATE TRIGGER notes_search_update AFTER UPDATE OF text ON notes WHEN OLD.text IS NOT NEW.text BEGIN
  DELETE FROM conversation_text_fts WHERE rowid = OLD.rowid * 2 + 1;
  INSERT INTO conversation_text_fts (rowid, shop, body, conv)
    SELECT NEW.rowid * 2 + 1, 'h' || lower(hex(NEW.shop_id)), NEW.text, rid FROM conversations
    WHERE shop_id = NEW.shop_id AND id = NEW.conversation_id AND NEW.text <> '';
END;
CREATE TRIGGER notes_search_delete AFTER DELETE ON notes BEGIN
  DELETE FROM conversation_text_fts WHERE rowid = OLD.rowid * 2 + 1;
END;

CREATE TRIGGER conversations_search_insert AFTER INSERT ON conversations BEGIN
  INSERT INTO conversation_header_fts (rowid, shop, name, email, phone, phone_digits, tags)
    SELECT * FROM conversation_header_text WHERE rid = NEW.rid;
END;
CREATE TRIGGER conversations_search_update AFTER UPDATE OF customer_uuid, customer_name, customer_email ON conversations
WHEN OLD.customer_uuid IS NOT NEW.customer_uuid OR OLD.customer_name IS NOT NEW.customer_name
  OR OLD.customer_email IS NOT NEW.customer_email BEGIN
  DELETE FROM conversation_header_fts WHERE rowid = OLD.rid;
  INSERT INTO conversation_header_fts (rowid, shop, name, email, phone, phone_digits, tags)
    SELECT * FROM conversation_header_text WHERE rid = NEW.rid;
END;
CREATE TRIGGER conversations_search_delete AFTER DELETE ON conversations BEGIN
  DELETE FROM conversation_header_fts WHERE rowid = OLD.rid;
END;

CREATE TRIGGER conversation_tags_search_insert AFTER INSERT ON conversation_tags BEGIN
  DELETE FROM conversation_header_fts WHERE rowid =
    (SELECT rid FROM conversations WHERE shop_id = NEW.shop_id AND id = NEW.conversation_id);
  INSERT INTO conversation_header_fts (rowid, shop, name, email, phone, phone_digits, tags)
    SELECT * FROM conversation_header_text WHERE rid =
      (SELECT rid FROM conversations WHERE shop_id = NEW.shop_id AND id = NEW.conversation_id);
END;
CREATE TRIGGER conversation_tags_search_delete AFTER DELETE ON conversation_tags BEGIN
  DELETE FROM conversation_header_fts WHERE rowid =
    (SELECT rid FROM conversations WHERE shop_id = OLD.shop_id AND id = OLD.conversation_id);
  INSERT INTO conversation_header_fts (rowid, shop, name, email, phone, phone_digits, tags)
    SELECT * FROM conversation_header_text WHERE rid =
      (SELECT rid FROM conversations WHERE shop_id = OLD.shop_id AND id = OLD.conversation_id);
END;

CREATE TRIGGER customers_search_insert AFTER INSERT ON customers BEGIN
  DELETE FROM conversation_header_fts WHERE rowid IN
    (SELECT rid FROM conversations WHERE shop_id = NEW.shop_id AND customer_uuid = NEW.id);
  INSERT INTO conversation_header_fts (rowid, shop, name, email, phone, phone_digits, tags)
    SELECT * FROM conversation_header_text WHERE rid IN
      (SELECT rid FROM conversations WHERE shop_id = NEW.shop_id AND customer_uuid = NEW.id);
END;
CREATE TRIGGER customers_search_update AFTER UPDATE OF name, first_name, last_name, email, phone ON customers
WHEN OLD.name IS NOT NEW.name OR OLD.first_name IS NOT NEW.first_name OR OLD.last_name IS NOT NEW.last_name
  OR OLD.email IS NOT NEW.email OR OLD.phone IS NOT NEW.phone BEGIN
  DELETE FROM conversation_header_fts WHERE rowid IN
    (SELECT rid FROM conversations WHERE shop_id = NEW.shop_id AND customer_uuid = NEW.id);
  INSERT INTO conversation_header_fts (rowid, shop, name, email, phone, phone_digits, tags)
    SELECT * FROM conversation_header_text WHERE rid IN
      (SELECT rid FROM conversations WHERE shop_id = NEW.shop_id AND customer_uuid = NEW.id);
END;
CREATE TRIGGER customers_search_delete AFTER DELETE ON customers BEGIN
  DELETE FROM conversation_header_fts WHERE rowid IN
    (SELECT rid FROM conversations WHERE shop_id = OLD.shop_id AND customer_uuid = OLD.id);
  INSERT INTO conversation_header_fts (rowid, shop, name, email, phone, phone_digits, tags)
    SELECT * FROM conversation_header_text WHERE rid IN
      (SELECT rid FROM conversations WHERE shop_id = OLD.shop_id AND customer_uuid = OLD.id);
END;

INSERT INTO conversation_text_fts (rowid, shop, body, conv)
  SELECT m.seq * 2, 'h' || lower(hex(m.shop_id)), m.text, c.rid FROM messages m
  JOIN conversations c ON c.shop_id = m.shop_id AND c.id = m.conversation_id
  WHERE m.is_deleted = 0 AND m.text <> '';
INSERT INTO conversation_text_fts (rowid, shop, body, conv)
  SELECT n.rowid * 2 + 1, 'h' || lower(hex(n.shop_id)), n.text, c.rid FROM notes n
  JOIN conversations c ON c.shop_id = n.shop_id AND c.id = n.conversation_id
  WHERE n.text <> '';
INSERT INTO conversation_header_fts (rowid, shop, name, email, phone, phone_digits, tags)
  SELECT * FROM conversation_header_text;
)sql";

// The agent inbox: its folder counts read one index holding every column
// they test (in_new_datastore too, or SQLite would not take it as covering)
// instead of every row of the store (ConversationService::CountInbox), and the
// Starred folder pages by its own keyset (isStarred).
constexpr const char* kSchemaInbox = R"sql(
CREATE INDEX conversations_inbox_counts
  ON conversations(shop_id, status, is_read, member_id, is_starred, channel, in_new_datastore)
  WHERE in_new_datastore = 1;
CREATE INDEX conversations_starred ON conversations(shop_id, is_starred, sort_active DESC, pg_convo_id DESC)
  WHERE in_new_datastore = 1;
)sql";

// Migration 17: a new message is indexed for search just before its
// transaction commits (FlushDeferredMessageSearch), not by a trigger: FTS5
// writes its pending terms out at every savepoint, and a batch of sends runs
// one savepoint per send, so the trigger wrote one small segment per send.
// Edits and deletes keep their triggers.
constexpr const char* kSchemaDeferredMessageSearch = R"sql(
DROP TRIGGER messages_search_insert;
)sql";

// Migration 18: a conversation row's version, set anew by every statement
// that writes the row (a random 64-bit value: no counter to share between
// processes), so a reader can tell whether what it built from the row
// before is still the row's (the list's JSON cache, docs/decisions.md).
// In no index: writing it rewrites only the row, which the write rewrites
// anyway. The triggers catch a writer that does not set it (a livechatd of
// an older build still running on the file, SQL run by hand): an update
// that left it as it was, or an insert that left it 0, gets a random one.
// This build's statements always change it, so their WHEN is false.
constexpr const char* kSchemaRowVersion = R"sql(
ALTER TABLE conversations ADD COLUMN row_version INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER conversations_row_version_update AFTER UPDATE ON conversations
  WHEN NEW.row_version = OLD.row_version BEGIN
  UPDATE conversations SET row_version = random() WHERE rid = NEW.rid;
END;
CREATE TRIGGER conversations_row_version_insert AFTER INSERT ON conversations
  WHEN NEW.row_version = 0 BEGIN
  UPDATE conversations SET row_version = random() WHERE rid = NEW.rid;
END;
)sql";

// Migration 19: the same for messages (the message list's JSON cache):
// every statement that writes a message row sets row_version anew, and the
// triggers catch a writer that does not.
constexpr const char* kSchemaMessageRowVersion = R"sql(
ALTER TABLE messages ADD COLUMN row_version INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER messages_row_version_update AFTER UPDATE ON messages
  WHEN NEW.row_version = OLD.row_version BEGIN
  UPDATE messages SET row_version = random() WHERE seq = NEW.seq;
END;
CREATE TRIGGER messages_row_version_insert AFTER INSERT ON messages
  WHEN NEW.row_version = 0 BEGIN
  UPDATE messages SET row_version = random() WHERE seq = NEW.seq;
END;
)sql";

constexpr std::array<Migration, 19> kMigrations{{
    {1, kSchemaV1},
    {2, kSchemaV2},
    {3, kSchemaV3},
    {4, kSchemaV4},
    {5, kSchemaV5},
    {6, kSchemaV6},
    {7, kSchemaStorefrontSessions},
    {8, kSchemaPrivacy},
    {9, kSchemaFiles},
    {10, kSchemaSummaryJobs},
    {11, kSchemaLegacyIndex},
    {12, kSchemaWebhookSigning},
    {13, kSchemaIdempotency},
    {14, kSchemaEventFeed},
    {15, kSchemaConversationSearch},
    {16, kSchemaInbox},
    {17, kSchemaDeferredMessageSearch},
    {18, kSchemaRowVersion},
    {19, kSchemaMessageRowVersion},
}};

}  // namespace

Status Migrate(Connection& conn) {
  const int target = SqliteSchemaVersion();
  LC_ASSIGN_OR_RETURN(std::int64_t seen, conn.QueryInt("PRAGMA user_version"));
  if (seen == target) return Status::Ok();
  if (seen > target)
    return Error{ErrorCode::kInternal, "sqlite: database schema version " + std::to_string(seen) +
                                           " is newer than this build's " + std::to_string(target)};

  LC_RETURN_IF_ERROR(conn.Exec("BEGIN IMMEDIATE"));
  auto apply = [&]() -> Status {
    // Re-read under the write lock: another process may have migrated.
    LC_ASSIGN_OR_RETURN(std::int64_t current, conn.QueryInt("PRAGMA user_version"));
    if (current > target)
      return Error{ErrorCode::kInternal, "sqlite: database schema version " + std::to_string(current) +
                                             " is newer than this build's " + std::to_string(target)};
    for (const Migration& m : kMigrations) {
      if (m.version <= current) continue;
      LC_RETURN_IF_ERROR(conn.Exec(m.sql));
      // PRAGMA takes no parameters; the value is our own constant.
      std::string set = "PRAGMA user_version = " + std::to_string(m.version);
      LC_RETURN_IF_ERROR(conn.Exec(set.c_str()));
    }
    return Status::Ok();
  };
  Status st = apply();
  if (st.ok()) st = conn.Exec("COMMIT");
  if (!st.ok() && conn.InTransaction()) (void)conn.Exec("ROLLBACK");
  return st;
}

}  // namespace livechat::sqlite

namespace livechat {

int SqliteSchemaVersion() { return sqlite::kMigrations.back().version; }

}  // namespace livechat
