#include "e2e/e2e_helpers.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <doctest/doctest.h>

#include "livechat/platform.h"
#include "livechat/rest.h"
#include "livechat/postgres_store.h"
#include "support/exchange_recorder.h"
#include "support/test_store.h"

namespace e2e {

using namespace std::chrono_literals;

std::string DatabaseFor(const std::string& db) {
  if (!livechat::testing::TestOnPostgres() || db == ":memory:" || livechat::IsPostgresUrl(db)) return db;
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<livechat::testing::PgTestDatabase>> databases;
  std::lock_guard lock(mu);
  auto& slot = databases[db];
  if (!slot) slot = std::make_unique<livechat::testing::PgTestDatabase>();
  // Where a SQLite store keeps its files by default; a PostgreSQL one needs
  // it named (livechatd --files-dir, livechatctl LIVECHAT_FILES_DIR).
  ::setenv("LIVECHAT_FILES_DIR", (db + ".files").c_str(), 1);
  return slot->url();
}

rapidjson::Document ParseJson(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str());
  INFO("json: " << text);
  REQUIRE_FALSE(d.HasParseError());
  return d;
}

std::string Str(const rapidjson::Value& obj, const char* key) {
  INFO("key: " << key);
  REQUIRE(obj.IsObject());
  auto it = obj.FindMember(key);
  REQUIRE(it != obj.MemberEnd());
  REQUIRE(it->value.IsString());
  return it->value.GetString();
}

std::set<std::string> Keys(const rapidjson::Value& obj) {
  std::set<std::string> out;
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) out.insert(it->name.GetString());
  return out;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string ErrorCodeOf(const std::string& body) {
  auto doc = ParseJson(body);
  REQUIRE(doc.HasMember("error"));
  return Str(doc["error"], "code");
}

rapidjson::Document Ctl(const std::string& db, std::vector<std::string> args) {
  args.insert(args.begin(), {HostBinary("livechatctl"), "--db", DatabaseFor(db)});
  RunResult r = Run(args);
  INFO("livechatctl stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exitCode == 0);
  return ParseJson(r.out);
}

Daemon StartDaemon(const TempDir& dir, const std::string& db, const std::vector<std::string>& extra) {
  Daemon d;
  d.stderrPath = dir.File("livechatd-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) +
                          ".log");
  // An ephemeral admin port: suites run side by side (EXTRA may override it).
  std::vector<std::string> argv = {HostBinary("livechatd"), "--db", DatabaseFor(db), "--listen", "127.0.0.1:0",
                                   "--admin-listen", "127.0.0.1:0"};
  if (argv[2] != db && std::find(extra.begin(), extra.end(), "--files-dir") == extra.end())
    argv.insert(argv.end(), {"--files-dir", db + ".files"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  d.process = std::make_unique<ChildProcess>(argv, d.stderrPath);
  REQUIRE(d.process->started());
  auto line = d.process->WaitForLine("listening on ", 30s);
  INFO("livechatd stderr: " << Slurp(d.stderrPath));
  REQUIRE(line.has_value());
  auto colon = line->rfind(':');
  REQUIRE(colon != std::string::npos);
  d.port = std::stoi(line->substr(colon + 1));
  REQUIRE(d.port > 0);
  CHECK(line->substr(0, colon) == "listening on 127.0.0.1");
  return d;
}

void StopDaemon(Daemon& d) {
  d.process->Signal(SIGTERM);
  auto code = d.process->WaitExit(10s);
  INFO("livechatd stderr: " << Slurp(d.stderrPath));
  REQUIRE(code.has_value());
  CHECK(*code == 0);
}

int AnnouncedPort(Daemon& d, const std::string& prefix) {
  auto line = d.process->WaitForLine(prefix, 5s);
  REQUIRE_MESSAGE(line.has_value(), "livechatd did not print \"" << prefix << "\"");
  const auto colon = line->find(':', line->find("127.0.0.1"));
  REQUIRE(colon != std::string::npos);
  return std::stoi(line->substr(colon + 1));
}

double Metric(int adminPort, const std::string& name) {
  httplib::Client cli = MakeClient(adminPort);
  auto res = cli.Get("/metrics");
  REQUIRE(res);
  REQUIRE(res->status == 200);
  const std::string prefix = "\n" + name + " ";
  const auto at = res->body.find(prefix);
  REQUIRE_MESSAGE(at != std::string::npos, name << " not in /metrics");
  return std::stod(res->body.substr(at + prefix.size()));
}

httplib::Client MakeClient(int port) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5);
  cli.set_read_timeout(10);
  // The contract check (tests/node/openapi) replays what the REST endpoints
  // and probes of a real livechatd answered; GraphQL has its own checks.
  cli.set_logger([](const httplib::Request& req, const httplib::Response& res) {
    const std::string path = req.path.substr(0, req.path.find('?'));
    if (!livechat::RestApi::Owns(path) && !livechat::PlatformApi::Owns(path) && path != "/healthz" &&
        path != "/readyz" && path != "/openapi.json")
      return;
    livechat::HttpRequest in;
    in.method = req.method;
    in.target = req.path;
    livechat::HttpResponse out;
    out.status = res.status;
    for (const auto& [name, value] : res.headers) out.headers.emplace_back(name, value);
    out.body = res.body;
    livechat::testing::RecordExchange(in, out);
  });
  return cli;
}

Loopback FirstLocalhostAddress() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  Loopback out{"127.0.0.1", "127.0.0.1"};
  if (getaddrinfo("localhost", nullptr, &hints, &res) != 0 || res == nullptr) return out;
  char text[INET6_ADDRSTRLEN] = {};
  const void* addr = res->ai_family == AF_INET6
                         ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(res->ai_addr)->sin6_addr)
                         : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr);
  if (inet_ntop(res->ai_family, addr, text, sizeof text) != nullptr) out = {"localhost", text};
  freeaddrinfo(res);
  return out;
}

int ConnectLoopback(int port, int rcvbuf) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  if (rcvbuf > 0) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  return fd;
}

std::string RawExchange(int port, const std::string& request) {
  int fd = ConnectLoopback(port);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  // The server may answer (and close) before it has read all of a refused
  // request; what it answered is still read below.
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    const auto headEnd = out.find("\r\n\r\n");
    if (headEnd == std::string::npos) continue;
    const auto lengthAt = out.find("\r\nContent-Length: ");
    if (lengthAt == std::string::npos || lengthAt > headEnd) continue;
    const std::size_t length = std::stoul(out.substr(lengthAt + 18));
    if (out.size() >= headEnd + 4 + length) break;
  }
  ::close(fd);
  return out;
}

std::string PlatformSignature(const std::string& key, const std::string& body) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(body.data()),
       body.size(), mac, &len);
  std::string b64(4 * ((len + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()), mac, static_cast<int>(len));
  b64.resize(static_cast<std::size_t>(n));
  return b64;
}

}  // namespace e2e
