// Whether this process sees a GPU, for tests and benchmarks that need one:
// "" when cudaGetDeviceCount finds at least one, otherwise why not in the
// driver's words, which they print when they skip.
#ifndef TEPLUG_NATIVE_GEMM_TESTING_GPU_PRESENCE_H_
#define TEPLUG_NATIVE_GEMM_TESTING_GPU_PRESENCE_H_

#include <string>

namespace teplug::native::testing {

// "cudaGetDeviceCount returned cudaErrorInsufficientDriver (CUDA driver
// version is insufficient ...)", "cudaGetDeviceCount reported 0 devices", or "".
std::string WhyNoGpu();

}  // namespace teplug::native::testing

#endif  // TEPLUG_NATIVE_GEMM_TESTING_GPU_PRESENCE_H_
