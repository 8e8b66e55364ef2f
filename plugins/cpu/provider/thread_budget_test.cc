// TEPLUG_CPU_THREADS parsing (errors name the variable and value) and the
// scoped OpenMP thread count (set inside, restored after).
#include "plugins/cpu/provider/thread_budget.h"

#include <omp.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::cpu::provider {
namespace {

using ::testing::HasSubstr;

TEST(ParseCpuThreadsTest, UnsetOrEmptyIsNoBudget) {
  EXPECT_EQ(*ParseCpuThreads(nullptr), 0);
  EXPECT_EQ(*ParseCpuThreads(""), 0);
}

TEST(ParseCpuThreadsTest, ACountIsTheBudget) {
  EXPECT_EQ(*ParseCpuThreads("1"), 1);
  EXPECT_EQ(*ParseCpuThreads("12"), 12);
}

TEST(ParseCpuThreadsTest, AnythingElseNamesTheVariableAndTheValue) {
  for (const char* bad : {"0", "-2", "four", "4x", "5000"}) {
    const absl::StatusOr<int> parsed = ParseCpuThreads(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(parsed.status().message(),
                HasSubstr(std::string("TEPLUG_CPU_THREADS=\"") + bad + "\" is not a thread count"));
  }
}

TEST(ScopedOmpThreadsTest, SetsTheCountInsideAndRestoresItAfter) {
  const int before = omp_get_max_threads();
  const int budget = before + 3;
  {
    const ScopedOmpThreads scope(budget);
    EXPECT_EQ(omp_get_max_threads(), budget);
  }
  EXPECT_EQ(omp_get_max_threads(), before);
  {
    const ScopedOmpThreads none(0);
    EXPECT_EQ(omp_get_max_threads(), before);
  }
  EXPECT_EQ(omp_get_max_threads(), before);
}

}  // namespace
}  // namespace teplug::cpu::provider
