#include "daemon_config.h"

#include <functional>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <limits>
#include <thread>

#include "livechat/http.h"
#include "livechat/postgres_store.h"

namespace livechatd {
namespace {

// One row per flag. `apply` parses a textual value (from the command line or
// the environment) into the config; it returns an error message or "".
struct FlagSpec {
  const char* name;       // without the leading "--"
  const char* valueName;  // nullptr: a switch (no value on the command line)
  const char* defaultText;
  const char* help;
  bool repeatable;
  std::string (*apply)(DaemonConfig&, const std::string&);
};

std::string EnvName(const char* flag) {
  std::string out = "LIVECHAT_";
  for (const char* p = flag; *p != '\0'; ++p)
    out.push_back(*p == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(*p))));
  return out;
}

template <typename Int>
bool ParseInt(const std::string& text, Int min, Int max, Int* out) {
  Int v{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max) return false;
  *out = v;
  return true;
}

// Switches also come from the environment, where they need a value.
std::optional<bool> ParseBool(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (text == "1" || text == "true" || text == "yes" || text == "on") return true;
  if (text == "0" || text == "false" || text == "no" || text == "off" || text.empty()) return false;
  return std::nullopt;
}

std::string ApplyDb(DaemonConfig& c, const std::string& v) {
  if (v.empty()) return "must not be empty";
  c.dbPath = v;
  return "";
}

std::string ApplyDbPool(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 1, 256, &c.dbPool)) return "expects a number of connections from 1 to 256, got \"" + v + "\"";
  return "";
}

std::string ApplyEventRetention(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 1, 365, &c.eventRetentionDays)) return "expects a number of days from 1 to 365, got \"" + v + "\"";
  return "";
}

std::string ApplyListen(DaemonConfig& c, const std::string& v) {
  auto hp = ParseHostPort(v);
  if (!hp) return "expects HOST:PORT (e.g. 127.0.0.1:8080, [::1]:8080, 0.0.0.0:0), got \"" + v + "\"";
  c.host = hp->host;
  c.port = hp->port;
  return "";
}

std::string ApplyDemo(DaemonConfig& c, const std::string& v) {
  auto b = ParseBool(v);
  if (!b) return "expects true or false, got \"" + v + "\"";
  c.demo = *b;
  return "";
}

std::string ApplyRateKey(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 1, std::numeric_limits<int>::max(), &c.rateLimitPerKey))
    return "expects a whole number of requests per minute >= 1, got \"" + v + "\"";
  return "";
}

std::string ApplyRateIp(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 1, std::numeric_limits<int>::max(), &c.rateLimitPerIp))
    return "expects a whole number of requests per minute >= 1, got \"" + v + "\"";
  return "";
}

// Calls `each` with every trimmed, non-empty item of a comma-separated list
// and stops at its first error. The environment form of a repeatable flag is
// such a list; a flag holds one item but accepting commas there too costs nothing.
std::string ForEachListItem(const std::string& v, const std::function<std::string(const std::string&)>& each) {
  std::size_t start = 0;
  while (start <= v.size()) {
    std::size_t comma = v.find(',', start);
    std::string item = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) {
      std::string error = each(item);
      if (!error.empty()) return error;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return "";
}

std::string ApplyTrustedProxy(DaemonConfig& c, const std::string& v) {
  return ForEachListItem(v, [&c](const std::string& item) -> std::string {
    if (!livechat::Cidr::Parse(item)) return "expects an address or CIDR (10.0.0.0/8, ::1/128), got \"" + item + "\"";
    c.trustedProxies.push_back(item);
    return "";
  });
}

std::string ApplyThreads(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 1, 1024, &c.threads)) return "expects a thread count from 1 to 1024, got \"" + v + "\"";
  return "";
}

std::string ApplyMaxBody(DaemonConfig& c, const std::string& v) {
  // The cap keeps maxBody + the transport's headroom from overflowing.
  if (!ParseInt<std::size_t>(v, 1, std::size_t{1} << 40, &c.maxBodyBytes))
    return "expects a byte count >= 1, got \"" + v + "\"";
  return "";
}

