#include "graphql/parser.h"

#include <algorithm>
#include <array>
#include <utility>

#include "graphql/js_text.h"

namespace livechat::graphql::internal {

TypeNode::TypeNode(const TypeNode& other)
    : kind(other.kind), loc(other.loc), name(other.name), of(other.of ? std::make_unique<TypeNode>(*other.of) : nullptr) {}

TypeNode& TypeNode::operator=(const TypeNode& other) {
  if (this != &other) {
    kind = other.kind;
    loc = other.loc;
    name = other.name;
    of = other.of ? std::make_unique<TypeNode>(*other.of) : nullptr;
  }
  return *this;
}

const FragmentNode* DocumentAst::FindFragment(std::string_view name) const {
  auto it = fragmentIndex.find(std::string(name));
  return it == fragmentIndex.end() ? nullptr : &fragments[it->second];
}

namespace {

constexpr std::array<std::string_view, 20> kDirectiveLocations = {
    "QUERY", "MUTATION", "SUBSCRIPTION", "FIELD", "FRAGMENT_DEFINITION", "FRAGMENT_SPREAD", "INLINE_FRAGMENT",
    "VARIABLE_DEFINITION", "SCHEMA", "SCALAR", "OBJECT", "FIELD_DEFINITION", "ARGUMENT_DEFINITION", "INTERFACE",
    "UNION", "ENUM", "ENUM_VALUE", "INPUT_OBJECT", "INPUT_FIELD_DEFINITION", "DIRECTIVE_DEFINITION",
};

class Parser {
 public:
  Parser(std::string_view source, const Limits& limits) : source_(source), lexer_(source), limits_(limits) {}

  const SyntaxError& error() const { return error_; }

  bool ParseDocument(DocumentAst& doc) {
    if (source_.size() > limits_.maxDocumentBytes) {
      return Fail(limits_.maxDocumentBytes, "Document contains more than " + std::to_string(limits_.maxDocumentBytes) +
                                                " bytes. Parsing aborted.");
    }
    if (!Expect(TokenKind::kSof)) return false;
    do {
      if (!ParseDefinition(doc)) return false;
      bool done = false;
      if (!Skip(TokenKind::kEof, done)) return false;
      if (done) break;
    } while (true);
    doc.tokenCount = tokenCount_;
    return true;
  }

  bool ParseConstValueOnly(ValueNode& out) {
    return Expect(TokenKind::kSof) && ParseValueLiteral(true, out) && Expect(TokenKind::kEof);
  }

  bool ParseTypeOnly(TypeNode& out) {
    return Expect(TokenKind::kSof) && ParseTypeReference(out) && Expect(TokenKind::kEof);
  }

 private:
  // ---- token helpers (graphql-js peek / expectToken / expectOptionalToken ...) ----

  const Token& Tok() const { return lexer_.token(); }
  bool Peek(TokenKind kind) const { return Tok().kind == kind; }

  bool Fail(std::size_t position, std::string message) {
    error_ = SyntaxError{std::move(message), lexer_.LocationAt(position)};
    return false;
  }

  bool Unexpected(const Token& token) { return Fail(token.start, "Unexpected " + TokenDesc(token) + "."); }

  bool AdvanceLexer() {
    if (!lexer_.Advance()) {
      error_ = lexer_.error();
      return false;
    }
    if (Tok().kind != TokenKind::kEof) {
      ++tokenCount_;
      if (tokenCount_ > limits_.maxTokens) {
        return Fail(Tok().start,
                    "Document contains more than " + std::to_string(limits_.maxTokens) + " tokens. Parsing aborted.");
      }
    }
    return true;
  }

  bool Expect(TokenKind kind, Token* consumed = nullptr) {
    if (Tok().kind == kind) {
      if (consumed != nullptr) *consumed = Tok();
      return AdvanceLexer();
    }
    return Fail(Tok().start, "Expected " + TokenKindDesc(kind) + ", found " + TokenDesc(Tok()) + ".");
  }

