#include "commands.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <limits>

#include "livechat/json_codec.h"
#include "livechat/open_store.h"
#include "livechat/principal.h"
#include "livechat/result.h"
#include "livechat/postgres_store.h"
#include "livechat/sqlite_store.h"

namespace livechatctl {
namespace {

using livechat::ChatService;
using livechat::PrivacyService;
using livechat::Principal;
using livechat::Status;

// `audit` without --limit (the core takes 1 to PrivacyService::kPlatformRequestsLimitMax).
constexpr int kAuditLimitDefault = 100;

Outcome Ok(std::string json) { return Outcome{0, std::move(json)}; }

Outcome Failed(const livechat::Error& e) { return Outcome{1, ErrorJson(livechat::ErrorCodeName(e.code), e.message)}; }

std::optional<std::string> Opt(const ParsedArgs& a, const char* name) {
  auto it = a.values.find(name);
  if (it == a.values.end()) return std::nullopt;
  return it->second;
}

const std::string& Req(const ParsedArgs& a, const char* name) { return a.values.at(name); }

bool Has(const ParsedArgs& a, const char* name) { return a.values.count(name) != 0; }

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream buf;
  buf << in.rdbuf();
  *out = buf.str();
  return true;
}

std::optional<int> ParseCount(const std::string& text) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

// "read_conversations,manage_conversations" -> the permission mask. An empty
// list is a key with nothing ticked (refused everywhere, as the spec says).
std::optional<std::uint32_t> ParsePermissions(const std::string& text, std::string* bad) {
  std::uint32_t mask = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string slug = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    slug.erase(0, slug.find_first_not_of(" \t"));
    slug.erase(slug.find_last_not_of(" \t") + 1);
    if (!slug.empty()) {
      auto p = livechat::ParsePermissionSlug(slug);
      if (!p) {
        *bad = slug;
        return std::nullopt;
      }
      mask |= *p;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return mask;
}

std::string JoinArray(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ",";
    out += items[i];
  }
  return out + "]";
}

// `{"key":"sk_...", <the key's public fields>}`: the one time the secret is shown.
std::string CreatedKeyJson(const livechat::CreatedKey& k) {
  std::string fields = livechat::ToJson(k.key);
  std::string out = "{\"key\":";
  livechat::AppendJsonString(out, k.secret);
  if (fields.size() > 2) out += "," + fields.substr(1);
  else out += "}";
  return out;
}

Outcome UnknownPermission(const std::string& slug) {
  return UsageError("unknown permission \"" + slug + "\"; known: " + livechat::JoinNames(livechat::PermissionSlugs(), ", "));
}

Outcome StoreCreate(ChatService& service, const ParsedArgs& a) {
  livechat::CreateShopInput in;
  in.name = Req(a, "name");
  auto plan = livechat::ParsePlan(Opt(a, "plan").value_or("pro"));
  if (!plan) return UsageError("--plan must be one of " + livechat::JoinNames(livechat::kPlanNames, ", "));
  in.plan = *plan;
  in.autoAssign = Has(a, "auto-assign");
  auto shop = service.directory().CreateShop(in);
  if (!shop.ok()) return Failed(shop.error());
  return Ok(livechat::ToJson(*shop));
}

Outcome KeyCreate(ChatService& service, const ParsedArgs& a) {
  livechat::CreateKeyInput in;
  in.name = Req(a, "name");
  in.legacy = Has(a, "legacy");
  if (!in.legacy && !Has(a, "permissions"))
    return UsageError("give --permissions a,b,c (or --legacy for a key without the permission model)");
  if (auto perms = Opt(a, "permissions")) {
    std::string bad;
    auto mask = ParsePermissions(*perms, &bad);
    if (!mask)
      return UnknownPermission(bad);
    in.permissions = *mask;
  }
  auto key = service.directory().CreateApiKey(Principal::System(Req(a, "store")), in);
  if (!key.ok()) return Failed(key.error());
  return Ok(CreatedKeyJson(*key));
}

Outcome KeyList(ChatService& service, const ParsedArgs& a) {
  auto keys = service.directory().ListApiKeys(Principal::System(Req(a, "store")));
  if (!keys.ok()) return Failed(keys.error());
  std::vector<std::string> items;
  for (const auto& k : *keys) items.push_back(livechat::ToJson(k));
  return Ok(JoinArray(items));
}

Outcome KeyUpdate(ChatService& service, const ParsedArgs& a) {
  std::string bad;
  auto mask = ParsePermissions(Req(a, "permissions"), &bad);
  if (!mask) return UnknownPermission(bad);
  auto key = service.directory().UpdateApiKeyPermissions(Principal::System(Req(a, "store")), Req(a, "id"), *mask);
  if (!key.ok()) return Failed(key.error());
  return Ok(livechat::ToJson(*key));
}

Outcome KeyDelete(ChatService& service, const ParsedArgs& a) {
  auto st = service.directory().DeleteApiKey(Principal::System(Req(a, "store")), Req(a, "id"));
  if (!st.ok()) return Failed(st.error());
  std::string out = "{\"id\":";
  livechat::AppendJsonString(out, Req(a, "id"));
  return Ok(out + ",\"deleted\":true}");
}

Outcome MemberCreate(ChatService& service, const ParsedArgs& a) {
  livechat::CreateMemberInput in;
  in.email = Req(a, "email");
  in.firstName = Opt(a, "first-name");
  in.lastName = Opt(a, "last-name");
  in.role = Opt(a, "role").value_or(in.role);  // the core's default role
  // The core's rule, refused here as a usage error (exit code 2) like every option.
  if (!livechat::IsMemberRole(in.role)) return UsageError("--" + std::string(livechat::kMemberRoleMessage));
  in.password = Opt(a, "password");
  in.active = !Has(a, "inactive");
  in.avatarUrl = Opt(a, "avatar-url");
  auto member = service.directory().CreateMember(Principal::System(Req(a, "store")), in);
  if (!member.ok()) return Failed(member.error());
  return Ok(livechat::ToJson(*member));
}

Outcome ConversationStart(ChatService& service, const ParsedArgs& a) {
  livechat::InboundMessageInput in;
  in.channel = Opt(a, "channel").value_or(in.channel);  // the core's default channel
  if (!livechat::IsKnownChannel(in.channel))
    return UsageError("--" + livechat::UnknownChannelMessage());
  in.customerName = Opt(a, "customer-name");
  in.customerEmail = Opt(a, "customer-email");
  in.customerPhone = Opt(a, "customer-phone");
  in.channelRecipient = Opt(a, "recipient");
  in.sessionId = Opt(a, "session-id");
  in.conversationId = Opt(a, "conversation");
  in.text = Req(a, "text");
  auto conv = service.conversations().ReceiveInbound(Principal::System(Req(a, "store")), in);
  if (!conv.ok()) return Failed(conv.error());
  return Ok(livechat::ToJson(*conv, livechat::JsonView::kDetail));
}

Outcome Seed(ChatService& service, const ParsedArgs& a) {
  auto conversations = ParseCount(Req(a, "conversations"));
  auto messages = ParseCount(Opt(a, "messages-per-conversation").value_or("0"));
  if (!conversations) return UsageError("--conversations expects a whole number >= 0");
  if (!messages) return UsageError("--messages-per-conversation expects a whole number >= 0");
  livechat::SeedInput in{*conversations, *messages};
  auto st = service.demo().Seed(Principal::System(Req(a, "store")), in);
  if (!st.ok()) return Failed(st.error());
  std::string out = "{\"storeId\":";
  livechat::AppendJsonString(out, Req(a, "store"));
  out += ",\"conversations\":" + std::to_string(in.conversations) +
         ",\"messagesPerConversation\":" + std::to_string(in.messagesPerConversation) + "}";
  return Ok(out);
}

Outcome Demo(ChatService& service, const ParsedArgs& a) {
  auto created = service.demo().CreateDemo(Opt(a, "name").value_or("Demo Store"));
  if (!created.ok()) return Failed(created.error());
  auto shop = service.directory().GetShop(created->key.shopId);
  if (!shop.ok()) return Failed(shop.error());
  return Ok("{\"shop\":" + livechat::ToJson(*shop) + ",\"key\":" + CreatedKeyJson(*created) + "}");
}

std::optional<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// The file name's extension as the type ChatService then checks against the bytes.
std::string GuessType(const std::string& path) {
  auto dot = path.rfind('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == "png") return "image/png";
  if (ext == "jpg" || ext == "jpeg") return "image/jpeg";
  if (ext == "gif") return "image/gif";
  if (ext == "webp") return "image/webp";
  if (ext == "csv") return "text/csv";
  return "";
}

Outcome CustomersImport(ChatService& service, const ParsedArgs& a) {
  const std::string& path = Req(a, "file");
  auto bytes = ReadWholeFile(path);
  if (!bytes) return UsageError("cannot read --file " + path);
  livechat::FileUpload in;
  in.kind = "import";
  in.name = path;
  in.contentType = "text/csv";
  in.bytes = std::move(*bytes);
  auto result = service.files().ImportCustomersCsv(Principal::System(Req(a, "store")), in);
  if (!result.ok()) return Failed(result.error());
  return Ok("{\"rows\":" + std::to_string(result->rows) + ",\"created\":" + std::to_string(result->created) +
            ",\"updated\":" + std::to_string(result->updated) + ",\"file\":" + livechat::ToJson(result->file) + "}");
}

Outcome FilesUpload(ChatService& service, const ParsedArgs& a) {
  const std::string& path = Req(a, "file");
  auto bytes = ReadWholeFile(path);
  if (!bytes) return UsageError("cannot read --file " + path);
  livechat::FileUpload in;
  in.kind = Req(a, "kind");
  in.name = path;
  in.contentType = Opt(a, "type").value_or(GuessType(path));
  in.memberId = Opt(a, "member");
  in.bytes = std::move(*bytes);
  auto file = service.files().UploadFile(Principal::System(Req(a, "store")), in);
  if (!file.ok()) return Failed(file.error());
  std::string json = livechat::ToJson(*file);
  json.pop_back();
  json += ",\"url\":";
  livechat::AppendJsonString(json, service.files().FileUrl(*file, 0));
  return Ok(json + "}");
}

Outcome FilesList(ChatService& service, const ParsedArgs& a) {
  auto files = service.files().ListFiles(Principal::System(Req(a, "store")), Req(a, "kind"));
  if (!files.ok()) return Failed(files.error());
  std::vector<std::string> items;
  for (const auto& f : *files) items.push_back(livechat::ToJson(f));
  return Ok(JoinArray(items));
}

Outcome FilesDelete(ChatService& service, const ParsedArgs& a) {
  Status st = service.files().DeleteFile(Principal::System(Req(a, "store")), Req(a, "id"));
  if (!st.ok()) return Failed(st.error());
  std::string out = "{\"id\":";
  livechat::AppendJsonString(out, Req(a, "id"));
  return Ok(out + ",\"deleted\":true}");
}

Outcome FilesPurge(ChatService& service, const ParsedArgs& a) {
  Status st = service.files().PurgeShopUploads(Req(a, "store"));
  if (!st.ok()) return Failed(st.error());
  std::string out = "{\"storeId\":";
  livechat::AppendJsonString(out, Req(a, "store"));
  return Ok(out + ",\"purged\":[\"import\",\"logo\",\"avatar\",\"icon\"]}");
}

Outcome CatalogImport(ChatService& service, const ParsedArgs& a) {
  std::string text;
  if (!ReadFile(Req(a, "file"), &text)) return UsageError("cannot read --file " + Req(a, "file"));
  auto result = service.knowledge().ImportCatalog(Principal::System(Req(a, "store")), text);
  if (!result.ok()) return Failed(result.error());
  std::string out = "{\"storeId\":";
  livechat::AppendJsonString(out, Req(a, "store"));
  out += ",\"written\":{";
  bool first = true;
  for (const auto& [kind, n] : result->written) {
    if (!first) out += ",";
    first = false;
    livechat::AppendJsonString(out, kind);
    out += ":" + std::to_string(n);
  }
  out += std::string("},\"sizeChart\":") + (result->sizeChart ? "true" : "false") +
         ",\"loyaltyProgram\":" + (result->loyaltyProgram ? "true" : "false") +
         ",\"settings\":" + (result->settings ? "true" : "false") + "}";
  return Ok(out);
}

Outcome ImportLegacy(ChatService& service, const ParsedArgs& a) {
  std::string text;
  if (!ReadFile(Req(a, "file"), &text)) return UsageError("cannot read --file " + Req(a, "file"));
  auto result = service.legacy().ImportLegacy(Principal::System(Req(a, "store")), text);
  if (!result.ok()) return Failed(result.error());
  std::string out = "{\"storeId\":";
  livechat::AppendJsonString(out, Req(a, "store"));
  out += ",\"imported\":" + std::to_string(result->imported) + ",\"skipped\":" + std::to_string(result->skipped) +
         ",\"messages\":" + std::to_string(result->messages) +
         ",\"contactsCreated\":" + std::to_string(result->contactsCreated) + "}";
  return Ok(out);
}

Outcome Migrate(ChatService& service, const ParsedArgs& a) {
  std::optional<std::int64_t> limit;
  if (auto text = Opt(a, "limit")) {
    auto n = ParseCount(*text);
    if (!n || *n < 1) return UsageError("--limit expects a whole number >= 1");
    limit = *n;
  }
  auto result = service.legacy().MigrateLegacy(Principal::System(Req(a, "store")), limit);
  if (!result.ok()) return Failed(result.error());
  std::string out = "{\"storeId\":";
  livechat::AppendJsonString(out, Req(a, "store"));
  out += ",\"migrated\":" + std::to_string(result->migrated) +
         ",\"remaining\":" + std::to_string(result->remaining) + "}";
  return Ok(out);
}

Outcome Backup(ChatService&, const ParsedArgs& a) {
  const std::string& to = Req(a, "out");
  if (livechat::IsPostgresUrl(a.db.value_or("")))
    return Failed(livechat::Error{livechat::ErrorCode::kInvalidParams,
                                  "backup copies a SQLite file; back up a PostgreSQL database with pg_dump "
                                  "(docs/operations.md)"});
  livechat::Status st = livechat::BackupSqliteDatabase(a.db.value_or(""), to);
  if (!st.ok()) return Failed(st.error());
  std::error_code ec;
  auto bytes = std::filesystem::file_size(to, ec);
  std::string out = "{\"backup\":";
  livechat::AppendJsonString(out, to);
  out += ",\"bytes\":" + std::to_string(ec ? 0 : bytes) + ",\"schemaVersion\":" +
         std::to_string(livechat::SqliteSchemaVersion()) + "}";
  return Ok(out);
}

Outcome CopyToPostgres(ChatService&, const ParsedArgs& a) {
  const std::string from = a.db.value_or("");
  const std::string& to = Req(a, "to");
  auto copied = livechat::CopySqliteToPostgres(from, to);
  if (!copied.ok()) return Failed(copied.error());
  std::int64_t rows = 0;
  std::string tables;
  for (const auto& t : *copied) {
    tables += tables.empty() ? "{" : ",";
    livechat::AppendJsonString(tables, t.table);
    tables += ":" + std::to_string(t.rows);
    rows += t.rows;
  }
  std::string out = "{\"from\":";
  livechat::AppendJsonString(out, livechat::DescribeDatabase(from));
  out += ",\"to\":";
  livechat::AppendJsonString(out, livechat::DescribeDatabase(to));
  out += ",\"rows\":" + std::to_string(rows) + ",\"tables\":" + (tables.empty() ? "{" : tables) + "}";
  // The uploaded files' bytes are not in the database: livechatd on
  // PostgreSQL reads them from its --files-dir.
  out += ",\"filesDir\":";
  livechat::AppendJsonString(out, from + ".files");
  out += "}";
  return Ok(out);
}

Outcome SettingsShow(ChatService& service, const ParsedArgs& a) {
  auto s = service.knowledge().GetAiSettings(Principal::System(Req(a, "store")));
  if (!s.ok()) return Failed(s.error());
  return Ok(livechat::ToJson(*s));
}

// The core's on/off settings (livechat/knowledge.h) by section, each section
// followed by `after`: "trainingData.products|collections|discounts<after>,
// skills.sizeGuide|...<after>".
std::string SettingFlagNames(const std::string& after) {
  std::string out, section;
  for (const auto& f : livechat::kAiSettingFlags) {
    if (section == f.section) {
      out += std::string("|") + f.key;
    } else {
      out += (section.empty() ? "" : after + ", ") + f.section + "." + f.key;
      section = f.section;
    }
  }
  return out + after;
}

// "trainingData.products|collections|discounts, skills.sizeGuide|..., loyaltyPartner"
std::string KnownSettingNames() { return SettingFlagNames("") + ", loyaltyPartner"; }

// --set "trainingData.products=on,skills.sizeGuide=off,loyaltyPartner=Smile.io"
Outcome SettingsSet(ChatService& service, const ParsedArgs& a) {
  std::map<std::string, std::string> sections;  // section -> "k":v,...
  std::string loyalty;
  const std::string& text = Req(a, "set");
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string::npos) return UsageError("--set expects NAME=VALUE pairs, got \"" + item + "\"");
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    if (name == "loyaltyPartner") {
      loyalty = value == "none" ? "null" : [&] {
        std::string q;
        livechat::AppendJsonString(q, value);
        return q;
      }();
      continue;
    }
    auto dot = name.find('.');
    std::string section = dot == std::string::npos ? "" : name.substr(0, dot);
    std::string key = dot == std::string::npos ? "" : name.substr(dot + 1);
    // The core's list of on/off settings (livechat/knowledge.h).
    const auto& flags = livechat::kAiSettingFlags;
    if (std::none_of(std::begin(flags), std::end(flags),
                     [&](const livechat::AiSettingFlag& f) { return section == f.section && key == f.key; }))
      return UsageError("unknown setting \"" + name + "\" (" + KnownSettingNames() + ")");
    if (value != "on" && value != "off") return UsageError(name + " takes on or off, got \"" + value + "\"");
    std::string& body = sections[section];
    if (!body.empty()) body += ",";
    body += "\"" + key + "\":" + (value == "on" ? "true" : "false");
  }
  std::string patch = "{";
  for (const auto& [section, body] : sections) patch += (patch.size() > 1 ? "," : "") + ("\"" + section + "\":{" + body + "}");
  if (!loyalty.empty()) patch += std::string(patch.size() > 1 ? "," : "") + "\"loyaltyPartner\":" + loyalty;
  patch += "}";
  if (patch == "{}") return UsageError("--set names no setting");
  auto s = service.knowledge().UpdateAiSettings(Principal::System(Req(a, "store")), patch);
  if (!s.ok()) return Failed(s.error());
  return Ok(livechat::ToJson(*s));
}

