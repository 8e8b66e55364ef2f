// IGemm v1 of the cpu provider: fp32, fp16 and bf16 host matrices on oneDNN's
// matmul (A and B also fp8 with per-tensor, MXFP8 or block scales, decoded
// for the matmul), with bias, GELU (tanh), pre_gelu_out and accumulate,
// transposes and any positive strides; the semantics of the reference
// provider (gemm.h).
// Primitives are built per op signature (GemmPlan) and kept in a bounded LRU
// cache.
#ifndef TEPLUG_PLUGINS_CPU_PROVIDER_GEMM_PROVIDER_H_
#define TEPLUG_PLUGINS_CPU_PROVIDER_GEMM_PROVIDER_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "plugins/cpu/provider/bounded_lru_cache.h"
#include "plugins/cpu/provider/gemm_plan.h"
#include "teplug/gemm.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::cpu::provider {

// Plans kept per provider object: enough for every GEMM shape of a
// transformer block's forward and backward passes (a few dozen signatures).
inline constexpr size_t kGemmPlanCacheCapacity = 64;

class CpuGemm : public sdk::GemmImpl {
 public:
  // `threads`: the OpenMP threads each GEMM may use (thread_budget.h); 0 for
  // OpenMP's default.
  explicit CpuGemm(size_t plan_cache_capacity = kGemmPlanCacheCapacity, int threads = 0);

  // false with the reason (naming the field and value) for args this
  // provider does not serve (ReadGemmCall's Unimplemented cases); true for
  // everything else, malformed args included: Gemm reports those.
  bool Supports(const TeplugGemmArgs& args, std::string* reason) override;
  // Runs Run and throws its error as an sdk::Exception.
  void Gemm(const TeplugGemmArgs& args) override;

  // The GEMM: InvalidArgument for malformed args, Unimplemented for ones not
  // served, Internal when oneDNN fails.
  absl::Status Run(const TeplugGemmArgs& args);

  BoundedLruCache<GemmPlan>& plan_cache() { return plans_; }

 private:
  BoundedLruCache<GemmPlan> plans_;
  const int threads_;
};

}  // namespace teplug::cpu::provider

#endif  // TEPLUG_PLUGINS_CPU_PROVIDER_GEMM_PROVIDER_H_
