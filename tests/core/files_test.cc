// Uploaded files: the directory BlobStore, limits and types, attachments in
// messages with signed URLs, who may download what, the shop-redact purge,
// and the contact import.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <memory>
#include <string>

#include "livechat/crypto.h"
#include "livechat/blob_store.h"
#include "livechat/chat_service.h"
#include "livechat/platform.h"
#include "livechat/sqlite_store.h"
#include "support/temp_blob_dir.h"
#include "support/test_store.h"

namespace livechat::test {
namespace {

constexpr std::int64_t kMiB = 1024 * 1024;

struct FilesFixture {
  ManualClock clock;
  std::unique_ptr<Random> random = NewSeededRandom(7);
  TempBlobDir dir;
  std::unique_ptr<Store> store;
  std::unique_ptr<ChatService> service;
  Shop shop, otherShop;
  Principal sys, otherSys;
  Member agent;

  explicit FilesFixture(Limits limits = {}) {
    auto opened = testing::OpenTestStore();
    REQUIRE(opened.ok());
    store = std::move(opened).value();
    ServiceOptions o;
    o.store = store.get();
    o.clock = &clock;
    o.random = random.get();
    o.limits = limits;
    o.blobs = &dir.blobs();
    o.fileUrlSecret = "test-secret";
    service = std::make_unique<ChatService>(o);
    shop = *service->directory().CreateShop({"Files shop", Plan::kPro, false});
    otherShop = *service->directory().CreateShop({"Other shop", Plan::kPro, false});
    sys = Principal::System(shop.id);
    otherSys = Principal::System(otherShop.id);
    auto m = service->directory().CreateMember(sys, {"agent@shop.test", "Alex", "Agent", "member", std::nullopt, true, std::nullopt});
    REQUIRE(m.ok());
    agent = *m;
  }

  Principal Key(const Principal& owner, std::uint32_t perms) {
    auto k = service->directory().CreateApiKey(owner, {"k", perms, false});
    REQUIRE(k.ok());
    auto p = service->auth().AuthenticateApiKey(k->secret);
    REQUIRE(p.ok());
    return *p;
  }
  Principal MemberSession() {
    Principal p;
    p.kind = Principal::Kind::kAdminSession;
    p.shopId = shop.id;
    p.memberId = agent.id;
    return p;
  }
  VisitorSession Visitor() {
    auto s = service->storefront().StartVisitorSession(shop.appId, "203.0.113.9");
    REQUIRE(s.ok());
    return s->session;
  }
  std::int64_t CountFiles(const std::string& shopId, const std::string& kind) {
    std::int64_t n = 0;
    REQUIRE(store->Read([&](StoreReader& r) -> Status {
                   LC_ASSIGN_OR_RETURN(auto v, r.ListFiles(shopId, kind));
                   n = static_cast<std::int64_t>(v.size());
                   return Status::Ok();
                 }).ok());
    return n;
  }
  std::int64_t CountCustomers(const std::string& shopId) {
    std::int64_t n = 0;
    REQUIRE(store->Read([&](StoreReader& r) -> Status {
                   LC_ASSIGN_OR_RETURN(n, r.CountCustomers(shopId));
                   return Status::Ok();
                 }).ok());
    return n;
  }
};

FileUpload Upload(std::string kind, std::string name, std::string type, std::string bytes) {
  FileUpload u;
  u.kind = std::move(kind);
  u.name = std::move(name);
  u.contentType = std::move(type);
  u.bytes = std::move(bytes);
  return u;
}

rapidjson::Document Parse(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str(), json.size());
  REQUIRE_FALSE(d.HasParseError());
  return d;
}

// The query value `name` of a URL.
std::string QueryValue(const std::string& url, const std::string& name) {
  auto at = url.find(name + "=");
  REQUIRE(at != std::string::npos);
  auto start = at + name.size() + 1;
  return url.substr(start, url.find('&', start) == std::string::npos ? std::string::npos : url.find('&', start) - start);
}

FileAccess Signed(const std::string& url) {
  FileAccess a;
  a.expires = QueryValue(url, "expires");
  a.signature = QueryValue(url, "sig");
  return a;
}

}  // namespace

