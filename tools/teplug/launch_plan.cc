#include "tools/teplug/launch_plan.h"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/log/untrusted_text.h"

namespace teplug::cli {
namespace {

using core::EscapeUntrustedText;

// Where an MPI launcher puts the rank, the world size and the ranks on this
// machine: OpenMPI's mpirun, then the PMI names MPICH and Slurm use.
struct MpiVariables {
  const char* rank;
  const char* size;
  const char* local_size;
};
constexpr MpiVariables kMpiVariables[] = {
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {"PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"},
};

// A positive (or non-negative) integer from an environment variable, or an
// error naming the variable and its value.
absl::StatusOr<int> ReadIntVariable(const EnvironmentLookup& env, const char* name, int min) {
  const char* value = env(name);
  int parsed = 0;
  if (value == nullptr || !absl::SimpleAtoi(value, &parsed) || parsed < min || parsed > 1 << 20) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s=\"%s\" is not an integer >= %d", name,
        value == nullptr ? "" : EscapeUntrustedText(value), min));
  }
  return parsed;
}

bool IsSet(const EnvironmentLookup& env, const char* name) {
  const char* v = env(name);
  return v != nullptr && *v != '\0';
}

// Reads a --rendezvous value into the plan: a directory or a Redis server.
absl::Status ReadRendezvous(const std::string& spec, LaunchPlan* plan) {
  if (absl::StartsWith(spec, "file:")) {
    plan->rendezvous_dir = spec.substr(5);
    if (plan->rendezvous_dir.empty()) {
      return absl::InvalidArgumentError(
          "--rendezvous file: names no directory; give file:DIR, a directory every rank can see");
    }
    return absl::OkStatus();
  }
  if (absl::StartsWith(spec, "redis:")) {
    absl::StatusOr<RedisAddress> address = ParseRedisAddress(spec.substr(6));
    if (!address.ok()) return address.status();
    plan->redis = *address;
    return absl::OkStatus();
  }
  if (absl::StartsWith(spec, "tcp:")) {
    return absl::UnimplementedError(absl::StrCat(
        "--rendezvous ", EscapeUntrustedText(spec),
        ": no TCP store: Debian's Gloo offers FileStore, HashStore (in one process), "
        "PrefixStore and RedisStore; meet on a Redis server (redis:HOST:PORT/RUN) or in a "
        "directory every host can see (file:DIR on NFS or another shared file system)"));
  }
  return absl::InvalidArgumentError(absl::StrCat("--rendezvous \"", EscapeUntrustedText(spec),
                                                 "\": expected file:DIR or redis:HOST:PORT/RUN"));
}

bool HasRendezvous(const LaunchPlan& plan) {
  return !plan.rendezvous_dir.empty() || plan.redis.has_value();
}

// Fills in the thread budget of a rank process.
void PlanThreads(const EnvironmentLookup& env, LaunchPlan* plan) {
  if (IsSet(env, kCpuThreadsVariable)) {
    plan->cpu_threads_from_user = true;
    plan->cpu_threads_text = env(kCpuThreadsVariable);
    absl::SimpleAtoi(plan->cpu_threads_text, &plan->cpu_threads);  // the provider validates it
    return;
  }
  if (plan->role == LaunchRole::kThreads) return;  // one process: no budget unless asked
  plan->cpu_threads =
      plan->bound_by_mpi ? plan->cores : std::max(1, plan->cores / std::max(1, plan->local_ranks));
  plan->cpu_threads_text = absl::StrCat(plan->cpu_threads);
}

}  // namespace

EnvironmentLookup ProcessEnvironment() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

CoreCount CoresAvailable() {
  CoreCount count;
  count.online = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  cpu_set_t set;
  CPU_ZERO(&set);
  count.usable = sched_getaffinity(0, sizeof(set), &set) == 0 ? std::max(1, CPU_COUNT(&set))
                                                               : count.online;
  return count;
}

void AddLaunchFlags(FlagSet* flags) {
  flags->AddString("launch", "threads|processes",
                   "ranks as threads of this process, or as --ranks processes it starts",
                   "threads", {"threads", "processes"});
  flags->AddInt("rank", "this process's rank, for ranks started by hand (needs --rendezvous)",
                -1, 0, 1 << 20);
  flags->SetDefaultText("rank", "none");
  flags->AddString("rendezvous", "file:DIR|redis:HOST:PORT/RUN",
                   "where rank processes meet: a directory every rank can see, or a Redis "
                   "server they can reach (RUN: a name new for every run)",
                   "");
}

LaunchRequest LaunchRequestFromFlags(const FlagSet& flags) {
  LaunchRequest r;
  r.launch = flags.GetString("launch");
  r.ranks = static_cast<int>(flags.GetInt("ranks"));
  r.ranks_set = flags.IsSet("ranks");
  r.rank = flags.IsSet("rank") ? static_cast<int>(flags.GetInt("rank")) : -1;
  r.rendezvous = flags.GetString("rendezvous");
  return r;
}