Outcome StoreInstall(ChatService& service, const ParsedArgs& a) {
  auto shop = service.privacy().SetShopInstalled(Principal::System(Req(a, "store")), true);
  if (!shop.ok()) return Failed(shop.error());
  return Ok(livechat::ToJson(*shop));
}

Outcome Audit(ChatService& service, const ParsedArgs& a) {
  constexpr int kMax = PrivacyService::kPlatformRequestsLimitMax;
  auto limit = ParseCount(Opt(a, "limit").value_or(std::to_string(kAuditLimitDefault)));
  if (!limit || *limit < 1 || *limit > kMax)
    return UsageError("--limit expects a whole number from 1 to " + std::to_string(kMax));
  auto rows = service.privacy().ListPlatformRequests(Principal::System(Req(a, "store")), *limit);
  if (!rows.ok()) return Failed(rows.error());
  std::vector<std::string> items;
  for (const auto& r : *rows) items.push_back(livechat::ToJson(r));
  return Ok(JoinArray(items));
}

Outcome DataRequestList(ChatService& service, const ParsedArgs& a) {
  auto rows = service.privacy().ListDataRequests(Principal::System(Req(a, "store")));
  if (!rows.ok()) return Failed(rows.error());
  std::vector<std::string> items;
  for (const auto& d : *rows) items.push_back(livechat::ToJson(d, /*withExport=*/false));
  return Ok(JoinArray(items));
}

