// Decisions already made for a registry + config generation, keyed by op
// signature. Lookups are lock-free (a fixed open-addressing table of atomic
// pointers to immutable entries); inserts CAS into an empty slot. The cache
// lives inside one kernel state, so a registry or config change, which
// publishes a new state, starts with an empty cache: invalidation is free.
#ifndef TEPLUG_CORE_KERNEL_DECISION_CACHE_H_
#define TEPLUG_CORE_KERNEL_DECISION_CACHE_H_

#include <atomic>
#include <memory>

#include "core/ops/op_signature.h"
#include "core/select/selector.h"

namespace teplug::core {

struct CachedDecision {
  OpSignature key;  // built by the op's key builder (table_key.h), so key.hash() is set
  // Bit i: decision.ranked[i] let a C++ exception escape while serving this
  // signature, so later calls skip it (until a registry or config change
  // publishes a new state, and with it a new cache). Placed beside
  // `decision` so the hit path reads it from a line it touches anyway.
  mutable std::atomic<uint64_t> broken{0};
  Decision decision;

  // Only the first 64 candidates can be marked; a later one is retried.
  void MarkBroken(size_t index) const {
    if (index < 64) broken.fetch_or(uint64_t{1} << index, std::memory_order_relaxed);
  }
  bool IsBroken(size_t index) const {
    return index < 64 && (broken.load(std::memory_order_relaxed) >> index & 1) != 0;
  }
  // The first candidate at or after `from` that is not marked broken, or
  // decision.ranked.size() when there is none.
  size_t NextUsable(size_t from) const {
    while (from < decision.ranked.size() && IsBroken(from)) ++from;
    return from;
  }
};

class DecisionCache {
 public:
  static constexpr size_t kSlots = 2048;  // power of two
  static constexpr size_t kMaxProbe = 16;

  DecisionCache() = default;
  ~DecisionCache();
  DecisionCache(const DecisionCache&) = delete;
  DecisionCache& operator=(const DecisionCache&) = delete;

  // The cached decision for `key`, or nullptr.
  const CachedDecision* Find(const OpSignature& key) const {
    const uint64_t hash = key.hash();
    for (size_t probe = 0; probe < kMaxProbe; ++probe) {
      const CachedDecision* e = slots_[(hash + probe) & (kSlots - 1)].load(std::memory_order_acquire);
      if (e == nullptr) return nullptr;
      if (e->key.hash() == hash && e->key == key) return e;
    }
    return nullptr;
  }

  // Inserts `entry`, or finds an equal one another thread inserted first.
  // Returns the cached entry, or nullptr when the probe window is full (the
  // caller then uses its own entry, uncached; `entry` is left untouched).
  const CachedDecision* Insert(std::unique_ptr<CachedDecision>& entry);

 private:
  std::atomic<const CachedDecision*> slots_[kSlots] = {};
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_KERNEL_DECISION_CACHE_H_
