// The small CUDA kernels around cuDNN's SDPA graph. teplug passes the
// batch's cumulative lengths (cu_seqlens, int32 [B + 1]); cuDNN wants each
// sequence's length (padding masks) and, for THD, each sequence's first
// element (ragged offsets); and teplug's contract defines the outputs at
// padding positions (O and gradients 0, LSE -inf), which cuDNN leaves
// unwritten. An fp8 backward writes one amax per gradient, where teplug's
// packed layouts give dQ, dK and dV one tensor and so one amax: their maximum.
// Each launcher enqueues on `stream` (a cudaStream_t) and returns the
// launch's cudaError_t (0 on success).
#ifndef TEPLUG_NATIVE_ATTENTION_SEQUENCE_KERNELS_H_
#define TEPLUG_NATIVE_ATTENTION_SEQUENCE_KERNELS_H_

#include <array>
#include <cstdint>

namespace teplug::native::attention {

// lengths[b] = cu_seqlens[b + 1] - cu_seqlens[b] for b < batch.
int LaunchSequenceLengths(const int32_t* cu_seqlens, int32_t* lengths, int64_t batch, void* stream);

// offsets[b] = cu_seqlens[b] * token_stride for b <= batch (int64).
int LaunchRaggedOffsets(const int32_t* cu_seqlens, int64_t* offsets, int64_t batch,
                        int64_t token_stride, void* stream);

// rng[0] = seed, rng[1] = offset: the dropout state cuDNN reads from the device.
int LaunchWriteRngState(int64_t* rng, uint64_t seed, uint64_t offset, void* stream);

// Zeroes the rows s >= lengths[b] of a [B, H, S, D] view at `base` with
// `strides` (elements) of `element_bytes` 1 (fp8) or 2 (fp16/bf16).
int LaunchZeroRowsPastLength(void* base, std::array<int64_t, 4> dims,
                             std::array<int64_t, 4> strides, int element_bytes,
                             const int32_t* lengths, void* stream);

// *out = the largest slots[i * slot_stride] over the bits i (< 32) set in
// `mask` (slots apart, as each amax cuDNN writes is 16-byte aligned).
int LaunchMaxOfAmaxes(const float* slots, int64_t slot_stride, uint32_t mask, float* out,
                      void* stream);

// Writes -inf to lse[b][h][s] (contiguous fp32 [B, H, S]) for s >= lengths[b].
int LaunchNegInfPastLength(float* lse, int64_t batch, int64_t heads, int64_t seq,
                           const int32_t* lengths, void* stream);

}  // namespace teplug::native::attention

#endif  // TEPLUG_NATIVE_ATTENTION_SEQUENCE_KERNELS_H_
