// An OpenAI-compatible chat-completions server for the end-to-end suite: a
// real cpp-httplib server (plain, or TLS with throwaway material) on loopback
// that records every request and answers as the test says.
#pragma once

#include <httplib.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "e2e/tls_material.h"

namespace e2e {

class FakeLlm {
 public:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

  // Plain HTTP, or HTTPS with `tls`'s server certificate.
  explicit FakeLlm(const TlsMaterial* tls = nullptr) {
    if (tls != nullptr)
      server_ = std::make_unique<httplib::SSLServer>(tls->certPath.c_str(), tls->keyPath.c_str());
    else
      server_ = std::make_unique<httplib::Server>();
    server_->Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      Handler h;
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(req);
        h = handler_;
      }
      h(req, res);
    });
    port_ = server_->bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    // stop() before the loop runs is lost, and the destructor would wait for ever.
    while (port_ > 0 && !server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeLlm() {
    server_->stop();
    thread_.join();
  }
  FakeLlm(const FakeLlm&) = delete;
  FakeLlm& operator=(const FakeLlm&) = delete;

  int port() const { return port_; }
  std::string Url(const std::string& scheme = "http") const {
    return scheme + "://" + std::string(scheme == "https" ? "localhost" : "127.0.0.1") + ":" + std::to_string(port_);
  }
  void Answer(Handler h) {
    std::lock_guard<std::mutex> lock(mu_);
    handler_ = std::move(h);
  }
  // A well-formed completion whose message content is `content` (JSON-escaped by the caller).
  void AnswerContent(const std::string& contentJson) {
    Answer([contentJson](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"id":"cmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":)"
                      R"("assistant","content":)" + contentJson + R"(},"finish_reason":"stop"}]})",
                      "application/json");
    });
  }
  std::vector<httplib::Request> Requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  Handler handler_ = [](const httplib::Request&, httplib::Response& res) { res.status = 500; };
  std::vector<httplib::Request> requests_;
};

}  // namespace e2e
