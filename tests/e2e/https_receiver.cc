#include "e2e/https_receiver.h"

namespace e2e {

std::string ReceivedRequest::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

HttpsReceiver::HttpsReceiver(const TlsMaterial& tls, const std::string& bindAddress)
    : server_(std::make_unique<httplib::SSLServer>(tls.certPath.c_str(), tls.keyPath.c_str())) {
  if (!server_->is_valid()) return;
  server_->set_tcp_nodelay(true);
  server_->set_keep_alive_max_count(1000);
  // An idle keep-alive connection holds a worker that stop() waits for.
  server_->set_keep_alive_timeout(1);
  auto record = [this](const httplib::Request& req, httplib::Response& res) {
    ReceivedRequest r;
    r.method = req.method;
    r.path = req.path;
    r.headers = req.headers;
    r.body = req.body;
    r.answeredWith = status_.load();
    r.at = std::chrono::steady_clock::now();
    res.status = r.answeredWith;
    res.set_content(r.answeredWith < 300 ? "ok" : "not now", "text/plain");
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(std::move(r));
  };
  server_->Post(".*", record);
  server_->Put(".*", record);
  server_->Get(".*", record);
  int port = server_->bind_to_any_port(bindAddress);
  if (port <= 0) return;
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // listen_after_bind accepts from the bound socket; is_running() turns true
  // just before its loop, so wait for it for a clean stop() later.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!server_->is_running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  port_ = port;
}

HttpsReceiver::~HttpsReceiver() {
  if (thread_.joinable()) {
    server_->stop();
    thread_.join();
  }
}

std::vector<ReceivedRequest> HttpsReceiver::Requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

bool HttpsReceiver::WaitFor(const std::function<bool(const std::vector<ReceivedRequest>&)>& done,
                            std::chrono::milliseconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (done(Requests())) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace e2e
