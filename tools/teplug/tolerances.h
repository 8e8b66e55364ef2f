// The main job's tolerances. Every error is NormalizedMaxError:
// max |x - oracle| / max |oracle| over the op's outputs, i.e. relative to the
// tensor's scale, so values near zero do not dominate. The values live only in
// the functions and constants below; ToleranceTable() prints them (with the
// reason for each) in `teplug run --help`, which the README points to.
#ifndef TEPLUG_TOOLS_TEPLUG_TOLERANCES_H_
#define TEPLUG_TOOLS_TEPLUG_TOLERANCES_H_

#include <cstdint>
#include <string>

namespace teplug::cli {

enum class ToleranceKind { kGemm, kAttentionForward, kAttentionBackward };

// Tolerance of a gemm/attention output of `dtype` (fp32, fp16 or bf16): a few
// ulps of the output (bf16 2^-6), with room for the accumulation order in
// fp32; attention backward twice that (two more matmuls and the softmax
// derivative). An fp8 GEMM D: one step of the format at the max (e4m3 2^-3,
// e5m2 2^-2), as an fp32 sum may round either side of a boundary.
double OutputTolerance(ToleranceKind kind, int32_t dtype);
// Tolerance of an fp8 (e4m3 or e5m2) attention output, o or a gradient:
// steps of the format at the tensor max (e4m3 2^-3, e5m2 2^-2), two for the
// forward (the output's rounding and P's, which fused fp8 kernels quantize
// with s_quant), three for the backward (dP's too).
double Fp8AttentionTolerance(ToleranceKind kind, int32_t dtype);
// Round trip x -> fp8_e4m3 -> x in `scaling_mode`: per_tensor 2^-4 (half a
// step of e4m3's 3-bit mantissa at the tensor max), mxfp8_1d32 2^-3 (the OCP
// scale rule lets a block max up to 512*scale saturate at 448*scale).
double QuantizeRoundTripTolerance(int32_t scaling_mode);
// Dequantized values of two quantizers' outputs: one e4m3 step at the max.
inline constexpr double kQuantizeVsReferenceTolerance = 0.125;
// One fp32 rounding of code * scale_inv.
inline constexpr double kDequantizeTolerance = 1e-6;
// fp32 sums of at most a few ranks.
inline constexpr double kAllReduceTolerance = 1e-6;

// The tolerances above as a table, for `teplug run --help`.
std::string ToleranceTable();

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_TOLERANCES_H_
