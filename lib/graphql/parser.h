// The GraphQL parser, a port of graphql-js 16's recursive descent parser with
// the same error messages and positions, plus limits on document size,
// token count and nesting depth so hostile input fails with a syntax error
// instead of exhausting memory or the stack.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "graphql/ast.h"
#include "graphql/lexer.h"
#include "livechat/graphql/engine.h"

namespace livechat::graphql::internal {

// A whole document. The error's message has no "Syntax Error: " prefix.
std::variant<std::shared_ptr<DocumentAst>, SyntaxError> ParseDocumentAst(std::string_view source,
                                                                         const Limits& limits);
// graphql-js parseConstValue / parseType: one const value or one type
// reference and nothing else (used for schema defaults and type notation).
std::variant<ValueNode, SyntaxError> ParseConstValueText(std::string_view source);
std::variant<TypeNode, SyntaxError> ParseTypeText(std::string_view source);

// graphql-js print() of a value or type node ("[1, 2]", "{a: \"x\"}", "[Int!]").
std::string PrintValueNode(const ValueNode& value);
std::string PrintTypeNode(const TypeNode& type);

}  // namespace livechat::graphql::internal
