// AbiRangesOverlap decides whether a plugin's ABI range meets the host's (at
// the entry and in the staging registrar). It is checked against its
// definition: two inclusive ranges overlap when both are non-empty and some
// version lies in both. Every combination of bounds drawn from a few adjacent
// versions is tried, so equal bounds, bounds one apart and inverted (empty)
// ranges on either side are all covered.
#include "core/loader/abi_range.h"

#include <vector>

#include "gtest/gtest.h"

namespace teplug::core {
namespace {

// Adjacent versions, including a major change and the minor/major carry.
const std::vector<uint32_t> kVersions = {
    TEPLUG_ABI_VERSION(0, 0xFFFF), TEPLUG_ABI_VERSION(1, 0), TEPLUG_ABI_VERSION(1, 1),
    TEPLUG_ABI_VERSION(1, 2),      TEPLUG_ABI_VERSION(2, 0),
};

// The definition, by enumeration over the versions above (every bound is
// one of them, so a shared version exists iff one of them is shared).
bool OverlapByDefinition(uint32_t a_min, uint32_t a_max, uint32_t b_min, uint32_t b_max) {
  for (uint32_t v : kVersions) {
    if (a_min <= v && v <= a_max && b_min <= v && v <= b_max) return true;
  }
  return false;
}

TEST(AbiRangeTest, OverlapMatchesTheDefinitionForEveryBoundCombination) {
  int overlapping = 0;
  for (uint32_t a_min : kVersions) {
    for (uint32_t a_max : kVersions) {
      for (uint32_t b_min : kVersions) {
        for (uint32_t b_max : kVersions) {
          const bool expected = OverlapByDefinition(a_min, a_max, b_min, b_max);
          overlapping += expected;
          EXPECT_EQ(AbiRangesOverlap(a_min, a_max, b_min, b_max), expected)
              << AbiRangeString(a_min, a_max) << " vs " << AbiRangeString(b_min, b_max);
        }
      }
    }
  }
  // Both answers occur often enough for the sweep to mean something.
  EXPECT_GT(overlapping, 50);
  EXPECT_LT(overlapping, 625 - 50);
}

TEST(AbiRangeTest, AnInvertedRangeOverlapsNothing) {
  const uint32_t v10 = TEPLUG_ABI_VERSION(1, 0), v11 = TEPLUG_ABI_VERSION(1, 1);
  const uint32_t v20 = TEPLUG_ABI_VERSION(2, 0);
  // The plugin's range inverted, the host's covering both bounds.
  EXPECT_FALSE(AbiRangesOverlap(v11, v10, v10, v20));
  // The host's range inverted.
  EXPECT_FALSE(AbiRangesOverlap(v10, v20, v11, v10));
  // Inverted by one minor version against a one-version host range at either bound.
  EXPECT_FALSE(AbiRangesOverlap(v11, v10, v10, v10));
  EXPECT_FALSE(AbiRangesOverlap(v11, v10, v11, v11));
}

TEST(AbiRangeTest, SingleVersionRangesOverlapOnlyWhenEqual) {
  const uint32_t v10 = TEPLUG_ABI_VERSION(1, 0), v11 = TEPLUG_ABI_VERSION(1, 1);
  EXPECT_TRUE(AbiRangesOverlap(v10, v10, v10, v10));
  EXPECT_FALSE(AbiRangesOverlap(v10, v10, v11, v11));
  EXPECT_FALSE(AbiRangesOverlap(v11, v11, v10, v10));
}

TEST(AbiRangeTest, RangesThatTouchAtOneBoundOverlap) {
  const uint32_t v10 = TEPLUG_ABI_VERSION(1, 0), v11 = TEPLUG_ABI_VERSION(1, 1);
  const uint32_t v12 = TEPLUG_ABI_VERSION(1, 2);
  EXPECT_TRUE(AbiRangesOverlap(v10, v11, v11, v12));
  EXPECT_TRUE(AbiRangesOverlap(v11, v12, v10, v11));
  EXPECT_FALSE(AbiRangesOverlap(v10, v10, v11, v12));
  EXPECT_FALSE(AbiRangesOverlap(v11, v12, v10, v10));
}

TEST(AbiRangeTest, RangeStringPrintsMajorDotMinor) {
  EXPECT_EQ(AbiRangeString(TEPLUG_ABI_VERSION(1, 0), TEPLUG_ABI_VERSION(2, 3)), "[1.0, 2.3]");
  EXPECT_EQ(AbiRangeString(TEPLUG_ABI_VERSION(0, 65535), TEPLUG_ABI_VERSION(65535, 0)), "[0.65535, 65535.0]");
}

}  // namespace
}  // namespace teplug::core
