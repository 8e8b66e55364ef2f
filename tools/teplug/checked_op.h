// Runs one op of the main job the way a framework would — through the
// kernel's dispatching object, which selects the provider — and, unless the
// chosen provider is the reference, once more through the reference provider
// (Kernel::Select(..., "reference")) on the same inputs into separate
// outputs, measuring the difference. The caller adds the independent check.
#ifndef TEPLUG_TOOLS_TEPLUG_CHECKED_OP_H_
#define TEPLUG_TOOLS_TEPLUG_CHECKED_OP_H_

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

// Explains, runs through `dispatcher`, times, and compares with the
// reference. Errors name the op label and the provider that failed.
absl::StatusOr<OpResult> RunCheckedOp(const core::Kernel& kernel, TeplugObject* dispatcher,
                                      const OpCall& call);

// The provider part of "provider/name".
std::string ProviderOf(const std::string& implementation);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CHECKED_OP_H_
