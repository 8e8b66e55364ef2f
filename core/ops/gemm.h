// IGemm/1: D = alpha * op(A) op(B) + beta * C (+ bias, GELU), in one module.
#ifndef TEPLUG_CORE_OPS_GEMM_H_
#define TEPLUG_CORE_OPS_GEMM_H_

#include "core/ops/interface_module.h"

namespace teplug::core {

const InterfaceModule& GemmModule();

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_GEMM_H_