TEST_CASE("blob store: put, get, replace, delete, delete a prefix; traversal keys refused") {
  TempBlobDir dir;
  BlobStore& b = dir.blobs();
  REQUIRE(b.Put("shop_1/logo/f1", "one").ok());
  REQUIRE(b.Put("shop_1/logo/f1", "two").ok());  // replaced whole
  REQUIRE(b.Put("shop_1/logo/f2", std::string("\0bin", 4)).ok());
  REQUIRE(b.Put("shop_1/attachment/f3", "keep").ok());
  CHECK(b.Get("shop_1/logo/f1").value() == "two");
  CHECK(b.Get("shop_1/logo/f2").value() == std::string("\0bin", 4));
  CHECK(dir.CountFiles() == 3);  // no temporary left behind
  auto missing = b.Get("shop_1/logo/none");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);

  for (const char* bad : {"", "../x", "a/../b", "/etc/passwd", "a//b", "a/./b", "a/b/", "a\\b", "a b", "..",
                          "a/b\n", "ä"}) {
    CAPTURE(bad);
    CHECK_FALSE(IsValidBlobKey(bad));
    Status put = b.Put(bad, "x");
    REQUIRE_FALSE(put.ok());
    CHECK(put.error().code == ErrorCode::kInvalidParams);
    CHECK(b.Get(bad).error().code == ErrorCode::kInvalidParams);
    CHECK(b.Delete(bad).error().code == ErrorCode::kInvalidParams);
    CHECK(b.DeletePrefix(bad).error().code == ErrorCode::kInvalidParams);
  }
  CHECK(IsValidBlobKey(std::string(255, 'a')));
  CHECK_FALSE(IsValidBlobKey(std::string(256, 'a')));
  CHECK_FALSE(std::filesystem::exists(dir.path().parent_path() / "x"));

  CHECK(b.DeletePrefix("shop_1/logo").value() == 2);
  CHECK(b.DeletePrefix("shop_1/logo").value() == 0);
  CHECK(b.Get("shop_1/logo/f1").error().code == ErrorCode::kNotFound);
  CHECK(b.Get("shop_1/attachment/f3").value() == "keep");
  REQUIRE(b.Delete("shop_1/attachment/f3").ok());
  REQUIRE(b.Delete("shop_1/attachment/f3").ok());  // twice is harmless
  CHECK(dir.CountFiles() == 0);
}

TEST_CASE("files: attachment size limit at N and N+1 bytes; nothing stored on refusal") {
  FilesFixture fx;
  VisitorSession v = fx.Visitor();
  auto over = fx.service->storefront().VisitorSendFile(v, Upload("attachment", "big.pdf", "application/pdf", PdfBytes(10 * kMiB + 1)),
                                          std::nullopt);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().code == ErrorCode::kPayloadTooLarge);
  CHECK(over.error().message == "attachments are limited to 10485760 bytes (10 MiB); this file has 10485761 bytes");
  CHECK(fx.dir.CountFiles() == 0);
  CHECK(fx.CountFiles(fx.shop.id, "attachment") == 0);

  auto at = fx.service->storefront().VisitorSendFile(v, Upload("attachment", "big.pdf", "application/pdf", PdfBytes(10 * kMiB)),
                                        std::nullopt);
  REQUIRE(at.ok());
  CHECK(fx.dir.CountFiles() == 1);
  CHECK(fx.CountFiles(fx.shop.id, "attachment") == 1);
}

TEST_CASE("files: image and import limits at N and N+1 bytes") {
  FilesFixture fx;
  auto logo = fx.service->files().UploadFile(fx.sys, Upload("logo", "logo.png", "image/png", PngBytes(2 * kMiB)));
  REQUIRE(logo.ok());
  auto big = fx.service->files().UploadFile(fx.sys, Upload("icon", "icon.png", "image/png", PngBytes(2 * kMiB + 1)));
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().code == ErrorCode::kPayloadTooLarge);
  CHECK(big.error().message == "icons are limited to 2097152 bytes (2 MiB); this file has 2097153 bytes");

  auto tooBig = fx.service->files().ImportCustomersCsv(fx.sys, Upload("import", "c.csv", "text/csv", std::string(5 * kMiB + 1, 'a')));
  REQUIRE_FALSE(tooBig.ok());
  CHECK(tooBig.error().code == ErrorCode::kPayloadTooLarge);
  CHECK(tooBig.error().message == "contact imports are limited to 5242880 bytes (5 MiB); this file has 5242881 bytes");
  std::string exact = "email,note\nn@x.test,";
  exact.resize(5 * kMiB, 'n');  // a 5 MiB file: the note is long, so the cell is refused, not the size
  auto atLimit = fx.service->files().ImportCustomersCsv(fx.sys, Upload("import", "c.csv", "text/csv", exact));
  REQUIRE_FALSE(atLimit.ok());
  CHECK(atLimit.error().code == ErrorCode::kInvalidParams);
  CHECK(atLimit.error().message == "row 2, column note: at most 5000 characters");
}

