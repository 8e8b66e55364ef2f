// Why an op went where it went: one verdict per candidate implementation,
// with the exact reason and values. Returned by Select/Explain, attached to
// strict errors, logged, and printed by `teplug explain`.
//
// A verdict is the compact value the selector builds while deciding:
// pointers, enums and numbers; a capability refusal is a `Refusal` value in
// the record beside the verdicts. Deciding runs on every cache miss and
// among many implementations, and most verdicts are never read, so nothing
// here is text until someone reads it: the reason, the config rule and the
// implementation's name are produced from the verdict by the record's
// methods each time a record is printed, logged or turned into JSON, and
// never stored. A record is
// immutable once Decide returns it, so those methods are safe to call from
// any number of threads.
#ifndef TEPLUG_CORE_SELECT_DECISION_RECORD_H_
#define TEPLUG_CORE_SELECT_DECISION_RECORD_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/config/config_snapshot.h"
#include "core/ops/refusal.h"
#include "core/registry/implementation.h"

namespace teplug::core {

// The implementations of one interface, sorted by provider then name.
using ImplementationList = std::vector<std::shared_ptr<const Implementation>>;

enum class Verdict : uint8_t { kChosen, kOutranked, kRejected };
const char* VerdictName(Verdict v);  // "chosen", "outranked", "rejected"

// Which filter decided about a candidate (kRanking for chosen and outranked).
enum class Stage : uint8_t { kRequest, kConfig, kDevice, kCapability, kSupports, kRanking };
// "request", "config", "device", "capability", "supports", "ranking".
const char* StageName(Stage s);

// Rewrites the ABI's spelling of ids in a reason ("vendor1100", "0x1da3")
// into the names providers declared for them. The selector formats reasons
// from numbers; the kernel's device names implement this.
class ReasonSpelling {
 public:
  virtual ~ReasonSpelling() = default;
  virtual std::string Rename(absl::string_view text) const = 0;
};

struct CandidateVerdict {
  // Why a rejected candidate was rejected; kNone for chosen and outranked
  // ones, whose reason is how they ranked.
  enum class Why : uint8_t {
    kNone,
    kNotRequested,  // another provider was requested by name
    kDisabled,      // `providers { enabled: false }` in the config
    kDenied,        // in `rule`'s deny list
    kNotAllowed,    // not in `rule`'s allow list
    kRefused,       // the device or capability check: `refusal`
    kExplained,     // supports() declined: `explanation`
  };

  const Implementation* impl = nullptr;  // alive through DecisionRecord::pool
  size_t index = 0;                      // impl's position in *DecisionRecord::pool
  Verdict verdict = Verdict::kRejected;
  Stage stage = Stage::kRanking;
  Why why = Why::kNone;
  bool priority_from_config = false;  // `priority` is a config override
  // kExplained: `explanation` is a C++ exception that escaped supports().
  bool supports_threw = false;
  int32_t priority = 0;  // effective priority (config override or default)
  // The position of impl's provider in the record's prefer rule, if listed.
  std::optional<int> prefer_rank;
  // kDenied / kNotAllowed: the rule that rejected; alive through DecisionRecord::config.
  const config::CompiledRule* rule = nullptr;
  // The allow rule a requested provider was exempted from, or null.
  const config::CompiledRule* allow_exempted_by = nullptr;
  // kRefused: DecisionRecord::refusals[reason]; kExplained:
  // DecisionRecord::explanations[reason]. The reasons live beside the
  // verdicts so that a verdict stays a few words of plain values, built and
  // ordered by copying.
  uint32_t reason = 0;

  // "provider/name" and "provider": the implementation's own strings.
  const std::string& implementation() const { return impl->QualifiedName(); }
  const std::string& provider() const { return impl->provider->name; }
};

struct DecisionRecord {
  std::string interface_name;  // "IAttention/1"
  std::string op_summary;      // OpDescription::summary
  // Chosen first, then outranked in rank order, then rejected in name order.
  std::vector<CandidateVerdict> candidates;
  bool strict = false;
  // What decided `strict`: the API option, a rule's `strict` (`strict_rule`,
  // which may also say false), the config's `strict` setting, or nothing.
  enum class StrictBy : uint8_t { kNone, kApi, kRule, kConfig };
  StrictBy strict_by = StrictBy::kNone;
  const config::CompiledRule* strict_rule = nullptr;  // kRule
  std::string requested_provider;                     // Select(..., provider) or ""
  uint64_t config_generation = 0;
  // The first matching rule with a prefer list, or null; CandidateVerdict::prefer_rank indexes it.
  const config::CompiledRule* prefer_rule = nullptr;
  // Why the refused candidates were refused, as values (the device or
  // capability check); a Refusal is a reason inside a verdict, not a
  // verdict of its own.
  std::vector<Refusal> refusals;
  // What supports() answered for the candidates it declined (the plugin's
  // own text), or the exception that escaped it: the one reason that
  // arrives as text.
  std::vector<std::string> explanations;

  // What keeps the verdicts' pointers alive: the candidates' implementations
  // and the config snapshot whose rules they point at.
  std::shared_ptr<const ImplementationList> pool;
  std::shared_ptr<const config::ConfigSnapshot> config;
  // Applied to every reason; null: the ABI's spellings.
  std::shared_ptr<const ReasonSpelling> spelling;

  // The reason of a kRefused / kExplained verdict of this record.
  const Refusal& RefusalOf(const CandidateVerdict& c) const { return refusals[c.reason]; }
  const std::string& ExplanationOf(const CandidateVerdict& c) const {
    return explanations[c.reason];
  }

  bool served() const { return !candidates.empty() && candidates[0].verdict == Verdict::kChosen; }
  const CandidateVerdict* chosen() const { return served() ? &candidates[0] : nullptr; }

  // The text of one of this record's candidates' verdict: e.g.
  // "head_dim_qk 320 > max 256", "priority 300", "outranked by native/cudnn
  // (priority 300 > 0)".
  std::string Reason(const CandidateVerdict& c) const;
  // The config rule that applied, e.g. `config rule "no-fp8"
  // (teplug.textproto:12)`, or "" when none did.
  std::string Rule(const CandidateVerdict& c) const;
  // What decided `strict`: "API option", the rule, "config FILE"; "" for nothing.
  std::string StrictSource() const;

  // A table: candidate | verdict | priority | reason | rule.
  std::string Format() const;
  // One line for logs: "<op> -> reference/default: priority 0 (1 outranked, 2 rejected)".
  std::string OneLine() const;
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_SELECT_DECISION_RECORD_H_
