// The tool's codecs, checked exhaustively against formulas computed another
// way: every fp16 code against (-1)^s 2^(e-15) (1 + m/1024) evaluated with
// pow, every bf16 code against the binary32 whose top 16 bits it is, every
// e8m0 code against the binary64 built from its exponent field; the encoders
// round-trip every code and round every midpoint between neighbours (and the
// doubles just beside it) to the right side, ties to even. The fp8 decoders
// (and the edge codes of all five) against values written by hand from the
// specifications.
#include "tools/teplug/float_format_codecs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace teplug::cli {
namespace {

template <class To, class From>
To BitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "sizes differ");
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

// Equal as values, with the same sign of zero; NaN only matches NaN.
void ExpectSameValue(double got, double want, uint32_t code) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << "code 0x" << std::hex << code;
    return;
  }
  EXPECT_EQ(got, want) << "code 0x" << std::hex << code;
  EXPECT_EQ(std::signbit(got), std::signbit(want)) << "code 0x" << std::hex << code;
}

double Fp16ByFormula(uint32_t code) {
  const double sign = (code & 0x8000) ? -1.0 : 1.0;
  const uint32_t e = (code >> 10) & 0x1F, m = code & 0x3FF;
  if (e == 0x1F) return m == 0 ? sign * INFINITY : std::numeric_limits<double>::quiet_NaN();
  if (e == 0) return sign * std::pow(2.0, -14) * (m / 1024.0);
  return sign * std::pow(2.0, static_cast<double>(e) - 15) * (1.0 + m / 1024.0);
}

double Bf16ByBinary32(uint32_t code) { return BitCast<float>(code << 16); }

TEST(FloatFormatCodecsTest, EveryFp16CodeDecodesToTheIeeeBinary16Value) {
  for (uint32_t code = 0; code <= 0xFFFF; ++code) {
    ExpectSameValue(DecodeFp16(static_cast<uint16_t>(code)), Fp16ByFormula(code), code);
  }
}

TEST(FloatFormatCodecsTest, EveryBf16CodeDecodesToTheBinary32OfWhichItIsTheTopHalf) {
  for (uint32_t code = 0; code <= 0xFFFF; ++code) {
    ExpectSameValue(DecodeBf16(static_cast<uint16_t>(code)), Bf16ByBinary32(code), code);
  }
}

TEST(FloatFormatCodecsTest, EveryE8m0CodeIsTwoToTheCodeMinus127OrNan) {
  for (uint32_t code = 0; code < 0xFF; ++code) {
    // A binary64 with exponent field (code - 127) + 1023 and a zero mantissa.
    const double want = BitCast<double>(static_cast<uint64_t>(code + 1023 - 127) << 52);
    ExpectSameValue(DecodeE8M0(static_cast<uint8_t>(code)), want, code);
  }
  EXPECT_TRUE(std::isnan(DecodeE8M0(0xFF)));
}

// Expected values are the spec's, written out by hand (hex floats: 0x1.cp8
// is 1.75 * 2^8 = 448).
TEST(FormatDecodeTest, E4M3SubnormalsMaxNanAndNoInfinity) {
  EXPECT_EQ(DecodeE4M3(0x00), 0.0);
  EXPECT_EQ(DecodeE4M3(0x80), 0.0);
  EXPECT_TRUE(std::signbit(DecodeE4M3(0x80)));  // negative zero
  EXPECT_EQ(DecodeE4M3(0x01), 0x1p-9);          // smallest subnormal 2^-6 * 1/8
  EXPECT_EQ(DecodeE4M3(0x07), 0x1.cp-7);        // largest subnormal 2^-6 * 7/8
  EXPECT_EQ(DecodeE4M3(0x08), 0x1p-6);          // smallest normal
  EXPECT_EQ(DecodeE4M3(0x38), 1.0);             // 0.0111.000
  EXPECT_EQ(DecodeE4M3(0xC0), -2.0);            // 1.1000.000
  EXPECT_EQ(DecodeE4M3(0x78), 256.0);           // 0.1111.000 is finite
  EXPECT_EQ(DecodeE4M3(0x7E), 448.0);           // max normal 0.1111.110
  EXPECT_EQ(DecodeE4M3(0xFE), -448.0);
  EXPECT_TRUE(std::isnan(DecodeE4M3(0x7F)));  // S.1111.111, the only NaN
  EXPECT_TRUE(std::isnan(DecodeE4M3(0xFF)));
}

TEST(FormatDecodeTest, E5M2SubnormalsMaxInfinityAndNan) {
  EXPECT_TRUE(std::signbit(DecodeE5M2(0x80)));
  EXPECT_EQ(DecodeE5M2(0x80), 0.0);
  EXPECT_EQ(DecodeE5M2(0x01), 0x1p-16);    // smallest subnormal 2^-14 * 1/4
  EXPECT_EQ(DecodeE5M2(0x03), 0x1.8p-15);  // largest subnormal 2^-14 * 3/4
  EXPECT_EQ(DecodeE5M2(0x04), 0x1p-14);    // smallest normal
  EXPECT_EQ(DecodeE5M2(0x3C), 1.0);        // 0.01111.00
  EXPECT_EQ(DecodeE5M2(0xC2), -3.0);       // 1.10000.10
  EXPECT_EQ(DecodeE5M2(0x7B), 57344.0);    // max normal 0.11110.11
  EXPECT_EQ(DecodeE5M2(0x7C), INFINITY);
  EXPECT_EQ(DecodeE5M2(0xFC), -INFINITY);
  for (uint8_t nan : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}) EXPECT_TRUE(std::isnan(DecodeE5M2(nan)));
}

