// Slow and idle clients starve no one. Attackers that trickle header bytes
// (1,000 connections from one address) or sit idle on keep-alive connections
// (5,000 of them from 100 addresses) must not delay a normal client: its
// requests on the API listener and on the storefront listener are answered
// 200 within 1 s (p99) for as long as the attack lasts. The transport's
// limits, each a flag with a sane default and each refusal counted in
// /metrics, are checked at their boundaries: --max-connections-per-address,
// --max-connections, --request-timeout (the whole head and body, not one
// read) and --keep-alive-timeout.
//
// Every client here is a plain POSIX socket, so nothing depends on
// cpp-httplib's client. Loopback is a whole /8: a client bound to 127.0.0.2
// or 127.0.1.x before it connects stands for another machine.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "e2e/e2e_helpers.h"
#include "support/test_store.h"

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

int MillisLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 60'000));
}

// ---- Sockets ---------------------------------------------------------------

// An owned file descriptor, closed when it goes.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() { Reset(); }
  Socket(Socket&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Socket& operator=(Socket&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  int fd() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// A non-blocking socket bound to `source` and connecting to 127.0.0.1:port.
// The local port is chosen at connect (IP_BIND_ADDRESS_NO_PORT), so thousands
// of connections from one address do not run out of ports to bind. Empty,
// with `*error` set, when the connect failed at once.
Socket StartConnect(const std::string& source, int port, int* error) {
  Socket s(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!s) {
    *error = errno;
    return Socket();
  }
  int one = 1;
  ::setsockopt(s.fd(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
  ::setsockopt(s.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, source.c_str(), &from.sin_addr);
  if (::bind(s.fd(), reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) {
    *error = errno;
    return Socket();
  }
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(s.fd(), reinterpret_cast<sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS) {
    *error = errno;
    return Socket();
  }
  return s;
}

// A connected (non-blocking) socket from `source`, or an empty one if the
// connect failed or did not finish by `deadline`.
Socket ConnectFrom(const std::string& source, int port, Clock::time_point deadline) {
  int error = 0;
  Socket s = StartConnect(source, port, &error);
  if (!s) return s;
  pollfd p{s.fd(), POLLOUT, 0};
  if (::poll(&p, 1, MillisLeft(deadline)) != 1) return Socket();
  int soError = 0;
  socklen_t len = sizeof soError;
  if (::getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &soError, &len) != 0 || soError != 0) return Socket();
  return s;
}

bool SendAll(int fd, std::string_view data, Clock::time_point deadline) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, MillisLeft(deadline)) != 1) return false;
  }
  return true;
}

// ---- HTTP/1.1 on the wire ----------------------------------------------------

// `headers`: "Name: value" lines without their CRLF.
std::string Request(const std::string& method, const std::string& target, const std::vector<std::string>& headers,
                    bool close, const std::string& body = "") {
  std::string out = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const std::string& h : headers) out += h + "\r\n";
  if (close) out += "Connection: close\r\n";
  if (method == "POST" || !body.empty()) out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  return out + "\r\n" + body;
}

struct Response {
  bool complete = false;  // a whole response (head and body) arrived
  bool closed = false;    // the server closed the connection (after it, or instead)
  int status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  std::string raw;  // every byte received

  std::string Header(const std::string& lowerName) const {
    auto it = headers.find(lowerName);
    return it == headers.end() ? "" : it->second;
  }
  bool Closes() const { return closed || Header("connection") == "close"; }
};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Parses one response at the start of `buf`: the bytes it takes, 0 while it
// is incomplete. With `eof`, a response without a length ends at the close.
std::size_t ParseResponse(const std::string& buf, bool eof, Response* out) {
  const std::size_t headEnd = buf.find("\r\n\r\n");
  if (headEnd == std::string::npos) return 0;
  Response r;
  std::istringstream head(buf.substr(0, headEnd));
  std::string line;
  std::getline(head, line);
  if (line.rfind("HTTP/1.", 0) != 0 || line.size() < 12) return 0;
  r.status = std::atoi(line.c_str() + 9);
  while (std::getline(head, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    r.headers[Lower(line.substr(0, colon))] = Trim(line.substr(colon + 1));
  }
  std::size_t pos = headEnd + 4;
  if (Lower(r.Header("transfer-encoding")).find("chunked") != std::string::npos) {
    for (;;) {
      const std::size_t lineEnd = buf.find("\r\n", pos);
      if (lineEnd == std::string::npos) return 0;
      const std::size_t size = std::strtoul(buf.c_str() + pos, nullptr, 16);
      pos = lineEnd + 2;
      if (size == 0) {
        const std::size_t trailerEnd = buf.find("\r\n", pos);  // no trailers are expected
        if (trailerEnd == std::string::npos) return 0;
        pos = trailerEnd + 2;
        break;
      }
      if (buf.size() < pos + size + 2) return 0;
      r.body.append(buf, pos, size);
      pos += size + 2;
    }
  } else if (!r.Header("content-length").empty()) {
    const std::size_t length = std::strtoull(r.Header("content-length").c_str(), nullptr, 10);
    if (buf.size() < pos + length) return 0;
    r.body = buf.substr(pos, length);
    pos += length;
  } else if (r.status == 204 || r.status == 304) {
    // no body
  } else {
    if (!eof) return 0;
    r.body = buf.substr(pos);
    pos = buf.size();
  }
  r.complete = true;
  *out = std::move(r);
  return pos;
}

// Reads one response, until it is whole, the server closes the connection,
// or `deadline` passes. A server that closes right after a whole response
// (Connection: close) is seen as closed when its FIN came with the answer.
Response ReadResponse(int fd, Clock::time_point deadline) {
  Response out;
  std::string buf;
  char chunk[16384];
  for (;;) {
    ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n > 0) {
      buf.append(chunk, static_cast<std::size_t>(n));
      Response parsed;
      if (ParseResponse(buf, false, &parsed) > 0) {
        parsed.raw = buf;
        return parsed;
      }
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      out.closed = true;
      ParseResponse(buf, true, &out);
      out.closed = true;
      out.raw = buf;
      return out;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, MillisLeft(deadline)) != 1) {
      out.raw = buf;
      return out;
    }
  }
}

