// Checks 1x128 and 128x128 block FP8 scaling on random tensors with partial
// edge blocks and block-to-block magnitude changes: each block's scale_inv
// against an fp64 formula written here, every code against the nearest-even
// table oracle on fp32(x * scale), round trips against the format bound, the
// column-wise encodings, and zero/NaN/Inf blocks.
#include "plugins/reference/numerics/block_scaling.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/numerics/fp8_code_oracle.h"

namespace teplug::reference {
namespace {

using testing::ExpectedSaturatingCode;
using testing::Fp8Oracle;
using testing::SpecRoundingOracle;

struct Case {
  Fp8Format format;
  BlockScalingKind kind;
  bool pow2;
};

// Names the case in gtest output instead of dumping bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << Fp8FormatName(c.format) << (c.kind == BlockScalingKind::k1D ? " 1x128" : " 128x128")
      << (c.pow2 ? " pow2" : " fp32") << " scales";
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.format == Fp8Format::kE4M3 ? "e4m3" : "e5m2") +
         (info.param.kind == BlockScalingKind::k1D ? "_1d" : "_2d") +
         (info.param.pow2 ? "_pow2" : "_fp32");
}

// Every element gets a magnitude that depends on its 64x64 neighbourhood
// (so 128-blocks differ from each other) times a random spread; no zeros.
std::vector<float> VariedTensor(size_t rows, size_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> spread(-8.0f, 0.0f);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> x(rows * cols);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      const float base = static_cast<float>(static_cast<int>((r / 64) * 7 + (c / 64) * 13) % 40 - 20);
      x[r * cols + c] = (negative(rng) ? -1.0f : 1.0f) * std::exp2(base + spread(rng));
    }
  }
  return x;
}

// Expected scale of a block from its amax, by the recipe's formula in fp64.
float ExpectedScale(double amax, Fp8Format format, bool pow2) {
  if (amax == 0.0 || !std::isfinite(amax)) return 1.0f;
  const float quotient = static_cast<float>(double{Fp8MaxNormal(format)} / amax);
  return pow2 ? static_cast<float>(std::exp2(std::floor(std::log2(double{quotient})))) : quotient;
}

uint8_t ExpectedCode(const SpecRoundingOracle& oracle, Fp8Format format, float x, float scale) {
  return ExpectedSaturatingCode(oracle, format, x * scale);  // fp32 product, as TE
}

class BlockScalingTest : public ::testing::TestWithParam<Case> {};

TEST_P(BlockScalingTest, RowwiseScalesCodesAndRoundTrip) {
  const auto [format, kind, pow2] = GetParam();
  const auto oracle = Fp8Oracle(format);
  const size_t rows = 260, cols = 300;  // partial blocks on both edges
  const std::vector<float> x = VariedTensor(rows, cols, 23);
  BlockScalingOptions options;
  options.force_pow2_scales = pow2;
  auto q = QuantizeBlockScaled(x.data(), rows, cols, format, kind, options, false);
  ASSERT_TRUE(q.ok()) << q.status();
  const size_t tile_rows = kind == BlockScalingKind::k1D ? 1 : 128;
  const size_t grid_rows = (rows + tile_rows - 1) / tile_rows, grid_cols = 3;
  ASSERT_EQ(q->scale_inv.size(), grid_rows * grid_cols);
  auto back = DequantizeBlockScaled(*q, false);
  ASSERT_TRUE(back.ok()) << back.status();
  const int m = Fp8MantissaBits(format);
  for (size_t tr = 0; tr < grid_rows; ++tr) {
    for (size_t tc = 0; tc < grid_cols; ++tc) {
      double amax = 0;
      for (size_t r = tr * tile_rows; r < std::min(rows, (tr + 1) * tile_rows); ++r) {
        for (size_t c = tc * 128; c < std::min(cols, (tc + 1) * 128); ++c) {
          amax = std::max(amax, std::fabs(double{x[r * cols + c]}));
        }
      }
      const float scale = ExpectedScale(amax, format, pow2);
      ASSERT_EQ(q->scale_inv[tr * grid_cols + tc], 1.0f / scale) << "tile " << tr << "," << tc;
      const double abs_floor = std::ldexp(1.0, Fp8MinNormalExponent(format) - m - 1) / scale;
      for (size_t r = tr * tile_rows; r < std::min(rows, (tr + 1) * tile_rows); ++r) {
        for (size_t c = tc * 128; c < std::min(cols, (tc + 1) * 128); ++c) {
          const size_t i = r * cols + c;
          ASSERT_EQ(q->data[i], ExpectedCode(oracle, format, x[i], scale)) << "element " << i;
          const double err = std::fabs(double{(*back)[i]} - double{x[i]});
          const double bound = std::ldexp(std::fabs(double{x[i]}), -(m + 1)) * (1 + 1e-6) +
                               abs_floor;
          ASSERT_LE(err, bound) << "element " << i << " x=" << x[i];
        }
      }
    }
  }
}

