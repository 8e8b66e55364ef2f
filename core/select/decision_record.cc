#include "core/select/decision_record.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace teplug::core {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kChosen: return "chosen";
    case Verdict::kOutranked: return "outranked";
    case Verdict::kRejected: return "rejected";
  }
  return "?";
}

const char* StageName(Stage s) {
  switch (s) {
    case Stage::kRequest: return "request";
    case Stage::kConfig: return "config";
    case Stage::kDevice: return "device";
    case Stage::kCapability: return "capability";
    case Stage::kSupports: return "supports";
    case Stage::kRanking: return "ranking";
  }
  return "?";
}

namespace {

// The reason before the device names are applied.
std::string AbiReason(const DecisionRecord& rec, const CandidateVerdict& v) {
  using Why = CandidateVerdict::Why;
  const std::string prefer_rule = rec.prefer_rule != nullptr ? rec.prefer_rule->Describe() : "";
  std::string reason;
  switch (v.verdict) {
    case Verdict::kChosen: {
      reason = v.prefer_rank ? absl::StrCat("preferred (#", *v.prefer_rank + 1, ") by ", prefer_rule)
                             : absl::StrCat("priority ", v.priority, v.priority_from_config ? " (config override)" : "");
      // Survivors come first, so the chosen one is alone when the next is rejected.
      const bool only = rec.candidates.size() < 2 || rec.candidates[1].verdict == Verdict::kRejected;
      if (only) reason += " (the only candidate that accepts the op)";
      break;
    }
    case Verdict::kOutranked: {
      const CandidateVerdict& winner = rec.candidates[0];
      std::string by = absl::StrCat("outranked by ", winner.implementation(), " (");
      if (winner.prefer_rank && !v.prefer_rank) {
        reason = absl::StrCat(by, "preferred by ", prefer_rule, ")");
      } else if (winner.prefer_rank && v.prefer_rank && *winner.prefer_rank != *v.prefer_rank) {
        reason = absl::StrCat(by, "earlier in the prefer list of ", prefer_rule, ")");
      } else if (winner.priority != v.priority) {
        reason = absl::StrCat(by, "priority ", winner.priority, " > ", v.priority, ")");
      } else {
        reason = absl::StrCat(by, "same priority ", winner.priority, ", name order)");
      }
      break;
    }
    case Verdict::kRejected:
      switch (v.why) {
        case Why::kNotRequested:
          reason = absl::StrCat("not the requested provider \"", rec.requested_provider, "\"");
          break;
        case Why::kDisabled:
          reason = absl::StrCat("provider disabled in config ", rec.config->source_name());
          break;
        case Why::kDenied: reason = "denied"; break;
        case Why::kNotAllowed: reason = "not in the allow list"; break;
        case Why::kRefused: reason = FormatRefusal(rec.RefusalOf(v), v.impl->capability.devices); break;
        case Why::kExplained: reason = rec.ExplanationOf(v); break;
        case Why::kNone: break;
      }
      break;
  }
  if (v.allow_exempted_by != nullptr) {
    absl::StrAppend(&reason, "; allowed because requested explicitly (", v.allow_exempted_by->Describe(),
                    " allows only ", absl::StrJoin(v.allow_exempted_by->allow, ", "), ")");
  }
  return reason;
}

}  // namespace

std::string DecisionRecord::Reason(const CandidateVerdict& c) const {
  std::string reason = AbiReason(*this, c);
  return spelling != nullptr ? spelling->Rename(reason) : reason;
}

std::string DecisionRecord::Rule(const CandidateVerdict& c) const {
  if (c.verdict == Verdict::kChosen && c.prefer_rank && prefer_rule != nullptr) return prefer_rule->Describe();
  return c.rule != nullptr ? c.rule->Describe() : "";
}

std::string DecisionRecord::StrictSource() const {
  switch (strict_by) {
    case StrictBy::kNone: return "";
    case StrictBy::kApi: return "API option";
    case StrictBy::kRule: return strict_rule->Describe();
    case StrictBy::kConfig: return absl::StrCat("config ", config->source_name());
  }
  return "";
}

std::string DecisionRecord::Format() const {
  std::string out = absl::StrCat(interface_name, " ", op_summary, "\n");
  if (!requested_provider.empty()) absl::StrAppend(&out, "requested provider: ", requested_provider, "\n");
  if (strict) absl::StrAppend(&out, "strict: yes (", StrictSource(), ")\n");
  size_t w = 9;
  for (const auto& c : candidates) w = std::max(w, c.implementation().size());
  absl::StrAppend(&out, absl::StrFormat("  %-*s  %-9s  %8s  %s\n", static_cast<int>(w), "candidate",
                                        "verdict", "priority", "reason"));
  for (const auto& c : candidates) {
    absl::StrAppend(&out, absl::StrFormat("  %-*s  %-9s  %8d  [%s] %s\n", static_cast<int>(w), c.implementation(),
                                          VerdictName(c.verdict), c.priority, StageName(c.stage), Reason(c)));
    const std::string rule = Rule(c);
    if (!rule.empty()) {
      absl::StrAppend(&out, absl::StrFormat("  %-*s  %-9s  %8s  by %s\n", static_cast<int>(w), "", "", "", rule));
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
  return absl::StrCat(op_summary, " -> ", c.implementation(), ": ", Reason(c), " (", outranked, " outranked, ",
                      rejected, " rejected)");
}

}  // namespace teplug::core
