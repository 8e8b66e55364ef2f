// MXFP8 kernels: one thread per block of 32. Row-wise blocks are contiguous
// (vector loads and two 16-byte code stores when the row is a whole number of
// aligned blocks); column-wise blocks run down a column, so neighbouring
// threads take neighbouring columns and every access is coalesced. Both
// directions at once read the input once (MxBothKernel: a warp per 32x32
// tile). The codes stay [rows, cols] in both directions (teplug/types.h).
#include "native/quantize/kernel_entries.h"
#include "native/quantize/kernel_support.cuh"

namespace teplug::native::quantize {
namespace {

constexpr int kMxBlock = 32;

// One row-wise block of `count` (<= 32) elements at `in`: its codes to
// `out`, its e8m0 scale returned, its values left in `v` (0 past `count`)
// and its amax in *block_amax. 16-byte loads and stores when the block is
// whole and both pointers are aligned. Every index into v is a constant
// (unrolled loops, guarded by count), so v stays in registers; the zeros
// past count change neither the amax nor the non-finite flag.
template <HighPrecision T>
__device__ __forceinline__ uint8_t MxRowBlock(const typename Hp<T>::Storage* in, uint8_t* out,
                                              int count, Fp8Kind kind, MxRule rule,
                                              float (&v)[kMxBlock], float* block_amax) {
  const bool vector =
      count == kMxBlock && IsAligned(in, kVectorBytes) && IsAligned(out, kVectorBytes);
  if (vector) {
    LoadVector<T, kMxBlock>(in, v);
  } else {
#pragma unroll
    for (int i = 0; i < kMxBlock; ++i) v[i] = i < count ? Hp<T>::Load(in[i]) : 0.0f;
  }
  MxBlockSummary summary;
#pragma unroll
  for (int i = 0; i < kMxBlock; ++i) MxBlockStep(summary, v[i]);
  *block_amax = summary.amax;
  const uint8_t scale = MxScaleCode(summary, kind, rule);
  if (vector) {
    uint8_t half[16];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
      for (int i = 0; i < 16; ++i) half[i] = MxEncodeElement(v[h * 16 + i], scale, kind, rule);
      StoreCodes16(out + h * 16, half);
    }
  } else {
#pragma unroll
    for (int i = 0; i < kMxBlock; ++i)
      if (i < count) out[i] = MxEncodeElement(v[i], scale, kind, rule);
  }
  return scale;
}

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
    float v[kMxBlock];
    float block_amax;
    scales[t] =
        MxRowBlock<T>(x + r * cols + c0, codes + r * cols + c0, count, kind, rule, v, &block_amax);
    local = fmaxf(local, block_amax);
  }
  ReduceAmaxIntoGlobal(amax, local);
}

// Both directions from one read of the input: a warp per 32x32 tile. Lane i
// takes row i of the tile as a row-wise block (MxRowBlock) and leaves its
// values in shared memory; lane j then takes column j of the tile as the
// column-wise block. Row stride 33 keeps both passes free of bank conflicts.
constexpr int kWarpsPerBlock = kThreads / 32;

template <HighPrecision T>
__global__ void MxBothKernel(const typename Hp<T>::Storage* x, int64_t rows, int64_t cols,
                             Fp8Kind kind, MxRule rule, uint8_t* codes, uint8_t* scales,
                             uint8_t* columnwise_codes, uint8_t* columnwise_scales, float* amax) {
  __shared__ float tiles[kWarpsPerBlock][kMxBlock][kMxBlock + 1];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  float(&tile)[kMxBlock][kMxBlock + 1] = tiles[warp];
  const int64_t blocks_per_row = (cols + kMxBlock - 1) / kMxBlock;
  const int64_t total = ((rows + kMxBlock - 1) / kMxBlock) * blocks_per_row;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * kWarpsPerBlock;
  float local = 0.0f;
  // The tile index is the same for every lane of a warp, so __syncwarp() is
  // reached by all of them.
  for (int64_t w = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + warp; w < total;
       w += warps) {
    const int64_t r0 = (w / blocks_per_row) * kMxBlock;
    const int64_t c0 = (w % blocks_per_row) * kMxBlock;
    const int row_count = static_cast<int>(rows - r0 < kMxBlock ? rows - r0 : kMxBlock);
    const int col_count = static_cast<int>(cols - c0 < kMxBlock ? cols - c0 : kMxBlock);
    if (lane < row_count) {
      const int64_t r = r0 + lane;
      float v[kMxBlock];
      float block_amax;
      scales[r * blocks_per_row + c0 / kMxBlock] = MxRowBlock<T>(
          x + r * cols + c0, codes + r * cols + c0, col_count, kind, rule, v, &block_amax);
      local = fmaxf(local, block_amax);
#pragma unroll
      for (int i = 0; i < kMxBlock; ++i)
        if (i < col_count) tile[lane][i] = v[i];
    }
    __syncwarp();
    if (lane < col_count) {
      const int64_t c = c0 + lane;
      MxBlockSummary summary;
      for (int i = 0; i < row_count; ++i) MxBlockStep(summary, tile[i][lane]);
      const uint8_t scale = MxScaleCode(summary, kind, rule);
      columnwise_scales[(r0 / kMxBlock) * cols + c] = scale;
      for (int i = 0; i < row_count; ++i)
        columnwise_codes[(r0 + i) * cols + c] = MxEncodeElement(tile[i][lane], scale, kind, rule);
    }
    __syncwarp();  // the next tile overwrites this one
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
    // Constant indices keep v in registers; 0 past count changes no summary.
    float v[kMxBlock];
    MxBlockSummary summary;
#pragma unroll
    for (int i = 0; i < kMxBlock; ++i) {
      v[i] = i < count ? Hp<T>::Load(x[(r0 + i) * cols + c]) : 0.0f;
      MxBlockStep(summary, v[i]);
    }
    local = fmaxf(local, summary.amax);
    const uint8_t scale = MxScaleCode(summary, kind, rule);
    scales[t] = scale;  // [ceil(rows/32), cols]: t is (r0 / 32) * cols + c
#pragma unroll
    for (int i = 0; i < kMxBlock; ++i)
      if (i < count) codes[(r0 + i) * cols + c] = MxEncodeElement(v[i], scale, kind, rule);
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
  if (e == cudaSuccess && l.rowwise_data != nullptr && l.columnwise_data != nullptr) {
    const int64_t tiles =
        ((l.rows + kMxBlock - 1) / kMxBlock) * ((l.cols + kMxBlock - 1) / kMxBlock);
    return static_cast<int>(Launch(MxBothKernel<T>, GridFor(tiles * 32), kThreads, stream, x,
                                   l.rows, l.cols, l.kind, l.mx_rule, l.rowwise_data,
                                   static_cast<uint8_t*>(l.rowwise_scale_inv), l.columnwise_data,
                                   static_cast<uint8_t*>(l.columnwise_scale_inv), l.amax));
  }
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
