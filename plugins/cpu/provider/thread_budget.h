// The cpu provider's thread budget. oneDNN as Debian builds it runs on the
// OpenMP runtime (GNU libgomp): a primitive takes omp_get_max_threads() of
// the thread that creates and runs it, by default one per core the process
// may use (OMP_NUM_THREADS changes that for the whole process).
// TEPLUG_CPU_THREADS=N limits the cpu provider's GEMMs to N threads without
// touching anything else in the process, so several ranks sharing a machine
// can split its cores (N = cores / ranks) instead of each taking all.
#ifndef TEPLUG_PLUGINS_CPU_PROVIDER_THREAD_BUDGET_H_
#define TEPLUG_PLUGINS_CPU_PROVIDER_THREAD_BUDGET_H_

#include "absl/status/statusor.h"

namespace teplug::cpu::provider {

inline constexpr char kCpuThreadsVariable[] = "TEPLUG_CPU_THREADS";

// The budget a value of TEPLUG_CPU_THREADS sets: 0 (no budget: OpenMP's
// default) for NULL or empty, N for a decimal integer 1..4096; otherwise
// InvalidArgument naming the variable and the value.
absl::StatusOr<int> ParseCpuThreads(const char* value);

// Sets the calling thread's OpenMP thread count to `threads` for its
// lifetime and restores the previous count after; does nothing for 0.
class ScopedOmpThreads {
 public:
  explicit ScopedOmpThreads(int threads);
  ~ScopedOmpThreads();
  ScopedOmpThreads(const ScopedOmpThreads&) = delete;
  ScopedOmpThreads& operator=(const ScopedOmpThreads&) = delete;

 private:
  int previous_ = 0;  // 0: nothing to restore
};

}  // namespace teplug::cpu::provider

#endif  // TEPLUG_PLUGINS_CPU_PROVIDER_THREAD_BUDGET_H_
