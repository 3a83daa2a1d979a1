// The extractive summarizer: quotes the customer's opening request, the most
// informative agent sentence and the customer's last word, and states the
// outcome. Every quoted passage is a sentence of the conversation, at most
// trimmed; the connecting words are fixed, so the result is deterministic.
#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "livechat/base/utf8.h"
#include "livechat/summarizer.h"

namespace livechat {
namespace {

// The code point at s[i] and its length in bytes. A malformed byte counts as
// one code point of one byte, so any input is walked to its end.
std::pair<char32_t, std::size_t> DecodeAt(std::string_view s, std::size_t i) {
  std::uint32_t cp = 0;
  const std::size_t n = DecodeUtf8(s, i, cp);
  if (n == 0) return {static_cast<unsigned char>(s[i]), 1};
  return {static_cast<char32_t>(cp), n};
}

// Ends a sentence wherever it stands (no space follows them in these scripts):
// ideographic full stop, fullwidth ! and ?, Arabic question mark, danda.
bool IsWideTerminator(char32_t c) {
  return c == 0x3002 || c == 0xFF01 || c == 0xFF1F || c == 0x061F || c == 0x0964 || c == 0xFF0E;
}
bool IsAsciiTerminator(char32_t c) { return c == '.' || c == '!' || c == '?'; }
bool IsQuestionMark(char32_t c) { return c == '?' || c == 0xFF1F || c == 0x061F; }
bool IsSpace(char32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
// What may follow a terminator and still belong to its sentence.
bool IsCloser(char32_t c) { return c == '"' || c == '\'' || c == ')' || c == 0x201D || c == 0x2019 || c == 0x300D; }

// Sentences of a message, whitespace collapsed. A period ends a sentence only
// before whitespace or the end ("3.5", "example.com" stay whole); a line
// break always ends one.
std::vector<std::string> SplitSentences(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  bool pendingSpace = false;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(std::move(cur));
    cur.clear();
    pendingSpace = false;
  };
  std::size_t i = 0;
  while (i < text.size()) {
    auto [cp, n] = DecodeAt(text, i);
    if (cp == '\n' || cp == '\r') {
      flush();
      i += n;
      continue;
    }
    if (IsSpace(cp)) {
      pendingSpace = !cur.empty();
      i += n;
      continue;
    }
    if (pendingSpace) cur.push_back(' ');
    pendingSpace = false;
    cur.append(text.substr(i, n));
    i += n;
    const bool wide = IsWideTerminator(cp);
    if (!wide && !IsAsciiTerminator(cp)) continue;
    // Runs like "?!", "..." and a closing quote stay with the sentence.
    while (i < text.size()) {
      auto [next, m] = DecodeAt(text, i);
      if (!IsAsciiTerminator(next) && !IsWideTerminator(next) && !IsCloser(next)) break;
      cur.append(text.substr(i, m));
      i += m;
    }
    if (wide || i >= text.size() || IsSpace(DecodeAt(text, i).first)) flush();
  }
  flush();
  return out;
}

// Words that carry no request or action on their own: a sentence made only
// of them ("Hi there!", "Thanks, have a nice day.") is a pleasantry.
bool IsPleasantry(std::string_view sentence) {
  static constexpr std::array<std::string_view, 44> kWords{
      "hi",     "hello",  "hey",   "hiya",    "thanks", "thank",   "you",   "thx",    "ty",
      "good",   "morning", "afternoon", "evening", "day", "there",  "dear",  "team",   "all",
      "ok",     "okay",   "yes",   "no",      "sure",   "great",   "bye",   "goodbye", "cheers",
      "please", "sir",    "madam", "welcome", "you're", "youre",   "have",  "a",      "nice",
      "much",   "so",     "very",  "again",   "bonjour", "hola",   "hallo", "merci"};
  bool any = false;
  std::size_t i = 0;
  while (i < sentence.size()) {
    while (i < sentence.size() && sentence[i] == ' ') ++i;
    std::size_t j = sentence.find(' ', i);
    if (j == std::string_view::npos) j = sentence.size();
    std::string word;
    for (std::size_t k = i; k < j; ++k) {
      const auto c = static_cast<unsigned char>(sentence[k]);
      if (std::isalnum(c) || c == '\'' || c >= 0x80) word.push_back(static_cast<char>(std::tolower(c)));
    }
    i = j;
    if (word.empty()) continue;
    if (std::find(kWords.begin(), kWords.end(), word) == kWords.end()) return false;
    any = true;
  }
  return any;
}

bool IsQuestion(std::string_view sentence) {
  // The last code point that is not a closing quote.
  std::size_t i = 0;
  char32_t last = 0;
  while (i < sentence.size()) {
    auto [cp, n] = DecodeAt(sentence, i);
    if (!IsCloser(cp)) last = cp;
    i += n;
  }
  return IsQuestionMark(last);
}

// At most `max` code points: cut at the last space in the second half of the
// allowance when there is one (whole words), else mid-word (scripts without
// spaces), and marked with an ellipsis.
std::string Trim(std::string_view s, std::size_t max) {
  if (Utf8Length(s) <= max) return std::string(s);
  std::string cut = TruncateUtf8(s, max - 1);
  const std::size_t space = cut.rfind(' ');
  if (space != std::string::npos && Utf8Length(std::string_view(cut).substr(0, space)) >= (max - 1) / 2)
    cut.resize(space);
  while (!cut.empty() && (cut.back() == ' ' || cut.back() == ',' || cut.back() == ';' || cut.back() == ':'))
    cut.pop_back();
  return cut + "\u2026";
}

// Chinese and Japanese put no space after a sentence.
bool EndsWithIdeographicStop(std::string_view s) {
  for (std::string_view stop : {"\u3002", "\uFF01", "\uFF1F", "\uFF0E"})
    if (s.size() >= stop.size() && s.substr(s.size() - stop.size()) == stop) return true;
  return false;
}

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// The customer's request: the first sentences of the first customer message
// that says more than a pleasantry, as many as fit in `max`.
std::string RequestQuote(const std::vector<const Message*>& customer, std::size_t max) {
  for (const Message* m : customer) {
    std::string quote;
    for (const auto& s : SplitSentences(m->text)) {
      if (IsPleasantry(s)) continue;
      if (quote.empty()) {
        quote = Trim(s, max);
      } else if (Utf8Length(quote) + 1 + Utf8Length(s) <= max) {
        quote += (EndsWithIdeographicStop(quote) ? "" : " ") + s;
      } else {
        break;
      }
    }
    if (!quote.empty()) return quote;
  }
  // Only pleasantries: the first sentence is still what the customer said.
  for (const Message* m : customer) {
    auto sentences = SplitSentences(m->text);
    if (!sentences.empty()) return Trim(sentences.front(), max);
  }
  return "";
}

// What was done: the longest sentence of the replies that is neither a
// pleasantry nor a question (the earliest among equals); failing that, the
// longest that is not a pleasantry.
std::string ActionQuote(const std::vector<const Message*>& replies, std::size_t max) {
  std::string best, bestQuestion;
  std::size_t bestLen = 0, bestQuestionLen = 0;
  for (const Message* m : replies) {
    for (const auto& s : SplitSentences(m->text)) {
      if (IsPleasantry(s)) continue;
      const std::size_t len = Utf8Length(s);
      if (!IsQuestion(s)) {
        if (len > bestLen) best = s, bestLen = len;
      } else if (len > bestQuestionLen) {
        bestQuestion = s, bestQuestionLen = len;
      }
    }
  }
  if (!best.empty()) return Trim(best, max);
  return bestQuestion.empty() ? "" : Trim(bestQuestion, max);
}

std::string Count(std::int64_t n) { return std::to_string(n) + (n == 1 ? " message" : " messages"); }

}  // namespace

Result<std::string> ExtractiveSummarizer::Summarize(const SummaryInput& in) {
  std::vector<const Message*> customer, agents, bots;
  bool transferred = false;
  std::int64_t total = in.omittedMessages;
  for (const auto& m : in.messages) {
    if (m.isNote || m.isDeleted) continue;
    ++total;
    if (m.isTransfer) transferred = true;
    if (m.senderType == "customer") customer.push_back(&m);
    else if (m.senderType == "agent") agents.push_back(&m);
    else if (m.senderType == "bot") bots.push_back(&m);
  }
  const std::string outcome = total == 0 ? "Resolved with no messages." : "Resolved after " + Count(total) + ".";
  if (in.redacted) return "This conversation was redacted: its content is not summarized. " + outcome;
  if (total == 0) return outcome;
  const std::size_t q = std::max<std::size_t>(options_.quoteMax, 2);

  std::string request = RequestQuote(customer, q);
  std::string opening = request.empty() ? "No message from the customer." : "The customer wrote: " + Quote(request);
  std::string handover = transferred ? "The AI agent handed the conversation to a person." : "";
  const bool byAgent = !agents.empty();
  std::string action = ActionQuote(byAgent ? agents : bots, q);
  std::string reply = action.empty() ? "No reply from an agent."
                                     : std::string(byAgent ? "An agent replied: " : "The AI agent replied: ") +
                                           Quote(action);
  // The customer's last word, when it came after every reply: it tells how
  // the conversation ended ("It arrived, thanks!").
  std::string lastWord;
  if (!customer.empty() && customer.back() != customer.front()) {
    const Message* lastCustomer = customer.back();
    auto after = [&](const std::vector<const Message*>& v) { return v.empty() || v.back()->seq < lastCustomer->seq; };
    auto sentences = SplitSentences(lastCustomer->text);
    if (after(agents) && after(bots) && !sentences.empty())
      lastWord = "The customer's last message: " + Quote(Trim(sentences.back(), q));
  }

  auto join = [&](bool withLastWord) {
    std::string out;
    const std::vector<const std::string*> parts{&opening, &handover, &reply, withLastWord ? &lastWord : nullptr,
                                                &outcome};
    for (const std::string* part : parts) {
      if (part == nullptr || part->empty()) continue;
      if (!out.empty()) out += ' ';
      out += *part;
    }
    return out;
  };
  std::string text = join(true);
  if (Utf8Length(text) > options_.textMax) text = join(false);  // the least needed part goes first
  if (Utf8Length(text) > options_.textMax)
    text = TruncateUtf8(text, std::max<std::size_t>(options_.textMax, 2) - 1) + "\u2026";
  return text;
}

Result<std::string> FixedSummarizer::Summarize(const SummaryInput& in) {
  (void)in;
  calls_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  if (!error_.empty()) return MakeError(ErrorCode::kInternal, error_);
  return text_;
}

}  // namespace livechat