// Sends a request and reads its answer (both within `timeout`).
Response Exchange(const Socket& s, const std::string& request, Millis timeout = 3000ms) {
  const auto deadline = Clock::now() + timeout;
  if (!SendAll(s.fd(), request, deadline)) {
    Response failed;
    failed.closed = true;
    return failed;
  }
  return ReadResponse(s.fd(), deadline);
}

// ---- /metrics ------------------------------------------------------------------

// `name{a="x",b="y"}` with the labels in name order, as Parse renders each series.
std::string Series(const std::string& name, const std::map<std::string, std::string>& labels) {
  std::string out = name;
  if (labels.empty()) return out;
  out += '{';
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) out += ',';
    first = false;
    out += k + "=\"" + v + "\"";
  }
  return out + '}';
}

std::string Refused(const std::string& listener, const std::string& reason) {
  return Series("livechat_http_connections_refused_total", {{"listener", listener}, {"reason", reason}});
}
std::string Timeouts(const std::string& listener) {
  return Series("livechat_http_request_timeouts_total", {{"listener", listener}});
}
std::string OpenConnections(const std::string& listener) {
  return Series("livechat_http_connections_open", {{"listener", listener}});
}

// The Prometheus text of `GET /metrics` on the admin listener, one entry per series.
std::map<std::string, double> Scrape(int adminPort) {
  Socket s = ConnectFrom("127.0.0.1", adminPort, Clock::now() + 3s);
  REQUIRE_MESSAGE(s, "cannot connect to the admin listener");
  Response r = Exchange(s, Request("GET", "/metrics", {}, true), 5000ms);
  REQUIRE(r.complete);
  REQUIRE(r.status == 200);
  std::map<std::string, double> out;
  std::istringstream lines(r.body);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::string name;
    std::map<std::string, std::string> labels;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') name += line[i++];
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        const std::size_t eq = line.find('=', i);
        if (eq == std::string::npos || eq + 1 >= line.size() || line[eq + 1] != '"') break;
        std::string key = Trim(line.substr(i, eq - i));
        std::string value;
        std::size_t j = eq + 2;
        for (; j < line.size() && line[j] != '"'; ++j) {
          if (line[j] == '\\' && j + 1 < line.size()) ++j;
          value += line[j];
        }
        labels[key] = value;
        i = j + 1;
        if (i < line.size() && line[i] == ',') ++i;
      }
      ++i;
    }
    out[Series(name, labels)] = std::strtod(line.c_str() + std::min(i, line.size()), nullptr);
  }
  return out;
}

// A series' value; an absent series is 0 when `absentIsZero` (a counter
// with labels may appear only once it moved), -1 otherwise.
double Metric(const std::map<std::string, double>& scraped, const std::string& series, bool absentIsZero) {
  auto it = scraped.find(series);
  return it != scraped.end() ? it->second : absentIsZero ? 0 : -1;
}

// Scrapes until `series` equals `expected` or `timeout` passes; the last value.
// The server counts a connection closed when it sees the close, a moment
// after the client's close() returns.
double AwaitMetric(int adminPort, const std::string& series, double expected, bool absentIsZero,
                   Millis timeout = 3000ms) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const double value = Metric(Scrape(adminPort), series, absentIsZero);
    if (value == expected || Clock::now() >= deadline) return value;
    std::this_thread::sleep_for(100ms);
  }
}

// ---- The normal client -------------------------------------------------------------

constexpr Millis kRequestTimeout = 3000ms;  // a normal request slower than this counts as unanswered

struct Sample {
  double ms = 0;
  int status = 0;  // 0: no whole answer within kRequestTimeout
};

// One user of one listener, asking the same thing over and over: one request
// on a fresh connection, the next on a kept-alive one (reopened when the
// server closes it), 20 ms apart. Runs on its own thread; joined on Stop or
// when it goes.
class NormalClient {
 public:
  NormalClient(std::string listener, int port, std::string target, std::vector<std::string> headers)
      : listener_(std::move(listener)), port_(port), target_(std::move(target)), headers_(std::move(headers)) {}
  ~NormalClient() { Stop(); }
  NormalClient(const NormalClient&) = delete;
  NormalClient& operator=(const NormalClient&) = delete;

  void Start(Clock::duration runFor) {
    const auto until = Clock::now() + runFor;
    thread_ = std::thread([this, until] { Run(until); });
  }
  // Waits for the run to end.
  void Join() {
    if (thread_.joinable()) thread_.join();
  }
  void Stop() {
    stop_ = true;
    Join();
  }
  const std::string& listener() const { return listener_; }
  // After Join.
  const std::vector<Sample>& samples() const { return samples_; }
  int reused() const { return reused_; }

 private:
  void Run(Clock::time_point until) {
    bool keepAlive = false;
    while (!stop_ && Clock::now() < until) {
      samples_.push_back(keepAlive ? KeptAlive() : Fresh());
      keepAlive = !keepAlive;
      std::this_thread::sleep_for(20ms);
    }
    kept_.Reset();
  }

  Sample Fresh() {
    const auto start = Clock::now();
    const auto deadline = start + kRequestTimeout;
    Response r;
    Socket s = ConnectFrom("127.0.0.1", port_, deadline);
    if (s && SendAll(s.fd(), Request("GET", target_, headers_, true), deadline)) r = ReadResponse(s.fd(), deadline);
    return {MillisSince(start), r.complete ? r.status : 0};
  }

