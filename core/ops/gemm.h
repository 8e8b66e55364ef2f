// IGemm/1: D = alpha * op(A) op(B) + beta * C (+ bias, GELU), in one module.
#ifndef TEPLUG_CORE_OPS_GEMM_H_
#define TEPLUG_CORE_OPS_GEMM_H_

#include "core/ops/interface_module.h"

namespace teplug::core {

const InterfaceModule& GemmModule();

// The parameters of an example of `op` and its builder (gemm_example.cc;
// see InterfaceModule::ExampleParams).
absl::StatusOr<std::vector<ExampleParam>> GemmExampleParams(const InterfaceModule& module, const OpSpec& op);
void BuildGemmExample(const OpSpec& op, const ExampleValues& values, ExampleOp* out);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_GEMM_H_
