// The one JSON object writer: event payloads, records, responses. Append
// only, no DOM; the only allocation is the output string's growth.
#pragma once

#include <cassert>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "livechat/base/json_text.h"

namespace livechat {

// Appends ["a","b"] / {"k":"v"} (keys in map order).
void AppendJsonStringArray(std::string& out, const std::vector<std::string>& v);
void AppendJsonStringMap(std::string& out, const std::map<std::string, std::string>& m);

// An object key. A literal is checked when the program is compiled (one
// that would need an escape does not compile) and written as one copy of
// known size; a key made at run time is checked when made, and escaped if
// it must be.
class JsonKey {
 public:
  template <std::size_t N>
  consteval JsonKey(const char (&k)[N]) : data_(k), size_(N - 1) {  // NOLINT: implicit by design
    for (std::size_t i = 0; i + 1 < N; ++i) {
      const auto c = static_cast<unsigned char>(k[i]);
      if (c < 0x20 || c == '"' || c == '\\') throw "a key literal must need no JSON escape";
    }
  }
  // Keeps a view of `k`: the text must outlive the key's use (a temporary
  // string is refused for that reason).
  explicit JsonKey(std::string_view k);
  template <typename S>
    requires std::is_same_v<S, std::string>
  explicit JsonKey(S&&) = delete;
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool plain() const { return plain_; }

 private:
  const char* data_;
  std::size_t size_;
  bool plain_ = true;
};

// Builds one object key by key; every optional overload writes null when
// the value is absent (the spec's nullable keys are always present).
//
// Two forms: JsonObject() writes into a string of its own, which Done()
// returns; JsonObject(out) writes straight into the caller's buffer, after
// what it holds, and End() closes it. A list page writes every record into
// the one response buffer this way: no string per record, no copy of it.
//
// While the object is open it writes through a pointer into room it has
// added to the end of the buffer (the buffer holds that room until End(),
// Field() or the writer's end): a member is then a bounds test and a few
// stores, not a std::string append per piece (a list page writes thousands).
class JsonObject {
 public:
  JsonObject() : out_(own_), cursor_(&own_cursor_) { Put('{'); }
  // `out` must outlive the writer and take no other write until End().
  explicit JsonObject(std::string& out) : out_(out), cursor_(&own_cursor_) { Put('{'); }
  // An object nested in `parent` under `k`, written through the parent's
  // room; End() closes it, and the parent goes on after it.
  JsonObject(JsonObject& parent, JsonKey k) : out_(parent.out_), cursor_(parent.cursor_) {
    char* p = parent.Key(k, 1);
    *p++ = '{';
    cursor_->p = p;
  }
  JsonObject(const JsonObject&) = delete;
  JsonObject& operator=(const JsonObject&) = delete;
  // A nested object's room is its parent's: only the outermost gives it back.
  ~JsonObject() {
    if (cursor_ == &own_cursor_) Close();
  }