  // expectOptionalToken: `found` tells whether it was there. False only on error.
  bool Skip(TokenKind kind, bool& found) {
    found = Tok().kind == kind;
    return !found || AdvanceLexer();
  }

  bool ExpectKeyword(std::string_view value) {
    if (Tok().kind == TokenKind::kName && Tok().value == value) return AdvanceLexer();
    return Fail(Tok().start, "Expected \"" + std::string(value) + "\", found " + TokenDesc(Tok()) + ".");
  }

  bool SkipKeyword(std::string_view value, bool& found) {
    found = Tok().kind == TokenKind::kName && Tok().value == value;
    return !found || AdvanceLexer();
  }

  // Nesting guard for selection sets, list/object literals and list types.
  bool Enter() {
    if (++depth_ > limits_.maxDepth) {
      return Fail(Tok().start, "Document is nested more than " + std::to_string(limits_.maxDepth) +
                                   " levels deep. Parsing aborted.");
    }
    return true;
  }
  void Leave() { --depth_; }

  bool ParseName(std::string& out, Loc* loc = nullptr) {
    Token t;
    if (!Expect(TokenKind::kName, &t)) return false;
    out = std::move(t.value);
    if (loc != nullptr) *loc = t.loc;
    return true;
  }

  // ---- document ----

  bool ParseDefinition(DocumentAst& doc) {
    if (Peek(TokenKind::kBraceL)) return ParseOperationDefinition(doc);
    const bool hasDescription = Peek(TokenKind::kString) || Peek(TokenKind::kBlockString);
    Token keyword;
    if (hasDescription) {
      const Token* next = lexer_.Lookahead();
      if (next == nullptr) {
        error_ = lexer_.error();
        return false;
      }
      keyword = *next;
    } else {
      keyword = Tok();
    }
    if (hasDescription && keyword.kind == TokenKind::kBraceL) {
      return Fail(Tok().start, "Unexpected description, descriptions are not supported on shorthand queries.");
    }
    if (keyword.kind == TokenKind::kName) {
      const std::string& k = keyword.value;
      if (k == "schema" || k == "scalar" || k == "type" || k == "interface" || k == "union" || k == "enum" ||
          k == "input" || k == "directive") {
        return ParseTypeSystemDefinition(doc, k);
      }
      if (k == "query" || k == "mutation" || k == "subscription") return ParseOperationDefinition(doc);
      if (k == "fragment") return ParseFragmentDefinition(doc);
      if (hasDescription) {
        return Fail(Tok().start, "Unexpected description, only GraphQL definitions support descriptions.");
      }
      if (k == "extend") return ParseTypeSystemExtension(doc);
    }
    return Unexpected(keyword);
  }

  bool ParseDescription() {
    if (Peek(TokenKind::kString) || Peek(TokenKind::kBlockString)) return AdvanceLexer();
    return true;
  }

  bool ParseOperationType(OperationType& out) {
    Token t;
    if (!Expect(TokenKind::kName, &t)) return false;
    if (t.value == "query") {
      out = OperationType::kQuery;
    } else if (t.value == "mutation") {
      out = OperationType::kMutation;
    } else if (t.value == "subscription") {
      out = OperationType::kSubscription;
    } else {
      return Unexpected(t);
    }
    return true;
  }

  bool ParseOperationDefinition(DocumentAst& doc) {
    OperationNode op;
    op.loc = Tok().loc;
    if (Peek(TokenKind::kBraceL)) {
      if (!ParseSelectionSet(op.selectionSet)) return false;
    } else {
      if (!ParseDescription() || !ParseOperationType(op.operation)) return false;
      if (Peek(TokenKind::kName)) {
        op.name.emplace();
        if (!ParseName(*op.name, &op.nameLoc)) return false;
      }
      if (!ParseVariableDefinitions(op.variables) || !ParseDirectives(false, op.directives) ||
          !ParseSelectionSet(op.selectionSet)) {
        return false;
      }
    }
    doc.definitions.push_back(Definition{Definition::Kind::kOperation, doc.operations.size()});
    doc.operations.push_back(std::move(op));
    return true;
  }

