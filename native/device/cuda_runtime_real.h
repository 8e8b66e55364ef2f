// The CUDA runtime (libcudart) behind the CudaRuntimeApi seam.
#ifndef TEPLUG_NATIVE_DEVICE_CUDA_RUNTIME_REAL_H_
#define TEPLUG_NATIVE_DEVICE_CUDA_RUNTIME_REAL_H_

#include "native/device/cuda_runtime_api.h"

namespace teplug::native {

// The one real runtime of this binary or plugin; stateless, so shared by every
// device object.
CudaRuntimeApi& RealCudaRuntime();

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_DEVICE_CUDA_RUNTIME_REAL_H_
