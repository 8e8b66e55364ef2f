// How the native provider describes CUDA devices and CUDA failures: the
// TeplugDeviceInfo of a GPU from its cudaDeviceProp facts, and the text of a
// failed runtime call. Plain C++: tested without a GPU.
#ifndef TEPLUG_NATIVE_DEVICE_DEVICE_DESCRIPTION_H_
#define TEPLUG_NATIVE_DEVICE_DEVICE_DESCRIPTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "native/device/cuda_runtime_api.h"
#include "teplug/device.h"

namespace teplug::native {

// TeplugDevice.arch of a GPU: its compute capability as major * 10 + minor
// (8.0 -> 80, 8.9 -> 89, 9.0 -> 90, 10.0 -> 100), the numbering of sm_NN.
int32_t ArchOfComputeCapability(int major, int minor);

// Fills every v1.0 field after struct_size of `info` for GPU `ordinal`: kind
// cuda, vendor nvidia, arch, the name (truncated to fit, NUL-terminated), the
// memory, and host_pointers_usable 0 (ops need memory from allocate).
void DescribeCudaDevice(const CudaDeviceFacts& facts, int ordinal, TeplugDeviceInfo* info);

// "<call> returned <cudaErrorName> (<cudaErrorString>)": the runtime's own
// words for a failed call, for messages and decision records.
std::string CudaCallFailure(CudaRuntimeApi& runtime, const std::string& call, int code);

// The arch of every GPU the runtime reports, or why there is none: "no CUDA
// device: cudaGetDeviceCount returned ..." (the driver's words), "... reported
// 0 devices", or the failing cudaGetDeviceProperties. Exactly one of the two
// is set. Providers ask once, on their first question, never at registration.
struct CudaArchProbe {
  std::vector<int32_t> archs;
  std::string missing_reason;
};
CudaArchProbe ProbeCudaArchs(CudaRuntimeApi& runtime);

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_DEVICE_DEVICE_DESCRIPTION_H_
