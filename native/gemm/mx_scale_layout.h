// Where cuBLASLt reads an MXFP8 operand's e8m0 scales (CUBLASLT_MATMUL_MATRIX_
// SCALE_VEC32_UE8M0). teplug stores them row-major, one byte per 32 elements
// along K: [outer, kblocks] (outer = M for A, N for B). cuBLASLt wants them
// tiled: the grid, padded to a multiple of 128 rows and 4 columns, is cut into
// 128x4 tiles of 512 bytes, stored tile row by tile row (the tiles of one
// 128-row band side by side along K); inside a tile, row r = 32*q + p
// (p < 32, q < 4) and column c < 4 sit at p*16 + q*4 + c. This is the layout
// of cuBLAS's "1D block scaling factors" section (and of TransformerEngine's
// nvte_swizzle_scaling_factors).
//
// Plain arithmetic for the host and the GPU: the swizzle kernel calls it per
// byte, and the host tests check it.
#ifndef TEPLUG_NATIVE_GEMM_MX_SCALE_LAYOUT_H_
#define TEPLUG_NATIVE_GEMM_MX_SCALE_LAYOUT_H_

#include <cstdint>

#include "native/quantize/host_device.h"

namespace teplug::native {

inline constexpr int64_t kMxTileRows = 128;
inline constexpr int64_t kMxTileCols = 4;
inline constexpr int64_t kMxTileBytes = kMxTileRows * kMxTileCols;

// The grid's rows and columns padded to whole tiles.
TEPLUG_HOST_DEVICE int64_t MxPaddedRows(int64_t rows) {
  return (rows + kMxTileRows - 1) / kMxTileRows * kMxTileRows;
}
TEPLUG_HOST_DEVICE int64_t MxPaddedCols(int64_t kblocks) {
  return (kblocks + kMxTileCols - 1) / kMxTileCols * kMxTileCols;
}

// Bytes of the tiled copy of a [rows, kblocks] grid, padding included.
TEPLUG_HOST_DEVICE int64_t MxTiledBytes(int64_t rows, int64_t kblocks) {
  return MxPaddedRows(rows) * MxPaddedCols(kblocks);
}

// The byte of the tiled copy holding the scale of (row, kblock); `kblocks` is
// the unpadded column count. Defined on the padded grid too.
TEPLUG_HOST_DEVICE int64_t MxTiledOffset(int64_t row, int64_t kblock, int64_t kblocks) {
  const int64_t tiles_per_band = MxPaddedCols(kblocks) / kMxTileCols;
  const int64_t tile = (row / kMxTileRows) * tiles_per_band + kblock / kMxTileCols;
  const int64_t r = row % kMxTileRows, c = kblock % kMxTileCols;
  return tile * kMxTileBytes + (r % 32) * 16 + (r / 32) * 4 + c;
}

// The inverse: the (row, kblock) of the padded grid whose scale byte
// `offset` of the tiled copy holds.
TEPLUG_HOST_DEVICE void MxTiledPosition(int64_t offset, int64_t kblocks, int64_t* row, int64_t* kblock) {
  const int64_t tiles_per_band = MxPaddedCols(kblocks) / kMxTileCols;
  const int64_t tile = offset / kMxTileBytes, within = offset % kMxTileBytes;
  *row = (tile / tiles_per_band) * kMxTileRows + ((within % 16) / 4) * 32 + within / 16;
  *kblock = (tile % tiles_per_band) * kMxTileCols + within % 4;
}

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_GEMM_MX_SCALE_LAYOUT_H_
