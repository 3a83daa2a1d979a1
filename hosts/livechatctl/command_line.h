// livechatctl's argument grammar: `[--db PATH] WORD [WORD] [--flag VALUE | --switch]...`
// with --db accepted anywhere. Which words and flags exist is the commands'
// business (commands.h); this only splits and checks against their table.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace livechatctl {

struct FlagDef {
  const char* name;  // without "--"
  bool takesValue;
  bool required;
  const char* help;
};

struct ParsedArgs {
  std::vector<std::string> words;             // "key", "create"
  std::map<std::string, std::string> values;  // flag -> value ("" for a switch)
  std::optional<std::string> db;
  bool help = false;
  bool version = false;
};

// Splits argv. `isSwitch` names the flags that take no value (so the word
// after them is not swallowed). Accepts `--flag VALUE` and `--flag=VALUE`.
// Fails (message in *error) on a flag without its value or a repeated flag.
std::optional<ParsedArgs> SplitArgs(const std::vector<std::string>& args,
                                    const std::function<bool(const std::string&)>& isSwitch, std::string* error);

// Checks `values` against the command's flags: unknown flags, a switch given
// a value, a missing required flag. Returns the first problem, or "".
std::string CheckFlags(const ParsedArgs& args, const std::vector<FlagDef>& defs);

}  // namespace livechatctl
