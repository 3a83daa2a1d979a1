// The extractive summarizer: exact output for known conversations, and the
// edge cases (no customer, bot only, long, non-Latin, redacted, empty).
#include <doctest/doctest.h>

#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"
#include "livechat/summarizer.h"

namespace livechat {
namespace {

Message Msg(std::int64_t seq, const std::string& senderType, const std::string& text) {
  Message m;
  m.id = "m" + std::to_string(seq);
  m.seq = seq;
  m.conversationId = "c1";
  m.shopId = "s1";
  m.senderType = senderType;
  m.text = text;
  return m;
}

std::string Summarize(std::vector<Message> messages, ExtractiveOptions options = {}) {
  SummaryInput in;
  in.conversation.id = "c1";
  in.conversation.status = "resolved";
  in.messages = std::move(messages);
  auto r = ExtractiveSummarizer(options).Summarize(in);
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("extractive: the request, what was done and the outcome, quoted from the conversation") {
  CHECK(Summarize({Msg(1, "customer", "Hi there! My order #1001 arrived damaged. Can I get a replacement?"),
                   Msg(2, "agent",
                       "Hello! Sorry to hear that. I have shipped a replacement for order #1001 today. Anything "
                       "else I can help with?"),
                   Msg(3, "customer", "No, that's all. Thanks!"),
                   Msg(4, "agent", "You're welcome, have a nice day.")}) ==
        "The customer wrote: \"My order #1001 arrived damaged. Can I get a replacement?\" An agent replied: \"I "
        "have shipped a replacement for order #1001 today.\" Resolved after 4 messages.");
  CHECK(ExtractiveSummarizer().name() == "extractive");
}

TEST_CASE("extractive: the customer's last word when it came after every reply") {
  CHECK(Summarize({Msg(1, "customer", "Where is my parcel?"),
                   Msg(2, "agent", "It was delivered to your neighbour at number 12."),
                   Msg(3, "customer", "Found it,\nthank you!")}) ==
        "The customer wrote: \"Where is my parcel?\" An agent replied: \"It was delivered to your neighbour at "
        "number 12.\" The customer's last message: \"thank you!\" Resolved after 3 messages.");
}

TEST_CASE("extractive: no customer message, only the AI agent, no messages at all") {
  CHECK(Summarize({Msg(1, "bot", "Our store ships worldwide within 5 days. Is there anything else?")}) ==
        "No message from the customer. The AI agent replied: \"Our store ships worldwide within 5 days.\" Resolved "
        "after 1 message.");
  CHECK(Summarize({Msg(1, "customer", "Do you ship to Norway?")}) ==
        "The customer wrote: \"Do you ship to Norway?\" No reply from an agent. Resolved after 1 message.");
  CHECK(Summarize({}) == "Resolved with no messages.");
  CHECK(Summarize({Msg(1, "system", "Conversation assigned.")}) ==
        "No message from the customer. No reply from an agent. Resolved after 1 message.");
}

TEST_CASE("extractive: pleasantries are skipped, questions only when nothing else was said") {
  CHECK(Summarize({Msg(1, "customer", "Hi!"), Msg(2, "agent", "Hello, how can I help?")}) ==
        "The customer wrote: \"Hi!\" An agent replied: \"Hello, how can I help?\" Resolved after 2 messages.");
  // An agent's answer wins over the AI agent's; the hand-over is stated.
  Message handover = Msg(2, "bot", "Let me get a colleague for the warranty question.");
  handover.isTransfer = true;
  CHECK(Summarize({Msg(1, "customer", "Hello. Is the kettle covered by a two year warranty?"), handover,
                   Msg(3, "agent", "Yes, every kettle has a two year warranty.")}) ==
        "The customer wrote: \"Is the kettle covered by a two year warranty?\" The AI agent handed the "
        "conversation to a person. An agent replied: \"Yes, every kettle has a two year warranty.\" Resolved after "
        "3 messages.");
}

TEST_CASE("extractive: notes and deleted messages are never quoted") {
  Message note = Msg(2, "agent", "Internal: this customer is on the VIP list and gets free shipping forever.");
  note.isNote = true;
  Message deleted = Msg(3, "agent", "Sent to the wrong conversation by mistake, please ignore this one.");
  deleted.isDeleted = true;
  CHECK(Summarize({Msg(1, "customer", "Can I change my address?"), note, deleted,
                   Msg(4, "agent", "Done, the address is updated.")}) ==
        "The customer wrote: \"Can I change my address?\" An agent replied: \"Done, the address is updated.\" "
        "Resolved after 2 messages.");
}

TEST_CASE("extractive: non-Latin text is split on its own punctuation and never cut inside a character") {
  CHECK(Summarize({Msg(1, "customer", "我的订单还没有到。请问什么时候发货？"), Msg(2, "agent", "您的订单已于今天发货。")}) ==
        "The customer wrote: \"我的订单还没有到。请问什么时候发货？\" An agent replied: \"您的订单已于今天发货。\" "
        "Resolved after 2 messages.");
  CHECK(Summarize({Msg(1, "customer", "أين طلبي؟ لم يصل بعد.")}) ==
        "The customer wrote: \"أين طلبي؟ لم يصل بعد.\" No reply from an agent. Resolved after 1 message.");
  // 300 ideographs without a space: cut at 159 code points plus an ellipsis.
  std::string long_cjk;
  for (int i = 0; i < 300; ++i) long_cjk += "字";
  std::string cut;
  for (int i = 0; i < 159; ++i) cut += "字";
  CHECK(Summarize({Msg(1, "customer", long_cjk)}) ==
        "The customer wrote: \"" + cut + "\u2026\" No reply from an agent. Resolved after 1 message.");
}

TEST_CASE("extractive: long messages are trimmed on a word, the whole summary is bounded") {
  std::string longSentence = "Please";
  for (int i = 0; i < 100; ++i) longSentence += " very";
  longSentence += " help.";
  std::string trimmed = "Please";
  for (int i = 0; i < 30; ++i) trimmed += " very";
  CHECK(Summarize({Msg(1, "customer", longSentence)}) ==
        "The customer wrote: \"" + trimmed + "\u2026\" No reply from an agent. Resolved after 1 message.");

  // Three long quotes: 160 each would exceed 600, so the last word goes first.
  std::string text = Summarize({Msg(1, "customer", longSentence), Msg(2, "agent", longSentence),
                                Msg(3, "customer", "Second " + longSentence)});
  CHECK(Utf8Length(text) <= 600);
  CHECK(text.find("last message") != std::string::npos);
  text = Summarize({Msg(1, "customer", longSentence), Msg(2, "agent", longSentence),
                    Msg(3, "customer", "Second " + longSentence)},
                   ExtractiveOptions{160, 400});
  CHECK(Utf8Length(text) <= 400);
  CHECK(text.find("last message") == std::string::npos);
  CHECK(text.substr(text.size() - std::string("Resolved after 3 messages.").size()) == "Resolved after 3 messages.");
  text = Summarize({Msg(1, "customer", longSentence)}, ExtractiveOptions{160, 100});
  CHECK(Utf8Length(text) == 100);
}

TEST_CASE("extractive: a redacted conversation is not summarized, only counted") {
  SummaryInput in;
  in.conversation.id = "c1";
  in.messages = {Msg(1, "customer", "My email is casey@example.com, please call 555-0100."),
                 Msg(2, "agent", "Thanks, noted.")};
  in.redacted = true;
  auto r = ExtractiveSummarizer().Summarize(in);
  REQUIRE(r.ok());
  CHECK(*r == "This conversation was redacted: its content is not summarized. Resolved after 2 messages.");
}

TEST_CASE("extractive: omitted messages of a long conversation are counted") {
  SummaryInput in;
  in.messages = {Msg(1, "customer", "Where is my order?"), Msg(900, "agent", "It ships tomorrow.")};
  in.omittedMessages = 898;
  auto r = ExtractiveSummarizer().Summarize(in);
  REQUIRE(r.ok());
  CHECK(*r == "The customer wrote: \"Where is my order?\" An agent replied: \"It ships tomorrow.\" Resolved after "
              "900 messages.");
}

TEST_CASE("fixed summarizer: the test double answers its text or its error") {
  FixedSummarizer fixed("Fixed text.", "double");
  CHECK(fixed.name() == "double");
  auto ok = fixed.Summarize({});
  REQUIRE(ok.ok());
  CHECK(*ok == "Fixed text.");
  fixed.SetFailure("endpoint down");
  auto bad = fixed.Summarize({});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "endpoint down");
  CHECK(fixed.calls() == 2);
}

}  // namespace livechat
