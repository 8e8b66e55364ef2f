// The cpu quantizer's kernels on contiguous row-major host matrices
// [rows, cols]: amax, the scale formula, per-tensor, MXFP8 (1x32, e8m0) and
// block (1x128, 128x128) quantization into fp8, transposition for the
// column-wise copies, and dequantization. They follow the exact rules of
// interfaces/teplug/quantizer.h (TransformerEngine's scale formula, the OCP
// MX v1.0 scale rule and TransformerEngine's MX rule) and split rows or
// blocks over `threads` threads; every
// output element is computed by one thread from the same inputs, so results
// are identical for every thread count.
#ifndef TEPLUG_PLUGINS_CPU_QUANTIZE_QUANTIZE_KERNELS_H_
#define TEPLUG_PLUGINS_CPU_QUANTIZE_QUANTIZE_KERNELS_H_

#include <cstdint>

#include "plugins/cpu/quantize/element_codec.h"

namespace teplug::cpu::quantize {

// The high-precision element types (quantize's input, dequantize's output).
enum class Wide { kFp32, kFp16, kBf16 };

// The scale-formula options of current scaling and the block modes.
struct ScaleOptions {
  float amax_epsilon = 0.0f;      // lower bound for amax
  bool force_pow2_scales = false; // clear the scale's mantissa
  float input_max_finite = 0.0f;  // the scale when fp8_max / amax overflows
};

// Largest finite value of a wide type (fp32 FLT_MAX, fp16 65504, bf16 0x7F7F).
float WideMaxFinite(Wide type);

// max |x| over n elements, NaN skipped, Inf counted.
float AbsMax(Wide type, const void* x, int64_t n, int threads);

// TransformerEngine's compute_scale_from_amax: a = max(amax, eps); 1 when a
// is 0, Inf or NaN; else fp8_max / a, the input maximum if that overflows;
// then the mantissa cleared when force_pow2_scales.
float ScaleFromAmax(float amax, float fp8_max, const ScaleOptions& options);

// codes[i] = fp8(float(x[i] * scale)), saturating.
void QuantizeWithScale(Wide type, const void* x, int64_t n, float scale, Fp8Kind kind,
                       uint8_t* codes, int threads);

// How MX block scales are chosen (quantizer.h's TeplugMxScaleRule).
enum class MxRule { kOcp, kTransformerEngine };

// MXFP8 along rows: blocks of 32 consecutive elements of a row (the last one
// partial), scales e8m0 [rows, ceil(cols/32)], by `rule`.
void QuantizeMxRows(Wide type, const void* x, int64_t rows, int64_t cols, Fp8Kind kind, MxRule rule,
                    uint8_t* codes, uint8_t* scales, int threads);

// Block scaling: blocks of 1 x 128 (block_rows 1) or 128 x 128 (block_rows
// 128) along rows, scale_inv fp32 [ceil(rows/block_rows), ceil(cols/128)].
void QuantizeBlocks(Wide type, const void* x, int64_t rows, int64_t cols, int64_t block_rows,
                    Fp8Kind kind, const ScaleOptions& options, uint8_t* codes, float* scale_inv,
                    int threads);

// out[c * rows + r] = float(x[r * cols + c]).
void TransposeToFloat(Wide type, const void* x, int64_t rows, int64_t cols, float* out,
                      int threads);

// out[c * rows + r] = in[r * cols + c] for bytes (codes and e8m0 scales).
void TransposeBytes(const uint8_t* in, int64_t rows, int64_t cols, uint8_t* out, int threads);

// How a dequantize finds each element's scale_inv.
struct ScaleGrid {
  enum class Kind { kPerTensor, kMx, kBlock } kind = Kind::kPerTensor;
  const void* values = nullptr;  // fp32 (per-tensor, block) or e8m0 (MX)
  int64_t block_rows = 1, block_cols = 1;  // block size of kMx / kBlock
};

// out = round(decode(code) * scale_inv) into `type`: the product is exact in
// fp64 and rounded once (fp16/bf16 through fp32 rounded to odd, which is
// the same as rounding once).
void Dequantize(const uint8_t* codes, int64_t rows, int64_t cols, Fp8Kind kind,
                const ScaleGrid& grid, Wide type, void* out, int threads);

}  // namespace teplug::cpu::quantize

#endif  // TEPLUG_PLUGINS_CPU_QUANTIZE_QUANTIZE_KERNELS_H_
