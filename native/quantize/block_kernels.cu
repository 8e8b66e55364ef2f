// Block-scaled FP8 kernels (TransformerEngine's Float8BlockScaling): fp32
// scales from each block's amax by ScaleFromAmax.
//  - 1x128 row-wise: one warp per block, four consecutive elements per lane
//    (one 16-byte load for fp32, 8 bytes for fp16/bf16), scale from a warp
//    reduction.
//  - 1x128 column-wise (blocks down the original columns, codes transposed
//    to [cols, rows]), alone or with row-wise: one thread block per 128x128
//    tile read once into registers (TileGroups); each tile column's scale
//    from the warps' partial maxima in shared memory, its codes transposed
//    through shared memory; asked for both, each tile row's scale from a
//    warp reduction and the row-wise codes stored from registers.
//  - 128x128: the same tile in registers; amax by a block reduction, then
//    the codes row-wise and, through shared memory, transposed.
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
    // Constant indices keep v in registers; elements past the row are 0.
    if (count == kPerLane && IsAligned(in, kPerLane * sizeof(*in))) {
      LoadVector<T, kPerLane>(in, v);
    } else {
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) v[i] = i < count ? Hp<T>::Load(in[i]) : 0.0f;
    }
    float a = 0.0f;
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) a = AmaxStep(a, v[i]);
    a = WarpMax(a);
    local = fmaxf(local, a);
    const float s = BlockScale(a, o);
    if (lane == 0) scale_inv[w] = 1.0f / s;
    uint8_t* out = codes + r * cols + c;
#pragma unroll
    for (int i = 0; i < kPerLane; ++i)
      if (i < count) out[i] = EncodeScaled(v[i], s, o.kind);
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
  // Constant indices keep v in registers.
#pragma unroll
  for (int i = 0; i < kGroup; ++i) v[i] = i < n ? Hp<T>::Load(in[i]) : 0.0f;
  return n;
}

// A 128x128 tile in registers: thread t holds, for each j, the group of 4
// elements at tile row t / 32 + 8 j, tile columns (t % 32) * 4 .. + 3, so a
// warp holds whole tile rows and the block the whole tile. Needs
// blockDim.x == kThreads.
constexpr int kRowsPerPass = kThreads / kGroupsPerRow;
constexpr int kGroupsPerThread = kBlock / kRowsPerPass;
static_assert(kRowsPerPass * kGroupsPerRow == kThreads, "a pass covers whole tile rows");

struct TileGroups {
  float v[kGroupsPerThread][kGroup];  // 0 past the tensor
  int n[kGroupsPerThread];            // elements of each group inside the tensor (0: none)
  int64_t r0;                         // the tensor row of the thread's first group
  int64_t c;                          // the tensor column of the thread's groups
  int lr0;                            // the tile row of the thread's first group
  int lc;                             // the tile column of the thread's groups
};

template <HighPrecision T>
__device__ __forceinline__ void LoadTile(const typename Hp<T>::Storage* x, int64_t rows,
                                         int64_t cols, bool vector, int64_t tr, int64_t tc,
                                         TileGroups& g) {
  g.lr0 = static_cast<int>(threadIdx.x) / kGroupsPerRow;
  g.lc = (static_cast<int>(threadIdx.x) % kGroupsPerRow) * kGroup;
  g.r0 = tr * kBlock + g.lr0;
  g.c = tc * kBlock + g.lc;
#pragma unroll
  for (int j = 0; j < kGroupsPerThread; ++j) {
    const int64_t r = g.r0 + j * kRowsPerPass;
    if (r < rows && g.c < cols) {
      g.n[j] = LoadGroup<T>(x, cols, r, g.c, vector, g.v[j]);
    } else {
      g.n[j] = 0;
#pragma unroll
      for (int i = 0; i < kGroup; ++i) g.v[j][i] = 0.0f;
    }
  }
}

