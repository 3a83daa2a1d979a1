// Real processes for the end-to-end suite: the host binaries started with
// posix_spawn, stdout read line by line, stderr kept in a file. A child still
// running when its handle dies is killed, so a failing test leaves nothing
// behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace e2e {

// A directory removed with everything in it at scope end.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string File(std::string_view name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Path of a host binary built next to the tests (LIVECHAT_BINARY_DIR/hosts/NAME),
// or in $LIVECHAT_TEST_HOSTS_DIR when it is set.
std::string HostBinary(std::string_view name);

class ChildProcess {
 public:
  // argv[0] is the executable path. stderr goes to `stderrPath`.
  ChildProcess(const std::vector<std::string>& argv, const std::string& stderrPath);
  ~ChildProcess();  // SIGKILL + reap if still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool started() const { return pid_ > 0; }
  // Reads stdout until a line starting with `prefix` arrives (returned whole)
  // or the deadline passes / stdout closes (empty optional).
  std::optional<std::string> WaitForLine(std::string_view prefix, std::chrono::milliseconds timeout);
  // Reads stdout until it closes (the child and its children exited) or the
  // deadline; a last line without a newline is kept too.
  void ReadToEnd(std::chrono::milliseconds timeout);
  // Every stdout line read so far.
  const std::vector<std::string>& lines() const { return lines_; }
  void Signal(int sig);
  // The exit status (or 128 + signal number), or empty optional at the deadline.
  std::optional<int> WaitExit(std::chrono::milliseconds timeout);

 private:
  bool ReadSome(int timeoutMillis);

  pid_t pid_ = -1;
  int stdoutFd_ = -1;
  std::string pending_;
  std::vector<std::string> lines_;
  std::optional<int> exit_;
};

struct RunResult {
  int exitCode = -1;
  std::string out;
  std::string err;
};

// Runs to completion (killed after `timeout`, exit code -1).
RunResult Run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout = std::chrono::seconds(60));

}  // namespace e2e
