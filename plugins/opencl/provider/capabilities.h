// The opencl provider's capability descriptors (static storage).
//   IDevice  every OpenCL device (kind OPENCL, any vendor, any arch)
//   IGemm    on those devices: A, B and D each fp32 or fp16 (any pairing;
//            C, bias and pre_gelu_out in D's dtype); bias, GELU, pre_gelu_out,
//            accumulate; no quantized operands, no alignment or size bound
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_CAPABILITIES_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_CAPABILITIES_H_

#include "teplug/device.h"
#include "teplug/gemm.h"

namespace teplug::opencl::provider {

const TeplugDeviceCaps* OpenClDeviceCaps();
const TeplugGemmCaps* OpenClGemmCaps();

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_CAPABILITIES_H_
