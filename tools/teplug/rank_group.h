// The main job's ranks: a key-value store offered to ICollective as its
// rendezvous (TeplugKvStore callbacks), an exchange of plain vectors so the
// tool can compute its own all-reduce oracle, and a runner that runs one
// function per rank of this process and collects their statuses.
// Two forms: every rank a thread of this process (an in-process store), or
// this process one rank of several (processes on one or several hosts,
// meeting in a Rendezvous: a directory or a Redis server). When one rank fails, waits in Exchange end
// with an error instead of hanging the others.
#ifndef TEPLUG_TOOLS_TEPLUG_RANK_GROUP_H_
#define TEPLUG_TOOLS_TEPLUG_RANK_GROUP_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "teplug/collective.h"
#include "tools/teplug/rendezvous.h"

namespace teplug::cli {

class RankGroup {
 public:
  // Every rank a thread of this process.
  explicit RankGroup(int world_size);
  // This process is rank `rendezvous->rank()` of `rendezvous->world_size()`;
  // `rendezvous` must outlive the group.
  explicit RankGroup(Rendezvous* rendezvous);
  int world_size() const { return world_size_; }
  // The ranks Run runs here: all of them, or this process's one.
  std::vector<int> local_ranks() const;

  // The store as ABI callbacks; valid while this group lives.
  const TeplugKvStore* kv_store() const { return &kv_; }

  // Every rank passes its vector; every rank gets all of them in rank order.
  // Fails when another rank failed or `timeout_ms` passed.
  absl::StatusOr<std::vector<std::vector<double>>> Exchange(int rank, std::vector<double> mine,
                                                            int64_t timeout_ms = 120000);

  // Runs body(rank) for each local rank (on threads when several); the error
  // of the rank that failed first, prefixed with "rank N: ", or OK. A
  // process's failing rank posts the error to the rendezvous so the other
  // processes stop waiting for it.
  absl::Status Run(const std::function<absl::Status(int rank)>& body);
  // Whether Run was called.
  bool ran() const { return ran_; }

 private:
  static TeplugError* Put(void* ctx, const char* key, const void* value, size_t size);
  static TeplugError* Get(void* ctx, const char* key, void* buffer, size_t capacity, size_t* size,
                          int64_t timeout_ms);
  void Abort();
  // Exchange through the rendezvous: each rank's vector under a key of this
  // round, read back from every rank.
  absl::StatusOr<std::vector<std::vector<double>>> ExchangeThroughRendezvous(
      int rank, const std::vector<double>& mine, int64_t timeout_ms);

  const int world_size_;
  Rendezvous* const rendezvous_ = nullptr;  // null: ranks are threads
  TeplugKvStore kv_{};
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::string> store_;
  // Exchange rounds: values of the current round and how many ranks left it.
  uint64_t round_ = 0;
  std::vector<std::vector<double>> slots_;
  int arrived_ = 0;
  std::vector<std::vector<double>> last_round_;
  bool aborted_ = false;
  bool ran_ = false;
};

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_RANK_GROUP_H_
