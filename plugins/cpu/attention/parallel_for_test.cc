// ParallelFor runs every index once on any thread count, and an exception
// thrown on a worker reaches the caller instead of ending the process.
#include "plugins/cpu/attention/parallel_for.h"

#include <atomic>
#include <stdexcept>
#include <vector>

#include "gtest/gtest.h"

namespace teplug::cpu::attention {
namespace {

TEST(ParallelForTest, RunsEveryIndexOnce) {
  for (int threads : {0, 1, 3, 64}) {
    std::vector<std::atomic<int>> hits(100);
    ParallelFor(100, threads, [&](int64_t i) { hits[i].fetch_add(1); });
    for (const auto& h : hits) EXPECT_EQ(h.load(), 1) << threads << " threads";
  }
}

TEST(ParallelForTest, AWorkersExceptionReachesTheCaller) {
  for (int threads : {1, 4}) {
    EXPECT_THROW(ParallelFor(50, threads,
                             [](int64_t i) {
                               if (i == 17) throw std::runtime_error("item 17");
                             }),
                 std::runtime_error);
  }
}

}  // namespace
}  // namespace teplug::cpu::attention
