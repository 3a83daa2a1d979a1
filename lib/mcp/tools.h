// The tool server's tools: their published schemas, when each is offered
// (the spec's gating table), and what each does through ChatService.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "livechat/chat_service.h"

namespace livechat::mcp {

// What a request knows when deciding and running tools: re-read on every
// request, so a switch flipped in settings applies to the next call.
struct ToolContext {
  ChatService& service;
  const Principal& principal;
  const Shop& shop;
  const AiSettings& ai;
};

// A tool's outcome. `ok`: structuredContent (a JSON object). Otherwise a
// message an agent can act on (returned as a result with isError: true).
struct ToolOutcome {
  bool ok = true;
  std::string json;
  std::string error;
};

struct Tool {
  const char* name;
  const char* title;
  const char* description;
  rapidjson::Document inputSchema;
  rapidjson::Document outputSchema;
  bool readOnly = true;
  // Empty when offered to this request; otherwise why not (for a call to a
  // tool the request was not offered).
  std::string (*unavailable)(const ToolContext&) = nullptr;
  ToolOutcome (*run)(const ToolContext&, const rapidjson::Value& args) = nullptr;
};

// Every tool, in the order tools/list shows them. Built once.
const std::vector<Tool>& AllTools();
const Tool* FindTool(std::string_view name);

}  // namespace livechat::mcp
