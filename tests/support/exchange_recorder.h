// Records REST exchanges for the contract check (tests/node/openapi): when
// LIVECHAT_CONTRACT_DIR is set, every request a fixture sends and the response
// it gets are appended as one JSON line to <dir>/<suite>-<pid>.jsonl. The
// node test replays them against docs/api/openapi.yaml.
//
// Header-only like rest_fixture.h; depends only on livechat/http.h.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "livechat/http.h"
#include "livechat/json_codec.h"

namespace livechat::testing {

class ExchangeRecorder {
 public:
  static ExchangeRecorder& Instance() {
    static ExchangeRecorder r;
    return r;
  }

  void Record(const HttpRequest& req, const HttpResponse& resp) {
    if (file_ == nullptr) return;
    std::string line = "{\"method\":";
    AppendJsonString(line, req.method);
    line += ",\"target\":";
    AppendJsonString(line, req.target);
    line += ",\"status\":" + std::to_string(resp.status) + ",\"headers\":{";
    AppendHeaders(line, resp.headers);
    line += "},\"route\":";
    AppendJsonString(line, resp.route);
    line += ",\"body\":";
    AppendJsonString(line, resp.body);
    line += "}\n";
    std::lock_guard<std::mutex> lock(mu_);
    std::fwrite(line.data(), 1, line.size(), file_);
  }

  // An outbound webhook delivery (checked against the document's `webhooks`).
  void RecordDelivery(const std::vector<std::pair<std::string, std::string>>& headers, const std::string& body) {
    if (file_ == nullptr) return;
    std::string line = "{\"kind\":\"webhook\",\"headers\":{";
    AppendHeaders(line, headers);
    line += "},\"body\":";
    AppendJsonString(line, body);
    line += "}\n";
    std::lock_guard<std::mutex> lock(mu_);
    std::fwrite(line.data(), 1, line.size(), file_);
  }

  ~ExchangeRecorder() {
    if (file_ != nullptr) std::fclose(file_);
  }

 private:
  // Names lowercased: HTTP header names are case-insensitive.
  static void AppendHeaders(std::string& line, const std::vector<std::pair<std::string, std::string>>& headers) {
    bool first = true;
    for (const auto& [name, value] : headers) {
      if (!first) line += ',';
      first = false;
      std::string lower;
      for (char c : name) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      AppendJsonString(line, lower);
      line += ':';
      AppendJsonString(line, value);
    }
  }

  ExchangeRecorder() {
    const char* dir = std::getenv("LIVECHAT_CONTRACT_DIR");
    if (dir == nullptr || *dir == '\0') return;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const char* suite = std::getenv("LIVECHAT_CONTRACT_SUITE");
    std::string path = std::string(dir) + "/" + (suite ? suite : "suite") + "-" + std::to_string(getpid()) + ".jsonl";
    file_ = std::fopen(path.c_str(), "w");
    if (file_ == nullptr) std::fprintf(stderr, "exchange recorder: cannot write %s\n", path.c_str());
  }

  std::mutex mu_;
  std::FILE* file_ = nullptr;
};

inline void RecordExchange(const HttpRequest& req, const HttpResponse& resp) {
  ExchangeRecorder::Instance().Record(req, resp);
}

}  // namespace livechat::testing
