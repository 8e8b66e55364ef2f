// This process's share of `teplug run`'s ranks, set up before the kernel
// loads its providers: with ranks as threads, a RankGroup of all of them;
// as one rank of several processes, the thread budget exported
// (TEPLUG_CPU_THREADS, read by the cpu provider when it loads), the
// rendezvous opened (a directory: stdout of a rank other than 0 sent to
// DIR/rank-R.log, rank 0 prints the table; a Redis server: every rank
// prints its own), and a RankGroup of this rank.
// A rank that fails here, or ends before running, tells the others through
// the rendezvous.
#ifndef TEPLUG_TOOLS_TEPLUG_LAUNCH_RANK_H_
#define TEPLUG_TOOLS_TEPLUG_LAUNCH_RANK_H_

#include <memory>

#include "absl/status/statusor.h"
#include "tools/teplug/rendezvous.h"
#include "tools/teplug/launch_plan.h"
#include "tools/teplug/rank_group.h"

namespace teplug::cli {

class LocalRanks {
 public:
  // `plan` has role kThreads or kOneRank.
  static absl::StatusOr<std::unique_ptr<LocalRanks>> Enter(const LaunchPlan& plan);
  RankGroup& group() { return *group_; }
  // A rank process that ends without running its part of the job (an error
  // before the first op) posts that to the rendezvous, so the other ranks
  // stop waiting for it.
  ~LocalRanks();

 private:
  LocalRanks() = default;
  std::unique_ptr<Rendezvous> rendezvous_;  // null for threads
  std::unique_ptr<RankGroup> group_;
};

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_LAUNCH_RANK_H_
