// Files over HTTP, in process: downloads at /files/{fileId} (who may read
// what, the browser headers) and the admin inbox's uploads (/api/files,
// /api/customers/import) on a real directory BlobStore.
#include <doctest/doctest.h>

#include "livechat/file_server.h"
#include "support/file_download.h"
#include "support/rest_fixture.h"
#include "support/temp_blob_dir.h"

namespace livechat::testing {
namespace {

struct FilesRest {
  test::TempBlobDir dir;
  RestFixture f{RelaxedLimits(), {}, nullptr, &dir.blobs()};
  FileServer files{f.service()};
  std::string cookie;

  FilesRest() {
    auto login = f.service().auth().Login("agent@example.com", "correct horse battery", std::nullopt, "203.0.113.7");
    REQUIRE(login.ok());
    cookie = "lc_session=" + login->token;
  }

  HttpResponse Download(const std::string& target, const std::string& apiKey = "", const std::string& method = "GET") {
    return DownloadFile(files, target, apiKey, method);
  }
  Reply Upload(const std::string& target, const std::string& type, const std::string& bytes, bool session = true) {
    HttpRequest req;
    req.method = "POST";
    req.target = target;
    req.peerIp = "203.0.113.7";
    if (session) req.headers.emplace_back("cookie", cookie);
    req.headers.emplace_back("x-livechat-csrf", "1");
    if (!type.empty()) req.headers.emplace_back("content-type", type);
    req.body = bytes;
    return f.Send(req);
  }
  static std::string Code(const HttpResponse& r) { return Str(At(At(ParseJson(r.body), "error"), "code")); }
};

}  // namespace

TEST_CASE("files over HTTP: a logo upload from the admin inbox, public download with the browser headers") {
  FilesRest fr;
  const std::string png = test::PngBytes(777);
  Reply up = fr.Upload("/api/files?kind=logo&name=My%20logo.png", "image/png", png);
  REQUIRE_MESSAGE(up.status() == 201, up.raw.body);
  const std::string id = Str(At(up.data(), "id"));
  CHECK(Str(At(up.data(), "url")) == "/files/" + id);
  CHECK(Str(At(up.data(), "kind")) == "logo");
  CHECK(Str(At(up.data(), "uploaderType")) == "member");
  CHECK(At(up.data(), "size").GetInt64() == 777);
  CHECK(up.raw.route == "/api/files");

  HttpResponse got = fr.Download("/files/" + id);  // no credential: logos are public
  REQUIRE(got.status == 200);
  CHECK(got.body == png);
  CHECK(got.route == "/files/{fileId}");
  CHECK(got.Header("content-disposition") ==
        std::optional<std::string>("inline; filename=\"My logo.png\"; filename*=UTF-8''My%20logo.png"));
  CHECK(got.Header("cache-control") == std::optional<std::string>("public, max-age=300"));

  Reply avatar = fr.Upload("/api/files?kind=avatar&name=me.png", "image/png", png);
  REQUIRE(avatar.status() == 201);
  CHECK(RestFixture::Must(fr.f.service().directory().GetMember(fr.f.sys, fr.f.agent.id)).avatarUrl ==
        Str(At(avatar.data(), "url")));

  Reply tooBig = fr.Upload("/api/files?kind=icon&name=i.png", "image/png", test::PngBytes(2 * 1024 * 1024 + 1));
  CHECK(tooBig.status() == 413);
  CHECK(tooBig.message() == "icons are limited to 2097152 bytes (2 MiB); this file has 2097153 bytes");
  Reply badKind = fr.Upload("/api/files?kind=attachment&name=a.png", "image/png", png);
  CHECK(badKind.status() == 400);
  CHECK(badKind.message() == "kind must be one of logo, icon, avatar");
  Reply lying = fr.Upload("/api/files?kind=logo&name=l.png", "image/png", "GIF89a.....");
  CHECK(lying.status() == 400);
  Reply anonymous = fr.Upload("/api/files?kind=logo&name=l.png", "image/png", png, /*session=*/false);
  CHECK(anonymous.status() == 401);
  CHECK(anonymous.code() == "UNAUTHENTICATED");
  HttpRequest get = fr.f.Request("GET", "/api/files");
  get.headers = {{"cookie", fr.cookie}};
  Reply wrongMethod = fr.f.Send(get);
  CHECK(wrongMethod.status() == 405);
  CHECK(wrongMethod.header("Allow") == "POST");
  CHECK(fr.dir.CountFiles() == 2);
}

TEST_CASE("files over HTTP: attachment downloads need the store's key or a signed URL; others get 404") {
  FilesRest fr;
  auto start = fr.f.service().storefront().StartVisitorSession(fr.f.shop.appId, "198.51.100.1");
  REQUIRE(start.ok());
  FileUpload in;
  in.kind = "attachment";
  in.name = "report.pdf";
  in.contentType = "application/pdf";
  in.bytes = test::PdfBytes(321);
  auto sent = fr.f.service().storefront().VisitorSendFile(start->session, in, std::nullopt);
  REQUIRE(sent.ok());
  auto files = ParseJson(sent->filesJson);
  const std::string id = Str(At(At(files, 0), "id"));
  const std::string url = Str(At(At(files, 0), "url"));

  HttpResponse signedGet = fr.Download(url);
  REQUIRE(signedGet.status == 200);
  CHECK(signedGet.body == in.bytes);
  CHECK(signedGet.Header("content-type") == std::optional<std::string>("application/pdf"));
  CHECK(signedGet.Header("content-disposition") ==
        std::optional<std::string>("attachment; filename=\"report.pdf\"; filename*=UTF-8''report.pdf"));

  CHECK(fr.Download("/files/" + id, fr.f.key).status == 200);
  CHECK(fr.Download("/files/" + id).status == 404);  // no credential, no signature: as if missing
  const Shop other = fr.f.NewShop("Other store");
  HttpResponse otherKey = fr.Download("/files/" + id, fr.f.NewKey(kAllRestPerms, false, other.id));
  CHECK(otherKey.status == 404);
  CHECK(FilesRest::Code(otherKey) == "NOT_FOUND");
  HttpResponse weakKey = fr.Download("/files/" + id, fr.f.NewKey(kPermReadCustomers));
  CHECK(weakKey.status == 403);
  HttpResponse badKey = fr.Download("/files/" + id, "sk_00000000000000000000000000000000");
  CHECK(badKey.status == 401);
  CHECK(FilesRest::Code(badKey) == "INVALID_API_KEY");
  CHECK(fr.Download("/files/no-such-id", fr.f.key).status == 404);
  CHECK(fr.Download("/files/" + id + "?expires=1&sig=00").status == 404);
  CHECK(fr.Download("/files/../etc/passwd").status == 404);
  CHECK(fr.Download("/files/%2e%2e%2fsecret").status == 404);
  HttpResponse post = fr.Download("/files/" + id, "", "DELETE");
  CHECK(post.status == 405);
  CHECK(post.Header("allow") == std::optional<std::string>("GET"));

  // An hour later the signed URL has expired (ManualClock), the key still works.
  fr.f.clock.Advance(3600 * 1000);
  HttpResponse expired = fr.Download(url);
  CHECK(expired.status == 403);
  CHECK(FilesRest::Code(expired) == "FORBIDDEN");
  CHECK(fr.Download("/files/" + id, fr.f.key).status == 200);
}

TEST_CASE("files over HTTP: the admin inbox's contact import") {
  FilesRest fr;
  fr.f.InboundFrom("old@example.com", "hi");
  Reply ok = fr.Upload("/api/customers/import?name=contacts.csv", "text/csv",
                       "email,name,tags\nold@example.com,Old Friend,vip\nnew@example.com,\"New, Person\",\n");
  REQUIRE_MESSAGE(ok.status() == 200, ok.raw.body);
  CHECK(At(ok.data(), "rows").GetInt64() == 2);
  CHECK(At(ok.data(), "created").GetInt64() == 1);
  CHECK(At(ok.data(), "updated").GetInt64() == 1);
  CHECK(Str(At(At(ok.data(), "file"), "kind")) == "import");
  CHECK(ok.raw.route == "/api/customers/import");

  Reply bad = fr.Upload("/api/customers/import?name=c.csv", "text/csv", "email\nnope\n");
  CHECK(bad.status() == 400);
  CHECK(bad.message() == "row 2, column email: \"nope\" is not an email address");
  Reply big = fr.Upload("/api/customers/import?name=c.csv", "text/csv", std::string(5 * 1024 * 1024 + 1, 'x'));
  CHECK(big.status() == 413);
  Reply anonymous = fr.Upload("/api/customers/import?name=c.csv", "text/csv", "email\na@b.c\n", false);
  CHECK(anonymous.status() == 401);

  // The import itself is readable with a key that may read customers, and only that.
  const std::string importId = Str(At(At(ok.data(), "file"), "id"));
  CHECK(fr.Download("/files/" + importId, fr.f.NewKey(kPermReadCustomers)).status == 200);
  CHECK(fr.Download("/files/" + importId, fr.f.NewKey(kPermReadConversations)).status == 403);
  CHECK(fr.Download("/files/" + importId).status == 404);
}

}  // namespace livechat::testing
