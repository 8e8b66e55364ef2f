// The process's current config snapshot, swappable at run time.
//
// Readers take a shared_ptr to the current snapshot and use it for the whole
// call; Install swaps in a new snapshot atomically. A call that began before
// a reload finishes on the snapshot it took, which stays alive until its last
// holder lets go.
#ifndef TEPLUG_CORE_CONFIG_ACTIVE_CONFIG_H_
#define TEPLUG_CORE_CONFIG_ACTIVE_CONFIG_H_

#include <cstdint>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/config/config_snapshot.h"
#include "core/config/validated_config.h"

namespace teplug::config {

class ActiveConfig {
 public:
  // Starts with `initial` as generation 1.
  explicit ActiveConfig(ValidatedConfig initial);

  ActiveConfig(const ActiveConfig&) = delete;
  ActiveConfig& operator=(const ActiveConfig&) = delete;

  // The snapshot to use for one call. Never null.
  std::shared_ptr<const ConfigSnapshot> Current() const ABSL_LOCKS_EXCLUDED(mutex_);

  // Compiles `config` as the next generation and makes it current; returns
  // the new snapshot. Snapshots already handed out are unaffected.
  std::shared_ptr<const ConfigSnapshot> Install(ValidatedConfig config)
      ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  mutable absl::Mutex mutex_;
  std::shared_ptr<const ConfigSnapshot> current_ ABSL_GUARDED_BY(mutex_);
  uint64_t last_generation_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_ACTIVE_CONFIG_H_