// Stores group j's codes row-wise (one 4-byte store when `vector`).
__device__ __forceinline__ void StoreRowCodes(uint8_t* codes, int64_t cols, const TileGroups& g,
                                              int j, bool vector, const uint8_t (&group)[kGroup]) {
  uint8_t* out = codes + (g.r0 + j * kRowsPerPass) * cols + g.c;
  if (vector) {
    uint32_t packed;
    memcpy(&packed, group, sizeof packed);
    TEPLUG_REQUIRE_ALIGNED(out, sizeof packed);
    *reinterpret_cast<uint32_t*>(out) = packed;
  } else {
#pragma unroll
    for (int i = 0; i < kGroup; ++i)
      if (i < g.n[j]) out[i] = group[i];
  }
}

// Writes the tile's column-wise codes (tile[lr][lc]) transposed to
// codes_t [cols, rows]: consecutive threads take consecutive rows.
__device__ __forceinline__ void StoreTransposed(const uint8_t (&tile)[kBlock][kBlock + 1],
                                                int64_t rows, int64_t cols, int64_t tr, int64_t tc,
                                                uint8_t* codes_t) {
  for (int idx = threadIdx.x; idx < kBlock * kBlock; idx += blockDim.x) {
    const int lc = idx / kBlock;
    const int lr = idx % kBlock;
    const int64_t r = tr * kBlock + lr;
    const int64_t c = tc * kBlock + lc;
    if (r < rows && c < cols) codes_t[c * rows + r] = tile[lr][lc];
  }
}

// 1x128 blocks column-wise, and row-wise when `codes` is given, from one
// read of each 128x128 tile.
template <HighPrecision T>
__global__ void Block1DTileKernel(const typename Hp<T>::Storage* x, int64_t rows, int64_t cols,
                                  bool vector, BlockOptions o, uint8_t* codes, float* scale_inv,
                                  uint8_t* codes_t, float* scale_inv_t, float* amax) {
  __shared__ uint8_t tile[kBlock][kBlock + 1];
  __shared__ float column_max[kRowsPerPass][kBlock];
  __shared__ float column_scale[kBlock];
  const int64_t tile_rows = (rows + kBlock - 1) / kBlock;
  const int64_t tile_cols = (cols + kBlock - 1) / kBlock;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  float local = 0.0f;
  for (int64_t t = blockIdx.x; t < tile_rows * tile_cols; t += gridDim.x) {
    const int64_t tr = t / tile_cols;
    const int64_t tc = t % tile_cols;
    TileGroups g;
    LoadTile<T>(x, rows, cols, vector, tr, tc, g);
    // Row-wise: the warp holds tile row lr0 + 8 j whole.
    float partial[kGroup] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int j = 0; j < kGroupsPerThread; ++j) {
      // Groups past the tensor hold zeros, which change no amax.
      float a = 0.0f;
#pragma unroll
      for (int i = 0; i < kGroup; ++i) {
        a = AmaxStep(a, g.v[j][i]);
        partial[i] = AmaxStep(partial[i], g.v[j][i]);
      }
      a = WarpMax(a);  // j is the same for every lane: the shuffle stays converged
      local = fmaxf(local, a);
      const int64_t r = g.r0 + j * kRowsPerPass;
      if (codes == nullptr || r >= rows) continue;
      const float s = BlockScale(a, o);
      if (lane == 0) scale_inv[r * tile_cols + tc] = 1.0f / s;  // [rows, ceil(cols/128)]
      uint8_t group[kGroup];
#pragma unroll
      for (int i = 0; i < kGroup; ++i) group[i] = EncodeScaled(g.v[j][i], s, o.kind);
      if (g.n[j] > 0) StoreRowCodes(codes, cols, g, j, vector, group);
    }
    // Column-wise: each warp's maxima over its rows, then over the warps.
    for (int i = 0; i < kGroup; ++i) column_max[g.lr0][g.lc + i] = partial[i];
    __syncthreads();
    if (threadIdx.x < kBlock) {
      float a = 0.0f;
      for (int w = 0; w < kRowsPerPass; ++w) a = fmaxf(a, column_max[w][threadIdx.x]);
      const float s = BlockScale(a, o);
      column_scale[threadIdx.x] = s;
      const int64_t c = tc * kBlock + threadIdx.x;
      if (c < cols) scale_inv_t[c * tile_rows + tr] = 1.0f / s;  // [cols, ceil(rows/128)]
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kGroupsPerThread; ++j) {
#pragma unroll
      for (int i = 0; i < kGroup; ++i) {
        if (i < g.n[j]) {
          tile[g.lr0 + j * kRowsPerPass][g.lc + i] =
              EncodeScaled(g.v[j][i], column_scale[g.lc + i], o.kind);
        }
      }
    }
    __syncthreads();
    StoreTransposed(tile, rows, cols, tr, tc, codes_t);
    __syncthreads();
  }
  ReduceAmaxIntoGlobal(amax, local);
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
    TileGroups g;
    LoadTile<T>(x, rows, cols, vector, tr, tc, g);
    float a = 0.0f;  // groups past the tensor hold zeros
