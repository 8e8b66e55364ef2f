// An asymmetric memory fence: readers on the hot path use a compiler-only
// fence, and a rare writer makes every thread of the process execute a full
// fence (Linux membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), as userspace
// RCU does). Together they order a reader's "store my count; load the
// shared state" against a writer's "store the shared state; load the
// counts", which otherwise needs a full fence (a locked instruction) on the
// reader's side on every call.
#ifndef TEPLUG_CORE_CONCURRENCY_PROCESS_FENCE_H_
#define TEPLUG_CORE_CONCURRENCY_PROCESS_FENCE_H_

#include <atomic>
#include <string>

namespace teplug::core {

// Whether the process-wide fence is available (Linux 4.14 or later, not
// blocked by a seccomp filter). Decided once, on first use; registers the
// process for it.
bool ProcessFenceAvailable();

// The writer's side: true once every thread of the process has executed a
// full memory fence; false (with the reason in *error_text) when the kernel
// refused, and then nothing is ordered. Only valid when
// ProcessFenceAvailable().
bool ProcessWideFence(std::string* error_text);

// The reader's side, paired with ProcessWideFence: stops the compiler (not
// the CPU) from moving memory accesses across it.
inline void LightFence() { std::atomic_signal_fence(std::memory_order_seq_cst); }

}  // namespace teplug::core

#endif  // TEPLUG_CORE_CONCURRENCY_PROCESS_FENCE_H_
