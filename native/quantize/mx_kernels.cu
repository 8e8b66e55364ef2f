// MXFP8 kernels: one thread per block of 32. Row-wise blocks are contiguous
// (vector loads and two 16-byte code stores when the row is a whole number of
// aligned blocks); column-wise blocks run down a column, so neighbouring
// threads take neighbouring columns and every access is coalesced. The codes
// stay [rows, cols] in both directions (teplug/types.h).
#include "native/quantize/kernel_entries.h"
#include "native/quantize/kernel_support.cuh"

namespace teplug::native::quantize {
namespace {

constexpr int kMxBlock = 32;

template <HighPrecision T>
__global__ void MxRowwiseKernel(const typename Hp<T>::Storage* x, int64_t rows, int64_t cols,
                                Fp8Kind kind, MxRule rule, uint8_t* codes, uint8_t* scales,
                                float* amax) {
  const int64_t blocks_per_row = (cols + kMxBlock - 1) / kMxBlock;
  const int64_t total = rows * blocks_per_row;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  float local = 0.0f;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += stride) {
    const int64_t r = t / blocks_per_row;
    const int64_t c0 = (t % blocks_per_row) * kMxBlock;
    const int count = static_cast<int>(cols - c0 < kMxBlock ? cols - c0 : kMxBlock);
    const typename Hp<T>::Storage* in = x + r * cols + c0;
    uint8_t* out = codes + r * cols + c0;
    const bool vector =
        count == kMxBlock && IsAligned(in, kVectorBytes) && IsAligned(out, kVectorBytes);
    float v[kMxBlock];
    if (vector) {
      LoadVector<T, kMxBlock>(in, v);
    } else {
      for (int i = 0; i < count; ++i) v[i] = Hp<T>::Load(in[i]);
    }
    MxBlockSummary summary;
    for (int i = 0; i < count; ++i) MxBlockStep(summary, v[i]);
    local = fmaxf(local, summary.amax);
    const uint8_t scale = MxScaleCode(summary, kind, rule);
    scales[t] = scale;
    if (vector) {
      uint8_t half[16];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int i = 0; i < 16; ++i) half[i] = MxEncodeElement(v[h * 16 + i], scale, kind, rule);
        StoreCodes16(out + h * 16, half);
      }
    } else {
      for (int i = 0; i < count; ++i) out[i] = MxEncodeElement(v[i], scale, kind, rule);
    }
  }
  ReduceAmaxIntoGlobal(amax, local);
}

template <HighPrecision T>
__global__ void MxColumnwiseKernel(const typename Hp<T>::Storage* x, int64_t rows, int64_t cols,
                                   Fp8Kind kind, MxRule rule, uint8_t* codes, uint8_t* scales,
                                   float* amax) {
  const int64_t block_rows = (rows + kMxBlock - 1) / kMxBlock;
  const int64_t total = block_rows * cols;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  float local = 0.0f;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += stride) {
    const int64_t r0 = (t / cols) * kMxBlock;
    const int64_t c = t % cols;
    const int count = static_cast<int>(rows - r0 < kMxBlock ? rows - r0 : kMxBlock);
    float v[kMxBlock];
    MxBlockSummary summary;
    for (int i = 0; i < count; ++i) {
      v[i] = Hp<T>::Load(x[(r0 + i) * cols + c]);
      MxBlockStep(summary, v[i]);
    }
    local = fmaxf(local, summary.amax);
    const uint8_t scale = MxScaleCode(summary, kind, rule);
    scales[t] = scale;  // [ceil(rows/32), cols]: t is (r0 / 32) * cols + c
    for (int i = 0; i < count; ++i)
      codes[(r0 + i) * cols + c] = MxEncodeElement(v[i], scale, kind, rule);
  }
  ReduceAmaxIntoGlobal(amax, local);
}

template <HighPrecision T>
int LaunchTyped(const QuantizeLaunch& l) {
  using S = typename Hp<T>::Storage;
  cudaStream_t stream = static_cast<cudaStream_t>(l.stream);
  const S* x = static_cast<const S*>(l.input);
  cudaError_t e = cudaSuccess;
  if (l.amax != nullptr) e = cudaMemsetAsync(l.amax, 0, sizeof(float), stream);
  if (l.rows * l.cols == 0) return static_cast<int>(e);
  // Both directions reduce amax; a max is unchanged by counting twice.
  if (e == cudaSuccess && l.rowwise_data != nullptr) {
    const int64_t blocks = l.rows * ((l.cols + kMxBlock - 1) / kMxBlock);
    e = Launch(MxRowwiseKernel<T>, GridFor(blocks), kThreads, stream, x, l.rows, l.cols, l.kind,
               l.mx_rule, l.rowwise_data, static_cast<uint8_t*>(l.rowwise_scale_inv), l.amax);
  }
  if (e == cudaSuccess && l.columnwise_data != nullptr) {
    const int64_t blocks = ((l.rows + kMxBlock - 1) / kMxBlock) * l.cols;
    e = Launch(MxColumnwiseKernel<T>, GridFor(blocks), kThreads, stream, x, l.rows, l.cols, l.kind,
               l.mx_rule, l.columnwise_data, static_cast<uint8_t*>(l.columnwise_scale_inv), l.amax);
  }
  return static_cast<int>(e);
}

}  // namespace

int LaunchMxQuantize(const QuantizeLaunch& launch) {
  return WithHighPrecision(launch.input_type,
                           [&](auto type) { return LaunchTyped<decltype(type)::value>(launch); });
}

}  // namespace teplug::native::quantize
