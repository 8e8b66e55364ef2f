// Checks per-tensor delayed and current FP8 scaling on random tensors:
// codes against the nearest-even table oracle applied to fp32(x * scale),
// amax against a plain max, the round trip against the format's error bound,
// the transpose, saturation, NaN handling and the delayed-scaling update.
#include "plugins/reference/numerics/per_tensor_scaling.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/numerics/fp8_code_oracle.h"

namespace teplug::reference {
namespace {

using testing::ExpectedSaturatingCode;
using testing::Fp8MaxFiniteCode;
using testing::Fp8Oracle;
using testing::SpecRoundingOracle;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// Random values with magnitudes spread over 2^-10 .. 2^10 times `magnitude`,
// random signs, no zeros.
std::vector<float> RandomTensor(size_t n, float magnitude, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> log2_spread(-10.0f, 10.0f);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> x(n);
  for (float& v : x) v = (negative(rng) ? -1.0f : 1.0f) * magnitude * std::exp2(log2_spread(rng));
  return x;
}

// Expected code of x under scale: the oracle's code of the fp32 product.
uint8_t ExpectedCode(const SpecRoundingOracle& oracle, Fp8Format format, float x, float scale) {
  return ExpectedSaturatingCode(oracle, format, x * scale);
}

float PlainAbsMax(const std::vector<float>& x) {
  float m = 0.0f;
  for (float v : x) {
    if (!std::isnan(v) && std::fabs(v) > m) m = std::fabs(v);
  }
  return m;
}

class PerTensorScalingTest : public ::testing::TestWithParam<Fp8Format> {};

TEST_P(PerTensorScalingTest, CurrentScalingCodesScaleAndRoundTrip) {
  const Fp8Format format = GetParam();
  const auto oracle = Fp8Oracle(format);
  const size_t rows = 37, cols = 53;
  for (float magnitude : {1e-3f, 1.0f, 3e4f}) {
    const std::vector<float> x = RandomTensor(rows * cols, magnitude, 17);
    auto q = QuantizeWithCurrentScaling(x.data(), rows, cols, format, {}, true);
    ASSERT_TRUE(q.ok()) << q.status();
    const float amax = PlainAbsMax(x);
    EXPECT_EQ(q->amax, amax);
    EXPECT_EQ(q->scale, static_cast<float>(double{Fp8MaxNormal(format)} / amax));
    EXPECT_EQ(q->scale_inv, 1.0f / q->scale);
    ASSERT_EQ(q->data.size(), rows * cols);
    ASSERT_EQ(q->columnwise_data.size(), rows * cols);
    std::vector<float> back(rows * cols);
    ASSERT_TRUE(DequantizePerTensor(q->data.data(), q->data.size(), format, q->scale_inv,
                                    back.data()).ok());
    // Bound: x*scale <= max normal, so each code is within half an ulp:
    // relative 2^-(m+1) for normal codes, plus half the smallest subnormal
    // step (in scaled units) for the tiny ones; fp32 products add ~2^-23.
    const int m = Fp8MantissaBits(format);
    const double abs_floor =
        std::ldexp(1.0, Fp8MinNormalExponent(format) - m - 1) / q->scale;
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < cols; ++c) {
        const size_t i = r * cols + c;
        ASSERT_EQ(q->data[i], ExpectedCode(oracle, format, x[i], q->scale)) << "element " << i;
        ASSERT_EQ(q->columnwise_data[c * rows + r], q->data[i]);
        const double err = std::fabs(double{back[i]} - double{x[i]});
        const double bound = std::ldexp(std::fabs(x[i]), -(m + 1)) * (1 + 1e-6) + abs_floor;
        ASSERT_LE(err, bound) << "x=" << x[i] << " back=" << back[i];
      }
    }
  }
}

TEST_P(PerTensorScalingTest, CurrentScalingPow2AndEpsilon) {
  const Fp8Format format = GetParam();
  const std::vector<float> x = RandomTensor(300, 0.1f, 5);
  CurrentScalingOptions options;
  options.force_pow2_scales = true;
  auto q = QuantizeWithCurrentScaling(x.data(), 1, x.size(), format, options, false);
  ASSERT_TRUE(q.ok()) << q.status();
  const double exact = double{Fp8MaxNormal(format)} / PlainAbsMax(x);
  EXPECT_EQ(q->scale, std::exp2(std::floor(std::log2(exact))));
  EXPECT_TRUE(q->columnwise_data.empty());
  // An epsilon larger than amax decides the scale.
  options.force_pow2_scales = false;
  options.amax_epsilon = 1e6f;
  q = QuantizeWithCurrentScaling(x.data(), 1, x.size(), format, options, false);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->scale, Fp8MaxNormal(format) / 1e6f);
  EXPECT_EQ(q->amax, PlainAbsMax(x)) << "amax reports the data, not the epsilon";
}

