#include "core/config/match_validation.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "core/config/canonical_names.h"
#include "core/config/vocabulary_lookup.h"

namespace teplug::config {
namespace {

using Names = google::protobuf::RepeatedPtrField<std::string>;

// One condition on a fact, from a shortcut field (dtypes, head_dim, ...) or
// a `facts` entry, with the paths its problems are reported at.
struct Condition {
  std::string path;  // the shortcut field, or the facts entry
  std::string fact;
  const Names* values = nullptr;  // non-null when values are given
  std::string values_path;
  const Range* range = nullptr;  // non-null when a range is given
  std::string range_path;
  bool from_facts_entry = false;
};

// "mask type" for "mask_type": how a fact's values are named in messages.
std::string ValueNoun(absl::string_view fact) { return absl::StrReplaceAll(fact, {{"_", " "}}); }

class MatchChecker {
 public:
  MatchChecker(LocatedChecker& checker, absl::string_view rule_path, const Match& match,
               const Vocabulary& vocabulary)
      : checker_(checker),
        path_(absl::StrCat(rule_path, ".match")),
        match_(match),
        vocabulary_(vocabulary) {}

  void Run() {
    const size_t errors_before = checker_.num_errors();
    CheckInterfaces();
    CheckOps();
    CheckDevices();
    CollectConditions();
    for (const Condition& condition : conditions_) CheckCondition(condition);
    if (checker_.num_errors() != errors_before) return;
    WarnIfNoInterfaceHasAllFacts();
    WarnIfConditionsExcludeEachOther();
  }

 private:
  void CheckInterfaces() {
    const std::string interfaces_path = absl::StrCat(path_, ".interfaces");
    for (int i = 0; i < match_.interfaces_size(); ++i) {
      const InterfaceVocabulary* found = FindInterface(vocabulary_, match_.interfaces(i));
      if (found == nullptr) {
        checker_.CheckName(Indexed(interfaces_path, i), "interface", match_.interfaces(i),
                           InterfaceNames(vocabulary_));
      } else if (std::find(listed_.begin(), listed_.end(), found) == listed_.end()) {
        listed_.push_back(found);
      }
    }
    checker_.CheckNoRepeats(interfaces_path, match_.interfaces(), "interface");
    if (match_.interfaces_size() == 0) {
      for (const InterfaceVocabulary& entry : vocabulary_) listed_.push_back(&entry);
    }
    scope_ = listed_;
  }

  void CheckOps() {
    const std::string ops_path = absl::StrCat(path_, ".ops");
    std::vector<const InterfaceVocabulary*> owners_of_listed_ops;
    for (int i = 0; i < match_.ops_size(); ++i) {
      const std::string& op = match_.ops(i);
      const std::string op_path = Indexed(ops_path, i);
      std::vector<const InterfaceVocabulary*> owners;
      for (const InterfaceVocabulary* entry : listed_) {
        if (HasOp(*entry, op)) owners.push_back(entry);
      }
      if (owners.empty()) {
        ReportOpOutsideScope(op_path, op);
        continue;
      }
      if (const std::string* note = UndecidedOpNote(*owners.front(), op)) {
        checker_.Report(op_path, absl::StrCat("op \"", op, "\" of ", owners.front()->name,
                                              " is not decided per call: ", *note));
        continue;
      }
      for (const InterfaceVocabulary* owner : owners) {
        if (std::find(owners_of_listed_ops.begin(), owners_of_listed_ops.end(), owner) ==
            owners_of_listed_ops.end()) {
          owners_of_listed_ops.push_back(owner);
        }
      }
    }
    checker_.CheckNoRepeats(ops_path, match_.ops(), "op");
    if (!owners_of_listed_ops.empty()) scope_ = owners_of_listed_ops;
  }

