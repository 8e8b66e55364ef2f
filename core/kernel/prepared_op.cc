#include "core/kernel/prepared_op.h"

namespace teplug::core {

void PreparedOp::Bind(uint64_t generation, const CachedDecision* decision,
                      std::unique_ptr<CachedDecision> owned) const {
  std::lock_guard<std::mutex> lock(mu_);
  // A thread still on an older state may bind after one on a newer state
  // did: keep the newer binding.
  const Binding* current = binding_.load(std::memory_order_relaxed);
  if (current != nullptr && current->generation > generation) return;
  if (owned != nullptr) owned_.push_back(std::move(owned));
  bindings_.push_back(std::make_unique<const Binding>(Binding{generation, decision}));
  binding_.store(bindings_.back().get(), std::memory_order_release);
}

}  // namespace teplug::core
