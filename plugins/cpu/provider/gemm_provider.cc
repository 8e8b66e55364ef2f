#include "plugins/cpu/provider/gemm_provider.h"

#include <utility>

#include "plugins/cpu/provider/gemm_signature.h"
#include "plugins/cpu/provider/thread_budget.h"
#include "teplug/sdk/error.hpp"

namespace teplug::cpu::provider {

CpuGemm::CpuGemm(size_t plan_cache_capacity, int threads)
    : plans_(plan_cache_capacity), threads_(threads) {}

bool CpuGemm::Supports(const TeplugGemmArgs& args, std::string* reason) {
  absl::StatusOr<GemmCall> call = ReadGemmCall(args);
  if (call.ok() || call.status().code() != absl::StatusCode::kUnimplemented) return true;
  *reason = std::string(call.status().message());
  return false;
}

void CpuGemm::Gemm(const TeplugGemmArgs& args) {
  const absl::Status status = Run(args);
  if (status.ok()) return;
  const std::string message(status.message());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      throw sdk::InvalidArgument(message);
    case absl::StatusCode::kUnimplemented:
      throw sdk::Unsupported(message);
    default:
      throw sdk::Internal(message);
  }
}

absl::Status CpuGemm::Run(const TeplugGemmArgs& args) {
  absl::StatusOr<GemmCall> call = ReadGemmCall(args);
  if (!call.ok()) return call.status();
  const GemmSignature& s = call->signature;
  if (s.m == 0 || s.n == 0) return absl::OkStatus();  // D and pre_gelu_out are empty
  // oneDNN sizes a primitive's work split when it creates it and runs it on
  // the threads OpenMP gives it then: budget both.
  const ScopedOmpThreads budget(threads_);
  const std::string key = s.Key();
  std::shared_ptr<const GemmPlan> plan = plans_.Find(key);
  if (plan == nullptr) {
    absl::StatusOr<std::shared_ptr<const GemmPlan>> created = GemmPlan::Create(s);
    if (!created.ok()) return created.status();
    plan = plans_.Insert(key, *std::move(created));
  }
  return plan->Run(call->buffers, threads_);
}

}  // namespace teplug::cpu::provider