Outcome DataRequestShow(ChatService& service, const ParsedArgs& a) {
  auto d = service.privacy().GetDataRequest(Principal::System(Req(a, "store")), Req(a, "id"));
  if (!d.ok()) return Failed(d.error());
  return Ok(livechat::ToJson(*d, /*withExport=*/true));
}

Outcome IntegrationList(ChatService& service, const ParsedArgs& a) {
  auto rows = service.privacy().ListChannelIntegrations(Principal::System(Req(a, "store")));
  if (!rows.ok()) return Failed(rows.error());
  std::vector<std::string> items;
  for (const auto& i : *rows) items.push_back(livechat::ToJson(i));
  return Ok(JoinArray(items));
}

Outcome IntegrationSet(ChatService& service, const ParsedArgs& a, bool connected) {
  auto i = service.privacy().SetChannelIntegration(Principal::System(Req(a, "store")), Req(a, "channel"), connected);
  if (!i.ok()) return Failed(i.error());
  return Ok(livechat::ToJson(*i));
}
Outcome IntegrationConnect(ChatService& service, const ParsedArgs& a) { return IntegrationSet(service, a, true); }
Outcome IntegrationDisconnect(ChatService& service, const ParsedArgs& a) { return IntegrationSet(service, a, false); }

const FlagDef kStore{"store", true, true, "store id (from `store create`)"};

}  // namespace

