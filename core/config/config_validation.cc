#include "core/config/config_validation.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "core/config/canonical_names.h"
#include "core/config/located_checker.h"
#include "core/config/match_validation.h"
#include "core/config/vocabulary_lookup.h"

namespace teplug::config {
namespace {


// The semantic checks of one config, reporting through a LocatedChecker.
class Checker : public LocatedChecker {
 public:
  Checker(const FieldLocations& locations, ProblemList* problems, const Vocabulary& vocabulary)
      : LocatedChecker(locations, problems), vocabulary_(vocabulary) {}

  void CheckPlugins(const Config& config) {
    absl::flat_hash_map<absl::string_view, int> first_index;
    for (int i = 0; i < config.plugins_size(); ++i) {
      const Plugin& plugin = config.plugins(i);
      const std::string path = Indexed("plugins", i);
      if (plugin.path().empty()) {
        Report(path, "a plugin needs a non-empty path");
      } else {
        NoteOrReportRepeat(first_index, plugin.path(), i, "plugins",
                           absl::StrCat(path, ".path"), "plugin");
      }
      const std::string& sha = plugin.sha256();
      if (!IsWellFormedSha256Pin(sha)) {
        Report(absl::StrCat(path, ".sha256"),
               absl::StrCat("sha256 must be 64 hex digits, got \"", sha, "\" (",
                            sha.size(), " characters)"));
      }
    }
  }

  void CheckProviders(const Config& config) {
    absl::flat_hash_map<absl::string_view, int> first_index;
    for (int i = 0; i < config.providers_size(); ++i) {
      const Provider& provider = config.providers(i);
      const std::string path = Indexed("providers", i);
      if (provider.name().empty()) {
        Report(path, "a provider entry needs a name");
      } else {
        NoteOrReportRepeat(first_index, provider.name(), i, "providers",
                           absl::StrCat(path, ".name"), "provider");
      }
      if (!provider.has_enabled() && provider.options_size() == 0) {
        Report(path, "set enabled: true or enabled: false (or options)");
      }
      CheckProviderOptions(provider, path);
    }
  }

  void CheckProviderOptions(const Provider& provider, const std::string& path) {
    absl::flat_hash_map<absl::string_view, int> first_index;
    for (int j = 0; j < provider.options_size(); ++j) {
      const ProviderOption& option = provider.options(j);
      const std::string option_path = Indexed(absl::StrCat(path, ".options"), j);
      if (!ValidOptionKey(option.key())) {
        Report(absl::StrCat(option_path, ".key"),
               absl::StrCat("option key \"", option.key(), "\" must be 1-63 characters of [a-z0-9_.-]"));
        continue;
      }
      NoteOrReportRepeat(first_index, option.key(), j, absl::StrCat(path, ".options"),
                         absl::StrCat(option_path, ".key"), "option");
    }
  }

  static bool ValidOptionKey(absl::string_view key) {
    if (key.empty() || key.size() > 63) return false;
    for (char c : key) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-')) return false;
    }
    return true;
  }

  void CheckPriorities(const Config& config) {
    absl::flat_hash_map<std::pair<absl::string_view, absl::string_view>, int>
        first_index;
    for (int i = 0; i < config.priorities_size(); ++i) {
      const Priority& priority = config.priorities(i);
      const std::string path = Indexed("priorities", i);
      if (priority.provider().empty()) {
        Report(path, "a priority entry needs a provider");
      }
      if (!priority.interface().empty()) {
        CheckName(absl::StrCat(path, ".interface"), "interface",
                  priority.interface(), InterfaceNames(vocabulary_));
      }
      if (!priority.has_priority()) {
        Report(path, "a priority entry needs a priority value");
      }
      auto [it, inserted] = first_index.emplace(
          std::make_pair(absl::string_view(priority.provider()),
                         absl::string_view(priority.interface())),
          i);
      if (!inserted && !priority.provider().empty()) {
        Report(path, absl::StrCat(
                         "priority for provider \"", priority.provider(), "\"",
                         priority.interface().empty()
                             ? std::string(" (all interfaces)")
                             : absl::StrCat(" on interface \"",
                                            priority.interface(), "\""),
                         " is set twice (first at ",
                         PositionText(Where(Indexed("priorities", it->second))),
                         ")"));
      }
    }
  }

  // Reports empty provider names and repeats in one provider list.
  void CheckProviderList(absl::string_view rule_path, absl::string_view field,
                         const google::protobuf::RepeatedPtrField<std::string>& names) {
    const std::string list_path = absl::StrCat(rule_path, ".", field);
    for (int i = 0; i < names.size(); ++i) {
      if (names[i].empty()) Report(Indexed(list_path, i), "empty provider name");
    }
    CheckNoRepeats(list_path, names, "provider");
  }

