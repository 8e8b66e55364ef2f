// The cpu dropout mask equals the reference's (an independent
// implementation of attention.h's Philox mapping) for every element of a
// grid, including an offset whose counter carries past 64 bits, and rows
// starting at keys not aligned to a Philox block.
#include "plugins/cpu/attention/dropout_philox.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/kernels/dropout_mask.h"

namespace teplug::cpu::attention {
namespace {

void ExpectSameMask(uint64_t seed, uint64_t offset, double p) {
  const int64_t heads = 3, sq = 5, skv = 11;
  const reference::DropoutGrid grid{2, heads, sq, skv};
  const reference::DropoutStream stream{seed, offset};
  const DropoutMask mask(seed, offset, p, heads, sq, skv);
  int dropped = 0, compared = 0;
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t i = 0; i < sq; ++i) {
        for (int64_t j0 : {0, 3}) {  // block-aligned and not
          std::vector<float> factors(static_cast<size_t>(skv - j0));
          mask.RowFactors(b, h, i, j0, skv - j0, factors.data());
          for (int64_t j = j0; j < skv; ++j) {
            const bool keep = reference::DropoutKeep(stream, grid, p, b, h, i, j);
            EXPECT_EQ(factors[j - j0] != 0.0f, keep) << b << " " << h << " " << i << " " << j;
            EXPECT_FLOAT_EQ(factors[j - j0], keep ? static_cast<float>(1.0 / (1.0 - p)) : 0.0f);
            dropped += keep ? 0 : 1;
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, compared);
}

TEST(DropoutPhiloxTest, MatchesTheReferenceMask) {
  ExpectSameMask(0x0123456789abcdefull, 0, 0.3);
  ExpectSameMask(42, 1000, 0.75);
}

TEST(DropoutPhiloxTest, CounterCarriesPast64Bits) {
  ExpectSameMask(7, std::numeric_limits<uint64_t>::max() - 20, 0.5);
}

}  // namespace
}  // namespace teplug::cpu::attention
