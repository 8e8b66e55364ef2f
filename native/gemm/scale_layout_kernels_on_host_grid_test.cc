// The GEMM's scale-layout kernels, run without a GPU on the host grid
// (//native/device:host_grid), against the layouts as cuBLAS documents them,
// written out here independently of mx_scale_layout.h / block_scale_layout.h:
//  - VEC32_UE8M0: the [rows, kblocks] e8m0 grid padded to 128 x 4 tiles of
//    512 bytes, tile rows side by side along K; inside a tile, row
//    r = 32 q + p and column c sit at p * 16 + q * 4 + c; padding 127;
//  - 1x128: fp32 [kblocks, roundup(outer, 4)] (the transpose of teplug's
//    [outer, kblocks]); 128x128: the grid as is (or transposed), its minor
//    dimension padded to 4; padding 1.0;
//  - the reciprocal of a scale.
// Random grids, ragged sizes, source rows further apart than their length.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "native/device/testing/host_grid.h"
#include "native/gemm/scale_layout_launch.h"

namespace teplug::native {
namespace {

int64_t RoundUp(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

TEST(ScaleLayoutKernelsOnHostGrid, MxScalesAreTiledAsCuBlasDocumentsThem) {
  std::mt19937 rng(3);
  for (auto [rows, kblocks] :
       {std::pair<int64_t, int64_t>{1, 1}, {128, 4}, {130, 5}, {300, 9}, {257, 2}}) {
    SCOPED_TRACE("[" + std::to_string(rows) + ", " + std::to_string(kblocks) + "]");
    const int64_t stride = kblocks + 3;
    std::vector<uint8_t> source(static_cast<size_t>(rows * stride));
    for (uint8_t& b : source) {
      b = static_cast<uint8_t>(rng() % 255);
      if (b == 127) b = 128;  // never the padding's value
    }
    const int64_t padded_rows = RoundUp(rows, 128), padded_cols = RoundUp(kblocks, 4);
    std::vector<uint8_t> tiled(static_cast<size_t>(padded_rows * padded_cols) + 1, 0xAA);
    MxScaleSwizzle l;
    l.source = source.data();
    l.rows = rows;
    l.kblocks = kblocks;
    l.source_row_stride = stride;
    l.tiled = tiled.data();
    ASSERT_EQ(RealScaleLayoutKernels().SwizzleMxScales(l), 0);
    for (int64_t r = 0; r < padded_rows; ++r) {
      for (int64_t k = 0; k < padded_cols; ++k) {
        const int64_t tile = (r / 128) * (padded_cols / 4) + k / 4;
        const int64_t offset = tile * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + k % 4;
        const uint8_t want = r < rows && k < kblocks ? source[r * stride + k] : 127;
        ASSERT_EQ(tiled[offset], want) << "row " << r << " kblock " << k;
      }
    }
    EXPECT_EQ(tiled.back(), 0xAA) << "written past the tiled copy";
  }
}

TEST(ScaleLayoutKernelsOnHostGrid, BlockScalesAreCopiedWithTheMinorDimensionPaddedToFour) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> scale(0.01f, 100.0f);
  for (bool transpose : {true, false}) {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {5, 3}, {300, 7}, {8, 600}}) {
      SCOPED_TRACE((transpose ? "transposed [" : "[") + std::to_string(rows) + ", " +
                   std::to_string(cols) + "]");
      const int64_t stride = cols + 2;
      std::vector<float> source(static_cast<size_t>(rows * stride));
      for (float& v : source) v = scale(rng);
      const int64_t dst_rows = transpose ? cols : rows;
      const int64_t dst_cols = transpose ? rows : cols;
      const int64_t dst_stride = RoundUp(dst_cols, 4);
      std::vector<float> destination(static_cast<size_t>(dst_rows * dst_stride) + 1, -3.0f);
      BlockScaleCopy l;
      l.source = source.data();
      l.source_rows = rows;
      l.source_cols = cols;
      l.source_row_stride = stride;
      l.transpose = transpose;
      l.destination = destination.data();
      ASSERT_EQ(RealScaleLayoutKernels().CopyBlockScales(l), 0);
      for (int64_t r = 0; r < dst_rows; ++r) {
        for (int64_t c = 0; c < dst_stride; ++c) {
          const float want = c >= dst_cols ? 1.0f
                             : transpose   ? source[c * stride + r]
                                           : source[r * stride + c];
          ASSERT_EQ(destination[r * dst_stride + c], want) << "row " << r << " col " << c;
        }
      }
      EXPECT_EQ(destination.back(), -3.0f) << "written past the copy";
    }
  }
}

TEST(ScaleLayoutKernelsOnHostGrid, TheReciprocalOfTheScaleIsWritten) {
  const float scale = 3.0f;
  float inverse = 0.0f;
  ScaleReciprocal l;
  l.scale = &scale;
  l.scale_inv = &inverse;
  ASSERT_EQ(RealScaleLayoutKernels().WriteScaleReciprocal(l), 0);
  EXPECT_EQ(inverse, 1.0f / 3.0f);
}

TEST(ScaleLayoutKernelsOnHostGrid, EmptyGridsLaunchNothing) {
  const int64_t before = host_grid::Launches();
  MxScaleSwizzle mx;
  BlockScaleCopy block;
  EXPECT_EQ(RealScaleLayoutKernels().SwizzleMxScales(mx), 0);
  EXPECT_EQ(RealScaleLayoutKernels().CopyBlockScales(block), 0);
  EXPECT_EQ(host_grid::Launches(), before);
}

}  // namespace
}  // namespace teplug::native
