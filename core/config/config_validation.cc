#include "core/config/config_validation.h"

#include <algorithm>
#include <cctype>
#include "absl/strings/string_view.h"
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/config/canonical_names.h"

namespace teplug::config {
namespace {

// The longest pre-flight probe a config may allow, in milliseconds.
constexpr int32_t kMaxProbeTimeoutMs = 600000;

std::string Indexed(absl::string_view path, int index) {
  return absl::StrCat(path, "[", index, "]");
}

std::string PositionText(SourcePosition position) {
  return absl::StrCat(position.line, ":", position.column);
}

// Adds problems at the position of the field they are about; the message
// starts with the field path so JSON and text errors read the same.
class Checker {
 public:
  Checker(const FieldLocations& locations, ProblemList* problems)
      : locations_(locations), problems_(problems) {}

  SourcePosition Where(absl::string_view path) const {
    return locations_.FindNearest(path);
  }

  void Report(absl::string_view path, absl::string_view message) {
    problems_->Add(Where(path), absl::StrCat(path, ": ", message));
  }

  // Reports `value` at `path` unless it is one of `allowed`.
  void CheckName(absl::string_view path, absl::string_view what,
                 const std::string& value,
                 const std::vector<absl::string_view>& allowed) {
    if (Contains(allowed, value)) return;
    Report(path, absl::StrCat("unknown ", what, " \"", value,
                              "\"; expected one of: ", JoinNames(allowed)));
  }

  // Remembers that `value` first appeared in entry `index` of the list at
  // `list_path`; when it was seen before, reports `report_path` as a repeat,
  // citing where the first entry is.
  void NoteOrReportRepeat(absl::flat_hash_map<absl::string_view, int>& first_index,
                          absl::string_view value, int index,
                          absl::string_view list_path,
                          absl::string_view report_path, absl::string_view what) {
    auto [it, inserted] = first_index.emplace(value, index);
    if (inserted) return;
    Report(report_path,
           absl::StrCat(what, " \"", value, "\" is listed twice (first at ",
                        PositionText(Where(Indexed(list_path, it->second))), ")"));
  }

  // Reports every later repetition of a value within one repeated field.
  void CheckNoRepeats(absl::string_view list_path,
                      const google::protobuf::RepeatedPtrField<std::string>& values,
                      absl::string_view what) {
    absl::flat_hash_map<absl::string_view, int> first_index;
    for (int i = 0; i < values.size(); ++i) {
      NoteOrReportRepeat(first_index, values[i], i, list_path,
                         Indexed(list_path, i), what);
    }
  }

  void CheckRange(absl::string_view path, const Range& range) {
    if (!range.has_min() && !range.has_max()) {
      Report(path, "empty range: set min, max or both (inclusive bounds)");
      return;
    }
    if (range.has_min() && range.min() < 0) {
      Report(absl::StrCat(path, ".min"),
             absl::StrCat("negative bound ", range.min(), "; must be >= 0"));
    }
    if (range.has_max() && range.max() < 0) {
      Report(absl::StrCat(path, ".max"),
             absl::StrCat("negative bound ", range.max(), "; must be >= 0"));
    }
    if (range.has_min() && range.has_max() && range.min() > range.max()) {
      Report(path, absl::StrCat("inverted range: min ", range.min(),
                                " is greater than max ", range.max()));
    }
  }

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
      if (!sha.empty() &&
          (sha.size() != 64 ||
           !std::all_of(sha.begin(), sha.end(), [](char c) {
             return std::isxdigit(static_cast<unsigned char>(c)) != 0;
           }))) {
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
      if (!provider.has_enabled()) {
        Report(path, "set enabled: true or enabled: false");
      }
    }
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
                  priority.interface(), CanonicalInterfaces());
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

