// Where the ranks of a `teplug run` that are processes meet: a key-value
// store every rank can reach, with arrival marks (so a timeout names the
// ranks that never came), an abort note (a failing rank's error, which stops
// every waiting rank at once) and a finished mark (a store that served a run
// is not reused, or its keys would be read as the next run's). Offered to
// ICollective as its TeplugKvStore and used by the tool for its own
// exchanges. Two forms: a directory (file_rendezvous.h) and a Redis server
// reached through Gloo's RedisStore (redis_rendezvous.h).
#ifndef TEPLUG_TOOLS_TEPLUG_RENDEZVOUS_H_
#define TEPLUG_TOOLS_TEPLUG_RENDEZVOUS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "teplug/collective.h"

namespace teplug::cli {

class Rendezvous {
 public:
  virtual ~Rendezvous() = default;
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;

  // Publishes `value` (any bytes) under `key`.
  virtual absl::Status Set(absl::string_view key, absl::string_view value) = 0;
  // Waits up to `timeout_ms` for `key`, polling fast at first (ranks usually
  // arrive close together), then every 20 ms. DeadlineExceeded names the
  // key, the store and the ranks that have not arrived (or says all have);
  // Aborted with the note when a rank posted one.
  absl::StatusOr<std::string> Get(absl::string_view key, int64_t timeout_ms);
  // Ranks whose arrival mark is missing, in order.
  virtual std::vector<int> MissingRanks() const = 0;
  // Posts `note` (e.g. "rank 1: ...") so every waiting rank stops; the first
  // note stays. Best effort: the caller reports the failure itself.
  virtual void Abort(absl::string_view note) = 0;
  // Marks the run finished (see the file comment).
  virtual absl::Status MarkFinished() = 0;
  // The store as a --rendezvous value ("file:DIR", "redis:HOST:PORT/RUN"),
  // for messages.
  virtual const std::string& where() const = 0;

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  // Set and Get as ABI callbacks, valid while this object lives. get returns
  // TEPLUG_DEADLINE_EXCEEDED on timeout and TEPLUG_UNAVAILABLE (with the
  // note) after an abort.
  const TeplugKvStore* kv_store() const { return &kv_; }

 protected:
  Rendezvous(int rank, int world_size);
  // What Get polls: `key`'s value when it is set, nullopt when not yet.
  virtual absl::StatusOr<std::optional<std::string>> TryGet(absl::string_view key) const = 0;
  // The first abort note a rank posted, nullopt when none.
  virtual absl::StatusOr<std::optional<std::string>> AbortNote() const = 0;

 private:
  static TeplugError* KvPut(void* ctx, const char* key, const void* value, size_t size);
  static TeplugError* KvGet(void* ctx, const char* key, void* buffer, size_t capacity, size_t* size,
                            int64_t timeout_ms);

  const int rank_;
  const int world_size_;
  TeplugKvStore kv_{};
};

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_RENDEZVOUS_H_
