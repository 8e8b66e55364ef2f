#include "plugins/reference/numerics/block_scaling.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "plugins/reference/numerics/scale_from_amax.h"

namespace teplug::reference {
namespace {

size_t CeilDiv(size_t a, size_t b) { return (a + b - 1) / b; }

// Block shape of one encoding direction, in the ORIGINAL tensor's rows/cols,
// and whether its codes and scale grid are stored transposed.
struct Tiling {
  size_t tile_rows;
  size_t tile_cols;
  bool transposed;
};

Tiling TilingFor(BlockScalingKind kind, bool columnwise) {
  if (kind == BlockScalingKind::k2D) return {kBlockScalingSize, kBlockScalingSize, columnwise};
  return columnwise ? Tiling{kBlockScalingSize, 1, true} : Tiling{1, kBlockScalingSize, false};
}

// Index of element (r, c) of the original tensor in a code array.
size_t CodeIndex(const Tiling& t, size_t rows, size_t cols, size_t r, size_t c) {
  return t.transposed ? c * rows + r : r * cols + c;
}

// Index of tile (tr, tc) in a scale grid.
size_t ScaleIndex(const Tiling& t, size_t rows, size_t cols, size_t tr, size_t tc) {
  return t.transposed ? tc * CeilDiv(rows, t.tile_rows) + tr : tr * CeilDiv(cols, t.tile_cols) + tc;
}

// Quantizes every tile of x for one direction.
void QuantizeTiles(const float* x, size_t rows, size_t cols, Fp8Format format,
                   const BlockScalingOptions& options, const Tiling& t,
                   std::vector<uint8_t>& codes, std::vector<float>& scale_inv) {
  const size_t grid_rows = CeilDiv(rows, t.tile_rows);
  const size_t grid_cols = CeilDiv(cols, t.tile_cols);
  codes.assign(rows * cols, 0);
  scale_inv.assign(grid_rows * grid_cols, 0.0f);
  for (size_t tr = 0; tr < grid_rows; ++tr) {
    for (size_t tc = 0; tc < grid_cols; ++tc) {
      const size_t r0 = tr * t.tile_rows, r1 = std::min(rows, r0 + t.tile_rows);
      const size_t c0 = tc * t.tile_cols, c1 = std::min(cols, c0 + t.tile_cols);
      float amax = 0.0f;
      for (size_t r = r0; r < r1; ++r) {
        amax = std::fmax(amax, AbsMaxIgnoringNan(x + r * cols + c0, c1 - c0));
      }
      const float scale =
          ComputeScaleFromAmax(amax, Fp8MaxNormal(format), options.force_pow2_scales,
                               options.amax_epsilon, options.input_max_finite);
      scale_inv[ScaleIndex(t, rows, cols, tr, tc)] = 1.0f / scale;
      for (size_t r = r0; r < r1; ++r) {
        for (size_t c = c0; c < c1; ++c) {
          const float scaled = x[r * cols + c] * scale;  // fp32 product, as TE
          codes[CodeIndex(t, rows, cols, r, c)] = EncodeFp8(format, scaled, /*saturate=*/true);
        }
      }
    }
  }
}

}  // namespace

absl::StatusOr<BlockScaledFp8> QuantizeBlockScaled(const float* x, size_t rows, size_t cols,
                                                   Fp8Format format, BlockScalingKind kind,
                                                   const BlockScalingOptions& options,
                                                   bool with_columnwise) {
  if (x == nullptr && rows * cols != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "QuantizeBlockScaled: input pointer is null for a [%d, %d] tensor", rows, cols));
  }
  if (!(options.amax_epsilon >= 0.0f) || !(options.input_max_finite > 0.0f)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "QuantizeBlockScaled: amax_epsilon must be >= 0 and input_max_finite > 0, got %g and %g",
        options.amax_epsilon, options.input_max_finite));
  }
  BlockScaledFp8 out;
  out.format = format;
  out.kind = kind;
  out.rows = rows;
  out.cols = cols;
  QuantizeTiles(x, rows, cols, format, options, TilingFor(kind, false), out.data, out.scale_inv);
  if (with_columnwise) {
    QuantizeTiles(x, rows, cols, format, options, TilingFor(kind, true), out.columnwise_data,
                  out.columnwise_scale_inv);
  }
  return out;
}

absl::StatusOr<std::vector<float>> DequantizeBlockScaled(const BlockScaledFp8& tensor,
                                                         bool columnwise) {
  const Tiling t = TilingFor(tensor.kind, columnwise);
  const size_t rows = tensor.rows, cols = tensor.cols;
  const std::vector<uint8_t>& codes = columnwise ? tensor.columnwise_data : tensor.data;
  const std::vector<float>& scale_inv =
      columnwise ? tensor.columnwise_scale_inv : tensor.scale_inv;
  const size_t expected_scales = CeilDiv(rows, t.tile_rows) * CeilDiv(cols, t.tile_cols);
  if (codes.size() != rows * cols || scale_inv.size() != expected_scales) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "DequantizeBlockScaled: %s encoding of a [%d, %d] tensor needs %d codes and %d scales, "
        "has %d and %d",
        columnwise ? "column-wise" : "row-wise", rows, cols, rows * cols, expected_scales,
        codes.size(), scale_inv.size()));
  }
  std::vector<float> out(rows * cols);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      const float s = scale_inv[ScaleIndex(t, rows, cols, r / t.tile_rows, c / t.tile_cols)];
      out[r * cols + c] = DecodeFp8(tensor.format, codes[CodeIndex(t, rows, cols, r, c)]) * s;
    }
  }
  return out;
}

}  // namespace teplug::reference
