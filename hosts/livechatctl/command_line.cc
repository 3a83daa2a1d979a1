#include "command_line.h"

namespace livechatctl {

std::optional<ParsedArgs> SplitArgs(const std::vector<std::string>& args,
                                    const std::function<bool(const std::string&)>& isSwitch, std::string* error) {
  ParsedArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      out.help = true;
      continue;
    }
    if (arg == "--version") {
      out.version = true;
      continue;
    }
    if (arg.size() < 3 || arg.rfind("--", 0) != 0) {
      out.words.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (!value && !isSwitch(name)) {
      if (i + 1 >= args.size()) {
        *error = "--" + name + " needs a value";
        return std::nullopt;
      }
      value = args[++i];
    }
    if (name == "db") {
      out.db = value.value_or("");
      continue;
    }
    if (out.values.count(name) != 0) {
      *error = "--" + name + " given twice";
      return std::nullopt;
    }
    // A switch spelled --legacy=true keeps its value so CheckFlags can refuse it.
    out.values[name] = value ? *value : std::string();
  }
  return out;
}

std::string CheckFlags(const ParsedArgs& args, const std::vector<FlagDef>& defs) {
  for (const auto& [name, value] : args.values) {
    const FlagDef* def = nullptr;
    for (const auto& d : defs)
      if (name == d.name) def = &d;
    if (def == nullptr) return "unknown flag --" + name + " for this command";
    if (!def->takesValue && !value.empty()) return "--" + name + " takes no value";
  }
  for (const auto& d : defs)
    if (d.required && args.values.count(d.name) == 0) return std::string("missing --") + d.name;
  return "";
}

}  // namespace livechatctl
