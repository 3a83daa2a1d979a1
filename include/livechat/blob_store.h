// The BlobStore seam: where the bytes of uploaded files live (contact imports,
// logos, avatars, icons, widget attachments). Their records (name, size, type,
// sha256, links) live in the Store; ChatService writes both and decides who
// may read what. The default is a local directory (OpenLocalDirBlobStore, in
// livechat::blobs); a store backed by object storage can replace it.
//
// Keys are chosen by ChatService, never taken from input: "<shopId>/<kind>/<fileId>".
// A key is 1 to 255 characters of segments [A-Za-z0-9_.-] separated by '/',
// no segment empty, "." or ".."; every method refuses another key with
// kInvalidParams before touching anything, so a key can never leave the root.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "livechat/result.h"

namespace livechat {

// True when `key` has the shape above.
bool IsValidBlobKey(std::string_view key);

class BlobStore {
 public:
  virtual ~BlobStore() = default;
  // Stores `bytes` under `key`, replacing what was there. Atomic: a reader
  // sees the old bytes or the new ones, never a part.
  virtual Status Put(const std::string& key, std::string_view bytes) = 0;
  // The bytes under `key`; kNotFound when there are none.
  virtual Result<std::string> Get(const std::string& key) = 0;
  // Removes `key`. A missing key is success (deleting twice is harmless).
  virtual Status Delete(const std::string& key) = 0;
  // Removes every blob whose key starts with `prefix` + "/" (a store's files
  // of one kind: "<shopId>/logo"). Returns how many were removed; none is
  // success. `prefix` must be a valid key itself.
  virtual Result<std::int64_t> DeletePrefix(const std::string& prefix) = 0;
};

// A directory on the local file system: a key is a relative path below it.
// Writes go to a temporary file in the same directory, are fsynced, then
// renamed over the target. The directory is created when missing (0700).
Result<std::unique_ptr<BlobStore>> OpenLocalDirBlobStore(const std::string& dir);

}  // namespace livechat