  Sample KeptAlive() {
    const auto start = Clock::now();
    const auto deadline = start + kRequestTimeout;
    // A kept-alive connection the server closed just before this request
    // is retried once on a new one, as every HTTP client does.
    for (int attempt = 0; attempt < 2; ++attempt) {
      const bool reusing = static_cast<bool>(kept_);
      if (!kept_) kept_ = ConnectFrom("127.0.0.1", port_, deadline);
      if (!kept_) break;
      Response r;
      if (SendAll(kept_.fd(), Request("GET", target_, headers_, false), deadline))
        r = ReadResponse(kept_.fd(), deadline);
      if (r.complete) {
        if (reusing) ++reused_;
        if (r.Closes()) kept_.Reset();
        return {MillisSince(start), r.status};
      }
      kept_.Reset();
      if (!reusing || !r.raw.empty() || !r.closed) break;
    }
    return {MillisSince(start), 0};
  }

  const std::string listener_;
  const int port_;
  const std::string target_;
  const std::vector<std::string> headers_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  Socket kept_;
  std::vector<Sample> samples_;
  int reused_ = 0;
};

struct Latency {
  std::size_t requests = 0;
  double p50 = 0, p99 = 0, max = 0;
  std::size_t not200 = 0;
  std::map<int, int> statuses;
};

Latency Summarize(const std::vector<Sample>& samples) {
  Latency out;
  out.requests = samples.size();
  if (samples.empty()) return out;
  std::vector<double> ms;
  for (const Sample& s : samples) {
    ms.push_back(s.ms);
    ++out.statuses[s.status];
    if (s.status != 200) ++out.not200;
  }
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) {
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(ms.size())));
    return ms[std::clamp<std::size_t>(rank, 1, ms.size()) - 1];
  };
  out.p50 = at(0.50);
  out.p99 = at(0.99);
  out.max = ms.back();
  return out;
}

// The p99 the normal client is held to: 1 s, the requirement. Under
// scripts/test-sanitizers.sh (LIVECHAT_TEST_SANITIZED=1) every instruction
// costs several times more and the suite runs beside another test, so that
// run holds it to 3 s: it is there to find memory and thread errors under
// this load, and the timing requirement is checked by the optimized build.
double P99LimitMillis() { return std::getenv("LIVECHAT_TEST_SANITIZED") ? 3000.0 : 1000.0; }

// Prints the normal client's latencies and holds them to the requirement:
// every request answered 200, p99 under 1 s.
void CheckAnsweredPromptly(const NormalClient& client, const std::string& attack) {
  const Latency l = Summarize(client.samples());
  std::ostringstream statuses;
  for (const auto& [status, count] : l.statuses) statuses << " " << status << "x" << count;
  MESSAGE(attack << ", normal client on the " << client.listener() << " listener: " << l.requests
                 << " requests (fresh and kept-alive connections alternately, " << client.reused()
                 << " on a reused connection), p50 " << l.p50 << " ms, p99 " << l.p99 << " ms, max " << l.max
                 << " ms; statuses (0: no answer within 3 s):" << statuses.str());
  INFO("the " << client.listener() << " listener under " << attack);
  CHECK(l.requests >= 20);
  CHECK(l.not200 == 0);
  CHECK(l.p99 < P99LimitMillis());
}

// ---- The attackers -------------------------------------------------------------------

enum class Attack {
  kTrickleHeads,   // each connection sends one byte of a request head every 1-2 s, never finishing it
  kIdleKeepAlive,  // each connection sends one whole request, reads the answer, then sends nothing
};

// What happened to one listener's attacking connections (read while the
// swarm runs).
struct SwarmCounts {
  std::atomic<int> connected{0};        // connects that completed
  std::atomic<int> connectFailures{0};  // connects refused or failed
  std::atomic<int> open{0};             // connected and not (yet) closed by the server
  std::atomic<int> idle{0};             // kIdleKeepAlive: answered 200 and now idle
  std::atomic<int> peakIdle{0};
  std::atomic<int> answered200{0};
  std::atomic<int> refused429{0};
  std::atomic<int> refused503{0};
  std::atomic<int> otherAnswers{0};
  std::atomic<int> closedByServer{0};
  std::atomic<int> reopened{0};
};

// A copy of SwarmCounts at one moment, for checks and messages.
struct SwarmSnapshot {
  int connected, connectFailures, open, idle, peakIdle, answered200, refused429, refused503, otherAnswers,
      closedByServer, reopened;
};

SwarmSnapshot Snapshot(const SwarmCounts& c) {
  return {c.connected.load(),    c.connectFailures.load(), c.open.load(),         c.idle.load(),
          c.peakIdle.load(),     c.answered200.load(),     c.refused429.load(),   c.refused503.load(),
          c.otherAnswers.load(), c.closedByServer.load(),  c.reopened.load()};
}

// Many connections driven by one thread with poll(). A connection the server
// closes is reopened after 10 ms when `reopen`, else left closed. Stop (or the
// destructor) joins the thread and closes every socket.
class Swarm {
 public:
  struct Target {
    std::string source;  // the local address to bind
    int port = 0;
    int listener = 0;  // index of its SwarmCounts
  };

  Swarm(Attack attack, std::vector<Target> targets, int listeners, bool reopen) : attack_(attack), reopen_(reopen) {
    for (int i = 0; i < listeners; ++i) counts_.push_back(std::make_unique<SwarmCounts>());
    slots_.reserve(targets.size());
    unsigned n = 0;
    for (Target& t : targets) {
      Slot s;
      s.target = std::move(t);
      s.jitter = (n++ * 2654435761u) >> 7;
      slots_.push_back(std::move(s));
    }
  }
  ~Swarm() { Stop(); }
  Swarm(const Swarm&) = delete;
  Swarm& operator=(const Swarm&) = delete;