  bool ParseVariableDefinitions(std::vector<VariableDefinitionNode>& out) {
    bool open = false;
    if (!Skip(TokenKind::kParenL, open)) return false;
    if (!open) return true;
    bool close = false;
    do {
      VariableDefinitionNode def;
      def.loc = Tok().loc;
      if (!ParseDescription()) return false;
      def.variableLoc = Tok().loc;
      if (!Expect(TokenKind::kDollar) || !ParseName(def.name, &def.nameLoc) || !Expect(TokenKind::kColon) ||
          !ParseTypeReference(def.type)) {
        return false;
      }
      bool hasDefault = false;
      if (!Skip(TokenKind::kEquals, hasDefault)) return false;
      if (hasDefault) {
        def.defaultValue.emplace();
        if (!ParseValueLiteral(true, *def.defaultValue)) return false;
      }
      if (!ParseDirectives(true, def.directives)) return false;
      out.push_back(std::move(def));
      if (!Skip(TokenKind::kParenR, close)) return false;
    } while (!close);
    return true;
  }

  bool ParseSelectionSet(SelectionSetNode& out) {
    if (!Enter()) return false;
    out.loc = Tok().loc;
    if (!Expect(TokenKind::kBraceL)) return false;
    bool close = false;
    do {
      SelectionNode sel;
      if (!(Peek(TokenKind::kSpread) ? ParseFragment(sel) : ParseField(sel))) return false;
      out.selections.push_back(std::move(sel));
      if (!Skip(TokenKind::kBraceR, close)) return false;
    } while (!close);
    Leave();
    return true;
  }

  bool ParseField(SelectionNode& out) {
    out.kind = SelectionNode::Kind::kField;
    out.loc = Tok().loc;
    std::string nameOrAlias;
    Loc nameOrAliasLoc;
    if (!ParseName(nameOrAlias, &nameOrAliasLoc)) return false;
    bool hasAlias = false;
    if (!Skip(TokenKind::kColon, hasAlias)) return false;
    if (hasAlias) {
      out.alias = std::move(nameOrAlias);
      if (!ParseName(out.name, &out.nameLoc)) return false;
    } else {
      out.name = std::move(nameOrAlias);
      out.nameLoc = nameOrAliasLoc;
    }
    if (!ParseArguments(false, out.args) || !ParseDirectives(false, out.directives)) return false;
    if (Peek(TokenKind::kBraceL)) {
      out.selectionSet.emplace();
      if (!ParseSelectionSet(*out.selectionSet)) return false;
    }
    return true;
  }

  bool ParseArguments(bool isConst, std::vector<ArgumentNode>& out) {
    bool open = false;
    if (!Skip(TokenKind::kParenL, open)) return false;
    if (!open) return true;
    bool close = false;
    do {
      ArgumentNode arg;
      arg.loc = Tok().loc;
      if (!ParseName(arg.name) || !Expect(TokenKind::kColon) || !ParseValueLiteral(isConst, arg.value)) return false;
      out.push_back(std::move(arg));
      if (!Skip(TokenKind::kParenR, close)) return false;
    } while (!close);
    return true;
  }

  bool ParseFragment(SelectionNode& out) {
    out.loc = Tok().loc;
    if (!Expect(TokenKind::kSpread)) return false;
    bool hasTypeCondition = false;
    if (!SkipKeyword("on", hasTypeCondition)) return false;
    if (!hasTypeCondition && Peek(TokenKind::kName)) {
      out.kind = SelectionNode::Kind::kFragmentSpread;
      return ParseFragmentName(out.name, &out.nameLoc) && ParseDirectives(false, out.directives);
    }
    out.kind = SelectionNode::Kind::kInlineFragment;
    if (hasTypeCondition) {
      out.typeCondition.emplace();
      if (!ParseNamedType(*out.typeCondition)) return false;
    }
    if (!ParseDirectives(false, out.directives)) return false;
    out.selectionSet.emplace();
    return ParseSelectionSet(*out.selectionSet);
  }

