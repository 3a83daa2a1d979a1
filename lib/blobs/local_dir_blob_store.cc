// The default BlobStore: one directory, a key is a relative path below it.
// Only this target does file I/O for uploads; the core sees the interface.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "livechat/blob_store.h"
#include "livechat/random.h"

namespace livechat {
namespace {

namespace fs = std::filesystem;

// A full disk or quota ends when space returns: the uploader is told to
// retry (kUnavailable), like a write the database refused for the same reason.
Error Io(const std::string& what, int err) {
  const ErrorCode code = err == ENOSPC || err == EDQUOT ? ErrorCode::kUnavailable : ErrorCode::kInternal;
  return Error{code, "blob store: " + what + ": " + std::strerror(err)};
}

Error BadKey(const std::string& key) {
  return Error{ErrorCode::kInvalidParams, "blob store: invalid key \"" + key + "\""};
}

// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

class LocalDirBlobStore final : public BlobStore {
 public:
  explicit LocalDirBlobStore(fs::path root) : root_(std::move(root)) {}

  Status Put(const std::string& key, std::string_view bytes) override {
    if (!IsValidBlobKey(key)) return BadKey(key);
    const fs::path target = root_ / key;
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec) return Io("cannot create " + target.parent_path().string(), ec.value());
    // The temporary name is unique per write so concurrent Puts of one key
    // never share a file; the rename makes the last one win whole.
    const fs::path tmp = target.parent_path() / (".tmp-" + Random::Default()->Hex(8));
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return Io("cannot create " + tmp.string(), errno);
    bool ok = WriteAll(fd, bytes) && ::fsync(fd) == 0;
    int err = errno;
    if (::close(fd) != 0 && ok) {
      ok = false;
      err = errno;
    }
    if (!ok || ::rename(tmp.c_str(), target.c_str()) != 0) {
      if (ok) err = errno;
      ::unlink(tmp.c_str());
      return Io("cannot write " + target.string(), err);
    }
    return Status::Ok();
  }

  Result<std::string> Get(const std::string& key) override {
    if (!IsValidBlobKey(key)) return BadKey(key);
    const fs::path path = root_ / key;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT || errno == ENOTDIR) return Error{ErrorCode::kNotFound, "blob not found"};
      return Io("cannot open " + path.string(), errno);
    }
    std::string out;
    char buf[64 * 1024];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int err = errno;
        ::close(fd);
        return Io("cannot read " + path.string(), err);
      }
      if (n == 0) break;
      out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return out;
  }

  Status Delete(const std::string& key) override {
    if (!IsValidBlobKey(key)) return BadKey(key);
    const fs::path path = root_ / key;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT && errno != ENOTDIR)
      return Io("cannot delete " + path.string(), errno);
    return Status::Ok();
  }

  Result<std::int64_t> DeletePrefix(const std::string& prefix) override {
    if (!IsValidBlobKey(prefix)) return BadKey(prefix);
    const fs::path dir = root_ / prefix;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return std::int64_t{0};
    std::int64_t files = 0;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file(ec) && it->path().filename().string().rfind(".tmp-", 0) != 0) ++files;
    if (ec) return Io("cannot list " + dir.string(), ec.value());
    fs::remove_all(dir, ec);
    if (ec) return Io("cannot delete " + dir.string(), ec.value());
    return files;
  }

 private:
  fs::path root_;
};

}  // namespace

Result<std::unique_ptr<BlobStore>> OpenLocalDirBlobStore(const std::string& dir) {
  if (dir.empty()) return Error{ErrorCode::kInvalidParams, "blob store: the directory is empty"};
  std::error_code ec;
  // Uploads are customers' data: a directory made here is the owner's only.
  if (fs::create_directories(dir, ec)) ::chmod(dir.c_str(), 0700);
  if (ec) return Io("cannot create " + dir, ec.value());
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return Io("cannot write to " + dir, errno);
  return std::unique_ptr<BlobStore>(new LocalDirBlobStore(fs::absolute(dir)));
}

}  // namespace livechat
