// CUDA's execution model on the host, for running native's kernels (the very
// .cu sources, compiled as C++) in tests on machines without a GPU or the
// CUDA toolkit.
//
// What the kernels use, and how it is emulated:
//  - a launch (Launch below, as kernel_launch.cuh declares it) runs the grid's
//    blocks one after the other; a block's threads are fibers (ucontext) on
//    the calling thread, each with its own stack, run in turn from barrier to
//    barrier;
//  - __syncthreads() is a barrier over the block's threads, __syncwarp() over
//    the warp's lanes;
//  - __shfl_xor_sync() exchanges values through the warp's slots and a
//    barrier over the warp's lanes;
//  - __shared__ is static storage: one copy, reused by each block in turn;
//  - atomicMax on int is a compare-and-swap loop;
//  - cudaMemsetAsync / cudaMallocAsync / cudaFreeAsync act at once on host
//    memory; a stream is only a token.
// Threads that can no longer all reach the barrier they wait at (divergent
// control flow around __syncthreads() or a shuffle, undefined on a GPU) end
// the process with a message naming the block, not a hang. A launch
// configuration a GPU rejects (more than 1024 threads per block, a zero
// dimension) returns cudaErrorInvalidConfiguration.
//
//  - a vector access (TEPLUG_REQUIRE_ALIGNED) to an address not aligned to
//    its size ends the process, as it would fault on a GPU.
// What it cannot show: timing, memory coalescing, bank conflicts, device
// resource limits, and races between threads (they never run at once).
// Lanes of a warp run out of lock-step, so code that relied on implicit warp
// synchronisation (which CUDA does not promise) fails here.
//
// Kernels include it through native/device/kernel_launch.cuh, in place of
// <cuda_runtime.h>, when TEPLUG_HOST_GRID is defined (the BUILD macro
// host_grid_library does so). Launches are serialised.
#ifndef TEPLUG_NATIVE_DEVICE_TESTING_HOST_GRID_H_
#define TEPLUG_NATIVE_DEVICE_TESTING_HOST_GRID_H_

#include <math.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>

// CUDA's declaration specifiers: nothing on the host. __shared__ storage is
// static (see above).
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static

struct uint3 {
  unsigned x = 0, y = 0, z = 0;
};
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};
struct alignas(8) uint2 {
  unsigned x, y;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};

enum cudaError_t : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
};
using cudaStream_t = struct HostGridStream*;

// The built-in variables of the running kernel thread (set by the scheduler
// before it resumes a fiber).
inline uint3 threadIdx;
inline uint3 blockIdx;
inline dim3 blockDim;
inline dim3 gridDim;

namespace teplug::native::host_grid {

// Runs `body` as a kernel over `grid` x `block` (see the file comment).
// Returns cudaSuccess or cudaErrorInvalidConfiguration.
cudaError_t Run(dim3 grid, dim3 block, const std::function<void()>& body);

// The barriers and exchanges of the running kernel thread.
void SyncThreads();
void SyncWarp();
uint64_t ShuffleXor(uint64_t bits, int lane_mask);

// How many launches ran (a test checks that its calls reached the kernels).
int64_t Launches();

// Ends the process with a message naming the access and the thread when `p`
// is not aligned to `bytes`: a GPU faults on a misaligned vector access,
// x86 does not (see TEPLUG_REQUIRE_ALIGNED in kernel_launch.cuh).
void RequireAligned(const void* p, size_t bytes, const char* file, int line);

}  // namespace teplug::native::host_grid

inline void __syncthreads() { teplug::native::host_grid::SyncThreads(); }
inline void __syncwarp(unsigned /*mask: all lanes in these kernels*/ = 0xFFFFFFFFu) {
  teplug::native::host_grid::SyncWarp();
}

template <class T>
T __shfl_xor_sync(unsigned /*mask: all lanes in these kernels*/, T value, int lane_mask) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "one slot per lane");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof value);
  bits = teplug::native::host_grid::ShuffleXor(bits, lane_mask);
  T out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

inline int atomicMax(int* address, int value) {
  int old = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (old < value && !__atomic_compare_exchange_n(address, &old, value, true, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED)) {
  }
  return old;
}

inline int __float_as_int(float f) {
  int i;
  std::memcpy(&i, &f, sizeof i);
  return i;
}

cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t stream = nullptr);
cudaError_t cudaMallocAsync(void** p, size_t bytes, cudaStream_t stream);
cudaError_t cudaFreeAsync(void* p, cudaStream_t stream);

namespace teplug::native {

// The kernels' launch site: kernel<<<grid, block, 0, stream>>>(args...).
template <class... Params, class... Args>
cudaError_t Launch(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t /*stream*/,
                   Args... args) {
  return host_grid::Run(grid, block, [&] { kernel(args...); });
}

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_DEVICE_TESTING_HOST_GRID_H_
