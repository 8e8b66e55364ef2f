// What a prepared dispatching object (Kernel::Prepare) holds: the op it was
// prepared for, that op's decision-cache key, and the decision itself, so a
// call of that op skips building the key and probing the cache.
//
// The decision lives in the cache of the kernel state it was made in. A
// binding names that state by its generation; a call whose state is a later
// one (a plugin was loaded, the config reloaded) is dispatched by key like
// any call, and the decision the new state caches for the key becomes the
// binding, so a prepared object follows every registry and config change.
#ifndef TEPLUG_CORE_KERNEL_PREPARED_OP_H_
#define TEPLUG_CORE_KERNEL_PREPARED_OP_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/kernel/decision_cache.h"
#include "core/ops/op_signature.h"

namespace teplug::core {

class PreparedOp {
 public:
  struct Binding {
    uint64_t generation;             // KernelState::generation of the state it was decided in
    const CachedDecision* decision;  // in that state's cache (or owned by the PreparedOp)
  };

  // `key` is the op's key as prepared; `summary` the op described as
  // prepared (for messages); `check_calls` makes every call compare its
  // own key with `key`.
  PreparedOp(int32_t op, const OpSignature& key, std::string summary, bool check_calls)
      : op_(op), key_(key), summary_(std::move(summary)), check_calls_(check_calls) {}
  PreparedOp(const PreparedOp&) = delete;
  PreparedOp& operator=(const PreparedOp&) = delete;

  int32_t op() const { return op_; }
  const OpSignature& key() const { return key_; }
  const std::string& summary() const { return summary_; }
  bool check_calls() const { return check_calls_; }

  // The latest binding; never null once Bind was called (Prepare does).
  const Binding* binding() const { return binding_.load(std::memory_order_acquire); }
  // Binds the decision of the state numbered `generation`. Earlier bindings
  // are kept until the object is destroyed (a reader may still hold one), a
  // few bytes per registry or config change. `owned`, when given, is a
  // decision the cache could not take; the PreparedOp keeps it.
  void Bind(uint64_t generation, const CachedDecision* decision, std::unique_ptr<CachedDecision> owned = nullptr) const;

 private:
  const int32_t op_;
  const OpSignature key_;
  const std::string summary_;
  const bool check_calls_;
  mutable std::atomic<const Binding*> binding_{nullptr};
  mutable std::mutex mu_;  // guards the two vectors below (writers only)
  mutable std::vector<std::unique_ptr<const Binding>> bindings_;
  mutable std::vector<std::unique_ptr<CachedDecision>> owned_;
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_KERNEL_PREPARED_OP_H_
