// A tiny CUDA kernel used by the smoke test to prove that nvcc-built code links and runs.
#ifndef TEPLUG_NATIVE_SMOKE_SQUARE_KERNEL_H_
#define TEPLUG_NATIVE_SMOKE_SQUARE_KERNEL_H_

#include <cuda_runtime.h>

namespace teplug::smoke {

// Computes out[i] = in[i] * in[i] + offset for i < count on the device; `in` and `out`
// are device pointers. Returns the launch status (cudaSuccess or the launch error).
cudaError_t LaunchSquarePlusOffset(const float* in, float* out, int count, float offset,
                                   cudaStream_t stream);

}  // namespace teplug::smoke

#endif  // TEPLUG_NATIVE_SMOKE_SQUARE_KERNEL_H_
