#include "core/config/problem_list.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/log/untrusted_text.h"

namespace teplug::config {

ProblemList::ProblemList(std::string source_name)
    : source_name_(std::move(source_name)) {}

void ProblemList::Add(SourcePosition position, std::string message) {
  problems_.push_back(Problem{false, true, position, std::move(message)});
  ++num_errors_;
}

void ProblemList::AddWithoutPosition(std::string message) {
  problems_.push_back(Problem{false, false, SourcePosition{}, std::move(message)});
  ++num_errors_;
}

void ProblemList::AddWarning(SourcePosition position, std::string message) {
  problems_.push_back(Problem{true, true, position, std::move(message)});
}

std::vector<std::string> ProblemList::Format(bool errors, bool warnings) const {
  std::vector<const Problem*> sorted;
  sorted.reserve(problems_.size());
  for (const Problem& problem : problems_) {
    if (problem.is_warning ? warnings : errors) sorted.push_back(&problem);
  }
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
  std::vector<std::string> lines;
  lines.reserve(sorted.size());
  for (const Problem* problem : sorted) {
    const std::string message = core::EscapeUntrustedText(problem->message);
    const char* severity = problem->is_warning ? "warning: " : "";
    if (problem->has_position) {
      lines.push_back(absl::StrCat(source, ":", problem->position.line, ":",
                                   problem->position.column, ": ", severity, message));
    } else {
      lines.push_back(absl::StrCat(source, ": ", severity, message));
    }
  }
  return lines;
}

absl::Status ProblemList::ToStatus() const {
  if (!has_errors()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(Format(true, false), "\n"));
}

std::vector<std::string> ProblemList::Lines() const { return Format(true, true); }

std::vector<std::string> ProblemList::WarningLines() const { return Format(false, true); }

}  // namespace teplug::config
