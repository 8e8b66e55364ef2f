#include "core/config/active_config.h"

#include <utility>

namespace teplug::config {

ActiveConfig::ActiveConfig(ValidatedConfig initial) {
  Install(std::move(initial));
}

std::shared_ptr<const ConfigSnapshot> ActiveConfig::Current() const {
  absl::MutexLock lock(&mutex_);
  return current_;
}

std::shared_ptr<const ConfigSnapshot> ActiveConfig::Install(
    ValidatedConfig config) {
  uint64_t generation;
  {
    absl::MutexLock lock(&mutex_);
    generation = ++last_generation_;
  }
  // Compile outside the lock so readers are never blocked by a reload.
  std::shared_ptr<const ConfigSnapshot> snapshot =
      ConfigSnapshot::Create(std::move(config), generation);
  absl::MutexLock lock(&mutex_);
  // Two concurrent installs: the later generation wins, whatever the order
  // in which their compilations finish.
  if (current_ == nullptr || current_->generation() < generation) {
    current_ = snapshot;
  }
  return snapshot;
}

}  // namespace teplug::config
