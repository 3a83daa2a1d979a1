// The livechatctl commands. Each one is a single ChatService call (or a few)
// made as Principal::System of the named store: the same rules as every
// other surface, and no SQL here.
#pragma once

#include <string>
#include <vector>

#include "command_line.h"
#include "livechat/chat_service.h"

namespace livechatctl {

// What a command printed and how the process should exit.
struct Outcome {
  int exitCode = 0;  // 0 ok, 1 the operation failed, 2 usage error
  std::string json;  // one JSON document for stdout
};

struct Command {
  std::vector<std::string> words;  // {"key", "create"}
  std::vector<FlagDef> flags;
  const char* summary;
  Outcome (*run)(livechat::ChatService& service, const ParsedArgs& args);
};

const std::vector<Command>& Commands();
const Command* FindCommand(const std::vector<std::string>& words);
bool IsSwitch(const std::string& flag);

// {"error":{"code":..,"message":..}}
std::string ErrorJson(std::string_view code, const std::string& message);
Outcome UsageError(const std::string& message);

std::string Usage();

}  // namespace livechatctl
