// Per-tensor FP8 quantization kernels: amax reduction, the scale kernel,
// the vectorised row-wise cast and the tiled cast that also writes the
// transpose. Delayed scaling reduces amax inside the cast (one pass);
// current scaling needs the whole tensor's amax before any cast, so it
// reads the input twice (amax pass, then cast).
#include "native/quantize/kernel_entries.h"
#include "native/quantize/kernel_support.cuh"

namespace teplug::native::quantize {
namespace {

// Elements one thread casts with vector accesses: 16 codes, one 16-byte store.
constexpr int kChunk = 16;

template <HighPrecision T>
__global__ void AmaxKernel(const typename Hp<T>::Storage* x, int64_t n, bool vectorised,
                           float* amax) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t chunks = vectorised ? n / kChunk : 0;
  float local = 0.0f;
  for (int64_t c = first; c < chunks; c += stride) {
    float v[kChunk];
    LoadVector<T, kChunk>(x + c * kChunk, v);
#pragma unroll
    for (int i = 0; i < kChunk; ++i) local = AmaxStep(local, v[i]);
  }
  for (int64_t i = chunks * kChunk + first; i < n; i += stride)
    local = AmaxStep(local, Hp<T>::Load(x[i]));
  ReduceAmaxIntoGlobal(amax, local);
}

// One thread: the scale (current scaling: from *amax; delayed: *scale as
// given, NaN when unusable) and its inverse into each scale_inv asked for.
__global__ void ScaleKernel(bool current, const float* amax, float* scale, float* rowwise_scale_inv,
                            float* columnwise_scale_inv, float fp8_max, bool force_pow2,
                            float epsilon, float input_max_finite) {
  const float s = current ? ScaleFromAmax(*amax, fp8_max, force_pow2, epsilon, input_max_finite)
                          : UsableScale(*scale);
  if (current) *scale = s;
  const float inverse = 1.0f / s;
  if (rowwise_scale_inv != nullptr) *rowwise_scale_inv = inverse;
  if (columnwise_scale_inv != nullptr) *columnwise_scale_inv = inverse;
}

// Row-wise codes of the flattened tensor; amax (when not NULL) reduced in the same pass.
template <HighPrecision T>
__global__ void CastKernel(const typename Hp<T>::Storage* x, int64_t n, bool vectorised,
                           const float* scale, Fp8Kind kind, uint8_t* out, float* amax) {
  const float s = UsableScale(*scale);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t chunks = vectorised ? n / kChunk : 0;
  float local = 0.0f;
  for (int64_t c = first; c < chunks; c += stride) {
    float v[kChunk];
    uint8_t codes[kChunk];
    LoadVector<T, kChunk>(x + c * kChunk, v);
#pragma unroll
    for (int i = 0; i < kChunk; ++i) {
      local = AmaxStep(local, v[i]);
      codes[i] = EncodeScaled(v[i], s, kind);
    }
    StoreCodes16(out + c * kChunk, codes);
  }
  for (int64_t i = chunks * kChunk + first; i < n; i += stride) {
    const float v = Hp<T>::Load(x[i]);
    local = AmaxStep(local, v);
    out[i] = EncodeScaled(v, s, kind);
  }
  ReduceAmaxIntoGlobal(amax, local);
}

// Tiles of kTile x kTile: each is read once and written row-wise (when
// asked) and transposed through shared memory, so both stores are coalesced.
constexpr int kTile = 32;
constexpr int kTileRowsPerPass = 8;  // blockDim = (kTile, kTileRowsPerPass)

template <HighPrecision T>
__global__ void TiledCastKernel(const typename Hp<T>::Storage* x, int64_t rows, int64_t cols,
                                const float* scale, Fp8Kind kind, uint8_t* rowwise,
                                uint8_t* columnwise, float* amax) {
  __shared__ uint8_t tile[kTile][kTile + 1];
  const float s = UsableScale(*scale);
  const int64_t tiles_across = (cols + kTile - 1) / kTile;
  const int64_t tiles = tiles_across * ((rows + kTile - 1) / kTile);
  float local = 0.0f;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t r0 = (t / tiles_across) * kTile;
    const int64_t c0 = (t % tiles_across) * kTile;
    for (int j = threadIdx.y; j < kTile; j += kTileRowsPerPass) {
      const int64_t r = r0 + j;
      const int64_t c = c0 + threadIdx.x;
      if (r < rows && c < cols) {
        const float v = Hp<T>::Load(x[r * cols + c]);
        local = AmaxStep(local, v);
        const uint8_t code = EncodeScaled(v, s, kind);
        if (rowwise != nullptr) rowwise[r * cols + c] = code;
        tile[j][threadIdx.x] = code;
      }
    }
    __syncthreads();
    for (int j = threadIdx.y; j < kTile; j += kTileRowsPerPass) {
      const int64_t c = c0 + j;
      const int64_t r = r0 + threadIdx.x;
      if (r < rows && c < cols) columnwise[c * rows + r] = tile[threadIdx.x][j];
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
  const int64_t n = l.rows * l.cols;
  const float fp8_max = LayoutOf(l.kind).max_normal;

  // Current scaling without a caller's amax or scale keeps them in scratch.
  float* scratch = nullptr;
  if (l.current_scaling && (l.amax == nullptr || l.scale == nullptr)) {
    cudaError_t e = cudaMallocAsync(reinterpret_cast<void**>(&scratch), 2 * sizeof(float), stream);
    if (e != cudaSuccess) return static_cast<int>(e);
  }
  float* amax = l.amax != nullptr ? l.amax : scratch;
  float* scale = l.scale != nullptr ? l.scale : scratch + 1;
  cudaError_t e = cudaSuccess;
  if (amax != nullptr) e = cudaMemsetAsync(amax, 0, sizeof(float), stream);
  const bool vectorised = IsAligned(x, kVectorBytes) &&
                          (l.rowwise_data == nullptr || IsAligned(l.rowwise_data, kVectorBytes));
  if (e == cudaSuccess && l.current_scaling && n > 0) {
    e = Launch(AmaxKernel<T>, GridFor((n + kChunk - 1) / kChunk), kThreads, stream, x, n,
               vectorised, amax);
  }
  if (e == cudaSuccess) {
    e = Launch(ScaleKernel, 1, 1, stream, l.current_scaling, static_cast<const float*>(amax), scale,
               static_cast<float*>(l.rowwise_scale_inv),
               static_cast<float*>(l.columnwise_scale_inv), fp8_max, l.force_pow2_scales,
               l.amax_epsilon, l.input_max_finite);
  }
  // Delayed scaling reduces amax in the cast; current scaling already has it.
  float* cast_amax = l.current_scaling ? nullptr : l.amax;
  if (e == cudaSuccess && n > 0) {
    if (l.columnwise_data != nullptr) {
      const int64_t tiles = ((l.rows + kTile - 1) / kTile) * ((l.cols + kTile - 1) / kTile);
      e = Launch(TiledCastKernel<T>, GridFor(tiles, 1), dim3(kTile, kTileRowsPerPass), stream, x,
                 l.rows, l.cols, static_cast<const float*>(scale), l.kind, l.rowwise_data,
                 l.columnwise_data, cast_amax);
    } else {
      e = Launch(CastKernel<T>, GridFor((n + kChunk - 1) / kChunk), kThreads, stream, x, n,
                 vectorised, static_cast<const float*>(scale), l.kind, l.rowwise_data, cast_amax);
    }
  }
  if (scratch != nullptr) {
    const cudaError_t f = cudaFreeAsync(scratch, stream);
    if (e == cudaSuccess) e = f;
  }
  return static_cast<int>(e);
}

}  // namespace

int LaunchPerTensorQuantize(const QuantizeLaunch& launch) {
  return WithHighPrecision(launch.input_type,
                           [&](auto type) { return LaunchTyped<decltype(type)::value>(launch); });
}

}  // namespace teplug::native::quantize
