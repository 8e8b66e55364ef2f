// The native quantizer's element math (element_formats.h, scale_math.h),
// compiled for the host, against the reference provider's numerics
// (plugins/reference/numerics), bit for bit: every fp8 / fp16 / bf16 code
// decoded, and encoders, scales and MX block scales on random inputs that
// include NaN, +-Inf, subnormals, exact ties and the saturation boundary.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "native/quantize/element_formats.h"
#include "native/quantize/scale_math.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/numerics/mx_scaling.h"
#include "plugins/reference/numerics/per_tensor_scaling.h"
#include "plugins/reference/numerics/scale_from_amax.h"

namespace teplug::native::quantize {
namespace {

namespace ref = ::teplug::reference;

constexpr Fp8Kind kKinds[] = {Fp8Kind::kE4M3, Fp8Kind::kE5M2};

ref::Fp8Format RefFormat(Fp8Kind k) {
  return k == Fp8Kind::kE4M3 ? ref::Fp8Format::kE4M3 : ref::Fp8Format::kE5M2;
}
const char* Name(Fp8Kind k) { return k == Fp8Kind::kE4M3 ? "e4m3" : "e5m2"; }

// Equal as bit patterns; any two NaNs of the same sign count as equal, and
// of any sign when `nan_sign_matters` is false (the sign of a NaN that an
// arithmetic operation produced is unspecified: x86 and GPUs differ).
::testing::AssertionResult SameFloat(float expected, float actual, bool nan_sign_matters = true) {
  if (std::isnan(expected) && std::isnan(actual) &&
      (!nan_sign_matters || std::signbit(expected) == std::signbit(actual))) {
    return ::testing::AssertionSuccess();
  }
  if (FloatBits(expected) == FloatBits(actual)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << std::hexfloat << "expected " << expected << " (0x" << std::hex << FloatBits(expected)
         << "), got " << actual << " (0x" << FloatBits(actual) << ")";
}

// Random floats that hit every hard case of a format whose largest finite
// value is `max_finite`: random bit patterns (all exponents, subnormals,
// NaN payloads), +-0, +-Inf, NaN, every exact midpoint between neighbouring
// codes of `codes` and the floats next to it, and values around max_finite.
std::vector<float> HardFloats(const std::vector<float>& code_values, float max_finite,
                              uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v = {0.0f,
                          -0.0f,
                          INFINITY,
                          -INFINITY,
                          NAN,
                          -NAN,
                          FLT_MAX,
                          -FLT_MAX,
                          FLT_MIN,
                          BitsToFloat(1u),
                          BitsToFloat(0x80000001u)};
  for (int i = 0; i < 20000; ++i) v.push_back(BitsToFloat(rng()));
  std::vector<float> finite;
  for (float c : code_values) {
    if (std::isfinite(c) && c >= 0.0f) finite.push_back(c);
  }
  std::sort(finite.begin(), finite.end());
  for (size_t i = 0; i + 1 < finite.size(); ++i) {
    const float mid = (finite[i] + finite[i + 1]) / 2.0f;  // exact: few significant bits
    for (float m : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY), finite[i]}) {
      v.push_back(m);
      v.push_back(-m);
    }
  }
  // The saturation boundary: max, the tie above it, the first overflow, far beyond.
  const float top = max_finite;
  const float step = top - finite[finite.size() - 2];
  for (float b : {top, top + step / 2, top + step, top * 2, std::nextafter(top + step / 2, 0.0f),
                  std::nextafter(top + step / 2, INFINITY), std::nextafter(top, INFINITY)}) {
    v.push_back(b);
    v.push_back(-b);
  }
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (int i = 0; i < 20000; ++i) v.push_back(unit(rng) * max_finite * 1.2f);
  for (int i = 0; i < 5000; ++i)
    v.push_back(unit(rng) * finite[1] * 4.0f);  // fp8/fp16 subnormal range
  return v;
}

std::vector<float> AllFp8Values(Fp8Kind k) {
  std::vector<float> v;
  for (int c = 0; c < 256; ++c) v.push_back(ref::DecodeFp8(RefFormat(k), static_cast<uint8_t>(c)));
  return v;
}

TEST(Fp8Decode, EveryCodeMatchesTheReference) {
  for (Fp8Kind k : kKinds) {
    for (int c = 0; c < 256; ++c) {
      EXPECT_TRUE(SameFloat(ref::DecodeFp8(RefFormat(k), static_cast<uint8_t>(c)),
                            DecodeFp8(static_cast<uint8_t>(c), k)))
          << Name(k) << " code 0x" << std::hex << c;
    }
  }
}

TEST(Fp8Encode, SaturatingNearestEvenMatchesTheReference) {
  for (Fp8Kind k : kKinds) {
    const Fp8Layout f = LayoutOf(k);
    for (float x : HardFloats(AllFp8Values(k), f.max_normal, 11)) {
      ASSERT_EQ(ref::EncodeFp8(RefFormat(k), static_cast<double>(x), /*saturate=*/true),
                EncodeFp8(x, k))
          << Name(k) << " of " << std::hexfloat << x;
    }
  }
}

TEST(Fp8Encode, EveryCodeRoundTrips) {
  for (Fp8Kind k : kKinds) {
    for (int c = 0; c < 256; ++c) {
      const float value = DecodeFp8(static_cast<uint8_t>(c), k);
      if (std::isnan(value) || std::isinf(value)) continue;
      EXPECT_EQ(c, EncodeFp8(value, k)) << Name(k);
    }
  }
}

std::vector<float> All16BitValues(float (*decode)(uint16_t)) {
  std::vector<float> v;
  for (uint32_t c = 0; c < 65536; c += 1) v.push_back(decode(static_cast<uint16_t>(c)));
  return v;
}

TEST(Fp16, EveryCodeDecodesAndRandomValuesEncodeLikeTheReference) {
  for (uint32_t c = 0; c < 65536; ++c) {
    ASSERT_TRUE(
        SameFloat(ref::DecodeFp16(static_cast<uint16_t>(c)), DecodeFp16(static_cast<uint16_t>(c))))
        << "fp16 0x" << std::hex << c;
  }
  for (float x : HardFloats(All16BitValues(&ref::DecodeFp16), 65504.0f, 12)) {
    ASSERT_EQ(ref::EncodeFp16(static_cast<double>(x)), EncodeFp16(x)) << std::hexfloat << x;
  }
}

TEST(Bf16, EveryCodeDecodesAndRandomValuesEncodeLikeTheReference) {
  for (uint32_t c = 0; c < 65536; ++c) {
    ASSERT_TRUE(
        SameFloat(ref::DecodeBf16(static_cast<uint16_t>(c)), DecodeBf16(static_cast<uint16_t>(c))))
        << "bf16 0x" << std::hex << c;
  }
  for (float x : HardFloats(All16BitValues(&ref::DecodeBf16), kBf16MaxFinite, 13)) {
    ASSERT_EQ(ref::EncodeBf16(static_cast<double>(x)), EncodeBf16(x)) << std::hexfloat << x;
  }
}

TEST(E8M0, EveryCodeMatchesTheReference) {
  for (int c = 0; c < 256; ++c) {
    EXPECT_TRUE(
        SameFloat(ref::DecodeE8M0(static_cast<uint8_t>(c)), DecodeE8M0(static_cast<uint8_t>(c))))
        << c;
  }
}

TEST(Amax, FoldSkipsNanLikeTheReference) {
  std::mt19937 rng(14);
  std::uniform_real_distribution<float> unit(-100.0f, 100.0f);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> x(1 + trial % 37);
    for (float& e : x) e = unit(rng);
    if (trial % 3 == 0) x[trial % x.size()] = NAN;
    if (trial % 5 == 0) x[(trial / 5) % x.size()] = -INFINITY;
    if (trial % 7 == 0) x[0] = BitsToFloat(0x80000005u);
    float acc = 0.0f;
    for (float e : x) acc = AmaxStep(acc, e);
    ASSERT_TRUE(SameFloat(ref::AbsMaxIgnoringNan(x.data(), x.size()), acc)) << "trial " << trial;
  }
}