  bool ParseFragmentName(std::string& out, Loc* loc) {
    if (Tok().value == "on") return Unexpected(Tok());
    return ParseName(out, loc);
  }

  bool ParseFragmentDefinition(DocumentAst& doc) {
    FragmentNode frag;
    frag.loc = Tok().loc;
    if (!ParseDescription() || !ExpectKeyword("fragment") || !ParseFragmentName(frag.name, &frag.nameLoc) ||
        !ExpectKeyword("on") || !ParseNamedType(frag.typeCondition) || !ParseDirectives(false, frag.directives) ||
        !ParseSelectionSet(frag.selectionSet)) {
      return false;
    }
    doc.definitions.push_back(Definition{Definition::Kind::kFragment, doc.fragments.size()});
    doc.fragmentIndex[frag.name] = doc.fragments.size();
    doc.fragments.push_back(std::move(frag));
    return true;
  }

  // ---- values ----

  bool ParseValueLiteral(bool isConst, ValueNode& out) {
    const Token& token = Tok();
    out.loc = token.loc;
    switch (token.kind) {
      case TokenKind::kBracketL: {
        out.kind = ValueKind::kList;
        if (!Enter() || !Expect(TokenKind::kBracketL)) return false;
        bool close = false;
        if (!Skip(TokenKind::kBracketR, close)) return false;
        while (!close) {
          ValueNode item;
          if (!ParseValueLiteral(isConst, item)) return false;
          out.items.push_back(std::move(item));
          if (!Skip(TokenKind::kBracketR, close)) return false;
        }
        Leave();
        return true;
      }
      case TokenKind::kBraceL: {
        out.kind = ValueKind::kObject;
        if (!Enter() || !Expect(TokenKind::kBraceL)) return false;
        bool close = false;
        if (!Skip(TokenKind::kBraceR, close)) return false;
        while (!close) {
          ObjectFieldNode field;
          field.loc = Tok().loc;
          if (!ParseName(field.name) || !Expect(TokenKind::kColon) || !ParseValueLiteral(isConst, field.value)) {
            return false;
          }
          out.fields.push_back(std::move(field));
          if (!Skip(TokenKind::kBraceR, close)) return false;
        }
        Leave();
        return true;
      }
      case TokenKind::kInt:
      case TokenKind::kFloat:
        out.kind = token.kind == TokenKind::kInt ? ValueKind::kInt : ValueKind::kFloat;
        out.text = token.value;
        return AdvanceLexer();
      case TokenKind::kString:
      case TokenKind::kBlockString:
        out.kind = ValueKind::kString;
        out.block = token.kind == TokenKind::kBlockString;
        out.text = token.value;
        return AdvanceLexer();
      case TokenKind::kName: {
        const std::string& v = token.value;
        if (v == "true" || v == "false") {
          out.kind = ValueKind::kBoolean;
          out.boolValue = v == "true";
        } else if (v == "null") {
          out.kind = ValueKind::kNull;
        } else {
          out.kind = ValueKind::kEnum;
          out.text = v;
        }
        return AdvanceLexer();
      }
      case TokenKind::kDollar: {
        const Token dollar = token;
        if (isConst) {
          if (!Expect(TokenKind::kDollar)) return false;
          if (Tok().kind == TokenKind::kName) {
            return Fail(dollar.start, "Unexpected variable \"$" + Tok().value + "\" in constant value.");
          }
          return Unexpected(dollar);
        }
        out.kind = ValueKind::kVariable;
        return Expect(TokenKind::kDollar) && ParseName(out.text);
      }
      default:
        return Unexpected(token);
    }
  }

