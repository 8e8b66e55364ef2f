#include "core/config/fact_table.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace teplug::config {
namespace {

// "`a` `b` `c`".
std::string Code(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  for (const std::string& name : names) quoted.push_back(absl::StrCat("`", name, "`"));
  return absl::StrJoin(quoted, " ");
}

std::string Values(const FactSpec& fact) {
  if (fact.kind == FactKind::kInteger) return "`{ min: N max: M }`";
  if (fact.values.empty()) return "any name";
  std::string text;
  if (!fact.groups.empty()) {
    std::vector<std::string> groups;
    for (const auto& group : fact.groups) groups.push_back(group.first);
    absl::StrAppend(&text, "a group ", Code(groups), " (stands for its values) or ");
  }
  absl::StrAppend(&text, Code(fact.values));
  return text;
}

}  // namespace

std::string FactTableMarkdown(const Vocabulary& vocabulary) {
  std::string text =
      "| interface | ops a rule may name | ops decided elsewhere |\n"
      "| --- | --- | --- |\n";
  for (const InterfaceVocabulary& entry : vocabulary) {
    std::vector<std::string> decided, undecided;
    for (const std::string& op : entry.ops) {
      bool elsewhere = false;
      for (const auto& undecided_op : entry.undecided_ops) elsewhere |= undecided_op.first == op;
      (elsewhere ? undecided : decided).push_back(op);
    }
    std::string notes;
    if (!undecided.empty()) notes = absl::StrCat(Code(undecided), ": ", entry.undecided_ops.front().second);
    absl::StrAppend(&text, "| `", entry.name, "` (", entry.display_name, ") | ", Code(decided), " | ", notes,
                    " |\n");
  }
  absl::StrAppend(&text,
                  "\n"
                  "| interface | fact | matched with | values | what it is |\n"
                  "| --- | --- | --- | --- | --- |\n");
  for (const InterfaceVocabulary& entry : vocabulary) {
    for (const FactSpec& fact : entry.facts) {
      absl::StrAppend(&text, "| `", entry.name, "` | `", fact.name, "` | ",
                      fact.kind == FactKind::kInteger ? "range" : "values", " | ", Values(fact), " | ",
                      fact.doc, " |\n");
    }
  }
  return text;
}

}  // namespace teplug::config