std::string ErrorJson(std::string_view code, const std::string& message) {
  std::string out = "{\"error\":{\"code\":";
  livechat::AppendJsonString(out, code);
  out += ",\"message\":";
  livechat::AppendJsonString(out, message);
  return out + "}}";
}

Outcome UsageError(const std::string& message) { return Outcome{2, ErrorJson("INVALID_PARAMS", message)}; }

const std::vector<Command>& Commands() {
  // The core's lists (channels, plans, roles), named in the help as they are checked.
  static const std::string kChannelHelp = livechat::JoinNames(livechat::kChannels, "|") + " (default online_store)";
  static const std::string kIntegratedChannelHelp = livechat::JoinNames(livechat::kIntegratedChannels, "|");
  static const std::string kPlanHelp =
      livechat::JoinNames(livechat::kPlanNames, "|") + " (default pro; API keys need pro or plus)";
  static const std::string kRoleHelp = livechat::JoinNames(livechat::kMemberRoles, "|") + " (default member)";
  static const std::string kSettingsSetHelp =
      "comma-separated NAME=VALUE: " + SettingFlagNames("=on|off") + ", loyaltyPartner=NAME|none";
  static const std::string kAuditLimitHelp = "rows at most, 1-" + std::to_string(PrivacyService::kPlatformRequestsLimitMax) +
                                             " (default " + std::to_string(kAuditLimitDefault) + ")";
  static const std::string kIntegrationsSummary =
      "the store's channel integrations (" + livechat::JoinNames(livechat::kIntegratedChannels, ", ") + ")";
  static const std::vector<Command> kCommands = {
      {{"store", "create"},
       {{"name", true, true, "store name"},
        {"plan", true, false, kPlanHelp.c_str()},
        {"auto-assign", false, false, "an agent reply assigns the conversation to the replier"}},
       "create a store; prints it with id and appId",
       StoreCreate},
      {{"key", "create"},
       {kStore,
        {"name", true, true, "key name, up to 50 characters"},
        {"permissions", true, false, "comma-separated slugs (required unless --legacy)"},
        {"legacy", false, false, "a key without the permission model: passes every check"}},
       "create an API key; prints \"key\" (the sk_ value) once",
       KeyCreate},
      {{"key", "list"}, {kStore}, "list a store's keys (never the secret)", KeyList},
      {{"key", "update"},
       {kStore, {"id", true, true, "key id"}, {"permissions", true, true, "comma-separated slugs (may be empty)"}},
       "replace a key's permissions; applies on its next request",
       KeyUpdate},
      {{"key", "delete"}, {kStore, {"id", true, true, "key id"}}, "revoke a key", KeyDelete},
      {{"member", "create"},
       {kStore,
        {"email", true, true, "email (admin inbox login)"},
        {"first-name", true, false, "first name"},
        {"last-name", true, false, "last name"},
        {"role", true, false, kRoleHelp.c_str()},
        {"password", true, false, "password for the admin inbox login"},
        {"inactive", false, false, "create the member inactive"},
        {"avatar-url", true, false, "avatar URL"}},
       "create a team member",
       MemberCreate},
      {{"conversation", "start"},
       {kStore,
        {"channel", true, false, kChannelHelp.c_str()},
        {"customer-name", true, false, "customer name"},
        {"customer-email", true, false, "customer email (the same email is the same contact)"},
        {"customer-phone", true, false, "customer phone"},
        {"recipient", true, false, "channel identity for facebook/instagram/whatsapp delivery"},
        {"session-id", true, false, "browsing session id"},
        {"conversation", true, false, "continue this conversation instead of starting one"},
        {"text", true, true, "the customer's message"}},
       "record an inbound customer message; prints the conversation (id, customerUuid)",
       ConversationStart},
      {{"seed"},
       {kStore,
        {"conversations", true, true, "conversations to create"},
        {"messages-per-conversation", true, false, "messages in each (default 0)"}},
       "bulk-create conversations and messages (benchmarks)",
       Seed},
      {{"catalog", "import"},
       {kStore, {"file", true, true, "catalog JSON file (format: docs/mcp.md)"}},
       "load products, FAQs, collections, discounts, orders, knowledge, size chart and loyalty (upsert by id; all "
       "or nothing)",
       CatalogImport},
      {{"customers", "import"},
       {kStore, {"file", true, true, "CSV file with a header row (columns: docs/operations.md, \"Contact import\")"}},
       "import contacts from CSV (an existing email is updated; all or nothing); the file is kept as an import",
       CustomersImport},
      {{"files", "upload"},
       {kStore,
        {"kind", true, true, "logo|icon|avatar"},
        {"file", true, true, "PNG, JPEG, GIF or WebP image, up to 2 MiB"},
        {"type", true, false, "content type (default: from the file name's extension)"},
        {"member", true, false, "member id (avatar)"}},
       "upload a logo or icon (the widget settings point at it) or a member's avatar; prints the file and its URL",
       FilesUpload},
      {{"files", "list"}, {kStore, {"kind", true, true, "import|logo|avatar|icon|attachment"}},
       "list a store's files of one kind", FilesList},
      {{"files", "delete"}, {kStore, {"id", true, true, "file id"}},
       "delete a logo, icon, avatar or import (attachments are conversation history)", FilesDelete},
      {{"files", "purge"}, {kStore},
       "delete every contact import, logo, avatar and icon of the store (shop redact); attachments stay",
       FilesPurge},
      {{"settings", "show"}, {kStore}, "print the AI settings (the tool server's switches)", SettingsShow},
      {{"settings", "set"},
       {kStore,
        {"set", true, true, kSettingsSetHelp.c_str()}},
       "change AI settings switches; the tool server applies them on its next request",
       SettingsSet},
      {{"import", "legacy"},
       {kStore, {"file", true, true, "legacy conversations JSON (format: docs/operations.md)"}},
       "load conversations exported from the older chat system (unlisted until migrated; all or nothing)",
       ImportLegacy},
      {{"migrate"},
       {kStore, {"limit", true, false, "migrate at most this many (default: all)"}},
       "move a store's legacy conversations into the newer datastore (listed from then on)",
       Migrate},
      {{"backup"},
       {{"out", true, true, "the new backup file (must not exist)"}},
       "copy the database to a new file, consistently, while livechatd runs (SQLite online backup; a "
       "PostgreSQL database is backed up with pg_dump)",
       Backup},
      {{"copy-to-postgres"},
       {{"to", true, true, "postgresql:// URL of an empty database (created by createdb; migrated here)"}},
       "copy every record of the SQLite database (--db) into an empty PostgreSQL database, keeping ids and "
       "cursors; compares each table's rows; then copy the DB.files directory to livechatd's --files-dir",
       CopyToPostgres},
      {{"store", "install"},
       {kStore},
       "mark a store installed again after an uninstall (admin login works again; channels stay as they are)",
       StoreInstall},
      {{"audit"},
       {kStore, {"limit", true, false, kAuditLimitHelp.c_str()}},
       "the platform requests the store received, newest first (topic, delivery id, outcome, what changed)",
       Audit},
      {{"data-requests", "list"}, {kStore}, "the customer-data requests received, newest first (without the export)",
       DataRequestList},
      {{"data-requests", "show"},
       {kStore, {"id", true, true, "the platform's data request id"}},
       "one customer-data request with its export: everything held on the contact",
       DataRequestShow},
      {{"integrations", "list"}, {kStore}, kIntegrationsSummary.c_str(),
       IntegrationList},
      {{"integrations", "connect"},
       {kStore, {"channel", true, true, kIntegratedChannelHelp.c_str()}},
       "reconnect a channel (agent replies on it are delivered again)",
       IntegrationConnect},
      {{"integrations", "disconnect"},
       {kStore, {"channel", true, true, kIntegratedChannelHelp.c_str()}},
       "disconnect a channel (agent replies on it are refused with CHANNEL_UNAVAILABLE)",
       IntegrationDisconnect},
      {{"demo"},
       {{"name", true, false, "store name (default \"Demo Store\")"}},
       "create a demo store with data and a key with every permission",
       Demo},
  };
  return kCommands;
}

