// FileService: uploaded files (logos, icons, avatars, contact imports and
// widget attachments), their limits, who may download them, signed URLs,
// the shop-redact purge and the contact import. The bytes go through the
// BlobStore seam; the widget's attachment message is in
// storefront_service.cc.
#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

#include "livechat/crypto.h"
#include "core/csv.h"
#include "core/service_internal.h"
#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"
#include "livechat/chat_service.h"

namespace livechat {

using namespace internal;

namespace {

constexpr std::array<const char*, 4> kPurgedKinds = {"import", "logo", "avatar", "icon"};

bool IsPublicKind(std::string_view kind) { return kind == "logo" || kind == "icon" || kind == "avatar"; }
bool IsKnownKind(std::string_view kind) {
  return kind == "import" || kind == "logo" || kind == "avatar" || kind == "icon" || kind == "attachment";
}

// "image/png; charset=x" -> "image/png".
std::string MediaType(std::string_view declared) {
  std::string_view t = declared.substr(0, declared.find(';'));
  return AsciiLower(Trim(t));
}

// What the bytes are, by their first bytes (and, for text, by being UTF-8
// without NUL or other C0 controls but tab and line breaks). Empty: none of ours.
std::string Sniff(std::string_view b) {
  auto starts = [&](std::string_view magic) { return b.substr(0, magic.size()) == magic; };
  if (starts(std::string_view("\x89PNG\r\n\x1a\n", 8))) return "image/png";
  if (starts("\xFF\xD8\xFF")) return "image/jpeg";
  if (starts("GIF87a") || starts("GIF89a")) return "image/gif";
  if (b.size() >= 12 && starts("RIFF") && b.substr(8, 4) == "WEBP") return "image/webp";
  if (starts("%PDF-")) return "application/pdf";
  if (!IsValidUtf8(b)) return "";
  for (unsigned char c : b)
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return "";
  return "text/plain";
}

struct KindRule {
  std::int64_t maxBytes;
  const char* what;                      // "attachments", in messages
  std::vector<std::string> declared;     // accepted Content-Type values
  const char* allowedText;               // for the error message
};

KindRule RuleFor(const Limits& l, std::string_view kind) {
  if (kind == "attachment")
    return {l.attachmentMaxBytes, "attachments",
            {"image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", "text/plain"},
            "image/png, image/jpeg, image/gif, image/webp, application/pdf, text/plain"};
  if (kind == "import")
    return {l.importMaxBytes, "contact imports",
            {"text/csv", "text/plain", "application/csv", "application/vnd.ms-excel"},
            "text/csv (UTF-8)"};
  const char* what = kind == "logo" ? "logos" : kind == "icon" ? "icons" : "avatars";
  return {l.imageMaxBytes, what, {"image/png", "image/jpeg", "image/gif", "image/webp"},
          "image/png, image/jpeg, image/gif, image/webp"};
}

// The detected type a declared one must match ("image/jpg" is a common
// spelling of image/jpeg; CSV is text).
std::string Canonical(const std::string& declared) {
  if (declared == "image/jpg" || declared == "image/pjpeg") return "image/jpeg";
  if (declared == "text/csv" || declared == "application/csv" || declared == "application/vnd.ms-excel")
    return "text/plain";
  return declared;
}

std::string ExtensionFor(const std::string& type) {
  if (type == "image/png") return ".png";
  if (type == "image/jpeg") return ".jpg";
  if (type == "image/gif") return ".gif";
  if (type == "image/webp") return ".webp";
  if (type == "application/pdf") return ".pdf";
  if (type == "text/csv") return ".csv";
  return ".txt";
}

// The last path part, without control characters, at most 255 code points.
Result<std::string> CleanName(const std::string& raw, const std::string& kind, const std::string& type) {
  if (!IsValidUtf8(raw)) return Invalid("the file name must be valid UTF-8");
  std::string_view name = raw;
  std::size_t cut = name.find_last_of("/\\");
  if (cut != std::string_view::npos) name.remove_prefix(cut + 1);
  std::string out;
  for (char c : name)
    if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) out += c;
  out = std::string(Trim(out));
  if (out.empty() || out == "." || out == "..") out = kind + ExtensionFor(type);
  return TruncateUtf8(out, 255);
}

std::string UploaderTypeOf(const Principal& p) {
  switch (p.kind) {
    case Principal::Kind::kAdminSession: return "member";
    case Principal::Kind::kApiKey: return "apiKey";
    default: return "operator";
  }
}
std::optional<std::string> UploaderIdOf(const Principal& p) {
  if (p.kind == Principal::Kind::kAdminSession) return p.memberId;
  if (p.kind == Principal::Kind::kApiKey) return p.keyId;
  return std::nullopt;
}

std::string BlobKey(const FileRecord& f) { return f.shopId + "/" + f.kind + "/" + f.id; }

Error NoBlobs() { return MakeError(ErrorCode::kInternal, "file uploads are not configured (no blob store)"); }

Status RequireNotApiKey(const Principal& p, std::string_view what) {
  if (p.kind != Principal::Kind::kApiKey) return Status::Ok();
  return MakeError(ErrorCode::kForbidden,
                   fmt::format("{} are managed from the admin inbox or livechatctl, not with an API key", what));
}

// ---- contact import ----

struct ImportColumn {
  const char* name;
  std::optional<std::string> Customer::*field;
  int max;
};
const std::vector<ImportColumn>& ImportColumns() {
  static const std::vector<ImportColumn> cols = {
      {"email", &Customer::email, 254},         {"name", &Customer::name, 255},
      {"firstName", &Customer::firstName, 255}, {"lastName", &Customer::lastName, 255},
      {"phone", &Customer::phone, 50},          {"shopifyId", &Customer::shopifyId, 64},
      {"note", &Customer::note, 5000},          {"address1", &Customer::address1, 255},
      {"address2", &Customer::address2, 255},   {"city", &Customer::city, 255},
      {"zip", &Customer::zip, 32},              {"country", &Customer::country, 255},
      {"countryCode", &Customer::countryCode, 2},
  };
  return cols;
}

std::string ColumnNames() {
  std::string out;
  for (const auto& c : ImportColumns()) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out + ", tags";
}

bool PlausibleEmail(std::string_view e) {
  std::size_t at = e.find('@');
  return at != std::string_view::npos && at > 0 && at + 1 < e.size() && e.find('@', at + 1) == std::string_view::npos &&
         e.find_first_of(" \t,;<>") == std::string_view::npos;
}

// One data row, checked: the cells by column, and the tags.
struct ImportRow {
  std::size_t line = 0;  // the row number as a spreadsheet shows it (header = 1)
  std::map<std::size_t, std::string> cells;  // ImportColumns() index -> value (non-empty only)
  std::vector<std::string> tags;
};

}  // namespace