  // Reports providers that appear in both `first` and `second` lists.
  void CheckDisjoint(absl::string_view rule_path, absl::string_view first_field,
                     const google::protobuf::RepeatedPtrField<std::string>& first,
                     absl::string_view second_field,
                     const google::protobuf::RepeatedPtrField<std::string>& second,
                     absl::string_view conflict) {
    for (int i = 0; i < second.size(); ++i) {
      auto it = std::find(first.begin(), first.end(), second[i]);
      if (it == first.end() || second[i].empty()) continue;
      const int first_index = static_cast<int>(it - first.begin());
      Report(Indexed(absl::StrCat(rule_path, ".", second_field), i),
             absl::StrCat("provider \"", second[i], "\" is both ", conflict,
                          " (", first_field, " at ",
                          PositionText(Where(Indexed(
                              absl::StrCat(rule_path, ".", first_field), first_index))),
                          ")"));
    }
  }

  void CheckRules(const Config& config) {
    absl::flat_hash_map<absl::string_view, std::vector<int>> indices_by_name;
    for (int i = 0; i < config.rules_size(); ++i) {
      const Rule& rule = config.rules(i);
      const std::string path = Indexed("rules", i);
      if (rule.name().empty()) {
        Report(path, "a rule needs a non-empty name (decision records cite it)");
      } else {
        indices_by_name[rule.name()].push_back(i);
      }
      if (rule.has_match()) CheckRuleMatch(*this, path, rule.match(), vocabulary_);
      if (rule.prefer().empty() && rule.deny().empty() && rule.allow().empty() &&
          !rule.has_strict()) {
        Report(path, absl::StrCat("rule \"", rule.name(),
                                  "\" has no action; set prefer, deny, allow or strict"));
      }
      CheckProviderList(path, "prefer", rule.prefer());
      CheckProviderList(path, "deny", rule.deny());
      CheckProviderList(path, "allow", rule.allow());
      CheckDisjoint(path, "prefer", rule.prefer(), "deny", rule.deny(),
                    "preferred and denied");
      CheckDisjoint(path, "allow", rule.allow(), "deny", rule.deny(),
                    "allowed and denied");
    }
    for (const auto& [name, indices] : indices_by_name) {
      if (indices.size() < 2) continue;
      for (int index : indices) {
        std::vector<std::string> others;
        for (int other : indices) {
          if (other != index) {
            others.push_back(PositionText(Where(Indexed("rules", other) + ".name")));
          }
        }
        Report(Indexed("rules", index) + ".name",
               absl::StrCat("duplicate rule name \"", name, "\" (also at ",
                            absl::StrJoin(others, ", "), ")"));
      }
    }
  }

  void CheckTopLevel(const Config& config) {
    if (!config.log_level().empty()) {
      CheckName("log_level", "log level", config.log_level(), CanonicalLogLevels());
    }
    for (int i = 0; i < config.strict_interfaces_size(); ++i) {
      CheckName(Indexed("strict_interfaces", i), "interface",
                config.strict_interfaces(i), InterfaceNames(vocabulary_));
    }
    CheckNoRepeats("strict_interfaces", config.strict_interfaces(), "interface");
    if (config.has_probe_timeout_ms() &&
        (config.probe_timeout_ms() < 1 || config.probe_timeout_ms() > kMaxProbeTimeoutMs)) {
      Report("probe_timeout_ms", absl::StrCat("probe_timeout_ms must be between 1 and ", kMaxProbeTimeoutMs,
                                              " (10 minutes), got ", config.probe_timeout_ms()));
    }
  }

 private:
  const Vocabulary& vocabulary_;
};

}  // namespace

bool IsWellFormedSha256Pin(const std::string& sha256) {
  return sha256.empty() ||
         (sha256.size() == 64 && std::all_of(sha256.begin(), sha256.end(), [](char c) {
            return std::isxdigit(static_cast<unsigned char>(c)) != 0;
          }));
}

void ValidateConfigSemantics(const Config& config,
                             const FieldLocations& locations,
                             const Vocabulary& vocabulary,
                             ProblemList* problems) {
  Checker checker(locations, problems, vocabulary);
  checker.CheckTopLevel(config);
  checker.CheckPlugins(config);
  checker.CheckProviders(config);
  checker.CheckPriorities(config);
  checker.CheckRules(config);
}

}  // namespace teplug::config
