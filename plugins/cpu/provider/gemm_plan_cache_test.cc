// The plan cache: the op signature's key (equal for calls that differ only in
// their buffers, different when any property that shapes the primitives
// differs) and the bound (least recently used plans evicted, never more than
// the capacity), both in BoundedLruCache alone and as CpuGemm uses it.
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cpu/provider/bounded_lru_cache.h"
#include "plugins/cpu/provider/gemm_provider.h"
#include "plugins/cpu/provider/gemm_signature.h"
#include "plugins/cpu/provider/testing/test_matrix.h"

namespace teplug::cpu::provider {
namespace {

using testing::MatrixLayout;
using testing::TestMatrix;

TEST(BoundedLruCacheTest, EvictsTheLeastRecentlyUsedEntryAtCapacity) {
  BoundedLruCache<int> cache(2);
  cache.Insert("a", std::make_shared<const int>(1));
  cache.Insert("b", std::make_shared<const int>(2));
  ASSERT_NE(cache.Find("a"), nullptr);  // "b" is now the least recently used
  cache.Insert("c", std::make_shared<const int>(3));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Find("b"), nullptr);
  ASSERT_NE(cache.Find("a"), nullptr);
  EXPECT_EQ(*cache.Find("a"), 1);
  EXPECT_EQ(*cache.Find("c"), 3);
  const auto stats = cache.stats();
  EXPECT_EQ(stats.evictions, 1u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.hits, 4u);
}

TEST(BoundedLruCacheTest, InsertingAPresentKeyKeepsTheFirstValue) {
  BoundedLruCache<int> cache(4);
  cache.Insert("a", std::make_shared<const int>(1));
  EXPECT_EQ(*cache.Insert("a", std::make_shared<const int>(2)), 1);
  EXPECT_EQ(cache.size(), 1u);
}

// A valid fp32 call with every optional tensor, each property adjustable.
struct KeyedCall {
  TestMatrix a{TEPLUG_DTYPE_FP32, 8, 6}, b{TEPLUG_DTYPE_FP32, 6, 5}, c{TEPLUG_DTYPE_FP32, 8, 5},
      d{TEPLUG_DTYPE_FP32, 8, 5}, bias{TEPLUG_DTYPE_FP32, -1, 5}, pre{TEPLUG_DTYPE_FP32, 8, 5};
  TeplugGemmArgs args{};
  KeyedCall() {
    args.struct_size = sizeof(args);
    args.a = a.tensor();
    args.b = b.tensor();
    args.c = c.tensor();
    args.d = d.tensor();
    args.bias = bias.tensor();
    args.pre_gelu_out = pre.tensor();
    args.alpha = 1.f;
    args.beta = 0.5f;
    args.epilogue = TEPLUG_EPILOGUE_GELU;
  }
  std::string Key() {
    absl::StatusOr<GemmCall> call = ReadGemmCall(args);
    EXPECT_TRUE(call.ok()) << call.status();
    return call.ok() ? call->signature.Key() : "";
  }
};

TEST(GemmSignatureKeyTest, CallsDifferingOnlyInTheirBuffersShareAKey) {
  KeyedCall one, two;
  ASSERT_NE(one.a.tensor()->data, two.a.tensor()->data);
  EXPECT_EQ(one.Key(), two.Key());
  // Explicit dense strides are the same layout as all-zero strides.
  two.a.tensor()->strides[0] = 6;
  two.a.tensor()->strides[1] = 1;
  EXPECT_EQ(one.Key(), two.Key());
}

TEST(GemmSignatureKeyTest, EveryPropertyThatShapesThePrimitivesChangesTheKey) {
  const std::vector<std::function<void(KeyedCall&)>> changes = {
      [](KeyedCall& k) { k.a.tensor()->dtype = TEPLUG_DTYPE_BF16; },
      [](KeyedCall& k) { k.b.tensor()->dtype = TEPLUG_DTYPE_FP16; },
      [](KeyedCall& k) { k.c.tensor()->dtype = TEPLUG_DTYPE_BF16; },
      [](KeyedCall& k) { k.d.tensor()->dtype = TEPLUG_DTYPE_FP16; },
      [](KeyedCall& k) { k.bias.tensor()->dtype = TEPLUG_DTYPE_BF16; },
      [](KeyedCall& k) { k.pre.tensor()->dtype = TEPLUG_DTYPE_BF16; },
      [](KeyedCall& k) {  // A [6, 8] transposed is still [8, 6]
        k.a.tensor()->shape[0] = 6, k.a.tensor()->shape[1] = 8, k.args.trans_a = 1;
      },
      [](KeyedCall& k) {
        k.b.tensor()->shape[0] = 5, k.b.tensor()->shape[1] = 6, k.args.trans_b = 1;
      },
      // Column-major layouts of the same buffers.
      [](KeyedCall& k) { k.a.tensor()->strides[0] = 1, k.a.tensor()->strides[1] = 8; },
      [](KeyedCall& k) { k.d.tensor()->strides[0] = 1, k.d.tensor()->strides[1] = 8; },
      [](KeyedCall& k) { k.args.alpha = 2.f; },
      [](KeyedCall& k) { k.args.beta = 0.25f; },
      [](KeyedCall& k) { k.args.c = nullptr; },
      [](KeyedCall& k) { k.args.c = k.d.tensor(); },  // C is D
      [](KeyedCall& k) { k.args.accumulate = 1; },
      [](KeyedCall& k) { k.args.bias = nullptr; },
      [](KeyedCall& k) { k.args.pre_gelu_out = nullptr; },
      [](KeyedCall& k) { k.args.pre_gelu_out = nullptr, k.args.epilogue = 0; },
  };
  KeyedCall base;
  std::set<std::string> keys = {base.Key()};
  for (size_t i = 0; i < changes.size(); ++i) {
    KeyedCall changed;
    changes[i](changed);
    EXPECT_TRUE(keys.insert(changed.Key()).second) << "change " << i << " kept the key";
  }
}

// An fp8 operand's scaling mode shapes the decode and the matmul, so it is in
// the key; its per-tensor scale_inv is data read at each call, so it is not.
TEST(GemmSignatureKeyTest, TheScalingModeOfAnFp8OperandIsInTheKeyItsScaleValueIsNot) {
  float scale[8] = {0.5f};
  uint8_t e8m0[8] = {127, 127, 127, 127, 127, 127, 127, 127};
  TeplugTensor scale_inv{};
  scale_inv.struct_size = sizeof(TeplugTensor);
  TeplugQuantization quant{};
  quant.struct_size = sizeof(TeplugQuantization);
  quant.scale_inv = &scale_inv;
  auto fp8_key = [&](int32_t mode) {
    KeyedCall k;
    k.a.tensor()->dtype = TEPLUG_DTYPE_FP8_E4M3;
    k.a.tensor()->quant = &quant;
    quant.mode = mode;
    const bool mx = mode == TEPLUG_SCALING_MXFP8_1D32;
    scale_inv.data = mx ? static_cast<void*>(e8m0) : static_cast<void*>(scale);
    scale_inv.dtype = mx ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32;
    scale_inv.rank = 2;
    scale_inv.shape[0] = mx ? 8 : 1;  // A is [8, 6]: one 32-column block per row
    scale_inv.shape[1] = 1;
    return k.Key();
  };
  const std::string per_tensor = fp8_key(TEPLUG_SCALING_PER_TENSOR);
  EXPECT_NE(per_tensor, fp8_key(TEPLUG_SCALING_MXFP8_1D32));
  EXPECT_NE(per_tensor, KeyedCall().Key());
  scale[0] = 4.0f;
  EXPECT_EQ(per_tensor, fp8_key(TEPLUG_SCALING_PER_TENSOR));
}

TEST(GemmSignatureKeyTest, ShapesChangeTheKey) {
  TestMatrix a1(TEPLUG_DTYPE_FP32, 4, 6), a2(TEPLUG_DTYPE_FP32, 5, 6), b(TEPLUG_DTYPE_FP32, 6, 3),
      d1(TEPLUG_DTYPE_FP32, 4, 3), d2(TEPLUG_DTYPE_FP32, 5, 3);
  TeplugGemmArgs args{};
  args.struct_size = sizeof(args);
  args.a = a1.tensor(), args.b = b.tensor(), args.d = d1.tensor(), args.alpha = 1.f;
  const std::string first = ReadGemmCall(args)->signature.Key();
  args.a = a2.tensor(), args.d = d2.tensor();
  EXPECT_NE(first, ReadGemmCall(args)->signature.Key());
}

// CpuGemm builds a plan per signature, reuses it on a repeat, and holds at
// most its capacity, evicting the least recently used.
TEST(CpuGemmPlanCacheTest, ReusesPlansAndStaysWithinItsBound) {
  CpuGemm gemm(/*plan_cache_capacity=*/2);
  std::mt19937_64 rng(3);
  std::vector<std::unique_ptr<TestMatrix>> keep;
  auto call = [&](int64_t m) {
    keep.push_back(std::make_unique<TestMatrix>(TEPLUG_DTYPE_FP32, m, 8));
    TestMatrix* a = keep.back().get();
    keep.push_back(std::make_unique<TestMatrix>(TEPLUG_DTYPE_FP32, 8, 4));
    TestMatrix* b = keep.back().get();
    keep.push_back(std::make_unique<TestMatrix>(TEPLUG_DTYPE_FP32, m, 4));
    TestMatrix* d = keep.back().get();
    a->FillRandom(rng);
    b->FillRandom(rng);
    TeplugGemmArgs args{};
    args.struct_size = sizeof(args);
    args.a = a->tensor(), args.b = b->tensor(), args.d = d->tensor(), args.alpha = 1.f;
    const absl::Status status = gemm.Run(args);
    EXPECT_TRUE(status.ok()) << status;
  };
  call(3);
  call(3);  // same signature, new buffers: a hit
  EXPECT_EQ(gemm.plan_cache().stats().misses, 1u);
  EXPECT_EQ(gemm.plan_cache().stats().hits, 1u);
  call(4);
  call(3);  // m=4 is now the least recently used
  call(5);  // evicts m=4
  EXPECT_EQ(gemm.plan_cache().size(), 2u);
  EXPECT_EQ(gemm.plan_cache().stats().evictions, 1u);
  call(3);  // still cached
  EXPECT_EQ(gemm.plan_cache().stats().hits, 3u);
  call(4);  // rebuilt
  EXPECT_EQ(gemm.plan_cache().stats().misses, 4u);
  EXPECT_EQ(gemm.plan_cache().size(), 2u);
}

}  // namespace
}  // namespace teplug::cpu::provider