// ---------------------------------------------------------------- checks

Result<FileRecord> internal::CheckUpload(const ServiceContext& ctx, const Principal* p, const std::string& uploaderType,
                                         const std::optional<std::string>& uploaderId, const FileUpload& in) {
  if (!IsKnownKind(in.kind)) return Invalid("kind must be one of import, logo, avatar, icon, attachment");
  const KindRule rule = RuleFor(ctx.limits(), in.kind);
  const auto size = static_cast<std::int64_t>(in.bytes.size());
  if (size > rule.maxBytes)
    return MakeError(ErrorCode::kPayloadTooLarge,
                     fmt::format("{} are limited to {} bytes ({} MiB); this file has {} bytes", rule.what,
                                 rule.maxBytes, rule.maxBytes / (1024.0 * 1024.0), size));
  if (size == 0) return Invalid("the file is empty");
  const std::string declared = MediaType(in.contentType);
  if (declared.empty())
    return Invalid(fmt::format("send the file's Content-Type; {} may be {}", rule.what, rule.allowedText));
  const std::string canonical = Canonical(declared);
  if (std::find(rule.declared.begin(), rule.declared.end(), declared) == rule.declared.end() &&
      std::find(rule.declared.begin(), rule.declared.end(), canonical) == rule.declared.end())
    return Invalid(fmt::format("{} may be {}; not {}", rule.what, rule.allowedText, declared));
  const std::string detected = Sniff(in.bytes);
  if (detected != canonical)
    return Invalid(fmt::format("the file's content is not {} (it looks like {}); {} may be {}", declared,
                               detected.empty() ? "none of the allowed types" : detected, rule.what,
                               rule.allowedText));
  FileRecord f;
  f.id = ctx.random->Uuid();
  if (p) f.shopId = p->shopId;
  f.kind = in.kind;
  f.contentType = in.kind == "import" ? "text/csv" : detected;
  LC_ASSIGN_OR_RETURN(f.name, CleanName(in.name, in.kind, f.contentType));
  f.size = size;
  f.sha256 = Sha256Hex(in.bytes);
  f.createdAt = ctx.clock->NowMillis();
  f.uploaderType = uploaderType;
  f.uploaderId = uploaderId;
  return f;
}

