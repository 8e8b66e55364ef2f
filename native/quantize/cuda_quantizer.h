// IQuantizer v1 on CUDA: quantize (per-tensor delayed and current scaling,
// MXFP8 1x32 under the OCP or TransformerEngine scale rule, 1x128 and
// 128x128 blocks; row-wise and column-wise) and dequantize, on GPUs of
// compute capability 8.0 and newer, with the kernels of this package
// (quantize_launch.h).
//
// `supports` refuses, each with a reason naming the field: malformed calls
// and what the kernels do not serve (quantize_plan.h: host tensors,
// non-contiguous strides, fp4, ...); then, without a usable driver or GPU,
// the runtime's own words, as the native IDevice gives them:
//   "native: no CUDA device: cudaGetDeviceCount returned
//    cudaErrorInsufficientDriver (CUDA driver version is insufficient ...)";
// and a GPU older than sm_80. The runtime is asked once, on the first call
// that needs it, never at registration. quantize/dequantize check the same
// and throw the matching TeplugStatus (INVALID_ARGUMENT, UNSUPPORTED), or
// INTERNAL in the runtime's words when a launch fails. Work is enqueued on
// the call's stream (a cudaStream_t; NULL: the legacy default stream).
#ifndef TEPLUG_NATIVE_QUANTIZE_CUDA_QUANTIZER_H_
#define TEPLUG_NATIVE_QUANTIZE_CUDA_QUANTIZER_H_

#include <memory>

#include "native/device/cuda_runtime_api.h"
#include "native/quantize/quantize_launch.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::native::quantize {

// Lowest compute capability (major * 10 + minor) the kernels are built for.
inline constexpr int kMinQuantizeArch = 80;

// `runtime` and `kernels` must outlive the object: RealCudaRuntime() and
// RealKernelLauncher() in the provider, fakes in tests.
std::unique_ptr<sdk::QuantizerImpl> NewCudaQuantizer(CudaRuntimeApi& runtime,
                                                     KernelLauncher& kernels);

}  // namespace teplug::native::quantize

#endif  // TEPLUG_NATIVE_QUANTIZE_CUDA_QUANTIZER_H_
