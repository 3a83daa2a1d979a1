// A Server-Sent Events parser for tests (the WHATWG rules the tests need:
// fields `id`, `event`, `data`, `retry`, comments, blank-line dispatch), fed
// the stream's text in pieces of any size.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace livechat::testing {

struct SseEvent {
  std::string id, event, data;
};

class SseParser {
 public:
  // Appends `text`; complete lines are parsed, a partial one waits.
  void Feed(std::string_view text) {
    pending_.append(text);
    std::size_t nl;
    while ((nl = pending_.find('\n')) != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      Line(line);
    }
  }

  std::vector<SseEvent> events;      // dispatched, in order
  std::vector<std::string> comments;  // text after ':', in order
  std::string retry;                  // the last retry field

 private:
  void Line(const std::string& line) {
    if (line.empty()) {
      if (open_) events.push_back(current_);
      current_ = {};
      open_ = false;
      return;
    }
    if (line[0] == ':') {
      comments.push_back(line.substr(line.size() > 1 && line[1] == ' ' ? 2 : 1));
      return;
    }
    const std::size_t colon = line.find(':');
    const std::string field = line.substr(0, colon);
    std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    if (field == "retry") {
      retry = value;
      return;
    }
    open_ = true;
    if (field == "id") current_.id = value;
    if (field == "event") current_.event = value;
    if (field == "data") current_.data += (current_.data.empty() ? "" : "\n") + value;
  }

  std::string pending_;
  SseEvent current_;
  bool open_ = false;
};

}  // namespace livechat::testing