TEST_CASE("files: types by declared content type and by magic bytes") {
  FilesFixture fx;
  VisitorSession v = fx.Visitor();
  struct Case {
    const char* declared;
    std::string bytes;
    const char* message;
  };
  const Case cases[] = {
      {"image/png", PdfBytes(100),
       "the file's content is not image/png (it looks like application/pdf); attachments may be image/png, "
       "image/jpeg, image/gif, image/webp, application/pdf, text/plain"},
      {"application/pdf", std::string("MZ\x90\x00\x03", 5) + std::string(50, '\x01'),
       "the file's content is not application/pdf (it looks like none of the allowed types); attachments may be "
       "image/png, image/jpeg, image/gif, image/webp, application/pdf, text/plain"},
      {"application/x-msdownload", "MZ",
       "attachments may be image/png, image/jpeg, image/gif, image/webp, application/pdf, text/plain; not "
       "application/x-msdownload"},
      {"text/html", "<script>alert(1)</script>",
       "attachments may be image/png, image/jpeg, image/gif, image/webp, application/pdf, text/plain; not text/html"},
      {"", "hello", "send the file's Content-Type; attachments may be image/png, image/jpeg, image/gif, image/webp, "
                    "application/pdf, text/plain"},
      {"text/plain", std::string("nul\0inside", 10),
       "the file's content is not text/plain (it looks like none of the allowed types); attachments may be "
       "image/png, image/jpeg, image/gif, image/webp, application/pdf, text/plain"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.declared);
    auto r = fx.service->storefront().VisitorSendFile(v, Upload("attachment", "f", c.declared, c.bytes), std::nullopt);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidParams);
    CHECK(r.error().message == c.message);
  }
  auto empty = fx.service->storefront().VisitorSendFile(v, Upload("attachment", "f.txt", "text/plain", ""), std::nullopt);
  CHECK(empty.error().message == "the file is empty");
  // A PDF is no logo, whatever it claims.
  auto logo = fx.service->files().UploadFile(fx.sys, Upload("logo", "l.png", "image/png", PdfBytes(64)));
  REQUIRE_FALSE(logo.ok());
  CHECK(logo.error().code == ErrorCode::kInvalidParams);
  CHECK(fx.dir.CountFiles() == 0);
  // Parameters and case of the declared type do not matter; image/jpg is image/jpeg.
  std::string jpeg = "\xFF\xD8\xFF\xE0" + std::string(60, 'j');
  CHECK(fx.service->storefront().VisitorSendFile(v, Upload("attachment", "a.jpg", "IMAGE/JPG; q=1", jpeg), std::nullopt).ok());
  CHECK(fx.service->storefront().VisitorSendFile(v, Upload("attachment", "n.txt", "text/plain; charset=utf-8", "héllo\n"), std::nullopt).ok());
}

