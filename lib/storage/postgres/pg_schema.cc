#include "storage/postgres/pg_schema.h"

#include <array>
#include <string>

#include "livechat/postgres_store.h"

namespace livechat::pg {
namespace {

struct Migration {
  int version;
  const char* sql;
};

// The SQLite schema (lib/storage/sqlite/sqlite_schema.cc, all its migrations)
// in PostgreSQL's terms. Differences, each for a reason:
//  - times are BIGINT milliseconds and flags BIGINT 0/1, as in SQLite, so one
//    query shape reads both backends;
//  - tables whose lists break ties by insertion order carry an identity
//    column `rid` (SQLite's rowid);
//  - messages.seq and events.seq are identities; every write transaction
//    holds the store's one write lock (pg_store.cc), so numbers commit in the
//    order they are drawn and a reader paging by seq never skips one;
//  - the catalog's full-text index is a weighted tsvector column with a GIN
//    index under the `livechat_fts` configuration (unaccent, then English
//    stemming: SQLite's porter + remove_diacritics), instead of FTS5;
//  - the customer count per shop is kept by plpgsql triggers.
constexpr const char* kSchemaV1 = R"sql(
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE TEXT SEARCH CONFIGURATION livechat_fts (COPY = pg_catalog.simple);
-- English stemming that keeps stop words: FTS5's porter tokenizer drops none,
-- so "how to return" must still match on every word.
CREATE TEXT SEARCH DICTIONARY livechat_english_stem (TEMPLATE = snowball, LANGUAGE = english);
-- The store turns every ASCII character but letters and digits into a space
-- before indexing or querying (pg_queries.cc), so these are the tokens.
ALTER TEXT SEARCH CONFIGURATION livechat_fts
  ALTER MAPPING FOR asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart
  WITH unaccent, livechat_english_stem;
ALTER TEXT SEARCH CONFIGURATION livechat_fts ALTER MAPPING FOR int, uint WITH simple;

CREATE TABLE shops (
  id TEXT NOT NULL PRIMARY KEY,
  app_id TEXT NOT NULL,
  name TEXT NOT NULL,
  plan TEXT NOT NULL,
  auto_assign BIGINT NOT NULL,
  installed BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX shops_app_id ON shops(app_id);

CREATE TABLE api_keys (
  rid BIGINT GENERATED ALWAYS AS IDENTITY,
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  prefix TEXT NOT NULL,
  permissions BIGINT NOT NULL,
  legacy BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  active_from BIGINT NOT NULL,
  revoked_at BIGINT,
  last_used_at BIGINT,
  PRIMARY KEY (shop_id, id)
);
CREATE UNIQUE INDEX api_keys_key_hash ON api_keys(key_hash);
CREATE INDEX api_keys_created ON api_keys(shop_id, created_at, rid);

CREATE TABLE members (
  rid BIGINT GENERATED ALWAYS AS IDENTITY,
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  email TEXT NOT NULL,
  first_name TEXT,
  last_name TEXT,
  avatar_url TEXT NOT NULL,
  role TEXT NOT NULL,
  active BIGINT NOT NULL,
  enable_away_mode BIGINT,
  password_hash TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (shop_id, id)
);
CREATE INDEX members_created ON members(shop_id, created_at, rid);
CREATE INDEX members_email ON members(lower(email));

CREATE TABLE customers (
  rid BIGINT GENERATED ALWAYS AS IDENTITY,
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
  orders_count BIGINT,
  total_spent DOUBLE PRECISION,
  ip_address TEXT,
  ip_location TEXT,
  browser TEXT,
  browser_version TEXT,
  os TEXT,
  device_type TEXT,
  sender_seq BIGINT,
  last_chat_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT,
  channel_recipient TEXT,
  redacted_at BIGINT,
  PRIMARY KEY (shop_id, id)
);
CREATE INDEX customers_email ON customers(shop_id, lower(email)) WHERE email IS NOT NULL;
CREATE INDEX customers_order ON customers(shop_id, created_at, id);
CREATE INDEX customers_shopify ON customers(shop_id, shopify_id) WHERE shopify_id IS NOT NULL;
CREATE INDEX customers_created_rid ON customers(shop_id, created_at, rid);

CREATE TABLE conversations (
  rid BIGINT PRIMARY KEY,
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  firestore_id TEXT,
  pg_convo_id BIGINT CHECK (pg_convo_id IS NULL OR pg_convo_id = rid),
  session_id TEXT,
  customer_uuid TEXT,
  customer_name TEXT,
  customer_email TEXT,
  customer_type TEXT NOT NULL,
  status TEXT NOT NULL,
  is_chat_bot BIGINT NOT NULL,
  has_chat_bot BIGINT NOT NULL,
  is_read BIGINT NOT NULL,
  is_customer_read BIGINT NOT NULL,
  is_online BIGINT NOT NULL,
  is_block BIGINT NOT NULL,
  is_starred BIGINT NOT NULL,
  has_first_msg BIGINT NOT NULL,
  hide_pre_chat_message TEXT NOT NULL,
  member_id TEXT,
  channel TEXT NOT NULL,
  channels_json TEXT NOT NULL,
  tags_json TEXT NOT NULL,
  message_count BIGINT,
  last_message_text TEXT,
  last_message_sender_type TEXT,
  last_message_created_at BIGINT,
  last_active BIGINT,
  created_at BIGINT,
  updated_at BIGINT,
  last_customer_message_at BIGINT,
  in_new_datastore BIGINT NOT NULL CHECK (in_new_datastore = 0 OR pg_convo_id IS NOT NULL),
  sort_active BIGINT NOT NULL GENERATED ALWAYS AS (coalesce(last_active, 0)) STORED,
  redacted_at BIGINT
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
CREATE INDEX conversations_customer_all ON conversations(shop_id, customer_uuid) WHERE customer_uuid IS NOT NULL;
CREATE INDEX conversations_legacy ON conversations(shop_id, rid) WHERE in_new_datastore = 0;

CREATE TABLE conversation_tags (
  shop_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  tag TEXT NOT NULL,
  PRIMARY KEY (shop_id, conversation_id, tag),
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX conversation_tags_tag ON conversation_tags(shop_id, tag);

CREATE TABLE messages (
  seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  text TEXT NOT NULL,
  sender_name TEXT NOT NULL,
  sender_type TEXT NOT NULL,
  member_id TEXT,
  is_admin BIGINT NOT NULL,
  is_automated BIGINT NOT NULL,
  is_bot BIGINT NOT NULL,
  is_note BIGINT NOT NULL,
  is_first BIGINT NOT NULL,
  is_transfer BIGINT NOT NULL,
  is_quick_reply_msg BIGINT NOT NULL,
  is_ask_bot_message BIGINT NOT NULL,
  is_deleted BIGINT NOT NULL,
  content_type TEXT NOT NULL,
  topic TEXT,
  chatbot_products_json TEXT NOT NULL,
  chatbot_faqs_json TEXT NOT NULL,
  files_json TEXT NOT NULL,
  reply_message_json TEXT,
  created_at BIGINT NOT NULL,
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE UNIQUE INDEX messages_id ON messages(shop_id, id);
CREATE INDEX messages_conversation ON messages(shop_id, conversation_id, seq);

CREATE TABLE notes (
  rid BIGINT GENERATED ALWAYS AS IDENTITY,
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  text TEXT NOT NULL,
  is_updated BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (shop_id, id),
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX notes_conversation ON notes(shop_id, conversation_id, created_at, rid);

CREATE TABLE attributes (
  rid BIGINT GENERATED ALWAYS AS IDENTITY,
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (shop_id, id),
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX attributes_conversation ON attributes(shop_id, conversation_id, created_at, rid);
CREATE INDEX attributes_name ON attributes(shop_id, conversation_id, name);

CREATE TABLE browsed_pages (
  seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  shop_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  url TEXT NOT NULL,
  title TEXT,
  viewed_at BIGINT NOT NULL,
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX browsed_pages_conversation ON browsed_pages(shop_id, conversation_id, viewed_at);

CREATE TABLE summaries (
  shop_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  text TEXT NOT NULL,
  summarizer TEXT NOT NULL,
  generated_at BIGINT NOT NULL,
  PRIMARY KEY (shop_id, conversation_id),
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);

CREATE TABLE typing (
  shop_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  member_id TEXT NOT NULL,
  active BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (shop_id, conversation_id, member_id),
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);

CREATE TABLE admin_sessions (
  token_hash TEXT NOT NULL PRIMARY KEY,
  shop_id TEXT NOT NULL,
  member_id TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX admin_sessions_member ON admin_sessions(shop_id, member_id);

CREATE TABLE events (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  shop_id TEXT NOT NULL,
  type TEXT NOT NULL,
  conversation_id TEXT,
  occurred_at BIGINT NOT NULL,
  data_json TEXT NOT NULL
);
CREATE INDEX events_shop ON events(shop_id, seq);

CREATE TABLE webhook_subscriptions (
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  url TEXT NOT NULL,
  events_json TEXT NOT NULL,
  is_active BIGINT NOT NULL,
  secret TEXT NOT NULL,
  secret_hash TEXT NOT NULL UNIQUE,
  metadata_json TEXT NOT NULL,
  legacy BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  last_delivery_at BIGINT,
  last_delivery_status TEXT,
  last_delivery_status_code BIGINT,
  last_delivery_error TEXT,
  PRIMARY KEY (shop_id, id)
);
CREATE UNIQUE INDEX webhook_subscriptions_url ON webhook_subscriptions(shop_id, url);
CREATE INDEX webhook_subscriptions_created ON webhook_subscriptions(shop_id, created_at);

CREATE TABLE webhook_deliveries (
  rid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  shop_id TEXT NOT NULL,
  subscription_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts BIGINT NOT NULL,
  next_attempt_at BIGINT NOT NULL,
  lease_until BIGINT NOT NULL,
  last_attempt_at BIGINT,
  created_at BIGINT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at, rid) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries(shop_id, subscription_id, rid);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(shop_id, subscription_id, next_attempt_at)
  WHERE state = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries(shop_id, subscription_id, lease_until)
  WHERE state = 'pending' AND lease_until > 0;

CREATE TABLE webhook_attempts (
  rid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  shop_id TEXT NOT NULL,
  subscription_id TEXT NOT NULL,
  delivery_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  attempt BIGINT NOT NULL,
  at BIGINT NOT NULL,
  status_code BIGINT,
  error TEXT,
  duration_ms BIGINT NOT NULL,
  outcome TEXT NOT NULL
);
CREATE INDEX webhook_attempts_subscription ON webhook_attempts(shop_id, subscription_id, rid);

CREATE TABLE shop_customer_counts (
  shop_id TEXT PRIMARY KEY,
  n BIGINT NOT NULL
);
CREATE FUNCTION livechat_customers_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO shop_customer_counts (shop_id, n) VALUES (NEW.shop_id, 1)
      ON CONFLICT (shop_id) DO UPDATE SET n = shop_customer_counts.n + 1;
  ELSE
    UPDATE shop_customer_counts SET n = n - 1 WHERE shop_id = OLD.shop_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER customers_count AFTER INSERT OR DELETE ON customers
  FOR EACH ROW EXECUTE FUNCTION livechat_customers_count();

CREATE TABLE catalog_items (
  rid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  shop_id TEXT NOT NULL REFERENCES shops(id),
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  parent_id TEXT NOT NULL DEFAULT '',
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  data_json TEXT NOT NULL,
  updated_at BIGINT NOT NULL,
  fts tsvector NOT NULL,
  UNIQUE (shop_id, kind, id)
);
CREATE INDEX catalog_items_parent ON catalog_items(shop_id, kind, parent_id, id);
CREATE INDEX catalog_items_fts ON catalog_items USING GIN (fts);
CREATE TABLE catalog_keys (
  shop_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  item_id TEXT NOT NULL,
  PRIMARY KEY (shop_id, kind, key)
);
CREATE INDEX catalog_keys_item ON catalog_keys(shop_id, kind, item_id);
CREATE TABLE shop_documents (
  shop_id TEXT NOT NULL REFERENCES shops(id),
  name TEXT NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (shop_id, name)
);

CREATE TABLE visitor_sessions (
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  customer_id TEXT,
  conversation_id TEXT,
  state_json TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  last_seen_at BIGINT NOT NULL,
  ended_at BIGINT,
  PRIMARY KEY (shop_id, id)
);
CREATE INDEX visitor_sessions_customer ON visitor_sessions(shop_id, customer_id) WHERE customer_id IS NOT NULL;
CREATE INDEX admin_sessions_shop ON admin_sessions(shop_id, member_id);

CREATE TABLE channel_integrations (
  shop_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  connected BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (shop_id, channel)
);
CREATE TABLE platform_requests (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL,
  topic TEXT NOT NULL,
  delivery_id TEXT,
  request_key TEXT NOT NULL,
  received_at BIGINT NOT NULL,
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
  received_at BIGINT NOT NULL,
  contacts BIGINT NOT NULL,
  export_json TEXT NOT NULL,
  PRIMARY KEY (shop_id, id)
);
CREATE INDEX data_requests_received ON data_requests(shop_id, received_at DESC);

CREATE TABLE files (
  shop_id TEXT NOT NULL,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  size BIGINT NOT NULL,
  content_type TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  conversation_id TEXT,
  message_id TEXT,
  uploader_type TEXT NOT NULL,
  uploader_id TEXT,
  PRIMARY KEY (shop_id, id)
);
CREATE INDEX files_kind ON files(shop_id, kind, created_at, id);

CREATE TABLE summary_jobs (
  shop_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  id TEXT NOT NULL,
  requested_at BIGINT NOT NULL,
  attempts BIGINT NOT NULL,
  next_attempt_at BIGINT NOT NULL,
  lease_until BIGINT NOT NULL,
  PRIMARY KEY (shop_id, conversation_id),
  FOREIGN KEY (shop_id, conversation_id) REFERENCES conversations(shop_id, id)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX summary_jobs_due ON summary_jobs(next_attempt_at);

-- A top-level string field of a JSON text, NULL when the text is not JSON
-- (SQLite's json_valid + json_extract).
CREATE FUNCTION livechat_json_text(doc text, field text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN doc::jsonb ->> field;
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;

-- The database's clock in milliseconds: leases compare against one clock
-- however far the instances' clocks drift apart.
CREATE FUNCTION livechat_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS
  $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;
)sql";

// The limits' counters shared by every instance (livechat/rate_counters.h):
// UNLOGGED, because they are worth nothing after a crash (a window lasts a
// minute) and every request writes them. Each function is one statement:
// the upsert locks the key's row, so concurrent instances count one after
// another. Times are the database's clock.
constexpr const char* kSchemaV2 = R"sql(
CREATE UNLOGGED TABLE rate_windows (
  key TEXT PRIMARY KEY,
  start_ms BIGINT NOT NULL,
  count BIGINT NOT NULL
);
CREATE INDEX rate_windows_start ON rate_windows(start_ms);
CREATE FUNCTION livechat_rate_count(k text, lim bigint, window_ms bigint, count_refused boolean,
                                    OUT allowed boolean, OUT counted bigint, OUT reset_ms bigint, OUT now_ms bigint)
LANGUAGE plpgsql AS $$
DECLARE
  started bigint;
BEGIN
  now_ms := livechat_now_ms();
  INSERT INTO rate_windows AS w (key, start_ms, count) VALUES (k, now_ms, 0)
  ON CONFLICT (key) DO UPDATE SET
    start_ms = CASE WHEN now_ms - w.start_ms >= window_ms OR w.count = 0 THEN now_ms ELSE w.start_ms END,
    count = CASE WHEN now_ms - w.start_ms >= window_ms OR w.count = 0 THEN 0 ELSE w.count END
  RETURNING w.start_ms, w.count INTO started, counted;
  allowed := counted < lim;
  IF allowed OR count_refused THEN
    counted := counted + 1;
    UPDATE rate_windows SET count = counted WHERE key = k;
  END IF;
  reset_ms := started + window_ms - now_ms;
END $$;
CREATE FUNCTION livechat_rate_return(k text, at_ms bigint, window_ms bigint) RETURNS void LANGUAGE sql AS $$
  UPDATE rate_windows SET count = count - 1
  WHERE key = k AND count > 0 AND start_ms <= at_ms AND at_ms - start_ms < window_ms
$$;

CREATE UNLOGGED TABLE cost_buckets (
  key TEXT PRIMARY KEY,
  tokens DOUBLE PRECISION NOT NULL,
  at_ms BIGINT NOT NULL
);
CREATE INDEX cost_buckets_at ON cost_buckets(at_ms);
CREATE FUNCTION livechat_bucket_take(k text, cost bigint, capacity bigint, refill_per_s bigint,
                                     OUT allowed boolean, OUT left_tokens double precision)
LANGUAGE plpgsql AS $$
DECLARE
  now_ms bigint := livechat_now_ms();
  have double precision;
BEGIN
  INSERT INTO cost_buckets AS b (key, tokens, at_ms) VALUES (k, capacity, now_ms)
  ON CONFLICT (key) DO UPDATE SET
    tokens = least(capacity::double precision,
                   b.tokens + greatest(now_ms - b.at_ms, 0)::double precision * refill_per_s / 1000.0),
    at_ms = now_ms
  RETURNING b.tokens INTO have;
  allowed := cost <= have;
  IF allowed THEN
    have := have - cost;
    UPDATE cost_buckets SET tokens = have WHERE key = k;
  END IF;
  left_tokens := have;
END $$;
)sql";

// The tool server's sessions (livechat/mcp_sessions.h), shared by every
// instance. Logged: a session outlives the instance that opened it.
constexpr const char* kSchemaV3 = R"sql(
CREATE TABLE mcp_sessions (
  id TEXT PRIMARY KEY,
  shop_id TEXT NOT NULL,
  version TEXT NOT NULL,
  seq BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX mcp_sessions_shop ON mcp_sessions(shop_id, seq);
)sql";

// Standard Webhooks signing and secret rotation (SQLite's migration 12).
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE webhook_subscriptions ADD COLUMN signature_format TEXT NOT NULL DEFAULT 'livechat';
ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret TEXT;
ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret_expires_at BIGINT;
)sql";

// Idempotency-Key records (SQLite's migration 13).
constexpr const char* kSchemaV5 = R"sql(
CREATE TABLE idempotency_keys (
  shop_id TEXT NOT NULL,
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  done BIGINT NOT NULL,
  status BIGINT NOT NULL,
  content_type TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  lease_until BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (shop_id, scope, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at);
)sql";

// The change feed (SQLite's migration 14).
constexpr const char* kSchemaV6 = R"sql(
CREATE TABLE event_feed (
  id BIGINT PRIMARY KEY CHECK (id = 1),
  pruned_through BIGINT NOT NULL
);
INSERT INTO event_feed (id, pruned_through) VALUES (1, 0);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries(event_id) WHERE state = 'pending';
)sql";

// Conversation search (SQLite's migration 15, which says what is indexed
// and why). Two tables with GIN-indexed tsvectors, kept by triggers in the
// writing transaction: the texts (messages that are not deleted, notes;
// `rid` is their order of indexing, newest last) and one header per
// conversation. livechat_search folds accents and case and does not stem,
// as SQLite's unicode61 with remove_diacritics; livechat_search_vector
// splits text into words where FTS5 does (every ASCII character but letters
// and digits, as FtsText in pg_queries.cc).
constexpr const char* kSchemaV7 = R"sql(
CREATE TEXT SEARCH CONFIGURATION livechat_search (COPY = pg_catalog.simple);
ALTER TEXT SEARCH CONFIGURATION livechat_search
  ALTER MAPPING FOR asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart
  WITH unaccent, simple;
CREATE FUNCTION livechat_search_vector(t text) RETURNS tsvector LANGUAGE sql IMMUTABLE AS
  $$ SELECT to_tsvector('livechat_search', regexp_replace(t, '[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+', ' ', 'g')) $$;

CREATE TABLE conversation_text_search (
  rid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  shop_id TEXT NOT NULL,
  src TEXT NOT NULL,
  ref TEXT NOT NULL,
  conv_rid BIGINT NOT NULL,
  body TEXT NOT NULL,
  fts tsvector NOT NULL,
  UNIQUE (shop_id, src, ref)
);
CREATE INDEX conversation_text_search_fts ON conversation_text_search USING GIN (fts);
CREATE TABLE conversation_header_search (
  conv_rid BIGINT PRIMARY KEY,
  shop_id TEXT NOT NULL,
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  phone TEXT NOT NULL,
  tags TEXT NOT NULL,
  fts tsvector NOT NULL
);
CREATE INDEX conversation_header_search_fts ON conversation_header_search USING GIN (fts);
-- The planner walks `rid` backwards when it believes a word is common and
-- uses the GIN index when it knows it is rare. With the default statistics a
-- word outside the most common few hundred (an order number, a name) is
-- believed common, and the walk reads the whole table (1.7 s on 1,000,000
-- messages); a long most-common list makes the rare ones known as rare
-- (1000 is not enough there). The price is planning time: the list is read
-- at every plan, about 25 ms on that store (bench/RESULTS.md). Headers are
-- one per conversation, so a walk there costs a tenth as much.
ALTER TABLE conversation_text_search ALTER COLUMN fts SET STATISTICS 10000;
ALTER TABLE conversation_header_search ALTER COLUMN fts SET STATISTICS 2000;

CREATE FUNCTION livechat_search_header(r bigint) RETURNS void LANGUAGE sql AS $$
  DELETE FROM conversation_header_search WHERE conv_rid = r;
  INSERT INTO conversation_header_search (conv_rid, shop_id, name, email, phone, tags, fts)
  SELECT rid, shop_id, name, email, phone, tags,
         livechat_search_vector(name || ' ' || email || ' ' || phone || ' ' || regexp_replace(phone, '\D', '', 'g')
                                || ' ' || tags)
  FROM (SELECT c.rid, c.shop_id,
               coalesce(nullif(cu.name, ''),
                        nullif(trim(coalesce(cu.first_name, '') || ' ' || coalesce(cu.last_name, '')), ''),
                        c.customer_name, '') AS name,
               coalesce(cu.email, c.customer_email, '') AS email,
               coalesce(cu.phone, '') AS phone,
               coalesce((SELECT string_agg(t.tag, ' ' ORDER BY t.tag) FROM conversation_tags t
                         WHERE t.shop_id = c.shop_id AND t.conversation_id = c.id), '') AS tags
        FROM conversations c LEFT JOIN customers cu ON cu.shop_id = c.shop_id AND cu.id = c.customer_uuid
        WHERE c.rid = r) AS h;
$$;

CREATE FUNCTION livechat_search_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM conversation_text_search WHERE shop_id = OLD.shop_id AND src = 'message' AND ref = OLD.id;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    IF NEW.is_deleted = 0 AND NEW.text <> '' THEN
      INSERT INTO conversation_text_search (shop_id, src, ref, conv_rid, body, fts)
        SELECT NEW.shop_id, 'message', NEW.id, c.rid, NEW.text, livechat_search_vector(NEW.text)
        FROM conversations c WHERE c.shop_id = NEW.shop_id AND c.id = NEW.conversation_id;
    END IF;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER messages_search AFTER INSERT OR DELETE ON messages
  FOR EACH ROW EXECUTE FUNCTION livechat_search_message();
CREATE TRIGGER messages_search_update AFTER UPDATE OF text, is_deleted ON messages FOR EACH ROW
  WHEN (OLD.text IS DISTINCT FROM NEW.text OR OLD.is_deleted IS DISTINCT FROM NEW.is_deleted)
  EXECUTE FUNCTION livechat_search_message();

CREATE FUNCTION livechat_search_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM conversation_text_search WHERE shop_id = OLD.shop_id AND src = 'note' AND ref = OLD.id;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    IF NEW.text <> '' THEN
      INSERT INTO conversation_text_search (shop_id, src, ref, conv_rid, body, fts)
        SELECT NEW.shop_id, 'note', NEW.id, c.rid, NEW.text, livechat_search_vector(NEW.text)
        FROM conversations c WHERE c.shop_id = NEW.shop_id AND c.id = NEW.conversation_id;
    END IF;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER notes_search AFTER INSERT OR DELETE ON notes
  FOR EACH ROW EXECUTE FUNCTION livechat_search_note();
CREATE TRIGGER notes_search_update AFTER UPDATE OF text ON notes FOR EACH ROW
  WHEN (OLD.text IS DISTINCT FROM NEW.text) EXECUTE FUNCTION livechat_search_note();

CREATE FUNCTION livechat_search_conversation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM conversation_header_search WHERE conv_rid = OLD.rid;
  ELSE
    PERFORM livechat_search_header(NEW.rid);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER conversations_search AFTER INSERT OR DELETE ON conversations
  FOR EACH ROW EXECUTE FUNCTION livechat_search_conversation();
CREATE TRIGGER conversations_search_update AFTER UPDATE OF customer_uuid, customer_name, customer_email
  ON conversations FOR EACH ROW
  WHEN (OLD.customer_uuid IS DISTINCT FROM NEW.customer_uuid OR OLD.customer_name IS DISTINCT FROM NEW.customer_name
        OR OLD.customer_email IS DISTINCT FROM NEW.customer_email)
  EXECUTE FUNCTION livechat_search_conversation();

CREATE FUNCTION livechat_search_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM livechat_search_header(c.rid) FROM conversations c
      WHERE c.shop_id = OLD.shop_id AND c.id = OLD.conversation_id;
  ELSE
    PERFORM livechat_search_header(c.rid) FROM conversations c
      WHERE c.shop_id = NEW.shop_id AND c.id = NEW.conversation_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER conversation_tags_search AFTER INSERT OR DELETE ON conversation_tags
  FOR EACH ROW EXECUTE FUNCTION livechat_search_tags();

CREATE FUNCTION livechat_search_customer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM livechat_search_header(c.rid) FROM conversations c
      WHERE c.shop_id = OLD.shop_id AND c.customer_uuid = OLD.id;
  ELSE
    PERFORM livechat_search_header(c.rid) FROM conversations c
      WHERE c.shop_id = NEW.shop_id AND c.customer_uuid = NEW.id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER customers_search AFTER INSERT OR DELETE ON customers
  FOR EACH ROW EXECUTE FUNCTION livechat_search_customer();
CREATE TRIGGER customers_search_update AFTER UPDATE OF name, first_name, last_name, email, phone ON customers
  FOR EACH ROW
  WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.first_name IS DISTINCT FROM NEW.first_name
        OR OLD.last_name IS DISTINCT FROM NEW.last_name OR OLD.email IS DISTINCT FROM NEW.email
        OR OLD.phone IS DISTINCT FROM NEW.phone)
  EXECUTE FUNCTION livechat_search_customer();

INSERT INTO conversation_text_search (shop_id, src, ref, conv_rid, body, fts)
  SELECT m.shop_id, 'message', m.id, c.rid, m.text, livechat_search_vector(m.text) FROM messages m
  JOIN conversations c ON c.shop_id = m.shop_id AND c.id = m.conversation_id
  WHERE m.is_deleted = 0 AND m.text <> '' ORDER BY m.seq;
INSERT INTO conversation_text_search (shop_id, src, ref, conv_rid, body, fts)
  SELECT n.shop_id, 'note', n.id, c.rid, n.text, livechat_search_vector(n.text) FROM notes n
  JOIN conversations c ON c.shop_id = n.shop_id AND c.id = n.conversation_id
  WHERE n.text <> '' ORDER BY n.rid;
SELECT livechat_search_header(rid) FROM conversations;
)sql";

// The agent inbox: its folder counts read one index holding every column
// they test (in_new_datastore too, or SQLite would not take it as covering)
// instead of every row of the store (ConversationService::CountInbox), and the
// Starred folder pages by its own keyset (isStarred).
constexpr const char* kSchemaV8 = R"sql(
CREATE INDEX conversations_inbox_counts
  ON conversations(shop_id, status, is_read, member_id, is_starred, channel, in_new_datastore)
  WHERE in_new_datastore = 1;
CREATE INDEX conversations_starred ON conversations(shop_id, is_starred, sort_active DESC, pg_convo_id DESC)
  WHERE in_new_datastore = 1;
)sql";

// The conversation search's vocabulary: every lexeme of the searched texts
// and headers, so a prefix (the last word, typed as you search) is expanded
// into the few whole lexemes it stands for before the query
// (PgDialect::BindSearchWords says why that is cheaper). A trigger on the
// search tables adds a row's lexemes in the statement that writes the row,
// so every path that indexes a text fills it, with no round trip of its own.
// Nothing is removed: a lexeme whose texts were edited, deleted or redacted
// only widens the OR of a later query, whose own rows decide what matches.
// Shared by every shop: the expansion rewrites a query into one that matches
// exactly the same rows, and the rows stay the shop's (docs/decisions.md).
// The "C" collation orders by bytes, as tsquery's prefix match compares, so
// the lexemes with one prefix are adjacent in the key.
constexpr const char* kSchemaV9 = R"sql(
CREATE TABLE conversation_search_lexemes (
  lexeme TEXT COLLATE "C" PRIMARY KEY
);
CREATE FUNCTION livechat_search_lexemes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A lexeme already known costs one index probe and writes nothing. Two
  -- writers never wait on each other's new lexemes: every write transaction
  -- holds the store's write lock (pg_store.cc).
  INSERT INTO conversation_search_lexemes (lexeme)
    SELECT l FROM unnest(tsvector_to_array(NEW.fts)) AS l
    ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER conversation_text_search_lexemes AFTER INSERT OR UPDATE OF fts ON conversation_text_search
  FOR EACH ROW EXECUTE FUNCTION livechat_search_lexemes();
CREATE TRIGGER conversation_header_search_lexemes AFTER INSERT OR UPDATE OF fts ON conversation_header_search
  FOR EACH ROW EXECUTE FUNCTION livechat_search_lexemes();
INSERT INTO conversation_search_lexemes (lexeme)
  SELECT word FROM ts_stat('SELECT fts FROM conversation_text_search')
  UNION SELECT word FROM ts_stat('SELECT fts FROM conversation_header_search');
)sql";

// A request counted under its address's window and its key's in one
// statement (RateWindows::HitBoth), so a REST request makes one round trip
// for its limits, not two. A hit (a refused request counts too) is one
// upsert of its key's row, not an upsert and an update: every request writes
// these rows, and each write leaves a dead row version behind. The address
// row is always locked first, so two calls cannot wait on each other's rows.
constexpr const char* kSchemaV10 = R"sql(
CREATE FUNCTION livechat_rate_hit(k text, lim bigint, window_ms bigint,
                                  OUT allowed boolean, OUT counted bigint, OUT reset_ms bigint, OUT now_ms bigint)
LANGUAGE plpgsql AS $$
DECLARE
  started bigint;
BEGIN
  now_ms := livechat_now_ms();
  INSERT INTO rate_windows AS w (key, start_ms, count) VALUES (k, now_ms, 1)
  ON CONFLICT (key) DO UPDATE SET
    start_ms = CASE WHEN now_ms - w.start_ms >= window_ms OR w.count = 0 THEN now_ms ELSE w.start_ms END,
    count = CASE WHEN now_ms - w.start_ms >= window_ms OR w.count = 0 THEN 1 ELSE w.count + 1 END
  RETURNING w.start_ms, w.count INTO started, counted;
  allowed := counted <= lim;
  reset_ms := started + window_ms - now_ms;
END $$;
CREATE FUNCTION livechat_rate_count_both(k1 text, lim1 bigint, k2 text, lim2 bigint, window_ms bigint,
                                         OUT allowed1 boolean, OUT counted1 bigint, OUT reset1_ms bigint,
                                         OUT allowed2 boolean, OUT counted2 bigint, OUT reset2_ms bigint,
                                         OUT now_ms bigint)
LANGUAGE plpgsql AS $$
BEGIN
  SELECT r.allowed, r.counted, r.reset_ms, r.now_ms INTO allowed1, counted1, reset1_ms, now_ms
    FROM livechat_rate_hit(k1, lim1, window_ms) AS r;
  IF allowed1 THEN
    SELECT r.allowed, r.counted, r.reset_ms INTO allowed2, counted2, reset2_ms
      FROM livechat_rate_hit(k2, lim2, window_ms) AS r;
  END IF;
END $$;
)sql";

// Migration 11: a conversation row's version, set anew by every statement
// that writes the row, so a reader can tell whether what it built from the
// row before is still the row's (the list's JSON cache, docs/decisions.md).
// Random (53 bits), not from a sequence: a database restored from a backup
// would rewind a sequence and give a changed row a version a running
// instance has seen before. In no index. The triggers catch a writer that
// does not set it (an instance of an older build still serving during a
// rolling upgrade, SQL run by hand): an update that left it as it was, or
// an insert that left it 0. This build's statements always change it, so
// their WHEN is false and no function runs.
constexpr const char* kSchemaV11 = R"sql(
ALTER TABLE conversations ADD COLUMN row_version BIGINT NOT NULL DEFAULT 0;
CREATE FUNCTION livechat_conversation_row_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.row_version := 1 + floor(random() * 9007199254740990)::bigint;
  RETURN NEW;
END $$;
CREATE TRIGGER conversations_row_version_update BEFORE UPDATE ON conversations
  FOR EACH ROW WHEN (NEW.row_version = OLD.row_version) EXECUTE FUNCTION livechat_conversation_row_version();
CREATE TRIGGER conversations_row_version_insert BEFORE INSERT ON conversations
  FOR EACH ROW WHEN (NEW.row_version = 0) EXECUTE FUNCTION livechat_conversation_row_version();
)sql";

// Migration 12: the same for messages (the message list's JSON cache).
constexpr const char* kSchemaV12 = R"sql(
ALTER TABLE messages ADD COLUMN row_version BIGINT NOT NULL DEFAULT 0;
CREATE TRIGGER messages_row_version_update BEFORE UPDATE ON messages
  FOR EACH ROW WHEN (NEW.row_version = OLD.row_version) EXECUTE FUNCTION livechat_conversation_row_version();
CREATE TRIGGER messages_row_version_insert BEFORE INSERT ON messages
  FOR EACH ROW WHEN (NEW.row_version = 0) EXECUTE FUNCTION livechat_conversation_row_version();
)sql";

constexpr std::array<Migration, 12> kMigrations{{
    {1, kSchemaV1},
    {2, kSchemaV2},
    {3, kSchemaV3},
    {4, kSchemaV4},
    {5, kSchemaV5},
    {6, kSchemaV6},
    {7, kSchemaV7},
    {8, kSchemaV8},
    {9, kSchemaV9},
    {10, kSchemaV10},
    {11, kSchemaV11},
    {12, kSchemaV12},
}};

// Any constant unique to livechat; every instance uses the same.
constexpr const char* kMigrationLock = "SELECT pg_advisory_lock(7426391805512)";
constexpr const char* kMigrationUnlock = "SELECT pg_advisory_unlock(7426391805512)";

Status TooNew(std::int64_t seen, int target) {
  return Error{ErrorCode::kInternal, "postgres: the database's schema version " + std::to_string(seen) +
                                         " is newer than this build's " + std::to_string(target) +
                                         "; run a livechat build at least as new as the one that migrated it"};
}

}  // namespace

Result<std::int64_t> CurrentVersion(Connection& conn) {
  LC_ASSIGN_OR_RETURN(std::int64_t exists, conn.QueryInt("SELECT count(*) FROM pg_catalog.pg_tables "
                                                         "WHERE schemaname = current_schema() "
                                                         "AND tablename = 'livechat_schema'"));
  if (exists == 0) return 0;
  return conn.QueryInt("SELECT coalesce(max(version), 0) FROM livechat_schema");
}

Status Migrate(Connection& conn) {
  const int target = PostgresSchemaVersion();
  LC_ASSIGN_OR_RETURN(std::int64_t seen, CurrentVersion(conn));
  if (seen == target) return Status::Ok();
  if (seen > target) return TooNew(seen, target);
  // A session lock (not a transaction's) so the wait happens before BEGIN,
  // and each migration still commits on its own.
  LC_RETURN_IF_ERROR(conn.Exec(kMigrationLock));
  auto apply = [&]() -> Status {
    LC_RETURN_IF_ERROR(conn.Exec(
        "CREATE TABLE IF NOT EXISTS livechat_schema (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)"));
    // Re-read under the lock: another instance may have migrated meanwhile.
    LC_ASSIGN_OR_RETURN(std::int64_t current, CurrentVersion(conn));
    if (current > target) return TooNew(current, target);
    for (const Migration& m : kMigrations) {
      if (m.version <= current) continue;
      LC_RETURN_IF_ERROR(conn.Exec("BEGIN"));
      Status st = conn.Exec(m.sql);
      if (st.ok())
        st = conn.Exec("INSERT INTO livechat_schema (version, applied_at) VALUES (" + std::to_string(m.version) +
                       ", (extract(epoch FROM now()) * 1000)::bigint)");
      if (st.ok()) st = conn.Exec("COMMIT");
      if (!st.ok()) {
        (void)conn.Exec("ROLLBACK");
        return st;
      }
    }
    return Status::Ok();
  };
  Status st = apply();
  (void)conn.Exec(kMigrationUnlock);
  return st;
}

}  // namespace livechat::pg

namespace livechat {

int PostgresSchemaVersion() { return pg::kMigrations.back().version; }

}  // namespace livechat
