// A Summarizer that asks an OpenAI-compatible chat-completions endpoint
// (POST {url}/v1/chat/completions: OpenAI, or a local llama.cpp, vLLM,
// Ollama server). The SummaryWorker falls back to the extractive summarizer
// whenever this one fails, so every failure here is an Error, never a retry.
//
// What is sent: the model name and the messages' roles and texts, nothing
// else (no names, emails, ids, notes; redacted conversations are refused).
// The target obeys the outbound address rule (livechat/address_policy.h):
// public addresses only unless allowPrivate, and the connection goes to the
// address checked. Plain http is accepted only with allowPrivate and only to
// non-public addresses (a local server), so a key or a conversation never
// crosses the internet in clear. https verifies the certificate. In
// livechat::outbound (Boost.Beast over OpenSSL, like the webhook transport).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "livechat/address_policy.h"
#include "livechat/summarizer.h"

namespace livechat {

struct OpenAiSummarizerOptions {
  std::string url;     // base, e.g. https://api.openai.com or http://127.0.0.1:8000/prefix
  std::string model;   // required
  std::string apiKey;  // sent as "Authorization: Bearer"; empty: no header (local servers)
  std::int64_t timeoutMillis = 20'000;  // the whole exchange, connect to last byte
  bool allowPrivate = false;
  std::string caFile;  // PEM CA bundle trusted instead of the system store; empty: the system store
  std::size_t maxResponseBytes = 256 * 1024;   // a longer answer is a failure
  std::size_t maxTranscriptBytes = 32 * 1024;  // messages dropped from the middle beyond this
  std::size_t maxMessageBytes = 2'000;         // one message's text cut beyond this
  std::size_t maxSummaryChars = 1'000;         // code points kept of the answer
  int maxTokens = 300;
  Resolver* resolver = nullptr;                // null: Resolver::Default()
};

// Thread-safe: each call uses its own connection.
class OpenAiSummarizer final : public Summarizer {
 public:
  // INVALID_PARAMS naming the problem: a url that is not http(s), has user
  // info, a query or a fragment; plain http without allowPrivate; no model.
  static Result<std::unique_ptr<OpenAiSummarizer>> Create(OpenAiSummarizerOptions options);

  std::string name() const override;  // "openai-compatible/<model>"
  Result<std::string> Summarize(const SummaryInput& in) override;

 private:
  explicit OpenAiSummarizer(OpenAiSummarizerOptions options);
  OpenAiSummarizerOptions o_;
};

// The request body for `in` (JSON): model, temperature 0, max_tokens, a
// system instruction and one user message holding the transcript.
std::string ChatCompletionsBody(const OpenAiSummarizerOptions& o, const SummaryInput& in);

// choices[0].message.content, trimmed and cut to `maxChars` code points;
// INVALID_PARAMS when the body is not that shape or the content is empty.
Result<std::string> ParseChatCompletion(std::string_view body, std::size_t maxChars);

}  // namespace livechat
