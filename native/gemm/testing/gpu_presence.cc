#include "native/gemm/testing/gpu_presence.h"

#include <cuda_runtime.h>

namespace teplug::native::testing {

std::string WhyNoGpu() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    return std::string("cudaGetDeviceCount returned ") + cudaGetErrorName(e) + " (" +
           cudaGetErrorString(e) + ")";
  }
  return count > 0 ? "" : "cudaGetDeviceCount reported 0 devices";
}

}  // namespace teplug::native::testing
