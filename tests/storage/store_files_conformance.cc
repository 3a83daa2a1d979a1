// Uploaded files' records (migration 9): every Store keeps them the same way.
#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

FileRecord MakeFile(const std::string& shop, const std::string& id, const std::string& kind, Millis at) {
  FileRecord f;
  f.id = id;
  f.shopId = shop;
  f.kind = kind;
  f.name = id + ".png";
  f.size = 1234;
  f.contentType = "image/png";
  f.sha256 = std::string(64, 'a');
  f.createdAt = at;
  f.uploaderType = "member";
  f.uploaderId = "m1";
  return f;
}

}  // namespace

STORE_TEST("files: insert, get by shop, find by id across shops, list by kind in order") {
  StoreFixture fx;
  Store& s = fx.store();
  FileRecord logo = MakeFile("shop-a", "f1", "logo", 2000);
  FileRecord att = MakeFile("shop-a", "f2", "attachment", 1000);
  att.conversationId = "conv-1";
  att.messageId = "msg-1";
  att.uploaderType = "visitor";
  att.uploaderId = std::nullopt;
  FileRecord logo2 = MakeFile("shop-a", "f0", "logo", 2000);  // same time: id breaks the tie
  FileRecord other = MakeFile("shop-b", "f3", "logo", 500);
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertFile(logo));
    LC_RETURN_IF_ERROR(w.InsertFile(att));
    LC_RETURN_IF_ERROR(w.InsertFile(logo2));
    return w.InsertFile(other);
  });

  auto got = Get(s, [&](StoreReader& r) { return r.GetFile("shop-a", "f2"); });
  REQUIRE(got.has_value());
  CHECK(got->kind == "attachment");
  CHECK(got->name == "f2.png");
  CHECK(got->size == 1234);
  CHECK(got->contentType == "image/png");
  CHECK(got->sha256 == std::string(64, 'a'));
  CHECK(got->createdAt == 1000);
  CHECK(got->conversationId == std::optional<std::string>("conv-1"));
  CHECK(got->messageId == std::optional<std::string>("msg-1"));
  CHECK(got->uploaderType == "visitor");
  CHECK_FALSE(got->uploaderId.has_value());

  // Another shop's file is not this shop's.
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetFile("shop-a", "f3"); }).has_value());
  auto any = Get(s, [&](StoreReader& r) { return r.FindFileById("f3"); });
  REQUIRE(any.has_value());
  CHECK(any->shopId == "shop-b");
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindFileById("nope"); }).has_value());

  auto logos = Get(s, [&](StoreReader& r) { return r.ListFiles("shop-a", "logo"); });
  REQUIRE(logos.size() == 2);
  CHECK(logos[0].id == "f0");
  CHECK(logos[1].id == "f1");
  CHECK(Get(s, [&](StoreReader& r) { return r.ListFiles("shop-b", "logo"); }).size() == 1);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListFiles("shop-a", "icon"); }).empty());

  // A file id is unique across shops (its URL names only the id).
  Status dup = s.Write([&](StoreWriter& w) -> Status { return w.InsertFile(MakeFile("shop-b", "f1", "logo", 1)); });
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().code == ErrorCode::kInternal);
}

STORE_TEST("files: delete one, delete a kind, other shops and kinds untouched") {
  StoreFixture fx;
  Store& s = fx.store();
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertFile(MakeFile("shop-a", "a1", "logo", 1)));
    LC_RETURN_IF_ERROR(w.InsertFile(MakeFile("shop-a", "a2", "logo", 2)));
    LC_RETURN_IF_ERROR(w.InsertFile(MakeFile("shop-a", "a3", "attachment", 3)));
    return w.InsertFile(MakeFile("shop-b", "b1", "logo", 4));
  });
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteFile("shop-b", "a1"); }) == false);  // not shop-b's
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteFile("shop-a", "a1"); }) == true);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteFile("shop-a", "a1"); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteFilesOfKind("shop-a", "logo"); }) == 1);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteFilesOfKind("shop-a", "logo"); }) == 0);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListFiles("shop-a", "attachment"); }).size() == 1);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListFiles("shop-b", "logo"); }).size() == 1);
}

}  // namespace livechat::testing
