// Where cuBLASLt reads 1x128 and 128x128 block scales (CUBLASLT_MATMUL_MATRIX_
// SCALE_VEC128_32F and _BLK128x128_32F) of an operand stored [outer, K] with K
// contiguous (cuBLASLt's T operand), as TransformerEngine hands them to it
// ("GEMM-ready" scales, transformer_engine/pytorch/csrc/quantizer.cpp,
// Float8BlockQuantizer::get_scale_shape):
//   1x128:   fp32 [ceil(K/128), roundup(outer, 4)], row-major: the scale of
//            (row o, K block kb) at kb * roundup(outer, 4) + o;
//   128x128: fp32 [ceil(outer/128), roundup(ceil(K/128), 4)], row-major.
// teplug's grids (teplug/types.h) are [outer, ceil(K/128)] for 1x128, so the
// copy transposes them, and [ceil(outer/128), ceil(K/128)] for 128x128 (or
// its transpose when the tensor is stored [K, outer]); both pad the minor
// dimension to a multiple of 4 with 1.0.
//
// One copy covers both: destination [dst_rows, roundup(dst_cols, 4)] from a
// source grid [src_rows, src_cols], element (r, c) of the destination being
// source (c, r) when transposing, else (r, c). Plain arithmetic for the host
// and the GPU: the copy kernel calls it per element, the host tests check it.
#ifndef TEPLUG_NATIVE_GEMM_BLOCK_SCALE_LAYOUT_H_
#define TEPLUG_NATIVE_GEMM_BLOCK_SCALE_LAYOUT_H_

#include <cstdint>

#include "native/quantize/host_device.h"

namespace teplug::native {

TEPLUG_HOST_DEVICE int64_t RoundUpToFour(int64_t n) { return (n + 3) / 4 * 4; }

// The destination's rows and (padded) row length of a copy of a
// [src_rows, src_cols] grid.
TEPLUG_HOST_DEVICE int64_t BlockScaleRows(int64_t src_rows, int64_t src_cols, bool transpose) {
  return transpose ? src_cols : src_rows;
}
TEPLUG_HOST_DEVICE int64_t BlockScaleRowLength(int64_t src_rows, int64_t src_cols, bool transpose) {
  return RoundUpToFour(transpose ? src_rows : src_cols);
}

// Elements (fp32) of the destination, padding included.
TEPLUG_HOST_DEVICE int64_t BlockScaleElements(int64_t src_rows, int64_t src_cols, bool transpose) {
  return BlockScaleRows(src_rows, src_cols, transpose) * BlockScaleRowLength(src_rows, src_cols, transpose);
}

// The source element that destination element `index` holds: true and
// (*row, *col) of the source grid, or false for padding.
TEPLUG_HOST_DEVICE bool BlockScaleSource(int64_t index, int64_t src_rows, int64_t src_cols, bool transpose,
                                         int64_t* row, int64_t* col) {
  const int64_t length = BlockScaleRowLength(src_rows, src_cols, transpose);
  const int64_t r = index / length, c = index % length;
  *row = transpose ? c : r;
  *col = transpose ? r : c;
  return *row < src_rows && *col < src_cols;
}

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_GEMM_BLOCK_SCALE_LAYOUT_H_