std::string ApplyAccessLog(DaemonConfig& c, const std::string& v) {
  auto b = ParseBool(v);
  if (!b) return "expects on or off, got \"" + v + "\"";
  c.accessLog = *b;
  return "";
}

std::string ApplySecureCookies(DaemonConfig& c, const std::string& v) {
  auto b = ParseBool(v);
  if (!b) return "expects true or false, got \"" + v + "\"";
  c.secureCookies = *b;
  return "";
}

std::string ApplyWebhookRetryDelays(DaemonConfig& c, const std::string& v) {
  constexpr std::size_t kWaits = 6;  // spec: seven attempts, so six waits
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = v.find(',', start);
    std::string item = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    auto ms = ParseDuration(item);
    if (!ms || *ms <= 0)
      return "expects " + std::to_string(kWaits) +
             " comma-separated durations above zero with a unit ms, s, m or h (e.g. 10s,1m,5m,30m,2h,6h); \"" + item +
             "\" is not one";
    out.push_back(*ms);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.size() != kWaits)
    return "expects exactly " + std::to_string(kWaits) + " durations (the waits before attempts 2 to 7), got " +
           std::to_string(out.size());
  c.webhookRetryDelaysMillis = std::move(out);
  return "";
}

// An outbound request timeout: 100 ms to 10 minutes.
std::string SetTimeout(std::int64_t& out, const std::string& v, const char* example) {
  auto ms = ParseDuration(v);
  if (!ms || *ms < 100 || *ms > 600'000)
    return std::string("expects a duration from 100ms to 10m (e.g. ") + example + "), got \"" + v + "\"";
  out = *ms;
  return "";
}

std::string SetSwitch(bool& out, const std::string& v) {
  auto b = ParseBool(v);
  if (!b) return "expects true or false, got \"" + v + "\"";
  out = *b;
  return "";
}

std::string ApplyWebhookTimeout(DaemonConfig& c, const std::string& v) {
  return SetTimeout(c.webhookTimeoutMillis, v, "10s");
}

std::string ApplyWebhookAllowPrivate(DaemonConfig& c, const std::string& v) {
  return SetSwitch(c.webhookAllowPrivateTargets, v);
}

std::string ApplyWebhookCaFile(DaemonConfig& c, const std::string& v) {
  // Loaded (and reported if unreadable) when livechatd starts.
  c.webhookCaFile = v;
  return "";
}

std::string ApplyGraphqlListen(DaemonConfig& c, const std::string& v) {
  auto hp = ParseHostPort(v);
  if (!hp) return "expects HOST:PORT (e.g. 127.0.0.1:8081), got \"" + v + "\"";
  c.graphqlHost = hp->host;
  c.graphqlPort = hp->port;
  return "";
}

std::string ApplyGraphqlBucket(DaemonConfig& c, const std::string& v) {
  if (!ParseInt<std::int64_t>(v, 1, std::int64_t{1} << 40, &c.graphqlBucket))
    return "expects a number of cost points >= 1, got \"" + v + "\"";
  return "";
}

std::string ApplyGraphqlRefill(DaemonConfig& c, const std::string& v) {
  if (!ParseInt<std::int64_t>(v, 0, std::int64_t{1} << 40, &c.graphqlRefill))
    return "expects cost points per second >= 0, got \"" + v + "\"";
  return "";
}

std::string ApplyMcpOrigin(DaemonConfig& c, const std::string& v) {
  return ForEachListItem(v, [&](const std::string& item) -> std::string {
    if (item.rfind("http://", 0) != 0 && item.rfind("https://", 0) != 0)
      return "expects an origin like https://agent.example.com, got \"" + item + "\"";
    c.mcpAllowedOrigins.push_back(item);
    return "";
  });
}

std::string ApplyWebhookThreads(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 1, 256, &c.webhookThreads)) return "expects a thread count from 1 to 256, got \"" + v + "\"";
  return "";
}

std::string ApplyAdminListen(DaemonConfig& c, const std::string& v) {
  if (v == "none" || v == "off") {
    c.adminPort = -1;
    return "";
  }
  auto hp = ParseHostPort(v);
  if (!hp) return "expects HOST:PORT (e.g. 127.0.0.1:9464) or none, got \"" + v + "\"";
  c.adminHost = hp->host;
  c.adminPort = hp->port;
  return "";
}