  bool ParseDirectives(bool isConst, std::vector<DirectiveNode>& out) {
    while (Peek(TokenKind::kAt)) {
      DirectiveNode d;
      d.loc = Tok().loc;
      if (!Expect(TokenKind::kAt) || !ParseName(d.name) || !ParseArguments(isConst, d.args)) return false;
      out.push_back(std::move(d));
    }
    return true;
  }

  // ---- types ----

  bool ParseTypeReference(TypeNode& out) {
    out.loc = Tok().loc;
    bool isList = false;
    if (!Skip(TokenKind::kBracketL, isList)) return false;
    TypeNode type;
    if (isList) {
      if (!Enter()) return false;
      type.kind = TypeNode::Kind::kList;
      type.loc = out.loc;
      type.of = std::make_unique<TypeNode>();
      if (!ParseTypeReference(*type.of) || !Expect(TokenKind::kBracketR)) return false;
      Leave();
    } else if (!ParseNamedType(type)) {
      return false;
    }
    bool nonNull = false;
    if (!Skip(TokenKind::kBang, nonNull)) return false;
    if (nonNull) {
      out.kind = TypeNode::Kind::kNonNull;
      out.of = std::make_unique<TypeNode>(std::move(type));
    } else {
      out = std::move(type);
    }
    return true;
  }

  bool ParseNamedType(TypeNode& out) {
    out.kind = TypeNode::Kind::kNamed;
    out.loc = Tok().loc;
    return ParseName(out.name);
  }

  // ---- type system: parsed for syntax; only names and directive shapes kept ----

  bool ParseTypeSystemDefinition(DocumentAst& doc, const std::string& keyword) {
    TypeSystemNode node;
    node.loc = Tok().loc;
    if (!ParseDescription()) return false;
    bool ok;
    if (keyword == "schema") {
      node.kind = TypeSystemNode::Kind::kSchema;
      ok = ExpectKeyword("schema") && SkipConstDirectives() && ParseOperationTypes(true);
    } else if (keyword == "directive") {
      node.kind = TypeSystemNode::Kind::kDirectiveDefinition;
      ok = ParseDirectiveDefinition(node);
    } else {
      node.kind = TypeSystemNode::Kind::kTypeDefinition;
      ok = ExpectKeyword(keyword) && ParseName(node.name) && ParseTypeBody(keyword, false);
    }
    if (!ok) return false;
    doc.definitions.push_back(Definition{Definition::Kind::kTypeSystem, doc.typeSystem.size()});
    doc.typeSystem.push_back(std::move(node));
    return true;
  }

  bool ParseTypeSystemExtension(DocumentAst& doc) {
    const Token* next = lexer_.Lookahead();
    if (next == nullptr) {
      error_ = lexer_.error();
      return false;
    }
    const Token keyword = *next;
    if (keyword.kind == TokenKind::kName) {
      const std::string& k = keyword.value;
      if (k == "schema" || k == "scalar" || k == "type" || k == "interface" || k == "union" || k == "enum" ||
          k == "input") {
        TypeSystemNode node;
        node.loc = Tok().loc;
        if (!ExpectKeyword("extend") || !ExpectKeyword(k)) return false;
        if (k == "schema") {
          node.kind = TypeSystemNode::Kind::kSchemaExtension;
          const std::size_t before = tokenCount_;
          if (!SkipConstDirectives() || !ParseOperationTypes(false)) return false;
          if (tokenCount_ == before) return Unexpected(Tok());
        } else {
          node.kind = TypeSystemNode::Kind::kTypeExtension;
          if (!ParseName(node.name)) return false;
          const std::size_t before = tokenCount_;
          if (!ParseTypeBody(k, true)) return false;
          if (tokenCount_ == before) return Unexpected(Tok());
        }
        doc.definitions.push_back(Definition{Definition::Kind::kTypeSystem, doc.typeSystem.size()});
        doc.typeSystem.push_back(std::move(node));
        return true;
      }
    }
    return Unexpected(keyword);
  }

