// Checks TE's amax -> scale rule: each special case of
// compute_scale_from_amax, and on random amaxes the scale against an fp64
// oracle (fp8_max / amax in double, rounded once to float: double has more
// than 2*24+2 bits, so this equals the correctly rounded fp32 division).
#include "plugins/reference/numerics/scale_from_amax.h"

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace teplug::reference {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(AbsMaxIgnoringNan, SkipsNanKeepsInfAndHonoursStride) {
  const std::vector<float> x = {1.5f, -7.25f, kNan, 3.0f, -0.5f, 2.0f};
  EXPECT_EQ(AbsMaxIgnoringNan(x.data(), x.size()), 7.25f);
  EXPECT_EQ(AbsMaxIgnoringNan(x.data(), 3, 2), 1.5f);      // 1.5, nan, -0.5
  EXPECT_EQ(AbsMaxIgnoringNan(x.data() + 1, 3, 2), 7.25f);  // -7.25, 3, 2
  EXPECT_EQ(AbsMaxIgnoringNan(x.data(), 0), 0.0f);
  const std::vector<float> with_inf = {1.0f, -kInf, kNan};
  EXPECT_EQ(AbsMaxIgnoringNan(with_inf.data(), with_inf.size()), kInf);
  const std::vector<float> all_nan = {kNan, kNan};
  EXPECT_EQ(AbsMaxIgnoringNan(all_nan.data(), all_nan.size()), 0.0f);
}

TEST(ComputeScaleFromAmax, SpecialCasesFollowTransformerEngine) {
  // Zero, Inf and NaN amax give scale 1.
  EXPECT_EQ(ComputeScaleFromAmax(0.0f, 448.0f, false, 0.0f, FLT_MAX), 1.0f);
  EXPECT_EQ(ComputeScaleFromAmax(kInf, 448.0f, false, 0.0f, FLT_MAX), 1.0f);
  EXPECT_EQ(ComputeScaleFromAmax(kNan, 448.0f, true, 1e-3f, FLT_MAX), 1.0f);
  // Epsilon raises a small amax (including 0).
  EXPECT_EQ(ComputeScaleFromAmax(0.0f, 448.0f, false, 0.5f, FLT_MAX), 896.0f);
  EXPECT_EQ(ComputeScaleFromAmax(0.25f, 448.0f, false, 0.5f, FLT_MAX), 896.0f);
  EXPECT_EQ(ComputeScaleFromAmax(2.0f, 448.0f, false, 0.5f, FLT_MAX), 224.0f);
  // fp8_max / amax overflowing fp32 takes the input dtype's max finite value.
  const float tiny = std::ldexp(1.0f, -140);  // 448 / 2^-140 > FLT_MAX
  EXPECT_EQ(ComputeScaleFromAmax(tiny, 448.0f, false, 0.0f, 65504.0f), 65504.0f);
  // ...and with pow2 scales that value is rounded down too (65504 -> 32768).
  EXPECT_EQ(ComputeScaleFromAmax(tiny, 448.0f, true, 0.0f, 65504.0f), 32768.0f);
  EXPECT_EQ(ComputeScaleFromAmax(tiny, 448.0f, true, 0.0f, FLT_MAX), std::ldexp(1.0f, 127));
  // pow2: 448 / 3 = 149.33 -> 128; exact powers stay.
  EXPECT_EQ(ComputeScaleFromAmax(3.0f, 448.0f, true, 0.0f, FLT_MAX), 128.0f);
  EXPECT_EQ(ComputeScaleFromAmax(7.0f, 448.0f, true, 0.0f, FLT_MAX), 64.0f);
}

TEST(ComputeScaleFromAmax, RandomAmaxMatchesTheFp64Oracle) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> log2_amax(-120.0, 120.0);
  for (int i = 0; i < 100000; ++i) {
    const float amax = static_cast<float>(std::exp2(log2_amax(rng)));
    for (float fp8_max : {448.0f, 57344.0f}) {
      const double exact = static_cast<double>(fp8_max) / static_cast<double>(amax);
      // A quotient beyond fp32 takes value_for_inf (FLT_MAX here).
      const float expected = exact > FLT_MAX ? FLT_MAX : static_cast<float>(exact);
      ASSERT_EQ(ComputeScaleFromAmax(amax, fp8_max, false, 0.0f, FLT_MAX), expected)
          << "amax=" << amax;
      // pow2: the largest power of two not above the fp32 quotient.
      const float pow2 = ComputeScaleFromAmax(amax, fp8_max, true, 0.0f, FLT_MAX);
      int exponent;
      ASSERT_EQ(std::frexp(pow2, &exponent), 0.5f) << "not a power of two: " << pow2;
      ASSERT_LE(pow2, expected);
      ASSERT_GT(2.0 * pow2, static_cast<double>(expected));
    }
  }
}

}  // namespace
}  // namespace teplug::reference
