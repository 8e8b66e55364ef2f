// The algorithm cache: keys that change with everything cuBLASLt's heuristic
// depends on (and only that), alignment classes, LRU bounds, and concurrent use.
#include "native/gemm/algorithm_cache.h"

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace teplug::native {
namespace {

constexpr uint32_t kAligned[kKeyedPointers] = {256, 256, 256, 256, 256, 256};

CublasLtGemmPlan Bf16Plan() {
  CublasLtGemmPlan p;
  p.trans_a = CUBLAS_OP_T;
  p.m = 4096;
  p.n = 1024;
  p.k = 8192;
  p.a = {TeplugOperand::kB, CUDA_R_16BF, 8192, 4096, 8192};
  p.b = {TeplugOperand::kA, CUDA_R_16BF, 8192, 1024, 8192};
  p.d = {TeplugOperand::kD, CUDA_R_16BF, 4096, 1024, 4096};
  p.c = p.d;
  p.c.source = TeplugOperand::kNone;
  return p;
}

AlgorithmKey Key(const CublasLtGemmPlan& p, int ordinal = 0, const uint32_t* alignments = kAligned,
                 size_t workspace = 1 << 25) {
  return MakeAlgorithmKey(p, ordinal, alignments, workspace);
}

TEST(AlignmentClassTest, IsTheLargestPowerOfTwoDividingTheAddressUpTo256) {
  auto at = [](uintptr_t a) { return AlignmentClass(reinterpret_cast<const void*>(a)); };
  EXPECT_EQ(at(0x1000), 256u);
  EXPECT_EQ(at(0x100), 256u);
  EXPECT_EQ(at(0x80), 128u);
  EXPECT_EQ(at(0x108), 8u);
  EXPECT_EQ(at(0x13), 1u);
  EXPECT_EQ(AlignmentClass(nullptr), 256u);
}

TEST(AlgorithmKeyTest, EqualPlansGiveEqualKeysAndHashes) {
  EXPECT_EQ(Key(Bf16Plan()), Key(Bf16Plan()));
  EXPECT_EQ(AlgorithmKeyHash()(Key(Bf16Plan())), AlgorithmKeyHash()(Key(Bf16Plan())));
}

TEST(AlgorithmKeyTest, EveryInputOfTheHeuristicChangesTheKey) {
  const AlgorithmKey base = Key(Bf16Plan());
  const std::vector<std::pair<std::string, std::function<void(CublasLtGemmPlan&)>>> changes = {
      {"trans_b", [](CublasLtGemmPlan& p) { p.trans_b = CUBLAS_OP_T; }},
      {"m", [](CublasLtGemmPlan& p) { p.m = 4097; }},
      {"k", [](CublasLtGemmPlan& p) { p.k = 4096; }},
      {"a.ld", [](CublasLtGemmPlan& p) { p.a.ld = 8200; }},
      {"d.type", [](CublasLtGemmPlan& p) { p.d.type = CUDA_R_32F; }},
      {"b.type", [](CublasLtGemmPlan& p) { p.b.type = CUDA_R_8F_E4M3; }},
      {"c read", [](CublasLtGemmPlan& p) { p.c.source = TeplugOperand::kC; }},
      {"beta nonzero", [](CublasLtGemmPlan& p) { p.beta = 1.0f; }},
      {"epilogue", [](CublasLtGemmPlan& p) { p.epilogue = CUBLASLT_EPILOGUE_GELU_BIAS; }},
      {"bias type", [](CublasLtGemmPlan& p) { p.bias_type = CUDA_R_16BF; }},
      {"aux", [](CublasLtGemmPlan& p) { p.has_aux = true; }},
      {"aux ld", [](CublasLtGemmPlan& p) { p.aux_ld = 4096; }},
      {"fast accum", [](CublasLtGemmPlan& p) { p.fast_accum = true; }},
      {"a scale mode",
       [](CublasLtGemmPlan& p) {
         p.a_scaling = {true, CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0, TeplugOperand::kB};
       }},
      {"b scaled", [](CublasLtGemmPlan& p) { p.b_scaling.scaled = true; }},
      {"d scale", [](CublasLtGemmPlan& p) { p.d_scale = true; }},
      {"d amax", [](CublasLtGemmPlan& p) { p.d_amax = true; }},
  };
  for (const auto& [what, change] : changes) {
    CublasLtGemmPlan p = Bf16Plan();
    change(p);
    EXPECT_FALSE(Key(p) == base) << what << " does not change the key";
  }
  EXPECT_FALSE(Key(Bf16Plan(), 1) == base) << "device ordinal";
  const char* const pointers[kKeyedPointers] = {"A", "B", "C", "D", "bias", "GELU aux"};
  for (int i = 0; i < kKeyedPointers; ++i) {
    uint32_t misaligned[kKeyedPointers] = {256, 256, 256, 256, 256, 256};
    misaligned[i] = 8;
    EXPECT_FALSE(Key(Bf16Plan(), 0, misaligned) == base) << pointers[i] << "'s alignment";
  }
  EXPECT_FALSE(Key(Bf16Plan(), 0, kAligned, 0) == base) << "workspace limit";
}

TEST(AlgorithmKeyTest, ScalarsThatDoNotSteerTheHeuristicShareAKey) {
  CublasLtGemmPlan p = Bf16Plan(), q = Bf16Plan();
  p.alpha = 2.0f;
  EXPECT_EQ(Key(p), Key(Bf16Plan()));
  p.beta = 0.5f;
  q.beta = 0.25f;
  EXPECT_EQ(Key(p), Key(q));
}

AlgorithmKey Numbered(int i) {
  CublasLtGemmPlan p = Bf16Plan();
  p.m = static_cast<uint64_t>(i + 1);
  return Key(p);
}

TEST(AlgorithmCacheTest, EvictsTheLeastRecentlyUsedBeyondItsCapacity) {
  AlgorithmCache<int> cache(2);
  cache.Insert(Numbered(1), 10);
  cache.Insert(Numbered(2), 20);
  EXPECT_EQ(cache.Find(Numbered(1)), 10);  // 1 is now the most recent
  cache.Insert(Numbered(3), 30);           // evicts 2
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_FALSE(cache.Find(Numbered(2)).has_value());
  EXPECT_EQ(cache.Find(Numbered(1)), 10);
  EXPECT_EQ(cache.Find(Numbered(3)), 30);
  cache.Insert(Numbered(3), 31);  // replaces, no eviction
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Find(Numbered(3)), 31);
  EXPECT_EQ(cache.Find(Numbered(1)), 10);
  EXPECT_EQ(cache.hits(), 5u);
  EXPECT_EQ(cache.misses(), 1u);
  EXPECT_EQ(AlgorithmCache<int>(0).capacity(), 1u);  // never unbounded, never empty
}

TEST(AlgorithmCacheTest, StaysBoundedUnderConcurrentUse) {
  AlgorithmCache<int> cache(16);
  std::vector<std::thread> threads;
  std::vector<int> wrong(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 400; ++i) {
        const int n = (i * 7 + t) % 64;
        if (std::optional<int> v = cache.Find(Numbered(n))) {
          if (*v != n) ++wrong[t];
        } else {
          cache.Insert(Numbered(n), n);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong, std::vector<int>(8, 0));
  EXPECT_LE(cache.size(), 16u);
  EXPECT_EQ(cache.hits() + cache.misses(), 8u * 400u);
}

}  // namespace
}  // namespace teplug::native