  void Start() {
    thread_ = std::thread([this] { Run(); });
  }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    slots_.clear();
  }
  SwarmSnapshot counts(int listener) const { return Snapshot(*counts_[static_cast<std::size_t>(listener)]); }
  std::string errors() const {
    std::lock_guard lock(mu_);
    return errors_;
  }

 private:
  enum class State { kPending, kConnecting, kAwaiting, kIdle, kTrickling, kDone };
  struct Slot {
    Target target;
    Socket socket;
    State state = State::kPending;
    std::string in;
    std::size_t sent = 0;
    Clock::time_point next;
    unsigned jitter = 0;
  };

  SwarmCounts& C(const Slot& s) { return *counts_[static_cast<std::size_t>(s.target.listener)]; }

  void Note(const std::string& what) {
    std::lock_guard lock(mu_);
    if (errors_.size() < 2000) errors_ += what + "\n";
  }

  // The head it trickles never ends: a header value that grows one byte at a time.
  static char TrickleByte(std::size_t i) {
    static const std::string kStart = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    return i < kStart.size() ? kStart[i] : 'a';
  }

  void Run() {
    const auto start = Clock::now();
    for (Slot& s : slots_) s.next = start;
    std::vector<pollfd> fds;
    std::vector<std::size_t> owners;
    fds.reserve(slots_.size());
    owners.reserve(slots_.size());
    while (!stop_) {
      auto now = Clock::now();
      int opens = 200;  // connects started per round, so polling goes on while thousands open
      for (Slot& s : slots_) {
        if (s.state == State::kPending && s.next <= now && opens > 0) {
          --opens;
          Open(s, now);
        } else if (s.state == State::kTrickling && s.next <= now) {
          TrickleOne(s, now);
        }
      }
      fds.clear();
      owners.clear();
      for (std::size_t i = 0; i < slots_.size(); ++i) {
        const State st = slots_[i].state;
        short events = st == State::kConnecting ? POLLOUT
                       : (st == State::kAwaiting || st == State::kIdle || st == State::kTrickling) ? POLLIN
                                                                                                    : 0;
        if (events == 0) continue;
        fds.push_back({slots_[i].socket.fd(), events, 0});
        owners.push_back(i);
      }
      if (::poll(fds.data(), fds.size(), 20) <= 0) continue;
      now = Clock::now();
      for (std::size_t k = 0; k < fds.size(); ++k)
        if (fds[k].revents != 0) OnEvent(slots_[owners[k]], now);
    }
  }

  void Open(Slot& s, Clock::time_point now) {
    int error = 0;
    s.socket = StartConnect(s.target.source, s.target.port, &error);
    s.in.clear();
    s.sent = 0;
    if (!s.socket) {
      ++C(s).connectFailures;
      Note("connect from " + s.target.source + ": " + std::strerror(error));
      s.state = reopen_ ? State::kPending : State::kDone;
      s.next = now + 200ms;
      return;
    }
    s.state = State::kConnecting;
  }

  void OnEvent(Slot& s, Clock::time_point now) {
    if (s.state == State::kConnecting) {
      int soError = 0;
      socklen_t len = sizeof soError;
      if (::getsockopt(s.socket.fd(), SOL_SOCKET, SO_ERROR, &soError, &len) != 0 || soError != 0) {
        ++C(s).connectFailures;
        Note("connect from " + s.target.source + ": " + std::strerror(soError));
        s.socket.Reset();
        s.state = reopen_ ? State::kPending : State::kDone;
        s.next = now + 200ms;
        return;
      }
      ++C(s).connected;
      ++C(s).open;
      if (attack_ == Attack::kIdleKeepAlive) {
        const std::string req = Request("GET", "/healthz", {}, false);
        if (::send(s.socket.fd(), req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) {
          Closed(s, now);
          return;
        }
        s.state = State::kAwaiting;
      } else {
        s.state = State::kTrickling;
        s.next = now + 200ms + Millis(s.jitter % 1000);
      }
      return;
    }
    if (Drain(s)) Closed(s, now);
  }

  // Reads what arrived and counts the answers in it; true when the server
  // closed the connection.
  bool Drain(Slot& s) {
    bool eof = false;
    char buf[4096];
    for (;;) {
      ssize_t n = ::recv(s.socket.fd(), buf, sizeof buf, 0);
      if (n > 0) {
        if (s.in.size() < 65536) s.in.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n < 0 && errno == EINTR) continue;
      eof = true;
      break;
    }
    for (;;) {
      Response r;
      const std::size_t used = ParseResponse(s.in, eof, &r);
      if (used == 0) break;
      s.in.erase(0, used);
      if (r.status == 200) {
        ++C(s).answered200;
        if (s.state == State::kAwaiting) {
          s.state = State::kIdle;
          const int idle = ++C(s).idle;
          int peak = C(s).peakIdle.load();
          while (idle > peak && !C(s).peakIdle.compare_exchange_weak(peak, idle)) {
          }
        }
      } else if (r.status == 429) {
        ++C(s).refused429;
      } else if (r.status == 503) {
        ++C(s).refused503;
      } else {
        ++C(s).otherAnswers;
        Note("answered " + std::to_string(r.status) + ": " + r.body.substr(0, 200));
      }
    }
    return eof;
  }

  void Closed(Slot& s, Clock::time_point now) {
    if (s.state == State::kIdle) --C(s).idle;
    --C(s).open;
    ++C(s).closedByServer;
    s.socket.Reset();
    if (reopen_) {
      ++C(s).reopened;
      s.state = State::kPending;
      s.next = now + 10ms;
    } else {
      s.state = State::kDone;
    }
  }

  void TrickleOne(Slot& s, Clock::time_point now) {
    const char c = TrickleByte(s.sent);
    ssize_t n = ::send(s.socket.fd(), &c, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n == 1) {
      ++s.sent;
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      Drain(s);  // whatever the server answered before it closed
      Closed(s, now);
      return;
    }
    s.next = now + 1000ms + Millis(s.jitter % 1000);
  }

  const Attack attack_;
  const bool reopen_;
  std::vector<std::unique_ptr<SwarmCounts>> counts_;
  std::vector<Slot> slots_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::string errors_;
};

