// Checks one rule's `match` against the rule vocabulary: interface, op and
// fact names (with "did you mean"), facts the rule's interfaces do not have,
// ops that are not decided per call, values and ranges; and warns when the
// match can never apply to any op.
#ifndef TEPLUG_CORE_CONFIG_MATCH_VALIDATION_H_
#define TEPLUG_CORE_CONFIG_MATCH_VALIDATION_H_

#include "absl/strings/string_view.h"
#include "core/config/located_checker.h"
#include "core/config/op_facts.h"
#include "core/config/teplug_config.pb.h"

namespace teplug::config {

// `rule_path` is "rules[i]". The rule's scope is the interfaces it lists (all
// of `vocabulary` when it lists none), narrowed to those owning one of its
// ops when it lists ops. Errors: an unknown name; an op outside the listed
// interfaces or not decided per call (the vocabulary's note says why and what
// to write instead); a fact that no interface in the scope has (naming the
// facts they do have); values for an integer fact or a range for a name
// fact; unknown values; repeats; bad ranges. Warnings, when there is no
// error: no interface in the scope has all the facts the rule names; two
// conditions on one fact that no value satisfies together.
void CheckRuleMatch(LocatedChecker& checker, absl::string_view rule_path, const Match& match,
                    const Vocabulary& vocabulary);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_MATCH_VALIDATION_H_
