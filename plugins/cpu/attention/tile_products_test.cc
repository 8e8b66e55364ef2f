// The softmax helpers of the tile products: exponentials within a few ulp of
// std::exp over the range a shifted score takes, -inf to 0, NaN kept NaN;
// the scaled max; the three products against plain double sums; the rounding
// of a tile to bf16 against scalar_formats.h.
#include "plugins/cpu/attention/tile_products.h"

#include <cmath>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cpu/attention/scalar_formats.h"

namespace teplug::cpu::attention {
namespace {

TEST(TileProductsTest, ExponentialsMatchStdExp) {
  std::vector<float> s;
  for (float x = -100.0f; x <= 0.0f; x += 0.0137f) s.push_back(x + 3.0f);
  s.push_back(-std::numeric_limits<float>::infinity());
  std::vector<float> original = s;
  double sum = 0;
  for (float x : original) sum += std::exp(static_cast<double>(x) - 3.0);
  const float got = ExpShiftedSum(s.data(), static_cast<int64_t>(s.size()), 3.0f);
  EXPECT_NEAR(got, sum, sum * 1e-6);
  for (size_t c = 0; c < s.size(); ++c) {
    const double want = std::exp(static_cast<double>(original[c]) - 3.0);
    EXPECT_NEAR(s[c], want, want * 4e-7 + 1e-37) << original[c];
  }
}

TEST(TileProductsTest, ANanScoreStaysNan) {
  std::vector<float> s = {0.0f, std::nanf(""), -1.0f};
  EXPECT_TRUE(std::isnan(ExpShiftedSum(s.data(), 3, 0.0f)));
  EXPECT_TRUE(std::isnan(s[1]));
}

TEST(TileProductsTest, ScaleAndMax) {
  std::vector<float> s(37);
  for (size_t c = 0; c < s.size(); ++c) s[c] = static_cast<float>((c * 7) % 37) - 10.0f;
  EXPECT_EQ(ScaleAndMax(s.data(), 37, 0.5f), 13.0f);
  EXPECT_EQ(s[1], -1.5f);
  EXPECT_EQ(ScaleAndMax(s.data(), 0, 2.0f), -std::numeric_limits<float>::infinity());
}

TEST(TileProductsTest, ProductsMatchDoubleSums) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  const int64_t rows = 11, depth = 19, cols = 45, stride = 50, width = 37;
  std::vector<float> q(rows * depth), kt(depth * stride), scores(rows * cols), v(cols * width),
      acc(rows * width);
  for (auto* x : {&q, &kt, &v, &acc}) {
    for (float& e : *x) e = u(rng);
  }
  const std::vector<float> acc0 = acc;
  ScoreTile(q.data(), rows, depth, kt.data(), stride, cols, scores.data(), cols);
  AccumulateTile(scores.data(), rows, cols, cols, v.data(), width, acc.data());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      double want = 0;
      for (int64_t d = 0; d < depth; ++d) want += double{q[r * depth + d]} * kt[d * stride + c];
      EXPECT_NEAR(scores[r * cols + c], want, 1e-5);
    }
    for (int64_t e = 0; e < width; ++e) {
      double want = acc0[r * width + e];
      for (int64_t c = 0; c < cols; ++c) want += double{scores[r * cols + c]} * v[c * width + e];
      EXPECT_NEAR(acc[r * width + e], want, 1e-4);
    }
  }
}

// The backward's product: a tile's transpose times rows, full register
// blocks (16 x 32) and ragged edges (rows of p at a stride).
TEST(TileProductsTest, TransposedProductMatchesDoubleSums) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto [rows, cols, width] : {std::tuple<int64_t, int64_t, int64_t>{13, 16, 32},
                                   {7, 21, 45}, {64, 128, 64}}) {
    const int64_t stride = cols + 3;
    std::vector<float> p(rows * stride), x(rows * width), acc(cols * width);
    for (auto* t : {&p, &x, &acc}) {
      for (float& e : *t) e = u(rng);
    }
    const std::vector<float> acc0 = acc;
    AccumulateTransposedTile(p.data(), rows, stride, cols, x.data(), width, acc.data());
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t e = 0; e < width; ++e) {
        double want = acc0[c * width + e];
        for (int64_t r = 0; r < rows; ++r) want += double{p[r * stride + c]} * x[r * width + e];
        EXPECT_NEAR(acc[c * width + e], want, 1e-4) << rows << "x" << cols << "x" << width;
      }
    }
  }
}

// exp(s - lse) of the backward: std::exp within a few ulp, a score above
// the shift (rounding) clamped to probability 1, -inf to 0, NaN kept.
TEST(TileProductsTest, ShiftedExponentialsAreProbabilities) {
  std::vector<float> s;
  for (float x = -95.0f; x <= 0.0f; x += 0.0173f) s.push_back(x + 2.5f);
  const size_t n = s.size();
  s.push_back(2.5f + 1e-3f);
  s.push_back(-std::numeric_limits<float>::infinity());
  s.push_back(std::nanf(""));
  const std::vector<float> original = s;
  ExpShifted(s.data(), static_cast<int64_t>(s.size()), 2.5f);
  for (size_t c = 0; c < n; ++c) {
    const double want = std::exp(static_cast<double>(original[c]) - 2.5);
    EXPECT_NEAR(s[c], want, want * 4e-7 + 1e-37) << original[c];
  }
  EXPECT_EQ(s[n], 1.0f);
  EXPECT_EQ(s[n + 1], 0.0f);
  EXPECT_TRUE(std::isnan(s[n + 2]));
}

// A tile rounded to a full-size bf16 operand: each element as FloatToBf16
// rounds it (ties to even, NaN kept, infinities and overflow), the columns
// and rows past the computed ones 0.
TEST(TileProductsTest, RoundTileToBf16MatchesFloatToBf16) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-4, 4);
  const int64_t rows = 5, cols = 37, in_stride = 40, out_rows = 8, out_cols = 48;
  std::vector<float> in(rows * in_stride);
  for (float& x : in) x = u(rng);
  in[0] = std::nanf("");
  in[1] = std::numeric_limits<float>::infinity();
  in[2] = 3.4e38f;                     // rounds up to infinity
  in[3] = 1.0f + 0x1p-8f;              // a tie: to even (1)
  in[4] = 1.0f + 3 * 0x1p-8f;          // a tie: to even (1 + 2^-6)
  in[5] = -0.0f;
  std::vector<uint16_t> out(out_rows * out_cols, 0xffff);
  RoundTileToBf16(in.data(), in_stride, rows, cols, out_rows, out_cols, out.data(), out_cols);
  for (int64_t r = 0; r < out_rows; ++r) {
    for (int64_t c = 0; c < out_cols; ++c) {
      const uint16_t want = r < rows && c < cols ? FloatToBf16(in[r * in_stride + c]) : 0;
      EXPECT_EQ(out[r * out_cols + c], want) << r << ", " << c;
    }
  }
  EXPECT_EQ(out[3], 0x3f80);
  EXPECT_EQ(out[4], 0x3f82);
  EXPECT_EQ(out[2], 0x7f80);
}

}  // namespace
}  // namespace teplug::cpu::attention
