// Checks MXFP8 quantization: the scale of every block against formulas
// written here with std::log2 (independent of the implementation's ilogb and
// bit tricks), every code against the nearest-even table oracle, round trips
// against the format's error bound, partial blocks, column-wise blocks, and
// blocks with NaN, Inf and zeros.
//
// Round-trip bound used (per element, spec rule): with X the block scale, m
// the element mantissa bits and emin the element's smallest normal exponent,
//   |dequant(V) - V| <= 2^-(m+1) * |V| + X * 2^(emin - m - 1) + 2^-24 |dequant|
// i.e. half an element ulp (relative in the normal range, absolute in the
// subnormal range) plus the final rounding to fp32 - for every element whose
// |V| / X does not exceed max normal + half an ulp. Larger ones (only the
// spec rule produces them: max|V|/X can reach 2^(emax+1)) must decode to
// exactly +-max_normal * X.
#include "plugins/reference/numerics/mx_scaling.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/numerics/fp8_code_oracle.h"

namespace teplug::reference {
namespace {

using testing::ExpectedSaturatingCode;
using testing::Fp8Oracle;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

struct Case {
  Fp8Format format;
  MxScaleRule rule;
};

// Names the case in gtest output instead of dumping bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << Fp8FormatName(c.format) << (c.rule == MxScaleRule::kOcpSpec ? " spec" : " te") << " rule";
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.format == Fp8Format::kE4M3 ? "e4m3" : "e5m2") +
         (info.param.rule == MxScaleRule::kOcpSpec ? "_spec" : "_te");
}

// Expected e8m0 exponent (unbiased) of a finite block's amax, by formula.
int ExpectedScaleExponent(double amax, Fp8Format format, MxScaleRule rule) {
  if (rule == MxScaleRule::kOcpSpec) {
    if (amax == 0.0) return -127;
    const int e = static_cast<int>(std::floor(std::log2(amax))) - Fp8MaxExponent(format);
    return std::max(e, -127);
  }
  // TE: ceil(log2(fp32(amax * fp32(1/max)))) for normal fp32 quotients.
  const float q = static_cast<float>(amax) * (1.0f / Fp8MaxNormal(format));
  return static_cast<int>(std::ceil(std::log2(static_cast<double>(q))));
}

// Random tensor whose 32-blocks have very different magnitudes: each row
// segment gets its own base magnitude 2^[-60, 60], and elements spread
// 2^[-12, 0] below it, with random signs; no zeros.
std::vector<float> VariedBlocks(size_t rows, size_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> base(-60.0f, 60.0f), spread(-12.0f, 0.0f);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> x(rows * cols);
  float block_base = 0.0f;
  for (size_t i = 0; i < x.size(); ++i) {
    if (i % 7 == 0) block_base = base(rng);  // changes inside and across blocks
    x[i] = (negative(rng) ? -1.0f : 1.0f) * std::exp2(block_base + spread(rng));
  }
  return x;
}

class MxScalingTest : public ::testing::TestWithParam<Case> {};

TEST_P(MxScalingTest, RowwiseScalesCodesAndRoundTripOnVariedBlocks) {
  const auto [format, rule] = GetParam();
  const auto oracle = Fp8Oracle(format);
  const size_t rows = 9, cols = 200;  // 200 = 6 full blocks + a partial block of 8
  const std::vector<float> x = VariedBlocks(rows, cols, 41);
  auto q = QuantizeMxfp8(x.data(), rows, cols, format, rule, false);
  ASSERT_TRUE(q.ok()) << q.status();
  ASSERT_EQ(q->scales.size(), rows * 7);
  EXPECT_TRUE(q->columnwise_data.empty());
  auto back = DequantizeMxfp8(*q, false);
  ASSERT_TRUE(back.ok()) << back.status();

  const int m = Fp8MantissaBits(format);
  const int emin = Fp8MinNormalExponent(format);
  const double max_normal = Fp8MaxNormal(format);
  const double half_ulp_top = std::ldexp(1.0, Fp8MaxExponent(format) - m - 1);
  int saturated = 0;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t b = 0; b < 7; ++b) {
      const size_t begin = r * cols + b * 32;
      const size_t end = std::min(begin + 32, (r + 1) * cols);
      double amax = 0;
      for (size_t i = begin; i < end; ++i) amax = std::max(amax, std::fabs(double{x[i]}));
      const int exponent = ExpectedScaleExponent(amax, format, rule);
      const uint8_t scale = q->scales[r * 7 + b];
      ASSERT_EQ(scale, exponent + 127) << "row " << r << " block " << b << " amax " << amax;
      const double X = std::ldexp(1.0, exponent);
      for (size_t i = begin; i < end; ++i) {
        // Code: nearest even of V / X (spec) or of fp32(V * 2^-e) (TE); both
        // are the same number here since X is a normal power of two.
        const double scaled = double{x[i]} / X;
        ASSERT_EQ(q->data[i], ExpectedSaturatingCode(oracle, format, scaled))
            << "element " << i << " V/X=" << scaled;
        const double got = (*back)[i];
        if (std::fabs(scaled) > max_normal + half_ulp_top) {
          ++saturated;
          ASSERT_EQ(got, (x[i] < 0 ? -1 : 1) * max_normal * X) << "saturated element " << i;
          continue;
        }
        const double bound = std::ldexp(std::fabs(double{x[i]}), -(m + 1)) +
                             X * std::ldexp(1.0, emin - m - 1) + std::fabs(got) * 0x1p-24;
        ASSERT_LE(std::fabs(got - double{x[i]}), bound) << "element " << i << " x=" << x[i];
      }
    }
  }
  if (rule == MxScaleRule::kTransformerEngine) {
    EXPECT_EQ(saturated, 0) << "TE's rounded-up scale never needs clamping";
  } else {
    EXPECT_GT(saturated, 0) << "the data should include blocks the spec rule clamps";
  }
}

