// One CpuGemm called from several threads at once (IGemm methods may be
// called concurrently on one object): shared plans, plans evicted from a
// small cache while other threads still run them, per-thread buffers. Every
// result must equal the same GEMM run alone. Run under --config=tsan too.
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cpu/provider/gemm_provider.h"
#include "plugins/cpu/provider/testing/test_matrix.h"

namespace teplug::cpu::provider {
namespace {

using testing::TestMatrix;

// One GEMM's inputs and its result computed alone.
struct Problem {
  Problem(int64_t m, int32_t dtype, uint64_t seed)
      : a(dtype, m, 40), b(dtype, 40, 24), bias(dtype, -1, 24), m(m), dtype(dtype) {
    std::mt19937_64 rng(seed);
    a.FillRandom(rng);
    b.FillRandom(rng);
    bias.FillRandom(rng);
  }
  TeplugGemmArgs Args(TestMatrix& d, TestMatrix& pre) {
    TeplugGemmArgs args{};
    args.struct_size = sizeof(args);
    args.a = a.tensor(), args.b = b.tensor(), args.d = d.tensor(), args.bias = bias.tensor();
    args.pre_gelu_out = pre.tensor();
    args.epilogue = TEPLUG_EPILOGUE_GELU;
    args.alpha = 1.5f;
    return args;
  }
  TestMatrix a, b, bias;
  int64_t m;
  int32_t dtype;
  std::vector<double> alone;
};

TEST(CpuGemmConcurrencyTest, ConcurrentCallsEqualTheSameCallsRunAlone) {
  std::vector<std::unique_ptr<Problem>> problems;
  for (int i = 0; i < 4; ++i) {
    problems.push_back(std::make_unique<Problem>(
        17 + 8 * i, i % 2 ? TEPLUG_DTYPE_BF16 : TEPLUG_DTYPE_FP32, 40 + i));
    Problem& p = *problems.back();
    CpuGemm alone;
    TestMatrix d(p.dtype, p.m, 24), pre(p.dtype, p.m, 24);
    TeplugGemmArgs args = p.Args(d, pre);
    ASSERT_TRUE(alone.Run(args).ok());
    p.alone = d.Values();
  }
  CpuGemm shared(/*plan_cache_capacity=*/2);  // four signatures: plans get evicted
  constexpr int kThreads = 4, kCalls = 12;
  std::vector<int> mismatches(kThreads, 0), failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int c = 0; c < kCalls; ++c) {
        Problem& p = *problems[(t + c) % problems.size()];
        TestMatrix d(p.dtype, p.m, 24), pre(p.dtype, p.m, 24);
        TeplugGemmArgs args = p.Args(d, pre);
        if (!shared.Run(args).ok()) {
          ++failures[t];
        } else if (d.Values() != p.alone) {
          ++mismatches[t];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failures[t], 0) << "thread " << t;
    EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  }
  EXPECT_LE(shared.plan_cache().size(), 2u);
  EXPECT_GT(shared.plan_cache().stats().evictions, 0u);
}

}  // namespace
}  // namespace teplug::cpu::provider
