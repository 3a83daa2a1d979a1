// Catalog import: every record is checked against a small field table and
// rewritten with exactly the documented keys, so what a tool returns never
// depends on what an import file happened to contain.
#include "core/catalog_format.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cctype>
#include <cstdio>
#include <unordered_set>
#include <fmt/format.h>

#include "livechat/shopping.h"
#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"

namespace livechat::internal {
namespace {

using rapidjson::Value;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

enum class T { kStr, kMoney, kInt, kNum, kBool, kStrArr, kTime, kObjArr, kEnum, kStrRows };

struct Field {
  const char* name;
  T type;
  bool required = false;
  int max = 255;                         // code points for strings; items for arrays
  const std::vector<Field>* sub = nullptr;  // kObjArr
  std::vector<const char*> values = {};  // kEnum
};

Error Bad(const std::string& path, std::string_view what) {
  return MakeError(ErrorCode::kInvalidParams, path + ": " + std::string(what));
}

bool IsMoney(std::string_view s) {
  // 1..12 digits, optionally '.' and 1..2 digits.
  std::size_t i = 0, digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (digits == 0 || digits > 12) return false;
  if (i == s.size()) return true;
  if (s[i] != '.') return false;
  std::size_t frac = s.size() - i - 1;
  if (frac < 1 || frac > 2) return false;
  for (std::size_t j = i + 1; j < s.size(); ++j)
    if (!std::isdigit(static_cast<unsigned char>(s[j]))) return false;
  return true;
}

// "YYYY-MM-DDTHH:MM:SS(.fff)?Z" or with a ±HH:MM offset.
bool IsTime(std::string_view s) {
  if (s.size() < 20 || s.size() > 35) return false;
  auto d = [&](std::size_t i) { return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); };
  if (!(d(0) && d(1) && d(2) && d(3) && s[4] == '-' && d(5) && d(6) && s[7] == '-' && d(8) && d(9) && s[10] == 'T' &&
        d(11) && d(12) && s[13] == ':' && d(14) && d(15) && s[16] == ':' && d(17) && d(18)))
    return false;
  std::size_t i = 19;
  if (s[i] == '.') {
    ++i;
    while (d(i)) ++i;
  }
  std::string_view zone = s.substr(i);
  if (zone == "Z") return true;
  return zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && std::isdigit(static_cast<unsigned char>(zone[1])) &&
         zone[3] == ':';
}

Status CheckString(const Value& v, const std::string& path, int max) {
  if (!v.IsString()) return Bad(path, "must be a string");
  std::string_view s(v.GetString(), v.GetStringLength());
  if (!IsValidUtf8(s)) return Bad(path, "must be valid UTF-8");
  if (Utf8Length(s) > static_cast<std::size_t>(max)) return Bad(path, fmt::format("must be at most {} characters", max));
  return Status::Ok();
}

Status WriteObject(const Value& in, const std::vector<Field>& spec, const std::string& path, JsonWriter& w);

Status WriteField(const Value* v, const Field& f, const std::string& path, JsonWriter& w) {
  const bool absent = v == nullptr || v->IsNull();
  if (absent) {
    if (f.required) return Bad(path, "is required");
    if (f.type == T::kStrArr || f.type == T::kObjArr || f.type == T::kStrRows) {
      w.StartArray();
      w.EndArray();
    } else if (f.type == T::kBool) {
      w.Bool(false);
    } else {
      w.Null();
    }
    return Status::Ok();
  }
  switch (f.type) {
    case T::kStr: {
      LC_RETURN_IF_ERROR(CheckString(*v, path, f.max));
      std::string_view s = Trim(std::string_view(v->GetString(), v->GetStringLength()));
      if (f.required && s.empty()) return Bad(path, "must not be blank");
      w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
      return Status::Ok();
    }
    case T::kEnum: {
      if (!v->IsString()) return Bad(path, "must be a string");
      std::string_view s(v->GetString(), v->GetStringLength());
      for (const char* ok : f.values)
        if (s == ok) {
          w.String(ok);
          return Status::Ok();
        }
      std::string list;
      for (const char* ok : f.values) list += (list.empty() ? "" : ", ") + std::string(ok);
      return Bad(path, "must be one of " + list);
    }
    case T::kTime: {
      if (!v->IsString() || !IsTime(std::string_view(v->GetString(), v->GetStringLength())))
        return Bad(path, "must be an ISO 8601 time like \"2026-11-21T10:00:00Z\"");
      w.String(v->GetString(), v->GetStringLength());
      return Status::Ok();
    }
    case T::kMoney: {
      std::string amount;
      if (v->IsString()) {
        amount.assign(v->GetString(), v->GetStringLength());
      } else if (v->IsNumber() && v->GetDouble() >= 0 && v->GetDouble() < 1e12) {
        amount = fmt::format("{:.2f}", v->GetDouble());
      }
      if (!IsMoney(amount)) return Bad(path, "must be a decimal amount like \"19.99\"");
      // Canonical: two decimals.
      auto dot = amount.find('.');
      if (dot == std::string::npos) amount += ".00";
      else if (amount.size() - dot == 2) amount += "0";
      w.String(amount.c_str(), static_cast<rapidjson::SizeType>(amount.size()));
      return Status::Ok();
    }
    case T::kInt: {
      if (!v->IsInt64() || v->GetInt64() < 0 || v->GetInt64() > 1'000'000'000'000LL)
        return Bad(path, "must be a whole number, 0 or more");
      w.Int64(v->GetInt64());
      return Status::Ok();
    }
    case T::kNum: {
      if (!v->IsNumber() || v->GetDouble() < 0 || v->GetDouble() > 1e12) return Bad(path, "must be a number, 0 or more");
      if (v->IsInt64()) w.Int64(v->GetInt64());
      else w.Double(v->GetDouble());
      return Status::Ok();
    }
    case T::kBool: {
      if (!v->IsBool()) return Bad(path, "must be true or false");
      w.Bool(v->GetBool());
      return Status::Ok();
    }
    case T::kStrArr: {
      if (!v->IsArray()) return Bad(path, "must be an array of strings");
      if (v->Size() > static_cast<rapidjson::SizeType>(f.max))
        return Bad(path, fmt::format("must have at most {} entries", f.max));
      w.StartArray();
      for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
        std::string p = fmt::format("{}[{}]", path, i);
        LC_RETURN_IF_ERROR(CheckString((*v)[i], p, 255));
        w.String((*v)[i].GetString(), (*v)[i].GetStringLength());
      }
      w.EndArray();
      return Status::Ok();
    }
    case T::kStrRows: {
      if (!v->IsArray()) return Bad(path, "must be an array of rows (arrays of strings)");
      if (v->Size() > static_cast<rapidjson::SizeType>(f.max))
        return Bad(path, fmt::format("must have at most {} rows", f.max));
      w.StartArray();
      for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
        Field row{"", T::kStrArr, true, 50};
        LC_RETURN_IF_ERROR(WriteField(&(*v)[i], row, fmt::format("{}[{}]", path, i), w));
      }
      w.EndArray();
      return Status::Ok();
    }
    case T::kObjArr: {
      if (!v->IsArray()) return Bad(path, "must be an array of objects");
      if (v->Size() > static_cast<rapidjson::SizeType>(f.max))
        return Bad(path, fmt::format("must have at most {} entries", f.max));
      w.StartArray();
      for (rapidjson::SizeType i = 0; i < v->Size(); ++i)
        LC_RETURN_IF_ERROR(WriteObject((*v)[i], *f.sub, fmt::format("{}[{}]", path, i), w));
      w.EndArray();
      return Status::Ok();
    }
  }
  return Status::Ok();
}

