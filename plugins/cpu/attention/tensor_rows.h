// Contiguous runs of fp32, bf16 or fp16 elements widened to fp32 and narrowed
// back (round to nearest even): how the attention kernels read Q, K, V, O,
// dO and bias rows and write O, gradients and dBias.
#ifndef TEPLUG_PLUGINS_CPU_ATTENTION_TENSOR_ROWS_H_
#define TEPLUG_PLUGINS_CPU_ATTENTION_TENSOR_ROWS_H_

#include <cstdint>

namespace teplug::cpu::attention {

// out[e] = element offset + e of `data` (of `dtype`: fp32, bf16 or fp16 as
// the call was checked to hold) for e < n.
void LoadRow(const void* data, int32_t dtype, int64_t offset, int64_t n, float* out);

// Element offset + e of `data` = in[e] rounded to `dtype`, for e < n.
void StoreRow(void* data, int32_t dtype, int64_t offset, int64_t n, const float* in);

}  // namespace teplug::cpu::attention

#endif  // TEPLUG_PLUGINS_CPU_ATTENTION_TENSOR_ROWS_H_