TEST_CASE("files: a widget attachment round trip: message files, signed URL, same bytes and sha256") {
  FilesFixture fx;
  VisitorSession v = fx.Visitor();
  const std::string bytes = PngBytes(4096);
  auto sent = fx.service->storefront().VisitorSendFile(v, Upload("attachment", "C:\\Users\\me\\photo 1.png", "image/png", bytes),
                                          std::nullopt);
  REQUIRE(sent.ok());
  CHECK(sent->contentType == "file");
  CHECK(sent->text == "photo 1.png");  // no caption: the file name
  auto files = Parse(sent->filesJson);
  REQUIRE(files.IsArray());
  REQUIRE(files.Size() == 1);
  const std::string id = files[0]["id"].GetString();
  CHECK(std::string(files[0]["name"].GetString()) == "photo 1.png");
  CHECK(files[0]["size"].GetInt64() == 4096);
  CHECK(std::string(files[0]["contentType"].GetString()) == "image/png");
  const std::string url = files[0]["url"].GetString();
  const std::string expires = std::to_string((fx.clock.NowMillis() + 3600 * 1000) / 1000);
  CHECK(url == "/files/" + id + "?expires=" + expires + "&sig=" + livechat::HmacSha256Hex("test-secret", id + "\n" + expires));

  // Agents read the same entry.
  Principal reader = fx.Key(fx.sys, kPermReadConversations);
  auto page = fx.service->conversations().ListMessages(reader, sent->conversationId, {}, std::nullopt);
  REQUIRE(page.ok());
  REQUIRE(page->items.size() == 1);
  CHECK(page->items[0].filesJson == sent->filesJson);
  auto one = fx.service->conversations().GetMessage(reader, sent->conversationId, sent->id);
  REQUIRE(one.ok());
  CHECK(one->filesJson == sent->filesJson);
  CHECK(one->contentType == "file");

  // The URL opens the file: the same bytes, the same digest.
  auto opened = fx.service->files().OpenFile(id, Signed(url));
  REQUIRE(opened.ok());
  CHECK(opened->bytes == bytes);
  CHECK(opened->file.sha256 == livechat::Sha256Hex(bytes));
  CHECK(opened->file.conversationId == sent->conversationId);
  CHECK(opened->file.messageId == sent->id);
  CHECK(opened->file.uploaderType == "visitor");

  // The webhook payload carries the entry with a URL that outlives the retries.
  auto events = fx.service->feed().ListEvents(fx.sys, 100);
  REQUIRE(events.ok());
  auto created = std::find_if(events->begin(), events->end(), [](const Event& e) { return e.type == "message.created"; });
  REQUIRE(created != events->end());
  auto data = Parse(created->dataJson);
  CHECK(std::string(data["contentType"].GetString()) == "file");
  const std::string hookUrl = data["files"][0]["url"].GetString();
  CHECK(QueryValue(hookUrl, "expires") == std::to_string((fx.clock.NowMillis() + 24 * 3600 * 1000) / 1000));
  CHECK(fx.service->files().OpenFile(id, Signed(hookUrl)).ok());

  // A caption is the text.
  auto captioned = fx.service->storefront().VisitorSendFile(v, Upload("attachment", "doc.pdf", "application/pdf", PdfBytes(64)),
                                               std::string("my receipt"));
  REQUIRE(captioned.ok());
  CHECK(captioned->text == "my receipt");
  CHECK(captioned->conversationId == sent->conversationId);
}

