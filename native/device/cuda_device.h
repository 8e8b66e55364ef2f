// IDevice v1 on CUDA: the GPUs the CUDA runtime reports, as cuda:<ordinal>
// (vendor nvidia, arch = compute capability major * 10 + minor, the name and
// memory of cudaDeviceProp). A context binds one GPU; allocate is cudaMalloc,
// copies are cudaMemcpy (completed on return) or cudaMemcpyAsync on a stream,
// and a TeplugStream is a cudaStream_t the context created. The context
// tracks its allocations and streams, so a foreign or freed pointer or stream
// is refused by name; close releases what is left.
//
// The runtime is probed once, on the first call that needs it (never at
// registration, so loading the provider costs a CPU-only process nothing).
// It serves kind cuda, vendor nvidia or unnamed. Without a usable driver or GPU
// the device serves no devices, and `supports`
// and `open` answer with the runtime's reason:
//   "native: no CUDA device: cudaGetDeviceCount returned
//    cudaErrorInsufficientDriver (CUDA driver version is insufficient ...)".
#ifndef TEPLUG_NATIVE_DEVICE_CUDA_DEVICE_H_
#define TEPLUG_NATIVE_DEVICE_CUDA_DEVICE_H_

#include <memory>

#include "native/device/cuda_runtime_api.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::native {

// The SDK object behind the registered IDevice v1 (thread-safe). `runtime`
// must outlive it: RealCudaRuntime() in the provider, a fake in tests.
std::unique_ptr<sdk::DeviceImpl> NewCudaDevice(CudaRuntimeApi& runtime);

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_DEVICE_CUDA_DEVICE_H_
