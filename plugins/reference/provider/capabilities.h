// The capability descriptors of the reference provider: exactly what the
// adapter implements, checked bit by bit by capabilities_test.cc (every
// declared bit is exercised, and undeclared values are shown to be refused).
//   devices     CPU only (host memory)
//   IGemm       A/B fp32 fp16 bf16 fp8_e4m3 fp8_e5m2 fp4_e2m1 (scaled operands
//               with per_tensor, mxfp8_1d32, block_1d128 or block_2d128
//               scale_inv); D fp32 fp16 bf16 fp8_e4m3 fp8_e5m2 (fp8 D with a
//               per-tensor scale); bias, GELU, pre_gelu_out, accumulate; any size
//   IAttention  q/k/v fp32 fp16 bf16 fp8_e4m3 fp8_e5m2 (per-tensor); all 15
//               layouts, 6 masks, 4 bias types; dropout, sliding window, GQA,
//               deterministic, backward, head_dim_qk != head_dim_v; any head
//               dim >= 1, any sequence length
//   IQuantizer  fp32 fp16 bf16 -> fp8_e4m3 fp8_e5m2; per_tensor, mxfp8_1d32,
//               block_1d128, block_2d128; columnwise, dequantize, current and
//               delayed scaling (fp4_e2m1 is not declared: no fp4 recipe)
//   INorm       LayerNorm and RMSNorm, forward and backward, zero-centered
//               gamma; x/dy/dx and gamma/beta/dgamma/dbeta fp32 fp16 bf16; y
//               fp32 fp16 bf16 fp8_e4m3 fp8_e5m2 (fp8 y: per_tensor or
//               mxfp8_1d32); any hidden size >= 1
//   IDevice     cpu:0 (host memory, synchronous streams)
//   ICollective every op and reduction, any world size; dtypes fp32 fp16 bf16
//               int8 int32 int64 uint8 (the ABI's dtypes field means "accepted
//               by every op"; fp8/e8m0/fp4 move through all_gather, broadcast
//               and send/recv but cannot be reduced, so they are not declared)
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_CAPABILITIES_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_CAPABILITIES_H_

#include "teplug/attention.h"
#include "teplug/collective.h"
#include "teplug/device.h"
#include "teplug/gemm.h"
#include "teplug/norm.h"
#include "teplug/quantizer.h"

namespace teplug::reference::provider {

// Descriptors in static storage, valid for the life of the process/plugin.
// Those with bits newer than v1.0 take the host's TeplugHostApi.abi_max and
// leave out what that host does not know (teplug/sdk/caps_for_host.hpp).
const TeplugGemmCaps* ReferenceGemmCaps();
const TeplugAttentionCaps* ReferenceAttentionCaps();
const TeplugQuantizerCaps* ReferenceQuantizerCaps(
    uint32_t host_abi_max = TEPLUG_ABI_VERSION_CURRENT);
const TeplugCollectiveCaps* ReferenceCollectiveCaps();
const TeplugNormCaps* ReferenceNormCaps(uint32_t host_abi_max = TEPLUG_ABI_VERSION_CURRENT);
const TeplugDeviceCaps* ReferenceDeviceCaps();

}  // namespace teplug::reference::provider

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_CAPABILITIES_H_