TEST_P(BlockScalingTest, ColumnwiseEncoding) {
  const auto [format, kind, pow2] = GetParam();
  const size_t rows = 200, cols = 150;
  const std::vector<float> x = VariedTensor(rows, cols, 31);
  BlockScalingOptions options;
  options.force_pow2_scales = pow2;
  auto q = QuantizeBlockScaled(x.data(), rows, cols, format, kind, options, true);
  ASSERT_TRUE(q.ok()) << q.status();
  ASSERT_EQ(q->columnwise_data.size(), rows * cols);
  if (kind == BlockScalingKind::k2D) {
    // Same tiles: codes are the exact transpose, scales the transposed grid.
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < cols; ++c) {
        ASSERT_EQ(q->columnwise_data[c * rows + r], q->data[r * cols + c]);
      }
    }
    ASSERT_EQ(q->columnwise_scale_inv.size(), 4u);
    EXPECT_EQ(q->columnwise_scale_inv[0 * 2 + 1], q->scale_inv[1 * 2 + 0]);
    EXPECT_EQ(q->columnwise_scale_inv[1 * 2 + 0], q->scale_inv[0 * 2 + 1]);
  } else {
    // 128x1 blocks down the columns = 1x128 blocks of the transposed tensor.
    std::vector<float> xt(rows * cols);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < cols; ++c) xt[c * rows + r] = x[r * cols + c];
    }
    auto qt = QuantizeBlockScaled(xt.data(), cols, rows, format, kind, options, false);
    ASSERT_TRUE(qt.ok());
    EXPECT_EQ(q->columnwise_data, qt->data);
    EXPECT_EQ(q->columnwise_scale_inv, qt->scale_inv);
  }
  // Column-wise dequantization comes back in the original layout: for 2D it
  // equals the row-wise values, for 1D the transposed tensor's row-wise values.
  auto back = DequantizeBlockScaled(*q, true);
  ASSERT_TRUE(back.ok()) << back.status();
  std::vector<float> expected;
  if (kind == BlockScalingKind::k2D) {
    auto rowwise_back = DequantizeBlockScaled(*q, false);
    ASSERT_TRUE(rowwise_back.ok());
    expected = *rowwise_back;
  } else {
    BlockScaledFp8 transposed = *q;
    std::swap(transposed.rows, transposed.cols);
    transposed.data = q->columnwise_data;
    transposed.scale_inv = q->columnwise_scale_inv;
    auto transposed_back = DequantizeBlockScaled(transposed, false);
    ASSERT_TRUE(transposed_back.ok());
    expected.resize(rows * cols);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < cols; ++c) expected[r * cols + c] = (*transposed_back)[c * rows + r];
    }
  }
  EXPECT_EQ(*back, expected);
}