TEST(FormatDecodeTest, E8M0IsAPowerOfTwoOrNan) {
  EXPECT_EQ(DecodeE8M0(0x7F), 1.0);
  EXPECT_EQ(DecodeE8M0(0x80), 2.0);
  EXPECT_EQ(DecodeE8M0(0x7C), 0.125);
  EXPECT_EQ(DecodeE8M0(0x00), 0x1p-127);
  EXPECT_EQ(DecodeE8M0(0xFE), 0x1p127);
  EXPECT_TRUE(std::isnan(DecodeE8M0(0xFF)));
}

TEST(FormatDecodeTest, Fp16AndBf16) {
  EXPECT_EQ(DecodeFp16(0x3C00), 1.0);
  EXPECT_EQ(DecodeFp16(0xC000), -2.0);
  EXPECT_EQ(DecodeFp16(0x0001), 0x1p-24);  // smallest subnormal
  EXPECT_EQ(DecodeFp16(0x7BFF), 65504.0);  // max normal
  EXPECT_EQ(DecodeFp16(0x7C00), INFINITY);
  EXPECT_TRUE(std::isnan(DecodeFp16(0x7E00)));
  EXPECT_TRUE(std::signbit(DecodeFp16(0x8000)));
  EXPECT_EQ(DecodeBf16(0x3F80), 1.0);
  EXPECT_EQ(DecodeBf16(0xBFC0), -1.5);
  EXPECT_EQ(DecodeBf16(0x0001), 0x1p-133);    // smallest subnormal 2^-126 * 2^-7
  EXPECT_EQ(DecodeBf16(0x7F7F), 0x1.fep127);  // max normal
  EXPECT_EQ(DecodeBf16(0xFF80), -INFINITY);
  EXPECT_TRUE(std::isnan(DecodeBf16(0x7FC0)));
  EXPECT_TRUE(std::signbit(DecodeBf16(0x8000)));
}

using Decoder = double (*)(uint16_t);
using Encoder = uint16_t (*)(double);

// Every non-NaN code round-trips; between each pair of neighbouring finite
// codes (of both signs) the midpoint goes to the even code and the doubles
// just inside it to the nearer one; beyond the largest finite value the
// midpoint and above become Inf.
void CheckEncoderAgainstDecoder(Decoder decode, Encoder encode, uint16_t inf_code) {
  for (uint32_t code = 0; code <= 0xFFFF; ++code) {
    const double v = decode(static_cast<uint16_t>(code));
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(decode(encode(v)))) << "NaN code 0x" << std::hex << code;
      continue;
    }
    ASSERT_EQ(encode(v), code) << "round trip of code 0x" << std::hex << code;
  }
  for (uint32_t sign : {0u, 0x8000u}) {
    for (uint32_t code = 0; code + 1 < inf_code; ++code) {
      const uint32_t lo = sign | code, hi = sign | (code + 1);
      const double a = decode(static_cast<uint16_t>(lo)), b = decode(static_cast<uint16_t>(hi));
      const double mid = a / 2 + b / 2;  // exact: both halves are representable
      ASSERT_EQ(encode(mid), (lo & 1) == 0 ? lo : hi) << "midpoint after code 0x" << std::hex << lo;
      ASSERT_EQ(encode(std::nextafter(mid, a)), lo) << "just below the midpoint after 0x" << std::hex << lo;
      ASSERT_EQ(encode(std::nextafter(mid, b)), hi) << "just above the midpoint after 0x" << std::hex << lo;
    }
    // Above the largest finite value the grid continues with the same
    // spacing: its midpoint (an odd code's tie) and beyond round to Inf.
    const double max = decode(static_cast<uint16_t>(sign | (inf_code - 1)));
    const double below = decode(static_cast<uint16_t>(sign | (inf_code - 2)));
    const double mid = max + (max - below) / 2;
    EXPECT_EQ(encode(mid), sign | inf_code);
    EXPECT_EQ(encode(std::nextafter(mid, 0.0)), sign | (inf_code - 1));
  }
}

TEST(FloatFormatCodecsTest, Fp16EncoderRoundsToNearestEven) {
  CheckEncoderAgainstDecoder(&DecodeFp16, &EncodeFp16, 0x7C00);
  EXPECT_EQ(EncodeFp16(65519.99), 0x7BFF);  // below the midpoint 65520: max finite
  EXPECT_EQ(EncodeFp16(65520.0), 0x7C00);   // the midpoint ties to even: Inf
  EXPECT_EQ(EncodeFp16(-1e300), 0xFC00);
  EXPECT_EQ(EncodeFp16(0x1p-26), 0x0000);   // a quarter of the smallest subnormal
  EXPECT_EQ(EncodeFp16(-0x1p-26), 0x8000);  // keeps the sign of zero
}

TEST(FloatFormatCodecsTest, Bf16EncoderRoundsToNearestEven) {
  CheckEncoderAgainstDecoder(&DecodeBf16, &EncodeBf16, 0x7F80);
}

// For a double that is a binary32, rounding to bf16 is rounding away the low
// 16 bits of the binary32 ties to even: (bits + 0x7FFF + lsb) >> 16.
TEST(FloatFormatCodecsTest, Bf16EncoderMatchesBinary32BitRoundingOnRandomFloats) {
  std::mt19937 rng(20261201);
  for (int i = 0; i < 200000; ++i) {
    const uint32_t bits = static_cast<uint32_t>(rng());
    const float f = BitCast<float>(bits);
    if (std::isnan(f) || std::isinf(f)) continue;
    const uint32_t rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16;
    ASSERT_EQ(EncodeBf16(f), rounded) << "binary32 0x" << std::hex << bits;
  }
}

}  // namespace
}  // namespace teplug::cli
