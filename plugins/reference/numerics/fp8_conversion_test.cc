// Checks the OCP fp8 conversions (e4m3, e5m2) bit for bit against values
// derived from the OFP8 specification in this file, over all 256 patterns in
// both directions, at every rounding midpoint, at the saturation edges and on
// random doubles.
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <string>

#include "gtest/gtest.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/numerics/spec_rounding_oracle.h"

namespace teplug::reference {
namespace {

using testing::MakeSpecOracle;
using testing::SpecFormulaValue;

// What the OFP8 spec says about one format, restated here independently of
// float_formats.cc.
struct Fp8Spec {
  const char* name;
  int exponent_bits;
  int mantissa_bits;
  int bias;
  uint8_t max_finite_code;  // magnitude bits of the largest finite value
  double max_finite;
  bool has_inf;             // e5m2: S.11111.00 is Inf
  float (*decode)(uint8_t);
  uint8_t (*encode)(double, bool);
};

const Fp8Spec kE4M3Spec{"e4m3", 4, 3, 7, 0x7E, 448.0, false, DecodeFp8E4M3, EncodeFp8E4M3};
const Fp8Spec kE5M2Spec{"e5m2", 5, 2, 15, 0x7B, 57344.0, true, DecodeFp8E5M2, EncodeFp8E5M2};

// Makes gtest name the format instead of dumping the struct's bytes.
void PrintTo(const Fp8Spec& spec, std::ostream* os) { *os << spec.name; }

bool SpecIsNan(const Fp8Spec& s, uint8_t code) {
  const int exponent = (code & 0x7F) >> s.mantissa_bits;
  const int mantissa = code & ((1 << s.mantissa_bits) - 1);
  const int all_ones = (1 << s.exponent_bits) - 1;
  if (s.has_inf) return exponent == all_ones && mantissa != 0;
  return exponent == all_ones && mantissa == (1 << s.mantissa_bits) - 1;  // S.1111.111
}

bool SpecIsInf(const Fp8Spec& s, uint8_t code) {
  return s.has_inf && (code & 0x7F) == (((1 << s.exponent_bits) - 1) << s.mantissa_bits);
}

double SpecValue(const Fp8Spec& s, uint8_t code) {
  return SpecFormulaValue(code >> 7, (code & 0x7F) >> s.mantissa_bits,
                          code & ((1 << s.mantissa_bits) - 1), s.mantissa_bits, s.bias);
}

class Fp8ConversionTest : public ::testing::TestWithParam<Fp8Spec> {};

TEST_P(Fp8ConversionTest, DecodesAll256PatternsAsTheSpecFormulaSays) {
  const Fp8Spec& s = GetParam();
  int nan_count = 0;
  for (int c = 0; c < 256; ++c) {
    const uint8_t code = static_cast<uint8_t>(c);
    const float got = s.decode(code);
    if (SpecIsNan(s, code)) {
      ++nan_count;
      EXPECT_TRUE(std::isnan(got)) << s.name << " code 0x" << std::hex << c;
    } else if (SpecIsInf(s, code)) {
      EXPECT_TRUE(std::isinf(got)) << s.name << " code 0x" << std::hex << c;
      EXPECT_EQ(std::signbit(got), (c & 0x80) != 0);
    } else {
      EXPECT_EQ(static_cast<double>(got), SpecValue(s, code))
          << s.name << " code 0x" << std::hex << c;
      EXPECT_EQ(std::signbit(got), (c & 0x80) != 0) << "sign of code 0x" << std::hex << c;
    }
  }
  // OFP8: e4m3 has exactly one NaN pattern per sign, e5m2 three per sign.
  EXPECT_EQ(nan_count, s.has_inf ? 6 : 2) << s.name;
  EXPECT_EQ(static_cast<double>(s.decode(s.max_finite_code)), s.max_finite) << s.name;
}

TEST_P(Fp8ConversionTest, EveryFinitePatternReencodesToItself) {
  const Fp8Spec& s = GetParam();
  for (int c = 0; c < 256; ++c) {
    const uint8_t code = static_cast<uint8_t>(c);
    if (SpecIsNan(s, code)) {
      const float nan = s.decode(code);
      for (bool saturate : {false, true}) {
        EXPECT_TRUE(SpecIsNan(s, s.encode(nan, saturate))) << s.name << " NaN 0x" << std::hex << c;
      }
      continue;
    }
    if (SpecIsInf(s, code)) {
      EXPECT_EQ(s.encode(s.decode(code), false), code) << s.name;
      continue;
    }
    for (bool saturate : {false, true}) {
      EXPECT_EQ(s.encode(SpecValue(s, code), saturate), code)
          << s.name << " code 0x" << std::hex << c << " saturate " << saturate;
    }
  }
}

TEST_P(Fp8ConversionTest, MidpointsRoundToEvenAndNeighboursRoundToTheNearer) {
  const Fp8Spec& s = GetParam();
  int midpoints_checked = 0;
  for (uint8_t c = 0; c < s.max_finite_code; ++c) {
    const double lo = SpecValue(s, c);
    const double hi = SpecValue(s, static_cast<uint8_t>(c + 1));
    const double mid = (lo + hi) / 2;  // exact: both are short binary fractions
    const uint8_t even = (c % 2 == 0) ? c : static_cast<uint8_t>(c + 1);
    for (int sign : {1, -1}) {
      const uint8_t sign_bit = sign < 0 ? 0x80 : 0x00;
      const double m = sign * mid;
      EXPECT_EQ(s.encode(m, false), even | sign_bit) << s.name << " midpoint " << m;
      EXPECT_EQ(s.encode(std::nextafter(m, sign * 1e300), false), (c + 1) | sign_bit)
          << s.name << " just past midpoint " << m;
      EXPECT_EQ(s.encode(std::nextafter(m, 0.0), false), c | sign_bit)
          << s.name << " just inside midpoint " << m;
    }
    ++midpoints_checked;
  }
  EXPECT_EQ(midpoints_checked, s.max_finite_code);
}

TEST_P(Fp8ConversionTest, SaturationAndOverflowEdges) {
  const Fp8Spec& s = GetParam();
  const uint8_t max = s.max_finite_code;
  // Half an ulp above the largest finite value: the ulp of the top binade is
  // 2^(emax - mantissa_bits); emax = 8 (e4m3) or 15 (e5m2).
  const int emax = s.has_inf ? 15 : 8;
  const double half_ulp = std::ldexp(1.0, emax - s.mantissa_bits - 1);
  const double edge = s.max_finite + half_ulp;  // 464 or 61440
  const uint8_t overflow_code = s.has_inf ? 0x7C : 0x7F;  // Inf, or the e4m3 NaN
  for (int sign : {1, -1}) {
    const uint8_t sb = sign < 0 ? 0x80 : 0x00;
    EXPECT_EQ(s.encode(sign * s.max_finite, false), max | sb);
    EXPECT_EQ(s.encode(sign * std::nextafter(edge, 0.0), false), max | sb) << s.name;
    // At the edge itself the tie goes to the even neighbour: 448 (0x7E, even)
    // for e4m3, the would-be 65536 (0x7C, even, i.e. overflow) for e5m2.
    EXPECT_EQ(s.encode(sign * edge, false), (s.has_inf ? overflow_code : max) | sb) << s.name;
    EXPECT_EQ(s.encode(sign * std::nextafter(edge, 1e300), false), overflow_code | sb) << s.name;
    EXPECT_EQ(s.encode(sign * std::nextafter(edge, 1e300), true), max | sb) << s.name;
    EXPECT_EQ(s.encode(sign * 1e30, false), overflow_code | sb) << s.name;
    EXPECT_EQ(s.encode(sign * 1e30, true), max | sb) << s.name;
    const double inf = sign * std::numeric_limits<double>::infinity();
    EXPECT_EQ(s.encode(inf, false), overflow_code | sb) << s.name;
    EXPECT_EQ(s.encode(inf, true), max | sb) << s.name;
  }
  EXPECT_TRUE(SpecIsNan(s, s.encode(std::numeric_limits<double>::quiet_NaN(), true)));
  EXPECT_TRUE(SpecIsNan(s, s.encode(-std::numeric_limits<double>::quiet_NaN(), false)));
}

TEST_P(Fp8ConversionTest, SubnormalsAndUnderflow) {
  const Fp8Spec& s = GetParam();
  const int min_normal_exponent = 1 - s.bias;
  const double min_subnormal = std::ldexp(1.0, min_normal_exponent - s.mantissa_bits);
  EXPECT_EQ(s.encode(min_subnormal, false), 0x01);
  EXPECT_EQ(s.encode(-min_subnormal, false), 0x81);
  EXPECT_EQ(s.encode(min_subnormal / 2, false), 0x00);  // tie to even zero
  EXPECT_EQ(s.encode(-min_subnormal / 2, false), 0x80);  // keeps the sign
  EXPECT_EQ(s.encode(std::nextafter(min_subnormal / 2, 1.0), false), 0x01);
  EXPECT_EQ(s.encode(1e-300, false), 0x00);
  EXPECT_EQ(s.encode(std::numeric_limits<double>::denorm_min(), false), 0x00);
  EXPECT_EQ(s.encode(-0.0, false), 0x80);
  // Largest subnormal and smallest normal sit next to each other in code order.
  const double min_normal = std::ldexp(1.0, min_normal_exponent);
  EXPECT_EQ(s.encode(min_normal, false), 1 << s.mantissa_bits);
  EXPECT_EQ(s.encode(min_normal - min_subnormal, false), (1 << s.mantissa_bits) - 1);
}

TEST_P(Fp8ConversionTest, RandomDoublesMatchTheNearestEvenOracle) {
  const Fp8Spec& s = GetParam();
  const auto oracle = MakeSpecOracle(s.max_finite_code, s.mantissa_bits, s.bias);
  std::mt19937_64 rng(20240501);
  // Log-uniform magnitudes from far below the smallest subnormal to beyond
  // the overflow threshold, with random sign and random low bits.
  std::uniform_real_distribution<double> log2_magnitude(-24.0, 18.0);
  std::bernoulli_distribution negative(0.5);
  int overflows = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = (negative(rng) ? -1 : 1) * std::exp2(log2_magnitude(rng));
    const auto expected = oracle.Round(x);
    const uint8_t sb = std::signbit(x) ? 0x80 : 0x00;
    if (expected.overflow) {
      ++overflows;
      EXPECT_EQ(s.encode(x, true), s.max_finite_code | sb) << s.name << " x=" << x;
      EXPECT_EQ(s.encode(x, false), (s.has_inf ? 0x7C : 0x7F) | sb) << s.name << " x=" << x;
    } else {
      ASSERT_EQ(s.encode(x, false), expected.magnitude_code | sb) << s.name << " x=" << x;
      ASSERT_EQ(s.encode(x, true), expected.magnitude_code | sb) << s.name << " x=" << x;
    }
  }
  EXPECT_GT(overflows, 0) << "the random range must reach the overflow region";
}

INSTANTIATE_TEST_SUITE_P(OcpFp8, Fp8ConversionTest, ::testing::Values(kE4M3Spec, kE5M2Spec),
                         [](const ::testing::TestParamInfo<Fp8Spec>& info) {
                           return std::string(info.param.name);
                         });

TEST(Fp8FormatDispatch, MatchesTheNamedFunctionsAndSpecConstants) {
  EXPECT_EQ(Fp8MaxNormal(Fp8Format::kE4M3), 448.0f);
  EXPECT_EQ(Fp8MaxNormal(Fp8Format::kE5M2), 57344.0f);
  EXPECT_EQ(Fp8MaxExponent(Fp8Format::kE4M3), 8);
  EXPECT_EQ(Fp8MaxExponent(Fp8Format::kE5M2), 15);
  EXPECT_EQ(std::ilogb(Fp8MaxNormal(Fp8Format::kE4M3)), Fp8MaxExponent(Fp8Format::kE4M3));
  EXPECT_EQ(std::ilogb(Fp8MaxNormal(Fp8Format::kE5M2)), Fp8MaxExponent(Fp8Format::kE5M2));
  EXPECT_EQ(Fp8MinNormalExponent(Fp8Format::kE4M3), -6);
  EXPECT_EQ(Fp8MinNormalExponent(Fp8Format::kE5M2), -14);
  for (int c = 0; c < 256; ++c) {
    const uint8_t code = static_cast<uint8_t>(c);
    const float a = DecodeFp8(Fp8Format::kE4M3, code);
    const float b = DecodeFp8E4M3(code);
    EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b)));
    EXPECT_EQ(EncodeFp8(Fp8Format::kE5M2, 0.37 * c, true), EncodeFp8E5M2(0.37 * c, true));
  }
  EXPECT_STREQ(Fp8FormatName(Fp8Format::kE4M3), "fp8_e4m3");
  EXPECT_STREQ(Fp8FormatName(Fp8Format::kE5M2), "fp8_e5m2");
}

}  // namespace
}  // namespace teplug::reference