Status WriteObject(const Value& in, const std::vector<Field>& spec, const std::string& path, JsonWriter& w) {
  if (!in.IsObject()) return Bad(path, "must be an object");
  w.StartObject();
  for (const Field& f : spec) {
    auto it = in.FindMember(f.name);
    const Value* v = it == in.MemberEnd() ? nullptr : &it->value;
    w.Key(f.name);
    LC_RETURN_IF_ERROR(WriteField(v, f, path + "." + f.name, w));
  }
  w.EndObject();
  return Status::Ok();
}

Result<std::string> Normalize(const Value& in, const std::vector<Field>& spec, const std::string& path) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  LC_RETURN_IF_ERROR(WriteObject(in, spec, path, w));
  return std::string(buf.GetString(), buf.GetSize());
}

std::string Str(const Value& obj, const char* key) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsString()) return "";
  return std::string(Trim(std::string_view(it->value.GetString(), it->value.GetStringLength())));
}

std::string JoinStrings(const Value& obj, const char* key) {
  std::string out;
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsArray()) return out;
  for (const auto& v : it->value.GetArray())
    if (v.IsString()) out += std::string(out.empty() ? "" : " ") + v.GetString();
  return out;
}

const std::vector<Field> kVariant = {
    {"id", T::kStr, true, 100}, {"title", T::kStr}, {"sku", T::kStr, false, 100},
    {"price", T::kMoney, true}, {"compareAtPrice", T::kMoney}, {"inventory", T::kInt},
    {"available", T::kBool},
};
const std::vector<Field> kFaq = {{"question", T::kStr, true, 500}, {"answer", T::kStr, true, 5000}};
const std::vector<Field> kProduct = {
    {"id", T::kStr, true, 100},    {"handle", T::kStr},          {"title", T::kStr, true},
    {"description", T::kStr, false, 20000}, {"vendor", T::kStr}, {"productType", T::kStr},
    {"tags", T::kStrArr, false, 250}, {"url", T::kStr, false, 2048}, {"imageUrl", T::kStr, false, 2048},
    {"currency", T::kStr, false, 3},  {"variants", T::kObjArr, true, 250, &kVariant},
};
const std::vector<Field> kCollection = {
    {"id", T::kStr, true, 100}, {"handle", T::kStr}, {"title", T::kStr, true},
    {"description", T::kStr, false, 20000}, {"productIds", T::kStrArr, false, 10000},
};
const std::vector<Field> kDiscount = {
    {"id", T::kStr, true, 100},
    {"code", T::kStr, false, 100},
    {"title", T::kStr, true},
    {"description", T::kStr, false, 5000},
    {"type", T::kEnum, true, 0, nullptr, {"percentage", "fixed_amount", "free_shipping"}},
    {"value", T::kNum},
    {"minimumSubtotal", T::kMoney},
    {"startsAt", T::kTime},
    {"endsAt", T::kTime},
};
const std::vector<Field> kOrderItem = {
    {"title", T::kStr, true}, {"variantTitle", T::kStr}, {"sku", T::kStr, false, 100},
    {"quantity", T::kInt, true}, {"price", T::kMoney},
};
const std::vector<Field> kOrder = {
    {"id", T::kStr, true, 100},
    {"orderNumber", T::kStr, true, 50},
    {"email", T::kStr, false, 254},
    {"customerName", T::kStr},
    {"createdAt", T::kTime},
    {"status", T::kEnum, false, 0, nullptr, {"open", "closed", "cancelled"}},
    {"financialStatus", T::kEnum, false, 0, nullptr,
     {"pending", "authorized", "paid", "partially_paid", "refunded", "partially_refunded", "voided"}},
    {"fulfillmentStatus", T::kEnum, false, 0, nullptr, {"unfulfilled", "partial", "fulfilled", "restocked"}},
    {"carrier", T::kStr, false, 100},
    {"trackingNumbers", T::kStrArr, false, 20},
    {"trackingUrl", T::kStr, false, 2048},
    {"estimatedDelivery", T::kTime},
    {"items", T::kObjArr, false, 250, &kOrderItem},
    {"total", T::kMoney},
    {"currency", T::kStr, false, 3},
};
const std::vector<Field> kKnowledge = {
    {"id", T::kStr, true, 100}, {"question", T::kStr, true, 500}, {"answer", T::kStr, true, 5000}};
