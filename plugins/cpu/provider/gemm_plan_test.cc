// The pipeline GemmPlan chooses for a signature (gemm_plan.h): the compute
// dtype (bf16 only when both operands are exact in bf16: bf16, per-tensor
// fp8 or MXFP8), and whether the matmul writes D itself or an fp32 result
// that is converted afterwards.
#include "plugins/cpu/provider/gemm_plan.h"

#include <optional>

#include "gtest/gtest.h"

namespace teplug::cpu::provider {
namespace {

using dt = dnnl::memory::data_type;

StoredMatrix Dense(int32_t dtype, int64_t rows, int64_t cols) {
  return StoredMatrix{dtype, rows, cols, cols, 1};
}

GemmSignature Plain(int32_t a, int32_t b, int32_t d) {
  GemmSignature s;
  s.m = 16, s.n = 24, s.k = 32;
  s.a = Dense(a, 16, 32);
  s.b = Dense(b, 32, 24);
  s.d = Dense(d, 16, 24);
  s.alpha = 1.f;
  return s;
}

std::shared_ptr<const GemmPlan> PlanFor(const GemmSignature& s) {
  absl::StatusOr<std::shared_ptr<const GemmPlan>> plan = GemmPlan::Create(s);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *plan : nullptr;
}

TEST(GemmPlanTest, Fp32AndBf16GemmsWriteDDirectly) {
  auto fp32 = PlanFor(Plain(TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32));
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ(fp32->compute_dtype(), dt::f32);
  EXPECT_TRUE(fp32->WritesDirectly());
  EXPECT_FALSE(fp32->MatmulImplementation().empty());
  for (int32_t d : {TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP32}) {
    auto bf16 = PlanFor(Plain(TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_BF16, d));
    ASSERT_NE(bf16, nullptr);
    EXPECT_EQ(bf16->compute_dtype(), dt::bf16);
    EXPECT_TRUE(bf16->WritesDirectly());
  }
}

TEST(GemmPlanTest, MixedOrFp16OperandsComputeInFp32) {
  for (auto [a, b] : {std::pair{TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_FP16},
                      std::pair{TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP32},
                      std::pair{TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP16}}) {
    auto plan = PlanFor(Plain(a, b, TEPLUG_DTYPE_FP32));
    ASSERT_NE(plan, nullptr);
    EXPECT_EQ(plan->compute_dtype(), dt::f32);
    EXPECT_TRUE(plan->WritesDirectly());
  }
}

// fp8 operands: per-tensor codes and MXFP8 values are exact in bf16, so a
// pairing of them with bf16 runs the bf16 matmul; block-scaled values are not,
// nor is an fp32 partner, so those run in fp32.
TEST(GemmPlanTest, Fp8OperandsComputeInBf16OnlyWhereBf16IsExact) {
  auto fp8 = [](int32_t scaling) {
    StoredMatrix m = Dense(TEPLUG_DTYPE_FP8_E4M3, 16, 32);
    m.scaling = scaling;
    return m;
  };
  for (int32_t scaling : {TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32}) {
    GemmSignature s = Plain(TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_BF16);
    s.a = fp8(scaling);
    auto plan = PlanFor(s);
    ASSERT_NE(plan, nullptr);
    EXPECT_EQ(plan->compute_dtype(), dt::bf16) << scaling;
    EXPECT_TRUE(plan->WritesDirectly());
    s.b = Dense(TEPLUG_DTYPE_FP32, 32, 24);
    s.d = Dense(TEPLUG_DTYPE_FP32, 16, 24);
    EXPECT_EQ(PlanFor(s)->compute_dtype(), dt::f32) << scaling;
  }
  for (int32_t scaling : {TEPLUG_SCALING_BLOCK_1D128, TEPLUG_SCALING_BLOCK_2D128}) {
    GemmSignature s = Plain(TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP32);
    s.a = fp8(scaling);
    auto plan = PlanFor(s);
    ASSERT_NE(plan, nullptr);
    EXPECT_EQ(plan->compute_dtype(), dt::f32) << scaling;
  }
}

TEST(GemmPlanTest, DsTheMatmulCannotWriteGoThroughAnFp32Result) {
  // fp16 D; bf16 D from an fp32 compute.
  EXPECT_FALSE(
      PlanFor(Plain(TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16))->WritesDirectly());
  EXPECT_FALSE(
      PlanFor(Plain(TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16))->WritesDirectly());
  // pre_gelu_out wanted.
  GemmSignature aux = Plain(TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32);
  aux.gelu = true;
  aux.pre_gelu = Dense(TEPLUG_DTYPE_FP32, 16, 24);
  EXPECT_FALSE(PlanFor(aux)->WritesDirectly());
  // A column stride in D.
  GemmSignature strided = Plain(TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP32);
  strided.d = StoredMatrix{TEPLUG_DTYPE_FP32, 16, 24, 48, 2};
  EXPECT_FALSE(PlanFor(strided)->WritesDirectly());
  // An fp16 C that oneDNN cannot convert into a bf16 D.
  GemmSignature c = Plain(TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_BF16);
  c.c = Dense(TEPLUG_DTYPE_FP16, 16, 24);
  c.beta = 1.f;
  EXPECT_FALSE(PlanFor(c)->WritesDirectly());
  c.c = Dense(TEPLUG_DTYPE_FP32, 16, 24);
  EXPECT_TRUE(PlanFor(c)->WritesDirectly());
}

}  // namespace
}  // namespace teplug::cpu::provider
