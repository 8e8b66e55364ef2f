// A one-thread budget keeps oneDNN from starting OpenMP worker threads: after
// GEMMs large enough to be split, the process still has only its own thread.
// Without the budget OpenMP starts one worker per further core, so the tests
// need at least two (they are skipped on one). The budget is checked given
// to the GEMM directly and given by the config's `threads` option to the
// built-in cpu provider of a kernel (through the host's get_option), with
// TEPLUG_CPU_THREADS unset so the option decides; a malformed option
// refuses cpu naming the option and the value.
#include <dirent.h>
#include <stdlib.h>

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "core/kernel/kernel.h"
#include "gtest/gtest.h"
#include "plugins/cpu/provider/gemm_provider.h"
#include "plugins/cpu/provider/testing/test_matrix.h"
#include "plugins/cpu/provider/thread_budget.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"

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

// Runs fp32 and bf16 GEMMs of 256 x 256 x 256 through `gemm` and checks
// that the process started no thread meanwhile.
void ExpectNoWorkersAfterGemms(const std::function<absl::Status(const TeplugGemmArgs&)>& gemm) {
  const int before = ThreadsOfThisProcess();
  ASSERT_GT(before, 0);
  std::mt19937_64 rng(5);
  for (int32_t dtype : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16}) {
    testing::TestMatrix a(dtype, 256, 256), b(dtype, 256, 256), d(dtype, 256, 256);
    a.FillRandom(rng);
    b.FillRandom(rng);
    TeplugGemmArgs args{};
    args.struct_size = sizeof(args);
    args.a = a.tensor(), args.b = b.tensor(), args.d = d.tensor(), args.alpha = 1.f;
    const absl::Status s = gemm(args);
    ASSERT_TRUE(s.ok()) << s;
  }
  EXPECT_EQ(ThreadsOfThisProcess(), before) << "OpenMP started workers: the budget did not hold";
}

class ThreadBudgetProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: nothing to split";
    ::unsetenv(kCpuThreadsVariable);
  }
};

TEST_F(ThreadBudgetProcessTest, AOneThreadBudgetStartsNoWorkers) {
  CpuGemm gemm(kGemmPlanCacheCapacity, /*threads=*/1);
  ExpectNoWorkersAfterGemms([&](const TeplugGemmArgs& args) { return gemm.Run(args); });
}

std::unique_ptr<core::Kernel> KernelWithCpuThreadsOption(const std::string& threads) {
  core::KernelOptions o;
  o.use_environment = false;
  o.config_text = "log_level: \"error\"\nproviders { name: \"cpu\" options { key: \"threads\" value: \"" + threads +
                  "\" } }\n";
  auto k = core::Kernel::Create(std::move(o));
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

TEST_F(ThreadBudgetProcessTest, AOneThreadBudgetFromTheConfigStartsNoWorkers) {
  auto k = KernelWithCpuThreadsOption("1");
  ASSERT_TRUE(k);
  auto gemm = k->Query<TeplugGemmV1>(sdk::kIidGemmV1);
  ASSERT_TRUE(gemm);
  core::ServedByRecorder served;
  ExpectNoWorkersAfterGemms([&](const TeplugGemmArgs& args) {
    sdk::OwnedError e(gemm->vtbl->gemm(gemm.get(), &args));
    if (!e.ok()) return absl::InternalError(e.message());
    if (served.last() != "cpu/onednn-matmul") return absl::InternalError("served by " + served.last());
    return absl::OkStatus();
  });
}

TEST_F(ThreadBudgetProcessTest, AMalformedOptionRefusesCpuNamingTheOptionAndValue) {
  auto k = KernelWithCpuThreadsOption("many");
  ASSERT_TRUE(k);
  bool refused = false;
  for (const core::LoadReportEntry& e : k->LoadReport()) {
    if (e.origin != "built-in cpu") continue;
    refused = !e.loaded;
    EXPECT_NE(e.reason.find("config option threads=\"many\" of provider cpu is not a thread count"),
              std::string::npos)
        << e.reason;
  }
  EXPECT_TRUE(refused) << core::FormatLoadReport(k->LoadReport());
}

}  // namespace
}  // namespace teplug::cpu::provider
