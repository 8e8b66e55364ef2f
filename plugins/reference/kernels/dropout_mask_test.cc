// Tests of the documented dropout mapping: determinism, the exact word/counter
// mapping, keep rate, and sensitivity to offset and seed.
#include "plugins/reference/kernels/dropout_mask.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "plugins/reference/kernels/philox.h"

namespace teplug {
namespace reference {
namespace {

constexpr DropoutGrid kGrid{/*batch=*/3, /*heads=*/4, /*max_sq=*/33,
                            /*max_skv=*/47};

TEST(DropoutMaskTest, SameInputsGiveSameUniform) {
  const DropoutStream stream{0x0123456789ABCDEFull, 17};
  for (int64_t j = 0; j < kGrid.max_skv; ++j) {
    EXPECT_EQ(DropoutUniform(stream, kGrid, 2, 3, 32, j),
              DropoutUniform(stream, kGrid, 2, 3, 32, j));
  }
}

// Recomputes u from Philox directly, following the header's comment step by
// step with plain arithmetic, for a spread of elements.
TEST(DropoutMaskTest, FollowsTheDocumentedMapping) {
  const DropoutStream stream{0xFEDCBA9876543210ull, 1000};
  for (int64_t b = 0; b < kGrid.batch; ++b) {
    for (int64_t h = 0; h < kGrid.heads; h += 3) {
      for (int64_t i = 0; i < kGrid.max_sq; i += 7) {
        for (int64_t j = 0; j < kGrid.max_skv; j += 5) {
          const uint64_t linear =
              static_cast<uint64_t>(j) +
              static_cast<uint64_t>(kGrid.max_skv) *
                  (static_cast<uint64_t>(i) +
                   static_cast<uint64_t>(kGrid.max_sq) *
                       (static_cast<uint64_t>(h) +
                        static_cast<uint64_t>(kGrid.heads) * b));
          const uint64_t c = 1000 + linear / 4;
          const Philox4x32Block out = Philox4x32_10(
              Philox4x32Block{{static_cast<uint32_t>(c & 0xFFFFFFFFu),
                               static_cast<uint32_t>(c >> 32), 0, 0}},
              Philox4x32Key{{0x76543210u, 0xFEDCBA98u}});
          const double expected = out.word[linear % 4] / 4294967296.0;
          EXPECT_EQ(DropoutUniform(stream, kGrid, b, h, i, j), expected)
              << "b=" << b << " h=" << h << " i=" << i << " j=" << j;
        }
      }
    }
  }
}

// offset + linear/4 is a 128-bit sum: overflow of the low 64 bits carries into
// counter word 2.
TEST(DropoutMaskTest, CounterCarriesIntoThirdWord) {
  const DropoutStream stream{42, std::numeric_limits<uint64_t>::max()};
  // Element with linear index 4..7 uses block offset + 1 = 2^64.
  const DropoutGrid grid{1, 1, 1, 8};
  const Philox4x32Block out = Philox4x32_10(Philox4x32Block{{0, 0, 1, 0}},
                                            Philox4x32Key{{42, 0}});
  for (int64_t j = 4; j < 8; ++j) {
    EXPECT_EQ(DropoutUniform(stream, grid, 0, 0, 0, j),
              std::ldexp(static_cast<double>(out.word[j - 4]), -32));
  }
}

// Keep rate: N = 3*4*33*47 = 18612 independent Bernoulli(1-p) draws; the
// standard deviation of the rate is sqrt(p(1-p)/N) <= 0.0037, and we allow
// 5 standard deviations.
TEST(DropoutMaskTest, KeepRateMatchesOneMinusP) {
  const DropoutStream stream{20240601, 0};
  const double n = static_cast<double>(kGrid.batch * kGrid.heads *
                                       kGrid.max_sq * kGrid.max_skv);
  for (double p : {0.1, 0.3, 0.5, 0.9}) {
    double kept = 0;
    double uniform_sum = 0;
    for (int64_t b = 0; b < kGrid.batch; ++b)
      for (int64_t h = 0; h < kGrid.heads; ++h)
        for (int64_t i = 0; i < kGrid.max_sq; ++i)
          for (int64_t j = 0; j < kGrid.max_skv; ++j) {
            const double u = DropoutUniform(stream, kGrid, b, h, i, j);
            ASSERT_GE(u, 0.0);
            ASSERT_LT(u, 1.0);
            uniform_sum += u;
            kept += DropoutKeep(stream, kGrid, p, b, h, i, j) ? 1 : 0;
          }
    const double sigma = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(kept / n, 1 - p, 5 * sigma) << "p=" << p;
    // Mean of U(0,1) has sd sqrt(1/12/N) ~= 0.0021; 5 sd allowed.
    EXPECT_NEAR(uniform_sum / n, 0.5, 5 * std::sqrt(1.0 / 12.0 / n));
  }
}

// Different offsets (and seeds) give different masks: with p = 0.5 two
// independent masks agree on about half of the elements.
TEST(DropoutMaskTest, DifferentOffsetOrSeedGivesDifferentMask) {
  const DropoutStream base{7, 0};
  const DropoutStream other_offset{7, 1000003};
  const DropoutStream other_seed{8, 0};
  int64_t total = 0, same_offset = 0, same_seed = 0;
  for (int64_t h = 0; h < kGrid.heads; ++h)
    for (int64_t i = 0; i < kGrid.max_sq; ++i)
      for (int64_t j = 0; j < kGrid.max_skv; ++j) {
        const bool keep = DropoutKeep(base, kGrid, 0.5, 1, h, i, j);
        same_offset += keep == DropoutKeep(other_offset, kGrid, 0.5, 1, h, i, j);
        same_seed += keep == DropoutKeep(other_seed, kGrid, 0.5, 1, h, i, j);
        ++total;
      }
  // 6204 draws: agreement fraction 0.5 +- 0.0064 (1 sd); allow 0.05.
  EXPECT_NEAR(static_cast<double>(same_offset) / total, 0.5, 0.05);
  EXPECT_NEAR(static_cast<double>(same_seed) / total, 0.5, 0.05);
}

TEST(DropoutMaskTest, FactorIsInverseKeepProbabilityOrZero) {
  const DropoutStream stream{99, 5};
  int64_t zeros = 0, scaled = 0;
  for (int64_t j = 0; j < kGrid.max_skv; ++j) {
    const double f = DropoutFactor(stream, kGrid, 0.25, 0, 1, 2, j);
    if (f == 0.0) {
      ++zeros;
      EXPECT_FALSE(DropoutKeep(stream, kGrid, 0.25, 0, 1, 2, j));
    } else {
      ++scaled;
      EXPECT_DOUBLE_EQ(f, 1.0 / 0.75);
    }
  }
  EXPECT_GT(zeros, 0);
  EXPECT_GT(scaled, 0);
  // p = 0 keeps everything.
  for (int64_t j = 0; j < kGrid.max_skv; ++j) {
    EXPECT_EQ(DropoutFactor(stream, kGrid, 0.0, 0, 1, 2, j), 1.0);
  }
}

TEST(DropoutMaskTest, ValidationNamesTheProblem) {
  EXPECT_TRUE(ValidateDropoutGrid(kGrid).ok());
  const absl::Status bad_grid = ValidateDropoutGrid(DropoutGrid{2, 0, 3, 4});
  EXPECT_EQ(bad_grid.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_grid.message().find("heads"), std::string::npos)
      << bad_grid.message();
  EXPECT_TRUE(ValidateDropoutProbability(0.0).ok());
  EXPECT_TRUE(ValidateDropoutProbability(0.999).ok());
  EXPECT_FALSE(ValidateDropoutProbability(1.0).ok());
  EXPECT_FALSE(ValidateDropoutProbability(-0.1).ok());
  EXPECT_FALSE(ValidateDropoutProbability(std::nan("")).ok());
}

}  // namespace
}  // namespace reference
}  // namespace teplug