  // The part after the name of a type definition or extension.
  bool ParseTypeBody(const std::string& keyword, bool isExtension) {
    (void)isExtension;
    if (keyword == "scalar") return SkipConstDirectives();
    if (keyword == "type" || keyword == "interface") {
      return ParseImplementsInterfaces() && SkipConstDirectives() && ParseFieldsDefinition();
    }
    if (keyword == "union") {
      if (!SkipConstDirectives()) return false;
      bool hasMembers = false;
      if (!Skip(TokenKind::kEquals, hasMembers)) return false;
      return !hasMembers || ParseDelimitedNamedTypes(TokenKind::kPipe);
    }
    if (keyword == "enum") {
      if (!SkipConstDirectives()) return false;
      return ParseOptionalBlock(TokenKind::kBraceL, TokenKind::kBraceR, [this] {
        if (!ParseDescription()) return false;
        const Token& t = Tok();
        if (t.value == "true" || t.value == "false" || t.value == "null") {
          return Fail(t.start, TokenDesc(t) + " is reserved and cannot be used for an enum value.");
        }
        std::string name;
        return ParseName(name) && SkipConstDirectives();
      });
    }
    // input
    return SkipConstDirectives() &&
           ParseOptionalBlock(TokenKind::kBraceL, TokenKind::kBraceR, [this] { return ParseInputValueDef(nullptr); });
  }

  template <typename Fn>
  bool ParseOptionalBlock(TokenKind open, TokenKind close, Fn item) {
    bool isOpen = false;
    if (!Skip(open, isOpen)) return false;
    if (!isOpen) return true;
    bool isClosed = false;
    do {
      if (!item()) return false;
      if (!Skip(close, isClosed)) return false;
    } while (!isClosed);
    return true;
  }

  bool ParseImplementsInterfaces() {
    bool has = false;
    if (!SkipKeyword("implements", has)) return false;
    return !has || ParseDelimitedNamedTypes(TokenKind::kAmp);
  }

  bool ParseDelimitedNamedTypes(TokenKind delimiter) {
    bool more = false;
    if (!Skip(delimiter, more)) return false;
    do {
      TypeNode t;
      if (!ParseNamedType(t)) return false;
      if (!Skip(delimiter, more)) return false;
    } while (more);
    return true;
  }

  bool ParseFieldsDefinition() {
    return ParseOptionalBlock(TokenKind::kBraceL, TokenKind::kBraceR, [this] {
      std::string name;
      TypeNode type;
      return ParseDescription() && ParseName(name) && ParseArgumentDefs(nullptr) && Expect(TokenKind::kColon) &&
             ParseTypeReference(type) && SkipConstDirectives();
    });
  }

  bool ParseArgumentDefs(std::vector<TypeSystemNode::Arg>* out) {
    return ParseOptionalBlock(TokenKind::kParenL, TokenKind::kParenR, [this, out] { return ParseInputValueDef(out); });
  }

  bool ParseInputValueDef(std::vector<TypeSystemNode::Arg>* out) {
    TypeSystemNode::Arg arg;
    TypeNode type;
    if (!ParseDescription() || !ParseName(arg.name) || !Expect(TokenKind::kColon) || !ParseTypeReference(type)) {
      return false;
    }
    bool hasDefault = false;
    if (!Skip(TokenKind::kEquals, hasDefault)) return false;
    if (hasDefault) {
      ValueNode value;
      if (!ParseValueLiteral(true, value)) return false;
    }
    if (!SkipConstDirectives()) return false;
    if (out != nullptr) {
      arg.typeText = PrintTypeNode(type);
      arg.required = type.kind == TypeNode::Kind::kNonNull && !hasDefault;
      out->push_back(std::move(arg));
    }
    return true;
  }

