#include <cmath>

#include "native/attention/sequence_kernels.h"
#include "native/device/kernel_launch.cuh"

namespace teplug::native::attention {
namespace {

constexpr int kThreads = 256;

int64_t Blocks(int64_t n) { return (n + kThreads - 1) / kThreads; }

__global__ void SequenceLengthsKernel(const int32_t* cu, int32_t* lengths, int64_t batch) {
  const int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (b < batch) lengths[b] = cu[b + 1] - cu[b];
}

__global__ void RaggedOffsetsKernel(const int32_t* cu, int64_t* offsets, int64_t batch,
                                    int64_t token_stride) {
  const int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (b <= batch) offsets[b] = static_cast<int64_t>(cu[b]) * token_stride;
}

__global__ void WriteRngStateKernel(int64_t* rng, uint64_t seed, uint64_t offset) {
  rng[0] = static_cast<int64_t>(seed);
  rng[1] = static_cast<int64_t>(offset);
}

// One thread per element of the [B, H, S, D] view.
template <typename Element>
__global__ void ZeroRowsKernel(Element* base, int64_t h_dim, int64_t s_dim, int64_t d_dim,
                               int64_t total, int64_t sb, int64_t sh, int64_t ss, int64_t sd,
                               const int32_t* lengths) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= total) return;
  const int64_t d = i % d_dim;
  const int64_t s = (i / d_dim) % s_dim;
  const int64_t h = (i / (d_dim * s_dim)) % h_dim;
  const int64_t b = i / (d_dim * s_dim * h_dim);
  if (s >= lengths[b]) base[b * sb + h * sh + s * ss + d * sd] = 0;
}

// A NaN amax stays NaN (fmaxf would drop it).
__global__ void MaxOfAmaxesKernel(const float* slots, int64_t slot_stride, uint32_t mask,
                                  float* out) {
  float m = 0.0f;
  for (int i = 0; i < 32; ++i) {
    if (((mask >> i) & 1u) == 0) continue;
    const float v = slots[i * slot_stride];
    if (v != v) {
      m = v;
      break;
    }
    if (v > m) m = v;
  }
  *out = m;
}

__global__ void NegInfKernel(float* lse, int64_t heads, int64_t seq, int64_t total,
                             const int32_t* lengths) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= total) return;
  const int64_t s = i % seq;
  const int64_t b = i / (seq * heads);
  if (s >= lengths[b]) lse[i] = -INFINITY;
}

}  // namespace

int LaunchSequenceLengths(const int32_t* cu_seqlens, int32_t* lengths, int64_t batch, void* stream) {
  if (batch == 0) return 0;
  return Launch(SequenceLengthsKernel, Blocks(batch), kThreads, static_cast<cudaStream_t>(stream),
                cu_seqlens, lengths, batch);
}

int LaunchRaggedOffsets(const int32_t* cu_seqlens, int64_t* offsets, int64_t batch,
                        int64_t token_stride, void* stream) {
  return Launch(RaggedOffsetsKernel, Blocks(batch + 1), kThreads, static_cast<cudaStream_t>(stream),
                cu_seqlens, offsets, batch, token_stride);
}

int LaunchWriteRngState(int64_t* rng, uint64_t seed, uint64_t offset, void* stream) {
  return Launch(WriteRngStateKernel, 1, 1, static_cast<cudaStream_t>(stream), rng, seed, offset);
}

int LaunchZeroRowsPastLength(void* base, std::array<int64_t, 4> dims,
                             std::array<int64_t, 4> strides, int element_bytes,
                             const int32_t* lengths, void* stream) {
  const int64_t total = dims[0] * dims[1] * dims[2] * dims[3];
  if (total == 0) return 0;
  const auto s = static_cast<cudaStream_t>(stream);
  if (element_bytes == 1) {
    return Launch(ZeroRowsKernel<uint8_t>, Blocks(total), kThreads, s, static_cast<uint8_t*>(base),
                  dims[1], dims[2], dims[3], total, strides[0], strides[1], strides[2], strides[3],
                  lengths);
  }
  return Launch(ZeroRowsKernel<uint16_t>, Blocks(total), kThreads, s, static_cast<uint16_t*>(base),
                dims[1], dims[2], dims[3], total, strides[0], strides[1], strides[2], strides[3],
                lengths);
}

int LaunchMaxOfAmaxes(const float* slots, int64_t slot_stride, uint32_t mask, float* out,
                      void* stream) {
  return Launch(MaxOfAmaxesKernel, 1, 1, static_cast<cudaStream_t>(stream), slots, slot_stride,
                mask, out);
}

int LaunchNegInfPastLength(float* lse, int64_t batch, int64_t heads, int64_t seq,
                           const int32_t* lengths, void* stream) {
  const int64_t total = batch * heads * seq;
  if (total == 0) return 0;
  return Launch(NegInfKernel, Blocks(total), kThreads, static_cast<cudaStream_t>(stream), lse,
                heads, seq, total, lengths);
}

}  // namespace teplug::native::attention