TEST_CASE("files: downloads: credentials, other stores, signatures and their expiry") {
  FilesFixture fx;
  VisitorSession v = fx.Visitor();
  auto sent = fx.service->storefront().VisitorSendFile(v, Upload("attachment", "a.pdf", "application/pdf", PdfBytes(100)), std::nullopt);
  REQUIRE(sent.ok());
  auto files = Parse(sent->filesJson);
  const std::string id = files[0]["id"].GetString();
  const std::string url = files[0]["url"].GetString();

  auto code = [&](const FileAccess& a) {
    auto r = fx.service->files().OpenFile(id, a);
    return r.ok() ? std::string("OK") : std::string(ErrorCodeName(r.error().code));
  };
  FileAccess none;
  CHECK(code(none) == "NOT_FOUND");
  FileAccess own;
  own.principal = fx.Key(fx.sys, kPermReadConversations);
  CHECK(code(own) == "OK");
  FileAccess manage;
  manage.principal = fx.Key(fx.sys, kPermManageConversations);
  CHECK(code(manage) == "OK");
  FileAccess weak;
  weak.principal = fx.Key(fx.sys, kPermReadCustomers);
  CHECK(code(weak) == "FORBIDDEN");
  FileAccess other;
  other.principal = fx.Key(fx.otherSys, kPermReadConversations | kPermManageConversations);
  CHECK(code(other) == "NOT_FOUND");  // another store's credential: as if missing
  FileAccess member;
  member.principal = fx.MemberSession();
  CHECK(code(member) == "OK");

  FileAccess tampered = Signed(url);
  tampered.signature->back() = tampered.signature->back() == '0' ? '1' : '0';
  CHECK(code(tampered) == "NOT_FOUND");
  FileAccess moved = Signed(url);
  moved.expires = std::to_string(std::stoll(*moved.expires) + 3600);  // a later expiry is not signed
  CHECK(code(moved) == "NOT_FOUND");
  CHECK(fx.service->files().OpenFile("no-such-file", Signed(url)).error().code == ErrorCode::kNotFound);

  // Valid until the second it names, refused from then on.
  const std::int64_t expires = std::stoll(QueryValue(url, "expires"));
  fx.clock.Set(expires * 1000 - 1);
  CHECK(code(Signed(url)) == "OK");
  fx.clock.Set(expires * 1000);
  auto late = fx.service->files().OpenFile(id, Signed(url));
  REQUIRE_FALSE(late.ok());
  CHECK(late.error().code == ErrorCode::kForbidden);
  CHECK(late.error().message == "this file link has expired; read the message again for a fresh link");
  // A fresh read signs a fresh URL.
  auto again = fx.service->conversations().GetMessage(fx.sys, sent->conversationId, sent->id);
  REQUIRE(again.ok());
  CHECK(code(Signed(Parse(again->filesJson)[0]["url"].GetString())) == "OK");
}

TEST_CASE("files: logo, icon and avatar uploads point the settings and the member at a public URL") {
  FilesFixture fx;
  const std::string png = PngBytes(300);
  auto logo = fx.service->files().UploadFile(fx.sys, Upload("logo", "../../etc/logo.png", "image/png", png));
  REQUIRE(logo.ok());
  CHECK(logo->name == "logo.png");
  CHECK(logo->uploaderType == "operator");
  auto widget = fx.service->knowledge().GetSettingsArea(fx.sys, "widget");
  REQUIRE(widget.ok());
  CHECK(std::string(Parse(*widget)["logoUrl"].GetString()) == "/files/" + logo->id);
  auto opened = fx.service->files().OpenFile(logo->id, FileAccess{});  // public: the widget shows it
  REQUIRE(opened.ok());
  CHECK(opened->bytes == png);

  auto icon = fx.service->files().UploadFile(fx.MemberSession(), Upload("icon", "i.png", "image/png", png));
  REQUIRE(icon.ok());
  CHECK(icon->uploaderType == "member");
  CHECK(icon->uploaderId == fx.agent.id);
  CHECK(std::string(Parse(*fx.service->knowledge().GetSettingsArea(fx.sys, "widget"))["iconUrl"].GetString()) == "/files/" + icon->id);

  auto avatar = fx.service->files().UploadFile(fx.MemberSession(), Upload("avatar", "me.png", "image/png", png));
  REQUIRE(avatar.ok());
  CHECK(fx.service->directory().GetMember(fx.sys, fx.agent.id)->avatarUrl == "/files/" + avatar->id);

  // Who may: keys need the widget permission for logos and may not set avatars.
  auto noPerm = fx.service->files().UploadFile(fx.Key(fx.sys, kPermReadConversations), Upload("logo", "l.png", "image/png", png));
  CHECK(noPerm.error().code == ErrorCode::kForbidden);
  CHECK(fx.service->files().UploadFile(fx.Key(fx.sys, kPermManageWidgetSettings), Upload("logo", "l.png", "image/png", png)).ok());
  auto keyAvatar = fx.service->files().UploadFile(fx.Key(fx.sys, kPermManageAllSettings), Upload("avatar", "a.png", "image/png", png));
  CHECK(keyAvatar.error().code == ErrorCode::kForbidden);
  auto noMember = fx.service->files().UploadFile(fx.sys, Upload("avatar", "a.png", "image/png", png));
  CHECK(noMember.error().message == "memberId is required for an avatar");
  FileUpload ghost = Upload("avatar", "a.png", "image/png", png);
  ghost.memberId = "nobody";
  const int before = fx.dir.CountFiles();
  CHECK(fx.service->files().UploadFile(fx.sys, ghost).error().code == ErrorCode::kNotFound);
  CHECK(fx.dir.CountFiles() == before);  // the bytes went again
  CHECK(fx.service->files().UploadFile(fx.sys, Upload("attachment", "a.png", "image/png", png)).error().code ==
        ErrorCode::kInvalidParams);
}

