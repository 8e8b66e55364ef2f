#include "core/config/config_snapshot.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/config/vocabulary_lookup.h"

namespace teplug::config {
namespace {

using StringList = std::vector<std::string>;

StringList ToList(const google::protobuf::RepeatedPtrField<std::string>& values) {
  return StringList(values.begin(), values.end());
}

// An empty list matches anything; otherwise the value must be listed.
bool ListMatches(const StringList& list, absl::string_view value) {
  if (list.empty()) return true;
  for (const std::string& entry : list) {
    if (entry == value) return true;
  }
  return false;
}

bool ListMatchesIgnoringCase(const StringList& list, absl::string_view value) {
  if (list.empty()) return true;
  for (const std::string& entry : list) {
    if (absl::EqualsIgnoreCase(entry, value)) return true;
  }
  return false;
}

bool BoundsMatch(const CompiledRule::Bounds& bounds, int64_t value) {
  if (!bounds.active) return true;
  if (value < 0) return false;  // Unknown: a range never matches it.
  if (bounds.min && value < *bounds.min) return false;
  if (bounds.max && value > *bounds.max) return false;
  return true;
}

CompiledRule::Bounds ToBounds(bool present, const Range& range) {
  CompiledRule::Bounds bounds;
  bounds.active = present;
  if (range.has_min()) bounds.min = range.min();
  if (range.has_max()) bounds.max = range.max();
  return bounds;
}

// Names with every group name replaced by the values it stands for.
StringList ExpandValues(const Vocabulary& vocabulary, absl::string_view fact,
                        const google::protobuf::RepeatedPtrField<std::string>& names) {
  StringList values;
  for (const std::string& name : names) {
    for (std::string& value : ExpandFactValue(vocabulary, fact, name)) {
      values.push_back(std::move(value));
    }
  }
  return values;
}

// The match's fact conditions: its shortcuts, then its `facts` entries.
std::vector<CompiledRule::FactCondition> CompileFacts(const Vocabulary& vocabulary, const Match& match) {
  std::vector<CompiledRule::FactCondition> conditions;
  auto add_values = [&](absl::string_view fact,
                        const google::protobuf::RepeatedPtrField<std::string>& names) {
    if (names.empty()) return;
    conditions.push_back({std::string(fact), ExpandValues(vocabulary, fact, names), {}});
  };
  auto add_range = [&](absl::string_view fact, bool present, const Range& range) {
    if (!present) return;
    conditions.push_back({std::string(fact), {}, ToBounds(true, range)});
  };
  add_values("dtype", match.dtypes());
  add_values("layout", match.layouts());
  add_values("mask_type", match.mask_types());
  add_range("head_dim", match.has_head_dim(), match.head_dim());
  add_range("seq_len", match.has_seq_len(), match.seq_len());
  for (const FactMatch& fact : match.facts()) {
    add_values(fact.fact(), fact.values());
    add_range(fact.fact(), fact.has_range(), fact.range());
  }
  return conditions;
}

bool ConditionMatches(const CompiledRule::FactCondition& condition, const OpFacts& op) {
  const OpFacts::Value* value = op.Find(condition.fact);
  if (value == nullptr || !value->known) return false;
  if (condition.range.active) return BoundsMatch(condition.range, value->number);
  return ListMatches(condition.values, value->text);
}

bool Lists(const StringList& list, absl::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

std::string CompiledRule::Location() const {
  return absl::StrCat(source_name, ":", line);
}

std::string CompiledRule::Describe() const {
  return absl::StrCat("config rule \"", name, "\" (", Location(), ")");
}

bool CompiledRule::Matches(const OpFacts& op) const {
  if (!ListMatches(interfaces, op.interface_name) || !ListMatches(ops, op.op) ||
      !ListMatches(device_kinds, op.device_kind) ||
      !ListMatchesIgnoringCase(vendors, op.vendor)) {
    return false;
  }
  for (const FactCondition& condition : facts) {
    if (!ConditionMatches(condition, op)) return false;
  }
  return true;
}

const CompiledRule* RuleVerdicts::DeniedBy(absl::string_view provider) const {
  for (const CompiledRule* rule : matched_) {
    if (Lists(rule->deny, provider)) return rule;
  }
  return nullptr;
}

const CompiledRule* RuleVerdicts::NotAllowedBy(absl::string_view provider) const {
  for (const CompiledRule* rule : matched_) {
    if (!rule->allow.empty() && !Lists(rule->allow, provider)) return rule;
  }
  return nullptr;
}

std::optional<int> RuleVerdicts::PreferenceRank(absl::string_view provider) const {
  for (const CompiledRule* rule : matched_) {
    if (rule->prefer.empty()) continue;
    auto it = std::find(rule->prefer.begin(), rule->prefer.end(), provider);
    if (it == rule->prefer.end()) return std::nullopt;
    return static_cast<int>(it - rule->prefer.begin());
  }
  return std::nullopt;
}

std::optional<bool> RuleVerdicts::RuleStrict() const {
  for (const CompiledRule* rule : matched_) {
    if (rule->strict.has_value()) return rule->strict;
  }
  return std::nullopt;
}

std::shared_ptr<const ConfigSnapshot> ConfigSnapshot::Create(
    ValidatedConfig config, uint64_t generation, const Vocabulary& vocabulary) {
  return std::shared_ptr<const ConfigSnapshot>(
      new ConfigSnapshot(std::move(config), generation, vocabulary));
}

ConfigSnapshot::ConfigSnapshot(ValidatedConfig config, uint64_t generation, const Vocabulary& vocabulary)
    : config_(std::move(config)), generation_(generation) {
  const Config& proto = config_.proto;
  // Validation accepts only the logger's level names; unset means warn.
  log_level_ = ::teplug::core::ParseLogLevel(proto.log_level()).value_or(LogLevel::kWarn);
  auto options = std::make_shared<ProviderOptions>();
  for (const Provider& provider : proto.providers()) {
    if (provider.has_enabled()) provider_enabled_[provider.name()] = provider.enabled();
    for (const ProviderOption& option : provider.options()) (*options)[provider.name()][option.key()] = option.value();
  }
  provider_options_ = std::move(options);
  for (const Priority& priority : proto.priorities()) {
    priorities_[priority.provider()][priority.interface()] = priority.priority();
  }
  rules_.reserve(proto.rules_size());
  for (int i = 0; i < proto.rules_size(); ++i) {
    const Rule& rule = proto.rules(i);
    const Match& match = rule.match();
    CompiledRule compiled;
    compiled.name = rule.name();
    compiled.source_name = config_.source_name;
    const SourcePosition position =
        config_.locations.FindNearest(absl::StrCat("rules[", i, "]"));
    compiled.line = position.line;
    compiled.column = position.column;
    compiled.interfaces = ToList(match.interfaces());
    compiled.ops = ToList(match.ops());
    compiled.device_kinds = ToList(match.device_kinds());
    compiled.vendors = ToList(match.vendors());
    compiled.facts = CompileFacts(vocabulary, match);
    compiled.prefer = ToList(rule.prefer());
    compiled.deny = ToList(rule.deny());
    compiled.allow = ToList(rule.allow());
    if (rule.has_strict()) compiled.strict = rule.strict();
    rules_.push_back(std::move(compiled));
  }
}

bool ConfigSnapshot::ProviderEnabled(absl::string_view name) const {
  auto it = provider_enabled_.find(name);
  return it == provider_enabled_.end() || it->second;
}

std::optional<int> ConfigSnapshot::PriorityOverride(
    absl::string_view provider, absl::string_view interface_name) const {
  auto by_provider = priorities_.find(provider);
  if (by_provider == priorities_.end()) return std::nullopt;
  const auto& by_interface = by_provider->second;
  if (!interface_name.empty()) {
    auto exact = by_interface.find(interface_name);
    if (exact != by_interface.end()) return exact->second;
  }
  auto all = by_interface.find(absl::string_view());
  if (all != by_interface.end()) return all->second;
  return std::nullopt;
}

RuleVerdicts ConfigSnapshot::Evaluate(const OpFacts& facts) const {
  RuleVerdicts verdicts;
  for (const CompiledRule& rule : rules_) {
    if (!rule.Matches(facts)) continue;
    if (verdicts.matched_.empty()) verdicts.matched_.reserve(rules_.size());
    verdicts.matched_.push_back(&rule);
  }
  return verdicts;
}

bool ConfigSnapshot::IsStrict(const RuleVerdicts& verdicts,
                              absl::string_view interface_name) const {
  if (auto rule_strict = verdicts.RuleStrict()) return *rule_strict;
  for (const std::string& strict_interface : config_.proto.strict_interfaces()) {
    if (strict_interface == interface_name) return true;
  }
  return config_.proto.strict();
}

bool ConfigSnapshot::IsStrict(const OpFacts& facts) const {
  return IsStrict(Evaluate(facts), facts.interface_name);
}

}  // namespace teplug::config