// A delayed scale is used when the reference would accept it (finite and
// > 0) and is NaN otherwise.
TEST(UsableScale, FiniteAndPositiveOrNan) {
  std::mt19937 rng(16);
  std::vector<float> scales = {0.0f, -0.0f,   -1.0f,           INFINITY, -INFINITY, NAN,
                               -NAN, FLT_MIN, BitsToFloat(1u), FLT_MAX,  1.0f,      448.0f};
  for (int i = 0; i < 20000; ++i) scales.push_back(BitsToFloat(static_cast<uint32_t>(rng())));
  for (float s : scales) {
    const bool usable = std::isfinite(s) && s > 0.0f;
    if (usable) {
      ASSERT_TRUE(SameFloat(UsableScale(s), s)) << std::hexfloat << s;
    } else {
      ASSERT_TRUE(std::isnan(UsableScale(s))) << std::hexfloat << s;
    }
  }
}

TEST(ScaleFromAmax, MatchesTheReferenceForEveryOptionAndEdge) {
  std::mt19937 rng(15);
  std::vector<float> amaxes = {
      0.0f,     NAN,  INFINITY, FLT_MIN, BitsToFloat(1u), BitsToFloat(0x00123456u), 1e-38f, 448.0f,
      57344.0f, 1.0f, FLT_MAX,  1e-5f,   3e-36f};
  for (int i = 0; i < 20000; ++i) amaxes.push_back(BitsToFloat(rng() & 0x7FFFFFFFu));
  const float epsilons[] = {0.0f, 1e-12f, 0.5f};
  const float input_max[] = {kFp32MaxFinite, kFp16MaxFinite, kBf16MaxFinite};
  for (Fp8Kind k : kKinds) {
    const float fp8_max = LayoutOf(k).max_normal;
    for (float amax : amaxes) {
      for (float eps : epsilons) {
        for (float top : input_max) {
          for (bool pow2 : {false, true}) {
            ASSERT_TRUE(SameFloat(ref::ComputeScaleFromAmax(amax, fp8_max, pow2, eps, top),
                                  ScaleFromAmax(amax, fp8_max, pow2, eps, top)))
                << Name(k) << " amax " << std::hexfloat << amax << " eps " << eps << " pow2 "
                << pow2;
          }
        }
      }
    }
  }
}

