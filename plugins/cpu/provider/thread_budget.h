// The cpu provider's thread budget. oneDNN as Debian builds it runs on the
// OpenMP runtime (GNU libgomp): a primitive takes omp_get_max_threads() of
// the thread that creates and runs it, by default one per core the process
// may use (OMP_NUM_THREADS changes that for the whole process).
// TEPLUG_CPU_THREADS=N, or the config's `providers { name: "cpu" options {
// key: "threads" value: "N" } }`, limits the cpu provider's GEMMs, attention
// and quantizer to N threads without touching anything else in the process,
// so several ranks sharing a machine can split its cores (N = cores / ranks)
// instead of each taking all. The variable wins over the option: it is
// per process (`teplug run --launch processes` sets it for each rank), the
// config per deployment.
#ifndef TEPLUG_PLUGINS_CPU_PROVIDER_THREAD_BUDGET_H_
#define TEPLUG_PLUGINS_CPU_PROVIDER_THREAD_BUDGET_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace teplug::cpu::provider {

inline constexpr char kCpuThreadsVariable[] = "TEPLUG_CPU_THREADS";
inline constexpr char kCpuThreadsOption[] = "threads";

// The budget a value of TEPLUG_CPU_THREADS sets: 0 (no budget: OpenMP's
// default) for NULL or empty, N for a decimal integer 1..4096; otherwise
// InvalidArgument naming the variable and the value.
absl::StatusOr<int> ParseCpuThreads(const char* value);

// The budget: TEPLUG_CPU_THREADS's value (`variable`, NULL when unset) when
// it is set and not empty, else the config's `threads` option (`option`,
// nullopt when unset), else 0. A malformed value is InvalidArgument naming
// where it came from and the value.
absl::StatusOr<int> CpuThreadBudget(const char* variable, const std::optional<std::string>& option);

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
