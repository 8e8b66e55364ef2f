// MXFP8 (OCP Microscaling Formats v1.0, "MX"): blocks of 32 consecutive
// values share one e8m0 power-of-two scale X; each element stores an fp8 code
// P_i and represents X * P_i.
//
// Default scale rule, the spec's (MX v1.0 section 6.3):
//   shared_exp = floor(log2(max_i |V_i|)) - emax_elem   (emax_elem: 8 e4m3, 15 e5m2)
//   clamped below to -127 (e8m0's smallest; an all-zero block gets 2^-127);
//   a block holding NaN or +-Inf gets the NaN scale 0xFF (max |V| is not
//   finite, shared_exp exceeds e8m0's range), and then every element is NaN;
//   P_i = fp8(V_i / X), round to nearest even, normal values beyond the
//   element's max normal clamped to it (saturating). V_i / X is exact in
//   double, so each element is rounded exactly once.
// Since max|V| / X lies in [2^emax, 2^(emax+1)), the block maximum can exceed
// the element's max normal (e4m3: up to 511.9 > 448) and is then clamped:
// that is the spec's behaviour.
//
// Optional TransformerEngine rule (kTransformerEngine), read from
// NVIDIA/TransformerEngine transformer_engine/common/util/ptx.cuh and
// utils.cuh (float_to_e8m0, exp2f_rcp) and the MXFP8 quantize kernels:
//   amax = fmaxf-reduction of |V_i| (NaN skipped);
//   e = float_to_e8m0(amax * (1 / max_norm)) computed in fp32, where
//       float_to_e8m0 takes the fp32 exponent field and rounds it UP when the
//       mantissa is non-zero (NaN -> 0xFF, Inf -> 0xFE, 0 -> 0, no round-up
//       past 0xFE, and a subnormal with mantissa <= 0x400000 keeps exponent 0);
//   P_i = fp8_satfinite(fp32(V_i * r)) with r = 2^(127 - e), or r = 1 when
//       e == 0 (TE's exp2f_rcp special case).
// Both rules give the same scale unless the spec's scale would make the block
// maximum clamp (its significand above max_normal / 2^emax_elem = 1.75 for
// both fp8 formats); then TE's scale is twice the spec's, so nothing clamps
// but the block loses one bit of precision. Differences
// from the spec besides the rounding: NaN/Inf do not poison the block scale
// (NaN elements stay NaN codes, Inf saturates to max normal, Inf amax gives
// scale 0xFE), and a code-0 scale quantizes with multiplier 1. Dequantization
// here always uses the spec's value 2^(e - 127) (TE's own dequantize maps
// code 0 to 0 instead of 2^-127).
//
// Partial blocks: when a dimension is not a multiple of 32 the last block of
// each row (column) holds the remaining elements only; the scale is computed
// from those, exactly as if the block were padded with zeros (zeros never
// change max |V|). No padding is stored.
#ifndef TEPLUG_PLUGINS_REFERENCE_NUMERICS_MX_SCALING_H_
#define TEPLUG_PLUGINS_REFERENCE_NUMERICS_MX_SCALING_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/reference/numerics/float_formats.h"

namespace teplug::reference {

// Elements per MX block (MX v1.0 k = 32).
inline constexpr size_t kMxBlockSize = 32;

// How the shared e8m0 scale is chosen; see the file comment.
enum class MxScaleRule {
  kOcpSpec,            // floor(log2(amax)) - emax_elem (the default)
  kTransformerEngine,  // ceil of log2(amax / max_norm) in fp32, as TE's kernels
};

// A [rows, cols] tensor in MXFP8.
struct MxFp8 {
  Fp8Format format = Fp8Format::kE4M3;
  MxScaleRule rule = MxScaleRule::kOcpSpec;
  size_t rows = 0;
  size_t cols = 0;
  // Row-wise: blocks of 32 along each row. Codes in row-major [rows, cols];
  // e8m0 scales in row-major [rows, ceil(cols / 32)].
  std::vector<uint8_t> data;
  std::vector<uint8_t> scales;
  // Column-wise (only when asked for): blocks of 32 down each column. Codes
  // still in the input's row-major [rows, cols] layout (not transposed);
  // scales in row-major [ceil(rows / 32), cols].
  std::vector<uint8_t> columnwise_data;
  std::vector<uint8_t> columnwise_scales;
};

// The e8m0 scale code of one block of `count` values `stride` apart.
uint8_t MxBlockScale(const float* block, size_t count, size_t stride, Fp8Format format,
                     MxScaleRule rule);

// Quantizes x [rows, cols] row-wise, and column-wise too when
// with_columnwise. InvalidArgument on a null input for a non-empty shape.
absl::StatusOr<MxFp8> QuantizeMxfp8(const float* x, size_t rows, size_t cols, Fp8Format format,
                                    MxScaleRule rule, bool with_columnwise);

// Values of the row-wise (or column-wise) encoding as a row-major [rows, cols]
// float array: float(decode(P) * 2^(e - 127)) computed in double and rounded
// once; a NaN scale makes its whole block NaN. FailedPrecondition if the
// requested direction was not produced or the arrays do not match the shape.
absl::StatusOr<std::vector<float>> DequantizeMxfp8(const MxFp8& tensor, bool columnwise);

}  // namespace teplug::reference

#endif  // TEPLUG_PLUGINS_REFERENCE_NUMERICS_MX_SCALING_H_