const std::vector<Field> kScenario = {
    {"id", T::kStr, true, 100}, {"name", T::kStr, true}, {"trigger", T::kStr, false, 1000},
    {"instructions", T::kStr, false, 5000}};
const std::vector<Field> kSizeChart = {
    {"unit", T::kStr, false, 20}, {"columns", T::kStrArr, true, 20}, {"rows", T::kStrRows, true, 100},
    {"notes", T::kStr, false, 2000}};
const std::vector<Field> kTier = {{"name", T::kStr, true, 100}, {"minPoints", T::kInt, true}, {"perks", T::kStrArr, false, 20}};
const std::vector<Field> kReward = {
    {"name", T::kStr, true, 100}, {"pointsCost", T::kInt, true}, {"description", T::kStr, false, 1000}};
const std::vector<Field> kLoyaltyProgram = {
    {"partner", T::kStr, false, 100}, {"pointsName", T::kStr, false, 50},
    {"tiers", T::kObjArr, false, 20, &kTier}, {"rewards", T::kObjArr, false, 100, &kReward}};
const std::vector<Field> kAccount = {{"email", T::kStr, true, 254}, {"points", T::kInt, true}, {"tier", T::kStr, false, 100}};

// A variant without "available" is available unless its stock is tracked
// and zero.
std::string DefaultAvailability(const Value& input, const std::string& normalized) {
  rapidjson::Document d;
  d.Parse(normalized.c_str());
  auto& out = d["variants"];
  const auto& in = input["variants"];
  for (rapidjson::SizeType i = 0; i < out.Size(); ++i) {
    if (in[i].HasMember("available") && !in[i]["available"].IsNull()) continue;
    const auto& inv = out[i]["inventory"];
    out[i]["available"].SetBool(inv.IsNull() || inv.GetInt64() > 0);
  }
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  d.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

const Value* Section(const Value& root, const char* name, bool array, Status& err) {
  auto it = root.FindMember(name);
  if (it == root.MemberEnd() || it->value.IsNull()) return nullptr;
  if (array ? !it->value.IsArray() : !it->value.IsObject()) {
    err = Bad(name, array ? "must be an array" : "must be an object");
    return nullptr;
  }
  return &it->value;
}

// `scoped` is kind + ":" + id; the message names the id alone.
Status CheckUniqueId(std::unordered_set<std::string>& seen, const std::string& scoped, const std::string& path) {
  if (!seen.insert(scoped).second)
    return Bad(path + ".id", "\"" + scoped.substr(scoped.find(':') + 1) + "\" appears twice in the file");
  return Status::Ok();
}

bool Flag(const Value& obj, const char* section, const char* key, bool def, Status& err) {
  auto s = obj.FindMember(section);
  if (s == obj.MemberEnd() || !s->value.IsObject()) return def;
  auto it = s->value.FindMember(key);
  if (it == s->value.MemberEnd() || it->value.IsNull()) return def;
  if (!it->value.IsBool()) {
    err = Bad(std::string("settings.") + section + "." + key, "must be true or false");
    return def;
  }
  return it->value.GetBool();
}

Result<AiSettings> SettingsFrom(const Value& v, const AiSettings& base, const std::string& path) {
  if (!v.IsObject()) return Bad(path, "must be an object");
  Status err;
  AiSettings s = base;
  for (const auto& f : kAiSettingFlags) s.*f.field = Flag(v, f.section, f.key, s.*f.field, err);
  auto lp = v.FindMember("loyaltyPartner");
  if (lp != v.MemberEnd()) {
    if (lp->value.IsNull()) s.loyaltyPartner.clear();
    else if (lp->value.IsString() && Utf8Length(lp->value.GetString()) <= 100) s.loyaltyPartner = lp->value.GetString();
    else err = Bad(path + ".loyaltyPartner", "must be a partner name (at most 100 characters) or null");
  }
  if (!err.ok()) return err.take_error();
  return s;
}

}  // namespace

