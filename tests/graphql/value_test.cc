#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "graphql/coercion.h"
#include "graphql/js_text.h"
#include "livechat/graphql.h"

using namespace livechat::graphql;
using livechat::ErrorCode;
using livechat::Result;

TEST_CASE("Value: kinds, accessors, object order and Set/Append") {
  Value v;
  CHECK(v.IsNull());
  CHECK(Value(true).AsBool());
  CHECK(Value(7).AsInt() == 7);
  CHECK(Value(2.5).AsFloat() == 2.5);
  CHECK(Value("x").IsString());  // a string literal is a String, not a Boolean
  CHECK(Value::Enum("A").IsEnum());
  CHECK(Value::Enum("A").AsString() == "A");
  Value o;
  o.Set("b", 1).Set("a", 2).Set("b", 3);
  CHECK(o.ToJson() == R"({"b":3,"a":2})");
  CHECK(o.Find("a")->AsInt() == 2);
  CHECK(o.Find("zz") == nullptr);
  Value l;
  l.Append(1).Append("two").Append(Value());
  CHECK(l.ToJson() == R"([1,"two",null])");
  CHECK(Value(Value::List{Value(1)}) == Value(Value::List{Value(1)}));
  CHECK(Value(1) != Value(1.0));
}

TEST_CASE("Value: host objects keep their type") {
  struct Thing {
    int n;
  };
  Value h = Value::Host<Thing>(std::make_shared<const Thing>(Thing{4}));
  REQUIRE(h.HostAs<Thing>() != nullptr);
  CHECK(h.HostAs<Thing>()->n == 4);
  CHECK(h.HostAs<int>() == nullptr);
  CHECK(Value(3).HostAs<Thing>() == nullptr);
  CHECK(h.ToJson() == "null");
}

TEST_CASE("Value: JSON output escapes like JSON.stringify") {
  CHECK(Value(std::string("a\"b\\c\n\t\x01\x1f/é")).ToJson() == "\"a\\\"b\\\\c\\n\\t\\u0001\\u001f/é\"");
  CHECK(Value(-0.0).ToJson() == "0");
  CHECK(Value(std::numeric_limits<double>::infinity()).ToJson() == "null");
  CHECK(Value::Enum("GUEST").ToJson() == "\"GUEST\"");
  // Ill-formed UTF-8 never reaches a response: each bad byte becomes U+FFFD.
  CHECK(Value(std::string("a\xff\xdf!")).ToJson() == "\"a\xEF\xBF\xBD\xEF\xBF\xBD!\"");
}

TEST_CASE("FormatJsNumber follows ECMAScript Number::toString") {
  CHECK(FormatJsNumber(0) == "0");
  CHECK(FormatJsNumber(1) == "1");
  CHECK(FormatJsNumber(-1.5) == "-1.5");
  CHECK(FormatJsNumber(0.1) == "0.1");
  CHECK(FormatJsNumber(123456789) == "123456789");
  CHECK(FormatJsNumber(1e21) == "1e+21");
  CHECK(FormatJsNumber(1e20) == "100000000000000000000");
  CHECK(FormatJsNumber(1.5e-7) == "1.5e-7");
  CHECK(FormatJsNumber(0.000001) == "0.000001");
  CHECK(FormatJsNumber(123.456) == "123.456");
  CHECK(FormatJsNumber(1.7976931348623157e308) == "1.7976931348623157e+308");
  CHECK(FormatJsNumber(5e-324) == "5e-324");
  CHECK(FormatJsNumber(std::nan("")) == "NaN");
}

TEST_CASE("ParseJson: numbers as JavaScript sees them, limits, errors") {
  Result<Value> v = ParseJson(R"({"a": 3, "b": 3.0, "c": 3.5, "d": 1e10, "e": -2147483648, "f": [true, null, "x"]})");
  REQUIRE(v.ok());
  CHECK(v->Find("a")->IsInt());
  CHECK(v->Find("b")->IsInt());  // 3.0 === 3 in JavaScript
  CHECK(v->Find("c")->IsFloat());
  CHECK(v->Find("d")->IsFloat());  // integral but beyond 32 bits
  CHECK(v->Find("e")->AsInt() == -2147483648);
  CHECK(v->Find("f")->ToJson() == R"([true,null,"x"])");

  Result<Value> dup = ParseJson(R"({"k": 1, "j": 2, "k": 3})");
  REQUIRE(dup.ok());
  CHECK(dup->ToJson() == R"({"k":3,"j":2})");  // JSON.parse keeps the last value

  CHECK(ParseJson("{").error().code == ErrorCode::kInvalidParams);
  CHECK(!ParseJson("[1] 2").ok());
  CHECK(!ParseJson("\"\xff\"").ok());  // invalid UTF-8
  CHECK(ParseJson(std::string(64, '[') + std::string(64, ']')).ok());
  Result<Value> deep = ParseJson(std::string(65, '[') + std::string(65, ']'));
  REQUIRE(!deep.ok());
  CHECK(deep.error().message == "JSON is nested too deeply");
  // A million brackets: the parse is iterative, so this fails cleanly.
  CHECK(!ParseJson(std::string(1000000, '[')).ok());
}

