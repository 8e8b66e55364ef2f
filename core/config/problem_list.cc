#include "core/config/problem_list.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace teplug::config {

ProblemList::ProblemList(std::string source_name)
    : source_name_(std::move(source_name)) {}

void ProblemList::Add(SourcePosition position, std::string message) {
  problems_.push_back(Problem{true, position, std::move(message)});
}

void ProblemList::AddWithoutPosition(std::string message) {
  problems_.push_back(Problem{false, SourcePosition{}, std::move(message)});
}

absl::Status ProblemList::ToStatus() const {
  if (problems_.empty()) return absl::OkStatus();
  std::vector<const Problem*> sorted;
  sorted.reserve(problems_.size());
  for (const Problem& problem : problems_) sorted.push_back(&problem);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Problem* a, const Problem* b) {
                     if (a->has_position != b->has_position) {
                       return a->has_position;
                     }
                     if (a->position.line != b->position.line) {
                       return a->position.line < b->position.line;
                     }
                     return a->position.column < b->position.column;
                   });
  std::string text;
  for (const Problem* problem : sorted) {
    if (!text.empty()) text += '\n';
    if (problem->has_position) {
      absl::StrAppend(&text, source_name_, ":", problem->position.line, ":",
                      problem->position.column, ": ", problem->message);
    } else {
      absl::StrAppend(&text, source_name_, ": ", problem->message);
    }
  }
  return absl::InvalidArgumentError(text);
}

}  // namespace teplug::config
