// `teplug run --launch processes`: starts --ranks processes of this program,
// each running one rank of the job (the same arguments plus --rank R and,
// unless given, --rendezvous file:DIR in a fresh temporary directory), and
// reports how each ended. Rank 0 prints the run table to this stdout; the
// others write theirs to DIR/rank-R.log, whose end is shown for a rank that
// failed.
#ifndef TEPLUG_TOOLS_TEPLUG_LAUNCH_RUN_H_
#define TEPLUG_TOOLS_TEPLUG_LAUNCH_RUN_H_

#include <chrono>
#include <string>
#include <vector>

#include "tools/teplug/launch_plan.h"

namespace teplug::cli {

// The log a rank other than 0 writes its report to.
std::string RankLogPath(const std::string& rendezvous_dir, int rank);

// Runs the ranks of `plan` (role kLauncher); `run_args` are the arguments
// `teplug run` got. Returns the exit status: 0 when every rank exited 0,
// else the first failed rank's status when it is 1 or 2, else 1.
int LaunchRunProcesses(const LaunchPlan& plan, const std::vector<std::string>& run_args,
                       std::chrono::milliseconds grace = std::chrono::seconds(10));

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_LAUNCH_RUN_H_
