// Contiguous runs of fp32, bf16 or fp16 elements widened to fp32 and narrowed
// back (round to nearest even): how the attention kernels read Q, K, V, O,
// dO and bias rows and write O, gradients and dBias; bf16 rows copied as
// they are for the bf16 tile products.
#ifndef TEPLUG_PLUGINS_CPU_ATTENTION_TENSOR_ROWS_H_
#define TEPLUG_PLUGINS_CPU_ATTENTION_TENSOR_ROWS_H_

#include <cstdint>

namespace teplug::cpu::attention {

// out[e] = element offset + e of `data` (of `dtype`: fp32, bf16 or fp16 as
// the call was checked to hold) for e < n.
void LoadRow(const void* data, int32_t dtype, int64_t offset, int64_t n, float* out);

// Element offset + e of `data` = in[e] rounded to `dtype`, for e < n.
void StoreRow(void* data, int32_t dtype, int64_t offset, int64_t n, const float* in);

// out[e] = the bf16 bits of element offset + e of the bf16 tensor `data`,
// for e < n: how the bf16 tile products take their operands, unconverted.
void CopyBf16Row(const void* data, int64_t offset, int64_t n, uint16_t* out);

}  // namespace teplug::cpu::attention

#endif  // TEPLUG_PLUGINS_CPU_ATTENTION_TENSOR_ROWS_H_