TEST_CASE("files: PurgeShopUploads removes imports, logos, avatars and icons, keeps attachments and other stores") {
  FilesFixture fx;
  const std::string png = PngBytes(200);
  REQUIRE(fx.service->files().UploadFile(fx.sys, Upload("logo", "l.png", "image/png", png)).ok());
  REQUIRE(fx.service->files().UploadFile(fx.sys, Upload("icon", "i.png", "image/png", png)).ok());
  FileUpload avatar = Upload("avatar", "a.png", "image/png", png);
  avatar.memberId = fx.agent.id;
  REQUIRE(fx.service->files().UploadFile(fx.sys, avatar).ok());
  REQUIRE(fx.service->files().ImportCustomersCsv(fx.sys, Upload("import", "c.csv", "text/csv", "email\na@x.test\n")).ok());
  auto sent = fx.service->storefront().VisitorSendFile(fx.Visitor(), Upload("attachment", "a.png", "image/png", png), std::nullopt);
  REQUIRE(sent.ok());
  auto otherLogo = fx.service->files().UploadFile(fx.otherSys, Upload("logo", "o.png", "image/png", png));
  REQUIRE(otherLogo.ok());
  CHECK(fx.dir.CountFiles() == 6);

  REQUIRE(fx.service->files().PurgeShopUploads(fx.shop.id).ok());
  for (const char* kind : {"import", "logo", "avatar", "icon"}) {
    CAPTURE(kind);
    CHECK(fx.CountFiles(fx.shop.id, kind) == 0);
    CHECK_FALSE(std::filesystem::exists(fx.dir.path() / fx.shop.id / kind));
  }
  CHECK(fx.CountFiles(fx.shop.id, "attachment") == 1);
  CHECK(fx.dir.CountFiles() == 2);  // the attachment and the other store's logo
  auto files = Parse(fx.service->conversations().GetMessage(fx.sys, sent->conversationId, sent->id)->filesJson);
  CHECK(fx.service->files().OpenFile(files[0]["id"].GetString(), Signed(files[0]["url"].GetString())).ok());
  CHECK(fx.service->files().OpenFile(otherLogo->id, {}).ok());
  // The imported contacts stay (they are contacts now, not the upload).
  CHECK(fx.CountCustomers(fx.shop.id) == 2);

  REQUIRE(fx.service->files().PurgeShopUploads(fx.shop.id).ok());  // again: nothing more
  CHECK(fx.dir.CountFiles() == 2);
  CHECK(fx.service->files().PurgeShopUploads("shop_unknown").error().code == ErrorCode::kNotFound);
}

TEST_CASE("files: a shop-redact platform request deletes the uploads (records and bytes), keeps attachments") {
  FilesFixture fx;
  const std::string png = PngBytes(200);
  REQUIRE(fx.service->files().UploadFile(fx.sys, Upload("logo", "l.png", "image/png", png)).ok());
  REQUIRE(fx.service->files().ImportCustomersCsv(fx.sys, Upload("import", "c.csv", "text/csv", "email\na@x.test\n")).ok());
  REQUIRE(fx.service->storefront().VisitorSendFile(fx.Visitor(), Upload("attachment", "a.png", "image/png", png), std::nullopt).ok());
  REQUIRE(fx.service->files().UploadFile(fx.otherSys, Upload("logo", "o.png", "image/png", png)).ok());
  CHECK(fx.dir.CountFiles() == 4);

  PlatformRequestInput in;
  in.topic = platform_topic::kAppUninstalled;
  in.bodyDigest = "uninstall";
  REQUIRE(fx.service->privacy().ApplyPlatformRequest(fx.sys, in).ok());
  in.topic = platform_topic::kShopRedact;
  in.bodyDigest = "redact";
  auto applied = fx.service->privacy().ApplyPlatformRequest(fx.sys, in);
  REQUIRE(applied.ok());
  CHECK(applied->outcome == "applied");
  CHECK(applied->changesJson == R"({"members":1,"sessions":0,"files":2})");
  CHECK(fx.CountFiles(fx.shop.id, "logo") == 0);
  CHECK(fx.CountFiles(fx.shop.id, "import") == 0);
  CHECK_FALSE(std::filesystem::exists(fx.dir.path() / fx.shop.id / "logo"));
  CHECK_FALSE(std::filesystem::exists(fx.dir.path() / fx.shop.id / "import"));
  CHECK(fx.CountFiles(fx.shop.id, "attachment") == 1);
  CHECK(fx.dir.CountFiles() == 2);  // the attachment and the other store's logo
  auto replay = fx.service->privacy().ApplyPlatformRequest(fx.sys, in);
  REQUIRE(replay.ok());
  CHECK(replay->outcome == "replay");
  CHECK(fx.dir.CountFiles() == 2);
}

