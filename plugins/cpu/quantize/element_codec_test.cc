// The cpu quantizer's element conversions against the reference provider's
// (plugins/reference/numerics/float_formats.h, which rounds from fp64 by the
// spec formula): every fp16/bf16/fp8 code, and fp32 inputs covering every
// sign/exponent/upper-mantissa pattern with low-mantissa patterns that hit
// ties, just-below and just-above ties, plus the fp8 rounding midpoints.
#include "plugins/cpu/quantize/element_codec.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/numerics/float_formats.h"

namespace teplug::cpu::quantize {
namespace {

namespace ref = ::teplug::reference;

// Every (upper 16 bits) x a set of lower-16-bit patterns: all exponents,
// signs, NaN payloads, subnormals; ties and their neighbours for bf16 and for
// formats with fewer mantissa bits (the upper bits cover those).
std::vector<uint32_t> Fp32Patterns() {
  std::vector<uint32_t> out;
  std::mt19937 rng(7);
  for (uint32_t hi = 0; hi < 0x10000u; ++hi) {
    for (uint32_t lo : {0x0000u, 0x0001u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu,
                        static_cast<uint32_t>(rng() & 0xFFFFu)}) {
      out.push_back((hi << 16) | lo);
    }
  }
  return out;
}

// Midpoints between neighbouring fp8 values (and their fp32 neighbours), where
// nearest-even decides, plus the saturation boundary.
std::vector<float> Fp8Midpoints(ref::Fp8Format format) {
  std::vector<float> out;
  for (int c = 0; c < 0x7F; ++c) {
    const double lo = ref::DecodeFp8(format, static_cast<uint8_t>(c));
    const double hi = ref::DecodeFp8(format, static_cast<uint8_t>(c + 1));
    if (!std::isfinite(lo) || !std::isfinite(hi)) continue;
    const float mid = static_cast<float>((lo + hi) / 2);
    for (float v : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
      out.push_back(v);
      out.push_back(-v);
    }
  }
  const float max = ref::Fp8MaxNormal(format);
  for (float v : {max, std::nextafter(max, INFINITY), max * 1.0625f, max * 1.125f, FLT_MAX,
                  INFINITY}) {
    out.push_back(v);
    out.push_back(-v);
  }
  return out;
}

float FromBits(uint32_t u) { return BitsFloat(u); }

TEST(ElementCodecTest, FloatToFp8MatchesReferenceOnEveryPatternAndMidpoint) {
  for (Fp8Kind kind : {Fp8Kind::kE4M3, Fp8Kind::kE5M2}) {
    const ref::Fp8Format format =
        kind == Fp8Kind::kE4M3 ? ref::Fp8Format::kE4M3 : ref::Fp8Format::kE5M2;
    std::vector<float> inputs = Fp8Midpoints(format);
    for (uint32_t u : Fp32Patterns()) inputs.push_back(FromBits(u));
    int mismatches = 0;
    for (float x : inputs) {
      const uint8_t got = kind == Fp8Kind::kE4M3 ? FloatToFp8<Fp8Kind::kE4M3>(x)
                                                 : FloatToFp8<Fp8Kind::kE5M2>(x);
      const uint8_t want = ref::EncodeFp8(format, x, /*saturate=*/true);
      if (got != want && ++mismatches <= 10) {
        ADD_FAILURE() << ref::Fp8FormatName(format) << " of " << x << " (bits 0x" << std::hex
                      << FloatBits(x) << "): got 0x" << int{got} << ", reference 0x" << int{want};
      }
    }
    EXPECT_EQ(mismatches, 0);
  }
}

TEST(ElementCodecTest, FloatToFp16AndBf16MatchReference) {
  int mismatches = 0;
  for (uint32_t u : Fp32Patterns()) {
    const float x = FromBits(u);
    const uint16_t h = FloatToFp16(x), b = FloatToBf16(x);
    const uint16_t want_h = ref::EncodeFp16(x), want_b = ref::EncodeBf16(x);
    if ((h != want_h || b != want_b) && ++mismatches <= 10) {
      ADD_FAILURE() << "bits 0x" << std::hex << u << ": fp16 0x" << h << " vs 0x" << want_h
                    << ", bf16 0x" << b << " vs 0x" << want_b;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

void ExpectSameValue(float got, float want, const char* what, uint32_t code) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << " 0x" << std::hex << code;
    EXPECT_EQ(std::signbit(got), std::signbit(want)) << what << " 0x" << std::hex << code;
  } else {
    EXPECT_EQ(FloatBits(got), FloatBits(want)) << what << " 0x" << std::hex << code;
  }
}

TEST(ElementCodecTest, DecodersAreExactOnEveryCode) {
  for (uint32_t c = 0; c < 0x10000u; ++c) {
    ExpectSameValue(Fp16ToFloat(static_cast<uint16_t>(c)), ref::DecodeFp16(c), "fp16", c);
    ExpectSameValue(Bf16ToFloat(static_cast<uint16_t>(c)), ref::DecodeBf16(c), "bf16", c);
  }
  for (uint32_t c = 0; c < 0x100u; ++c) {
    ExpectSameValue(Fp8ToFloat(Fp8Kind::kE4M3, c), ref::DecodeFp8E4M3(c), "e4m3", c);
    ExpectSameValue(Fp8ToFloat(Fp8Kind::kE5M2, c), ref::DecodeFp8E5M2(c), "e5m2", c);
  }
}

}  // namespace
}  // namespace teplug::cpu::quantize
