#include "core/config/provider_validation.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/config/closest_name.h"
#include "core/config/located_checker.h"
#include "core/config/rule_vocabulary.h"
#include "core/config/vocabulary_lookup.h"

namespace teplug::config {
namespace {

bool Lists(const google::protobuf::RepeatedPtrField<std::string>& names, absl::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool Offers(const ProviderOffer& provider, absl::string_view interface_name) {
  return std::find(provider.interfaces.begin(), provider.interfaces.end(), interface_name) !=
         provider.interfaces.end();
}

bool Enabled(const Config& config, absl::string_view provider) {
  for (const Provider& entry : config.providers()) {
    if (entry.name() == provider && entry.has_enabled()) return entry.enabled();
  }
  return true;
}

// The interfaces a rule's match can apply to.
std::vector<const InterfaceVocabulary*> RuleInterfaces(const Match& match,
                                                       const Vocabulary& vocabulary) {
  std::vector<const InterfaceVocabulary*> out;
  for (const InterfaceVocabulary& entry : vocabulary) {
    if (!match.interfaces().empty() && !Lists(match.interfaces(), entry.name)) continue;
    if (!match.ops().empty() &&
        std::none_of(match.ops().begin(), match.ops().end(),
                     [&](const std::string& op) { return HasOp(entry, op); })) {
      continue;
    }
    bool has_facts = true;
    auto need = [&](bool constrained, absl::string_view fact) {
      if (constrained && FindFact(entry, fact) == nullptr) has_facts = false;
    };
    need(!match.dtypes().empty(), "dtype");
    need(!match.layouts().empty(), "layout");
    need(!match.mask_types().empty(), "mask_type");
    need(match.has_head_dim(), "head_dim");
    need(match.has_seq_len(), "seq_len");
    for (const FactMatch& fact : match.facts()) need(true, fact.fact());
    if (has_facts) out.push_back(&entry);
  }
  return out;
}

}  // namespace

void CheckProviderNames(const ValidatedConfig& config,
                        const std::vector<std::string>& known_provider_names,
                        ProblemList* problems) {
  LocatedChecker checker(config.locations, problems);
  const std::string known = known_provider_names.empty()
                                ? std::string("(none loaded)")
                                : absl::StrJoin(known_provider_names, ", ");
  const std::vector<absl::string_view> candidates = ViewsOf(known_provider_names);
  auto check = [&](const std::string& path, const std::string& name) {
    if (name.empty()) return;  // Reported by ValidateConfigSemantics.
    if (std::find(known_provider_names.begin(), known_provider_names.end(), name) !=
        known_provider_names.end()) {
      return;
    }
    checker.Report(path, absl::StrCat("unknown provider \"", name, "\"",
                                      DidYouMean(name, candidates), "; known providers: ", known));
  };
  const Config& proto = config.proto;
  for (int i = 0; i < proto.providers_size(); ++i) {
    check(Indexed("providers", i) + ".name", proto.providers(i).name());
  }
  for (int i = 0; i < proto.priorities_size(); ++i) {
    check(Indexed("priorities", i) + ".provider", proto.priorities(i).provider());
  }
  for (int i = 0; i < proto.rules_size(); ++i) {
    const Rule& rule = proto.rules(i);
    const std::string path = Indexed("rules", i);
    for (int j = 0; j < rule.prefer_size(); ++j) check(Indexed(path + ".prefer", j), rule.prefer(j));
    for (int j = 0; j < rule.deny_size(); ++j) check(Indexed(path + ".deny", j), rule.deny(j));
    for (int j = 0; j < rule.allow_size(); ++j) check(Indexed(path + ".allow", j), rule.allow(j));
  }
}

absl::Status ValidateProviderNames(const ValidatedConfig& config,
                                   const std::vector<std::string>& known_provider_names) {
  ProblemList problems(config.source_name);
  CheckProviderNames(config, known_provider_names, &problems);
  return problems.ToStatus();
}

void CheckAllowLists(const ValidatedConfig& config, const std::vector<ProviderOffer>& providers,
                     const Vocabulary& vocabulary, ProblemList* problems) {
  LocatedChecker checker(config.locations, problems);
  const Config& proto = config.proto;
  for (int i = 0; i < proto.rules_size(); ++i) {
    const Rule& rule = proto.rules(i);
    if (rule.allow().empty()) continue;
    std::vector<std::string> starved;
    for (const InterfaceVocabulary* entry : RuleInterfaces(rule.match(), vocabulary)) {
      std::vector<absl::string_view> implementers;
      bool served = false;
      for (const ProviderOffer& provider : providers) {
        if (!Offers(provider, entry->name)) continue;
        implementers.push_back(provider.name);
        if (Lists(rule.allow(), provider.name) && Enabled(proto, provider.name)) {
          served = true;
        }
      }
      if (served) continue;
      starved.push_back(absl::StrCat(
          entry->name, " (loaded providers implementing it: ",
          implementers.empty() ? std::string("none") : absl::StrJoin(implementers, ", "), ")"));
    }
    if (starved.empty()) continue;
    checker.Warn(Indexed("rules", i) + ".allow",
                 absl::StrCat("rule \"", rule.name(), "\" leaves ", absl::StrJoin(starved, " and "),
                              " with no provider: no provider it allows is loaded, enabled and "
                              "implements the interface, so every matching op fails"));
  }
}

std::vector<std::string> RunTimeConfigWarnings(const ValidatedConfig& config,
                                               const std::vector<ProviderOffer>& providers) {
  std::vector<std::string> names;
  for (const ProviderOffer& provider : providers) names.push_back(provider.name);
  ProblemList problems(config.source_name);
  CheckProviderNames(config, names, &problems);
  CheckAllowLists(config, providers, RuleVocabulary(), &problems);
  std::vector<std::string> lines = config.warnings;
  for (std::string& line : problems.Lines()) lines.push_back(std::move(line));
  return lines;
}

}  // namespace teplug::config
