// Starts one process per rank (fork and exec), waits for all of them and
// reports how each ended. When a rank fails, the others get a grace period to
// stop on their own (a note in the rendezvous directory tells waiting ranks),
// then are killed, so one failing rank never leaves the launch hanging. The
// children die with the launcher (PR_SET_PDEATHSIG).
#ifndef TEPLUG_TOOLS_TEPLUG_LAUNCH_PROCESSES_H_
#define TEPLUG_TOOLS_TEPLUG_LAUNCH_PROCESSES_H_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace teplug::cli {

struct RankProcessesSpec {
  int ranks = 1;
  std::string program;  // absolute path
  // The argument vector of rank r, argv[0] included.
  std::function<std::vector<std::string>(int rank)> argv;
  // NAME=VALUE entries set in every child's environment (replacing the
  // launcher's value of NAME); the rest of the environment is inherited.
  std::vector<std::string> environment;
  // Where ranks meet, for the abort note when a rank fails without posting
  // one itself (it crashed); empty: no note.
  std::string rendezvous_dir;
  // How long the other ranks may run on after one failed before they are
  // killed.
  std::chrono::milliseconds grace{10000};
};

// How one rank's process ended.
struct RankExit {
  int rank = 0;
  bool exited = false;  // exited normally with `status`
  int status = 0;
  int signal = 0;                     // killed by this signal (when !exited)
  bool killed_by_launcher = false;    // still running at the end of the grace period
  int failed_first = -1;              // killed_by_launcher: the rank whose failure started it
  bool ok() const { return exited && status == 0; }
};

// Starts the ranks and waits for all of them; the exits in rank order.
// Fails only when a process cannot be started (then those started are
// killed and reaped).
absl::StatusOr<std::vector<RankExit>> RunRankProcesses(const RankProcessesSpec& spec);

// "exit status 3", "killed by signal 11 (Segmentation fault)", or "killed by
// the launcher: still running 10 s after rank 1 failed".
std::string DescribeRankExit(const RankExit& exit, std::chrono::milliseconds grace);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_LAUNCH_PROCESSES_H_
