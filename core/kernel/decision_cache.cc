#include "core/kernel/decision_cache.h"

namespace teplug::core {

DecisionCache::~DecisionCache() {
  for (auto& slot : slots_) delete slot.load(std::memory_order_relaxed);
}

const CachedDecision* DecisionCache::Insert(std::unique_ptr<CachedDecision>& entry) {
  const uint64_t hash = entry->key.hash();
  for (size_t probe = 0; probe < kMaxProbe; ++probe) {
    std::atomic<const CachedDecision*>& slot = slots_[(hash + probe) & (kSlots - 1)];
    const CachedDecision* current = slot.load(std::memory_order_acquire);
    while (current == nullptr) {
      if (slot.compare_exchange_weak(current, entry.get(), std::memory_order_acq_rel,
                                     std::memory_order_acquire)) {
        return entry.release();
      }
    }
    if (current->key.hash() == hash && current->key == entry->key) return current;
  }
  return nullptr;
}

}  // namespace teplug::core
