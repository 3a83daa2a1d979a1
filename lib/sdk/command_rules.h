// The argument rules of every storefront SDK command. Mirrored line for line
// by the browser SDK (hosts/livechatd/web/sdk.js, validator section); the
// shared vectors in tests/vectors/sdk_commands.json hold both to the same
// verdicts, so a rule changed here must change there too.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "livechat/sdk/validator.h"

namespace livechat::sdk::internal {

// The warning for a command whose arguments break a rule, or nothing when
// they are acceptable. `args` is the parsed argument array.
std::optional<std::string> CheckCommand(std::string_view command, const rapidjson::Value& args,
                                        const SdkLimits& limits);

// Bytes of `v` written as compact JSON the way JavaScript's JSON.stringify
// writes it (integral numbers without a fraction), so the C++ and browser
// size limits agree to the byte.
std::size_t SerializedSize(const rapidjson::Value& v);

}  // namespace livechat::sdk::internal
