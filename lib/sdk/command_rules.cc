#include "sdk/command_rules.h"

#include <cmath>
#include <functional>
#include <map>

#include <fmt/format.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"

namespace livechat::sdk::internal {
namespace {

using rapidjson::Value;
using Warning = std::optional<std::string>;
using livechat::Utf8Length;
using livechat::Trim;

// Spec-free limits chosen for the SDK (docs/decisions.md, "Storefront SDK").
constexpr std::size_t kNameMax = 255;        // user:name, identify names, attribute names (REST's attribute limit)
constexpr std::size_t kValueMax = 1000;      // attribute and pre-chat values (REST's attribute value limit)
constexpr std::size_t kAttributesMax = 50;   // keys per user:attributes / conversation:attributes call
constexpr std::size_t kPrechatFieldsMax = 20;
constexpr std::size_t kIdMax = 64;           // trigger, article, customer, product ids
constexpr std::size_t kEmailMax = 254;
constexpr std::size_t kPhoneMax = 32;
constexpr std::size_t kEventNameMax = 100;
constexpr std::size_t kReasonMax = 500;
constexpr std::size_t kUrlMax = 2048;
constexpr std::size_t kLocaleMax = 35;

const char* TypeName(const Value& v) {
  if (v.IsNull()) return "null";
  if (v.IsBool()) return "boolean";
  if (v.IsNumber()) return "number";
  if (v.IsString()) return "string";
  if (v.IsArray()) return "array";
  return "object";
}

std::string_view Str(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

bool IsInteger(const Value& v) {
  if (!v.IsNumber()) return false;
  if (v.IsInt64() || v.IsUint64()) return true;
  double d = v.GetDouble();
  return std::isfinite(d) && std::floor(d) == d;
}

// "<command>: <what> must be ..." -- every warning starts with the command so
// the console line says which push it was.
struct Ctx {
  std::string_view command;
  const SdkLimits& limits;
  std::string Fail(std::string_view what, std::string_view problem) const {
    return fmt::format("{}: {} {}", command, what, problem);
  }
};

Warning String(const Ctx& c, const Value& v, std::string_view what, std::size_t max, bool allowEmpty) {
  if (!v.IsString()) return c.Fail(what, fmt::format("must be a string (got {})", TypeName(v)));
  if (!allowEmpty && Trim(Str(v)).empty()) return c.Fail(what, "must not be empty");
  std::size_t n = Utf8Length(Str(v));
  if (n > max) return c.Fail(what, fmt::format("must be at most {} characters (got {})", max, n));
  return std::nullopt;
}

bool HasSpaceOrControl(std::string_view s) {
  for (char ch : s)
    if (static_cast<unsigned char>(ch) <= 0x20 || ch == 0x7f) return true;
  return false;
}

// Deliberately loose (one '@', a dot in the domain, no spaces): the mail
// server is the real judge; this only catches what is clearly not an address.
Warning Email(const Ctx& c, const Value& v, std::string_view what) {
  if (auto w = String(c, v, what, kEmailMax, false)) return w;
  std::string_view s = Str(v);
  std::size_t at = s.find('@');
  bool ok = at != std::string_view::npos && at > 0 && s.find('@', at + 1) == std::string_view::npos &&
            !HasSpaceOrControl(s);
  if (ok) {
    std::string_view domain = s.substr(at + 1);
    std::size_t dot = domain.find('.');
    ok = dot != std::string_view::npos && dot > 0 && domain.back() != '.';
  }
  if (!ok) return c.Fail(what, "must be an email address like name@example.com");
  return std::nullopt;
}

// Digits with the usual separators and an optional leading '+'.
Warning Phone(const Ctx& c, const Value& v, std::string_view what) {
  if (auto w = String(c, v, what, kPhoneMax, false)) return w;
  std::string_view s = Str(v);
  int digits = 0;
  bool ok = true;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    if (ch >= '0' && ch <= '9') ++digits;
    else if (ch == '+' && i == 0) continue;
    else if (ch != ' ' && ch != '-' && ch != '(' && ch != ')' && ch != '.') ok = false;
  }
  if (!ok || digits < 3) return c.Fail(what, "must be a phone number: digits, spaces, + - ( ) . and at least 3 digits");
  return std::nullopt;
}

bool IdChar(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
         ch == '-' || ch == '.' || ch == ':';
}

// Trigger and article ids: what a URL path segment or a data attribute holds.
Warning Identifier(const Ctx& c, const Value& v, std::string_view what) {
  if (!v.IsString()) return c.Fail(what, fmt::format("must be a string (got {})", TypeName(v)));
  std::string_view s = Str(v);
  if (s.empty() || s.size() > kIdMax) return c.Fail(what, fmt::format("must be 1 to {} characters", kIdMax));
  for (char ch : s)
    if (!IdChar(ch)) return c.Fail(what, "may only contain letters, digits, _ - . :");
  return std::nullopt;
}

// A product, variant, customer or order id: a non-empty string or a whole number.
Warning StringOrIntegerId(const Ctx& c, const Value& v, std::string_view what) {
  if (v.IsNumber()) {
    if (!IsInteger(v) || v.GetDouble() < 0) return c.Fail(what, "must be a whole number of 0 or more, or a string");
    return std::nullopt;
  }
  if (!v.IsString()) return c.Fail(what, fmt::format("must be a string or a number (got {})", TypeName(v)));
  return String(c, v, what, kIdMax, false);
}

Warning NonNegativeNumber(const Ctx& c, const Value& v, std::string_view what) {
  if (!v.IsNumber()) return c.Fail(what, fmt::format("must be a number (got {})", TypeName(v)));
  if (v.GetDouble() < 0) return c.Fail(what, "must be 0 or more");
  return std::nullopt;
}

Warning Currency(const Ctx& c, const Value& v, std::string_view what) {
  if (!v.IsString()) return c.Fail(what, fmt::format("must be a string (got {})", TypeName(v)));
  std::string_view s = Str(v);
  bool ok = s.size() == 3;
  for (char ch : s) ok = ok && ch >= 'A' && ch <= 'Z';
  if (!ok) return c.Fail(what, "must be a three-letter ISO 4217 code like \"USD\"");
  return std::nullopt;
}

// Pre-chat field names: what an HTML form control's name can safely be.
Warning FieldName(const Ctx& c, std::string_view s, std::string_view what) {
  bool ok = !s.empty() && s.size() <= kIdMax && ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'));
  for (char ch : s)
    ok = ok && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_');
  if (!ok)
    return c.Fail(what, fmt::format("must start with a letter and hold only letters, digits and _ (1 to {} characters)",
                                    kIdMax));
  return std::nullopt;
}

Warning PrechatValue(const Ctx& c, std::string_view field, const Value& v, std::string_view what) {
  if (field == "email") return Email(c, v, what);
  if (field == "phone") return Phone(c, v, what);
  return String(c, v, what, kValueMax, true);
}

Warning Object(const Ctx& c, const Value& v, std::string_view what) {
  if (!v.IsObject()) return c.Fail(what, fmt::format("must be an object (got {})", TypeName(v)));
  return std::nullopt;
}

Warning SizeAtMost(const Ctx& c, const Value& v, std::string_view what, std::size_t max) {
  std::size_t n = SerializedSize(v);
  if (n > max) return c.Fail(what, fmt::format("must be at most {} bytes as JSON (got {})", max, n));
  return std::nullopt;
}

// name -> string value maps: user:attributes, conversation:attributes.
Warning StringMap(const Ctx& c, const Value& v, std::string_view what) {
  if (auto w = Object(c, v, what)) return w;
  if (v.MemberCount() == 0) return c.Fail(what, "must have at least one key");
  if (v.MemberCount() > kAttributesMax)
    return c.Fail(what, fmt::format("must have at most {} keys (got {})", kAttributesMax, v.MemberCount()));
  for (const auto& m : v.GetObject()) {
    std::string_view name = Str(m.name);
    std::string key = fmt::format("key \"{}\"", name);
    if (Trim(name).empty()) return c.Fail(what, "keys must not be empty");
    if (Utf8Length(name) > kNameMax)
      return c.Fail(what, fmt::format("keys must be at most {} characters (got {})", kNameMax, Utf8Length(name)));
    if (auto w = String(c, m.value, fmt::format("{} {}", what, key), kValueMax, true)) return w;
  }
  return std::nullopt;
}

// Checks the optional members of an object; absent members pass.
using MemberRule = std::function<Warning(const Ctx&, const Value&, std::string_view)>;
Warning Members(const Ctx& c, const Value& obj, std::string_view what,
                std::initializer_list<std::pair<std::string_view, MemberRule>> rules) {
  for (const auto& [name, rule] : rules) {
    auto it = obj.FindMember(rapidjson::StringRef(name.data(), name.size()));
    if (it == obj.MemberEnd()) continue;
    if (auto w = rule(c, it->value, fmt::format("{}.{}", what, name))) return w;
  }
  return std::nullopt;
}

Warning Required(const Ctx& c, const Value& obj, std::string_view what, std::string_view name) {
  if (!obj.HasMember(rapidjson::StringRef(name.data(), name.size())))
    return c.Fail(what, fmt::format("must have \"{}\"", name));
  return std::nullopt;
}

MemberRule StringUpTo(std::size_t max, bool allowEmpty) {
  return [max, allowEmpty](const Ctx& c, const Value& v, std::string_view w) { return String(c, v, w, max, allowEmpty); };
}

// ---- per-command rules; `a` is the argument array, its length already checked ----

Warning None(const Ctx&, const Value&) { return std::nullopt; }

Warning MessageSend(const Ctx& c, const Value& a) {
  return String(c, a[0], "text", static_cast<std::size_t>(c.limits.messageTextMax), false);
}
Warning MessageText(const Ctx& c, const Value& a) {
  return String(c, a[0], "text", static_cast<std::size_t>(c.limits.messageTextMax), true);
}
Warning TypingSet(const Ctx& c, const Value& a) {
  if (!a[0].IsBool()) return c.Fail("active", fmt::format("must be true or false (got {})", TypeName(a[0])));
  return std::nullopt;
}

Warning Identify(const Ctx& c, const Value& a) {
  const Value& u = a[0];
  if (auto w = Object(c, u, "user")) return w;
  static const char* const kKeys[] = {"id", "email", "name", "firstName", "lastName", "phone"};
  if (u.MemberCount() == 0) return c.Fail("user", "must have at least one of id, email, name, firstName, lastName, phone");
  for (const auto& m : u.GetObject()) {
    bool known = false;
    for (const char* k : kKeys) known = known || Str(m.name) == k;
    if (!known)
      return c.Fail("user", fmt::format("has unknown key \"{}\" (allowed: id, email, name, firstName, lastName, "
                                        "phone; use user:attributes for others)", Str(m.name)));
  }
  return Members(c, u, "user",
                 {{"id", [](const Ctx& x, const Value& v, std::string_view w) { return StringOrIntegerId(x, v, w); }},
                  {"email", [](const Ctx& x, const Value& v, std::string_view w) { return Email(x, v, w); }},
                  {"name", StringUpTo(kNameMax, false)},
                  {"firstName", StringUpTo(kNameMax, false)},
                  {"lastName", StringUpTo(kNameMax, false)},
                  {"phone", [](const Ctx& x, const Value& v, std::string_view w) { return Phone(x, v, w); }}});
}

Warning Escalate(const Ctx& c, const Value& a) {
  if (a.Size() == 0) return std::nullopt;
  return String(c, a[0], "reason", kReasonMax, false);
}
Warning TriggerRun(const Ctx& c, const Value& a) { return Identifier(c, a[0], "triggerId"); }
Warning ArticleShow(const Ctx& c, const Value& a) { return Identifier(c, a[0], "articleId"); }

Warning PrechatSubmit(const Ctx& c, const Value& a) {
  const Value& f = a[0];
  if (auto w = Object(c, f, "fields")) return w;
  if (f.MemberCount() == 0) return c.Fail("fields", "must have at least one field");
  if (f.MemberCount() > kPrechatFieldsMax)
    return c.Fail("fields", fmt::format("must have at most {} fields (got {})", kPrechatFieldsMax, f.MemberCount()));
  for (const auto& m : f.GetObject()) {
    if (auto w = FieldName(c, Str(m.name), "field names")) return w;
    if (auto w = PrechatValue(c, Str(m.name), m.value, fmt::format("fields.{}", Str(m.name)))) return w;
  }
  return std::nullopt;
}

Warning PrechatField(const Ctx& c, const Value& a) {
  if (!a[0].IsString()) return c.Fail("name", fmt::format("must be a string (got {})", TypeName(a[0])));
  if (auto w = FieldName(c, Str(a[0]), "name")) return w;
  return PrechatValue(c, Str(a[0]), a[1], "value");
}

Warning EventTrack(const Ctx& c, const Value& a) {
  if (auto w = String(c, a[0], "name", kEventNameMax, false)) return w;
  if (a.Size() < 2) return std::nullopt;
  if (auto w = Object(c, a[1], "properties")) return w;
  return SizeAtMost(c, a[1], "properties", c.limits.eventPropertiesMax);
}

Warning UserEmail(const Ctx& c, const Value& a) { return Email(c, a[0], "email"); }
Warning UserName(const Ctx& c, const Value& a) { return String(c, a[0], "name", kNameMax, false); }
Warning UserPhone(const Ctx& c, const Value& a) { return Phone(c, a[0], "phone"); }
Warning UserAttributes(const Ctx& c, const Value& a) { return StringMap(c, a[0], "attributes"); }
Warning ConversationAttributes(const Ctx& c, const Value& a) { return StringMap(c, a[0], "attributes"); }

Warning FreeObject(const Ctx& c, const Value& a, std::string_view what) {
  if (auto w = Object(c, a[0], what)) return w;
  return SizeAtMost(c, a[0], what, c.limits.commerceObjectMax);
}
Warning UserContext(const Ctx& c, const Value& a) { return FreeObject(c, a, "context"); }
Warning ShopData(const Ctx& c, const Value& a) { return FreeObject(c, a, "data"); }

const MemberRule kId = [](const Ctx& c, const Value& v, std::string_view w) { return StringOrIntegerId(c, v, w); };
const MemberRule kMoney = [](const Ctx& c, const Value& v, std::string_view w) { return NonNegativeNumber(c, v, w); };
const MemberRule kCurrency = [](const Ctx& c, const Value& v, std::string_view w) { return Currency(c, v, w); };

// Commerce context: null clears it; an object replaces it. Other keys than
// the checked ones are kept as sent (the shop's own data), within the size.
// `more` checks what a member rule cannot (the cart's items).
Warning Commerce(const Ctx& c, const Value& v, std::string_view what, std::string_view required,
                 std::initializer_list<std::pair<std::string_view, MemberRule>> rules,
                 const std::function<Warning()>& more = nullptr) {
  if (v.IsNull()) return std::nullopt;
  if (auto w = Object(c, v, what)) return w;
  if (auto w = Required(c, v, what, required)) return w;
  if (auto w = Members(c, v, what, rules)) return w;
  if (more)
    if (auto w = more()) return w;
  return SizeAtMost(c, v, what, c.limits.commerceObjectMax);
}

Warning Product(const Ctx& c, const Value& a) {
  return Commerce(c, a[0], "product", "id",
                  {{"id", kId}, {"variantId", kId}, {"title", StringUpTo(kNameMax, false)}, {"price", kMoney},
                   {"currency", kCurrency}, {"url", StringUpTo(kUrlMax, false)}});
}

Warning CartItems(const Ctx& c, const Value& items) {
  if (!items.IsArray()) return c.Fail("cart.items", fmt::format("must be an array (got {})", TypeName(items)));
  for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
    std::string what = fmt::format("cart.items[{}]", i);
    const Value& it = items[i];
    if (auto w = Object(c, it, what)) return w;
    if (auto w = Required(c, it, what, "productId")) return w;
    if (auto w = Required(c, it, what, "quantity")) return w;
    if (!IsInteger(it["quantity"]) || it["quantity"].GetDouble() < 1)
      return c.Fail(what + ".quantity", "must be a whole number of 1 or more");
    if (auto w = Members(c, it, what, {{"productId", kId}, {"variantId", kId}, {"price", kMoney},
                                       {"title", StringUpTo(kNameMax, false)}}))
      return w;
  }
  return std::nullopt;
}

Warning Cart(const Ctx& c, const Value& a) {
  const Value& cart = a[0];
  return Commerce(c, cart, "cart", "items", {{"total", kMoney}, {"currency", kCurrency}},
                  [&] { return CartItems(c, cart["items"]); });
}

Warning Order(const Ctx& c, const Value& a) {
  return Commerce(c, a[0], "order", "id",
                  {{"id", kId}, {"total", kMoney}, {"currency", kCurrency}, {"status", StringUpTo(kIdMax, false)}});
}

// BCP 47 in the shape browsers report: "en", "pt-BR", "zh-Hant-TW".
Warning Locale(const Ctx& c, const Value& a) {
  const Value& v = a[0];
  if (!v.IsString()) return c.Fail("locale", fmt::format("must be a string (got {})", TypeName(v)));
  std::string_view s = Str(v);
  bool ok = s.size() <= kLocaleMax;
  std::size_t start = 0, part = 0;
  while (ok) {
    std::size_t end = s.find('-', start);
    std::string_view sub = s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    bool alpha = true, alnum = true;
    for (char ch : sub) {
      bool letter = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
      alpha = alpha && letter;
      alnum = alnum && (letter || (ch >= '0' && ch <= '9'));
    }
    ok = part == 0 ? (alpha && sub.size() >= 2 && sub.size() <= 3) : (alnum && sub.size() >= 2 && sub.size() <= 8);
    if (end == std::string_view::npos) break;
    start = end + 1;
    ++part;
  }
  if (!ok) return c.Fail("locale", "must be a language tag like \"en\" or \"pt-BR\"");
  return std::nullopt;
}

struct CommandRule {
  int minArgs, maxArgs;
  std::string_view usage;  // the argument names, for the count warning
  Warning (*check)(const Ctx&, const Value&);
};

const std::map<std::string_view, CommandRule>& Rules() {
  static const std::map<std::string_view, CommandRule> kRules = {
      {"chat:open", {0, 0, "", None}},
      {"chat:close", {0, 0, "", None}},
      {"chat:toggle", {0, 0, "", None}},
      {"chat:show", {0, 0, "", None}},
      {"chat:hide", {0, 0, "", None}},
      {"launcher:show", {0, 0, "", None}},
      {"launcher:hide", {0, 0, "", None}},
      {"message:send", {1, 1, "text", MessageSend}},
      {"typing:set", {1, 1, "active", TypingSet}},
      {"identify", {1, 1, "user", Identify}},
      {"logout", {0, 0, "", None}},
      {"session:reset", {0, 0, "", None}},
      {"escalate", {0, 1, "[reason]", Escalate}},
      {"trigger:run", {1, 1, "triggerId", TriggerRun}},
      {"article:show", {1, 1, "articleId", ArticleShow}},
      {"prechat:submit", {1, 1, "fields", PrechatSubmit}},
      {"prechat:skip", {0, 0, "", None}},
      {"prechat:field", {2, 2, "name, value", PrechatField}},
      {"event:track", {1, 2, "name[, properties]", EventTrack}},
      {"message:text", {1, 1, "text", MessageText}},
      {"user:email", {1, 1, "email", UserEmail}},
      {"user:name", {1, 1, "name", UserName}},
      {"user:phone", {1, 1, "phone", UserPhone}},
      {"user:attributes", {1, 1, "attributes", UserAttributes}},
      {"user:context", {1, 1, "context", UserContext}},
      {"shop:data", {1, 1, "data", ShopData}},
      {"conversation:attributes", {1, 1, "attributes", ConversationAttributes}},
      {"product", {1, 1, "product", Product}},
      {"cart", {1, 1, "cart", Cart}},
      {"order", {1, 1, "order", Order}},
      {"locale", {1, 1, "locale", Locale}},
  };
  return kRules;
}

void AddNumberSize(const Value& v, std::size_t& n) {
  if (v.IsInt64() || v.IsUint64() || (std::isfinite(v.GetDouble()) && std::floor(v.GetDouble()) == v.GetDouble() &&
                                      std::fabs(v.GetDouble()) < 1e21)) {
    double d = v.GetDouble();
    n += v.IsInt64()    ? fmt::format("{}", v.GetInt64()).size()
         : v.IsUint64() ? fmt::format("{}", v.GetUint64()).size()
                        : fmt::format("{:.0f}", d == 0 ? 0.0 : d).size();
    return;
  }
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.Double(v.GetDouble());
  std::string_view s(buf.GetString(), buf.GetSize());
  n += s.size();
  // JavaScript writes a positive exponent with its sign ("1e+21").
  std::size_t e = s.find('e');
  if (e != std::string_view::npos && e + 1 < s.size() && s[e + 1] != '-') ++n;
}

void AddStringSize(std::string_view s, std::size_t& n) {
  n += 2;
  for (char ch : s) {
    unsigned char u = static_cast<unsigned char>(ch);
    if (u == '"' || u == '\\' || u == '\b' || u == '\f' || u == '\n' || u == '\r' || u == '\t') n += 2;
    else if (u < 0x20) n += 6;
    else n += 1;
  }
}

void AddSize(const Value& v, std::size_t& n) {
  if (v.IsNull()) n += 4;
  else if (v.IsBool()) n += v.GetBool() ? 4 : 5;
  else if (v.IsNumber()) AddNumberSize(v, n);
  else if (v.IsString()) AddStringSize(Str(v), n);
  else if (v.IsArray()) {
    n += 2 + (v.Size() > 0 ? v.Size() - 1 : 0);
    for (const auto& e : v.GetArray()) AddSize(e, n);
  } else {
    n += 2 + (v.MemberCount() > 0 ? v.MemberCount() - 1 : 0);
    for (const auto& m : v.GetObject()) {
      AddStringSize(Str(m.name), n);
      n += 1;  // ':'
      AddSize(m.value, n);
    }
  }
}

}  // namespace

