// Checks of a config against the providers that loaded: provider names the
// config mentions that no provider has, and allow lists that leave an
// interface's ops with no provider at all.
#ifndef TEPLUG_CORE_CONFIG_PROVIDER_VALIDATION_H_
#define TEPLUG_CORE_CONFIG_PROVIDER_VALIDATION_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/config/op_facts.h"
#include "core/config/problem_list.h"
#include "core/config/validated_config.h"

namespace teplug::config {

// One loaded provider: its name and the interfaces (vocabulary names,
// "gemm") it implements.
struct ProviderOffer {
  std::string name;
  std::vector<std::string> interfaces;
};

// Adds an error for every provider name the config mentions (providers,
// priorities, rules' prefer/deny/allow) that is not in `known_provider_names`,
// with "did you mean" and the known set.
void CheckProviderNames(const ValidatedConfig& config,
                        const std::vector<std::string>& known_provider_names,
                        ProblemList* problems);

// The same, as a Status: OK, or InvalidArgument listing every unknown name
// with its file:line:col. Called by the core once plugins have loaded, since
// plugin provider names are only known then.
absl::Status ValidateProviderNames(const ValidatedConfig& config,
                                   const std::vector<std::string>& known_provider_names);

// Adds a warning for every rule whose allow list leaves an interface it
// applies to with no provider: none of the allowed providers is loaded,
// implements that interface and is enabled. (A rule may not both allow and
// deny one provider: ValidateConfigSemantics refuses that.)
// The interfaces a rule applies to are those it lists, or those owning its
// ops, or every interface of `vocabulary` that has its facts.
void CheckAllowLists(const ValidatedConfig& config, const std::vector<ProviderOffer>& providers,
                     const Vocabulary& vocabulary, ProblemList* problems);

// What the running kernel logs as warnings once plugins have loaded: the
// config's own warnings, unknown provider names (warnings at run time, since
// one config may serve a fleet where not every node has every provider) and
// allow lists that leave ops with no provider. One line each.
std::vector<std::string> RunTimeConfigWarnings(const ValidatedConfig& config,
                                               const std::vector<ProviderOffer>& providers);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_PROVIDER_VALIDATION_H_
