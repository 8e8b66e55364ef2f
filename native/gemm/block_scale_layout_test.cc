// The block scale copy, run on the host as the kernel runs it (one
// destination element at a time through BlockScaleSource), against the
// layouts TransformerEngine hands to cuBLASLt, built here from the operand's
// shape [outer, K] rather than from the grid.
#include "native/gemm/block_scale_layout.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace teplug::native {
namespace {

constexpr float kPadding = 1.0f;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The copy as the kernel does it: destination element i from the source
// grid (row stride `stride`), or the padding.
std::vector<float> Copy(const std::vector<float>& src, int64_t rows, int64_t cols, int64_t stride, bool transpose) {
  std::vector<float> dst(static_cast<size_t>(BlockScaleElements(rows, cols, transpose)));
  for (int64_t i = 0; i < static_cast<int64_t>(dst.size()); ++i) {
    int64_t r = -1, c = -1;
    dst[static_cast<size_t>(i)] =
        BlockScaleSource(i, rows, cols, transpose, &r, &c) ? src[static_cast<size_t>(r * stride + c)] : kPadding;
  }
  return dst;
}

// A grid of distinct values with a padded row stride, so a wrong index shows.
std::vector<float> Grid(int64_t rows, int64_t stride) {
  std::vector<float> g(static_cast<size_t>(rows * stride));
  for (size_t i = 0; i < g.size(); ++i) g[i] = 2.0f + static_cast<float>(i);
  return g;
}

TEST(BlockScaleLayoutTest, OneByOneTwentyEightIsKBlockMajorWithOuterPaddedToFour) {
  for (int64_t outer : {1, 5, 8, 200}) {
    for (int64_t k : {128, 200, 384}) {
      const int64_t kb = CeilDiv(k, 128), stride = kb + 1;  // teplug grid [outer, kb]
      const std::vector<float> src = Grid(outer, stride);
      const std::vector<float> got = Copy(src, outer, kb, stride, /*transpose=*/true);
      // TransformerEngine's GEMM-ready shape: [ceil(K/128), roundup(outer, 4)].
      const int64_t ld = (outer + 3) / 4 * 4;
      ASSERT_EQ(static_cast<int64_t>(got.size()), kb * ld) << outer << "x" << k;
      for (int64_t j = 0; j < kb; ++j)
        for (int64_t o = 0; o < ld; ++o) {
          const float want = o < outer ? src[static_cast<size_t>(o * stride + j)] : kPadding;
          ASSERT_EQ(got[static_cast<size_t>(j * ld + o)], want) << "outer " << o << " kblock " << j;
        }
    }
  }
}

TEST(BlockScaleLayoutTest, OneTwentyEightSquareKeepsItsRowsAndPadsKBlocksToFour) {
  for (int64_t outer : {40, 128, 300}) {
    for (int64_t k : {128, 384, 640}) {
      const int64_t ob = CeilDiv(outer, 128), kb = CeilDiv(k, 128);
      // Stored [outer, K]: teplug's grid is [ob, kb].
      const std::vector<float> src = Grid(ob, kb);
      const std::vector<float> got = Copy(src, ob, kb, kb, /*transpose=*/false);
      const int64_t ld = (kb + 3) / 4 * 4;
      ASSERT_EQ(static_cast<int64_t>(got.size()), ob * ld);
      for (int64_t i = 0; i < ob; ++i)
        for (int64_t j = 0; j < ld; ++j) {
          const float want = j < kb ? src[static_cast<size_t>(i * kb + j)] : kPadding;
          ASSERT_EQ(got[static_cast<size_t>(i * ld + j)], want) << "block " << i << ", " << j;
        }
      // Stored [K, outer] (transposed in op()): teplug's grid is [kb, ob], and
      // the copy gives the same GEMM-ready grid.
      std::vector<float> transposed(static_cast<size_t>(kb * ob));
      for (int64_t i = 0; i < ob; ++i)
        for (int64_t j = 0; j < kb; ++j) transposed[static_cast<size_t>(j * ob + i)] = src[static_cast<size_t>(i * kb + j)];
      EXPECT_EQ(Copy(transposed, kb, ob, ob, /*transpose=*/true), got) << outer << "x" << k;
    }
  }
}

}  // namespace
}  // namespace teplug::native
