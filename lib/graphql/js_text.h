// Text helpers that reproduce what graphql-js (and the JavaScript it runs on)
// does with strings, so that our messages, printed values and SDL match it
// byte for byte: UTF-16 lengths, JSON.stringify quoting, printString,
// printBlockString, Number() parsing, suggestion lists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "livechat/base/utf8.h"

namespace livechat::graphql::internal {

// Length in UTF-16 code units (what JavaScript's .length counts); an
// ill-formed byte counts as one unit.
std::size_t Utf16Length(std::string_view s);

// JSON.stringify(s).
void AppendJsonQuoted(std::string& out, std::string_view s);
// graphql-js printString: a GraphQL string literal.
std::string PrintString(std::string_view s);
// graphql-js printBlockString (no options).
std::string PrintBlockString(std::string_view s);
// graphql-js isPrintableAsBlockString.
bool IsPrintableAsBlockString(std::string_view s);
// graphql-js dedentBlockStringLines.
std::vector<std::string> DedentBlockStringLines(const std::vector<std::string>& lines);

// JavaScript's Number(s) for a string: NaN as nullopt.
std::optional<double> JsStringToNumber(std::string_view s);
// JavaScript's parseInt(s, 10) / parseFloat(s) for literals the lexer accepted.
double JsParseNumber(std::string_view literal);

// graphql-js suggestionList: options within edit distance, best first.
std::vector<std::string> SuggestionList(std::string_view input, const std::vector<std::string>& options);
// graphql-js didYouMean: "" or " Did you mean \"a\", \"b\", or \"c\"?".
std::string DidYouMean(const std::vector<std::string>& suggestions, std::string_view subMessage = {});
// graphql-js naturalCompare (<0, 0, >0).
int NaturalCompare(std::string_view a, std::string_view b);

}  // namespace livechat::graphql::internal