std::string ApplyStorefrontOrigin(DaemonConfig& c, const std::string& v) {
  return ForEachListItem(v, [&c](const std::string& item) -> std::string {
    // An Origin header is scheme://host[:port], never a path or a slash.
    const bool scheme = item.rfind("https://", 0) == 0 || item.rfind("http://", 0) == 0;
    const std::size_t hostAt = scheme ? item.find("://") + 3 : 0;
    if (!scheme || hostAt >= item.size() || item.find('/', hostAt) != std::string::npos)
      return "expects an origin like https://shop.example (scheme and host, no path), got \"" + item + "\"";
    c.storefrontOrigins.push_back(item);
    return "";
  });
}

std::string ApplyStorefrontListen(DaemonConfig& c, const std::string& v) {
  auto hp = ParseHostPort(v);
  if (!hp) return "expects HOST:PORT (e.g. 0.0.0.0:8082), got \"" + v + "\"";
  c.storefrontHost = hp->host;
  c.storefrontPort = hp->port;
  return "";
}

std::string ApplyStorefrontThreads(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 1, 20'000, &c.storefrontThreads)) return "expects a thread count from 1 to 20000, got \"" + v + "\"";
  return "";
}

std::string ApplyStorefrontSessionsPerIp(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 1, std::numeric_limits<int>::max(), &c.storefrontSessionsPerIp))
    return "expects a whole number of sessions per minute >= 1, got \"" + v + "\"";
  return "";
}

std::string ApplyEventStreams(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 1, 100'000, &c.eventStreams)) return "expects a number of streams from 1 to 100000, got \"" + v + "\"";
  return "";
}

std::string ApplyEventStreamsPerKey(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 1, 100'000, &c.eventStreamsPerKey))
    return "expects a number of streams from 1 to 100000, got \"" + v + "\"";
  return "";
}

std::string ApplyEventStreamHeartbeat(DaemonConfig& c, const std::string& v) {
  return SetTimeout(c.eventStreamHeartbeatMillis, v, "15s");
}

std::string ApplyEventStreamPoll(DaemonConfig& c, const std::string& v) {
  return SetTimeout(c.eventStreamPollMillis, v, "500ms");
}

std::string ApplyEventStreamLifetime(DaemonConfig& c, const std::string& v) {
  return SetTimeout(c.eventStreamLifetimeMillis, v, "5m");
}

std::string ApplyWriteTimeout(DaemonConfig& c, const std::string& v) { return SetTimeout(c.writeTimeoutMillis, v, "5s"); }
std::string ApplyRequestTimeout(DaemonConfig& c, const std::string& v) {
  return SetTimeout(c.requestTimeoutMillis, v, "30s");
}
std::string ApplyKeepAliveTimeout(DaemonConfig& c, const std::string& v) {
  return SetTimeout(c.keepAliveTimeoutMillis, v, "5s");
}
std::string ApplyMaxConnectionsPerAddress(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 0, 1'000'000, &c.maxConnectionsPerAddress))
    return "expects a number of connections from 0 (no cap) to 1000000, got \"" + v + "\"";
  return "";
}
std::string ApplyMaxConnections(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 1, 1'000'000, &c.maxConnections))
    return "expects a number of connections from 1 to 1000000, got \"" + v + "\"";
  return "";
}

std::string ApplyStorefrontWaiters(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 1, 100'000, &c.storefrontWaiters))
    return "expects a number of waiting polls from 1 to 100000, got \"" + v + "\"";
  return "";
}

