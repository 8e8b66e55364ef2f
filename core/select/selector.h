// Selection per op: filter every registered implementation of the interface
// by device, static capability, the dynamic `supports` hook and config rules,
// then rank the survivors. The result never depends on load order: ties are
// broken by provider name, then implementation name.
//
// Deciding is on the dispatch slow path and in Select/Explain, so it works on
// numbers and pointers; the human-readable DecisionRecord (strings for every
// candidate) is built only when someone asks for it, once per decision.
#ifndef TEPLUG_CORE_SELECT_SELECTOR_H_
#define TEPLUG_CORE_SELECT_SELECTOR_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config_snapshot.h"
#include "core/registry/implementation.h"
#include "core/ops/interface_module.h"
#include "core/ops/refusal.h"
#include "core/select/decision_record.h"

namespace teplug::core {

// The implementations of one interface, sorted by provider then name.
using ImplementationList = std::vector<std::shared_ptr<const Implementation>>;

// Which filter decided about a candidate.
enum class Stage : uint8_t { kRequest, kConfig, kDevice, kCapability, kSupports, kRanking };

struct SelectRequest;

class Decision {
 public:
  Decision() = default;
  Decision(Decision&&) = default;
  Decision& operator=(Decision&&) = default;

  // Survivors in rank order: [0] is chosen, the rest are the call-time
  // fallbacks in order. Empty when nothing can serve the op.
  std::vector<std::shared_ptr<const Implementation>> ranked;

  bool served() const { return !ranked.empty(); }
  bool strict() const { return strict_; }
  const std::string& strict_source() const { return strict_source_; }
  const std::string& op_summary() const { return op_summary_; }
  uint64_t config_generation() const { return config_generation_; }
  size_t candidate_count() const { return verdicts_.size(); }

  // Every candidate's verdict with its reason, built on first use (thread
  // safe; the decision may be shared through the decision cache).
  const DecisionRecord& record() const;

  // True the first time it is called for `index` on this decision (always
  // true past index 63). Lets call-time fallback skip building its warning,
  // and the logger's lock, on every later call: a provider that keeps
  // answering UNAVAILABLE must not put a lock on the hot path. The logger's
  // log-once key stays the authority across decisions.
  bool FirstFallbackFrom(size_t index) const;

  // The candidates whose supports() let a C++ exception escape (each is
  // rejected at the supports stage with that text as its reason), for the
  // kernel's warning. Usually empty.
  struct SupportsException {
    const Implementation* impl;  // alive through the decision's pool
    std::string what;            // "C++ exception escaped <impl> supports: ..."
  };
  const std::vector<SupportsException>& supports_exceptions() const { return supports_exceptions_; }

 private:
  friend Decision Decide(const SelectRequest& request);

  enum class Why : uint8_t { kNone, kNotRequested, kDisabled, kDenied, kNotAllowed, kRefused, kExplained };
  struct CompactVerdict {
    const Implementation* impl = nullptr;  // alive through pool_
    size_t index = 0;                      // in *pool_
    Verdict verdict = Verdict::kRejected;
    Stage stage = Stage::kRanking;
    Why why = Why::kNone;
    bool priority_from_config = false;
    int32_t priority = 0;
    std::optional<int> prefer_rank;
    const config::CompiledRule* rule = nullptr;  // alive through config_
    // The allow rule a requested provider was exempted from, or null.
    const config::CompiledRule* allow_exempted_by = nullptr;
    Refusal refusal;     // kRefused: the device/capability refusal, as values
    std::string reason;  // kExplained: what supports() said
  };
  // Heap state shared by the cached decision's readers (and kept at a stable
  // address, so Decision stays movable).
  struct LazyRecord {
    std::once_flag once;
    DecisionRecord record;
    std::atomic<uint64_t> fallbacks_announced{0};  // bit i: FirstFallbackFrom(i) was called
  };

  DecisionRecord Materialize() const;

  std::vector<CompactVerdict> verdicts_;  // survivors in rank order, then rejections
  std::shared_ptr<const ImplementationList> pool_;
  std::shared_ptr<const config::ConfigSnapshot> config_;
  const char* interface_name_ = "";
  std::string op_summary_;
  std::string requested_provider_;
  uint64_t config_generation_ = 0;
  bool strict_ = false;
  std::string strict_source_;
  const config::CompiledRule* prefer_rule_ = nullptr;
  std::vector<SupportsException> supports_exceptions_;
  std::unique_ptr<LazyRecord> lazy_ = std::make_unique<LazyRecord>();
};

struct SelectRequest {
  const OpDescription* op = nullptr;
  // Every implementation of op->module, sorted by provider then name.
  std::shared_ptr<const ImplementationList> candidates;
  std::shared_ptr<const config::ConfigSnapshot> config;
  // Restrict to this provider (it must still accept the op); "" = any. A
  // provider named here is exempt from config allow lists, not from deny
  // lists or `providers { enabled: false }`.
  std::string provider;
  // Strict because the API says so, regardless of config.
  bool api_strict = false;
};

Decision Decide(const SelectRequest& request);

// Sorts a list the way SelectRequest::candidates must be.
void SortImplementations(ImplementationList* list);
// The same order when list[0, sorted) is already sorted: sorts the rest and
// merges it in, O(n + k log k) for k new entries (how a provider's
// implementations join a registry without re-sorting it).
void MergeImplementations(ImplementationList* list, size_t sorted);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_SELECT_SELECTOR_H_
