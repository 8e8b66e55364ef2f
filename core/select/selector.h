// Selection per op: filter every registered implementation of the interface
// by device, static capability, the dynamic `supports` hook and config rules,
// then rank the survivors. The result never depends on load order: ties are
// broken by provider name, then implementation name.
//
// Deciding is on the dispatch slow path and in Select/Explain, so it builds
// the decision record's verdicts from numbers and pointers and formats no
// text (decision_record.h): the record's text is produced when it is read.
#ifndef TEPLUG_CORE_SELECT_SELECTOR_H_
#define TEPLUG_CORE_SELECT_SELECTOR_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config/config_snapshot.h"
#include "core/registry/implementation.h"
#include "core/ops/interface_module.h"
#include "core/select/decision_record.h"

namespace teplug::core {

struct SelectRequest;

class Decision {
 public:
  Decision() = default;
  Decision(Decision&&) = default;
  Decision& operator=(Decision&&) = default;

  // Survivors in rank order: [0] is chosen, the rest are the call-time
  // fallbacks in order. Empty when nothing can serve the op. Alive through
  // record().pool; Shared(i) is ranked[i] for holders that outlive the
  // decision.
  std::vector<const Implementation*> ranked;
  std::shared_ptr<const Implementation> Shared(size_t rank) const {
    return (*record_.pool)[record_.candidates[rank].index];
  }

  bool served() const { return !ranked.empty(); }
  bool strict() const { return record_.strict; }
  std::string strict_source() const { return record_.StrictSource(); }
  const std::string& op_summary() const { return record_.op_summary; }
  uint64_t config_generation() const { return record_.config_generation; }
  size_t candidate_count() const { return record_.candidates.size(); }

  // Every candidate's verdict; its text is formatted when read. Immutable,
  // so safe to read from every thread sharing the decision through the
  // decision cache.
  const DecisionRecord& record() const { return record_; }

  // True the first time it is called for `index` on this decision (always
  // true past index 63). Lets call-time fallback skip building its warning,
  // and the logger's lock, on every later call: a provider that keeps
  // answering UNAVAILABLE must not put a lock on the hot path. The logger's
  // log-once key stays the authority across decisions.
  bool FirstFallbackFrom(size_t index) const;

 private:
  friend Decision Decide(const SelectRequest& request);

  DecisionRecord record_;
  // Bit i: FirstFallbackFrom(i) was called. On the heap so that Decision
  // stays movable.
  std::unique_ptr<std::atomic<uint64_t>> fallbacks_announced_ = std::make_unique<std::atomic<uint64_t>>(0);
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
  // How the record spells device kinds and vendors in reasons; null: the ABI's spellings.
  std::shared_ptr<const ReasonSpelling> spelling;
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
