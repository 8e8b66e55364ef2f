// The opencl provider's capability descriptors (static storage).
//   IDevice  every OpenCL device (kind OPENCL, any vendor, any arch)
//   IGemm    on those devices: A and B each fp32, fp16, bf16, fp8_e4m3 or
//            fp8_e5m2 (fp8 with per_tensor or mxfp8_1d32 scales; everything
//            but fp32 converted to fp32 by our kernels for CLBlast's fp32
//            GEMM), D fp32 or fp16 (C, bias and pre_gelu_out in D's dtype);
//            bias, GELU, pre_gelu_out, accumulate; no alignment or size bound
//   IQuantizer on those devices: fp32/fp16/bf16 <-> fp8_e4m3/fp8_e5m2 in
//            per_tensor (delayed and current) and mxfp8_1d32 scaling, the
//            column-wise copy, dequantize
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_CAPABILITIES_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_CAPABILITIES_H_

#include "teplug/device.h"
#include "teplug/gemm.h"
#include "teplug/quantizer.h"

namespace teplug::opencl::provider {

const TeplugDeviceCaps* OpenClDeviceCaps();
const TeplugGemmCaps* OpenClGemmCaps();
// Without TEPLUG_QUANT_CAP_MX_TE_SCALE for a host older than v1.3.
const TeplugQuantizerCaps* OpenClQuantizerCaps(uint32_t host_abi_max = TEPLUG_ABI_VERSION_CURRENT);

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_CAPABILITIES_H_
