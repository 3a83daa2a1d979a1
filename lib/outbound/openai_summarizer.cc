#include "livechat/openai_summarizer.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "outbound/http_client.h"

namespace livechat {
namespace {

struct Endpoint {
  bool tls = true;
  std::string host;
  int port = 443;
  std::string path;  // .../v1/chat/completions
};

Error Bad(const std::string& why) {
  return MakeError(ErrorCode::kInvalidParams, "summarizer url " + why);
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), s.begin(), [](char a, char b) {
           return a == static_cast<char>(std::tolower(static_cast<unsigned char>(b)));
         });
}

// The https rules of ParseHttpsUrl (no user info, a valid host and port)
// apply to http too: an http url is checked in its https spelling, then
// given port 80 when it names none.
Result<Endpoint> ParseEndpoint(std::string_view url) {
  Endpoint e;
  std::string spelled(url);
  if (StartsWithNoCase(url, "http://")) {
    e.tls = false;
    spelled = "https://" + std::string(url.substr(7));
  } else if (!StartsWithNoCase(url, "https://")) {
    return Bad("must start with https:// (or http:// for a local server)");
  }
  auto t = ParseHttpsUrl(spelled);
  if (!t.ok()) return MakeError(ErrorCode::kInvalidParams, "summarizer " + t.error().message);
  const std::string_view rest = std::string_view(spelled).substr(8);
  const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (rest.find_first_of("?#") != std::string_view::npos) return Bad("must not have a query or a fragment");
  const bool explicitPort = authority.front() == '['
                                ? authority.find("]:") != std::string_view::npos
                                : authority.find(':') != std::string_view::npos;
  e.host = t->host;
  e.port = e.tls || explicitPort ? t->port : 80;
  std::string base = t->pathAndQuery;
  while (!base.empty() && base.back() == '/') base.pop_back();
  e.path = base + "/v1/chat/completions";
  return e;
}

std::string_view TrimSpace(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// The longest prefix of valid UTF-8 `s` of at most `maxBytes` bytes that
// ends on a character boundary.
std::string_view CutBytes(std::string_view s, std::size_t maxBytes) {
  if (s.size() <= maxBytes) return s;
  std::size_t n = maxBytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// The first `maxChars` code points of valid UTF-8 `s`.
std::string_view CutChars(std::string_view s, std::size_t maxChars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (chars++ == maxChars) return s.substr(0, i);
  }
  return s;
}

const char* RoleLabel(const std::string& senderType) {
  if (senderType == "customer") return "Customer";
  if (senderType == "agent") return "Agent";
  if (senderType == "bot") return "AI agent";
  return "System";
}

constexpr const char* kInstruction =
    "You summarize a resolved customer-support conversation for the shop's agents. Write two to four plain "
    "sentences in the language of the conversation: what the customer asked for, what was done, and the outcome. "
    "Use only facts stated in the conversation. Do not add greetings, names, contact details or advice.";

std::string Transcript(const OpenAiSummarizerOptions& o, const SummaryInput& in) {
  std::vector<std::string> lines;
  for (const auto& m : in.messages) {
    if (m.isNote || m.isDeleted) continue;
    std::string text(TrimSpace(m.text));
    std::string cut(CutBytes(text, o.maxMessageBytes));
    if (cut.size() < text.size()) cut += " [...]";
    lines.push_back(std::string(RoleLabel(m.senderType)) + ": " + cut);
  }
  // Over the budget: the middle goes first, as the request opens the
  // conversation and the outcome closes it.
  std::size_t total = 0;
  for (const auto& l : lines) total += l.size() + 1;
  std::int64_t dropped = in.omittedMessages;
  std::size_t gap = lines.size() / 2;
  while (total > o.maxTranscriptBytes && lines.size() > 2) {
    gap = std::min(gap, lines.size() - 2);
    total -= lines[gap].size() + 1;
    lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(gap));
    ++dropped;
  }
  if (dropped > 0)
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(std::min(gap, lines.size())),
                 "[" + std::to_string(dropped) + " messages left out]");
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  if (lines.empty()) out = "(no messages)\n";
  return out;
}

}  // namespace

std::string ChatCompletionsBody(const OpenAiSummarizerOptions& o, const SummaryInput& in) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  const std::string transcript = Transcript(o, in);
  w.StartObject();
  w.Key("model");
  w.String(o.model.c_str(), static_cast<rapidjson::SizeType>(o.model.size()));
  w.Key("temperature");
  w.Int(0);
  w.Key("max_tokens");
  w.Int(o.maxTokens);
  w.Key("messages");
  w.StartArray();
  w.StartObject();
  w.Key("role");
  w.String("system");
  w.Key("content");
  w.String(kInstruction);
  w.EndObject();
  w.StartObject();
  w.Key("role");
  w.String("user");
  w.Key("content");
  w.String(transcript.c_str(), static_cast<rapidjson::SizeType>(transcript.size()));
  w.EndObject();
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

