#include "core/config/default_config.h"

#include "core/config/config_loader.h"

namespace teplug::config {

absl::StatusOr<ValidatedConfig> DefaultConfig() {
  return ParseConfigText(kDefaultConfigText, kDefaultConfigSourceName);
}

}  // namespace teplug::config
