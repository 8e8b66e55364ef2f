// Checks fp16 and bf16 conversions over all 65536 patterns and on random
// doubles. Oracles: the spec formula (SpecFormulaValue), the compiler's own
// binary16 (_Float16, whose double->half conversion libgcc rounds correctly
// once), bf16 as "the top 16 bits of a binary32", and the nearest-even table
// search of spec_rounding_oracle.h.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "gtest/gtest.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/numerics/spec_rounding_oracle.h"

namespace teplug::reference {
namespace {

using testing::MakeSpecOracle;
using testing::SpecFormulaValue;

// Magnitude bits of the largest finite value.
constexpr uint32_t kFp16MaxCode = 0x7BFF;
constexpr uint32_t kBf16MaxCode = 0x7F7F;

float FloatFromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

bool SameValue(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) ||
         (a == b && std::signbit(a) == std::signbit(b));
}

TEST(Fp16Conversion, DecodesEveryPatternLikeTheSpecFormulaAndTheCompiler) {
  for (uint32_t c = 0; c < 0x10000; ++c) {
    const uint16_t code = static_cast<uint16_t>(c);
    const int exponent = (c >> 10) & 0x1F;
    const int mantissa = c & 0x3FF;
    double expected;
    if (exponent == 0x1F) {
      expected = mantissa == 0 ? std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::quiet_NaN();
      if (c & 0x8000) expected = -expected;
    } else {
      expected = SpecFormulaValue(c >> 15, exponent, mantissa, 10, 15);
    }
    ASSERT_TRUE(SameValue(DecodeFp16(code), expected)) << "fp16 code 0x" << std::hex << c;
    _Float16 h;
    std::memcpy(&h, &code, sizeof h);
    ASSERT_TRUE(SameValue(DecodeFp16(code), static_cast<double>(h)))
        << "fp16 code 0x" << std::hex << c << " vs _Float16";
  }
}

TEST(Fp16Conversion, FinitePatternsRoundTripAndNanStaysNan) {
  for (uint32_t c = 0; c < 0x10000; ++c) {
    const uint16_t code = static_cast<uint16_t>(c);
    const float value = DecodeFp16(code);
    if (std::isnan(value)) {
      const uint16_t back = EncodeFp16(value);
      EXPECT_TRUE(std::isnan(DecodeFp16(back))) << std::hex << c;
    } else {
      ASSERT_EQ(EncodeFp16(value), code) << "fp16 code 0x" << std::hex << c;
    }
  }
}

TEST(Fp16Conversion, RandomDoublesMatchTheCompilerAndTheOracle) {
  const auto oracle = MakeSpecOracle(kFp16MaxCode, 10, 15);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> log2_magnitude(-27.0, 17.0);
  for (int i = 0; i < 200000; ++i) {
    const double x = (i % 2 ? -1 : 1) * std::exp2(log2_magnitude(rng));
    const _Float16 h = static_cast<_Float16>(x);
    uint16_t compiler_bits;
    std::memcpy(&compiler_bits, &h, sizeof h);
    ASSERT_EQ(EncodeFp16(x), compiler_bits) << "x=" << x;
    const auto expected = oracle.Round(x);
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    ASSERT_EQ(EncodeFp16(x), expected.overflow ? (sign | 0x7C00) : (sign | expected.magnitude_code))
        << "x=" << x;
  }
}

TEST(Fp16Conversion, OverflowAndMidpointEdges) {
  EXPECT_EQ(EncodeFp16(65504.0), 0x7BFF);
  EXPECT_EQ(EncodeFp16(std::nextafter(65520.0, 0.0)), 0x7BFF);
  EXPECT_EQ(EncodeFp16(65520.0), 0x7C00);  // tie goes to the even "65536" = Inf
  EXPECT_EQ(EncodeFp16(-1e10), 0xFC00);
  EXPECT_EQ(EncodeFp16(std::ldexp(1.0, -25)), 0x0000);  // half of min subnormal, tie to 0
  EXPECT_EQ(EncodeFp16(std::nextafter(std::ldexp(1.0, -25), 1.0)), 0x0001);
  EXPECT_EQ(EncodeFp16(1.0 + std::ldexp(1.0, -11)), 0x3C00);  // tie to even 1.0
  EXPECT_EQ(EncodeFp16(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);  // tie to even 1+2^-9
  EXPECT_TRUE(std::isnan(DecodeFp16(EncodeFp16(std::nan("")))));
}

TEST(Bf16Conversion, DecodesEveryPatternAsTheTopHalfOfABinary32) {
  for (uint32_t c = 0; c < 0x10000; ++c) {
    const float expected = FloatFromBits(c << 16);
    ASSERT_TRUE(SameValue(DecodeBf16(static_cast<uint16_t>(c)), expected))
        << "bf16 code 0x" << std::hex << c;
  }
}

TEST(Bf16Conversion, FinitePatternsRoundTrip) {
  for (uint32_t c = 0; c < 0x10000; ++c) {
    const float value = DecodeBf16(static_cast<uint16_t>(c));
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(DecodeBf16(EncodeBf16(value))));
    } else {
      ASSERT_EQ(EncodeBf16(value), c) << "bf16 code 0x" << std::hex << c;
    }
  }
}

TEST(Bf16Conversion, RandomDoublesMatchTheNearestEvenOracle) {
  const auto oracle = MakeSpecOracle(kBf16MaxCode, 7, 127);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> log2_magnitude(-140.0, 130.0);
  int overflows = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = (i % 2 ? -1 : 1) * std::exp2(log2_magnitude(rng));
    const auto expected = oracle.Round(x);
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    overflows += expected.overflow;
    ASSERT_EQ(EncodeBf16(x), expected.overflow ? (sign | 0x7F80) : (sign | expected.magnitude_code))
        << "x=" << x;
  }
  EXPECT_GT(overflows, 0);
}

TEST(Bf16Conversion, NoDoubleRoundingThroughFloat) {
  // 1 + 2^-8 + 2^-30: above the bf16 midpoint 1 + 2^-8, so it rounds up to
  // 1 + 2^-7. Going through float first would drop the 2^-30, land exactly on
  // the midpoint and round to the even 1.0.
  const double x = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(EncodeBf16(x), 0x3F81);
  EXPECT_EQ(EncodeBf16(1.0 + std::ldexp(1.0, -8)), 0x3F80);
}

}  // namespace
}  // namespace teplug::reference