TEST_P(MxScalingTest, ColumnwiseBlocksRunDownColumns) {
  const auto [format, rule] = GetParam();
  const size_t rows = 70, cols = 5;  // 2 full column blocks + a partial one of 6
  const std::vector<float> x = VariedBlocks(rows, cols, 8);
  auto q = QuantizeMxfp8(x.data(), rows, cols, format, rule, true);
  ASSERT_TRUE(q.ok()) << q.status();
  ASSERT_EQ(q->columnwise_scales.size(), 3 * cols);
  ASSERT_EQ(q->scales.size(), rows * 1);
  // Column-wise block (b, c) equals the row-wise quantization of that column
  // segment laid out as one row.
  for (size_t c = 0; c < cols; ++c) {
    for (size_t b = 0; b < 3; ++b) {
      std::vector<float> segment;
      for (size_t r = b * 32; r < std::min(rows, b * 32 + 32); ++r) segment.push_back(x[r * cols + c]);
      auto as_row = QuantizeMxfp8(segment.data(), 1, segment.size(), format, rule, false);
      ASSERT_TRUE(as_row.ok());
      EXPECT_EQ(q->columnwise_scales[b * cols + c], as_row->scales[0]) << "column " << c;
      for (size_t k = 0; k < segment.size(); ++k) {
        EXPECT_EQ(q->columnwise_data[(b * 32 + k) * cols + c], as_row->data[k]);
      }
    }
  }
  // Column-wise dequantization reads each element with its column block's scale.
  auto columnwise_back = DequantizeMxfp8(*q, true);
  ASSERT_TRUE(columnwise_back.ok()) << columnwise_back.status();
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      const double expected = double{DecodeFp8(format, q->columnwise_data[r * cols + c])} *
                              std::ldexp(1.0, q->columnwise_scales[(r / 32) * cols + c] - 127);
      EXPECT_EQ((*columnwise_back)[r * cols + c], static_cast<float>(expected));
    }
  }
}

TEST_P(MxScalingTest, ZeroBlocksAndTinyBlocks) {
  const auto [format, rule] = GetParam();
  std::vector<float> x(64, 0.0f);
  for (size_t i = 32; i < 64; ++i) x[i] = std::ldexp(1.0f, -149) * static_cast<float>(i);  // subnormal
  auto q = QuantizeMxfp8(x.data(), 1, 64, format, rule, false);
  ASSERT_TRUE(q.ok());
  // Zero block: the smallest scale (spec: 2^-127; TE: float_to_e8m0(0) = 0,
  // the same code) and zero codes.
  EXPECT_EQ(q->scales[0], 0x00);
  for (size_t i = 0; i < 32; ++i) EXPECT_EQ(q->data[i], 0x00);
  auto back = DequantizeMxfp8(*q, false);
  ASSERT_TRUE(back.ok());
  for (size_t i = 0; i < 32; ++i) EXPECT_EQ((*back)[i], 0.0f);
  if (rule == MxScaleRule::kOcpSpec) {
    // amax = 63 * 2^-149 -> floor(log2) = -144, minus emax, clamped to -127.
    EXPECT_EQ(q->scales[1], 0x00);
  }
}

