// The tiled MXFP8 scale layout against an independent construction: the
// layout as cuBLAS describes it, emitted byte by byte in storage order (tile
// bands, tiles along K, then the 32 x 4 x 4 interleave), rather than computed
// per position.
#include "native/gemm/mx_scale_layout.h"

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace teplug::native {
namespace {

// (row, kblock) of each byte of the tiled copy of a [rows, kblocks] grid,
// in storage order.
std::vector<std::pair<int64_t, int64_t>> StorageOrder(int64_t rows, int64_t kblocks) {
  const int64_t bands = (rows + 127) / 128, tiles = (kblocks + 3) / 4;
  std::vector<std::pair<int64_t, int64_t>> order;
  for (int64_t band = 0; band < bands; ++band)
    for (int64_t tile = 0; tile < tiles; ++tile)
      for (int64_t p = 0; p < 32; ++p)        // row within a 32-row group
        for (int64_t q = 0; q < 4; ++q)       // which 32-row group
          for (int64_t c = 0; c < 4; ++c)     // column within the tile
            order.emplace_back(band * 128 + q * 32 + p, tile * 4 + c);
  return order;
}

TEST(MxScaleLayoutTest, OffsetsMatchTheStorageOrderForManyShapes) {
  for (int64_t rows : {1, 31, 32, 127, 128, 129, 300}) {
    for (int64_t kblocks : {1, 3, 4, 5, 8, 13}) {
      const std::vector<std::pair<int64_t, int64_t>> order = StorageOrder(rows, kblocks);
      ASSERT_EQ(static_cast<int64_t>(order.size()), MxTiledBytes(rows, kblocks)) << rows << "x" << kblocks;
      for (size_t i = 0; i < order.size(); ++i) {
        const auto [row, kblock] = order[i];
        ASSERT_EQ(MxTiledOffset(row, kblock, kblocks), static_cast<int64_t>(i))
            << "row " << row << " kblock " << kblock << " of " << rows << "x" << kblocks;
        int64_t back_row = -1, back_kblock = -1;
        MxTiledPosition(static_cast<int64_t>(i), kblocks, &back_row, &back_kblock);
        ASSERT_EQ(back_row, row) << "offset " << i;
        ASSERT_EQ(back_kblock, kblock) << "offset " << i;
      }
    }
  }
}

TEST(MxScaleLayoutTest, EveryScaleHasItsOwnByte) {
  const int64_t rows = 257, kblocks = 9;
  std::set<int64_t> seen;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < kblocks; ++k) {
      const int64_t o = MxTiledOffset(r, k, kblocks);
      ASSERT_GE(o, 0);
      ASSERT_LT(o, MxTiledBytes(rows, kblocks));
      ASSERT_TRUE(seen.insert(o).second) << "row " << r << " kblock " << k << " shares byte " << o;
    }
}

TEST(MxScaleLayoutTest, PaddingRoundsToWholeTiles) {
  EXPECT_EQ(MxTiledBytes(1, 1), 512);
  EXPECT_EQ(MxTiledBytes(128, 4), 512);
  EXPECT_EQ(MxTiledBytes(129, 5), 256 * 8);
  EXPECT_EQ(MxTiledBytes(0, 0), 0);
}

TEST(MxScaleLayoutTest, WorkedPositions) {
  // Rows 32 apart share a 16-byte line; consecutive rows are 16 bytes apart.
  EXPECT_EQ(MxTiledOffset(1, 0, 4), 16);
  EXPECT_EQ(MxTiledOffset(32, 0, 4), 4);
  EXPECT_EQ(MxTiledOffset(33, 3, 4), 16 + 4 + 3);
  // The next tile along K, then the next band of 128 rows (2 tiles per band).
  EXPECT_EQ(MxTiledOffset(0, 4, 5), 512);
  EXPECT_EQ(MxTiledOffset(128, 0, 5), 1024);
}

}  // namespace
}  // namespace teplug::native