  void ReportOpOutsideScope(const std::string& op_path, const std::string& op) {
    const std::vector<absl::string_view> all_ops = AllOpNames(vocabulary_);
    if (std::find(all_ops.begin(), all_ops.end(), op) == all_ops.end()) {
      checker_.CheckName(op_path, "op", op, all_ops);
      return;
    }
    std::vector<absl::string_view> names, their_ops;
    for (const InterfaceVocabulary* entry : listed_) {
      names.push_back(entry->name);
      for (const std::string& listed_op : entry->ops) their_ops.push_back(listed_op);
    }
    checker_.Report(op_path, absl::StrCat("op \"", op, "\" does not belong to the rule's interfaces (",
                                          absl::StrJoin(names, ", "),
                                          "); their ops are: ", absl::StrJoin(their_ops, ", ")));
  }

  void CheckDevices() {
    const std::string kinds_path = absl::StrCat(path_, ".device_kinds");
    for (int i = 0; i < match_.device_kinds_size(); ++i) {
      if (!IsValidDeviceKindSpelling(match_.device_kinds(i))) {
        checker_.Report(Indexed(kinds_path, i),
                        absl::StrCat("invalid device kind \"", match_.device_kinds(i), "\"; expected ",
                                     JoinNames(BuiltinDeviceKinds()),
                                     " or a vendor-defined kind spelled [a-z0-9_]+"));
      }
    }
    checker_.CheckNoRepeats(kinds_path, match_.device_kinds(), "device kind");
    const std::string vendors_path = absl::StrCat(path_, ".vendors");
    for (int i = 0; i < match_.vendors_size(); ++i) {
      if (match_.vendors(i).empty()) checker_.Report(Indexed(vendors_path, i), "empty vendor name");
    }
  }

  void CollectConditions() {
    auto add_values = [&](absl::string_view fact, absl::string_view field, const Names& values) {
      if (values.empty()) return;
      const std::string path = absl::StrCat(path_, ".", field);
      conditions_.push_back({path, std::string(fact), &values, path, nullptr, "", false});
    };
    auto add_range = [&](absl::string_view fact, bool present, const Range& range) {
      if (!present) return;
      const std::string path = absl::StrCat(path_, ".", fact);
      conditions_.push_back({path, std::string(fact), nullptr, "", &range, path, false});
    };
    add_values("dtype", "dtypes", match_.dtypes());
    add_values("layout", "layouts", match_.layouts());
    add_values("mask_type", "mask_types", match_.mask_types());
    add_range("head_dim", match_.has_head_dim(), match_.head_dim());
    add_range("seq_len", match_.has_seq_len(), match_.seq_len());
    const std::string facts_path = absl::StrCat(path_, ".facts");
    for (int i = 0; i < match_.facts_size(); ++i) {
      const FactMatch& entry = match_.facts(i);
      const std::string path = Indexed(facts_path, i);
      Condition condition{path, entry.fact(), nullptr, absl::StrCat(path, ".values"),
                          nullptr, absl::StrCat(path, ".range"), true};
      if (!entry.values().empty()) condition.values = &entry.values();
      if (entry.has_range()) condition.range = &entry.range();
      conditions_.push_back(condition);
    }
  }

  // The specs of `fact` in the interfaces of the rule's scope.
  std::vector<const FactSpec*> SpecsInScope(absl::string_view fact) const {
    std::vector<const FactSpec*> specs;
    for (const InterfaceVocabulary* entry : scope_) {
      if (const FactSpec* spec = FindFact(*entry, fact)) specs.push_back(spec);
    }
    return specs;
  }

  // The specs of `fact` in every interface of the vocabulary.
  std::vector<const FactSpec*> SpecsOfEveryInterface(absl::string_view fact) const {
    std::vector<const FactSpec*> specs;
    for (const InterfaceVocabulary& entry : vocabulary_) {
      if (const FactSpec* spec = FindFact(entry, fact)) specs.push_back(spec);
    }
    return specs;
  }

