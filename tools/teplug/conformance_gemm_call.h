// Building and calling one GEMM case of `teplug conformance`: its random
// inputs from a seed, its outputs, its args, and a call with exactly the
// workspace the implementation asks for.
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_GEMM_CALL_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_GEMM_CALL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "teplug/teplug.h"
#include "tools/teplug/conformance_gemm.h"
#include "tools/teplug/conformance_staging.h"
#include "tools/teplug/host_tensor.h"
#include "tools/teplug/op_tensors.h"

namespace teplug::cli {

// Whether `dtype` is an operand read as code * scale_inv (fp8, fp4).
bool IsQuantizedOperand(int32_t dtype);
// The dtype of bias and pre_gelu_out beside a D of `d_dtype`: D's own, bf16
// for an fp8 D (gemm.h: bias is bf16 or fp32 then).
int32_t AuxDType(int32_t d_dtype);

// The inputs of one case, from its seed: values in [-1, -0.05] U [0.05, 1]
// (never zero); fp8 and fp4 operands get random non-zero codes and scales of
// the case's scaling mode (per_tensor powers of two, MXFP8 e8m0 2^-2..2^2,
// block modes fp32 in [0.25, 2]). An fp8 D starts as zero codes with
// per_tensor quantization: a random power-of-two scale 2^-2..2^2, scale_inv
// and amax for the op to write.
struct GemmInputs {
  HostTensor a, b, bias, d_init;
};
GemmInputs MakeInputs(const GemmCase& c, uint64_t seed);

// The outputs of one run: D starts as the inputs' d_init (for accumulate).
struct GemmOutputs {
  HostTensor d, pre_gelu;
};
GemmOutputs MakeOutputs(const GemmCase& c, const GemmInputs& in);

// The args of `c` on `in` writing `out` (no workspace yet).
TeplugGemmArgs ArgsFor(const GemmCase& c, const GemmInputs& in, GemmOutputs* out);
// `args` given `*workspace` (NULL when empty).
TeplugGemmArgs WithWorkspace(TeplugGemmArgs args, std::vector<uint8_t>* workspace);
// The GEMM object of a selection.
inline TeplugGemmV1* GemmOf(const core::Selection& s) { return s.as<TeplugGemmV1>(); }
// Asks for the workspace, allocates exactly that (on `staging`'s device,
// whose stream the call then runs on, when given), and runs. "" on success,
// else what failed (plugin text escaped).
std::string CallWithWorkspace(TeplugGemmV1* g, TeplugGemmArgs args,
                              DeviceStaging* staging = nullptr);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_GEMM_CALL_H_
