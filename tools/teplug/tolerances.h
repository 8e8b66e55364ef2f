// The main job's documented tolerances. Every error is NormalizedMaxError:
// max |x - oracle| / max |oracle| over the op's outputs, i.e. relative to the
// tensor's scale, so values near zero do not dominate. The same table is in
// `teplug run --help` and the README.
//
//   op                      fp32    fp16    bf16      why
//   gemm                    1e-5    2e-3    1.6e-2    a few ulps of the output (2^-6 for bf16),
//   fp32
//                                                     accumulation order for fp32 outputs
//   attention forward       1e-5    2e-3    1.6e-2    as gemm
//   attention backward      1e-4    4e-3    3.1e-2    two more matmuls and the softmax derivative
//   quantize fp8_e4m3       round trip x -> fp8 -> x: per_tensor 2^-4 (half a step of e4m3's
//                           3-bit mantissa at the tensor max), mxfp8_1d32 2^-3 (the OCP scale rule
//                           lets a block max up to 512*scale saturate at 448*scale);
//                           against the reference: one e4m3 step at the max, 2^-3
//   dequantize              1e-6 (one fp32 rounding of code * scale_inv)
//   all_reduce fp32         1e-6 (fp32 sums of at most a few ranks)
#ifndef TEPLUG_TOOLS_TEPLUG_TOLERANCES_H_
#define TEPLUG_TOOLS_TEPLUG_TOLERANCES_H_

#include <cstdint>

namespace teplug::cli {

enum class ToleranceKind { kGemm, kAttentionForward, kAttentionBackward };

// Tolerance of a gemm/attention output of `dtype` (fp32, fp16 or bf16).
double OutputTolerance(ToleranceKind kind, int32_t dtype);
// Round trip of quantize (then decode) in `scaling_mode`.
double QuantizeRoundTripTolerance(int32_t scaling_mode);
// Dequantized values of two quantizers' outputs.
inline constexpr double kQuantizeVsReferenceTolerance = 0.125;
inline constexpr double kDequantizeTolerance = 1e-6;
inline constexpr double kAllReduceTolerance = 1e-6;

// The table above, for --help.
const char* ToleranceTable();

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_TOLERANCES_H_
