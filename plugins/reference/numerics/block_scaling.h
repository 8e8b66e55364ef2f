// TransformerEngine's blockwise FP8 recipe (Float8BlockScaling): one fp32
// scale per 1x128 block (1D) or per 128x128 tile (2D) of a [rows, cols]
// tensor.
//   amax  = fmaxf-reduction of |x| over the block (NaN skipped)
//   scale = ComputeScaleFromAmax(amax, fp8_max, force_pow2_scales,
//                                amax_epsilon, input_max_finite)
//   code  = fp8_saturating(fp32(x * scale));  scale_inv = 1 / scale (fp32)
//   dequantized value = fp32(decode(code) * scale_inv)
// Partial blocks at the right/bottom edge hold only the elements present;
// their amax is the same as if they were padded with zeros (TE pads with 0).
//
// Followed (read, not copied): NVIDIA/TransformerEngine
//   transformer_engine/common/transpose/quantize_transpose_square_blockwise.cu
//   transformer_engine/common/transpose/quantize_transpose_vector_blockwise.cu
//   transformer_engine/common/recipe/recipe_common.cuh (compute_scale_from_types)
// Layout note: the scales here are compact row-major grids (below). TE's
// kernels can write them in other, padded/transposed "GEMM-ready" layouts;
// mapping between the two is the adapter's job, the numbers are the same.
#ifndef TEPLUG_PLUGINS_REFERENCE_NUMERICS_BLOCK_SCALING_H_
#define TEPLUG_PLUGINS_REFERENCE_NUMERICS_BLOCK_SCALING_H_

#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/reference/numerics/float_formats.h"

namespace teplug::reference {

// Block edge of both block scaling modes.
inline constexpr size_t kBlockScalingSize = 128;

enum class BlockScalingKind {
  k1D,  // block_1d128: 1x128 blocks along each row (column-wise: 128x1)
  k2D,  // block_2d128: 128x128 tiles
};

// Options of TE's Float8BlockScaling recipe; the defaults are the recipe's
// (scales constrained to powers of two unless NVTE_FP8_BLOCK_SCALING_FP32_SCALES
// is set, amax_epsilon 0).
struct BlockScalingOptions {
  float amax_epsilon = 0.0f;
  bool force_pow2_scales = true;
  float input_max_finite = FLT_MAX;  // scale when fp8_max / amax overflows fp32
};

// A [rows, cols] tensor quantized with per-block fp32 scales.
struct BlockScaledFp8 {
  Fp8Format format = Fp8Format::kE4M3;
  BlockScalingKind kind = BlockScalingKind::k1D;
  size_t rows = 0;
  size_t cols = 0;
  // Row-wise codes, row-major [rows, cols]. scale_inv grid, row-major:
  //   1D: [rows, ceil(cols/128)]   2D: [ceil(rows/128), ceil(cols/128)]
  std::vector<uint8_t> data;
  std::vector<float> scale_inv;
  // Column-wise (only when asked for): codes of the transposed tensor,
  // row-major [cols, rows]. 1D: blocks of 128 run down the original columns,
  // scale_inv [cols, ceil(rows/128)]. 2D: the same tiles as row-wise, so the
  // codes are the exact transpose and scale_inv is the transposed grid
  // [ceil(cols/128), ceil(rows/128)].
  std::vector<uint8_t> columnwise_data;
  std::vector<float> columnwise_scale_inv;
};

// Quantizes x [rows, cols]. InvalidArgument for a null input with a non-empty
// shape or a negative epsilon / non-positive input_max_finite.
absl::StatusOr<BlockScaledFp8> QuantizeBlockScaled(const float* x, size_t rows, size_t cols,
                                                   Fp8Format format, BlockScalingKind kind,
                                                   const BlockScalingOptions& options,
                                                   bool with_columnwise);

// Dequantizes the row-wise or column-wise encoding back to the ORIGINAL
// row-major [rows, cols] layout (column-wise codes are read transposed).
// FailedPrecondition if that encoding is missing or sized wrongly.
absl::StatusOr<std::vector<float>> DequantizeBlockScaled(const BlockScaledFp8& tensor,
                                                         bool columnwise);

}  // namespace teplug::reference

#endif  // TEPLUG_PLUGINS_REFERENCE_NUMERICS_BLOCK_SCALING_H_