Result<SentFile> internal::PrepareAttachment(ServiceContext& ctx, const Principal* p, const std::string& uploaderType,
                                             const std::string& uploaderId, const std::string& shopId,
                                             const FileUpload& upload, Millis now) {
  LC_ASSIGN_OR_RETURN(FileRecord file, CheckUpload(ctx, p, uploaderType, uploaderId, upload));
  file.shopId = shopId;
  if (!ctx.options.blobs) return MakeError(ErrorCode::kInternal, "file uploads are not configured (no blob store)");
  file.createdAt = now;
  SentFile sent;
  sent.blobKey = file.shopId + "/attachment/" + file.id;
  // The bytes first: a record never points at a blob that is not there. The
  // caller removes them again when its transaction fails.
  LC_RETURN_IF_ERROR(ctx.options.blobs->Put(sent.blobKey, upload.bytes));
  sent.filesJson = "[" +
                   JsonObject()
                       .Str("id", file.id)
                       .Str("name", file.name)
                       .Int("size", file.size)
                       .Str("contentType", file.contentType)
                       .Done() +
                   "]";
  Message withUrls;
  withUrls.contentType = "file";
  withUrls.filesJson = sent.filesJson;
  AddFileUrls(ctx, withUrls, now + ctx.limits().webhookFileUrlTtlMillis);
  sent.eventFilesJson = std::move(withUrls.filesJson);
  sent.file = std::move(file);
  return sent;
}

// ---------------------------------------------------------------- URLs

std::string FileService::FileUrl(const FileRecord& f, Millis expiresAt) const {
  return internal::FileUrl(ctx_, f, expiresAt);
}

std::string internal::FileUrl(const ServiceContext& ctx, const FileRecord& f, Millis expiresAt) {
  std::string url = ctx.options.fileBaseUrl + "/files/" + f.id;
  if (IsPublicKind(f.kind)) return url;
  const std::string expires = std::to_string(expiresAt / 1000);
  return url + "?expires=" + expires + "&sig=" + HmacSha256Hex(ctx.fileUrlSecret, f.id + "\n" + expires);
}

void internal::AddFileUrls(const ServiceContext& ctx, Message& m, Millis expiresAt) {
  if (m.filesJson.size() <= 2) return;  // "[]": nothing to do, the common case
  rapidjson::Document d;
  d.Parse(m.filesJson.c_str(), m.filesJson.size());
  if (d.HasParseError() || !d.IsArray()) return;
  bool changed = false;
  for (auto& entry : d.GetArray()) {
    // Widget uploads are stored without a url and get a fresh signed one on
    // every read; an entry that already has one (another channel's link) is
    // shown as it is.
    if (!entry.IsObject() || !entry.HasMember("id") || !entry["id"].IsString() || entry.HasMember("url")) continue;
    FileRecord f;
    f.id = entry["id"].GetString();
    f.kind = "attachment";
    rapidjson::Value url(FileUrl(ctx, f, expiresAt).c_str(), d.GetAllocator());
    entry.AddMember("url", url, d.GetAllocator());
    changed = true;
  }
  if (!changed) return;
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  d.Accept(w);
  m.filesJson.assign(buf.GetString(), buf.GetSize());
}

void internal::AddFileUrls(const ServiceContext& ctx, std::vector<Message>& ms) {
  const Millis expiresAt = ctx.clock->NowMillis() + ctx.limits().fileUrlTtlMillis;
  for (auto& m : ms) AddFileUrls(ctx, m, expiresAt);
}

// ---------------------------------------------------------------- uploads