std::string ApplyListCache(DaemonConfig& c, const std::string& v) {
  if (!ParseInt(v, 0, 65'536, &c.listCacheMb)) return "expects a size in MiB from 0 to 65536, got \"" + v + "\"";
  return "";
}

std::string ApplyFilesDir(DaemonConfig& c, const std::string& v) {
  if (v.empty()) return "expects a directory path";
  c.filesDir = v;
  return "";
}

std::string ApplyFileUrlSecret(DaemonConfig& c, const std::string& v) {
  // A short secret makes signed URLs guessable in practice.
  if (v.size() < 32) return "expects at least 32 characters (e.g. openssl rand -hex 32)";
  c.fileUrlSecret = v;
  return "";
}

std::string ApplyPublicUrl(DaemonConfig& c, const std::string& v) {
  const bool scheme = v.rfind("https://", 0) == 0 || v.rfind("http://", 0) == 0;
  if (!scheme || v.back() == '/' || v.find('?') != std::string::npos || v.find('#') != std::string::npos)
    return "expects a base URL like https://chat.example.com (no trailing slash), got \"" + v + "\"";
  c.publicUrl = v;
  return "";
}

std::string ApplySummarizerUrl(DaemonConfig& c, const std::string& v) {
  // Checked in full (scheme, host, the private-address rule) when livechatd starts.
  if (v.rfind("https://", 0) != 0 && v.rfind("http://", 0) != 0)
    return "expects an http(s) base url like https://api.openai.com, got \"" + v + "\"";
  c.summarizerUrl = v;
  return "";
}

std::string ApplySummarizerModel(DaemonConfig& c, const std::string& v) {
  if (v.empty()) return "must not be empty";
  c.summarizerModel = v;
  return "";
}

std::string ApplySummarizerApiKeyFile(DaemonConfig& c, const std::string& v) {
  c.summarizerApiKeyFile = v;
  return "";
}

std::string ApplySummarizerTimeout(DaemonConfig& c, const std::string& v) {
  return SetTimeout(c.summarizerTimeoutMillis, v, "20s");
}

std::string ApplySummarizerAllowPrivate(DaemonConfig& c, const std::string& v) {
  return SetSwitch(c.summarizerAllowPrivate, v);
}

std::string ApplySummarizerCaFile(DaemonConfig& c, const std::string& v) {
  c.summarizerCaFile = v;
  return "";
}

std::string ApplyPlatformSecret(DaemonConfig& c, const std::string& v) {
  // Too short to resist guessing is a configuration mistake, not a choice.
  if (v.size() < 16) return "expects the platform app secret (at least 16 characters)";
  c.platformSecret = v;
  return "";
}

const FlagSpec kFlags[] = {
    {"db", "PATH|URL", "./livechat.db",
     "SQLite database file, or a PostgreSQL URL (postgresql://user:password@host:5432/db?sslmode=require) that "
     "several livechatd instances share; created or migrated on start",
     false, ApplyDb},
    {"db-pool", "N", "4",
     "read connections to the database (each request that reads holds one); PostgreSQL adds one write and one "
     "listening connection per instance",
     false, ApplyDbPool},
    {"listen", "HOST:PORT", "127.0.0.1:8080", "address to listen on; port 0 picks a free port", false, ApplyListen},
    {"event-retention-days", "N", "7",
     "days the change feed (GET /chat/events) keeps events; older ones are removed once delivered, and a cursor "
     "before them answers 410",
     false, ApplyEventRetention},
    {"event-streams", "N", "threads / 4",
     "live change feeds (GET /chat/events with Accept: text/event-stream) held at once; each holds a thread, so "
     "more are refused (429, Retry-After) and the REST API keeps the rest",
     false, ApplyEventStreams},
    {"event-streams-per-key", "N", "4", "live change feeds held at once per API key (or admin session)", false,
     ApplyEventStreamsPerKey},
    {"event-stream-heartbeat", "DURATION", "15s",
     "a live change feed sends a comment after this long without an event, keeping proxies from closing it (units "
     "ms, s, m)",
     false, ApplyEventStreamHeartbeat},
    {"event-stream-poll", "DURATION", "500ms",
     "a live change feed reads the database at least this often, for events written by other instances (this "
     "instance's own writes wake it at once)",
     false, ApplyEventStreamPoll},
    {"event-stream-lifetime", "DURATION", "5m",
     "a live change feed ends after this long; the client reconnects with Last-Event-ID (keys revoked meanwhile "
     "are refused then)",
     false, ApplyEventStreamLifetime},
    {"write-timeout", "DURATION", "5s",
     "a client must take each piece of a response within this; a live change feed whose client stops reading is "
     "closed after it, and the client resumes with Last-Event-ID",
     false, ApplyWriteTimeout},
    {"request-timeout", "DURATION", "30s",
     "a request's head and body must arrive within this of its first byte, however steadily a client trickles "
     "them; past it the connection is closed",
     false, ApplyRequestTimeout},
    {"keep-alive-timeout", "DURATION", "5s", "a connection that sends nothing for this long (new, or between requests) "
     "is closed", false, ApplyKeepAliveTimeout},
    {"max-connections-per-address", "N", "64",
     "open connections one source address may hold on each listener; more are answered 429 RATE_LIMITED and "
     "closed. 0: no cap. --trusted-proxy addresses are exempt",
     false, ApplyMaxConnectionsPerAddress},
    {"max-connections", "N", "10000",
     "open connections on each listener; more are answered 503 and closed (keep below the open-files limit)", false,
     ApplyMaxConnections},
    {"demo", nullptr, "off",
     "create a demo store on first start and print its API key and a curl line; "
     "later starts on the same database reuse it (PATH.demo.json)",
     false, ApplyDemo},
    {"rate-limit-key", "N", "120", "requests per minute per API key", false, ApplyRateKey},
    {"rate-limit-ip", "N", "300", "requests per minute per source IP", false, ApplyRateIp},
    {"trusted-proxy", "CIDR", "none",
     "peer whose X-Forwarded-For is believed; repeatable (variable: comma-separated)", true, ApplyTrustedProxy},
    {"threads", "N", "max(64, 8 x cores)",
     "HTTP threads: requests handled at once (an open connection holds none between requests)",
     false, ApplyThreads},
    {"max-body", "BYTES", "1048576", "largest request body; larger bodies get 413 PAYLOAD_TOO_LARGE", false,
     ApplyMaxBody},
    {"access-log", "on|off", "on", "one JSON line per request on stderr", false, ApplyAccessLog},
    {"secure-cookies", nullptr, "off", "mark the admin session cookie Secure (serve behind TLS)", false,
     ApplySecureCookies},
    {"webhook-retry-delays", "D1,...,D6", "10s,1m,5m,30m,2h,6h",
     "waits before webhook delivery attempts 2 to 7 (units ms, s, m, h); the 7th failure disables the "
     "subscription",
     false, ApplyWebhookRetryDelays},
    {"webhook-timeout", "DURATION", "10s", "a webhook receiver must answer within this (units ms, s, m)", false,
     ApplyWebhookTimeout},
    {"webhook-allow-private-targets", nullptr, "off",
     "let webhook urls reach loopback and private addresses: local development and tests only, never in "
     "production",
     false, ApplyWebhookAllowPrivate},
    {"webhook-ca-file", "PATH", "none", "PEM file of extra CA certificates trusted for webhook receivers (besides "
     "the system store)",
     false, ApplyWebhookCaFile},
    {"webhook-threads", "N", "4", "concurrent webhook deliveries (one per subscription at a time)", false,
     ApplyWebhookThreads},
    {"graphql-listen", "HOST:PORT", "none",
     "a second listener serving only POST /graphql (it is always served on --listen too)", false,
     ApplyGraphqlListen},
    {"graphql-bucket", "N", "20000", "GraphQL query-cost budget per API key (token bucket size)", false,
     ApplyGraphqlBucket},
    {"graphql-refill", "N", "1000", "GraphQL cost points restored per second per API key", false,
     ApplyGraphqlRefill},
    {"mcp-allowed-origin", "ORIGIN", "none",
     "browser origin allowed to call POST /mcp (requests without Origin always are); repeatable (variable: "
     "comma-separated)",
     true, ApplyMcpOrigin},
    {"admin-listen", "HOST:PORT|none", "127.0.0.1:9464",
     "the admin listener: GET /metrics (Prometheus), /healthz, /readyz; keep it off public interfaces; "
     "port 0 picks a free port",
     false, ApplyAdminListen},
    {"storefront-origin", "ORIGIN", "any",
     "shop page origin allowed to call /storefront/ from a browser (CORS); repeatable (variable: comma-separated)",
     true, ApplyStorefrontOrigin},
    {"storefront-listen", "HOST:PORT", "none",
     "serve /storefront/, /sdk.js and /demo/ on this listener only, with its own threads, so waiting widgets' polls "
     "never hold the REST listener's threads",
     false, ApplyStorefrontListen},
    {"storefront-threads", "N", "max(64, 8 x cores)", "HTTP threads of --storefront-listen (requests handled at once)",
     false, ApplyStorefrontThreads},
    {"storefront-sessions-per-ip", "N", "30",
     "new storefront visitor sessions per minute per source IP (the widget API has no credential)", false,
     ApplyStorefrontSessionsPerIp},
    {"storefront-waiters", "N", "10000",
     "long-polls of waiting widgets held at once (a waiting poll holds its connection, not a thread); more are "
     "answered at once and retry a second later",
     false, ApplyStorefrontWaiters},
    {"list-cache-mb", "MIB", "64",
     "memory for the conversation list's rows kept as JSON, each by its row's version (0: off; "
     "docs/operations.md)",
     false, ApplyListCache},
    {"files-dir", "DIR", "DB_PATH.files",
     "directory of uploaded files (attachments, logos, avatars, icons, contact imports); back it up with the "
     "database. Required with PostgreSQL: a directory every instance shares (e.g. an NFS mount)",
     false, ApplyFilesDir},
    {"file-url-secret", "SECRET", "DIR/.url-secret",
     "signs attachment URLs (HMAC-SHA256); every livechatd on one database needs the same; at least 32 "
     "characters",
     false, ApplyFileUrlSecret},
    {"public-url", "URL", "none",
     "base of the file URLs in reads and webhooks (https://chat.example.com); none: root-relative /files/...",
     false, ApplyPublicUrl},
    {"summarizer-url", "URL", "none (extractive summaries only)",
     "OpenAI-compatible base url; summaries at resolution are asked of POST URL/v1/chat/completions, and the "
     "extractive summarizer is used whenever it fails. The API key comes from LIVECHAT_SUMMARIZER_API_KEY or "
     "--summarizer-api-key-file",
     false, ApplySummarizerUrl},
    {"summarizer-model", "NAME", "none", "the model named in each request (required with --summarizer-url)", false,
     ApplySummarizerModel},
    {"summarizer-api-key-file", "PATH", "none",
     "file holding the summarizer's API key (sent as a bearer token, never logged); or set the key itself in "
     "LIVECHAT_SUMMARIZER_API_KEY",
     false, ApplySummarizerApiKeyFile},
    {"summarizer-timeout", "DURATION", "20s", "the whole summarizer request, connect to answer (units ms, s, m)",
     false, ApplySummarizerTimeout},
    {"summarizer-allow-private", nullptr, "off",
     "let --summarizer-url reach loopback and private addresses (a local model server), and only then plain http",
     false, ApplySummarizerAllowPrivate},
    {"summarizer-ca-file", "PATH", "none",
     "PEM CA bundle trusted for the summarizer's https endpoint instead of the system store", false,
     ApplySummarizerCaFile},
    {"platform-secret", "SECRET", "none",
     "the e-commerce platform's app secret: /platform/... requests must carry the base64 HMAC-SHA256 of their body "
     "under it (X-Platform-Hmac-Sha256); none: those requests are refused with 401. Prefer the variable to the flag "
     "(a flag shows in the process list)",
     false, ApplyPlatformSecret},
};

const FlagSpec* FindFlag(const std::string& name) {
  for (const auto& f : kFlags)
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace

std::optional<HostPort> ParseHostPort(const std::string& text) {
  HostPort hp;
  std::string portText;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') return std::nullopt;
    hp.host = text.substr(1, close - 1);
    portText = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string::npos) return std::nullopt;
    hp.host = text.substr(0, colon);
    portText = text.substr(colon + 1);
    if (hp.host.find(':') != std::string::npos) return std::nullopt;  // bare IPv6 needs brackets
  }
  if (hp.host.empty() || !ParseInt(portText, 0, 65535, &hp.port)) return std::nullopt;
  return hp;
}

std::optional<std::int64_t> ParseDuration(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 12) return std::nullopt;
  std::int64_t n = 0;
  std::from_chars(text.data(), text.data() + digits, n);
  const std::string unit = text.substr(digits);
  std::int64_t scale = 0;
  if (unit == "ms") scale = 1;
  else if (unit == "s") scale = 1000;
  else if (unit == "m") scale = 60'000;
  else if (unit == "h") scale = 3'600'000;
  else return std::nullopt;
  constexpr std::int64_t kMax = 30LL * 24 * 3'600'000;
  if (n > kMax / scale) return std::nullopt;
  return n * scale;
}