TEST_P(MxScalingTest, NanAndInfBlocks) {
  const auto [format, rule] = GetParam();
  std::vector<float> x(96);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * static_cast<float>(i + 1);
  x[5] = kNan;    // block 0
  x[40] = -kInf;  // block 1; block 2 is finite
  auto q = QuantizeMxfp8(x.data(), 1, x.size(), format, rule, false);
  ASSERT_TRUE(q.ok());
  auto back = DequantizeMxfp8(*q, false);
  ASSERT_TRUE(back.ok());
  if (rule == MxScaleRule::kOcpSpec) {
    EXPECT_EQ(q->scales[0], kE8M0Nan);
    EXPECT_EQ(q->scales[1], kE8M0Nan);
    for (size_t i = 0; i < 64; ++i) EXPECT_TRUE(std::isnan((*back)[i])) << "element " << i;
  } else {
    // TE: NaN is skipped by the amax, so block 0 keeps a finite scale and
    // only the NaN element is NaN; Inf amax gives scale 0xFE.
    EXPECT_NE(q->scales[0], kE8M0Nan);
    EXPECT_TRUE(std::isnan((*back)[5]));
    EXPECT_FALSE(std::isnan((*back)[4]));
    EXPECT_EQ(q->scales[1], 0xFE);
  }
  EXPECT_NE(q->scales[2], kE8M0Nan);
  for (size_t i = 64; i < 96; ++i) EXPECT_FALSE(std::isnan((*back)[i]));
}

INSTANTIATE_TEST_SUITE_P(FormatsAndRules, MxScalingTest,
                         ::testing::Values(Case{Fp8Format::kE4M3, MxScaleRule::kOcpSpec},
                                           Case{Fp8Format::kE5M2, MxScaleRule::kOcpSpec},
                                           Case{Fp8Format::kE4M3, MxScaleRule::kTransformerEngine},
                                           Case{Fp8Format::kE5M2, MxScaleRule::kTransformerEngine}),
                         CaseName);

TEST(MxScaling, SpecAndTransformerEngineRulesDifferAsDocumented) {
  std::vector<float> a(32, 1.0f);
  const auto spec_scale = [&] {
    return MxBlockScale(a.data(), 32, 1, Fp8Format::kE4M3, MxScaleRule::kOcpSpec);
  };
  const auto te_scale = [&] {
    return MxBlockScale(a.data(), 32, 1, Fp8Format::kE4M3, MxScaleRule::kTransformerEngine);
  };
  // amax 300: spec 2^(floor(log2 300) - 8) = 2^0; TE 2^ceil(log2(300/448)) = 2^0.
  a[0] = 300.0f;
  EXPECT_EQ(spec_scale(), 127);
  EXPECT_EQ(te_scale(), 127);
  // amax 500: spec keeps 2^0 and clamps 500 to 448; TE rounds 500/448 up to
  // 2^1 and encodes 250 as 256 (e4m3 ulp 16 in [128, 256)), no clamping.
  a[0] = 500.0f;
  EXPECT_EQ(spec_scale(), 127);
  EXPECT_EQ(te_scale(), 128);
  auto spec = QuantizeMxfp8(a.data(), 1, 32, Fp8Format::kE4M3, MxScaleRule::kOcpSpec, false);
  auto te = QuantizeMxfp8(a.data(), 1, 32, Fp8Format::kE4M3, MxScaleRule::kTransformerEngine, false);
  ASSERT_TRUE(spec.ok() && te.ok());
  EXPECT_EQ(DecodeFp8E4M3(spec->data[0]), 448.0f);
  EXPECT_EQ(DecodeFp8E4M3(te->data[0]), 256.0f);
  // amax 200 (significand 1.5625 <= 1.75): both give 2^-1. The rules agree
  // whenever the spec would not clamp the block maximum.
  a[0] = 200.0f;
  EXPECT_EQ(spec_scale(), 126);
  EXPECT_EQ(te_scale(), 126);
  // amax 448 * 2^20 exactly: fp32 448 * (1/448) is exactly 1, so both 2^20.
  a[0] = std::ldexp(448.0f, 20);
  EXPECT_EQ(spec_scale(), 127 + 20);
  EXPECT_EQ(te_scale(), 127 + 20);
  // amax 1.8 * 2^10 (significand > 1.75): spec 2^(10 - 8) and clamps, TE 2^3.
  a[0] = std::ldexp(1.8f, 10);
  EXPECT_EQ(spec_scale(), 127 + 2);
  EXPECT_EQ(te_scale(), 127 + 3);
}

TEST(MxScaling, ErrorsNameTheProblem) {
  auto null_input = QuantizeMxfp8(nullptr, 4, 4, Fp8Format::kE4M3, MxScaleRule::kOcpSpec, false);
  EXPECT_EQ(null_input.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(null_input.status().message().find("[4, 4]"), std::string::npos);
  std::vector<float> x(64, 1.0f);
  auto q = QuantizeMxfp8(x.data(), 2, 32, Fp8Format::kE4M3, MxScaleRule::kOcpSpec, false);
  ASSERT_TRUE(q.ok());
  auto no_columnwise = DequantizeMxfp8(*q, true);
  EXPECT_EQ(no_columnwise.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(no_columnwise.status().message().find("column-wise"), std::string::npos);
}

}  // namespace
}  // namespace teplug::reference
