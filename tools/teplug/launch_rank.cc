#include "tools/teplug/launch_rank.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "core/log/untrusted_text.h"
#include "tools/teplug/file_rendezvous.h"
#include "tools/teplug/launch_run.h"
#include "tools/teplug/redis_rendezvous.h"

namespace teplug::cli {

absl::StatusOr<std::unique_ptr<LocalRanks>> LocalRanks::Enter(const LaunchPlan& plan) {
  std::unique_ptr<LocalRanks> local(new LocalRanks());
  if (plan.role == LaunchRole::kThreads) {
    local->group_ = std::make_unique<RankGroup>(plan.world_size);
    return local;
  }
  if (plan.role != LaunchRole::kOneRank) {
    return absl::InternalError("LocalRanks::Enter: the launcher runs no rank itself");
  }
  if (!plan.cpu_threads_from_user && plan.cpu_threads > 0) {
    ::setenv(kCpuThreadsVariable, absl::StrCat(plan.cpu_threads).c_str(), /*overwrite=*/1);
  }
  if (plan.redis.has_value()) {
    // Ranks meeting on a Redis server run on hosts of their own: each keeps
    // its report on its own stdout.
    absl::StatusOr<std::unique_ptr<RedisRendezvous>> rendezvous =
        RedisRendezvous::Open(*plan.redis, plan.rank, plan.world_size);
    if (!rendezvous.ok()) return rendezvous.status();
    local->rendezvous_ = *std::move(rendezvous);
    local->group_ = std::make_unique<RankGroup>(local->rendezvous_.get());
    return local;
  }
  absl::StatusOr<std::unique_ptr<FileRendezvous>> rendezvous =
      FileRendezvous::Open(plan.rendezvous_dir, plan.rank, plan.world_size);
  if (!rendezvous.ok()) return rendezvous.status();
  local->rendezvous_ = *std::move(rendezvous);
  if (plan.rank != 0) {
    const std::string log = RankLogPath(plan.rendezvous_dir, plan.rank);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      const absl::Status error = absl::UnavailableError(absl::StrCat(
          "cannot write rank ", plan.rank, "'s report to ", log, ": ", std::strerror(errno)));
      local->rendezvous_->Abort(absl::StrCat("rank ", plan.rank, ": ", error.message()));
      local->rendezvous_.reset();  // the note is posted; the destructor adds none
      return error;
    }
    std::cout << std::flush;
    std::fflush(stdout);
    ::dup2(fd, STDOUT_FILENO);
    ::close(fd);
    if (!plan.started_by_launcher) {
      std::cerr << "teplug run: rank " << plan.rank << " of " << plan.world_size
                << " writes its report to " << core::EscapeUntrustedText(log)
                << "; rank 0 prints the table\n";
    }
  }
  local->group_ = std::make_unique<RankGroup>(local->rendezvous_.get());
  return local;
}

LocalRanks::~LocalRanks() {
  if (rendezvous_ != nullptr && group_ != nullptr && !group_->ran()) {
    rendezvous_->Abort(absl::StrCat("rank ", rendezvous_->rank(),
                                    " stopped before running its part of the job"));
  }
}

}  // namespace teplug::cli
