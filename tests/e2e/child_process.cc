#include "e2e/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

extern char** environ;

namespace e2e {
namespace {

using Clock = std::chrono::steady_clock;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int DecodeStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

TempDir::TempDir() {
  std::string base = (std::filesystem::temp_directory_path() / "livechat-e2e-XXXXXX").string();
  if (::mkdtemp(base.data()) == nullptr) throw std::system_error(errno, std::generic_category(), "mkdtemp");
  path_ = base;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string HostBinary(std::string_view name) {
  // LIVECHAT_TEST_HOSTS_DIR points the suite at another tree's hosts: the
  // ThreadSanitizer stage runs its transport cases against a TSan livechatd
  // from a test binary it did not have to build (scripts/test-sanitizers.sh).
  if (const char* dir = std::getenv("LIVECHAT_TEST_HOSTS_DIR"); dir != nullptr && *dir != '\0') {
    return std::string(dir) + "/" + std::string(name);
  }
  return std::string(LIVECHAT_BINARY_DIR) + "/hosts/" + std::string(name);
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& stderrPath) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return;
  }
  pid_ = pid;
  stdoutFd_ = fds[0];
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exit_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  if (stdoutFd_ >= 0) ::close(stdoutFd_);
}

bool ChildProcess::ReadSome(int timeoutMillis) {
  if (stdoutFd_ < 0) return false;
  pollfd p{stdoutFd_, POLLIN, 0};
  int n = ::poll(&p, 1, timeoutMillis);
  if (n <= 0) return n == 0;  // timeout: still open
  char buf[4096];
  ssize_t got = ::read(stdoutFd_, buf, sizeof buf);
  if (got <= 0) {
    ::close(stdoutFd_);
    stdoutFd_ = -1;
    return false;
  }
  pending_.append(buf, static_cast<std::size_t>(got));
  std::size_t nl;
  while ((nl = pending_.find('\n')) != std::string::npos) {
    lines_.push_back(pending_.substr(0, nl));
    pending_.erase(0, nl + 1);
  }
  return true;
}

std::optional<std::string> ChildProcess::WaitForLine(std::string_view prefix, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  std::size_t seen = 0;
  while (true) {
    for (; seen < lines_.size(); ++seen)
      if (lines_[seen].rfind(prefix, 0) == 0) return lines_[seen];
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return std::nullopt;
    if (!ReadSome(static_cast<int>(std::min<long long>(left, 100))) && stdoutFd_ < 0) {
      for (; seen < lines_.size(); ++seen)
        if (lines_[seen].rfind(prefix, 0) == 0) return lines_[seen];
      return std::nullopt;
    }
  }
}

void ChildProcess::ReadToEnd(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (stdoutFd_ >= 0 && Clock::now() < deadline) ReadSome(50);
  if (!pending_.empty()) {
    lines_.push_back(pending_);
    pending_.clear();
  }
}

void ChildProcess::Signal(int sig) {
  if (pid_ > 0 && !exit_) ::kill(pid_, sig);
}

std::optional<int> ChildProcess::WaitExit(std::chrono::milliseconds timeout) {
  if (exit_) return exit_;
  if (pid_ <= 0) return std::nullopt;
  auto deadline = Clock::now() + timeout;
  while (true) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_ = DecodeStatus(status);
      return exit_;
    }
    if (Clock::now() >= deadline) return std::nullopt;
    // Keep draining stdout so a chatty child never blocks on a full pipe.
    if (stdoutFd_ >= 0) {
      ReadSome(20);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
}

RunResult Run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  TempDir dir;
  std::string errPath = dir.File("stderr");
  RunResult r;
  {
    ChildProcess child(argv, errPath);
    if (!child.started()) {
      r.err = "cannot start " + argv.front();
      return r;
    }
    auto code = child.WaitExit(timeout);
    child.ReadToEnd(std::chrono::seconds(5));
    for (const auto& line : child.lines()) r.out += line + "\n";
    r.exitCode = code.value_or(-1);
  }
  r.err = Slurp(errPath);
  return r;
}

}  // namespace e2e
