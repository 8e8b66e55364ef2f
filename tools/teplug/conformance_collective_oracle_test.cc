#include "tools/teplug/conformance_collective_oracle.h"

#include <cmath>

#include "gtest/gtest.h"

namespace teplug::cli {
namespace {

using Values = std::vector<std::vector<double>>;

TEST(CollectiveOracle, ReductionsOfThreeRanks) {
  CollectiveCase c;
  c.world = 3;
  c.count = 2;
  const Values in = {{3, -1}, {-2, 2}, {-2, 3}};
  const std::pair<int32_t, std::vector<double>> want[] = {{TEPLUG_REDUCE_SUM, {-1, 4}},
                                                          {TEPLUG_REDUCE_PROD, {12, -6}},
                                                          {TEPLUG_REDUCE_MIN, {-2, -1}},
                                                          {TEPLUG_REDUCE_MAX, {3, 3}}};
  for (const auto& [reduce, values] : want) {
    c.reduce = reduce;
    EXPECT_EQ(Oracle(c, in), Values(3, values)) << reduce;
  }
  // Integer averages round toward zero (collective.h): -1/3 -> 0, 4/3 -> 1.
  c.reduce = TEPLUG_REDUCE_AVG;
  c.dtype = TEPLUG_DTYPE_INT32;
  EXPECT_EQ(Oracle(c, in), Values(3, std::vector<double>{0, 1}));
}

TEST(CollectiveOracle, UnevenGatherScatterBroadcastAndRing) {
  CollectiveCase c;
  c.world = 3;
  c.count = 13;
  c.uneven = true;
  EXPECT_EQ(Counts(c), (std::vector<int64_t>{13, 2, 1}));
  c.op = "all_gather";
  const Values gathered = Oracle(c, {{1, 2}, {3}, {-1}});
  EXPECT_EQ(gathered, Values(3, std::vector<double>{1, 2, 3, -1}));
  c.op = "reduce_scatter";
  c.count = 13;
  const Values scattered(3, std::vector<double>(16, 1.0));
  const Values blocks = Oracle(c, scattered);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0], std::vector<double>(13, 3.0));
  EXPECT_EQ(blocks[1], std::vector<double>(2, 3.0));
  EXPECT_EQ(blocks[2], std::vector<double>(1, 3.0));
  c.uneven = false;
  c.op = "broadcast";  // the root is the last rank
  EXPECT_EQ(Oracle(c, {{1}, {2}, {3}}), Values(3, std::vector<double>{3}));
  c.op = "send_recv";  // each rank receives the previous rank's input
  EXPECT_EQ(Oracle(c, {{1}, {2}, {3}}), (Values{{3}, {1}, {2}}));
}

TEST(CollectiveOracle, FloatingAveragesAreExact) {
  CollectiveCase c;
  c.world = 3;
  c.count = 64;
  c.reduce = TEPLUG_REDUCE_AVG;
  const Values in = Inputs(c, 9);
  for (const std::vector<double>& rank : in)
    for (double v : rank) EXPECT_TRUE(v != 0 && std::fabs(v) <= 3 && v == std::trunc(v)) << v;
  const Values averages = Oracle(c, in);
  for (double v : averages[0]) EXPECT_EQ(v, std::trunc(v)) << "sum not divisible by 3";
}

}  // namespace
}  // namespace teplug::cli
