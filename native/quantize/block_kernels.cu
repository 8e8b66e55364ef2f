// Block-scaled FP8 kernels (TransformerEngine's Float8BlockScaling): fp32
// scales from each block's amax by ScaleFromAmax.
//  - 1x128 row-wise: one warp per block, four consecutive elements per lane
//    (one 16-byte load for fp32, 8 bytes for fp16/bf16), scale from a warp
//    reduction.
//  - 1x128 column-wise (blocks down the original columns, codes transposed
//    to [cols, rows]): one thread per (column, 128 rows); reads are
//    coalesced across neighbouring columns, each thread writes its 128
//    consecutive transposed codes with 16-byte stores.
//  - 128x128: one thread block per tile, each thread taking groups of 4
//    consecutive elements (one vector load, one 4-byte code store); amax by
//    a block reduction, then the codes row-wise and, through shared memory,
//    transposed.
#include "native/quantize/kernel_entries.h"
#include "native/quantize/kernel_support.cuh"

namespace teplug::native::quantize {
namespace {

constexpr int kBlock = 128;

// The scale options every block kernel needs.
struct BlockOptions {
  Fp8Kind kind;
  float fp8_max;
  bool force_pow2;
  float epsilon;
  float input_max_finite;
};

__device__ __forceinline__ float BlockScale(float block_amax, const BlockOptions& o) {
  return ScaleFromAmax(block_amax, o.fp8_max, o.force_pow2, o.epsilon, o.input_max_finite);
}

template <HighPrecision T>
__global__ void Block1DRowwiseKernel(const typename Hp<T>::Storage* x, int64_t rows, int64_t cols,
                                     BlockOptions o, uint8_t* codes, float* scale_inv,
                                     float* amax) {
  constexpr int kPerLane = kBlock / 32;
  const int lane = threadIdx.x % 32;
  const int64_t blocks_per_row = (cols + kBlock - 1) / kBlock;
  const int64_t total = rows * blocks_per_row;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  float local = 0.0f;
  // The loop bound is the same for every lane of a warp, so shuffles stay converged.
  for (int64_t w = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; w < total;
       w += warps) {
    const int64_t r = w / blocks_per_row;
    const int64_t c = (w % blocks_per_row) * kBlock + lane * kPerLane;
    const int count = static_cast<int>(c >= cols ? 0 : (cols - c < kPerLane ? cols - c : kPerLane));
    const typename Hp<T>::Storage* in = x + r * cols + c;
    float v[kPerLane];
    // Four elements: one 16-byte load of fp32, one 8-byte load of fp16/bf16.
    if (count == kPerLane && IsAligned(in, kPerLane * sizeof(*in))) {
      LoadVector<T, kPerLane>(in, v);
    } else {
      for (int i = 0; i < count; ++i) v[i] = Hp<T>::Load(in[i]);
    }
    float a = 0.0f;
    for (int i = 0; i < count; ++i) a = AmaxStep(a, v[i]);
    a = WarpMax(a);
    local = fmaxf(local, a);
    const float s = BlockScale(a, o);
    if (lane == 0) scale_inv[w] = 1.0f / s;
    uint8_t* out = codes + r * cols + c;
    for (int i = 0; i < count; ++i) out[i] = EncodeScaled(v[i], s, o.kind);
  }
  ReduceAmaxIntoGlobal(amax, local);
}

template <HighPrecision T>
__global__ void Block1DColumnwiseKernel(const typename Hp<T>::Storage* x, int64_t rows,
                                        int64_t cols, BlockOptions o, uint8_t* codes_t,
                                        float* scale_inv, float* amax) {
  const int64_t block_rows = (rows + kBlock - 1) / kBlock;
  const int64_t total = block_rows * cols;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  float local = 0.0f;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += stride) {
    const int64_t rb = t / cols;
    const int64_t c = t % cols;
    const int64_t r0 = rb * kBlock;
    const int count = static_cast<int>(rows - r0 < kBlock ? rows - r0 : kBlock);
    float a = 0.0f;
    for (int i = 0; i < count; ++i) a = AmaxStep(a, Hp<T>::Load(x[(r0 + i) * cols + c]));
    local = fmaxf(local, a);
    const float s = BlockScale(a, o);
    scale_inv[c * block_rows + rb] = 1.0f / s;  // [cols, ceil(rows/128)]
    uint8_t* out = codes_t + c * rows + r0;
    int i = 0;
    if (IsAligned(out, kVectorBytes)) {
      for (; i + 16 <= count; i += 16) {
        uint8_t group[16];
#pragma unroll
        for (int j = 0; j < 16; ++j)
          group[j] = EncodeScaled(Hp<T>::Load(x[(r0 + i + j) * cols + c]), s, o.kind);
        StoreCodes16(out + i, group);
      }
    }
    for (; i < count; ++i) out[i] = EncodeScaled(Hp<T>::Load(x[(r0 + i) * cols + c]), s, o.kind);
  }
  ReduceAmaxIntoGlobal(amax, local);
}

// The 128x128 kernel's threads take groups of 4 consecutive elements of a
// tile row: one 16-byte (fp32) or 8-byte (fp16/bf16) load and one 4-byte
// code store when `vector` (cols a multiple of 4, x and codes aligned for
// them), element by element otherwise.
constexpr int kGroup = 4;
constexpr int kGroupsPerRow = kBlock / kGroup;

// Loads the group at (r, c) into v; returns how many elements it has.
template <HighPrecision T>
__device__ __forceinline__ int LoadGroup(const typename Hp<T>::Storage* x, int64_t cols, int64_t r,
                                         int64_t c, bool vector, float (&v)[kGroup]) {
  const typename Hp<T>::Storage* in = x + r * cols + c;
  if (vector) {
    LoadVector<T, kGroup>(in, v);
    return kGroup;
  }
  const int n = static_cast<int>(cols - c < kGroup ? cols - c : kGroup);
  for (int i = 0; i < n; ++i) v[i] = Hp<T>::Load(in[i]);
  return n;
}

template <HighPrecision T>
__global__ void Block2DKernel(const typename Hp<T>::Storage* x, int64_t rows, int64_t cols,
                              bool vector, BlockOptions o, uint8_t* codes, float* scale_inv,
                              uint8_t* codes_t, float* scale_inv_t, float* amax) {
  __shared__ uint8_t tile[kBlock][kBlock + 1];
  const int64_t tile_rows = (rows + kBlock - 1) / kBlock;
  const int64_t tile_cols = (cols + kBlock - 1) / kBlock;
  float local = 0.0f;
  for (int64_t t = blockIdx.x; t < tile_rows * tile_cols; t += gridDim.x) {
    const int64_t tr = t / tile_cols;
    const int64_t tc = t % tile_cols;
    float a = 0.0f;
    for (int g = threadIdx.x; g < kBlock * kGroupsPerRow; g += blockDim.x) {
      const int64_t r = tr * kBlock + g / kGroupsPerRow;
      const int64_t c = tc * kBlock + (g % kGroupsPerRow) * kGroup;
      if (r >= rows || c >= cols) continue;
      float v[kGroup];
      const int n = LoadGroup<T>(x, cols, r, c, vector, v);
      for (int i = 0; i < n; ++i) a = AmaxStep(a, v[i]);
    }
    a = BlockMax(a);
    local = fmaxf(local, a);
    const float s = BlockScale(a, o);
    if (threadIdx.x == 0) {
      if (scale_inv != nullptr) scale_inv[tr * tile_cols + tc] = 1.0f / s;
      if (scale_inv_t != nullptr)
        scale_inv_t[tc * tile_rows + tr] = 1.0f / s;  // the transposed grid
    }
    for (int g = threadIdx.x; g < kBlock * kGroupsPerRow; g += blockDim.x) {
      const int lr = g / kGroupsPerRow;
      const int lc = (g % kGroupsPerRow) * kGroup;
      const int64_t r = tr * kBlock + lr;
      const int64_t c = tc * kBlock + lc;
      if (r >= rows || c >= cols) continue;
      float v[kGroup];
      const int n = LoadGroup<T>(x, cols, r, c, vector, v);
      uint8_t group[kGroup];
      for (int i = 0; i < n; ++i) {
        group[i] = EncodeScaled(v[i], s, o.kind);
        tile[lr][lc + i] = group[i];
      }
      if (codes == nullptr) continue;
      if (vector) {
        uint32_t packed;
        memcpy(&packed, group, sizeof packed);
        *reinterpret_cast<uint32_t*>(codes + r * cols + c) = packed;
      } else {
        for (int i = 0; i < n; ++i) codes[r * cols + c + i] = group[i];
      }
    }
    __syncthreads();
    if (codes_t != nullptr) {
      for (int idx = threadIdx.x; idx < kBlock * kBlock; idx += blockDim.x) {
        const int lc = idx / kBlock;
        const int lr = idx % kBlock;
        const int64_t r = tr * kBlock + lr;
        const int64_t c = tc * kBlock + lc;
        if (r < rows && c < cols) codes_t[c * rows + r] = tile[lr][lc];
      }
    }
    __syncthreads();
  }
  ReduceAmaxIntoGlobal(amax, local);
}

template <HighPrecision T>
int LaunchTyped(const QuantizeLaunch& l) {
  using S = typename Hp<T>::Storage;
  cudaStream_t stream = static_cast<cudaStream_t>(l.stream);
  const S* x = static_cast<const S*>(l.input);
  const BlockOptions o{l.kind, LayoutOf(l.kind).max_normal, l.force_pow2_scales, l.amax_epsilon,
                       l.input_max_finite};
  cudaError_t e = cudaSuccess;
  if (l.amax != nullptr) e = cudaMemsetAsync(l.amax, 0, sizeof(float), stream);
  if (l.rows * l.cols == 0) return static_cast<int>(e);
  if (l.scaling == Scaling::kBlock2D) {
    if (e == cudaSuccess) {
      const int64_t tiles = ((l.rows + kBlock - 1) / kBlock) * ((l.cols + kBlock - 1) / kBlock);
      const bool vector = l.cols % kGroup == 0 && IsAligned(x, kGroup * sizeof(S)) &&
                          (l.rowwise_data == nullptr || IsAligned(l.rowwise_data, kGroup));
      e = Launch(Block2DKernel<T>, GridFor(tiles, 1), kThreads, stream, x, l.rows, l.cols, vector,
                 o, l.rowwise_data, static_cast<float*>(l.rowwise_scale_inv), l.columnwise_data,
                 static_cast<float*>(l.columnwise_scale_inv), l.amax);
    }
    return static_cast<int>(e);
  }
  if (e == cudaSuccess && l.rowwise_data != nullptr) {
    const int64_t warps = l.rows * ((l.cols + kBlock - 1) / kBlock);
    e = Launch(Block1DRowwiseKernel<T>, GridFor(warps * 32), kThreads, stream, x, l.rows, l.cols, o,
               l.rowwise_data, static_cast<float*>(l.rowwise_scale_inv), l.amax);
  }
  if (e == cudaSuccess && l.columnwise_data != nullptr) {
    const int64_t threads = ((l.rows + kBlock - 1) / kBlock) * l.cols;
    e = Launch(Block1DColumnwiseKernel<T>, GridFor(threads), kThreads, stream, x, l.rows, l.cols, o,
               l.columnwise_data, static_cast<float*>(l.columnwise_scale_inv), l.amax);
  }
  return static_cast<int>(e);
}

}  // namespace

int LaunchBlockQuantize(const QuantizeLaunch& launch) {
  return WithHighPrecision(launch.input_type,
                           [&](auto type) { return LaunchTyped<decltype(type)::value>(launch); });
}

}  // namespace teplug::native::quantize