  JsonObject& Str(JsonKey k, std::string_view v) {
    cursor_->p = PutJsonString(Key(k, 6 * v.size() + 2), v);
    return *this;
  }
  // Spelled out so neither a std::string nor a literal is ambiguous with the
  // optional overload.
  JsonObject& Str(JsonKey k, const std::string& v) { return Str(k, std::string_view(v)); }
  JsonObject& Str(JsonKey k, const char* v) { return Str(k, std::string_view(v)); }
  JsonObject& Str(JsonKey k, const std::optional<std::string>& v) { return v ? Str(k, *v) : Null(k); }
  JsonObject& Bool(JsonKey k, bool v) {
    char* p = Key(k, 5);
    if (v) {
      std::memcpy(p, "true", 4);
      cursor_->p = p + 4;
    } else {
      std::memcpy(p, "false", 5);
      cursor_->p = p + 5;
    }
    return *this;
  }
  JsonObject& Bool(JsonKey k, const std::optional<bool>& v) { return v ? Bool(k, *v) : Null(k); }
  JsonObject& Int(JsonKey k, std::int64_t v) {
    char* p = Key(k, 20);
    cursor_->p = std::to_chars(p, p + 20, v).ptr;
    return *this;
  }
  JsonObject& Int(JsonKey k, const std::optional<std::int64_t>& v) { return v ? Int(k, *v) : Null(k); }
  // The number's decimal digits as a JSON string (ids the contract types
  // as strings).
  JsonObject& IntText(JsonKey k, std::int64_t v) {
    char* p = Key(k, 22);
    *p++ = '"';
    p = std::to_chars(p, p + 20, v).ptr;
    *p++ = '"';
    cursor_->p = p;
    return *this;
  }
  JsonObject& Double(JsonKey k, double v) {
    char* p = Key(k, 32);
    cursor_->p = PutJsonDouble(p, v);
    return *this;
  }
  JsonObject& Double(JsonKey k, const std::optional<double>& v) { return v ? Double(k, *v) : Null(k); }
  // ISO 8601 UTC with milliseconds, as a JSON string.
  JsonObject& Time(JsonKey k, std::int64_t unixMillis) {
    cursor_->p = PutJsonTime(Key(k, kJsonTimeRoom), unixMillis);
    return *this;
  }
  JsonObject& Time(JsonKey k, const std::optional<std::int64_t>& v) { return v ? Time(k, *v) : Null(k); }
  JsonObject& Null(JsonKey k) {
    char* p = Key(k, 4);
    std::memcpy(p, "null", 4);
    cursor_->p = p + 4;
    return *this;
  }
  JsonObject& Strings(JsonKey k, const std::vector<std::string>& v) {
    char* p = Key(k, 2);
    *p++ = '[';
    for (std::size_t i = 0; i < v.size(); ++i) {
      cursor_->p = p;
      // A comma, the quoted text, and the closing bracket after the last.
      p = Room(6 * v[i].size() + 4);
      if (i) *p++ = ',';
      p = PutJsonString(p, v[i]);
    }
    *p++ = ']';
    cursor_->p = p;
    return *this;
  }
  // `json` must already be valid JSON text; an empty one writes `fallback`.
  JsonObject& Raw(JsonKey k, std::string_view json, std::string_view fallback = "null") {
    if (json.empty()) json = fallback;
    char* p = Key(k, json.size());
    std::memcpy(p, json.data(), json.size());
    cursor_->p = p + json.size();
    return *this;
  }
  // Writes the key and returns the buffer, to which the caller appends
  // exactly one JSON value (e.g. a nested JsonObject(out)).
  std::string& Field(JsonKey k) {
    cursor_->p = Key(k, 0);
    Close();
    return out_;
  }
  // Closes an object written into the caller's buffer.
  void End() {
    Put('}');
    if (cursor_ == &own_cursor_) Close();
  }
  // Closes an object of its own and returns it; leaves the writer spent.
  std::string Done() {
    assert(cursor_ == &own_cursor_ && &out_ == &own_ && "Done() is for an object of its own; End() closes the others");
    Put('}');
    Close();
    // A string value asks for room for six times its size (all escapes);
    // what is returned keeps no more than about twice what it holds.
    if (own_.capacity() > 2 * own_.size() + 256) own_.shrink_to_fit();
    return std::move(own_);
  }

 private:
  // The open room: [p, end) at the end of out_, which holds it as bytes of
  // no meaning until Close() gives them back. Shared with nested objects.
  struct Cursor {
    char* p = nullptr;
    char* end = nullptr;
  };
  // Where `n` more bytes can be written.
  char* Room(std::size_t n) {
    if (static_cast<std::size_t>(cursor_->end - cursor_->p) < n) Open(n);
    return cursor_->p;
  }
  void Put(char c) { *Room(1) = c, ++cursor_->p; }
  // Writes `,"k":` (no comma first) and returns where a value of at most
  // `room` bytes goes.
  char* Key(JsonKey k, std::size_t room) {
    const bool comma = !first_;
    first_ = false;
    if (!k.plain()) return EscapedKey(k, comma, room);
    char* p = Room(k.size() + 4 + room);
    if (comma) *p++ = ',';
    *p++ = '"';
    std::memcpy(p, k.data(), k.size());
    p += k.size();
    *p++ = '"';
    *p++ = ':';
    return p;
  }
  void Open(std::size_t n);
  void Close();
  char* EscapedKey(JsonKey k, bool comma, std::size_t room);

  std::string own_;
  std::string& out_;
  Cursor own_cursor_;
  Cursor* cursor_;
  bool first_ = true;
};

}  // namespace livechat