TEST_CASE("js text helpers: suggestion lists, didYouMean, printString, block strings") {
  using namespace livechat::graphql::internal;
  CHECK(SuggestionList("firstname", {"firstName", "lastName", "fullName", "id"}) ==
        std::vector<std::string>{"firstName", "lastName", "fullName"});
  CHECK(SuggestionList("idd", {"id", "ids"}) == std::vector<std::string>{"id", "ids"});
  CHECK(SuggestionList("zzz", {"id"}).empty());
  CHECK(NaturalCompare("a2", "a10") < 0);
  CHECK(DidYouMean({}) == "");
  CHECK(DidYouMean({"a"}) == " Did you mean \"a\"?");
  CHECK(DidYouMean({"a", "b"}) == " Did you mean \"a\" or \"b\"?");
  CHECK(DidYouMean({"a", "b", "c", "d", "e", "f"}, "the enum value") ==
        " Did you mean the enum value \"a\", \"b\", \"c\", \"d\", or \"e\"?");
  CHECK(PrintString("a\"\\\n\x7f\xc2\x85é") == "\"a\\\"\\\\\\n\\u007F\\u0085é\"");
  CHECK(PrintBlockString("short") == "\"\"\"short\"\"\"");
  CHECK(PrintBlockString("two\nlines") == "\"\"\"\ntwo\nlines\n\"\"\"");
  CHECK(PrintBlockString("ends with quote\"") == "\"\"\"\nends with quote\"\n\"\"\"");
  CHECK(PrintBlockString("has \"\"\" inside") == "\"\"\"has \\\"\"\" inside\"\"\"");
  CHECK(PrintBlockString(" leading space") == "\"\"\" leading space\"\"\"");
  CHECK(IsPrintableAsBlockString("plain"));
  CHECK(!IsPrintableAsBlockString("\nleading newline"));
  CHECK(!IsPrintableAsBlockString("trailing\n"));
  CHECK(!IsPrintableAsBlockString("  indented\n  all"));
  CHECK(JsStringToNumber(" 12 ") == 12.0);
  CHECK(JsStringToNumber("0x10") == 16.0);
  CHECK(JsStringToNumber("1e3") == 1000.0);
  CHECK(!JsStringToNumber("12px"));
  CHECK(JsStringToNumber("") == 0.0);
  CHECK(std::isinf(*JsStringToNumber("-Infinity")));
}

TEST_CASE("Inspect formats values like graphql-js inspect") {
  using livechat::graphql::internal::Inspect;
  CHECK(Inspect(Value("x")) == "\"x\"");
  CHECK(Inspect(Value(1.5)) == "1.5");
  CHECK(Inspect(Value(Value::List{})) == "[]");
  CHECK(Inspect(Value(Value::Object{})) == "{}");
  CHECK(Inspect(*ParseJson(R"({"a": [1, {"b": {"c": 1}}], "d": null})")) == "{ a: [1, [Object]], d: null }");
  CHECK(Inspect(*ParseJson("[1,2,3,4,5,6,7,8,9,10,11,12]")) == "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... 2 more items]");
  CHECK(Inspect(*ParseJson("[[[1]]]")) == "[[[Array]]]");
}

TEST_CASE("SerializesAsItself holds exactly where SerializeLeaf returns the value unchanged") {
  using namespace livechat::graphql::internal;
  auto scalar = [](BuiltinScalar b) {
    NamedType t;
    t.kind = TypeKind::kScalar;
    t.builtin = b;
    return t;
  };
  NamedType color;
  color.kind = TypeKind::kEnum;
  color.enumValues.push_back(EnumValue{"RED", {}, {}});
  NamedType custom = scalar(BuiltinScalar::kNone);
  custom.serialize = [](const Value& v) -> FieldResult { return v; };
  const std::vector<NamedType> types = {scalar(BuiltinScalar::kString), scalar(BuiltinScalar::kId),
                                        scalar(BuiltinScalar::kInt),    scalar(BuiltinScalar::kFloat),
                                        scalar(BuiltinScalar::kBoolean), color, custom};
  const std::vector<Value> values = {Value("RED"), Value("x"), Value(3), Value(2.5), Value(true),
                                     Value::Enum("RED"), Value(4.0)};
  int itself = 0;
  for (const NamedType& t : types) {
    for (const Value& v : values) {
      CAPTURE(Inspect(v));
      FieldResult r = SerializeLeaf(t, v);
      const bool unchanged = r.ok() && r.value() == v && r.value().kind() == v.kind();
      if (SerializesAsItself(t, v)) {
        ++itself;
        CHECK(unchanged);
      }
    }
  }
  // String and ID: two strings each; Int: 3; Boolean: true; the enum: "RED" as a string.
  CHECK(itself == 7);
  CHECK_FALSE(SerializesAsItself(scalar(BuiltinScalar::kFloat), Value(2.5)));  // left to SerializeLeaf
  CHECK_FALSE(SerializesAsItself(custom, Value("x")));                        // the scalar's own serialize
  CHECK_FALSE(SerializesAsItself(color, Value::Enum("RED")));                 // an Enum becomes a String
  CHECK_FALSE(SerializesAsItself(color, Value("BLUE")));
  // What a response writes: valid UTF-8, ASCII as it is.
  std::string out;
  AppendJsonQuoted(out, "plain ascii");
  AppendJsonQuoted(out, "ab\xff");
  AppendJsonQuoted(out, "caf\xc3\xa9");
  CHECK(out == "\"plain ascii\"\"ab\xef\xbf\xbd\"\"caf\xc3\xa9\"");
}
