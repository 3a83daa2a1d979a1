// The value type of the GraphQL engine: what resolvers return, what arguments
// and variables arrive as, and what a response's `data` is built from.
//
// Kinds follow the GraphQL type system rather than JSON: Int is 32-bit (the
// spec's Int), Float a double, Enum a value name kept apart from String so a
// resolver can say which it means, Object keeps insertion order (responses
// list fields in selection order). Host wraps a C++ object of the embedding
// product (a Customer, a page of results) so that child resolvers can read it
// without converting it to a Value first.
//
// Values are plain data: copyable, no shared mutable state except Host, which
// shares ownership of an immutable object. Not thread-safe to mutate one value
// from two threads; reading one from many is fine.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

#include "livechat/result.h"

namespace livechat::graphql {

class Value {
 public:
  enum class Kind : std::uint8_t { kNull, kBoolean, kInt, kFloat, kString, kEnum, kList, kObject, kHost };
  using List = std::vector<Value>;
  using Object = std::vector<std::pair<std::string, Value>>;

  Value() = default;  // null
  Value(bool b) : v_(b) {}                          // NOLINT: implicit by design
  Value(int i) : v_(static_cast<std::int32_t>(i)) {}  // NOLINT
  Value(double d) : v_(d) {}                        // NOLINT
  Value(std::string s) : v_(std::move(s)) {}        // NOLINT
  Value(std::string_view s) : v_(std::string(s)) {} // NOLINT
  Value(const char* s) : v_(std::string(s)) {}      // NOLINT: keeps "x" from becoming bool
  Value(List l) : v_(std::move(l)) {}               // NOLINT
  Value(Object o) : v_(std::move(o)) {}             // NOLINT

  static Value Null() { return Value(); }
  static Value Enum(std::string name) {
    Value v;
    v.v_ = EnumName{std::move(name)};
    return v;
  }
  // Wraps a host object; the value shares ownership. HostAs<T>() returns it
  // back only when T is exactly the wrapped type.
  template <typename T>
  static Value Host(std::shared_ptr<const T> object) {
    Value v;
    v.v_ = HostRef{std::shared_ptr<const void>(std::move(object)), &typeid(T)};
    return v;
  }
  // A non-owning Host for objects that outlive every execution (a Schema's
  // internals, a static table). The caller guarantees the lifetime.
  template <typename T>
  static Value HostUnowned(const T* object) {
    return Host<T>(std::shared_ptr<const T>(std::shared_ptr<const T>(), object));
  }

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool IsNull() const { return kind() == Kind::kNull; }
  bool IsBool() const { return kind() == Kind::kBoolean; }
  bool IsInt() const { return kind() == Kind::kInt; }
  bool IsFloat() const { return kind() == Kind::kFloat; }
  bool IsNumber() const { return IsInt() || IsFloat(); }
  bool IsString() const { return kind() == Kind::kString; }
  bool IsEnum() const { return kind() == Kind::kEnum; }
  bool IsList() const { return kind() == Kind::kList; }
  bool IsObject() const { return kind() == Kind::kObject; }
  bool IsHost() const { return kind() == Kind::kHost; }

  // Preconditions: the matching Is...() is true (AsNumber: IsNumber()).
  bool AsBool() const { return std::get<bool>(v_); }
  std::int32_t AsInt() const { return std::get<std::int32_t>(v_); }
  double AsFloat() const { return std::get<double>(v_); }
  double AsNumber() const { return IsInt() ? AsInt() : AsFloat(); }
  // The text of a String, or the name of an Enum.
  const std::string& AsString() const {
    return IsEnum() ? std::get<EnumName>(v_).name : std::get<std::string>(v_);
  }
  const List& AsList() const { return std::get<List>(v_); }
  List& AsList() { return std::get<List>(v_); }
  const Object& AsObject() const { return std::get<Object>(v_); }
  Object& AsObject() { return std::get<Object>(v_); }

  template <typename T>
  const T* HostAs() const {
    const HostRef* h = std::get_if<HostRef>(&v_);
    if (h == nullptr || *h->type != typeid(T)) return nullptr;
    return static_cast<const T*>(h->ptr.get());
  }

  // The wrapped object with its shared ownership, or null like HostAs. A
  // resolver hands out parts of it without copying them through
  // std::shared_ptr's aliasing constructor: a page's items keep the page.
  template <typename T>
  std::shared_ptr<const T> HostShared() const {
    const HostRef* h = std::get_if<HostRef>(&v_);
    if (h == nullptr || *h->type != typeid(T)) return nullptr;
    return std::shared_ptr<const T>(h->ptr, static_cast<const T*>(h->ptr.get()));
  }

  // Object member by key, or nullptr (also when this is not an object).
  const Value* Find(std::string_view key) const;
  // Object: replaces the member `key` or appends it. Turns a null into an
  // empty object first. Returns *this for chaining.
  Value& Set(std::string key, Value value);
  // List: appends. Turns a null into an empty list first.
  Value& Append(Value value);

  // Compact JSON as JSON.stringify writes it (numbers in ECMAScript form,
  // same escapes). Enum becomes its name; Host becomes null.
  std::string ToJson() const;
  void AppendJson(std::string& out) const;

  friend bool operator==(const Value& a, const Value& b);
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

 private:
  struct EnumName {
    std::string name;
  };
  struct HostRef {
    std::shared_ptr<const void> ptr;
    const std::type_info* type;
  };
  std::variant<std::monostate, bool, std::int32_t, double, std::string, EnumName, List, Object, HostRef> v_;
};

// Parses JSON text into a Value: numbers that are integral and fit 32 bits
// become Int, other numbers Float (as JavaScript sees them, so 3.0 is Int).
// Fails with kInvalidParams on malformed JSON, invalid UTF-8, or nesting
// deeper than `maxDepth`.
Result<Value> ParseJson(std::string_view json, int maxDepth = 64);

// ECMAScript Number::toString for a finite double ("1e+21", "0.1", "-0" is "0").
std::string FormatJsNumber(double d);

}  // namespace livechat::graphql