// ---- The daemon ---------------------------------------------------------------------

// Thousands of sockets on each side: the soft limit on open files goes up to
// the hard one (at most 65536), and livechatd, started after, inherits it.
void RaiseFileLimit(rlim_t needed) {
  rlimit lim{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &lim) == 0);
  const rlim_t wanted = std::max<rlim_t>(needed, 65536);
  const rlim_t target = lim.rlim_max == RLIM_INFINITY ? wanted : std::min(lim.rlim_max, wanted);
  if (lim.rlim_cur < target) {
    lim.rlim_cur = target;
    REQUIRE(::setrlimit(RLIMIT_NOFILE, &lim) == 0);
  }
  INFO("open files allowed: " << lim.rlim_cur << " (hard limit " << lim.rlim_max << ")");
  REQUIRE(lim.rlim_cur >= needed);
}

int PortOf(e2e::Daemon& d, const std::string& linePrefix) {
  auto line = d.process->WaitForLine(linePrefix, 5s);
  INFO("livechatd stderr: " << e2e::Slurp(d.stderrPath));
  REQUIRE(line.has_value());
  return std::stoi(line->substr(line->rfind(':') + 1));
}

// A store with an API key and a visitor session: what the normal client asks
// for on each listener.
struct Shop {
  std::string apiKey;
  std::string appId;
};

Shop MakeShop(const std::string& db) {
  auto shop = e2e::Ctl(db, {"store", "create", "--name", "Shop", "--plan", "pro"});
  auto key = e2e::Ctl(db, {"key", "create", "--store", e2e::Str(shop, "id"), "--name", "k", "--permissions",
                           "read_conversations,manage_conversations"});
  return {e2e::Str(key, "key"), e2e::Str(shop, "appId")};
}

// The listeners under attack, and the normal client's requests on them.
struct Site {
  e2e::Daemon daemon;
  int apiPort = 0;
  int storefrontPort = 0;
  int adminPort = 0;
  std::string apiRequestTarget = "/chat/conversations?limit=1";
  std::vector<std::string> apiHeaders;
  std::string storefrontTarget = "/storefront/session";
  std::vector<std::string> storefrontHeaders;
};

// livechatd with the transport's defaults, a storefront listener of its own
// and per-key and per-IP request windows wide enough for a client that asks
// all the time (the rate limits are not what is tested here). The normal
// client's two requests are checked to answer 200 before any attack.
void StartSite(Site& site, const e2e::TempDir& dir, const std::vector<std::string>& extraFlags = {}) {
  const std::string db = dir.File("site.db");
  const Shop shop = MakeShop(db);
  std::vector<std::string> flags = {"--storefront-listen", "127.0.0.1:0", "--rate-limit-key", "100000000",
                                    "--rate-limit-ip", "100000000"};
  flags.insert(flags.end(), extraFlags.begin(), extraFlags.end());
  site.daemon = e2e::StartDaemon(dir, db, flags);
  site.apiPort = site.daemon.port;
  site.storefrontPort = PortOf(site.daemon, "storefront listening on ");
  site.adminPort = PortOf(site.daemon, "admin listener on ");
  site.apiHeaders = {"X-Api-Key: " + shop.apiKey};

  Socket s = ConnectFrom("127.0.0.1", site.storefrontPort, Clock::now() + 3s);
  REQUIRE(s);
  Response started = Exchange(s, Request("POST", "/storefront/sessions", {"X-App-Id: " + shop.appId}, true));
  REQUIRE(started.complete);
  REQUIRE_MESSAGE(started.status == 201, started.body);
  const std::string token = e2e::Str(e2e::ParseJson(started.body)["data"], "token");
  site.storefrontHeaders = {"X-App-Id: " + shop.appId, "X-Session-Token: " + token};

  for (const auto& probe : {std::tuple{site.apiPort, site.apiRequestTarget, site.apiHeaders},
                            std::tuple{site.storefrontPort, site.storefrontTarget, site.storefrontHeaders}}) {
    // Not a structured binding: clang 14 cannot capture one in CAPTURE's lambda.
    const std::string& target = std::get<1>(probe);
    CAPTURE(target);
    Socket c = ConnectFrom("127.0.0.1", std::get<0>(probe), Clock::now() + 3s);
    REQUIRE(c);
    Response r = Exchange(c, Request("GET", target, std::get<2>(probe), true));
    REQUIRE(r.complete);
    REQUIRE_MESSAGE(r.status == 200, r.body);
  }
}

bool HeavyCasesRun() {
  if (!livechat::testing::TestOnPostgres()) return true;
  MESSAGE("skipped on PostgreSQL: thousands of connections against the HTTP transport, which is the same on both "
          "backends; the SQLite run (ctest e2e) holds it");
  return false;
}

constexpr auto kAttackFor = 8s;

// Starts the attack, then measures the normal clients on both listeners for
// kAttackFor while it runs; the attack is still on when this returns.
void AttackWhileMeasuring(Swarm& swarm, NormalClient& api, NormalClient& storefront) {
  swarm.Start();
  api.Start(kAttackFor);
  storefront.Start(kAttackFor);
  api.Join();
  storefront.Join();
}

}  // namespace