int DefaultThreadCount() {
  int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(64, 8 * cores);
}

ParseResult ParseDaemonArgs(const std::vector<std::string>& args, const EnvLookup& getenv) {
  ParseResult r;
  auto fail = [&r](std::string msg) {
    r.outcome = ParseOutcome::kError;
    r.error = std::move(msg);
    return r;
  };

  for (const auto& f : kFlags) {
    std::string env = EnvName(f.name);
    if (auto v = getenv(env)) {
      std::string err = f.apply(r.config, *v);
      if (!err.empty()) return fail(env + ": " + err);
    }
  }

  bool proxiesFromFlags = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      r.outcome = ParseOutcome::kHelp;
      return r;
    }
    if (arg == "--version") {
      r.outcome = ParseOutcome::kVersion;
      return r;
    }
    if (arg.rfind("--", 0) != 0) return fail("unexpected argument \"" + arg + "\"");
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    const FlagSpec* f = FindFlag(name);
    if (f == nullptr) return fail("unknown flag --" + name);
    if (f->valueName == nullptr) {
      if (!value) value = "true";
    } else if (!value) {
      if (i + 1 >= args.size()) return fail("--" + name + " needs a value (" + f->valueName + ")");
      value = args[++i];
    }
    if (f->repeatable && !proxiesFromFlags) {
      // The first flag replaces what the environment said.
      r.config.trustedProxies.clear();
      proxiesFromFlags = true;
    }
    std::string err = f->apply(r.config, *value);
    if (!err.empty()) return fail("--" + name + ": " + err);
  }
  if (auto key = getenv("LIVECHAT_SUMMARIZER_API_KEY")) r.config.summarizerApiKey = *key;
  const DaemonConfig& c = r.config;
  if (!c.summarizerUrl.empty() && c.summarizerModel.empty())
    return fail("--summarizer-url needs --summarizer-model");
  if (c.summarizerUrl.empty() && !c.summarizerModel.empty())
    return fail("--summarizer-model needs --summarizer-url");
  if (!c.summarizerApiKey.empty() && !c.summarizerApiKeyFile.empty())
    return fail("set the summarizer key once: LIVECHAT_SUMMARIZER_API_KEY or --summarizer-api-key-file, not both");
  // Beside a database server there is no database file to put uploads next
  // to, and every instance must see every upload.
  if (livechat::IsPostgresUrl(c.dbPath) && c.filesDir.empty())
    return fail("--db is a PostgreSQL URL: set --files-dir to a directory every livechatd instance shares");
  return r;
}

std::string DaemonUsage() {
  std::string out =
      "usage: livechatd [FLAGS]\n"
      "\n"
      "The livechat conversations service: the REST API (/chat/..., /api/...),\n"
      "POST /graphql, GET /openapi.json, /healthz and /readyz over HTTP, backed by\n"
      "one SQLite file; /metrics on the admin listener.\n"
      "Every flag can also be set by an environment variable; the flag wins.\n"
      "\n";
  for (const auto& f : kFlags) {
    std::string head = std::string("  --") + f.name;
    if (f.valueName != nullptr) head += std::string(" ") + f.valueName;
    out += head + "\n      " + f.help + "\n      default: " + f.defaultText + "; env: " + EnvName(f.name) +
           (f.valueName == nullptr ? "=1" : "") + "\n";
  }
  out +=
      "  --help       print this text\n"
      "  --version    print the version\n"
      "\n"
      "  LIVECHAT_SUMMARIZER_API_KEY\n"
      "      the summarizer's API key itself (environment only; see --summarizer-api-key-file)\n"
      "\n"
      "Signals: SIGTERM or SIGINT stops accepting, finishes requests and webhook\n"
      "sends in flight, closes the database and exits 0. See docs/operations.md.\n";
  return out;
}

}  // namespace livechatd
