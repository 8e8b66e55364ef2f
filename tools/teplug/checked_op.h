// Runs one op of the main job the way a framework would — through the
// kernel's dispatching object, which selects the provider and falls back at
// call time — crediting the implementation that served it, and, unless the
// reference served it or the job does not compare, once more through the
// reference provider (Kernel::Select(..., "reference")) on the same inputs
// into separate outputs, measuring the difference. The caller adds the
// independent check. Timing an op (TimeOp) is a separate step.
#ifndef TEPLUG_TOOLS_TEPLUG_CHECKED_OP_H_
#define TEPLUG_TOOLS_TEPLUG_CHECKED_OP_H_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/kernel/kernel.h"
#include "tools/teplug/host_tensor.h"
#include "tools/teplug/op_report.h"

namespace teplug::cli {

// The name of the provider every result is compared against.
inline constexpr char kReferenceProvider[] = "reference";

// Whether the job compares each op with the reference provider (errors and
// speedup) or not at all (`teplug run --compare none`: a pure benchmark).
enum class Compare { kReference, kNone };

struct OpCall {
  std::string step;   // "fwd", "bwd"
  std::string label;  // "gemm qkv_proj (fp8 per_tensor)"
  TeplugIID iid{};
  int32_t op = 0;
  const void* args = nullptr;  // writes into `outputs`
  std::vector<HostTensor*> outputs;
  // Calls the op on `object` (the dispatching object or an implementation).
  std::function<TeplugError*(TeplugObject* object, const void* args)> invoke;
  // Args equal to `args` except that they write into `outputs` (same order
  // as `outputs`); the returned pointer stays valid while the function lives.
  std::function<const void*(const std::vector<HostTensor*>& outputs)> rebind;
  double tolerance_vs_reference = 0;
};

// An OpCall with its identity, outputs and tolerance set; the caller adds
// `invoke` and `rebind`.
OpCall MakeOpCall(std::string step, std::string label, const TeplugIID& iid, int32_t op,
                  const void* args, std::vector<HostTensor*> outputs,
                  double tolerance_vs_reference);

// Explains, runs through `dispatcher` (crediting the implementation that
// served, core::ServedByRecorder), and with Compare::kReference compares
// with the reference. Errors name the op label and the provider that failed.
absl::StatusOr<OpResult> RunCheckedOp(const core::Kernel& kernel, TeplugObject* dispatcher,
                                      const OpCall& call, Compare compare);

// Times `call` (OpTiming): after one untimed call of each, OpTiming::kTimedReps
// calls through `dispatcher` and, with Compare::kReference, as many through
// the reference provider's implementation, alternating, all writing into copies of the outputs (the
// job's tensors keep the checked call's results). The caller makes sure
// nothing else of the job runs meanwhile.
absl::StatusOr<OpTiming> TimeOp(const core::Kernel& kernel, TeplugObject* dispatcher,
                                const OpCall& call, Compare compare);

// Milliseconds from `start` to now (steady clock).
double MillisSince(std::chrono::steady_clock::time_point start);

// "the warm-up call" for rep -1, "timed call N" for rep N-1: how an error
// of TimeOp's loop (and the all-reduce's) names the call that failed.
std::string TimedCallName(int rep);

// The reference provider's implementation for `op` with `args` (requested by
// name, so exempt from config allow lists); errors name `label`.
absl::StatusOr<core::Selection> SelectReference(const core::Kernel& kernel, const TeplugIID& iid,
                                                int32_t op, const void* args,
                                                const std::string& label);

// The provider part of "provider/name".
std::string ProviderOf(const std::string& implementation);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CHECKED_OP_H_