  bool ParseOperationTypes(bool required) {
    auto item = [this] {
      OperationType op;
      TypeNode type;
      return ParseOperationType(op) && Expect(TokenKind::kColon) && ParseNamedType(type);
    };
    if (!required) return ParseOptionalBlock(TokenKind::kBraceL, TokenKind::kBraceR, item);
    if (!Expect(TokenKind::kBraceL)) return false;
    bool close = false;
    do {
      if (!item()) return false;
      if (!Skip(TokenKind::kBraceR, close)) return false;
    } while (!close);
    return true;
  }

  bool ParseDirectiveDefinition(TypeSystemNode& node) {
    if (!ExpectKeyword("directive") || !Expect(TokenKind::kAt) || !ParseName(node.name) ||
        !ParseArgumentDefs(&node.args) || !SkipKeyword("repeatable", node.repeatable) || !ExpectKeyword("on")) {
      return false;
    }
    bool more = false;
    if (!Skip(TokenKind::kPipe, more)) return false;
    do {
      const Token start = Tok();
      std::string name;
      if (!ParseName(name)) return false;
      if (std::find(kDirectiveLocations.begin(), kDirectiveLocations.end(), name) == kDirectiveLocations.end()) {
        return Unexpected(start);
      }
      node.locations.push_back(std::move(name));
      if (!Skip(TokenKind::kPipe, more)) return false;
    } while (more);
    return true;
  }

  bool SkipConstDirectives() {
    std::vector<DirectiveNode> ignored;
    return ParseDirectives(true, ignored);
  }

  std::string_view source_;
  Lexer lexer_;
  const Limits& limits_;
  SyntaxError error_;
  std::size_t tokenCount_ = 0;
  int depth_ = 0;
};

void PrintValueInto(std::string& out, const ValueNode& v) {
  switch (v.kind) {
    case ValueKind::kVariable: out += "$" + v.text; return;
    case ValueKind::kInt:
    case ValueKind::kFloat:
    case ValueKind::kEnum: out += v.text; return;
    case ValueKind::kString: out += v.block ? PrintBlockString(v.text) : PrintString(v.text); return;
    case ValueKind::kBoolean: out += v.boolValue ? "true" : "false"; return;
    case ValueKind::kNull: out += "null"; return;
    case ValueKind::kList:
      out += "[";
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) out += ", ";
        PrintValueInto(out, v.items[i]);
      }
      out += "]";
      return;
    case ValueKind::kObject:
      out += "{";
      for (std::size_t i = 0; i < v.fields.size(); ++i) {
        if (i > 0) out += ", ";
        out += v.fields[i].name + ": ";
        PrintValueInto(out, v.fields[i].value);
      }
      out += "}";
      return;
  }
}

}  // namespace

std::variant<std::shared_ptr<DocumentAst>, SyntaxError> ParseDocumentAst(std::string_view source,
                                                                         const Limits& limits) {
  auto doc = std::make_shared<DocumentAst>();
  Parser parser(source, limits);
  if (!parser.ParseDocument(*doc)) return parser.error();
  return doc;
}

std::variant<ValueNode, SyntaxError> ParseConstValueText(std::string_view source) {
  Limits limits;
  ValueNode value;
  Parser parser(source, limits);
  if (!parser.ParseConstValueOnly(value)) return parser.error();
  return value;
}

std::variant<TypeNode, SyntaxError> ParseTypeText(std::string_view source) {
  Limits limits;
  TypeNode type;
  Parser parser(source, limits);
  if (!parser.ParseTypeOnly(type)) return parser.error();
  return type;
}

std::string PrintValueNode(const ValueNode& value) {
  std::string out;
  PrintValueInto(out, value);
  return out;
}

std::string PrintTypeNode(const TypeNode& type) {
  switch (type.kind) {
    case TypeNode::Kind::kNamed: return type.name;
    case TypeNode::Kind::kList: return "[" + PrintTypeNode(*type.of) + "]";
    case TypeNode::Kind::kNonNull: return PrintTypeNode(*type.of) + "!";
  }
  return "";
}

}  // namespace livechat::graphql::internal
