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

TEST(CpuThreadBudgetTest, TheVariableWinsOverTheConfigOption) {
  EXPECT_EQ(*CpuThreadBudget("3", std::string("5")), 3);
  EXPECT_EQ(*CpuThreadBudget(nullptr, std::string("5")), 5);
  EXPECT_EQ(*CpuThreadBudget("", std::string("5")), 5) << "an empty variable is unset";
  EXPECT_EQ(*CpuThreadBudget(nullptr, std::nullopt), 0);
}

TEST(CpuThreadBudgetTest, ABadOptionNamesTheOptionAndTheValue) {
  for (const char* bad : {"", "0", "many", "9999"}) {
    const absl::StatusOr<int> parsed = CpuThreadBudget(nullptr, std::string(bad));
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(parsed.status().message(),
                HasSubstr(std::string("config option threads=\"") + bad + "\" of provider cpu is not a thread count"));
  }
  EXPECT_THAT(CpuThreadBudget("x", std::string("2")).status().message(), HasSubstr("TEPLUG_CPU_THREADS=\"x\""))
      << "a bad variable is reported, not hidden by a good option";
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
