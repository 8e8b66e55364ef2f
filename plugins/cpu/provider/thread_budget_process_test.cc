// A one-thread budget keeps oneDNN from starting OpenMP worker threads: after
// GEMMs large enough to be split, the process still has only its own thread.
// Without the budget OpenMP starts one worker per further core, so the test
// needs at least two (it is skipped on one).
#include <dirent.h>

#include <random>
#include <thread>

#include "gtest/gtest.h"
#include "plugins/cpu/provider/gemm_provider.h"
#include "plugins/cpu/provider/testing/test_matrix.h"

namespace teplug::cpu::provider {
namespace {

int ThreadsOfThisProcess() {
  int count = 0;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return -1;
  while (const dirent* e = readdir(tasks)) {
    if (e->d_name[0] != '.') ++count;
  }
  closedir(tasks);
  return count;
}

TEST(ThreadBudgetProcessTest, AOneThreadBudgetStartsNoWorkers) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: nothing to split";
  const int before = ThreadsOfThisProcess();
  ASSERT_GT(before, 0);
  CpuGemm gemm(kGemmPlanCacheCapacity, /*threads=*/1);
  std::mt19937_64 rng(5);
  for (int32_t dtype : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16}) {
    testing::TestMatrix a(dtype, 256, 256), b(dtype, 256, 256), d(dtype, 256, 256);
    a.FillRandom(rng);
    b.FillRandom(rng);
    TeplugGemmArgs args{};
    args.struct_size = sizeof(args);
    args.a = a.tensor(), args.b = b.tensor(), args.d = d.tensor(), args.alpha = 1.f;
    ASSERT_TRUE(gemm.Run(args).ok());
  }
  EXPECT_EQ(ThreadsOfThisProcess(), before);
}

}  // namespace
}  // namespace teplug::cpu::provider
