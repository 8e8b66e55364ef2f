// Device-side building blocks shared by the quantizer's kernels: element
// loads and stores of the high-precision dtypes, 16-byte vector accesses,
// the amax reductions (warp, block, global) and launch sizing.
#ifndef TEPLUG_NATIVE_QUANTIZE_KERNEL_SUPPORT_CUH_
#define TEPLUG_NATIVE_QUANTIZE_KERNEL_SUPPORT_CUH_

#include <cstdint>
#include <type_traits>

#include "native/device/kernel_launch.cuh"
#include "native/quantize/element_formats.h"
#include "native/quantize/quantize_launch.h"
#include "native/quantize/scale_math.h"

namespace teplug::native::quantize {

// Storage of each high-precision dtype: fp32 as float, fp16/bf16 as raw bits.
template <HighPrecision T>
struct Hp;
template <>
struct Hp<HighPrecision::kFp32> {
  using Storage = float;
  static __device__ __forceinline__ float Load(Storage v) { return v; }
  static __device__ __forceinline__ Storage Store(float v) { return v; }
};
template <>
struct Hp<HighPrecision::kFp16> {
  using Storage = uint16_t;
  static __device__ __forceinline__ float Load(Storage v) { return DecodeFp16(v); }
  static __device__ __forceinline__ Storage Store(float v) { return EncodeFp16(v); }
};
template <>
struct Hp<HighPrecision::kBf16> {
  using Storage = uint16_t;
  static __device__ __forceinline__ float Load(Storage v) { return DecodeBf16(v); }
  static __device__ __forceinline__ Storage Store(float v) { return EncodeBf16(v); }
};

// Calls fn(std::integral_constant<HighPrecision, type>{}): the one switch from
// a run-time dtype to the kernels' template argument.
template <class Fn>
int WithHighPrecision(HighPrecision type, Fn&& fn) {
  switch (type) {
    case HighPrecision::kFp32:
      return fn(std::integral_constant<HighPrecision, HighPrecision::kFp32>{});
    case HighPrecision::kFp16:
      return fn(std::integral_constant<HighPrecision, HighPrecision::kFp16>{});
    case HighPrecision::kBf16:
      return fn(std::integral_constant<HighPrecision, HighPrecision::kBf16>{});
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

// Bytes of one vector access.
inline constexpr int kVectorBytes = 16;

__host__ __device__ __forceinline__ bool IsAligned(const void* p, int bytes) {
  return (reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(bytes)) == 0;
}

// Loads N consecutive elements starting at `p` as floats, with 16-byte
// vector loads, or one 8-byte load when the N elements are 8 bytes (N *
// sizeof(Storage) a multiple of 16, or 8; `p` aligned to the load's size).
template <HighPrecision T, int N>
__device__ __forceinline__ void LoadVector(const typename Hp<T>::Storage* p, float (&out)[N]) {
  using S = typename Hp<T>::Storage;
  constexpr int kBytes = N * static_cast<int>(sizeof(S));
  static_assert(kBytes % kVectorBytes == 0 || kBytes == 8, "whole vectors only");
  using Vector = typename std::conditional<kBytes == 8, uint2, uint4>::type;
  constexpr int kVectors = kBytes / static_cast<int>(sizeof(Vector));
  Vector raw[kVectors];
  TEPLUG_REQUIRE_ALIGNED(p, sizeof(Vector));
  const Vector* src = reinterpret_cast<const Vector*>(p);
#pragma unroll
  for (int v = 0; v < kVectors; ++v) raw[v] = src[v];
  const S* elements = reinterpret_cast<const S*>(raw);
#pragma unroll
  for (int i = 0; i < N; ++i) out[i] = Hp<T>::Load(elements[i]);
}

// Stores N consecutive elements from floats with 16-byte vector stores (the
// same conditions as LoadVector).
template <HighPrecision T, int N>
__device__ __forceinline__ void StoreVector(typename Hp<T>::Storage* p, const float (&in)[N]) {
  using S = typename Hp<T>::Storage;
  constexpr int kVectors = N * static_cast<int>(sizeof(S)) / kVectorBytes;
  static_assert(kVectors * kVectorBytes == N * static_cast<int>(sizeof(S)), "whole vectors only");
  uint4 raw[kVectors];
  S* elements = reinterpret_cast<S*>(raw);
#pragma unroll
  for (int i = 0; i < N; ++i) elements[i] = Hp<T>::Store(in[i]);
  TEPLUG_REQUIRE_ALIGNED(p, sizeof(uint4));
  uint4* dst = reinterpret_cast<uint4*>(p);
#pragma unroll
  for (int v = 0; v < kVectors; ++v) dst[v] = raw[v];
}

// Stores 16 codes with one 16-byte store (`p` 16-byte aligned).
__device__ __forceinline__ void StoreCodes16(uint8_t* p, const uint8_t (&codes)[16]) {
  uint4 v;
  uint8_t* bytes = reinterpret_cast<uint8_t*>(&v);
#pragma unroll
  for (int i = 0; i < 16; ++i) bytes[i] = codes[i];
  TEPLUG_REQUIRE_ALIGNED(p, sizeof(uint4));
  *reinterpret_cast<uint4*>(p) = v;
}

// Max over a warp's lanes (values are amaxes: non-negative, never NaN).
__device__ __forceinline__ float WarpMax(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFFu, v, offset));
  return v;
}

// Max over the thread block (blockDim.x * blockDim.y a multiple of 32, at
// most 1024); every thread gets the result. Every thread must call it.
__device__ __forceinline__ float BlockMax(float v) {
  __shared__ float partial[32];
  __shared__ float result;
  const int thread = static_cast<int>(threadIdx.x + threadIdx.y * blockDim.x);
  const int warps = static_cast<int>(blockDim.x * blockDim.y) / 32;
  const int lane = thread % 32;
  const int warp = thread / 32;
  v = WarpMax(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w = lane < warps ? partial[lane] : 0.0f;
    w = WarpMax(w);
    if (lane == 0) result = w;
  }
  __syncthreads();
  return result;
}

// *target = max(*target, v) for non-negative, non-NaN floats, whose bit
// patterns order like the integers (target starts at +0).
__device__ __forceinline__ void AtomicMaxNonNegative(float* target, float v) {
  atomicMax(reinterpret_cast<int*>(target), __float_as_int(v));
}

// The end of a kernel that reduced `local` amaxes: the block's max into
// *amax (when not NULL). Every thread of the block must call it.
__device__ __forceinline__ void ReduceAmaxIntoGlobal(float* amax, float local) {
  if (amax == nullptr) return;
  const float block = BlockMax(local);
  if (threadIdx.x == 0 && threadIdx.y == 0) AtomicMaxNonNegative(amax, block);
}

// Threads per block of the element-wise kernels, and a grid that covers
// `work` items (capped; the kernels loop with a grid stride).
inline constexpr int kThreads = 256;
inline unsigned GridFor(int64_t work, int threads = kThreads) {
  const int64_t blocks = (work + threads - 1) / threads;
  const int64_t cap = 65535LL * 8;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > cap ? cap : blocks));
}

}  // namespace teplug::native::quantize

#endif  // TEPLUG_NATIVE_QUANTIZE_KERNEL_SUPPORT_CUH_
