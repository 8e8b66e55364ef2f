// Names the config checks that are not part of the rule vocabulary
// (rule_vocabulary.h has interfaces, ops and facts): device kinds and log
// levels, and the helpers messages use to list names.
#ifndef TEPLUG_CORE_CONFIG_CANONICAL_NAMES_H_
#define TEPLUG_CORE_CONFIG_CANONICAL_NAMES_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace teplug::config {

// The built-in device kinds (cpu cuda opencl), the ABI's spellings
// (teplug/sdk/names.hpp). Vendors may add kinds; see IsValidDeviceKindSpelling.
const std::vector<absl::string_view>& BuiltinDeviceKinds();

// True when `kind` is a plausible device-kind name: non-empty, [a-z0-9_]+.
bool IsValidDeviceKindSpelling(absl::string_view kind);

// Log levels accepted in log_level: error warn info debug.
const std::vector<absl::string_view>& CanonicalLogLevels();

// "a, b, c": used in error messages that list the allowed set.
std::string JoinNames(const std::vector<absl::string_view>& names);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_CANONICAL_NAMES_H_