TEST_CASE("files: delete one upload; attachments are history") {
  FilesFixture fx;
  auto logo = fx.service->files().UploadFile(fx.sys, Upload("logo", "l.png", "image/png", PngBytes(100)));
  REQUIRE(logo.ok());
  CHECK(fx.service->files().DeleteFile(fx.otherSys, logo->id).error().code == ErrorCode::kNotFound);
  REQUIRE(fx.service->files().DeleteFile(fx.sys, logo->id).ok());
  CHECK(fx.service->files().OpenFile(logo->id, {}).error().code == ErrorCode::kNotFound);
  CHECK(fx.dir.CountFiles() == 0);
  auto sent = fx.service->storefront().VisitorSendFile(fx.Visitor(), Upload("attachment", "a.txt", "text/plain", "hi"), std::nullopt);
  REQUIRE(sent.ok());
  const std::string id = Parse(sent->filesJson)[0]["id"].GetString();
  CHECK(fx.service->files().DeleteFile(fx.sys, id).error().code == ErrorCode::kConflict);
  auto listed = fx.service->files().ListFiles(fx.sys, "attachment");
  REQUIRE(listed.ok());
  CHECK(listed->size() == 1);
}

TEST_CASE("contact import: quoting, de-duplication by email, counts") {
  FilesFixture fx;
  // An existing contact (from a chat) with this email is updated, not duplicated.
  InboundMessageInput in;
  in.customerEmail = "Known@Example.test";
  in.customerName = "Old Name";
  in.text = "hi";
  REQUIRE(fx.service->conversations().ReceiveInbound(fx.sys, in).ok());
  REQUIRE(fx.CountCustomers(fx.shop.id) == 1);
  fx.clock.Advance(1000);

  const std::string csv =
      "\xEF\xBB\xBF" "Email,Name,phone,tags,note,shopifyId\r\n"
      "known@example.test,\"Doe, Jane\",+1 555,vip;newsletter,\"said \"\"hi\"\"\nthen left\",\r\n"
      "new@example.test,,,,,4242\r\n"
      "\r\n"
      "third@example.test,Third,,,,\r\n";
  auto r = fx.service->files().ImportCustomersCsv(fx.MemberSession(), Upload("import", "contacts.csv", "text/csv", csv));
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->rows == 3);
  CHECK(r->created == 2);
  CHECK(r->updated == 1);
  CHECK(r->file.kind == "import");
  CHECK(r->file.contentType == "text/csv");
  CHECK(r->file.name == "contacts.csv");
  CHECK(fx.CountCustomers(fx.shop.id) == 3);
  auto page = fx.service->directory().ListCustomersPage(fx.sys, {});
  REQUIRE(page.ok());
  CHECK(page->totalCount == 3);
  const Customer& known = page->items[0];
  CHECK(known.email == std::optional<std::string>("Known@Example.test"));
  CHECK(known.name == std::optional<std::string>("Doe, Jane"));
  CHECK(known.phone == std::optional<std::string>("+1 555"));
  CHECK(known.note == std::optional<std::string>("said \"hi\"\nthen left"));
  CHECK(known.tags == std::vector<std::string>{"vip", "newsletter"});
  CHECK(known.type == "guest");
  auto byEmail = [&](const std::string& email) {
    for (const auto& c : page->items)
      if (c.email == std::optional<std::string>(email)) return c;
    FAIL("no contact " << email);
    return Customer{};
  };
  const Customer fresh = byEmail("new@example.test");
  CHECK(fresh.email == std::optional<std::string>("new@example.test"));
  CHECK(fresh.shopifyId == std::optional<std::string>("4242"));
  CHECK(fresh.type == "customer");
  CHECK_FALSE(fresh.name.has_value());
  CHECK(fx.CountFiles(fx.shop.id, "import") == 1);

  // Importing the same file again updates, and creates nobody.
  auto again = fx.service->files().ImportCustomersCsv(fx.sys, Upload("import", "contacts.csv", "text/csv", csv));
  REQUIRE(again.ok());
  CHECK(again->created == 0);
  CHECK(again->updated == 3);
  CHECK(fx.CountCustomers(fx.shop.id) == 3);

  // Not with an API key.
  auto key = fx.service->files().ImportCustomersCsv(fx.Key(fx.sys, kPermReadCustomers), Upload("import", "c.csv", "text/csv", csv));
  CHECK(key.error().code == ErrorCode::kForbidden);
}

