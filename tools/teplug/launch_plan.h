// How `teplug run` places its ranks: all as threads of this process (the
// default), as N processes this process starts (--launch processes), or this
// process as one rank of several (started by that launcher, by hand with
// --rank on several hosts, or by mpirun, whose environment names the rank).
// Also the thread budget of each rank process, so ranks sharing a machine
// split its cores instead of each taking all of them.
//
// Planning is a pure function of the flags, the environment and the core
// count, so every rule is testable without starting anything.
#ifndef TEPLUG_TOOLS_TEPLUG_LAUNCH_PLAN_H_
#define TEPLUG_TOOLS_TEPLUG_LAUNCH_PLAN_H_

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "tools/teplug/cli_flags.h"
#include "tools/teplug/redis_rendezvous.h"

namespace teplug::cli {

// The variable the cpu provider reads its thread budget from.
inline constexpr char kCpuThreadsVariable[] = "TEPLUG_CPU_THREADS";
// How many ranks share this machine; the launcher sets it for its children,
// and a person starting ranks by hand (--rank) may set it.
inline constexpr char kLocalRanksVariable[] = "TEPLUG_LOCAL_RANKS";

// The launch flags as given.
struct LaunchRequest {
  std::string launch = "threads";  // --launch: threads | processes
  int ranks = 1;                   // --ranks
  bool ranks_set = false;          // whether --ranks was given
  int rank = -1;                   // --rank; -1: not given
  std::string rendezvous;          // --rendezvous; empty: not given
};

enum class LaunchRole {
  kThreads,   // every rank a thread of this process
  kLauncher,  // start world_size processes of this program and wait for them
  kOneRank,   // this process is rank `rank` of world_size
};

struct LaunchPlan {
  LaunchRole role = LaunchRole::kThreads;
  int world_size = 1;
  int rank = -1;            // kOneRank: this process's rank
  std::string rank_source;  // kOneRank: where the rank came from ("--rank", "OMPI_COMM_WORLD_RANK")
  bool started_by_launcher = false;  // kOneRank: a child of `--launch processes`
  // The rendezvous directory (file:DIR); kLauncher: empty means a fresh
  // temporary directory the launcher makes and removes.
  std::string rendezvous_dir;
  // The rendezvous Redis server (redis:HOST:PORT/RUN), for kOneRank only;
  // set instead of rendezvous_dir.
  std::optional<RedisAddress> redis;
  int local_ranks = 1;  // ranks sharing this machine
  int cores = 1;        // CPUs this process may use
  // An MPI launcher bound this rank to fewer CPUs than the machine has: they
  // are the rank's own, so the budget is all of them, not a share.
  bool bound_by_mpi = false;
  // TEPLUG_CPU_THREADS for each rank process: the user's value when set
  // (cpu_threads_text, as given), else cores / local ranks (at least 1), or
  // the bound cores;
  // kThreads sets none (0) unless the user did.
  int cpu_threads = 0;
  std::string cpu_threads_text;
  bool cpu_threads_from_user = false;
};

// Reads one environment variable (NULL when unset); tests pass a map.
using EnvironmentLookup = std::function<const char*(const char* name)>;

// The process's own environment.
EnvironmentLookup ProcessEnvironment();

// The CPUs this process may run on (its affinity mask) and the machine's
// online CPUs, each at least 1.
struct CoreCount {
  int usable = 1;
  int online = 1;
};
CoreCount CoresAvailable();

// Declares --launch, --rank and --rendezvous on `flags` (--ranks is the
// run command's own).
void AddLaunchFlags(FlagSet* flags);
// The request from parsed flags (--launch, --ranks, --rank, --rendezvous).
LaunchRequest LaunchRequestFromFlags(const FlagSet& flags);

// The plan, or InvalidArgument naming the flag or variable that is wrong
// (or Unimplemented for a rendezvous form this build cannot offer).
absl::StatusOr<LaunchPlan> PlanLaunch(const LaunchRequest& request, const EnvironmentLookup& env,
                                      CoreCount cores);

// One line for the run header, e.g. "2 ranks (processes, rendezvous
// file:/tmp/x), rank 1 here (--rank); TEPLUG_CPU_THREADS=1 per rank
// process (2 cores / 2 ranks on this machine)".
std::string DescribeLaunch(const LaunchPlan& plan);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_LAUNCH_PLAN_H_
