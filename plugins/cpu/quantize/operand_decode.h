// Decoding an fp8 GEMM operand into the dtype a oneDNN matmul reads (fp32 or
// bf16), one pass over the codes split over a thread budget. The GEMM
// (plugins/cpu/provider/gemm_plan.h) runs the matmul on the decoded matrix.
#ifndef TEPLUG_PLUGINS_CPU_QUANTIZE_OPERAND_DECODE_H_
#define TEPLUG_PLUGINS_CPU_QUANTIZE_OPERAND_DECODE_H_

#include <cstdint>

#include "plugins/cpu/quantize/element_codec.h"

namespace teplug::cpu::quantize {

// How an operand's codes relate to its values: the scaling mode of its
// row-wise scales (the ABI's TeplugScalingMode, types.h), and those scales,
// contiguous in the mode's shape: per-tensor fp32 [1], MXFP8 e8m0
// [rows, ceil(cols/32)], 1x128 fp32 [rows, ceil(cols/128)], 128x128 fp32
// [ceil(rows/128), ceil(cols/128)].
struct OperandScales {
  enum class Mode { kPerTensor, kMx, kBlock1x128, kBlock128x128 } mode = Mode::kPerTensor;
  const void* values = nullptr;  // fp32, or e8m0 for kMx
};

// Writes the values of `codes` [rows, cols] (contiguous) into `out` [rows,
// cols] (contiguous), as bf16 when `bf16` else fp32:
//   per_tensor:  the codes' values alone, exact: the caller folds the one
//                scale_inv into the GEMM's output scale;
//   mxfp8_1d32:  code * 2^(e - 127), exact in fp32 and in bf16 (fp8 values
//                have at most 4 significant bits) while the product is a
//                normal number of the target;
//   block_1d128, block_2d128: code * scale_inv rounded once to fp32 (the
//                product of an fp8 value and an fp32 scale is rarely exact in
//                bf16, so these are decoded into fp32 only; `bf16` must be
//                false).
void DecodeOperand(const uint8_t* codes, int64_t rows, int64_t cols, Fp8Kind kind,
                   const OperandScales& scales, bool bf16, void* out, int threads);

}  // namespace teplug::cpu::quantize

#endif  // TEPLUG_PLUGINS_CPU_QUANTIZE_OPERAND_DECODE_H_
