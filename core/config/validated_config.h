// A config that parsed and passed semantic validation, together with where
// each of its fields was written, so later checks (ValidateProviderNames) and
// decision records can still cite file:line:col.
#ifndef TEPLUG_CORE_CONFIG_VALIDATED_CONFIG_H_
#define TEPLUG_CORE_CONFIG_VALIDATED_CONFIG_H_

#include <string>
#include <vector>

#include "core/config/field_locations.h"
#include "core/config/teplug_config.pb.h"

namespace teplug::config {

struct ValidatedConfig {
  // The parsed, validated message.
  Config proto;
  // Where it came from: a file path, or the name given to ParseConfigText.
  std::string source_name;
  // Field path -> position in the source.
  FieldLocations locations;
  // What validation warned about (a rule that can never match, ...), one
  // formatted line each ("file:line:col: warning: ..."); the running kernel
  // logs them.
  std::vector<std::string> warnings;
};

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_VALIDATED_CONFIG_H_
