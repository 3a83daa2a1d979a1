// A LocalDirBlobStore under a fresh temporary directory, removed with
// everything in it when the object dies: the real directory store in tests.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "livechat/blob_store.h"
#include "support/temp_dir.h"

namespace livechat::test {

class TempBlobDir {
 public:
  TempBlobDir() : path_(dir_.path() / "blobs") {
    auto opened = OpenLocalDirBlobStore(path_.string());
    REQUIRE(opened.ok());
    blobs_ = std::move(opened).value();
  }
  TempBlobDir(const TempBlobDir&) = delete;
  TempBlobDir& operator=(const TempBlobDir&) = delete;

  BlobStore& blobs() { return *blobs_; }
  const std::filesystem::path& path() const { return path_; }
  // Regular files below the directory (temporaries included).
  int CountFiles() const {
    int n = 0;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(path_, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file()) ++n;
    return n;
  }

 private:
  testing::TempDir dir_;  // declared first: removed after the store closes
  std::filesystem::path path_;
  std::unique_ptr<BlobStore> blobs_;
};

// Small valid files of each allowed type (magic bytes + filler).
inline std::string PngBytes(std::size_t size) {
  std::string b("\x89PNG\r\n\x1a\n", 8);
  b.resize(size, 'p');
  return b;
}
inline std::string PdfBytes(std::size_t size) {
  std::string b = "%PDF-1.7\n";
  b.resize(size, 'd');
  return b;
}

}  // namespace livechat::test