std::string OrderKey(std::string_view number) {
  std::string out;
  for (char c : number) {
    if (c == ' ' || c == '\t') continue;
    if (out.empty() && c == '#') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

namespace {
// Words that carry no meaning for a shop search ("how do I track my order"
// is about "track order"); dropped unless the query has nothing else.
bool IsStopword(const std::string& w) {
  static const std::unordered_set<std::string> kStop = {
      "a", "about", "an", "and", "are", "as", "at", "be", "by", "can", "could", "do", "does", "for", "from",
      "get", "has", "have", "how", "i", "if", "in", "is", "it", "its", "me", "my", "of", "on", "or", "our",
      "please", "should", "so", "that", "the", "their", "them", "there", "this", "to", "us", "was", "we",
      "what", "when", "where", "which", "who", "why", "will", "with", "would", "you", "your"};
  return kStop.count(w) != 0;
}
}  // namespace

std::vector<std::string> SearchTerms(std::string_view query, std::size_t maxTerms) {
  std::vector<std::string> all = SearchWords(query, maxTerms);
  std::vector<std::string> meaningful;
  for (const auto& w : all)
    if (!IsStopword(w)) meaningful.push_back(w);
  return meaningful.empty() ? all : meaningful;
}

std::vector<std::string> SearchWords(std::string_view query, std::size_t maxTerms) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty() && out.size() < maxTerms) {
      bool dup = false;
      for (const auto& t : out) dup = dup || t == cur;
      if (!dup) out.push_back(cur);
    }
    cur.clear();
  };
  for (unsigned char c : query) {
    if (c >= 0x80 || std::isalnum(c)) cur += static_cast<char>(c < 0x80 ? std::tolower(c) : c);
    else flush();
  }
  flush();
  return out;
}

