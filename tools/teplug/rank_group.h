// Ranks as threads for the main job: an in-process key-value store offered
// to ICollective as its rendezvous (TeplugKvStore callbacks), an exchange of
// plain vectors so the tool can compute its own all-reduce oracle, and a
// launcher that runs one function per rank and collects their statuses.
// When one rank fails, waits in Exchange end with an error instead of
// hanging the others.
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

namespace teplug::cli {

class RankGroup {
 public:
  explicit RankGroup(int world_size);
  int world_size() const { return world_size_; }

  // The store as ABI callbacks; valid while this group lives.
  const TeplugKvStore* kv_store() const { return &kv_; }

  // Every rank passes its vector; every rank gets all of them in rank order.
  // Fails when another rank failed or `timeout_ms` passed.
  absl::StatusOr<std::vector<std::vector<double>>> Exchange(int rank, std::vector<double> mine,
                                                            int64_t timeout_ms = 120000);

  // Runs body(rank) on world_size threads; the error of the rank that failed
  // first, prefixed with "rank N: ", or OK.
  absl::Status Run(const std::function<absl::Status(int rank)>& body);

 private:
  static TeplugError* Put(void* ctx, const char* key, const void* value, size_t size);
  static TeplugError* Get(void* ctx, const char* key, void* buffer, size_t capacity, size_t* size,
                          int64_t timeout_ms);
  void Abort();

  const int world_size_;
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
};

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_RANK_GROUP_H_