const Command* FindCommand(const std::vector<std::string>& words) {
  for (const auto& c : Commands())
    if (c.words == words) return &c;
  return nullptr;
}

bool IsSwitch(const std::string& flag) {
  for (const auto& c : Commands())
    for (const auto& f : c.flags)
      if (flag == f.name) return !f.takesValue;
  return false;
}

std::string Usage() {
  std::string out =
      "usage: livechatctl [--db PATH|URL] COMMAND [FLAGS]\n"
      "\n"
      "Administers a livechat database (a SQLite file or PostgreSQL); safe while\n"
      "livechatd runs on it.\n"
      "Prints one JSON document on stdout. Exit status: 0 ok, 1 the operation\n"
      "failed ({\"error\":{\"code\",\"message\"}}), 2 usage error.\n"
      "\n"
      "  --db PATH|URL  SQLite file or postgresql:// URL (default ./livechat.db;\n"
      "                 env LIVECHAT_DB); with PostgreSQL, the files commands need\n"
      "                 LIVECHAT_FILES_DIR (livechatd's --files-dir)\n"
      "\n"
      "commands:\n";
  for (const auto& c : Commands()) {
    std::string name;
    for (const auto& w : c.words) name += (name.empty() ? "" : " ") + w;
    out += "  " + name + ": " + c.summary + "\n";
    for (const auto& f : c.flags) {
      std::string flag = std::string("--") + f.name + (f.takesValue ? " V" : "");
      out += "      " + flag + std::string(flag.size() < 28 ? 28 - flag.size() : 1, ' ') + f.help +
             (f.required ? " [required]" : "") + "\n";
    }
  }
  out += "\nSee docs/operations.md.\n";
  return out;
}

}  // namespace livechatctl