Result<CatalogRecord> NormalizeKnowledgeEntry(std::string_view question, std::string_view answer, std::string id) {
  rapidjson::Document d;
  d.SetObject();
  auto& a = d.GetAllocator();
  d.AddMember("id", Value(id.c_str(), a), a);
  d.AddMember("question", Value(question.data(), static_cast<rapidjson::SizeType>(question.size()), a), a);
  d.AddMember("answer", Value(answer.data(), static_cast<rapidjson::SizeType>(answer.size()), a), a);
  CatalogRecord r;
  LC_ASSIGN_OR_RETURN(r.item.dataJson, Normalize(d, kKnowledge, "entry"));
  r.item.kind = catalog_kind::kKnowledge;
  r.item.id = std::move(id);
  r.item.title = std::string(Trim(question));
  r.item.body = std::string(Trim(answer));
  return r;
}

Result<ParsedCatalog> ParseCatalog(std::string_view json, std::size_t maxBytes) {
  if (json.size() > maxBytes)
    return MakeError(ErrorCode::kPayloadTooLarge,
                     fmt::format("the catalog file is {} bytes; the limit is {} bytes", json.size(), maxBytes));
  rapidjson::Document root;
  root.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(json.data(), json.size());
  if (root.HasParseError())
    return MakeError(ErrorCode::kInvalidParams, fmt::format("the catalog is not valid JSON: {} at byte {}",
                                                            rapidjson::GetParseError_En(root.GetParseError()),
                                                            root.GetErrorOffset()));
  if (!root.IsObject()) return MakeError(ErrorCode::kInvalidParams, "the catalog must be a JSON object");

  ParsedCatalog out;
  Status err;
  std::unordered_set<std::string> seen;

  if (const Value* products = Section(root, "products", true, err)) {
    for (rapidjson::SizeType i = 0; i < products->Size(); ++i) {
      const Value& p = (*products)[i];
      std::string path = fmt::format("products[{}]", i);
      CatalogRecord r;
      LC_ASSIGN_OR_RETURN(r.item.dataJson, Normalize(p, kProduct, path));
      r.item.dataJson = DefaultAvailability(p, r.item.dataJson);
      r.item.kind = catalog_kind::kProduct;
      r.item.id = Str(p, "id");
      LC_RETURN_IF_ERROR(CheckUniqueId(seen, "product:" + r.item.id, path));
      r.item.title = Str(p, "title");
      std::string variants;
      for (const auto& v : p["variants"].GetArray()) variants += " " + Str(v, "title") + " " + Str(v, "sku");
      r.item.body = Str(p, "description") + " " + JoinStrings(p, "tags") + " " + Str(p, "vendor") + " " +
                    Str(p, "productType") + variants;
      const std::string productTitle = r.item.title;
      const std::string productId = r.item.id;
      if (!Str(p, "handle").empty()) r.keys.push_back("handle:" + AsciiLower(Str(p, "handle")));
      out.records.push_back(std::move(r));
      auto faqs = p.FindMember("faqs");
      if (faqs != p.MemberEnd() && !faqs->value.IsNull()) {
        if (!faqs->value.IsArray()) return Bad(path + ".faqs", "must be an array of {question, answer}");
        for (rapidjson::SizeType j = 0; j < faqs->value.Size(); ++j) {
          const Value& f = faqs->value[j];
          std::string fpath = fmt::format("{}.faqs[{}]", path, j);
          LC_ASSIGN_OR_RETURN(std::string faqJson, Normalize(f, kFaq, fpath));
          CatalogRecord fr;
          fr.item.kind = catalog_kind::kProductFaq;
          fr.item.id = fmt::format("{}-faq-{}", productId, j + 1);
          fr.item.parentId = productId;
          fr.item.title = Str(f, "question");
          fr.item.body = Str(f, "answer") + " " + productTitle;
          // The stored FAQ names its product, so a lookup answer is self-contained.
          rapidjson::Document d;
          d.Parse(faqJson.c_str());
          auto& a = d.GetAllocator();
          d.AddMember("id", Value(fr.item.id.c_str(), a), a);
          d.AddMember("productId", Value(productId.c_str(), a), a);
          d.AddMember("productTitle", Value(productTitle.c_str(), a), a);
          rapidjson::StringBuffer buf;
          JsonWriter w(buf);
          d.Accept(w);
          fr.item.dataJson.assign(buf.GetString(), buf.GetSize());
          out.records.push_back(std::move(fr));
        }
      }
    }
  }
  if (!err.ok()) return err.take_error();

  struct Simple {
    const char* section;
    const char* kind;
    const std::vector<Field>* spec;
  };
  for (const Simple& s : {Simple{"collections", catalog_kind::kCollection, &kCollection},
                          Simple{"discounts", catalog_kind::kDiscount, &kDiscount},
                          Simple{"orders", catalog_kind::kOrder, &kOrder},
                          Simple{"knowledge", catalog_kind::kKnowledge, &kKnowledge},
                          Simple{"scenarios", catalog_kind::kScenario, &kScenario}}) {
    const Value* arr = Section(root, s.section, true, err);
    if (!err.ok()) return err.take_error();
    if (!arr) continue;
    for (rapidjson::SizeType i = 0; i < arr->Size(); ++i) {
      const Value& v = (*arr)[i];
      std::string path = fmt::format("{}[{}]", s.section, i);
      CatalogRecord r;
      LC_ASSIGN_OR_RETURN(r.item.dataJson, Normalize(v, *s.spec, path));
      r.item.kind = s.kind;
      r.item.id = Str(v, "id");
      LC_RETURN_IF_ERROR(CheckUniqueId(seen, std::string(s.kind) + ":" + r.item.id, path));
      const std::string kind = s.kind;
      if (kind == catalog_kind::kCollection) {
        r.item.title = Str(v, "title");
        r.item.body = Str(v, "description");
      } else if (kind == catalog_kind::kDiscount) {
        r.item.title = Str(v, "title") + " " + Str(v, "code");
        r.item.body = Str(v, "description");
        if (!Str(v, "code").empty()) r.keys.push_back(AsciiLower(Str(v, "code")));
      } else if (kind == catalog_kind::kOrder) {
        r.item.title = Str(v, "orderNumber");
        r.keys.push_back(OrderKey(Str(v, "orderNumber")));
        auto tn = v.FindMember("trackingNumbers");
        if (tn != v.MemberEnd() && tn->value.IsArray())
          for (const auto& t : tn->value.GetArray())
            if (t.IsString()) r.keys.push_back("tracking:" + OrderKey(t.GetString()));
      } else if (kind == catalog_kind::kScenario) {
        r.item.title = Str(v, "name");
        r.item.body = Str(v, "trigger") + " " + Str(v, "instructions");
      } else {
        r.item.title = Str(v, "question");
        r.item.body = Str(v, "answer");
      }
      out.records.push_back(std::move(r));
    }
  }

  if (const Value* chart = Section(root, "sizeChart", false, err)) {
    LC_ASSIGN_OR_RETURN(out.sizeChartJson, Normalize(*chart, kSizeChart, "sizeChart"));
    const auto columns = (*chart)["columns"].Size();
    const Value& rows = (*chart)["rows"];
    for (rapidjson::SizeType i = 0; i < rows.Size(); ++i)
      if (rows[i].Size() != columns)
        return Bad(fmt::format("sizeChart.rows[{}]", i), fmt::format("must have {} cells, one per column", columns));
  }
  if (!err.ok()) return err.take_error();

  if (const Value* loyalty = Section(root, "loyalty", false, err)) {
    LC_ASSIGN_OR_RETURN(out.loyaltyProgramJson, Normalize(*loyalty, kLoyaltyProgram, "loyalty"));
    auto acc = loyalty->FindMember("accounts");
    if (acc != loyalty->MemberEnd() && !acc->value.IsNull()) {
      if (!acc->value.IsArray()) return Bad("loyalty.accounts", "must be an array");
      for (rapidjson::SizeType i = 0; i < acc->value.Size(); ++i) {
        const Value& a = acc->value[i];
        std::string path = fmt::format("loyalty.accounts[{}]", i);
        CatalogRecord r;
        LC_ASSIGN_OR_RETURN(r.item.dataJson, Normalize(a, kAccount, path));
        r.item.kind = catalog_kind::kLoyaltyAccount;
        r.item.id = LoyaltyAccountId(Str(a, "email"));
        LC_RETURN_IF_ERROR(CheckUniqueId(seen, "loyalty:" + r.item.id, path));
        r.item.title = r.item.id;
        out.records.push_back(std::move(r));
      }
    }
  }
  if (!err.ok()) return err.take_error();

  if (const Value* settings = Section(root, "settings", false, err)) {
    LC_ASSIGN_OR_RETURN(out.settings, SettingsFrom(*settings, AiSettings{}, "settings"));
    out.hasSettings = true;
  }
  if (!err.ok()) return err.take_error();
  return out;
}

std::string AiSettingsJson(const AiSettings& s) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("trainingData");
  w.StartObject();
  w.Key("products"), w.Bool(s.trainProducts);
  w.Key("collections"), w.Bool(s.trainCollections);
  w.Key("discounts"), w.Bool(s.trainDiscounts);
  w.EndObject();
  w.Key("skills");
  w.StartObject();
  w.Key("sizeGuide"), w.Bool(s.skillSizeGuide);
  w.Key("orderTracking"), w.Bool(s.skillOrderTracking);
  w.Key("afterSaleSupport"), w.Bool(s.skillAfterSaleSupport);
  w.Key("humanAgentTransfer"), w.Bool(s.skillHumanAgentTransfer);
  w.EndObject();
  w.Key("loyaltyPartner");
  if (s.loyaltyPartner.empty()) w.Null();
  else w.String(s.loyaltyPartner.c_str());
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

Result<AiSettings> ParseAiSettings(std::string_view json, const AiSettings& base) {
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError()) return MakeError(ErrorCode::kInvalidParams, "settings are not valid JSON");
  return SettingsFrom(d, base, "settings");
}

}  // namespace livechat::internal
