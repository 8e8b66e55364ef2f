// The immutable configuration the running kernel consults.
//
// A ConfigSnapshot is built once from a ValidatedConfig and never changes;
// it is shared as std::shared_ptr<const ConfigSnapshot>, so a reload (the
// kernel publishes a new state holding the new snapshot) leaves calls already
// in flight on the one they started with. There are no global mutable flags.
#ifndef TEPLUG_CORE_CONFIG_CONFIG_SNAPSHOT_H_
#define TEPLUG_CORE_CONFIG_CONFIG_SNAPSHOT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "core/config/op_facts.h"
#include "core/config/rule_vocabulary.h"
#include "core/config/teplug_config.pb.h"
#include "core/config/validated_config.h"
#include "core/log/logger.h"

namespace teplug::config {

// Verbosity set by log_level: the logger's own levels.
using LogLevel = ::teplug::core::LogLevel;

// One rule, compiled for fast matching: the match's shortcuts (dtypes,
// layouts, ...) and its `facts` entries become one list of fact conditions,
// and group names are pre-expanded (a layout format becomes its layouts), so
// evaluation is only comparisons.
struct CompiledRule {
  // An inclusive range; a missing bound is open.
  struct Bounds {
    bool active = false;
    std::optional<int64_t> min;
    std::optional<int64_t> max;
  };
  // One condition on a fact: a name fact must be one of `values`, an integer
  // fact inside `range` (when range.active).
  struct FactCondition {
    std::string fact;
    std::vector<std::string> values;
    Bounds range;
  };

  std::string name;
  std::string source_name;  // File the rule came from.
  int line = 0;             // 1-based line of the rule in that file.
  int column = 0;

  std::vector<std::string> interfaces;
  std::vector<std::string> ops;
  std::vector<std::string> device_kinds;
  std::vector<std::string> vendors;
  std::vector<FactCondition> facts;

  std::vector<std::string> prefer;
  std::vector<std::string> deny;
  std::vector<std::string> allow;
  std::optional<bool> strict;

  // "teplug.textproto:12".
  std::string Location() const;
  // `config rule "no-fp8-attention" (teplug.textproto:12)`, for decision
  // records.
  std::string Describe() const;
  // True when every constrained field of the rule matches `op`: a fact
  // condition needs the op to have that fact with a known value.
  bool Matches(const OpFacts& op) const;
};

// The rules that matched one op, in file order, and what they say. Holds
// pointers into the snapshot that produced it: keep that snapshot alive
// (hold its shared_ptr) while using the verdicts.
class RuleVerdicts {
 public:
  // The matched rules. On a temporary (`for (auto* r : s.Evaluate(f).matched())`)
  // the list is moved out, so that loop does not read a destroyed vector.
  const std::vector<const CompiledRule*>& matched() const& { return matched_; }
  std::vector<const CompiledRule*> matched() && { return std::move(matched_); }

  // The first matched rule whose deny list names `provider`, or nullptr.
  const CompiledRule* DeniedBy(absl::string_view provider) const;

  // The first matched rule with a non-empty allow list that does not name
  // `provider`, or nullptr (the provider is allowed).
  const CompiledRule* NotAllowedBy(absl::string_view provider) const;

  // Position of `provider` in the prefer list of the first matched rule that
  // has one (0 = most preferred); nullopt when that list does not name it or
  // no matched rule prefers anything.
  std::optional<int> PreferenceRank(absl::string_view provider) const;

  // The strict setting of the first matched rule that sets one, if any.
  std::optional<bool> RuleStrict() const;

 private:
  friend class ConfigSnapshot;
  std::vector<const CompiledRule*> matched_;
};

class ConfigSnapshot {
 public:
  // Compiles `config` against `vocabulary` (which expands value groups such
  // as layout formats). `generation` identifies this snapshot among those the
  // kernel installed (it numbers them 1, 2, ...). The default vocabulary is
  // defined by //core/ops:rule_vocabulary, which a caller using it links.
  static std::shared_ptr<const ConfigSnapshot> Create(ValidatedConfig config, uint64_t generation,
                                                      const Vocabulary& vocabulary = RuleVocabulary());

  ConfigSnapshot(const ConfigSnapshot&) = delete;
  ConfigSnapshot& operator=(const ConfigSnapshot&) = delete;

  uint64_t generation() const { return generation_; }
  const std::string& source_name() const { return config_.source_name; }
  // The validated message (plugins list, flags) and field positions.
  const ValidatedConfig& config() const { return config_; }
  const std::vector<CompiledRule>& rules() const { return rules_; }
  // The config's log_level, kWarn when it sets none; log_level_set() says
  // whether it did (the API and $TEPLUG_LOG take precedence over the config,
  // and an unset config level leaves theirs alone).
  LogLevel log_level() const { return log_level_; }
  bool log_level_set() const { return !config_.proto.log_level().empty(); }
  bool allow_insecure_plugin_permissions() const {
    return config_.proto.allow_insecure_plugin_permissions();
  }
  // Config.probe: probe every plugin before loading it.
  bool probe_all_plugins() const { return config_.proto.probe(); }
  // Config.probe_timeout_ms, when set.
  std::optional<int32_t> probe_timeout_ms() const {
    if (!config_.proto.has_probe_timeout_ms()) return std::nullopt;
    return config_.proto.probe_timeout_ms();
  }

  // False only when a providers entry disables `name`; unlisted providers are
  // enabled.
  bool ProviderEnabled(absl::string_view name) const;

  // The options the config gives providers (providers { options }), by
  // provider name then key; shared, so a loader can hold them without the
  // snapshot. Never null.
  using ProviderOptions = std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>>;
  const std::shared_ptr<const ProviderOptions>& provider_options() const { return provider_options_; }

  // The configured priority of `provider` on `interface_name`: a priorities
  // entry naming that interface beats one without an interface; nullopt when
  // neither exists (the provider's own priority applies).
  std::optional<int> PriorityOverride(absl::string_view provider,
                                      absl::string_view interface_name) const;

  // Every rule matching `facts`, in file order. Allocates at most once (only
  // when some rule matches).
  RuleVerdicts Evaluate(const OpFacts& facts) const;

  // Whether ops like `facts` are strict: the first matched rule that sets
  // strict decides; otherwise strict when the interface is in
  // strict_interfaces or the global strict flag is on.
  bool IsStrict(const RuleVerdicts& verdicts,
                absl::string_view interface_name) const;
  bool IsStrict(const OpFacts& facts) const;

 private:
  ConfigSnapshot(ValidatedConfig config, uint64_t generation, const Vocabulary& vocabulary);

  ValidatedConfig config_;
  uint64_t generation_;
  LogLevel log_level_ = LogLevel::kWarn;
  std::vector<CompiledRule> rules_;
  absl::flat_hash_map<std::string, bool> provider_enabled_;
  std::shared_ptr<const ProviderOptions> provider_options_;
  // Keyed by provider, then interface ("" = all interfaces).
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, int>>
      priorities_;
};

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_CONFIG_SNAPSHOT_H_
