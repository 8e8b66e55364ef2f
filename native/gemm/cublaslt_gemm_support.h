// What cuBLASLt's GEMM serves on each GPU generation, as one table: the input
// and output dtypes, the fp8 scaling modes (each from the cuBLASLt version
// that added it) and whether fp8 needs the "TN" form. From it come the IGemm
// capability descriptors for the GPUs present (one per generation, with that
// generation's arch bounds) and the reason a GEMM cannot run on an arch.
// Plain host code: tested against fake device lists.
#ifndef TEPLUG_NATIVE_GEMM_CUBLASLT_GEMM_SUPPORT_H_
#define TEPLUG_NATIVE_GEMM_CUBLASLT_GEMM_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "teplug/gemm.h"

namespace teplug::native {

// One generation's row of the table, with the scaling modes the given
// cuBLASLt version serves.
struct GemmArchSupport {
  const char* generation = "";  // "Hopper (sm_90)"
  int32_t arch_min = 0;         // TeplugDevice.arch bounds, inclusive
  int32_t arch_max = 0;         // 0: no upper bound
  uint64_t input_dtypes = 0;    // TEPLUG_DTYPE_BIT set, A and B
  uint64_t d_dtypes = 0;
  uint32_t scaling_modes = 0;   // TEPLUG_SCALING_BIT set; 0 without fp8
  // false: fp8 operands only in cuBLASLt's TN form, which is teplug's
  // trans_a = 0, trans_b = 1 (op(A) = A [M, K], op(B) = B^T with B [N, K]).
  bool fp8_any_layout = false;
};

// The row for `arch` (compute capability x10) with what `cublaslt_version`
// (cublasLtGetVersion(): major*10000 + minor*100 + patch) serves; nullopt for
// an arch below sm_80, which native does not serve.
std::optional<GemmArchSupport> GemmSupportForArch(int32_t arch, size_t cublaslt_version);

// "" when cuBLASLt can run `args` on a GPU of `support`'s generation;
// otherwise why not, naming the generation ("fp8 needs the TN form on Hopper
// (sm_90): trans_a 0 and trans_b 1").
std::string WhyNotOnArch(const TeplugGemmArgs& args, const GemmArchSupport& support);

// One IGemm capability descriptor per generation among `archs` (each GPU's
// arch, duplicates allowed), in table order. `caps.devices` is left NULL:
// the registering code points it at `device`, which must then stay put.
struct NativeGemmCaps {
  GemmArchSupport support;
  TeplugDeviceSupport device{};  // kind cuda, the generation's arch bounds
  TeplugGemmCaps caps{};
};
std::vector<NativeGemmCaps> GemmCapsForArchs(const std::vector<int32_t>& archs, size_t cublaslt_version);

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_GEMM_CUBLASLT_GEMM_SUPPORT_H_
