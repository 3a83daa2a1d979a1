// libFuzzer target: the upload path behind every listener (REST files, the
// widget's attachments, contact imports): the kind's size limit, the
// declared type against the bytes' magic, the file name's cleaning, and for
// imports the CSV reader (RFC 4180 quoting) and every cell rule. Input: one
// byte choosing the kind, then "name\ncontent-type\n", then the bytes.
#include "fuzz/fuzz_http.h"

using namespace livechat;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::World* world = new fuzz::World();
  static const char* const kinds[] = {"import", "logo", "avatar", "icon", "attachment"};
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  auto line = [&] {
    const std::size_t nl = rest.find('\n');
    std::string l(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    return l;
  };
  FileUpload in;
  in.kind = kinds[data[0] % 5];
  in.name = line();
  in.contentType = line();
  in.bytes = std::string(rest);
  const Principal sys = Principal::System(world->shop.id);
  if (in.kind == "import") {
    auto r = world->service->files().ImportCustomersCsv(sys, in);
    if (!r.ok() && r.error().message.empty()) std::abort();  // every refusal says why
  } else {
    auto r = world->service->files().UploadFile(sys, in);
    if (!r.ok() && r.error().message.empty()) std::abort();
  }
  return 0;
}
