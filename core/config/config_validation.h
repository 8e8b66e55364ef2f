// Semantic checks of a parsed config. Each check adds located problems to a
// ProblemList instead of stopping, so an operator sees every mistake at once.
#ifndef TEPLUG_CORE_CONFIG_CONFIG_VALIDATION_H_
#define TEPLUG_CORE_CONFIG_CONFIG_VALIDATION_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/config/field_locations.h"
#include "core/config/problem_list.h"
#include "core/config/teplug_config.pb.h"
#include "core/config/validated_config.h"

namespace teplug::config {

// Checks everything that does not depend on which providers exist: plugin
// paths and sha256 pins, required values, interface/op/dtype/layout/mask/
// log-level names against the canonical tables, ops that do not belong to a
// rule's interfaces, empty/negative/inverted ranges, empty or duplicate rule
// names, rules with no action, a provider both preferred and denied (or both
// allowed and denied) in one rule, duplicate entries.
void ValidateConfigSemantics(const Config& config,
                             const FieldLocations& locations,
                             ProblemList* problems);

// Checks every provider name the config mentions (providers, priorities,
// rules' prefer/deny/allow) against `known_provider_names`. Called by the core
// once plugins have loaded, since plugin provider names are only known then.
// Returns OK, or InvalidArgument listing every unknown name with its
// file:line:col and the known set.
absl::Status ValidateProviderNames(
    const ValidatedConfig& config,
    const std::vector<std::string>& known_provider_names);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_CONFIG_VALIDATION_H_