// One MX block of 32 with the hard cases of the scale rules mixed in.
std::vector<float> RandomMxBlock(std::mt19937& rng, int trial) {
  std::uniform_int_distribution<int> exponent(-140, 127);
  std::uniform_real_distribution<float> significand(1.0f, 2.0f);
  std::vector<float> b(32);
  const int e = exponent(rng);
  for (float& x : b) {
    x = std::ldexp(significand(rng), e - static_cast<int>(rng() % 12)) *
        ((rng() & 1) ? -1.0f : 1.0f);
  }
  switch (trial % 9) {
    case 0:
      b[rng() % 32] = NAN;
      break;
    case 1:
      b[rng() % 32] = -INFINITY;
      break;
    case 2:
      std::fill(b.begin(), b.end(), 0.0f);
      break;
    case 3:
      b[rng() % 32] = std::ldexp(1.875f, e);
      break;  // significand above 1.75: the rules differ
    case 4:
      b[rng() % 32] = std::ldexp(1.75f, e);
      break;
    case 5:
      for (float& x : b) x = BitsToFloat(rng() & 0x007FFFFFu);
      break;  // subnormals
    default:
      break;
  }
  return b;
}

TEST(MxScale, BlockScaleAndCodesMatchTheReferenceUnderBothRules) {
  std::mt19937 rng(16);
  for (Fp8Kind k : kKinds) {
    for (MxRule rule : {MxRule::kOcp, MxRule::kTransformerEngine}) {
      const ref::MxScaleRule ref_rule =
          rule == MxRule::kOcp ? ref::MxScaleRule::kOcpSpec : ref::MxScaleRule::kTransformerEngine;
      for (int trial = 0; trial < 4000; ++trial) {
        const std::vector<float> block = RandomMxBlock(rng, trial);
        MxBlockSummary s;
        for (float x : block) MxBlockStep(s, x);
        const uint8_t code = MxScaleCode(s, k, rule);
        ASSERT_EQ(ref::MxBlockScale(block.data(), 32, 1, RefFormat(k), ref_rule), code)
            << Name(k) << " rule " << static_cast<int>(rule) << " trial " << trial;
        auto expected = ref::QuantizeMxfp8(block.data(), 1, 32, RefFormat(k), ref_rule, false);
        ASSERT_TRUE(expected.ok()) << expected.status();
        for (size_t i = 0; i < 32; ++i) {
          ASSERT_EQ(expected->data[i], MxEncodeElement(block[i], code, k, rule))
              << Name(k) << " trial " << trial << " element " << i << " " << std::hexfloat
              << block[i];
        }
        auto values = ref::DequantizeMxfp8(*expected, false);
        ASSERT_TRUE(values.ok()) << values.status();
        for (size_t i = 0; i < 32; ++i) {
          ASSERT_TRUE(SameFloat((*values)[i],
                                DequantizeElement(expected->data[i], k, DecodeE8M0(code)),
                                /*nan_sign_matters=*/false))
              << Name(k) << " trial " << trial << " element " << i;
        }
      }
    }
  }
}

TEST(PerTensorCast, CodesAndDequantizedValuesMatchTheReference) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (Fp8Kind k : kKinds) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<float> x(257);
      for (float& e : x) e = unit(rng) * std::ldexp(1.0f, static_cast<int>(rng() % 40) - 20);
      x[rng() % x.size()] = NAN;
      x[rng() % x.size()] = -NAN;  // the sign survives: GPUs' arithmetic would lose it
      x[rng() % x.size()] = INFINITY;
      x[rng() % x.size()] = BitsToFloat(0x00000301u);
      const float scale = std::ldexp(1.0f + unit(rng) * 0.5f, static_cast<int>(rng() % 30) - 10);
      auto expected =
          ref::QuantizeWithDelayedScaling(x.data(), 1, x.size(), scale, RefFormat(k), false);
      ASSERT_TRUE(expected.ok()) << expected.status();
      ASSERT_TRUE(SameFloat(expected->scale_inv, 1.0f / scale));
      std::vector<float> values(x.size());
      ASSERT_TRUE(ref::DequantizePerTensor(expected->data.data(), x.size(), RefFormat(k),
                                           expected->scale_inv, values.data())
                      .ok());
      for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(expected->data[i], EncodeScaled(x[i], scale, k))
            << Name(k) << " " << std::hexfloat << x[i];
        ASSERT_TRUE(SameFloat(values[i],
                              DequantizeElement(expected->data[i], k, expected->scale_inv),
                              /*nan_sign_matters=*/false));
      }
    }
  }
}

}  // namespace
}  // namespace teplug::native::quantize