TEST_CASE("slow clients: 1,000 connections per listener trickling header bytes from one address starve no one") {
  if (!HeavyCasesRun()) return;
  RaiseFileLimit(4096);
  e2e::TempDir dir;
  Site site;
  StartSite(site, dir);

  constexpr int kPerListener = 1000;
  constexpr int kCap = 64;  // --max-connections-per-address's default
  std::vector<Swarm::Target> targets;
  for (int i = 0; i < kPerListener; ++i) {
    targets.push_back({"127.0.0.2", site.apiPort, 0});
    targets.push_back({"127.0.0.2", site.storefrontPort, 1});
  }
  {
    Swarm swarm(Attack::kTrickleHeads, std::move(targets), 2, /*reopen=*/false);
    NormalClient api("api", site.apiPort, site.apiRequestTarget, site.apiHeaders);
    NormalClient storefront("storefront", site.storefrontPort, site.storefrontTarget, site.storefrontHeaders);
    AttackWhileMeasuring(swarm, api, storefront);

    // The attack is still on: the normal client's answers above came while it lasted.
    INFO("attackers' errors: " << swarm.errors());
    for (int listener : {0, 1}) {
      const SwarmSnapshot c = swarm.counts(listener);
      const std::string name = listener == 0 ? "api" : "storefront";
      MESSAGE("trickling heads on the " << name << " listener: " << c.connected << " connected, " << c.open
                                        << " still open and trickling, " << c.refused429 << " answered 429, "
                                        << c.closedByServer << " closed by the server, " << c.connectFailures
                                        << " connects failed");
      CAPTURE(name);
      CHECK(c.connectFailures == 0);
      CHECK(c.connected == kPerListener);
      CHECK(c.open == kCap);  // the first 64 hold on (the request deadline is 30 s)...
      CHECK(c.refused429 == kPerListener - kCap);  // ...and the rest were refused at once
      CHECK(c.closedByServer == kPerListener - kCap);
      CHECK(c.otherAnswers == 0);
    }
    for (const std::string listener : {"api", "storefront"}) {
      CAPTURE(listener);
      CHECK(AwaitMetric(site.adminPort, Refused(listener, "per_address"), kPerListener - kCap, false) ==
            kPerListener - kCap);
      CHECK(AwaitMetric(site.adminPort, OpenConnections(listener), kCap, false) == kCap);
    }
    const auto scraped = Scrape(site.adminPort);
    for (const std::string listener : {"api", "storefront"}) {
      CAPTURE(listener);
      CHECK(Metric(scraped, Refused(listener, "capacity"), true) == 0);
      CHECK(Metric(scraped, Timeouts(listener), true) == 0);
    }
    CheckAnsweredPromptly(api, "1,000 connections trickling heads from 127.0.0.2");
    CheckAnsweredPromptly(storefront, "1,000 connections trickling heads from 127.0.0.2");
  }
  e2e::StopDaemon(site.daemon);
}

TEST_CASE("idle clients: 5,000 idle keep-alive connections per listener from 100 addresses starve no one") {
  if (!HeavyCasesRun()) return;
  constexpr int kAddresses = 100;
  constexpr int kPerAddress = 50;  // under --max-connections-per-address's default of 64
  constexpr int kPerListener = kAddresses * kPerAddress;
  RaiseFileLimit(2 * kPerListener + 1024);
  e2e::TempDir dir;
  Site site;
  // The optimized run keeps the default --keep-alive-timeout (5 s): the server
  // closes the 5,000 together and the swarm reopens them together while the
  // normal client is measured. Under the sanitizers a wave of 5,000 reopenings
  // can outlast those 5 s (CI, 2026-11-28: 4,942 and 4,709 of 5,000 the most
  // ever open at once), so the gauge could never show them all; that run keeps
  // them open through the whole case instead. It is there to find memory
  // errors under this load; the timeout itself is checked under the sanitizers
  // too, by the --keep-alive-timeout case.
  const bool sanitized = std::getenv("LIVECHAT_TEST_SANITIZED") != nullptr;
  StartSite(site, dir, sanitized ? std::vector<std::string>{"--keep-alive-timeout", "60s"} : std::vector<std::string>{});

  std::vector<Swarm::Target> targets;
  for (int n = 0; n < kPerAddress; ++n)
    for (int a = 1; a <= kAddresses; ++a) {
      const std::string source = "127.0.1." + std::to_string(a);
      targets.push_back({source, site.apiPort, 0});
      targets.push_back({source, site.storefrontPort, 1});
    }
  {
    // The server closes each after --keep-alive-timeout (5 s; 60 s under the
    // sanitizers); the attacker opens it again at once, and asks again.
    Swarm swarm(Attack::kIdleKeepAlive, std::move(targets), 2, /*reopen=*/true);
    NormalClient api("api", site.apiPort, site.apiRequestTarget, site.apiHeaders);
    NormalClient storefront("storefront", site.storefrontPort, site.storefrontTarget, site.storefrontHeaders);
    AttackWhileMeasuring(swarm, api, storefront);

    INFO("attackers' errors: " << swarm.errors());
    for (int listener : {0, 1}) {
      const SwarmSnapshot c = swarm.counts(listener);
      const std::string name = listener == 0 ? "api" : "storefront";
      MESSAGE("idle keep-alive on the " << name << " listener: " << c.connected << " connects, "
                                        << c.answered200 << " answered 200, peak " << c.peakIdle
                                        << " idle at once, " << c.idle << " idle now, " << c.closedByServer
                                        << " closed by the server and reopened, " << c.refused429 << " 429, "
                                        << c.refused503 << " 503, " << c.connectFailures << " connects failed");
      CAPTURE(name);
      CHECK(c.peakIdle == kPerListener);  // the attack reached its full strength
      CHECK(c.connectFailures == 0);
      CHECK(c.refused429 == 0);
      CHECK(c.refused503 == 0);
      CHECK(c.otherAnswers == 0);
    }
    // The 5,000 are closed together by the keep-alive timeout and reopened
    // together, so the gauge dips in waves. Wait through two whole cycles.
    for (const std::string listener : {"api", "storefront"}) {
      CAPTURE(listener);
      CHECK(AwaitMetric(site.adminPort, OpenConnections(listener), kPerListener, false, 12000ms) == kPerListener);
    }
    const auto scraped = Scrape(site.adminPort);
    for (const std::string listener : {"api", "storefront"}) {
      CAPTURE(listener);
      CHECK(Metric(scraped, Refused(listener, "per_address"), true) == 0);
      CHECK(Metric(scraped, Refused(listener, "capacity"), true) == 0);
      CHECK(Metric(scraped, Timeouts(listener), true) == 0);
    }
    CheckAnsweredPromptly(api, "5,000 idle keep-alive connections from 127.0.1.1-100");
    CheckAnsweredPromptly(storefront, "5,000 idle keep-alive connections from 127.0.1.1-100");
  }
  e2e::StopDaemon(site.daemon);
}

