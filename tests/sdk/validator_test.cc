// The storefront SDK validator against the shared vectors
// (tests/vectors/sdk_commands.json), which the browser test runs through
// /sdk.js as well: one file, two implementations, the same verdicts.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "livechat/sdk/validator.h"

namespace livechat::sdk {
namespace {

rapidjson::Document LoadVectors() {
  std::ifstream in(std::string(LIVECHAT_SOURCE_DIR) + "/tests/vectors/sdk_commands.json", std::ios::binary);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  rapidjson::Document d;
  d.Parse(ss.str().c_str());
  REQUIRE_FALSE(d.HasParseError());
  return d;
}

std::string Compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return {buf.GetString(), buf.GetSize()};
}

std::string Describe(const rapidjson::Value& v) {
  std::string args = Compact(v["args"]);
  if (args.size() > 120) args = args.substr(0, 120) + "...";
  return std::string(v["command"].GetString()) + " " + args;
}

// One vector's verdict; `status` came from the validator.
void ExpectVerdict(const rapidjson::Value& v, const Status& status) {
  INFO(Describe(v));
  const std::string verdict = v["verdict"].GetString();
  if (verdict == "accept") {
    CHECK_MESSAGE(status.ok(), (status.ok() ? "" : status.error().message));
    return;
  }
  REQUIRE_FALSE(status.ok());
  REQUIRE(v.HasMember("warning"));
  const std::string want = v["warning"].GetString();
  INFO("warning: " << status.error().message);
  CHECK(status.error().message.find(want) != std::string::npos);
}

TEST_CASE("sdk vectors: every stateless vector gets its verdict and warning") {
  rapidjson::Document d = LoadVectors();
  CHECK(std::string(d["version"].GetString()) == kSdkVersion);
  ManualClock clock;
  CommandValidator validator(clock);
  const auto& vectors = d["vectors"];
  REQUIRE(vectors.Size() > 200);
  std::set<std::string> accepted, rejected;
  for (const auto& v : vectors.GetArray()) {
    const std::string command = v["command"].GetString();
    Status status = validator.CheckArguments(command, Compact(v["args"]));
    ExpectVerdict(v, status);
    // A rejection for shape is INVALID_PARAMS (RATE_LIMITED only for windows).
    if (!status.ok()) CHECK(status.error().code == ErrorCode::kInvalidParams);
    (std::string(v["verdict"].GetString()) == "accept" ? accepted : rejected).insert(command);
  }
  // The vectors cover every command of the spec, accepted and rejected.
  for (std::string_view name : CommandNames()) {
    INFO(name);
    CHECK(accepted.count(std::string(name)) == 1);
    CHECK(rejected.count(std::string(name)) == 1);
  }
  CHECK(CommandNames().size() == 31);
}

TEST_CASE("sdk vectors: rate windows per session, moved by a ManualClock") {
  rapidjson::Document d = LoadVectors();
  for (const auto& seq : d["sequences"].GetArray()) {
    SUBCASE(seq["name"].GetString()) {
      ManualClock clock;
      CommandValidator validator(clock);
      int step = 0;
      for (const auto& s : seq["steps"].GetArray()) {
        INFO("step " << step++);
        if (s.HasMember("advanceMs")) clock.Advance(s["advanceMs"].GetInt64());
        std::string session = s.HasMember("session") ? s["session"].GetString() : "default";
        Status status = validator.Validate(session, s["command"].GetString(), Compact(s["args"]));
        ExpectVerdict(s, status);
        if (!status.ok() && std::string(s["warning"].GetString()).find("rate limit") != std::string::npos)
          CHECK(status.error().code == ErrorCode::kRateLimited);
      }
    }
  }
}

TEST_CASE("sdk validator: arguments that are not a JSON array") {
  ManualClock clock;
  CommandValidator validator(clock);
  CHECK(validator.CheckArguments("chat:open", "").ok());
  CHECK(validator.CheckArguments("chat:open", "  ").ok());
  Status notArray = validator.CheckArguments("message:send", "\"hi\"");
  REQUIRE_FALSE(notArray.ok());
  CHECK(notArray.error().message == "message:send: arguments must be a JSON array");
  Status broken = validator.CheckArguments("message:send", "[\"hi\"");
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().message.rfind("message:send: arguments are not valid JSON", 0) == 0);
  Status badUtf8 = validator.CheckArguments("message:send", "[\"\xC3\x28\"]");
  REQUIRE_FALSE(badUtf8.ok());
  CHECK(badUtf8.error().code == ErrorCode::kInvalidParams);
  CHECK(badUtf8.error().message == "command and arguments must be valid UTF-8");
}