Result<FileRecord> FileService::UploadFile(const Principal& p, const FileUpload& in) {
  if (in.kind == "attachment") return Invalid("attachments are sent with a message from the widget");
  if (in.kind == "import") return Invalid("contact imports are uploaded with the contact import");
  if (in.kind == "logo" || in.kind == "icon") {
    if (!p.Has(kPermManageWidgetSettings) && !p.Has(kPermManageAllSettings))
      return MakeError(ErrorCode::kForbidden,
                       "this API key lacks the \"Manage widget settings\" permission (or \"Manage all settings\")");
  } else if (in.kind == "avatar") {
    LC_RETURN_IF_ERROR(RequireNotApiKey(p, "avatars"));
    if (p.kind == Principal::Kind::kSystem && !in.memberId) return Invalid("memberId is required for an avatar");
    if (p.kind == Principal::Kind::kAdminSession && in.memberId && in.memberId != p.memberId)
      return MakeError(ErrorCode::kForbidden, "a member may upload only their own avatar");
  }
  LC_ASSIGN_OR_RETURN(FileRecord file, CheckUpload(ctx_, &p, UploaderTypeOf(p), UploaderIdOf(p), in));
  if (!ctx_.options.blobs) return NoBlobs();
  const std::string memberId =
      in.kind != "avatar" ? "" : p.kind == Principal::Kind::kAdminSession ? p.memberId.value_or("") : *in.memberId;
  const std::string url = FileUrl(file, 0);
  LC_RETURN_IF_ERROR(ctx_.options.blobs->Put(BlobKey(file), in.bytes));
  Status st = ctx_.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    if (!memberId.empty()) {
      LC_ASSIGN_OR_RETURN(auto member, w.GetMember(p.shopId, memberId));
      if (!member) return NotFound("member");
      member->avatarUrl = url;
      LC_ASSIGN_OR_RETURN(bool ok, w.UpdateMember(*member));
      if (!ok) return NotFound("member");
    }
    return w.InsertFile(file);
  });
  if (st.ok() && (in.kind == "logo" || in.kind == "icon")) {
    std::string patch = "{";
    AppendJsonString(patch, in.kind == "logo" ? "logoUrl" : "iconUrl");
    patch += ":";
    AppendJsonString(patch, url);
    patch += "}";
    auto updated = knowledge_.UpdateSettingsArea(p, "widget", patch);
    if (!updated.ok()) st = updated.take_error();
  }
  if (!st.ok()) {
    // Nothing half-done: the record (if written) and the bytes go again.
    (void)ctx_.store().Write([&](StoreWriter& w) -> Status {
      LC_ASSIGN_OR_RETURN(bool removed, w.DeleteFile(file.shopId, file.id));
      (void)removed;
      return Status::Ok();
    });
    (void)ctx_.options.blobs->Delete(BlobKey(file));
    return st.take_error();
  }
  return file;
}

Result<std::vector<FileRecord>> FileService::ListFiles(const Principal& p, const std::string& kind) {
  LC_RETURN_IF_ERROR(RequireNotApiKey(p, "files"));
  if (!IsKnownKind(kind)) return Invalid("kind must be one of import, logo, avatar, icon, attachment");
  return ReadValue<std::vector<FileRecord>>(ctx_.store(), [&](StoreReader& r) { return r.ListFiles(p.shopId, kind); });
}

Status FileService::DeleteFile(const Principal& p, const std::string& fileId) {
  LC_RETURN_IF_ERROR(RequireNotApiKey(p, "files"));
  if (!ctx_.options.blobs) return NoBlobs();
  LC_ASSIGN_OR_RETURN(FileRecord file, WriteValue<FileRecord>(ctx_.store(), [&](StoreWriter& w) -> Result<FileRecord> {
                        LC_ASSIGN_OR_RETURN(auto f, w.GetFile(p.shopId, fileId));
                        if (!f) return NotFound("file");
                        if (f->kind == "attachment")
                          return MakeError(ErrorCode::kConflict,
                                           "an attachment is conversation history and is not deleted");
                        LC_ASSIGN_OR_RETURN(bool ok, w.DeleteFile(p.shopId, fileId));
                        if (!ok) return NotFound("file");
                        return std::move(*f);
                      }));
  return ctx_.options.blobs->Delete(BlobKey(file));
}

Result<std::int64_t> internal::DeleteShopUploadRecords(StoreWriter& w, const std::string& shopId) {
  std::int64_t removed = 0;
  for (const char* kind : kPurgedKinds) {
    LC_ASSIGN_OR_RETURN(std::int64_t n, w.DeleteFilesOfKind(shopId, kind));
    removed += n;
  }
  return removed;
}

