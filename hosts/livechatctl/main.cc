// livechatctl: the admin command line. `livechatctl --db PATH|URL COMMAND ...`
// prints one JSON document on stdout; see `livechatctl --help`.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "command_line.h"
#include "commands.h"
#include "livechat/blob_store.h"
#include "livechat/chat_service.h"
#include "livechat/open_store.h"
#include "livechat/postgres_store.h"

#ifndef LIVECHAT_VERSION
#define LIVECHAT_VERSION "unknown"
#endif

namespace {

int Emit(const livechatctl::Outcome& o) {
  std::fputs(o.json.c_str(), stdout);
  std::fputc('\n', stdout);
  if (o.exitCode == 2) std::fputs("livechatctl: usage error; see livechatctl --help\n", stderr);
  return o.exitCode;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> argList(argv + 1, argv + argc);
  std::string error;
  auto args = livechatctl::SplitArgs(argList, livechatctl::IsSwitch, &error);
  if (!args) return Emit(livechatctl::UsageError(error));
  if (args->version) {
    std::printf("{\"livechatctl\":\"%s\"}\n", LIVECHAT_VERSION);
    return 0;
  }
  if (args->help) {
    std::fputs(livechatctl::Usage().c_str(), stdout);
    return 0;
  }
  if (args->words.empty()) return Emit(livechatctl::UsageError("no command given"));
  const livechatctl::Command* command = livechatctl::FindCommand(args->words);
  if (command == nullptr) {
    std::string name;
    for (const auto& w : args->words) name += (name.empty() ? "" : " ") + w;
    return Emit(livechatctl::UsageError("unknown command \"" + name + "\""));
  }
  if (std::string problem = livechatctl::CheckFlags(*args, command->flags); !problem.empty())
    return Emit(livechatctl::UsageError(problem));

  std::string db = "./livechat.db";
  if (const char* env = std::getenv("LIVECHAT_DB"); env != nullptr && *env != '\0') db = env;
  if (args->db) db = *args->db;
  if (db.empty()) return Emit(livechatctl::UsageError("--db must not be empty"));
  args->db = db;  // commands that work on the file itself (backup) read it here

  // Opening a SQLite path creates the file; a copy from a mistyped path
  // must say so rather than copy an empty database.
  std::error_code ec;
  if (args->words[0] == "copy-to-postgres" && !livechat::IsPostgresUrl(db) && !std::filesystem::exists(db, ec))
    return Emit({1, livechatctl::ErrorJson("NOT_FOUND", "no SQLite database at " + db)});

  livechat::StoreConfig config;
  config.db = db;
  config.readers = 1;  // one command, one thread
  auto store = livechat::OpenStore(config);
  if (!store.ok())
    return Emit({1, livechatctl::ErrorJson("INTERNAL", "cannot open database " + livechat::DescribeDatabase(db) +
                                                           ": " + store.error().message)});

  livechat::ServiceOptions serviceOptions;
  serviceOptions.store = store->get();
  // The files directory is livechatd's (LIVECHAT_FILES_DIR, else DB.files),
  // opened (and created) only by the commands that handle files.
  std::unique_ptr<livechat::BlobStore> blobs;
  if (args->words[0] == "files" || args->words[0] == "customers") {
    std::string dir = livechat::IsPostgresUrl(db) ? "" : db + ".files";
    if (const char* env = std::getenv("LIVECHAT_FILES_DIR"); env != nullptr && *env != '\0') dir = env;
    if (dir.empty())
      return Emit(livechatctl::UsageError("the database is a PostgreSQL URL: set LIVECHAT_FILES_DIR to livechatd's "
                                          "--files-dir"));
    auto opened = livechat::OpenLocalDirBlobStore(dir);
    if (!opened.ok()) return Emit({1, livechatctl::ErrorJson("INTERNAL", opened.error().message)});
    blobs = std::move(opened).value();
    serviceOptions.blobs = blobs.get();
  }
  if (const char* env = std::getenv("LIVECHAT_PUBLIC_URL"); env != nullptr) serviceOptions.fileBaseUrl = env;
  livechat::ChatService service(serviceOptions);
  return Emit(command->run(service, *args));
}
