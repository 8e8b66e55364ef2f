// Checks the OCP MX v1.0 scale format e8m0 and the element format fp4 e2m1
// against the values listed in the MX specification.
#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "plugins/reference/numerics/float_formats.h"

namespace teplug::reference {
namespace {

TEST(E8M0Conversion, DecodesAll256PatternsAsPowersOfTwo) {
  for (int c = 0; c < 255; ++c) {
    EXPECT_EQ(static_cast<double>(DecodeE8M0(static_cast<uint8_t>(c))), std::pow(2.0, c - 127))
        << "e8m0 code " << c;
  }
  EXPECT_TRUE(std::isnan(DecodeE8M0(0xFF)));
  EXPECT_GT(DecodeE8M0(0x00), 0.0f) << "2^-127 is a float subnormal and must not flush";
}

TEST(E8M0Conversion, EncodesExactlyTheRepresentableExponents) {
  for (int e = -127; e <= 127; ++e) {
    const uint8_t code = EncodeE8M0(e);
    EXPECT_EQ(code, e + 127);
    EXPECT_EQ(static_cast<double>(DecodeE8M0(code)), std::ldexp(1.0, e));
  }
  EXPECT_EQ(EncodeE8M0(128), kE8M0Nan);
  EXPECT_EQ(EncodeE8M0(-128), kE8M0Nan);
  EXPECT_EQ(EncodeE8M0(1000), kE8M0Nan);
}

// MX v1.0 table of fp4 e2m1 magnitudes by code 0..7.
constexpr double kE2M1Magnitudes[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};

TEST(Fp4E2M1Conversion, DecodesAll16CodesAsTheSpecTableAndRoundTrips) {
  for (int c = 0; c < 16; ++c) {
    const double expected = (c & 0x8 ? -1.0 : 1.0) * kE2M1Magnitudes[c & 0x7];
    const float got = DecodeFp4E2M1(static_cast<uint8_t>(c));
    EXPECT_EQ(static_cast<double>(got), expected) << "fp4 code " << c;
    EXPECT_EQ(std::signbit(got), (c & 0x8) != 0) << "fp4 code " << c;
    EXPECT_EQ(EncodeFp4E2M1(got, false), c);
    EXPECT_EQ(EncodeFp4E2M1(got, true), c);
  }
  EXPECT_TRUE(std::isnan(DecodeFp4E2M1(0x10)));
  EXPECT_TRUE(std::isnan(DecodeFp4E2M1(kFp4E2M1Invalid)));
}

TEST(Fp4E2M1Conversion, MidpointsRoundToEven) {
  for (int c = 0; c < 7; ++c) {
    const double mid = (kE2M1Magnitudes[c] + kE2M1Magnitudes[c + 1]) / 2;
    const int even = c % 2 == 0 ? c : c + 1;
    EXPECT_EQ(EncodeFp4E2M1(mid, false), even) << "midpoint " << mid;
    EXPECT_EQ(EncodeFp4E2M1(-mid, false), even | 0x8) << "midpoint " << -mid;
    EXPECT_EQ(EncodeFp4E2M1(std::nextafter(mid, 10.0), false), c + 1);
    EXPECT_EQ(EncodeFp4E2M1(std::nextafter(mid, 0.0), false), c);
  }
}

TEST(Fp4E2M1Conversion, SaturatesOrReportsInvalid) {
  EXPECT_EQ(EncodeFp4E2M1(std::nextafter(7.0, 0.0), false), 0x7);
  EXPECT_EQ(EncodeFp4E2M1(7.0, false), kFp4E2M1Invalid);  // tie to the even "8"
  EXPECT_EQ(EncodeFp4E2M1(7.0, true), 0x7);
  EXPECT_EQ(EncodeFp4E2M1(-100.0, true), 0xF);
  EXPECT_EQ(EncodeFp4E2M1(-std::numeric_limits<double>::infinity(), true), 0xF);
  EXPECT_EQ(EncodeFp4E2M1(std::numeric_limits<double>::infinity(), false), kFp4E2M1Invalid);
  EXPECT_EQ(EncodeFp4E2M1(std::nan(""), true), kFp4E2M1Invalid);
  EXPECT_EQ(EncodeFp4E2M1(0.25, false), 0x0);  // tie to even zero
  EXPECT_EQ(EncodeFp4E2M1(-0.2, false), 0x8);  // negative zero
}

}  // namespace
}  // namespace teplug::reference
