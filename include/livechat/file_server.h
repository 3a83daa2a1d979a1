// The download side of uploaded files: GET /files/{fileId} ->
// FileService::OpenFile -> the bytes. Transport-neutral like the other
// adapters; livechatd only routes /files/ here. Who may read what is
// ChatService's rule (docs/operations.md, "Files"): logos, icons and avatars
// are public; an attachment needs the store's X-Api-Key or the signed URL
// that message reads carry (?expires=&sig=); an import the store's key.
#pragma once

#include <memory>
#include <string_view>

#include "livechat/chat_service.h"
#include "livechat/http.h"

namespace livechat {

// Thread-safe; holds no per-request state.
class FileServer {
 public:
  explicit FileServer(ChatService& service);
  ~FileServer();
  FileServer(const FileServer&) = delete;
  FileServer& operator=(const FileServer&) = delete;

  // True for targets under /files/.
  static bool Owns(std::string_view target);
  // 200 with the bytes, their type and a restrictive policy for the browser
  // (nosniff, a sandboxing Content-Security-Policy, Content-Disposition
  // attachment for all but images); errors in the REST error body.
  HttpResponse Handle(const HttpRequest& req);

 private:
  ChatService& service_;
};

}  // namespace livechat
