// The rendezvous (rendezvous.h) on a Redis server, for ranks on hosts that
// share no file system: `--rendezvous redis:HOST:PORT/RUN`. The connection
// and the commands are Gloo's own store (gloo::rendezvous::RedisStore, built
// into Debian's Gloo): keys are "teplug/RUN/..." and are set once (Redis
// SETNX), so RUN must be new for every run; each rank's finished mark
// refuses a RUN that already served one. Every rank writes only its own
// marks (arrival, abort note, finished).
#ifndef TEPLUG_TOOLS_TEPLUG_REDIS_RENDEZVOUS_H_
#define TEPLUG_TOOLS_TEPLUG_REDIS_RENDEZVOUS_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/teplug/rendezvous.h"

namespace gloo::rendezvous {
class RedisStore;
}  // namespace gloo::rendezvous

namespace teplug::cli {

// A parsed "HOST:PORT/RUN".
struct RedisAddress {
  std::string host;
  int port = 0;
  std::string run;
};

// Parses the part of `--rendezvous redis:HOST:PORT/RUN` after "redis:";
// InvalidArgument naming what is wrong.
absl::StatusOr<RedisAddress> ParseRedisAddress(const std::string& text);

class RedisRendezvous : public Rendezvous {
 public:
  // Connects (2 s), refuses a RUN that finished, and marks this rank's
  // arrival; Unavailable when the server cannot be reached,
  // FailedPrecondition when RUN finished or this rank already arrived.
  static absl::StatusOr<std::unique_ptr<RedisRendezvous>> Open(const RedisAddress& address,
                                                               int rank, int world_size);
  ~RedisRendezvous() override;

  // A key set twice is refused (FailedPrecondition): values are set once.
  absl::Status Set(absl::string_view key, absl::string_view value) override;
  std::vector<int> MissingRanks() const override;
  void Abort(absl::string_view note) override;
  absl::Status MarkFinished() override;
  const std::string& where() const override { return where_; }

 private:
  RedisRendezvous(const RedisAddress& address, int rank, int world_size,
                  std::unique_ptr<gloo::rendezvous::RedisStore> store);
  absl::StatusOr<std::optional<std::string>> TryGet(absl::string_view key) const override;
  // Any rank's note (each rank posts its own).
  absl::StatusOr<std::optional<std::string>> AbortNote() const override;
  std::string KeyOf(absl::string_view name) const;
  // Whether every key exists / a key's value, under the connection's lock;
  // Gloo's exceptions become Unavailable naming the server.
  absl::StatusOr<bool> Exists(const std::string& key) const;
  absl::StatusOr<std::string> Read(const std::string& key) const;
  // SETNX: false when the key was already set.
  absl::StatusOr<bool> SetOnce(const std::string& key, absl::string_view value);

  const std::string where_;   // "redis:HOST:PORT/RUN"
  const std::string prefix_;  // "teplug/RUN/"
  mutable std::mutex mu_;     // one connection: commands one at a time
  std::unique_ptr<gloo::rendezvous::RedisStore> store_;
};

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_REDIS_RENDEZVOUS_H_