absl::StatusOr<LaunchPlan> PlanLaunch(const LaunchRequest& request, const EnvironmentLookup& env,
                                      CoreCount cores) {
  LaunchPlan plan;
  plan.cores = std::max(1, cores.usable);
  plan.world_size = request.ranks;
  if (!request.rendezvous.empty()) {
    if (absl::Status s = ReadRendezvous(request.rendezvous, &plan); !s.ok()) return s;
  }
  const MpiVariables* mpi = nullptr;
  for (const MpiVariables& v : kMpiVariables) {
    if (IsSet(env, v.rank) || IsSet(env, v.size)) {
      mpi = &v;
      break;
    }
  }
  if (mpi != nullptr) {
    // Under mpirun: one rank per process, named by the environment.
    absl::StatusOr<int> rank = ReadIntVariable(env, mpi->rank, 0);
    if (!rank.ok()) return rank.status();
    absl::StatusOr<int> size = ReadIntVariable(env, mpi->size, 1);
    if (!size.ok()) return size.status();
    const std::string where =
        absl::StrFormat("under an MPI launcher (%s=%d, %s=%d)", mpi->rank, *rank, mpi->size, *size);
    if (*rank >= *size) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": the rank is not below the world size"));
    }
    if (request.launch == "processes") {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": --launch processes would start ranks inside a rank; the MPI launcher already "
                 "started them, drop --launch"));
    }
    if (request.rank >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": --rank ", request.rank, " conflicts with ", mpi->rank,
                       "; drop --rank"));
    }
    if (request.ranks_set && request.ranks != *size) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": --ranks ", request.ranks,
                                                     " differs from ", mpi->size, "=", *size));
    }
    if (!HasRendezvous(plan)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": --rendezvous file:DIR is required so the ranks can meet (a directory "
                 "every rank can see), or redis:HOST:PORT/RUN (a Redis server they can reach)"));
    }
    plan.role = LaunchRole::kOneRank;
    plan.rank = *rank;
    plan.rank_source = mpi->rank;
    plan.world_size = *size;
    plan.local_ranks = *size;  // unknown placement: assume every rank is on this machine
    plan.bound_by_mpi = cores.usable < cores.online;
    if (IsSet(env, mpi->local_size)) {
      absl::StatusOr<int> local = ReadIntVariable(env, mpi->local_size, 1);
      if (!local.ok()) return local.status();
      plan.local_ranks = *local;
    }
  } else if (request.rank >= 0) {
    // Started by the launcher, or by hand (one command per host).
    if (request.rank >= request.ranks) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "--rank %d is not below --ranks %d", request.rank, request.ranks));
    }
    if (!HasRendezvous(plan)) {
      return absl::InvalidArgumentError(
          "--rank needs --rendezvous file:DIR, a directory every rank can see, or "
          "redis:HOST:PORT/RUN, a Redis server they can reach, so the ranks can meet");
    }
    plan.role = LaunchRole::kOneRank;
    plan.rank = request.rank;
    plan.rank_source = "--rank";
    plan.started_by_launcher = request.launch == "processes";
    plan.local_ranks = 1;
    if (IsSet(env, kLocalRanksVariable)) {
      absl::StatusOr<int> local = ReadIntVariable(env, kLocalRanksVariable, 1);
      if (!local.ok()) return local.status();
      plan.local_ranks = *local;
    }
  } else if (request.launch == "processes") {
    if (plan.redis.has_value()) {
      return absl::InvalidArgumentError(
          "--launch processes starts its ranks on this machine and meets them in a directory "
          "(file:DIR, or a temporary one); redis:HOST:PORT/RUN is for ranks started one per host "
          "with --rank R, or by mpirun");
    }
    plan.role = LaunchRole::kLauncher;
    plan.local_ranks = request.ranks;
  } else {
    if (HasRendezvous(plan)) {
      return absl::InvalidArgumentError(
          "--rendezvous is where rank processes meet; with ranks as threads (the default) there "
          "is nothing to meet: add --launch processes, or --rank R for ranks started by hand, or "
          "run under mpirun");
    }
    plan.role = LaunchRole::kThreads;
    plan.local_ranks = request.ranks;
  }
  PlanThreads(env, &plan);
  return plan;
}

std::string DescribeLaunch(const LaunchPlan& plan) {
  std::string line = absl::StrFormat("%d rank%s", plan.world_size, plan.world_size == 1 ? "" : "s");
  switch (plan.role) {
    case LaunchRole::kThreads:
      absl::StrAppend(&line, " (threads of this process)");
      break;
    case LaunchRole::kLauncher:
      absl::StrAppend(&line, " (processes)");
      break;
    case LaunchRole::kOneRank:
      absl::StrAppendFormat(&line, " (processes, rendezvous %s), rank %d here (%s)",
                            EscapeUntrustedText(
                                plan.redis.has_value()
                                    ? absl::StrCat("redis:", plan.redis->host, ":",
                                                   plan.redis->port, "/", plan.redis->run)
                                    : absl::StrCat("file:", plan.rendezvous_dir)),
                            plan.rank,
                            plan.started_by_launcher ? "started by --launch processes"
                                                     : plan.rank_source);
      break;
  }
  if (plan.cpu_threads_from_user) {
    absl::StrAppendFormat(&line, "; %s=%s (set by the user)", kCpuThreadsVariable,
                          EscapeUntrustedText(plan.cpu_threads_text));
  } else if (plan.bound_by_mpi) {
    absl::StrAppendFormat(&line, "; %s=%d per rank process (the %d core%s the MPI launcher bound "
                          "this rank to)",
                          kCpuThreadsVariable, plan.cpu_threads, plan.cores,
                          plan.cores == 1 ? "" : "s");
  } else if (plan.cpu_threads > 0) {
    absl::StrAppendFormat(&line, "; %s=%d per rank process (%d core%s / %d rank%s on this machine)",
                          kCpuThreadsVariable, plan.cpu_threads, plan.cores,
                          plan.cores == 1 ? "" : "s", plan.local_ranks,
                          plan.local_ranks == 1 ? "" : "s");
  } else {
    absl::StrAppendFormat(&line, "; %s unset: the cpu provider's ops use every core (%d)",
                          kCpuThreadsVariable, plan.cores);
  }
  return line;
}

}  // namespace teplug::cli
