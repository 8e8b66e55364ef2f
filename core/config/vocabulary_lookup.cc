#include "core/config/vocabulary_lookup.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace teplug::config {
namespace {

void AddOnce(std::vector<absl::string_view>* names, absl::string_view name) {
  if (std::find(names->begin(), names->end(), name) == names->end()) names->push_back(name);
}

}  // namespace

const InterfaceVocabulary* FindInterface(const Vocabulary& vocabulary, absl::string_view name) {
  for (const InterfaceVocabulary& candidate : vocabulary) {
    if (candidate.name == name) return &candidate;
  }
  return nullptr;
}

const FactSpec* FindFact(const InterfaceVocabulary& interface_vocabulary, absl::string_view name) {
  for (const FactSpec& fact : interface_vocabulary.facts) {
    if (fact.name == name) return &fact;
  }
  return nullptr;
}

bool HasOp(const InterfaceVocabulary& interface_vocabulary, absl::string_view op) {
  const auto& ops = interface_vocabulary.ops;
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

const std::string* UndecidedOpNote(const InterfaceVocabulary& interface_vocabulary,
                                   absl::string_view op) {
  for (const auto& [undecided, note] : interface_vocabulary.undecided_ops) {
    if (undecided == op) return &note;
  }
  return nullptr;
}

std::vector<absl::string_view> InterfaceNames(const Vocabulary& vocabulary) {
  std::vector<absl::string_view> names;
  for (const InterfaceVocabulary& entry : vocabulary) AddOnce(&names, entry.name);
  return names;
}

std::vector<absl::string_view> AllOpNames(const Vocabulary& vocabulary) {
  std::vector<absl::string_view> names;
  for (const InterfaceVocabulary& entry : vocabulary) {
    for (const std::string& op : entry.ops) AddOnce(&names, op);
  }
  return names;
}

std::vector<absl::string_view> AllFactNames(const Vocabulary& vocabulary) {
  std::vector<absl::string_view> names;
  for (const InterfaceVocabulary& entry : vocabulary) {
    for (const FactSpec& fact : entry.facts) AddOnce(&names, fact.name);
  }
  return names;
}

std::string JoinFactNames(const InterfaceVocabulary& interface_vocabulary) {
  std::string text;
  for (const FactSpec& fact : interface_vocabulary.facts) {
    absl::StrAppend(&text, text.empty() ? "" : ", ", fact.name);
  }
  return text.empty() ? std::string("none") : text;
}

std::vector<std::string> ExpandFactValue(const Vocabulary& vocabulary, absl::string_view fact,
                                         const std::string& value) {
  for (const InterfaceVocabulary& entry : vocabulary) {
    const FactSpec* spec = FindFact(entry, fact);
    if (spec == nullptr) continue;
    for (const auto& [group, members] : spec->groups) {
      if (group == value) return members;
    }
  }
  return {value};
}

std::vector<absl::string_view> ViewsOf(const std::vector<std::string>& names) {
  return std::vector<absl::string_view>(names.begin(), names.end());
}

}  // namespace teplug::config