  std::string ScopeNames() const {
    std::vector<absl::string_view> names;
    for (const InterfaceVocabulary* entry : scope_) names.push_back(entry->name);
    return absl::StrJoin(names, " or ");
  }

  void CheckCondition(const Condition& condition) {
    if (condition.from_facts_entry && !CheckFactsEntryShape(condition)) return;
    std::vector<const FactSpec*> specs = SpecsInScope(condition.fact);
    if (specs.empty()) {
      // Reported, then its values are still checked against the interfaces
      // that have the fact, so every mistake is reported in one pass.
      if (!ReportFactOutsideScope(condition)) return;
      specs = SpecsOfEveryInterface(condition.fact);
    }
    const FactKind kind = specs.front()->kind;
    if (condition.values != nullptr) {
      if (kind == FactKind::kInteger) {
        checker_.Report(condition.values_path,
                        absl::StrCat("fact \"", condition.fact,
                                     "\" is an integer: match it with a range { min: ... max: ... }, "
                                     "not with values"));
      } else {
        CheckValues(condition, specs);
      }
    }
    if (condition.range != nullptr) {
      if (kind == FactKind::kName) {
        checker_.Report(condition.range_path,
                        absl::StrCat("fact \"", condition.fact,
                                     "\" is a name: match it with values, not with a range"));
      } else {
        checker_.CheckRange(condition.range_path, *condition.range);
      }
    }
  }

  // A facts entry needs a fact name and exactly one of values and range.
  bool CheckFactsEntryShape(const Condition& condition) {
    if (condition.fact.empty()) {
      checker_.Report(condition.path,
                      "a facts entry needs a fact name (core/config/README.md lists each "
                      "interface's facts)");
      return false;
    }
    if ((condition.values == nullptr) == (condition.range == nullptr)) {
      checker_.Report(condition.path,
                      absl::StrCat("fact \"", condition.fact, "\": give either values (a name fact) "
                                   "or a range (an integer fact)",
                                   condition.values == nullptr ? "" : ", not both"));
      return false;
    }
    return true;
  }

  // Reports a fact no interface of the scope has; returns whether some other
  // interface has it (false: an unknown fact).
  bool ReportFactOutsideScope(const Condition& condition) {
    const std::vector<absl::string_view> all_facts = AllFactNames(vocabulary_);
    if (std::find(all_facts.begin(), all_facts.end(), condition.fact) == all_facts.end()) {
      std::vector<absl::string_view> scope_facts;
      for (const InterfaceVocabulary* entry : scope_) {
        for (const FactSpec& spec : entry->facts) {
          if (std::find(scope_facts.begin(), scope_facts.end(), spec.name) == scope_facts.end()) {
            scope_facts.push_back(spec.name);
          }
        }
      }
      checker_.CheckName(condition.path, "fact", condition.fact, scope_facts);
      return false;
    }
    std::vector<std::string> offers;
    for (const InterfaceVocabulary* entry : scope_) {
      offers.push_back(absl::StrCat(entry->name, " rules may match on: ", JoinFactNames(*entry)));
    }
    std::vector<absl::string_view> owners;
    for (const InterfaceVocabulary& entry : vocabulary_) {
      if (FindFact(entry, condition.fact) != nullptr) owners.push_back(entry.name);
    }
    checker_.Report(condition.path,
                    absl::StrCat("\"", condition.fact, "\" is not a fact of ", ScopeNames(),
                                 ", so this rule would never match (", condition.fact,
                                 " is a fact of ", absl::StrJoin(owners, ", "), "); ",
                                 absl::StrJoin(offers, "; ")));
    return true;
  }

