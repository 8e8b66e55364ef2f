// The capability descriptors of the cpu provider: exactly what it serves.
//   devices  CPU only (host memory)
//   IGemm    A, B and D fp32, fp16, bf16 (any pairing); bias, GELU,
//            pre_gelu_out, accumulate; no quantized operands (scaling_modes
//            0); no alignment requirement; any size
//   IAttention  forward only: Q, K, V fp32, fp16, bf16; all 15 layouts, all
//            mask and bias types; dropout, sliding window, GQA, different
//            head dims, deterministic; any head dim and length
//   IQuantizer  fp32, fp16, bf16 <-> fp8_e4m3, fp8_e5m2; per_tensor (delayed
//            and current), mxfp8_1d32, block_1d128, block_2d128; column-wise
//            copies and dequantize
// C, bias and pre_gelu_out dtypes, strides and k = 0 are what the descriptor
// cannot express: supports() refuses those with a reason.
#ifndef TEPLUG_PLUGINS_CPU_PROVIDER_CAPABILITIES_H_
#define TEPLUG_PLUGINS_CPU_PROVIDER_CAPABILITIES_H_

#include "teplug/attention.h"
#include "teplug/gemm.h"
#include "teplug/quantizer.h"

namespace teplug::cpu::provider {

// In static storage, valid for the life of the process/plugin.
const TeplugGemmCaps* CpuGemmCaps();
const TeplugAttentionCaps* CpuAttentionCaps();
// Without TEPLUG_QUANT_CAP_MX_TE_SCALE for a host older than v1.3.
const TeplugQuantizerCaps* CpuQuantizerCaps(uint32_t host_abi_max = TEPLUG_ABI_VERSION_CURRENT);

}  // namespace teplug::cpu::provider

#endif  // TEPLUG_PLUGINS_CPU_PROVIDER_CAPABILITIES_H_