std::size_t SerializedSize(const rapidjson::Value& v) {
  std::size_t n = 0;
  AddSize(v, n);
  return n;
}

std::optional<std::string> CheckCommand(std::string_view command, const rapidjson::Value& args,
                                        const SdkLimits& limits) {
  auto it = Rules().find(command);
  if (it == Rules().end())
    return fmt::format("unknown command \"{}\" (see docs/sdk.md for the list)", command);
  const CommandRule& r = it->second;
  const auto n = static_cast<int>(args.Size());
  if (n < r.minArgs || n > r.maxArgs) {
    if (r.maxArgs == 0) return fmt::format("{}: takes no arguments (got {})", command, n);
    if (r.minArgs == r.maxArgs)
      return fmt::format("{}: expects {} argument{} ({}), got {}", command, r.minArgs, r.minArgs == 1 ? "" : "s",
                         r.usage, n);
    return fmt::format("{}: expects {} to {} arguments ({}), got {}", command, r.minArgs, r.maxArgs, r.usage, n);
  }
  Ctx c{command, limits};
  return r.check(c, args);
}

}  // namespace livechat::sdk::internal

namespace livechat::sdk {

const std::vector<std::string_view>& CommandNames() {
  static const std::vector<std::string_view> kNames = {
      "chat:open",     "chat:close",     "chat:toggle",   "chat:show",       "chat:hide",
      "launcher:show", "launcher:hide",  "message:send",  "typing:set",      "identify",
      "logout",        "session:reset",  "escalate",      "trigger:run",     "article:show",
      "prechat:submit", "prechat:skip",  "prechat:field", "event:track",     "message:text",
      "user:email",    "user:name",      "user:phone",    "user:attributes", "user:context",
      "shop:data",     "conversation:attributes", "product", "cart",         "order",
      "locale"};
  return kNames;
}

}  // namespace livechat::sdk
