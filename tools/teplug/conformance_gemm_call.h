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
#include "tools/teplug/host_tensor.h"

namespace teplug::cli {

// The inputs of one case, from its seed: values in [-1, -0.05] U [0.05, 1]
// (never zero); fp8 operands get random codes of magnitude 2^-2..2^2 and
// random power-of-two scales (per_tensor) or block scales 2^-2..2^2 (MXFP8).
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
// Asks for the workspace, allocates exactly that, and runs. "" on success,
// else what failed (plugin text escaped).
std::string CallWithWorkspace(TeplugGemmV1* g, TeplugGemmArgs args);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_GEMM_CALL_H_
