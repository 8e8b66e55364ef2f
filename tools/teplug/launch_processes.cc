#include "tools/teplug/launch_processes.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/teplug/file_rendezvous.h"

extern char** environ;

namespace teplug::cli {
namespace {

// The child's environment: the launcher's, with spec entries replacing
// variables of the same name.
std::vector<std::string> ChildEnvironment(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& o : overrides) replaced |= o.substr(0, o.find('=')) == name;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Starts one child; its pid, or an error.
absl::StatusOr<pid_t> Spawn(const std::string& program, std::vector<std::string> argv,
                            std::vector<std::string> env) {
  // Everything the child needs is built before fork: between fork and exec
  // only async-signal-safe calls.
  std::vector<char*> c_argv = CStrings(argv);
  std::vector<char*> c_env = CStrings(env);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    return absl::UnavailableError(absl::StrCat("cannot fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the launcher died before prctl
    ::execve(program.c_str(), c_argv.data(), c_env.data());
    static const char msg[] = "teplug: exec of the rank process failed\n";
    (void)!::write(2, msg, sizeof(msg) - 1);
    ::_exit(127);
  }
  return pid;
}

void Record(int wait_status, RankExit* exit) {
  if (WIFEXITED(wait_status)) {
    exit->exited = true;
    exit->status = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    exit->signal = WTERMSIG(wait_status);
  }
}

}  // namespace

absl::StatusOr<std::vector<RankExit>> RunRankProcesses(const RankProcessesSpec& spec) {
  const std::vector<std::string> env = ChildEnvironment(spec.environment);
  std::vector<pid_t> pids;
  std::vector<RankExit> exits(static_cast<size_t>(spec.ranks));
  for (int r = 0; r < spec.ranks; ++r) {
    exits[static_cast<size_t>(r)].rank = r;
    absl::StatusOr<pid_t> pid = Spawn(spec.program, spec.argv(r), env);
    if (!pid.ok()) {
      for (pid_t p : pids) {
        ::kill(p, SIGKILL);
        ::waitpid(p, nullptr, 0);
      }
      return absl::Status(pid.status().code(), absl::StrCat("rank ", r, ": ", pid.status().message()));
    }
    pids.push_back(*pid);
  }
  std::vector<bool> done(pids.size(), false);
  size_t remaining = pids.size();
  int failed_first = -1;
  std::chrono::steady_clock::time_point kill_at;
  while (remaining > 0) {
    bool reaped = false;
    for (size_t r = 0; r < pids.size(); ++r) {
      if (done[r]) continue;
      int wait_status = 0;
      const pid_t got = ::waitpid(pids[r], &wait_status, WNOHANG);
      if (got == 0 || (got < 0 && errno == EINTR)) continue;
      done[r] = true;
      --remaining;
      reaped = true;
      if (got > 0) Record(wait_status, &exits[r]);
      if (!exits[r].ok() && failed_first < 0) {
        failed_first = static_cast<int>(r);
        kill_at = std::chrono::steady_clock::now() + spec.grace;
        if (!spec.rendezvous_dir.empty()) {
          // Kept only when the rank did not post its own (more telling) note.
          PostAbortNote(spec.rendezvous_dir,
                        absl::StrCat("rank ", r, " ended: ", DescribeRankExit(exits[r], spec.grace)));
        }
      }
    }
    if (remaining > 0 && failed_first >= 0 && std::chrono::steady_clock::now() >= kill_at) {
      for (size_t r = 0; r < pids.size(); ++r) {
        if (done[r]) continue;
        ::kill(pids[r], SIGKILL);
        int wait_status = 0;
        ::waitpid(pids[r], &wait_status, 0);
        Record(wait_status, &exits[r]);
        exits[r].killed_by_launcher = true;
        exits[r].failed_first = failed_first;
        done[r] = true;
        --remaining;
      }
    }
    if (!reaped && remaining > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return exits;
}

std::string DescribeRankExit(const RankExit& exit, std::chrono::milliseconds grace) {
  if (exit.killed_by_launcher) {
    return absl::StrFormat("killed by the launcher: still running %.1f s after rank %d failed",
                           grace.count() / 1000.0, exit.failed_first);
  }
  if (exit.exited) return absl::StrCat("exit status ", exit.status);
  return absl::StrFormat("killed by signal %d (%s)", exit.signal, strsignal(exit.signal));
}

}  // namespace teplug::cli
