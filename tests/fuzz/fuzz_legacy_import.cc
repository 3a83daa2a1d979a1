// libFuzzer target: the legacy (older datastore) export import, a JSON
// document of conversations with their messages, tags and notes, through
// LegacyService::ImportLegacy: the reader, its limits and its all-or-nothing
// write.
#include "fuzz/fuzz_http.h"

using namespace livechat;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::World* world = new fuzz::World();
  auto r = world->service->legacy().ImportLegacy(Principal::System(world->shop.id),
                                        std::string_view(reinterpret_cast<const char*>(data), size));
  if (!r.ok() && r.error().message.empty()) std::abort();
  return 0;
}