INSTANTIATE_TEST_SUITE_P(
    FormatsKindsScales, BlockScalingTest,
    ::testing::Values(Case{Fp8Format::kE4M3, BlockScalingKind::k1D, true},
                      Case{Fp8Format::kE4M3, BlockScalingKind::k1D, false},
                      Case{Fp8Format::kE4M3, BlockScalingKind::k2D, true},
                      Case{Fp8Format::kE4M3, BlockScalingKind::k2D, false},
                      Case{Fp8Format::kE5M2, BlockScalingKind::k1D, true},
                      Case{Fp8Format::kE5M2, BlockScalingKind::k2D, false}),
    CaseName);

TEST(BlockScaling, ZeroNanAndInfBlocks) {
  // Three 1x128 blocks: all zeros; one NaN among values; one Inf among values.
  std::vector<float> x(384, 0.0f);
  for (size_t i = 128; i < 384; ++i) x[i] = 0.01f * static_cast<float>(i);
  x[130] = std::numeric_limits<float>::quiet_NaN();
  x[300] = std::numeric_limits<float>::infinity();
  BlockScalingOptions options;
  options.force_pow2_scales = false;
  auto q = QuantizeBlockScaled(x.data(), 1, x.size(), Fp8Format::kE4M3, BlockScalingKind::k1D,
                               options, false);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->scale_inv[0], 1.0f) << "zero block: scale 1";
  for (size_t i = 0; i < 128; ++i) EXPECT_EQ(q->data[i], 0);
  // NaN is skipped by the amax: the scale comes from the largest finite value.
  EXPECT_EQ(q->scale_inv[1], 1.0f / static_cast<float>(448.0 / double{x[255]}));
  EXPECT_TRUE(std::isnan(DecodeFp8E4M3(q->data[130])));
  // Inf amax: scale 1; the Inf saturates, the rest quantize unscaled.
  EXPECT_EQ(q->scale_inv[2], 1.0f);
  EXPECT_EQ(q->data[300], 0x7E);
  EXPECT_EQ(q->data[301], EncodeFp8E4M3(x[301], true));
}

TEST(BlockScaling, EpsilonAndInputMaxFinite) {
  std::vector<float> x(128, 1e-30f);
  BlockScalingOptions options;
  options.force_pow2_scales = false;
  options.amax_epsilon = 1e-3f;
  auto q = QuantizeBlockScaled(x.data(), 1, 128, Fp8Format::kE4M3, BlockScalingKind::k1D, options,
                               false);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->scale_inv[0], 1.0f / (448.0f / 1e-3f));
  // Without epsilon, 448 / 1e-38 overflows fp32 and takes input_max_finite.
  std::vector<float> tiny(128, 1e-38f);
  options.amax_epsilon = 0.0f;
  options.input_max_finite = 65504.0f;
  q = QuantizeBlockScaled(tiny.data(), 1, 128, Fp8Format::kE4M3, BlockScalingKind::k1D, options,
                          false);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->scale_inv[0], 1.0f / 65504.0f);
}

TEST(BlockScaling, ErrorsNameTheProblem) {
  auto null_input = QuantizeBlockScaled(nullptr, 3, 7, Fp8Format::kE4M3, BlockScalingKind::k2D,
                                        {}, false);
  EXPECT_EQ(null_input.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(null_input.status().message().find("[3, 7]"), std::string::npos);
  std::vector<float> x(8, 1.0f);
  BlockScalingOptions bad;
  bad.amax_epsilon = -1.0f;
  EXPECT_FALSE(
      QuantizeBlockScaled(x.data(), 2, 4, Fp8Format::kE4M3, BlockScalingKind::k1D, bad, false).ok());
  auto q = QuantizeBlockScaled(x.data(), 2, 4, Fp8Format::kE4M3, BlockScalingKind::k1D, {}, false);
  ASSERT_TRUE(q.ok());
  auto missing = DequantizeBlockScaled(*q, true);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(missing.status().message().find("column-wise"), std::string::npos);
}

}  // namespace
}  // namespace teplug::reference
