#include "core/select/decision_record.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace teplug::core {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kChosen: return "chosen";
    case Verdict::kOutranked: return "outranked";
    case Verdict::kRejected: return "rejected";
  }
  return "?";
}

std::string DecisionRecord::Format() const {
  std::string out = absl::StrCat(interface_name, " ", op_summary, "\n");
  if (!requested_provider.empty()) absl::StrAppend(&out, "requested provider: ", requested_provider, "\n");
  if (strict) absl::StrAppend(&out, "strict: yes (", strict_source, ")\n");
  size_t w = 9;
  for (const auto& c : candidates) w = std::max(w, c.implementation.size());
  absl::StrAppend(&out, absl::StrFormat("  %-*s  %-9s  %8s  %s\n", static_cast<int>(w), "candidate",
                                        "verdict", "priority", "reason"));
  for (const auto& c : candidates) {
    absl::StrAppend(&out, absl::StrFormat("  %-*s  %-9s  %8d  %s%s\n", static_cast<int>(w), c.implementation,
                                          VerdictName(c.verdict), c.priority,
                                          c.stage.empty() ? "" : absl::StrCat("[", c.stage, "] "), c.reason));
    if (!c.rule.empty()) {
      absl::StrAppend(&out, absl::StrFormat("  %-*s  %-9s  %8s  by %s\n", static_cast<int>(w), "", "", "", c.rule));
    }
  }
  if (candidates.empty()) absl::StrAppend(&out, "  (no implementation of this interface is registered)\n");
  if (!served()) absl::StrAppend(&out, "  => no provider can serve this op\n");
  return out;
}

std::string DecisionRecord::OneLine() const {
  int outranked = 0, rejected = 0;
  for (const auto& c : candidates) {
    if (c.verdict == Verdict::kOutranked) ++outranked;
    if (c.verdict == Verdict::kRejected) ++rejected;
  }
  if (!served()) {
    return absl::StrCat(op_summary, " -> no provider (", rejected, " rejected)");
  }
  const CandidateVerdict& c = candidates[0];
  return absl::StrCat(op_summary, " -> ", c.implementation, ": ", c.reason, " (", outranked, " outranked, ",
                      rejected, " rejected)");
}

}  // namespace teplug::core