namespace {

Socket Connected(const std::string& source, int port) {
  Socket s = ConnectFrom(source, port, Clock::now() + 3s);
  INFO("connect from " << source << " to port " << port);
  REQUIRE(s);
  return s;
}

const std::string kHealthz = Request("GET", "/healthz", {}, false);

// A kept-alive request on `s` answered 200, the connection left open.
void CheckServed(const Socket& s) {
  Response r = Exchange(s, kHealthz);
  INFO("received: " << r.raw);
  CHECK(r.complete);
  CHECK(r.status == 200);
  CHECK_FALSE(r.Closes());
}

// Waits for the server to close `s`: whether it did within `timeout`, when
// (counted from `from`), and any bytes it sent first.
struct Closure {
  bool closed = false;
  double afterMs = 0;
  std::string received;
};

Closure AwaitClose(const Socket& s, Clock::time_point from, Millis timeout) {
  Closure out;
  const auto deadline = Clock::now() + timeout;
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(s.fd(), buf, sizeof buf, 0);
    if (n > 0) {
      out.received.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      out.closed = true;
      out.afterMs = MillisSince(from);
      return out;
    }
    pollfd p{s.fd(), POLLIN, 0};
    if (::poll(&p, 1, MillisLeft(deadline)) != 1) return out;
  }
}

// Sends `text` one byte every `every`, from the first byte on, until the
// server closes the connection or `timeout` passes; `from` is when the
// request began.
Closure Trickle(const Socket& s, const std::string& text, Millis every, Clock::time_point from, Millis timeout) {
  Closure out;
  std::size_t next = 0;
  while (MillisSince(from) < static_cast<double>(timeout.count())) {
    if (next < text.size()) {
      if (::send(s.fd(), text.data() + next, 1, MSG_NOSIGNAL) == 1) {
        ++next;
      } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
        Closure rest = AwaitClose(s, from, 0ms);  // a reset: whatever came before it
        rest.closed = true;
        rest.received = out.received + rest.received;
        return rest;
      }
    }
    Closure waited = AwaitClose(s, from, every);
    out.received += waited.received;
    if (waited.closed) {
      waited.received = out.received;
      return waited;
    }
  }
  return out;
}

void CheckRefusedAtOnce(const Socket& s, int status) {
  const auto start = Clock::now();
  Response r = ReadResponse(s.fd(), start + 3s);  // nothing sent: the answer comes on connect
  INFO("received: " << r.raw);
  REQUIRE(r.complete);
  CHECK(MillisSince(start) < 1000.0);
  CHECK(r.status == status);
  CHECK(r.Header("retry-after") == "1");
  CHECK(Lower(r.Header("connection")) == "close");
  CHECK(r.Header("content-type").rfind("application/json", 0) == 0);
  const std::string code = e2e::ErrorCodeOf(r.body);
  if (status == 429) {
    CHECK(code == "RATE_LIMITED");
  } else {
    CHECK_FALSE(code.empty());
  }
  CHECK(AwaitClose(s, start, 2000ms).closed);
}

}  // namespace

TEST_CASE("--max-connections-per-address: one address past the cap is answered 429 at once, per listener; "
          "trusted proxies are exempt") {
  e2e::TempDir dir;
  e2e::Daemon daemon = e2e::StartDaemon(dir, dir.File("cap.db"),
                                        {"--max-connections-per-address", "3", "--trusted-proxy", "127.0.0.6/32",
                                         "--storefront-listen", "127.0.0.1:0"});
  const int adminPort = PortOf(daemon, "admin listener on ");
  const int storefrontPort = PortOf(daemon, "storefront listening on ");
  {
    std::vector<Socket> three;
    for (int i = 0; i < 3; ++i) {
      three.push_back(Connected("127.0.0.3", daemon.port));
      CheckServed(three.back());
    }
    // Another address, and the same address on another listener, are not
    // held to 127.0.0.3's count on the API listener.
    Socket neighbour = Connected("127.0.0.4", daemon.port);
    CheckServed(neighbour);
    Socket elsewhere = Connected("127.0.0.3", storefrontPort);
    CheckServed(elsewhere);

    Socket fourth = Connected("127.0.0.3", daemon.port);
    CheckRefusedAtOnce(fourth, 429);

    // One of the three goes: a new one from the address is let in. The
    // server must have seen the close first (3 open: two of 127.0.0.3's and
    // the neighbour's).
    three.erase(three.begin());
    CHECK(AwaitMetric(adminPort, OpenConnections("api"), 3, false) == 3);
    Socket again = Connected("127.0.0.3", daemon.port);
    CheckServed(again);

    // A trusted proxy carries many clients: never capped.
    std::vector<Socket> proxied;
    for (int i = 0; i < 6; ++i) {
      proxied.push_back(Connected("127.0.0.6", daemon.port));
      CheckServed(proxied.back());
    }
    CheckServed(three.front());  // the first ones are still served

    const auto scraped = Scrape(adminPort);
    CHECK(Metric(scraped, Refused("api", "per_address"), false) == 1);
    CHECK(Metric(scraped, Refused("api", "capacity"), true) == 0);
    CHECK(Metric(scraped, Refused("storefront", "per_address"), true) == 0);
    CHECK(Metric(scraped, OpenConnections("api"), false) == 2 + 1 + 1 + 6);
  }
  e2e::StopDaemon(daemon);
}

