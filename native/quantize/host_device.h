// TEPLUG_HOST_DEVICE marks a function that nvcc compiles for both the GPU and
// the host, and that a plain C++ compiler (the host tests) compiles for the
// host only. The element math of the quantizer is written once with it, so
// the host tests check the very functions the kernels run.
#ifndef TEPLUG_NATIVE_QUANTIZE_HOST_DEVICE_H_
#define TEPLUG_NATIVE_QUANTIZE_HOST_DEVICE_H_

#include <cstdint>
#ifndef __CUDA_ARCH__
#include <cstring>
#endif

#ifdef __CUDACC__
#define TEPLUG_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define TEPLUG_HOST_DEVICE inline
#endif

namespace teplug::native::quantize {

// The binary32 bit pattern of `f` and back, without undefined behaviour.
TEPLUG_HOST_DEVICE uint32_t FloatBits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

TEPLUG_HOST_DEVICE float BitsToFloat(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

// NaN and +-Inf tests on the bits, identical on host and device whatever the
// compiler's fast-math settings.
TEPLUG_HOST_DEVICE bool IsNanBits(float f) { return (FloatBits(f) & 0x7FFFFFFFu) > 0x7F800000u; }
TEPLUG_HOST_DEVICE bool IsInfBits(float f) { return (FloatBits(f) & 0x7FFFFFFFu) == 0x7F800000u; }

}  // namespace teplug::native::quantize

#endif  // TEPLUG_NATIVE_QUANTIZE_HOST_DEVICE_H_