TEST_CASE("contact import: errors name row and column, and change nothing") {
  FilesFixture fx;
  struct Case {
    std::string csv;
    std::string message;
  };
  const Case cases[] = {
      {"email,favourite\na@x.test,blue\n",
       "row 1, column 2: \"favourite\" is not a contact field (columns: email, name, firstName, lastName, phone, "
       "shopifyId, note, address1, address2, city, zip, country, countryCode, tags)"},
      {"name\nJane\n", "row 1: the header has no email column (columns: email, name, firstName, lastName, phone, "
                       "shopifyId, note, address1, address2, city, zip, country, countryCode, tags)"},
      {"email,Email\na@x.test,b@x.test\n", "row 1, column 2: \"Email\" appears twice"},
      {"email,name\na@x.test,A\nnot-an-email,B\n", "row 3, column email: \"not-an-email\" is not an email address"},
      {"email,name\na@x.test,A\n,B\n", "row 3, column email: an email is required"},
      {"email,name\na@x.test,A\nA@X.test,B\n", "row 3, column email: A@X.test is already in row 2"},
      {"email,name\na@x.test,A,extra\n", "row 2: 3 fields, but the header has 2"},
      {"email,name\na@x.test,\"A\n", "row 2: a quoted field is not closed"},
      {"email,name\na@x.test,\"A\"B\n", "row 2: text after a closing quote; double quotes inside a field (\"\")"},
      {"email,name\na@x.test,A\"B\"\n", "row 2: a quote inside an unquoted field; quote the whole field"},
      {"email,countryCode\na@x.test,USA\n", "row 2, column countryCode: at most 2 characters"},
      {"", "the file is empty"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.csv);
    auto r = fx.service->files().ImportCustomersCsv(fx.sys, Upload("import", "c.csv", "text/csv", c.csv));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidParams);
    CHECK(r.error().message == c.message);
  }
  auto binary = fx.service->files().ImportCustomersCsv(fx.sys, Upload("import", "c.csv", "text/csv", PngBytes(40)));
  CHECK(binary.error().code == ErrorCode::kInvalidParams);
  CHECK(fx.CountCustomers(fx.shop.id) == 0);
  CHECK(fx.CountFiles(fx.shop.id, "import") == 0);
  CHECK(fx.dir.CountFiles() == 0);
}

TEST_CASE("contact import: the row limit at N and N+1 rows") {
  Limits limits;
  limits.importRowsMax = 3;
  FilesFixture fx(limits);
  const std::string three = "email\na@x.test\nb@x.test\nc@x.test\n";
  auto ok = fx.service->files().ImportCustomersCsv(fx.sys, Upload("import", "c.csv", "text/csv", three));
  REQUIRE(ok.ok());
  CHECK(ok->created == 3);
  auto over = fx.service->files().ImportCustomersCsv(fx.sys, Upload("import", "c.csv", "text/csv", three + "d@x.test\n"));
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().code == ErrorCode::kInvalidParams);
  CHECK(over.error().message == "the file has more than 3 rows after the header row (the limit); split it");
  CHECK(fx.CountCustomers(fx.shop.id) == 3);
}

}  // namespace livechat::test