TEST_P(PerTensorScalingTest, DelayedScalingSaturatesAndKeepsNan) {
  const Fp8Format format = GetParam();
  const auto oracle = Fp8Oracle(format);
  const float max = Fp8MaxNormal(format);
  // A stale scale that is too large for this step: big values saturate.
  const std::vector<float> x = {0.3f, -max, 2 * max, -1e30f, kNan, 1.0f,
                                -std::numeric_limits<float>::infinity()};
  const float scale = 1.5f;
  auto q = QuantizeWithDelayedScaling(x.data(), 1, x.size(), scale, format, false);
  ASSERT_TRUE(q.ok()) << q.status();
  const uint8_t max_code = Fp8MaxFiniteCode(format);
  EXPECT_EQ(q->data[0], ExpectedCode(oracle, format, 0.3f, scale));
  EXPECT_EQ(q->data[1], 0x80 | max_code);
  EXPECT_EQ(q->data[2], max_code);
  EXPECT_EQ(q->data[3], 0x80 | max_code);
  EXPECT_TRUE(std::isnan(DecodeFp8(format, q->data[4])));
  EXPECT_EQ(q->data[5], ExpectedCode(oracle, format, 1.0f, scale));
  EXPECT_EQ(q->data[6], 0x80 | max_code) << "-Inf saturates like __NV_SATFINITE";
  EXPECT_EQ(q->amax, std::numeric_limits<float>::infinity());
  EXPECT_EQ(q->scale, scale);
  EXPECT_EQ(q->scale_inv, 1.0f / scale);
}

TEST_P(PerTensorScalingTest, DelayedScalingRandomTensorMatchesOracle) {
  const Fp8Format format = GetParam();
  const auto oracle = Fp8Oracle(format);
  const std::vector<float> x = RandomTensor(4096, 2.0f, 99);
  const float scale = 37.125f;
  auto q = QuantizeWithDelayedScaling(x.data(), 64, 64, scale, format, true);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->amax, PlainAbsMax(x));
  int saturated = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(q->data[i], ExpectedCode(oracle, format, x[i], scale)) << "x=" << x[i];
    saturated += std::fabs(x[i] * scale) > Fp8MaxNormal(format);
  }
  if (format == Fp8Format::kE4M3) {
    EXPECT_GT(saturated, 0) << "the test should reach saturation";
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, PerTensorScalingTest,
                         ::testing::Values(Fp8Format::kE4M3, Fp8Format::kE5M2),
                         [](const ::testing::TestParamInfo<Fp8Format>& info) {
                           return std::string(info.param == Fp8Format::kE4M3 ? "e4m3" : "e5m2");
                         });

TEST(PerTensorScaling, RejectsBadArgumentsWithClearMessages) {
  const std::vector<float> x = {1.0f, 2.0f};
  auto bad_scale = QuantizeWithDelayedScaling(x.data(), 1, 2, 0.0f, Fp8Format::kE4M3, false);
  EXPECT_EQ(bad_scale.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_scale.status().message().find("scale"), std::string::npos);
  auto nan_scale = QuantizeWithDelayedScaling(x.data(), 1, 2, kNan, Fp8Format::kE4M3, false);
  EXPECT_EQ(nan_scale.status().code(), absl::StatusCode::kInvalidArgument);
  auto null_input = QuantizeWithCurrentScaling(nullptr, 2, 3, Fp8Format::kE5M2, {}, false);
  EXPECT_EQ(null_input.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(null_input.status().message().find("[2, 3]"), std::string::npos)
      << null_input.status();
  CurrentScalingOptions negative_eps;
  negative_eps.amax_epsilon = -1.0f;
  EXPECT_FALSE(QuantizeWithCurrentScaling(x.data(), 1, 2, Fp8Format::kE4M3, negative_eps, false)
                   .ok());
  float out[2];
  EXPECT_FALSE(DequantizePerTensor(nullptr, 2, Fp8Format::kE4M3, 1.0f, out).ok());
  EXPECT_FALSE(UpdateDelayedScale(nullptr, 0, AmaxComputeAlgo::kMax, 1.0f, Fp8Format::kE4M3, 0)
                   .ok());
}

TEST(PerTensorScaling, ZeroTensorGetsScaleOne) {
  const std::vector<float> zeros(10, 0.0f);
  auto q = QuantizeWithCurrentScaling(zeros.data(), 2, 5, Fp8Format::kE4M3, {}, false);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->scale, 1.0f);
  EXPECT_EQ(q->amax, 0.0f);
  for (uint8_t code : q->data) EXPECT_EQ(code, 0);
}

TEST(UpdateDelayedScale, HistoryReductionMarginAndFallback) {
  // history[0] is the most recent step.
  const std::vector<float> history = {2.0f, 8.0f, 0.5f, 4.0f};
  auto most_recent = UpdateDelayedScale(history.data(), history.size(),
                                        AmaxComputeAlgo::kMostRecent, 1.0f, Fp8Format::kE4M3, 0);
  ASSERT_TRUE(most_recent.ok());
  EXPECT_EQ(most_recent->scale, 224.0f);
  EXPECT_EQ(most_recent->scale_inv, 1.0f / 224.0f);
  auto max = UpdateDelayedScale(history.data(), history.size(), AmaxComputeAlgo::kMax, 1.0f,
                                Fp8Format::kE5M2, 1.0f);
  ASSERT_TRUE(max.ok());
  EXPECT_EQ(max->scale, 57344.0f / 2 / 8.0f);  // margin 1 halves fp8_max
  // amax 0 or Inf keeps the previous scale.
  const std::vector<float> zero = {0.0f};
  auto kept = UpdateDelayedScale(zero.data(), 1, AmaxComputeAlgo::kMax, 3.0f, Fp8Format::kE4M3, 0);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->scale, 3.0f);
  EXPECT_EQ(kept->scale_inv, 1.0f / 3.0f);
  const std::vector<float> inf = {std::numeric_limits<float>::infinity()};
  kept = UpdateDelayedScale(inf.data(), 1, AmaxComputeAlgo::kMostRecent, 5.0f, Fp8Format::kE4M3, 0);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->scale, 5.0f);
}

}  // namespace
}  // namespace teplug::reference
