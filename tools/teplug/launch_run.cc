#include "tools/teplug/launch_run.h"

#include <dirent.h>
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/log/untrusted_text.h"
#include "tools/teplug/commands.h"
#include "tools/teplug/launch_processes.h"

namespace teplug::cli {
namespace {

using core::EscapeUntrustedText;

// Lines of a failed rank's log shown.
constexpr size_t kLogTailLines = 30;

// A fresh directory under $TMPDIR (or /tmp).
absl::StatusOr<std::string> MakeTemporaryDirectory() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat(base != nullptr && *base != '\0' ? base : "/tmp", "/teplug-run-XXXXXX");
  if (::mkdtemp(pattern.data()) == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot make a rendezvous directory ", pattern, ": ", std::strerror(errno)));
  }
  return pattern;
}

// Removes the files of a directory this launcher made, then the directory.
void RemoveDirectory(const std::string& dir) {
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") ::unlink(absl::StrCat(dir, "/", name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(dir.c_str());
}

std::string LogTail(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "  (no log)\n";
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(std::move(line));
    if (lines.size() > kLogTailLines) lines.erase(lines.begin());
  }
  std::string out;
  for (const std::string& l : lines) absl::StrAppend(&out, "  ", EscapeUntrustedText(l), "\n");
  return out;
}

}  // namespace

std::string RankLogPath(const std::string& rendezvous_dir, int rank) {
  return absl::StrCat(rendezvous_dir, "/rank-", rank, ".log");
}

int LaunchRunProcesses(const LaunchPlan& plan, const std::vector<std::string>& run_args,
                       std::chrono::milliseconds grace) {
  const bool temporary = plan.rendezvous_dir.empty();
  std::string dir = plan.rendezvous_dir;
  if (temporary) {
    absl::StatusOr<std::string> made = MakeTemporaryDirectory();
    if (!made.ok()) {
      std::cerr << "error: teplug run --launch processes: " << made.status().message() << "\n";
      return kExitNo;
    }
    dir = *made;
  }
  char exe[PATH_MAX + 1] = {0};
  const ssize_t n = ::readlink("/proc/self/exe", exe, PATH_MAX);
  if (n <= 0) {
    std::cerr << "error: teplug run --launch processes: cannot find this program "
                 "(/proc/self/exe): "
              << std::strerror(errno) << "\n";
    if (temporary) RemoveDirectory(dir);
    return kExitNo;
  }
  RankProcessesSpec spec;
  spec.ranks = plan.world_size;
  spec.program = std::string(exe, static_cast<size_t>(n));
  spec.argv = [&](int rank) {
    std::vector<std::string> argv = {spec.program, "run"};
    argv.insert(argv.end(), run_args.begin(), run_args.end());
    argv.insert(argv.end(), {"--rank", absl::StrCat(rank)});
    if (temporary) argv.insert(argv.end(), {"--rendezvous", absl::StrCat("file:", dir)});
    return argv;
  };
  spec.environment = {absl::StrCat(kLocalRanksVariable, "=", plan.world_size)};
  spec.rendezvous_dir = dir;
  spec.grace = grace;
  std::cout << std::flush;
  absl::StatusOr<std::vector<RankExit>> exits = RunRankProcesses(spec);
  if (!exits.ok()) {
    std::cerr << "error: teplug run --launch processes: " << exits.status().message() << "\n";
    if (temporary) RemoveDirectory(dir);
    return kExitNo;
  }
  std::vector<std::string> summary;
  int status = kExitOk;
  for (const RankExit& e : *exits) {
    summary.push_back(absl::StrCat("rank ", e.rank, " ", DescribeRankExit(e, grace)));
    if (!e.ok() && status == kExitOk) {
      status = e.exited && (e.status == kExitNo || e.status == kExitUsage) ? e.status : kExitNo;
    }
  }
  std::cout << "\nrank processes: " << absl::StrJoin(summary, ", ") << "\n";
  for (const RankExit& e : *exits) {
    if (e.ok() || e.rank == 0) continue;  // rank 0's report is above
    std::cout << "rank " << e.rank << " failed (" << DescribeRankExit(e, grace)
              << "); the end of its report (" << EscapeUntrustedText(RankLogPath(dir, e.rank))
              << "):\n"
              << LogTail(RankLogPath(dir, e.rank));
  }
  if (temporary) RemoveDirectory(dir);
  return status;
}

}  // namespace teplug::cli
