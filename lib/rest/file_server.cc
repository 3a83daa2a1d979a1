#include "livechat/file_server.h"

#include <array>
#include <string>

#include "livechat/rest.h"
#include "rest/rest_response.h"

namespace livechat {
namespace {

// The name as an RFC 6266 parameter: an ASCII fallback (quotes, backslashes
// and non-ASCII replaced) and the exact UTF-8 name percent-encoded.
std::string Disposition(const char* type, const std::string& name) {
  std::string ascii;
  for (unsigned char c : name) ascii += (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') ? '_' : static_cast<char>(c);
  return std::string(type) + "; filename=\"" + ascii + "\"; filename*=UTF-8''" + PercentEncode(name);
}

constexpr std::array<MethodRoute, 1> kMethods{{{"GET"}}};  // downloads only

HttpResponse Refuse(const Error& e, std::string route) {
  HttpResponse r = rest::ErrorResponse(e);
  r.route = std::move(route);
  return r;
}

}  // namespace

FileServer::FileServer(ChatService& service) : service_(service) {}
FileServer::~FileServer() = default;

bool FileServer::Owns(std::string_view target) {
  return target == "/files" || target.rfind("/files/", 0) == 0 || target.rfind("/files?", 0) == 0;
}

HttpResponse FileServer::Handle(const HttpRequest& req) {
  auto target = ParseTarget(req.target);
  if (!target) return Refuse(MakeError(ErrorCode::kInvalidParams, "malformed request target"), "");
  const auto& segs = target->segments;
  if (segs.size() != 2 || segs[0] != "files" || segs[1].empty())
    return Refuse(MakeError(ErrorCode::kNotFound, "No resource at " + target->path + "."), "");
  const std::string route = "/files/{fileId}";
  if (auto m = MatchMethod(kMethods, req.method); !m.row) {
    HttpResponse r = rest::MethodNotAllowed(req.method, m.allow);
    r.route = route;
    return r;
  }
  FileAccess access;
  access.expires = target->Query("expires");
  access.signature = target->Query("sig");
  // A key that is sent must be valid: a wrong one is told so, as on /chat.
  if (auto key = req.Header("x-api-key"); key && !key->empty()) {
    auto p = service_.auth().AuthenticateApiKey(*key);
    if (!p.ok()) return Refuse(p.error(), route);
    access.principal = std::move(p).value();
  }
  auto file = service_.files().OpenFile(segs[1], access);
  if (!file.ok()) return Refuse(file.error(), route);
  const FileRecord& f = file->file;
  HttpResponse r;
  r.status = 200;
  r.route = route;
  const bool image = f.contentType.rfind("image/", 0) == 0;
  const bool text = f.contentType == "text/plain" || f.contentType == "text/csv";
  r.SetHeader("Content-Type", text ? f.contentType + "; charset=utf-8" : f.contentType);
  r.SetHeader("Content-Length", std::to_string(file->bytes.size()));
  r.SetHeader("Content-Disposition", Disposition(image ? "inline" : "attachment", f.name));
  // Uploaded bytes are never a page: no sniffing into HTML, no scripts, no
  // plugins, no same-origin rights even if a browser renders them.
  r.SetHeader("X-Content-Type-Options", "nosniff");
  r.SetHeader("Content-Security-Policy", "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox");
  // The widget shows these on the shop's own pages, another origin.
  r.SetHeader("Cross-Origin-Resource-Policy", "cross-origin");
  r.SetHeader("Cache-Control", f.kind == "attachment" || f.kind == "import" ? "private, no-store" : "public, max-age=300");
  r.SetHeader("ETag", "\"" + f.sha256 + "\"");
  r.body = std::move(file->bytes);
  return r;
}

}  // namespace livechat
