// Semantic checks of a parsed config. Each check adds located problems to a
// ProblemList instead of stopping, so an operator sees every mistake at once.
#ifndef TEPLUG_CORE_CONFIG_CONFIG_VALIDATION_H_
#define TEPLUG_CORE_CONFIG_CONFIG_VALIDATION_H_

#include <cstdint>
#include <string>

#include "core/config/field_locations.h"
#include "core/config/op_facts.h"
#include "core/config/problem_list.h"
#include "core/config/teplug_config.pb.h"
#include "core/config/provider_validation.h"

namespace teplug::config {

// The longest pre-flight probe a config may allow, in milliseconds.
inline constexpr int32_t kMaxProbeTimeoutMs = 600000;

// Whether `sha256` is a usable pin: empty (no pin) or 64 hex digits.
bool IsWellFormedSha256Pin(const std::string& sha256);

// Checks everything that does not depend on which providers exist: plugin
// paths and sha256 pins, required values, interface/op/fact/value/log-level
// names against `vocabulary` (match_validation.h says what a rule's match
// may name), empty/negative/inverted ranges, empty or duplicate rule names,
// rules with no action, a provider both preferred and denied (or both
// allowed and denied) in one rule, duplicate entries. Errors and warnings go
// to `problems`. Provider names are checked by provider_validation.h once
// plugins have loaded.
void ValidateConfigSemantics(const Config& config,
                             const FieldLocations& locations,
                             const Vocabulary& vocabulary,
                             ProblemList* problems);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_CONFIG_VALIDATION_H_
