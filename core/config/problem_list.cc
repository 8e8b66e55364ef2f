#include "core/config/problem_list.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/log/untrusted_text.h"

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
  // The file's own text (a bad value, a token the parser choked on) and its
  // path are echoed here: escaped, so a config cannot forge or break lines.
  const std::string source = core::EscapeUntrustedText(source_name_);
  std::string text;
  for (const Problem* problem : sorted) {
    const std::string message = core::EscapeUntrustedText(problem->message);
    if (!text.empty()) text += '\n';
    if (problem->has_position) {
      absl::StrAppend(&text, source, ":", problem->position.line, ":",
                      problem->position.column, ": ", message);
    } else {
      absl::StrAppend(&text, source, ": ", message);
    }
  }
  return absl::InvalidArgumentError(text);
}

}  // namespace teplug::config
