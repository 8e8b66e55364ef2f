// IGemm v1 of the reference provider: D = epilogue(alpha op(A) op(B) + beta C
// + bias) on host tensors of any float dtype, computed in fp64 by
// kernels/gemm_reference.h on the exactly dequantized operands and rounded
// once into D's dtype (tensor_io.h).
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_GEMM_PROVIDER_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_GEMM_PROVIDER_H_

#include <memory>

#include "absl/status/status.h"
#include "teplug/gemm.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::reference::provider {

// Runs one GEMM. Errors name the args field ("TeplugGemmArgs.b: shape [4, 5]
// but op(A) is [2, 3] ..."): InvalidArgument for bad shapes, ranks, dtypes,
// missing scales, pre_gelu_out without GELU (with accumulate, c and beta are
// ignored: D is the C term with beta 1);
// Unimplemented for non-host tensors and accumulate into an fp8 D.
absl::Status RunReferenceGemm(const TeplugGemmArgs& args);

// The SDK object behind the registered IGemm v1 (stateless, thread-safe).
std::unique_ptr<sdk::GemmImpl> NewReferenceGemm();

}  // namespace teplug::reference::provider

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_GEMM_PROVIDER_H_
