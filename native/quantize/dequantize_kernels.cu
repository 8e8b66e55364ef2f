// Dequantize: real = fp32(decode(code) * scale_inv) with each element's
// scale (per-tensor, MX e8m0, 1x128 or 128x128 fp32), rounded to the output
// dtype. One thread per 16 codes: a 16-byte code load and 16-byte output
// stores when both pointers are aligned, a scalar tail otherwise.
#include "native/quantize/kernel_entries.h"
#include "native/quantize/kernel_support.cuh"

namespace teplug::native::quantize {
namespace {

constexpr int kChunk = 16;

// Where element (r, c) finds its scale_inv.
struct ScaleGrid {
  Scaling scaling;
  const void* scale_inv;
  int64_t cols;

  __device__ __forceinline__ float At(int64_t r, int64_t c) const {
    const float* f = static_cast<const float*>(scale_inv);
    switch (scaling) {
      case Scaling::kPerTensor:
        return f[0];
      case Scaling::kMx:
        return DecodeE8M0(static_cast<const uint8_t*>(scale_inv)[r * ((cols + 31) / 32) + c / 32]);
      case Scaling::kBlock1D:
        return f[r * ((cols + 127) / 128) + c / 128];
      case Scaling::kBlock2D:
        return f[(r / 128) * ((cols + 127) / 128) + c / 128];
    }
    return 0.0f;
  }
};

template <HighPrecision T>
__global__ void DequantizeKernel(const uint8_t* codes, int64_t rows, int64_t cols, Fp8Kind kind,
                                 ScaleGrid grid, bool vectorised, typename Hp<T>::Storage* out) {
  const int64_t n = rows * cols;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t chunks = vectorised ? n / kChunk : 0;
  for (int64_t k = first; k < chunks; k += stride) {
    TEPLUG_REQUIRE_ALIGNED(codes + k * kChunk, sizeof(uint4));
    const uint4 packed = reinterpret_cast<const uint4*>(codes)[k];
    const uint8_t* code = reinterpret_cast<const uint8_t*>(&packed);
    float v[kChunk];
    // One 64-bit division per chunk: the element's row and column step on
    // from its first element's (a 64-bit divide is dozens of instructions).
    int64_t r = k * kChunk / cols;
    int64_t c = k * kChunk - r * cols;
#pragma unroll
    for (int i = 0; i < kChunk; ++i) {
      v[i] = DequantizeElement(code[i], kind, grid.At(r, c));
      if (++c == cols) {
        c = 0;
        ++r;
      }
    }
    StoreVector<T, kChunk>(out + k * kChunk, v);
  }
  for (int64_t idx = chunks * kChunk + first; idx < n; idx += stride) {
    out[idx] = Hp<T>::Store(DequantizeElement(codes[idx], kind, grid.At(idx / cols, idx % cols)));
  }
}

template <HighPrecision T>
int LaunchTyped(const DequantizeLaunch& l) {
  using S = typename Hp<T>::Storage;
  const int64_t n = l.rows * l.cols;
  if (n == 0) return static_cast<int>(cudaSuccess);
  S* out = static_cast<S*>(l.output);
  const bool vectorised = IsAligned(l.codes, kVectorBytes) && IsAligned(out, kVectorBytes);
  return static_cast<int>(Launch(DequantizeKernel<T>, GridFor((n + kChunk - 1) / kChunk), kThreads,
                                 static_cast<cudaStream_t>(l.stream), l.codes, l.rows, l.cols,
                                 l.kind, ScaleGrid{l.scaling, l.scale_inv, l.cols}, vectorised,
                                 out));
}

}  // namespace

int LaunchDequantizeKernels(const DequantizeLaunch& launch) {
  return WithHighPrecision(launch.output_type,
                           [&](auto type) { return LaunchTyped<decltype(type)::value>(launch); });
}

}  // namespace teplug::native::quantize