  void CheckValues(const Condition& condition, const std::vector<const FactSpec*>& specs) {
    // The groups and values of every interface that has the fact, in
    // vocabulary order, each once.
    std::vector<absl::string_view> allowed;
    auto add = [&](absl::string_view name) {
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) allowed.push_back(name);
    };
    for (const FactSpec* spec : specs) {
      if (spec->values.empty()) return;  // an open set: any value
      for (const auto& group : spec->groups) add(group.first);
      for (const std::string& value : spec->values) add(value);
    }
    const std::string noun = ValueNoun(condition.fact);
    for (int i = 0; i < condition.values->size(); ++i) {
      checker_.CheckName(Indexed(condition.values_path, i), noun, (*condition.values)[i], allowed);
    }
    checker_.CheckNoRepeats(condition.values_path, *condition.values, noun);
  }

  void WarnIfNoInterfaceHasAllFacts() {
    if (conditions_.empty()) return;
    std::vector<std::string> reasons;
    for (const InterfaceVocabulary* entry : scope_) {
      const Condition* missing = nullptr;
      for (const Condition& condition : conditions_) {
        if (FindFact(*entry, condition.fact) == nullptr) {
          missing = &condition;
          break;
        }
      }
      if (missing == nullptr) return;  // this interface can match
      reasons.push_back(absl::StrCat(entry->name, " has no fact ", missing->fact));
    }
    checker_.Warn(path_, absl::StrCat("this rule can never match: no interface it applies to has "
                                      "every fact it names (",
                                      absl::StrJoin(reasons, "; "), ")"));
  }

  void WarnIfConditionsExcludeEachOther() {
    for (size_t i = 0; i < conditions_.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        const Condition& earlier = conditions_[j];
        const Condition& later = conditions_[i];
        if (earlier.fact != later.fact) continue;
        if (earlier.values != nullptr && later.values != nullptr &&
            !ValuesOverlap(earlier, later)) {
          checker_.Warn(later.values_path,
                        absl::StrCat("this rule can never match: no value of ", later.fact,
                                     " is both one of these and one of those at ",
                                     PositionText(checker_.Where(earlier.values_path))));
          return;
        }
        if (earlier.range != nullptr && later.range != nullptr &&
            !RangesOverlap(*earlier.range, *later.range)) {
          checker_.Warn(later.range_path,
                        absl::StrCat("this rule can never match: this range of ", later.fact,
                                     " and the one at ",
                                     PositionText(checker_.Where(earlier.range_path)),
                                     " have no value in common"));
          return;
        }
      }
    }
  }

  bool ValuesOverlap(const Condition& a, const Condition& b) const {
    std::vector<std::string> expanded_a;
    for (const std::string& value : *a.values) {
      for (std::string& member : ExpandFactValue(vocabulary_, a.fact, value)) {
        expanded_a.push_back(std::move(member));
      }
    }
    for (const std::string& value : *b.values) {
      for (const std::string& member : ExpandFactValue(vocabulary_, b.fact, value)) {
        if (std::find(expanded_a.begin(), expanded_a.end(), member) != expanded_a.end()) return true;
      }
    }
    return false;
  }

  static bool RangesOverlap(const Range& a, const Range& b) {
    const int64_t low = std::max<int64_t>(a.has_min() ? a.min() : 0, b.has_min() ? b.min() : 0);
    constexpr int64_t kOpen = std::numeric_limits<int64_t>::max();
    const int64_t high = std::min<int64_t>(a.has_max() ? a.max() : kOpen, b.has_max() ? b.max() : kOpen);
    return low <= high;
  }

  LocatedChecker& checker_;
  const std::string path_;
  const Match& match_;
  const Vocabulary& vocabulary_;
  std::vector<const InterfaceVocabulary*> listed_;  // the listed interfaces, or all
  std::vector<const InterfaceVocabulary*> scope_;   // narrowed to the owners of listed ops
  std::vector<Condition> conditions_;
};

}  // namespace

void CheckRuleMatch(LocatedChecker& checker, absl::string_view rule_path, const Match& match,
                    const Vocabulary& vocabulary) {
  MatchChecker(checker, rule_path, match, vocabulary).Run();
}

}  // namespace teplug::config
