// A webhook receiver for the end-to-end suite: a real HTTPS server
// (cpp-httplib's SSLServer) on loopback that records every request it gets
// and answers each with a status the test switches at will.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "e2e/tls_material.h"

namespace e2e {

struct ReceivedRequest {
  std::string method;
  std::string path;
  httplib::Headers headers;  // names compare case-insensitively
  std::string body;          // raw, as received
  int answeredWith = 0;
  std::chrono::steady_clock::time_point at;

  std::string Header(const std::string& name) const;
};

class HttpsReceiver {
 public:
  // Listens on `bindAddress` (an IP literal) at a free port. started() is
  // false when it could not bind.
  HttpsReceiver(const TlsMaterial& tls, const std::string& bindAddress);
  ~HttpsReceiver();
  HttpsReceiver(const HttpsReceiver&) = delete;
  HttpsReceiver& operator=(const HttpsReceiver&) = delete;

  bool started() const { return port_ > 0; }
  int port() const { return port_; }

  // The status every following request is answered with (200 at first).
  void AnswerWith(int status) { status_.store(status); }

  std::vector<ReceivedRequest> Requests() const;
  // Polls (every 10 ms) until `done(Requests())` holds; false at the deadline.
  bool WaitFor(const std::function<bool(const std::vector<ReceivedRequest>&)>& done,
               std::chrono::milliseconds timeout) const;

 private:
  std::unique_ptr<httplib::SSLServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> status_{200};
  mutable std::mutex mu_;
  std::vector<ReceivedRequest> requests_;
};

}  // namespace e2e