TEST_CASE("--max-connections: past the listener's cap a connection is answered 503 at once") {
  e2e::TempDir dir;
  e2e::Daemon daemon = e2e::StartDaemon(dir, dir.File("capacity.db"), {"--max-connections", "4"});
  const int adminPort = PortOf(daemon, "admin listener on ");
  {
    std::vector<Socket> four;
    for (int i = 0; i < 4; ++i) {
      four.push_back(Connected("127.0.0." + std::to_string(7 + i), daemon.port));
      CheckServed(four.back());
    }
    Socket fifth = Connected("127.0.0.11", daemon.port);
    CheckRefusedAtOnce(fifth, 503);
    four.pop_back();
    CHECK(AwaitMetric(adminPort, OpenConnections("api"), 3, false) == 3);
    Socket again = Connected("127.0.0.11", daemon.port);
    CheckServed(again);

    const auto scraped = Scrape(adminPort);
    CHECK(Metric(scraped, Refused("api", "capacity"), false) == 1);
    CHECK(Metric(scraped, Refused("api", "per_address"), true) == 0);
  }
  e2e::StopDaemon(daemon);
}

TEST_CASE("--request-timeout: a head or a body trickled however steadily is cut off at the deadline, unanswered") {
  e2e::TempDir dir;
  const std::string db = dir.File("deadline.db");
  const Shop shop = MakeShop(db);
  e2e::Daemon daemon = e2e::StartDaemon(dir, db, {"--request-timeout", "1000ms"});
  const int adminPort = PortOf(daemon, "admin listener on ");
  {
    // A byte every 200 ms would satisfy any per-read timeout; the head as a
    // whole is late at 1 s.
    Socket head = Connected("127.0.0.1", daemon.port);
    const std::string endless = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + std::string(100, 'a');
    Closure h = Trickle(head, endless, 200ms, Clock::now(), 4000ms);
    MESSAGE("a trickled head was closed after " << h.afterMs << " ms");
    INFO("head: received " << h.received);
    CHECK(h.closed);
    CHECK(h.afterMs >= 800.0);
    CHECK(h.afterMs <= 3000.0);
    CHECK(h.received.empty());

    // The same for a body: the head at once, then a byte every 200 ms.
    Socket body = Connected("127.0.0.1", daemon.port);
    const std::string post = "POST /chat/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: " + shop.apiKey +
                             "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n";
    const auto bodyStart = Clock::now();
    REQUIRE(SendAll(body.fd(), post, bodyStart + 1s));
    Closure b = Trickle(body, std::string(100, ' '), 200ms, bodyStart, 4000ms);
    MESSAGE("a trickled body was closed after " << b.afterMs << " ms");
    INFO("body: received " << b.received);
    CHECK(b.closed);
    CHECK(b.afterMs >= 800.0);
    CHECK(b.afterMs <= 3000.0);
    CHECK(b.received.empty());

    // Within the deadline: a whole request at once, one in three pieces over
    // 400 ms, and on the same kept-alive connection a second request 1.2 s
    // later (the deadline starts with each request's first byte).
    Socket fine = Connected("127.0.0.1", daemon.port);
    CheckServed(fine);
    for (const char* piece : {"GET /healthz HTTP/1.1\r\n", "Host: 127.0.0.1\r\n", "\r\n"}) {
      REQUIRE(SendAll(fine.fd(), piece, Clock::now() + 1s));
      std::this_thread::sleep_for(200ms);
    }
    Response pieces = ReadResponse(fine.fd(), Clock::now() + 3s);
    CHECK(pieces.complete);
    CHECK(pieces.status == 200);
    std::this_thread::sleep_for(1200ms);
    CheckServed(fine);

    CHECK(AwaitMetric(adminPort, Timeouts("api"), 2, false) == 2);
  }
  e2e::StopDaemon(daemon);
}

TEST_CASE("--keep-alive-timeout: a connection that sends nothing is closed after it; a busy one stays open") {
  e2e::TempDir dir;
  e2e::Daemon daemon = e2e::StartDaemon(dir, dir.File("idle.db"), {"--keep-alive-timeout", "1000ms"});
  const int adminPort = PortOf(daemon, "admin listener on ");
  {
    // New and silent.
    const auto opened = Clock::now();
    Socket silent = Connected("127.0.0.1", daemon.port);
    Closure s = AwaitClose(silent, opened, 4000ms);
    MESSAGE("a silent new connection was closed after " << s.afterMs << " ms");
    CHECK(s.closed);
    CHECK(s.afterMs >= 800.0);
    CHECK(s.afterMs <= 3000.0);
    CHECK(s.received.empty());

    // Idle after one answered request.
    Socket idle = Connected("127.0.0.1", daemon.port);
    CheckServed(idle);
    Closure i = AwaitClose(idle, Clock::now(), 4000ms);
    MESSAGE("an idle keep-alive connection was closed after " << i.afterMs << " ms");
    CHECK(i.closed);
    CHECK(i.afterMs >= 800.0);
    CHECK(i.afterMs <= 3000.0);
    CHECK(i.received.empty());

    // A request every 500 ms: open for 3 s and more, every request answered on it.
    Socket busy = Connected("127.0.0.1", daemon.port);
    const auto start = Clock::now();
    int answered = 0;
    while (MillisSince(start) < 3000.0) {
      CheckServed(busy);
      ++answered;
      std::this_thread::sleep_for(500ms);
    }
    CheckServed(busy);
    CHECK(answered >= 6);

    // Idle closes are not request timeouts.
    CHECK(Metric(Scrape(adminPort), Timeouts("api"), true) == 0);
  }
  e2e::StopDaemon(daemon);
}