  void CheckMatch(absl::string_view rule_path, const Match& match) {
    const std::string path = absl::StrCat(rule_path, ".match");
    const std::string interfaces_path = absl::StrCat(path, ".interfaces");
    std::vector<absl::string_view> rule_ops;  // Ops of the rule's interfaces.
    std::vector<absl::string_view> valid_interfaces;
    for (int i = 0; i < match.interfaces_size(); ++i) {
      CheckName(Indexed(interfaces_path, i), "interface", match.interfaces(i),
                CanonicalInterfaces());
      const auto& ops = CanonicalOps(match.interfaces(i));
      if (!ops.empty()) valid_interfaces.push_back(match.interfaces(i));
      rule_ops.insert(rule_ops.end(), ops.begin(), ops.end());
    }
    CheckNoRepeats(interfaces_path, match.interfaces(), "interface");

    const std::string ops_path = absl::StrCat(path, ".ops");
    for (int i = 0; i < match.ops_size(); ++i) {
      const std::string& op = match.ops(i);
      const std::string op_path = Indexed(ops_path, i);
      if (!Contains(AllCanonicalOps(), op)) {
        CheckName(op_path, "op", op, AllCanonicalOps());
      } else if (!valid_interfaces.empty() && !Contains(rule_ops, op)) {
        Report(op_path,
               absl::StrCat("op \"", op, "\" does not belong to the rule's interfaces (",
                            absl::StrJoin(valid_interfaces, ", "),
                            "); their ops are: ", JoinNames(rule_ops)));
      }
    }
    CheckNoRepeats(ops_path, match.ops(), "op");

    const std::string kinds_path = absl::StrCat(path, ".device_kinds");
    for (int i = 0; i < match.device_kinds_size(); ++i) {
      if (!IsValidDeviceKindSpelling(match.device_kinds(i))) {
        Report(Indexed(kinds_path, i),
               absl::StrCat("invalid device kind \"", match.device_kinds(i),
                            "\"; expected ", JoinNames(BuiltinDeviceKinds()),
                            " or a vendor-defined kind spelled [a-z0-9_]+"));
      }
    }
    CheckNoRepeats(kinds_path, match.device_kinds(), "device kind");

    const std::string vendors_path = absl::StrCat(path, ".vendors");
    for (int i = 0; i < match.vendors_size(); ++i) {
      if (match.vendors(i).empty()) {
        Report(Indexed(vendors_path, i), "empty vendor name");
      }
    }

    const std::string dtypes_path = absl::StrCat(path, ".dtypes");
    for (int i = 0; i < match.dtypes_size(); ++i) {
      CheckName(Indexed(dtypes_path, i), "dtype", match.dtypes(i),
                CanonicalDtypes());
    }
    CheckNoRepeats(dtypes_path, match.dtypes(), "dtype");

    const std::string layouts_path = absl::StrCat(path, ".layouts");
    for (int i = 0; i < match.layouts_size(); ++i) {
      const std::string& layout = match.layouts(i);
      if (Contains(CanonicalLayouts(), layout) ||
          Contains(CanonicalLayoutFormats(), layout)) {
        continue;
      }
      Report(Indexed(layouts_path, i),
             absl::StrCat("unknown layout \"", layout,
                          "\"; expected a format (", JoinNames(CanonicalLayoutFormats()),
                          ") or a layout (", JoinNames(CanonicalLayouts()), ")"));
    }
    CheckNoRepeats(layouts_path, match.layouts(), "layout");

    const std::string masks_path = absl::StrCat(path, ".mask_types");
    for (int i = 0; i < match.mask_types_size(); ++i) {
      CheckName(Indexed(masks_path, i), "mask type", match.mask_types(i),
                CanonicalMaskTypes());
    }
    CheckNoRepeats(masks_path, match.mask_types(), "mask type");

    if (match.has_head_dim()) {
      CheckRange(absl::StrCat(path, ".head_dim"), match.head_dim());
    }
    if (match.has_seq_len()) {
      CheckRange(absl::StrCat(path, ".seq_len"), match.seq_len());
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
      if (rule.has_match()) CheckMatch(path, rule.match());
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
                config.strict_interfaces(i), CanonicalInterfaces());
    }
    CheckNoRepeats("strict_interfaces", config.strict_interfaces(), "interface");
    if (config.has_probe_timeout_ms() &&
        (config.probe_timeout_ms() < 1 || config.probe_timeout_ms() > kMaxProbeTimeoutMs)) {
      Report("probe_timeout_ms", absl::StrCat("probe_timeout_ms must be between 1 and ", kMaxProbeTimeoutMs,
                                              " (10 minutes), got ", config.probe_timeout_ms()));
    }
  }

 private:
  const FieldLocations& locations_;
  ProblemList* problems_;
};

}  // namespace

void ValidateConfigSemantics(const Config& config,
                             const FieldLocations& locations,
                             ProblemList* problems) {
  Checker checker(locations, problems);
  checker.CheckTopLevel(config);
  checker.CheckPlugins(config);
  checker.CheckProviders(config);
  checker.CheckPriorities(config);
  checker.CheckRules(config);
}

absl::Status ValidateProviderNames(
    const ValidatedConfig& config,
    const std::vector<std::string>& known_provider_names) {
  ProblemList problems(config.source_name);
  const std::string known =
      known_provider_names.empty() ? std::string("(none loaded)")
                                   : absl::StrJoin(known_provider_names, ", ");
  auto check = [&](const std::string& path, const std::string& name) {
    if (name.empty()) return;  // Reported by ValidateConfigSemantics.
    if (std::find(known_provider_names.begin(), known_provider_names.end(),
                  name) != known_provider_names.end()) {
      return;
    }
    problems.Add(config.locations.FindNearest(path),
                 absl::StrCat(path, ": unknown provider \"", name,
                              "\"; known providers: ", known));
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
    for (int j = 0; j < rule.prefer_size(); ++j) {
      check(Indexed(path + ".prefer", j), rule.prefer(j));
    }
    for (int j = 0; j < rule.deny_size(); ++j) {
      check(Indexed(path + ".deny", j), rule.deny(j));
    }
    for (int j = 0; j < rule.allow_size(); ++j) {
      check(Indexed(path + ".allow", j), rule.allow(j));
    }
  }
  return problems.ToStatus();
}

}  // namespace teplug::config