Status FileService::PurgeShopUploads(const std::string& shopId) {
  if (!ctx_.options.blobs) return NoBlobs();
  // Records first, then the bytes by kind: a failure half-way leaves only
  // bytes nobody can reach, and running the purge again removes them.
  LC_RETURN_IF_ERROR(ctx_.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(shopId));
    if (!shop) return NotFound("store");
    auto removed = DeleteShopUploadRecords(w, shopId);
    if (!removed.ok()) return removed.take_error();
    return Status::Ok();
  }));
  if (!IsValidBlobKey(shopId)) return Status::Ok();  // no blob can have been stored under such an id
  for (const char* kind : kPurgedKinds) {
    auto removed = ctx_.options.blobs->DeletePrefix(shopId + "/" + kind);
    if (!removed.ok()) return removed.take_error();
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- downloads

Result<FileContent> FileService::OpenFile(const std::string& fileId, const FileAccess& access) {
  const Error missing = NotFound("file");
  if (!ctx_.options.blobs) return missing;
  LC_ASSIGN_OR_RETURN(auto found, ReadValue<std::optional<FileRecord>>(
                                      ctx_.store(), [&](StoreReader& r) { return r.FindFileById(fileId); }));
  if (!found) return missing;
  const FileRecord& f = *found;
  bool allowed = IsPublicKind(f.kind);
  std::optional<Error> refusal;
  if (!allowed && access.principal && access.principal->shopId == f.shopId) {
    const Principal& p = *access.principal;
    Status st = f.kind == "import" ? Require(p, kPermReadCustomers) : RequireReadConversations(p);
    if (st.ok()) allowed = true;
    else refusal = st.take_error();
  }
  if (!allowed && f.kind == "attachment" && access.expires && access.signature) {
    const std::string expected = HmacSha256Hex(ctx_.fileUrlSecret, f.id + "\n" + *access.expires);
    if (ConstantTimeEquals(AsciiLower(*access.signature), expected)) {
      std::int64_t expires = 0;
      bool digits = !access.expires->empty() && access.expires->size() <= 15 &&
                    std::all_of(access.expires->begin(), access.expires->end(), [](char c) { return c >= '0' && c <= '9'; });
      if (digits) expires = std::stoll(*access.expires);
      if (digits && ctx_.clock->NowMillis() < expires * 1000) allowed = true;
      else refusal = MakeError(ErrorCode::kForbidden, "this file link has expired; read the message again for a fresh link");
    }
  }
  if (!allowed) return refusal ? *refusal : missing;
  auto bytes = ctx_.options.blobs->Get(BlobKey(f));
  if (!bytes.ok()) return bytes.error().code == ErrorCode::kNotFound ? missing : bytes.take_error();
  return FileContent{f, std::move(bytes).value()};
}

// ---------------------------------------------------------------- contact import

Result<CsvImportResult> FileService::ImportCustomersCsv(const Principal& p, const FileUpload& upload) {
  LC_RETURN_IF_ERROR(RequireNotApiKey(p, "contact imports"));
  FileUpload in = upload;
  in.kind = "import";
  LC_ASSIGN_OR_RETURN(FileRecord file, CheckUpload(ctx_, &p, UploaderTypeOf(p), UploaderIdOf(p), in));
  LC_ASSIGN_OR_RETURN(auto records, ParseCsv(in.bytes, static_cast<std::size_t>(ctx_.limits().importRowsMax)));
  if (records.empty()) return Invalid("the file has no header row");
  // Header: known column names, case-insensitively, each once; email required.
  const auto& cols = ImportColumns();
  std::vector<int> colOf;  // CSV column -> ImportColumns() index; -1: tags
  int emailAt = -1;
  for (std::size_t i = 0; i < records[0].size(); ++i) {
    const std::string name = AsciiLower(Trim(records[0][i]));
    int idx = -2;
    if (name == "tags") idx = -1;
    for (std::size_t c = 0; c < cols.size(); ++c)
      if (name == AsciiLower(cols[c].name)) idx = static_cast<int>(c);
    if (idx == -2)
      return Invalid(fmt::format("row 1, column {}: \"{}\" is not a contact field (columns: {})", i + 1,
                                 records[0][i], ColumnNames()));
    if (std::find(colOf.begin(), colOf.end(), idx) != colOf.end())
      return Invalid(fmt::format("row 1, column {}: \"{}\" appears twice", i + 1, records[0][i]));
    if (idx == 0) emailAt = static_cast<int>(i);
    colOf.push_back(idx);
  }
  if (emailAt < 0) return Invalid(fmt::format("row 1: the header has no email column (columns: {})", ColumnNames()));

  std::vector<ImportRow> rows;
  std::map<std::string, std::size_t> seen;  // lowercased email -> row
  for (std::size_t r = 1; r < records.size(); ++r) {
    const auto& rec = records[r];
    const std::size_t line = r + 1;
    if (rec.size() == 1 && rec[0].empty()) continue;  // a blank line
    if (rec.size() != colOf.size())
      return Invalid(fmt::format("row {}: {} fields, but the header has {}", line, rec.size(), colOf.size()));
    ImportRow row;
    row.line = line;
    for (std::size_t i = 0; i < rec.size(); ++i) {
      const std::string value(Trim(rec[i]));
      const std::string colName = colOf[i] < 0 ? "tags" : cols[static_cast<std::size_t>(colOf[i])].name;
      if (!IsValidUtf8(value)) return Invalid(fmt::format("row {}, column {}: not valid UTF-8", line, colName));
      if (value.empty()) continue;
      if (colOf[i] < 0) {
        for (std::size_t start = 0; start <= value.size();) {
          std::size_t semi = value.find(';', start);
          std::string tag(Trim(value.substr(start, semi == std::string::npos ? std::string::npos : semi - start)));
          if (Utf8Length(tag) > static_cast<std::size_t>(ctx_.limits().tagMax))
            return Invalid(fmt::format("row {}, column tags: a tag is longer than {} characters", line, ctx_.limits().tagMax));
          if (!tag.empty() && std::find(row.tags.begin(), row.tags.end(), tag) == row.tags.end()) row.tags.push_back(tag);
          if (semi == std::string::npos) break;
          start = semi + 1;
        }
        continue;
      }
      const ImportColumn& col = cols[static_cast<std::size_t>(colOf[i])];
      if (Utf8Length(value) > static_cast<std::size_t>(col.max))
        return Invalid(fmt::format("row {}, column {}: at most {} characters", line, col.name, col.max));
      row.cells[static_cast<std::size_t>(colOf[i])] = value;
    }
    auto email = row.cells.find(0);
    if (email == row.cells.end()) return Invalid(fmt::format("row {}, column email: an email is required", line));
    if (!PlausibleEmail(email->second))
      return Invalid(fmt::format("row {}, column email: \"{}\" is not an email address", line, email->second));
    auto [at, fresh] = seen.emplace(AsciiLower(email->second), line);
    if (!fresh)
      return Invalid(fmt::format("row {}, column email: {} is already in row {}", line, email->second, at->second));
    rows.push_back(std::move(row));
  }

  if (!ctx_.options.blobs) return NoBlobs();
  LC_RETURN_IF_ERROR(ctx_.options.blobs->Put(BlobKey(file), in.bytes));
  const Millis now = ctx_.clock->NowMillis();
  auto out = WriteValue<CsvImportResult>(ctx_.store(), [&](StoreWriter& w) -> Result<CsvImportResult> {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    CsvImportResult res;
    res.file = file;
    res.rows = static_cast<std::int64_t>(rows.size());
    for (const auto& row : rows) {
      LC_ASSIGN_OR_RETURN(auto existing, w.FindCustomerByEmail(p.shopId, row.cells.at(0)));
      Customer c;
      if (existing) {
        c = std::move(*existing);
      } else {
        c.id = ctx_.random->Uuid();
        c.shopId = p.shopId;
        c.type = "guest";
        c.createdAt = now;
      }
      for (const auto& [idx, value] : row.cells) {
        if (idx == 0 && existing) continue;  // the match itself: keep the stored spelling
        c.*(cols[idx].field) = value;
      }
      for (const auto& tag : row.tags)
        if (std::find(c.tags.begin(), c.tags.end(), tag) == c.tags.end()) c.tags.push_back(tag);
      if (c.shopifyId) c.type = "customer";
      else if (c.type == "anonymous") c.type = "guest";
      c.updatedAt = now;
      if (existing) {
        LC_ASSIGN_OR_RETURN(bool ok, w.UpdateCustomer(c));
        if (!ok) return MakeError(ErrorCode::kInternal, "a contact vanished during the import");
        ++res.updated;
      } else {
        LC_RETURN_IF_ERROR(w.InsertCustomer(c));
        ++res.created;
      }
    }
    LC_RETURN_IF_ERROR(w.InsertFile(file));
    return res;
  });
  if (!out.ok()) (void)ctx_.options.blobs->Delete(BlobKey(file));
  return out;
}

}  // namespace livechat