Result<std::string> ParseChatCompletion(std::string_view body, std::size_t maxChars) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) return MakeError(ErrorCode::kInvalidParams, "the answer is not JSON");
  auto choices = doc.FindMember("choices");
  if (choices == doc.MemberEnd() || !choices->value.IsArray() || choices->value.Empty() ||
      !choices->value[0].IsObject())
    return MakeError(ErrorCode::kInvalidParams, "the answer has no choices");
  const auto& first = choices->value[0];
  auto message = first.FindMember("message");
  if (message == first.MemberEnd() || !message->value.IsObject())
    return MakeError(ErrorCode::kInvalidParams, "the answer has no choices[0].message");
  auto content = message->value.FindMember("content");
  if (content == message->value.MemberEnd() || !content->value.IsString())
    return MakeError(ErrorCode::kInvalidParams, "the answer has no choices[0].message.content text");
  std::string_view text = TrimSpace(std::string_view(content->value.GetString(), content->value.GetStringLength()));
  if (text.empty()) return MakeError(ErrorCode::kInvalidParams, "the answer is empty");
  return std::string(TrimSpace(CutChars(text, maxChars)));
}

OpenAiSummarizer::OpenAiSummarizer(OpenAiSummarizerOptions options) : o_(std::move(options)) {
  if (o_.resolver == nullptr) o_.resolver = Resolver::Default();
}

Result<std::unique_ptr<OpenAiSummarizer>> OpenAiSummarizer::Create(OpenAiSummarizerOptions options) {
  if (options.model.empty()) return MakeError(ErrorCode::kInvalidParams, "a summarizer model is required");
  auto e = ParseEndpoint(options.url);
  if (!e.ok()) return e.take_error();
  if (!e->tls && !options.allowPrivate)
    return Bad("is plain http: use https, or allow private addresses for a local server");
  return std::unique_ptr<OpenAiSummarizer>(new OpenAiSummarizer(std::move(options)));
}

std::string OpenAiSummarizer::name() const { return "openai-compatible/" + o_.model; }

Result<std::string> OpenAiSummarizer::Summarize(const SummaryInput& in) {
  if (in.redacted) return MakeError(ErrorCode::kInvalidParams, "a redacted conversation is never sent");
  LC_ASSIGN_OR_RETURN(Endpoint e, ParseEndpoint(o_.url));
  LC_ASSIGN_OR_RETURN(auto addresses, o_.resolver->Resolve(e.host));
  if (addresses.empty()) return MakeError(ErrorCode::kInvalidParams, e.host + " has no address");
  // Every address is checked, as a name that also points elsewhere would let
  // a later connection pick the other one; the socket goes to the first.
  for (const auto& a : addresses) {
    const bool isPublic = IsPublicAddress(a);
    if (!isPublic && !o_.allowPrivate)
      return MakeError(ErrorCode::kInvalidParams,
                       e.host + " resolves to " + a + ", which is not a public address (allow private addresses "
                                                      "for a local server)");
    if (isPublic && !e.tls)
      return MakeError(ErrorCode::kInvalidParams,
                       e.host + " resolves to the public address " + a + ": plain http is for a local server only");
  }

  const outbound::Target target{e.host, e.port, addresses.front(), e.tls};
  const std::string where = e.host + ":" + std::to_string(e.port);
  const auto timeout = std::chrono::milliseconds(std::max<std::int64_t>(o_.timeoutMillis, 1));
  const auto deadline = outbound::SteadyClock::now() + timeout;
  outbound::Outcome got;
  {
    // Read at every call, as a replaced CA bundle is then picked up without a restart.
    std::shared_ptr<outbound::TlsContext> tls;
    if (e.tls) {
      auto made = outbound::TlsContext::Make(o_.caFile, /*caFileOnly=*/true);
      if (!made.ok()) return MakeError(ErrorCode::kInternal, "request to " + where + " failed: " + made.error().message);
      tls = std::move(made).value();
    }
    outbound::Request req;
    req.path = e.path;
    req.headers = {{"Content-Type", "application/json"},
                   {"Accept", "application/json"},
                   {"Accept-Encoding", "identity"},
                   {"User-Agent", "livechat-summarizer/1"}};
    if (!o_.apiKey.empty()) req.headers.emplace_back("Authorization", "Bearer " + o_.apiKey);
    req.body = ChatCompletionsBody(o_, in);
    req.keepAlive = false;
    auto connection = outbound::Connection::Open(target, tls.get(), deadline, &got);
    if (connection) got = connection->Exchange(target, req, deadline, o_.maxResponseBytes);
  }
  using outbound::Failure;
  switch (got.failure) {
    case Failure::kNone: break;
    case Failure::kTimeout:
      return MakeError(ErrorCode::kInternal,
                       "no answer from " + where + " within " + std::to_string(o_.timeoutMillis) + " ms");
    case Failure::kBodyTooLarge:
      return MakeError(ErrorCode::kInternal, "the answer of " + where + " is larger than " +
                                                 std::to_string(o_.maxResponseBytes) + " bytes");
    case Failure::kUntrusted:
      return MakeError(ErrorCode::kInternal, "request to " + where + " failed: certificate not trusted: " + got.detail);
    case Failure::kNameMismatch:
      return MakeError(ErrorCode::kInternal, "request to " + where + " failed: certificate does not match " + e.host);
    default:
      return MakeError(ErrorCode::kInternal, "request to " + where + " failed: " + got.detail + " [" + got.phase + "]");
  }
  const int status = got.status;
  if (status < 200 || status > 299)
    return MakeError(ErrorCode::kInternal, where + " answered HTTP " + std::to_string(status));
  auto text = ParseChatCompletion(got.body, o_.maxSummaryChars);
  if (!text.ok()) return MakeError(ErrorCode::kInternal, where + ": " + text.error().message);
  return text;
}

}  // namespace livechat
