// examples/catalog/sample_catalog.json, the store knowledge the demo store
// and the tool-server tests load.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace livechat::testing {

inline std::string ReadSampleCatalog() {
  std::ifstream in(std::string(LIVECHAT_SOURCE_DIR) + "/examples/catalog/sample_catalog.json", std::ios::binary);
  REQUIRE(in);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

}  // namespace livechat::testing