TEST_CASE("sdk validator: limits are settings") {
  ManualClock clock;
  SdkLimits limits;
  limits.messageTextMax = 3;
  limits.messagesPerWindow = 2;
  limits.windowMillis = 1000;
  CommandValidator validator(clock, limits);
  CHECK(validator.Validate("s", "message:send", "[\"abc\"]").ok());
  Status tooLong = validator.Validate("s", "message:send", "[\"abcd\"]");
  REQUIRE_FALSE(tooLong.ok());
  CHECK(tooLong.error().message == "message:send: text must be at most 3 characters (got 4)");
  CHECK(validator.Validate("s", "message:send", "[\"abc\"]").ok());
  Status limited = validator.Validate("s", "message:send", "[\"abc\"]");
  REQUIRE_FALSE(limited.ok());
  CHECK(limited.error().code == ErrorCode::kRateLimited);
  CHECK(limited.error().message == "message:send: rate limit of 2 messages per 1000 ms reached; try again in 1 s");
  clock.Advance(1000);
  CHECK(validator.Validate("s", "message:send", "[\"abc\"]").ok());
}

TEST_CASE("sdk validator: many sessions, each window resets after its length") {
  ManualClock clock;
  CommandValidator validator(clock);
  for (int i = 0; i < 15; ++i) REQUIRE(validator.Validate("a", "message:send", "[\"x\"]").ok());
  CHECK_FALSE(validator.Validate("a", "message:send", "[\"x\"]").ok());
  // Thousands of sessions come and go; a later window starts clean for each.
  for (int i = 0; i < 5000; ++i) REQUIRE(validator.Validate("s" + std::to_string(i), "typing:set", "[true]").ok());
  clock.Advance(60'000);
  CHECK(validator.Validate("a", "message:send", "[\"x\"]").ok());
  CHECK(validator.Validate("s1", "typing:set", "[true]").ok());
}

TEST_CASE("sdk validator: Apply counts a call only when its effect was applied") {
  const Status refused = MakeError(ErrorCode::kPayloadTooLarge, "too large");
  auto fail = [&] { return refused; };
  auto succeed = [] { return Status::Ok(); };
  for (const char* command : {"message:send", "typing:set"}) {
    CAPTURE(command);
    const std::string args = std::string(command) == "typing:set" ? "[true]" : "[\"x\"]";
    const int limit = std::string(command) == "typing:set" ? 30 : 15;
    ManualClock clock;
    CommandValidator validator(clock);
    int applied = 0;
    // Refused by apply (size, type, state): apply's error, and no place taken.
    for (int i = 0; i < 5; ++i) {
      Status st = validator.Apply("s", command, args, fail);
      REQUIRE_FALSE(st.ok());
      CHECK(st.error().code == ErrorCode::kPayloadTooLarge);
    }
    // Refused by the rules: apply never runs.
    Status shape = validator.Apply("s", command, "[]", [&] { ++applied; return Status::Ok(); });
    REQUIRE_FALSE(shape.ok());
    CHECK(shape.error().code == ErrorCode::kInvalidParams);
    CHECK(applied == 0);
    for (int i = 0; i < limit; ++i) REQUIRE(validator.Apply("s", command, args, succeed).ok());
    Status limited = validator.Apply("s", command, args, [&] { ++applied; return Status::Ok(); });
    REQUIRE_FALSE(limited.ok());
    CHECK(limited.error().code == ErrorCode::kRateLimited);
    CHECK(applied == 0);
    // The refusals did not open the window either: it ends 60 s after the first accepted call.
    clock.Advance(60'000);
    CHECK(validator.Apply("s", command, args, succeed).ok());
  }
}

TEST_CASE("sdk validator: a call being applied holds its place; refused, it gives it back") {
  ManualClock clock;
  SdkLimits limits;
  limits.messagesPerWindow = 2;
  CommandValidator validator(clock, limits);
  REQUIRE(validator.Validate("s", "message:send", "[\"1\"]").ok());
  Status inside;
  Status second = validator.Apply("s", "message:send", "[\"2\"]", [&] {
    inside = validator.Validate("s", "message:send", "[\"3\"]");  // concurrent: the window is full
    return MakeError(ErrorCode::kConflict, "refused after all");
  });
  REQUIRE_FALSE(second.ok());
  CHECK(second.error().code == ErrorCode::kConflict);
  REQUIRE_FALSE(inside.ok());
  CHECK(inside.error().code == ErrorCode::kRateLimited);
  CHECK(validator.Validate("s", "message:send", "[\"2\"]").ok());
  CHECK_FALSE(validator.Validate("s", "message:send", "[\"3\"]").ok());

  // A call refused after its window closed gives nothing back to the next window.
  clock.Advance(60'000);
  Status late = validator.Apply("s", "message:send", "[\"4\"]", [&] {
    clock.Advance(60'000);
    CHECK(validator.Validate("s", "message:send", "[\"5\"]").ok());  // opens the next window
    return MakeError(ErrorCode::kConflict, "refused after all");
  });
  CHECK_FALSE(late.ok());
  CHECK(validator.Validate("s", "message:send", "[\"6\"]").ok());
  CHECK_FALSE(validator.Validate("s", "message:send", "[\"7\"]").ok());
}

}  // namespace
}  // namespace livechat::sdk
