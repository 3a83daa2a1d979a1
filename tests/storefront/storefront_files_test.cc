// Widget attachments through /storefront/files: the upload, the message the
// agents read, and the bytes behind the URL, on a real directory BlobStore.
#include <doctest/doctest.h>

#include "livechat/crypto.h"
#include "livechat/file_server.h"
#include "support/file_download.h"
#include "storefront/storefront_fixture.h"
#include "support/temp_blob_dir.h"

namespace livechat::testing {
namespace {

struct FilesStorefront {
  test::TempBlobDir dir;
  StorefrontFixture f{StorefrontOptions{}, &dir.blobs()};
  FileServer files{f.service()};

  Reply Upload(const StorefrontFixture::Visitor& v, const std::string& query, const std::string& type,
               const std::string& bytes) {
    HttpRequest req = f.StorefrontRequest("POST", "/storefront/files" + query, "", f.shop.appId, v.token);
    if (!type.empty()) req.headers.emplace_back("content-type", type);
    req.body = bytes;
    return f.SendStorefront(req);
  }
  HttpResponse Download(const std::string& target) { return DownloadFile(files, target); }
};

}  // namespace

TEST_CASE("storefront files: upload, the message in the widget and for agents, and the same bytes at the URL") {
  FilesStorefront fs;
  auto v = fs.f.Start();
  const std::string bytes = test::PngBytes(5000);
  Reply up = fs.Upload(v, "?name=photo.png", "image/png", bytes);
  REQUIRE_MESSAGE(up.status() == 201, up.raw.body);
  const auto& m = At(up.data(), "message");
  CHECK(Str(At(m, "text")) == "photo.png");
  const auto& file = At(At(m, "files"), 0);
  CHECK(KeySet(file) == std::set<std::string>{"id", "name", "size", "contentType", "url"});
  CHECK(Str(At(file, "name")) == "photo.png");
  CHECK(At(file, "size").GetInt64() == 5000);
  CHECK(Str(At(file, "contentType")) == "image/png");
  const std::string url = Str(At(file, "url"));
  CHECK(url.rfind("/files/" + Str(At(file, "id")) + "?expires=", 0) == 0);

  // The widget's own poll shows it.
  Reply polled = fs.f.Updates(v, "?after=0");
  REQUIRE(polled.status() == 200);
  CHECK(Str(At(At(At(At(At(At(polled.data(), "messages"), 0), "message"), "files"), 0), "url")) == url);

  // Agents read it through REST: contentType file (detail) and the entry.
  auto sessionInfo = fs.f.Session(v);
  const std::string conv = Str(At(sessionInfo.data(), "conversationId"));
  Reply detail = fs.f.Get("/chat/conversations/" + conv + "/messages/" + Str(At(m, "id")));
  REQUIRE(detail.status() == 200);
  CHECK(Str(At(detail.data(), "contentType")) == "file");
  CHECK(Str(At(At(At(detail.data(), "files"), 0), "name")) == "photo.png");
  Reply list = fs.f.Get("/chat/conversations/" + conv + "/messages");
  CHECK(At(At(At(list.data(), 0), "files"), 0).IsObject());

  HttpResponse got = fs.Download(url);
  REQUIRE(got.status == 200);
  CHECK(got.body == bytes);
  CHECK(livechat::Sha256Hex(got.body) == livechat::Sha256Hex(bytes));
  CHECK(got.Header("content-type") == std::optional<std::string>("image/png"));
  CHECK(got.Header("content-length") == std::optional<std::string>("5000"));
  CHECK(got.Header("x-content-type-options") == std::optional<std::string>("nosniff"));
  CHECK(got.Header("content-security-policy") ==
        std::optional<std::string>("default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"));
  CHECK(got.Header("content-disposition") ==
        std::optional<std::string>("inline; filename=\"photo.png\"; filename*=UTF-8''photo.png"));
  CHECK(got.Header("cache-control") == std::optional<std::string>("private, no-store"));
}

TEST_CASE("storefront files: caption, limits and types, no session") {
  FilesStorefront fs;
  auto v = fs.f.Start();
  Reply captioned = fs.Upload(v, "?name=r.pdf&caption=my%20receipt", "application/pdf", test::PdfBytes(100));
  REQUIRE(captioned.status() == 201);
  CHECK(Str(At(At(captioned.data(), "message"), "text")) == "my receipt");

  Reply tooBig = fs.Upload(v, "?name=big.pdf", "application/pdf", test::PdfBytes(10 * 1024 * 1024 + 1));
  CHECK(tooBig.status() == 413);
  CHECK(tooBig.code() == "PAYLOAD_TOO_LARGE");
  CHECK(tooBig.message() == "attachments are limited to 10485760 bytes (10 MiB); this file has 10485761 bytes");
  Reply lying = fs.Upload(v, "?name=x.png", "image/png", test::PdfBytes(100));
  CHECK(lying.status() == 400);
  CHECK(lying.code() == "INVALID_PARAMS");
  Reply html = fs.Upload(v, "?name=x.html", "text/html", "<script></script>");
  CHECK(html.status() == 400);
  Reply noType = fs.Upload(v, "?name=x", "", "hello");
  CHECK(noType.status() == 400);
  CHECK(fs.dir.CountFiles() == 1);  // only the receipt

  HttpRequest anonymous = fs.f.StorefrontRequest("POST", "/storefront/files?name=a.txt", "", fs.f.shop.appId, "");
  anonymous.headers.emplace_back("content-type", "text/plain");
  anonymous.body = "hi";
  Reply noSession = fs.f.SendStorefront(anonymous);
  CHECK(noSession.status() == 401);
  Reply wrongMethod = fs.f.SendStorefront(fs.f.StorefrontRequest("GET", "/storefront/files", "", fs.f.shop.appId, v.token));
  CHECK(wrongMethod.status() == 405);
  CHECK(wrongMethod.header("Allow") == "POST, OPTIONS");
  Reply preflight = fs.f.SendStorefront(fs.f.StorefrontRequest("OPTIONS", "/storefront/files", "", "", ""));
  CHECK(preflight.status() == 204);
}

TEST_CASE("storefront files: uploads count against the widget's message window") {
  FilesStorefront fs;
  auto v = fs.f.Start();
  for (int i = 0; i < 15; ++i) REQUIRE(fs.Upload(v, "?name=n.txt", "text/plain", "note").status() == 201);
  Reply limited = fs.Upload(v, "?name=n.txt", "text/plain", "note");
  CHECK(limited.status() == 429);
  CHECK(fs.dir.CountFiles() == 15);
}

TEST_CASE("storefront files: a refused upload counts against no window: then 15 accepted, the 16th 429") {
  FilesStorefront fs;
  auto v = fs.f.Start();
  Reply tooBig = fs.Upload(v, "?name=big.pdf", "application/pdf", test::PdfBytes(10 * 1024 * 1024 + 1));
  CHECK(tooBig.status() == 413);
  CHECK(tooBig.code() == "PAYLOAD_TOO_LARGE");
  Reply lying = fs.Upload(v, "?name=x.png", "image/png", test::PdfBytes(100));
  CHECK(lying.status() == 400);
  CHECK(lying.code() == "INVALID_PARAMS");
  CHECK(fs.Upload(v, "?name=x.html", "text/html", "<p>hi</p>").status() == 400);
  CHECK(fs.Upload(v, "?name=x", "", "hello").status() == 400);
  CHECK(fs.Upload(v, "?name=r.pdf&caption=" + std::string(5001, 'a'), "application/pdf", test::PdfBytes(100))
            .status() == 400);
  // A message refused by the same rules does not count either.
  CHECK(fs.f.Command(v, "message:send", "[\"" + std::string(5001, 'a') + "\"]").status() == 400);

  for (int i = 1; i <= 15; ++i) {
    CAPTURE(i);
    Reply r = i % 2 ? fs.Upload(v, "?name=n.txt", "text/plain", "note") : fs.f.Command(v, "message:send", "[\"hi\"]");
    REQUIRE(r.status() == (i % 2 ? 201 : 200));
  }
  Reply limited = fs.Upload(v, "?name=n.txt", "text/plain", "note");
  CHECK(limited.status() == 429);
  CHECK(limited.code() == "RATE_LIMITED");
  CHECK(limited.message() == "message:send: rate limit of 15 messages per minute reached; try again in 60 s");
  CHECK(fs.f.Command(v, "message:send", "[\"hi\"]").status() == 429);
  CHECK(fs.dir.CountFiles() == 8);
  CHECK(fs.f.MessageCount(Str(At(fs.f.Session(v).data(), "conversationId"))) == 15);
}

}  // namespace livechat::testing
