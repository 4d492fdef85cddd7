// Subprocesses via fork + exec; stdout and stderr go to temporary files so neither pipe can fill
// up and deadlock the child. Between fork and exec the child only makes async-signal-safe calls
// (the parent may have other threads): its own process group, PR_SET_PDEATHSIG, rlimits, dup2.
#include "base/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace kernsim {
namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double env_number(const char* name, double fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const double x = std::strtod(v, &end);
  return (end && *end == 0 && std::isfinite(x) && x >= 0) ? x : fallback;
}

// The executable's path, resolved in the parent (execvp's PATH search is not async-signal-safe).
std::string resolve(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  if (auto p = find_program({name})) return p->string();
  return name;
}

// Waits for `pid` to end, at most `limit_s` seconds of wall time (0: no limit); false when the
// limit ran out, after killing the child's process group and reaping it. The wait is a poll() on
// a pidfd, which wakes the moment the child exits (a sleep-and-retry loop added up to 50 ms to
// every tool run, a fifth of an uncached compile); kernels without pidfd_open (before 5.3) fall
// back to that loop.
bool wait_for_child(pid_t pid, int& status, double limit_s) {
  const auto start = std::chrono::steady_clock::now();
  auto left_ms = [&]() -> int {
    if (limit_s <= 0) return -1;
    const double left = limit_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return left <= 0 ? 0 : static_cast<int>(std::min(left * 1000.0 + 1.0, 3600e3));
  };
  auto kill_and_reap = [&] {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return false;
  };
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) {
    int n = -1;
    do {
      struct pollfd p{pidfd, POLLIN, 0};
      const int timeout = left_ms();
      n = timeout == 0 ? 0 : poll(&p, 1, timeout);
    } while (n < 0 && errno == EINTR);
    close(pidfd);
    if (n == 0) return kill_and_reap();
    if (n > 0) {
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return true;
    }
  }
  auto wait_ms = std::chrono::milliseconds(1);
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) return true;
    if (left_ms() == 0) return kill_and_reap();
    std::this_thread::sleep_for(wait_ms);
    wait_ms = std::min(wait_ms * 2, std::chrono::milliseconds(50));
  }
}
}  // namespace

ProcessLimits ProcessLimits::defaults() {
  ProcessLimits l;
  l.wall_time_s = env_number("KERNSIM_CHILD_TIME_LIMIT_S", l.wall_time_s);
  l.memory_bytes =
      static_cast<std::uint64_t>(env_number("KERNSIM_CHILD_MEMORY_MB", static_cast<double>(l.memory_bytes >> 20)))
      << 20;
  return l;
}

ProcessResult run_process(const std::vector<std::string>& argv) {
  return run_process(argv, ProcessLimits::defaults());
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessLimits& limits) {
  ProcessResult r;
  if (argv.empty()) return r;
  char out_tmpl[] = "/tmp/kernsim_out_XXXXXX";
  char err_tmpl[] = "/tmp/kernsim_err_XXXXXX";
  int out_fd = mkstemp(out_tmpl), err_fd = mkstemp(err_tmpl);
  if (out_fd < 0 || err_fd < 0) {
    r.err = std::string("cannot create temporary files: ") + std::strerror(errno);
    if (out_fd >= 0) close(out_fd), unlink(out_tmpl);
    if (err_fd >= 0) close(err_fd), unlink(err_tmpl);
    return r;
  }
  const std::string exe = resolve(argv[0]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  int exec_err[2];  // the child writes errno here when exec fails; close-on-exec otherwise
  if (pipe2(exec_err, O_CLOEXEC) != 0) {
    r.err = std::string("cannot create a pipe: ") + std::strerror(errno);
    close(out_fd), close(err_fd), unlink(out_tmpl), unlink(err_tmpl);
    return r;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // its own group: the time limit kills the tool and whatever it started
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before the line above
    if (limits.wall_time_s > 0) {
      const rlim_t cpu = static_cast<rlim_t>(std::ceil(limits.wall_time_s));
      struct rlimit rl{cpu, cpu + 1};
      setrlimit(RLIMIT_CPU, &rl);
    }
    if (limits.memory_bytes > 0) {
      struct rlimit rl{static_cast<rlim_t>(limits.memory_bytes), static_cast<rlim_t>(limits.memory_bytes)};
      setrlimit(RLIMIT_AS, &rl);
    }
    struct rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    execv(exe.c_str(), args.data());
    int e = errno;
    if (write(exec_err[1], &e, sizeof e) < 0) {
    }
    _exit(127);
  }
  close(exec_err[1]);
  close(out_fd);
  close(err_fd);
  if (pid < 0) {
    r.err = "cannot run " + argv[0] + ": " + std::strerror(errno);
    close(exec_err[0]), unlink(out_tmpl), unlink(err_tmpl);
    return r;
  }
  int child_errno = 0;
  const bool exec_failed =
      read(exec_err[0], &child_errno, sizeof child_errno) == static_cast<ssize_t>(sizeof child_errno);
  close(exec_err[0]);
  int status = 0;
  r.timed_out = !wait_for_child(pid, status, limits.wall_time_s);
  kill(-pid, SIGKILL);  // anything the tool left running in its group
  if (exec_failed) {
    r.err = "cannot run " + argv[0] + ": " + std::strerror(child_errno);
    unlink(out_tmpl), unlink(err_tmpl);
    return r;
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_tmpl);
  r.err = slurp(err_tmpl);
  unlink(out_tmpl);
  unlink(err_tmpl);
  char limit_text[160];
  if (r.timed_out) {
    std::snprintf(limit_text, sizeof limit_text,
                  "\n%s was stopped after %g s (the child wall-time limit, KERNSIM_CHILD_TIME_LIMIT_S)\n",
                  argv[0].c_str(), limits.wall_time_s);
    r.err += limit_text;
  } else if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL)) {
    std::snprintf(limit_text, sizeof limit_text,
                  "\n%s was killed by signal %d (CPU-time limit %g s, KERNSIM_CHILD_TIME_LIMIT_S)\n", argv[0].c_str(),
                  WTERMSIG(status), limits.wall_time_s);
    r.err += limit_text;
  }
  return r;
}

std::optional<fs::path> find_program(const std::vector<std::string>& candidates) {
  for (const auto& c : candidates) {
    if (c.empty()) continue;
    if (c.find('/') != std::string::npos) {
      if (access(c.c_str(), X_OK) == 0) return fs::path(c);
      continue;
    }
    const char* path = std::getenv("PATH");
    std::stringstream ss(path ? path : "/usr/bin:/bin");
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      fs::path p = fs::path(dir) / c;
      if (access(p.c_str(), X_OK) == 0) return p;
    }
  }
  return std::nullopt;
}

}  // namespace kernsim