#pragma unroll
    for (int j = 0; j < kGroupsPerThread; ++j) {
#pragma unroll
      for (int i = 0; i < kGroup; ++i) a = AmaxStep(a, g.v[j][i]);
    }
    a = BlockMax(a);
    local = fmaxf(local, a);
    const float s = BlockScale(a, o);
    if (threadIdx.x == 0) {
      if (scale_inv != nullptr) scale_inv[tr * tile_cols + tc] = 1.0f / s;
      if (scale_inv_t != nullptr)
        scale_inv_t[tc * tile_rows + tr] = 1.0f / s;  // the transposed grid
    }
#pragma unroll
    for (int j = 0; j < kGroupsPerThread; ++j) {
      if (g.n[j] == 0) continue;
      uint8_t group[kGroup];
#pragma unroll
      for (int i = 0; i < kGroup; ++i) {
        group[i] = EncodeScaled(g.v[j][i], s, o.kind);
        if (i < g.n[j]) tile[g.lr0 + j * kRowsPerPass][g.lc + i] = group[i];
      }
      if (codes != nullptr) StoreRowCodes(codes, cols, g, j, vector, group);
    }
    __syncthreads();
    if (codes_t != nullptr) StoreTransposed(tile, rows, cols, tr, tc, codes_t);
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
  if (l.columnwise_data != nullptr) {
    if (e == cudaSuccess) {
      const int64_t tiles = ((l.rows + kBlock - 1) / kBlock) * ((l.cols + kBlock - 1) / kBlock);
      const bool vector = l.cols % kGroup == 0 && IsAligned(x, kGroup * sizeof(S)) &&
                          (l.rowwise_data == nullptr || IsAligned(l.rowwise_data, kGroup));
      e = Launch(Block1DTileKernel<T>, GridFor(tiles, 1), kThreads, stream, x, l.rows, l.cols,
                 vector, o, l.rowwise_data, static_cast<float*>(l.rowwise_scale_inv),
                 l.columnwise_data, static_cast<float*>(l.columnwise_scale_inv), l.amax);
    }
    return static_cast<int>(e);
  }
  if (e == cudaSuccess && l.rowwise_data != nullptr) {
    const int64_t warps = l.rows * ((l.cols + kBlock - 1) / kBlock);
    e = Launch(Block1DRowwiseKernel<T>, GridFor(warps * 32), kThreads, stream, x, l.rows, l.cols, o,
               l.rowwise_data, static_cast<float*>(l.rowwise_scale_inv), l.amax);
  }
  return static_cast<int>(e);
}

}  // namespace

int LaunchBlockQuantize(const QuantizeLaunch& launch) {
  return WithHighPrecision(launch.input_type,
                           [&](auto type) { return LaunchTyped<decltype(type)::value>(launch); });
}

}  // namespace teplug::native::quantize
