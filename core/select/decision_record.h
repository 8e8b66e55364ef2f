// Why an op went where it went: one verdict per candidate implementation,
// with the exact reason and values. Returned by Select, attached to strict
// errors, logged, and printed by `teplug explain`.
#ifndef TEPLUG_CORE_SELECT_DECISION_RECORD_H_
#define TEPLUG_CORE_SELECT_DECISION_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

namespace teplug::core {

enum class Verdict { kChosen, kOutranked, kRejected };
const char* VerdictName(Verdict v);  // "chosen", "outranked", "rejected"

struct CandidateVerdict {
  std::string implementation;  // "provider/name"
  std::string provider;
  Verdict verdict = Verdict::kRejected;
  // Which filter decided: "device", "capability", "supports", "config",
  // "request", or "ranking" (chosen/outranked).
  std::string stage;
  // e.g. "head_dim_qk 320 > max 256", "priority 300", "outranked by native/cudnn
  // (priority 300 > 0)".
  std::string reason;
  int32_t priority = 0;  // effective priority (config override or default)
  // The config rule that applied, e.g. `config rule "no-fp8" (teplug.textproto:12)`,
  // or "" when none did.
  std::string rule;
};

struct DecisionRecord {
  std::string interface_name;  // "IAttention/1"
  std::string op_summary;      // OpDescription::summary
  // Chosen first, then outranked in rank order, then rejected in name order.
  std::vector<CandidateVerdict> candidates;
  bool strict = false;
  std::string strict_source;  // why strict ("config strict", a rule, "API option")
  std::string requested_provider;  // Select(..., provider) or ""
  uint64_t config_generation = 0;

  bool served() const { return !candidates.empty() && candidates[0].verdict == Verdict::kChosen; }
  const CandidateVerdict* chosen() const { return served() ? &candidates[0] : nullptr; }
  // A table: candidate | verdict | priority | reason | rule.
  std::string Format() const;
  // One line for logs: "<op> -> reference/default: priority 0 (1 outranked, 2 rejected)".
  std::string OneLine() const;
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_SELECT_DECISION_RECORD_H_
