// Helpers shared by the end-to-end test files: JSON checks, livechatctl runs,
// and a livechatd started on a free port. They use doctest's REQUIRE, so a
// failure stops the calling test case.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include <httplib.h>
#include <rapidjson/document.h>

#include "e2e/child_process.h"

namespace e2e {

rapidjson::Document ParseJson(const std::string& text);
// obj[key], which must be a string.
std::string Str(const rapidjson::Value& obj, const char* key);
std::set<std::string> Keys(const rapidjson::Value& obj);
std::string Slurp(const std::string& path);
// The error.code of an error body.
std::string ErrorCodeOf(const std::string& body);

// DB itself, or, when the suite runs on PostgreSQL (LIVECHAT_TEST_BACKEND=
// postgres), the URL of a fresh database standing for that file path (one
// per path, for the whole run). Ctl and StartDaemon pass every --db through it.
std::string DatabaseFor(const std::string& db);

// livechatctl --db DB ARGS...; the command must succeed and print one JSON document.
rapidjson::Document Ctl(const std::string& db, std::vector<std::string> args);

// A running livechatd, stopped with SIGKILL by ~ChildProcess if a test bails out.
struct Daemon {
  std::unique_ptr<ChildProcess> process;
  int port = 0;
  std::string stderrPath;
};

// livechatd --db DB --listen 127.0.0.1:0 EXTRA..., once it prints its port.
Daemon StartDaemon(const TempDir& dir, const std::string& db, const std::vector<std::string>& extra = {});
// SIGTERM; it must exit 0 within 10 s.
void StopDaemon(Daemon& d);

httplib::Client MakeClient(int port);

// The port a running livechatd announced on its line that begins with
// `prefix` ("admin listener on ", "storefront listening on ").
int AnnouncedPort(Daemon& d, const std::string& prefix);
// A series without labels of livechatd's /metrics on its admin listener.
double Metric(int adminPort, const std::string& name);

// "localhost" at the first address it resolves to, the one livechatd's
// resolver (getaddrinfo, same hints) will connect to, so SNI and the
// certificate's DNS name are exercised. 127.0.0.1 if that cannot be bound.
struct Loopback {
  std::string urlHost;
  std::string bindAddress;
};

Loopback FirstLocalhostAddress();

// A TCP socket connected to 127.0.0.1:PORT (the test fails otherwise).
// `rcvbuf` > 0: its receive buffer, set before connecting (a small window
// makes a client that stops reading back up quickly).
int ConnectLoopback(int port, int rcvbuf = 0);

// Writes `request` as is to 127.0.0.1:PORT (what an HTTP client library would
// refuse to send: bad header lines, huge heads) and returns the bytes that
// come back until the connection closes, the response's Content-Length is
// in, or 5 s pass.
std::string RawExchange(int port, const std::string& request);

// Base64 HMAC-SHA256 of `body` under `key` (OpenSSL, independent of the
// server's libsodium): the X-Platform-Hmac-Sha256 of a platform request.
std::string PlatformSignature(const std::string& key, const std::string& body);


}  // namespace e2e
