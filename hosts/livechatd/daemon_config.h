// livechatd's configuration: every setting is a flag and an environment
// variable (LIVECHAT_<FLAG>, e.g. --rate-limit-key -> LIVECHAT_RATE_LIMIT_KEY).
// A flag wins over its variable; a repeatable flag given at least once
// replaces the variable's comma-separated list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace livechatd {

struct DaemonConfig {
  // A SQLite file path, or a PostgreSQL URL (postgresql://...).
  std::string dbPath = "./livechat.db";
  int dbPool = 4;  // read connections
  int eventRetentionDays = 7;  // the change feed (GET /chat/events)
  // Its live form (Accept: text/event-stream): streams held at once on the
  // listener (0: a quarter of its threads) and per key, the heartbeat, the
  // store poll (other instances' writes), a stream's longest life.
  int eventStreams = 0;
  int eventStreamsPerKey = 4;
  std::int64_t eventStreamHeartbeatMillis = 15'000;
  std::int64_t eventStreamPollMillis = 500;
  std::int64_t eventStreamLifetimeMillis = 300'000;
  // A client must take each response (each chunk of a live stream) within
  // this; a live stream whose client stops reading ends after it.
  std::int64_t writeTimeoutMillis = 5'000;
  // Every listener: a request's head and body must arrive within
  // requestTimeout of its first byte; a connection silent for
  // keepAliveTimeout is closed; one source address holds at most
  // maxConnectionsPerAddress connections per listener (0: no cap; the
  // trusted proxies are exempt), and a listener at most maxConnections.
  std::int64_t requestTimeoutMillis = 30'000;
  std::int64_t keepAliveTimeoutMillis = 5'000;
  int maxConnectionsPerAddress = 64;
  int maxConnections = 10'000;
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: the kernel picks a free port
  bool demo = false;
  int rateLimitPerKey = 120;
  int rateLimitPerIp = 300;
  std::vector<std::string> trustedProxies;  // CIDR texts, validated by the parser
  int threads = 0;                           // 0: DefaultThreadCount()
  std::size_t maxBodyBytes = 1 << 20;
  bool accessLog = true;
  bool secureCookies = false;
  // Webhook delivery. Six waits after failed attempts 1..6: seven attempts.
  std::vector<std::int64_t> webhookRetryDelaysMillis{10'000, 60'000, 300'000, 1'800'000, 7'200'000, 21'600'000};
  std::int64_t webhookTimeoutMillis = 10'000;
  bool webhookAllowPrivateTargets = false;  // local development and tests only
  std::string webhookCaFile;                // extra CA certificates (PEM); empty: system store only
  int webhookThreads = 4;
  // GraphQL Customer API: POST /graphql on the main listener, and on this one too when set.
  std::string graphqlHost;
  int graphqlPort = -1;  // -1: no second listener
  std::int64_t graphqlBucket = 20'000;
  std::int64_t graphqlRefill = 1'000;
  // Tool server (POST /mcp): browser origins allowed (requests without an
  // Origin header, i.e. server-side agents, always are).
  std::vector<std::string> mcpAllowedOrigins;
  // The admin listener: /metrics, /healthz, /readyz. Loopback by default so
  // metrics never share the public port.
  std::string adminHost = "127.0.0.1";
  int adminPort = 9464;  // -1: none (no /metrics at all)
  // Storefront widget API (/storefront/, /sdk.js): shop origins allowed by
  // CORS (empty: any origin) and how many long-polls may wait at once.
  std::vector<std::string> storefrontOrigins;
  int storefrontWaiters = 0;  // 0: a quarter of the threads of the listener serving the storefront
  // The lists' JSON cache (conversations, messages), MiB in all (0: off).
  int listCacheMb = 64;
  // A listener of its own for the storefront (widgets' connections then never
  // hold the REST listener's threads), with its own thread pool.
  std::string storefrontHost;
  int storefrontPort = -1;    // -1: the storefront is served on --listen
  int storefrontThreads = 0;  // 0: DefaultThreadCount()
  int storefrontSessionsPerIp = 30;  // new visitor sessions per minute per source IP
  // Uploaded files (docs/operations.md, "Files"): where their bytes live
  // (empty: DB_PATH.files beside the database), the secret that signs
  // attachment URLs (empty: DIR/.url-secret, created on first start), and the
  // public base of file URLs in reads (empty: root-relative /files/...).
  std::string filesDir;
  std::string fileUrlSecret;
  std::string publicUrl;
  // Summaries: an OpenAI-compatible endpoint, or (no url) the extractive
  // summarizer only. The key comes from LIVECHAT_SUMMARIZER_API_KEY or a
  // file, never from a flag (flags show in `ps`); it is never logged.
  std::string summarizerUrl;
  std::string summarizerModel;
  std::string summarizerApiKey;      // LIVECHAT_SUMMARIZER_API_KEY
  std::string summarizerApiKeyFile;  // read at start
  std::int64_t summarizerTimeoutMillis = 20'000;
  bool summarizerAllowPrivate = false;
  std::string summarizerCaFile;
  // Platform requests (/platform/...): the app secret their signatures are
  // checked with. Empty: every platform request is refused with 401.
  std::string platformSecret;
};

enum class ParseOutcome { kRun, kHelp, kVersion, kError };

struct ParseResult {
  ParseOutcome outcome = ParseOutcome::kRun;
  DaemonConfig config;
  std::string error;  // kError: what was wrong, for a person to fix
};

// `getenv` is injected so tests (and nothing else) can supply a fake
// environment; it returns empty optional for an unset variable.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
ParseResult ParseDaemonArgs(const std::vector<std::string>& args, const EnvLookup& getenv);

// The --help text: every flag with its default and environment variable.
std::string DaemonUsage();

// The thread pool size when --threads is not given: 64, or 8 per core when
// that is more. A thread is held while a request runs in a handler (a live
// change feed or a waiting storefront poll holds one for long), not while a
// connection is open.
int DefaultThreadCount();

// Splits "HOST:PORT" or "[IPv6]:PORT". Empty optional when malformed.
struct HostPort {
  std::string host;
  int port = 0;
};
std::optional<HostPort> ParseHostPort(const std::string& text);

// "250ms", "10s", "5m", "2h" -> milliseconds. Empty optional when malformed
// (no unit, unknown unit, negative, fractional, or beyond 30 days).
std::optional<std::int64_t> ParseDuration(const std::string& text);

}  // namespace livechatd
