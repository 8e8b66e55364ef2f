// What the cpu attention refuses and why: supports() says no, with a reason
// naming the field, to fp8 inputs, s_quant / dp_quant, non-contiguous
// strides and another device; malformed args are accepted by supports() and
// reported by the forward or backward as invalid_argument naming the field.
#include <random>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/cpu/provider/attention_provider.h"
#include "plugins/cpu/provider/testing/attention_case.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cpu::provider {
namespace {

using testing::AttentionCase;
using testing::AttentionConfig;
using ::testing::HasSubstr;

class CpuAttentionRefusalTest : public ::testing::Test {
 protected:
  CpuAttentionRefusalTest()
      : rng_(3),
        case_(AttentionConfig{}, rng_),
        out_(case_.NewOutputs(rng_)),
        args_(case_.Args(out_)) {}

  // supports() refuses; returns the reason.
  std::string Refusal() {
    std::string reason;
    EXPECT_FALSE(attention_.SupportsForward(args_, &reason));
    EXPECT_EQ(attention_.RunForward(args_).code(), absl::StatusCode::kUnimplemented);
    return reason;
  }
  // supports() accepts; the forward reports invalid_argument; returns it.
  std::string Malformed() {
    std::string reason;
    EXPECT_TRUE(attention_.SupportsForward(args_, &reason));
    const absl::Status s = attention_.RunForward(args_);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    return std::string(s.message());
  }

  std::mt19937_64 rng_;
  AttentionCase case_;
  AttentionCase::Outputs out_;
  TeplugAttentionFwdArgs args_;
  CpuAttention attention_{1};
};

TEST_F(CpuAttentionRefusalTest, ServesTheDefaultCase) {
  std::string reason;
  EXPECT_TRUE(attention_.SupportsForward(args_, &reason)) << reason;
  EXPECT_TRUE(attention_.RunForward(args_).ok());
}

TEST_F(CpuAttentionRefusalTest, Fp8Inputs) {
  TeplugTensor q = *args_.q;
  q.dtype = TEPLUG_DTYPE_FP8_E4M3;
  args_.q = &q;
  EXPECT_THAT(Refusal(), HasSubstr("TeplugAttentionFwdArgs.q is dtype fp8_e4m3"));
}

TEST_F(CpuAttentionRefusalTest, SoftmaxQuantization) {
  TeplugQuantization s = sdk::Versioned<TeplugQuantization>();
  args_.s_quant = &s;
  EXPECT_THAT(Refusal(), HasSubstr("s_quant is set"));
}

TEST_F(CpuAttentionRefusalTest, NonContiguousStrides) {
  TeplugTensor k = *args_.k;
  for (int r = 0; r < k.rank; ++r) k.strides[r] = 1;
  args_.k = &k;
  EXPECT_THAT(Refusal(),
              HasSubstr("TeplugAttentionFwdArgs.k: strides [1, 1, 1, 1] are not row-major"));
}

TEST_F(CpuAttentionRefusalTest, AnotherDevice) {
  TeplugDevice gpu = sdk::Versioned<TeplugDevice>();
  gpu.kind = TEPLUG_DEVICE_CUDA;
  TeplugTensor v = *args_.v;
  v.device = &gpu;
  args_.v = &v;
  EXPECT_THAT(Refusal(), HasSubstr("TeplugAttentionFwdArgs.v is on device kind"));
}

// The backward over the same case (d_o, gradients, the forward's outputs).
class CpuAttentionBackwardRefusalTest : public CpuAttentionRefusalTest {
 protected:
  CpuAttentionBackwardRefusalTest()
      : grads_(case_.NewGradients(rng_)), bwd_(case_.BackwardArgs(out_, grads_)) {}

  std::string BackwardRefusal() {
    std::string reason;
    EXPECT_FALSE(attention_.SupportsBackward(bwd_, &reason));
    EXPECT_EQ(attention_.RunBackward(bwd_).code(), absl::StatusCode::kUnimplemented);
    return reason;
  }
  std::string BackwardMalformed() {
    std::string reason;
    EXPECT_TRUE(attention_.SupportsBackward(bwd_, &reason));
    const absl::Status s = attention_.RunBackward(bwd_);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    return std::string(s.message());
  }

  AttentionCase::Gradients grads_;
  TeplugAttentionBwdArgs bwd_;
};

TEST_F(CpuAttentionBackwardRefusalTest, ServesTheDefaultCase) {
  ASSERT_TRUE(attention_.RunForward(args_).ok());
  std::string reason;
  EXPECT_TRUE(attention_.SupportsBackward(bwd_, &reason)) << reason;
  EXPECT_TRUE(attention_.RunBackward(bwd_).ok());
}

TEST_F(CpuAttentionBackwardRefusalTest, Fp8ScalesOfDp) {
  TeplugQuantization s = sdk::Versioned<TeplugQuantization>();
  bwd_.dp_quant = &s;
  EXPECT_THAT(BackwardRefusal(), HasSubstr("TeplugAttentionBwdArgs.dp_quant is set"));
}

TEST_F(CpuAttentionBackwardRefusalTest, Fp8Gradient) {
  TeplugTensor dk = *bwd_.dk;
  dk.dtype = TEPLUG_DTYPE_FP8_E5M2;
  bwd_.dk = &dk;
  EXPECT_THAT(BackwardRefusal(), HasSubstr("TeplugAttentionBwdArgs.dk is dtype fp8_e5m2"));
}

TEST_F(CpuAttentionBackwardRefusalTest, MalformedArgsNameTheField) {
  bwd_.softmax_lse = nullptr;
  EXPECT_THAT(BackwardMalformed(), HasSubstr("TeplugAttentionBwdArgs.softmax_lse is NULL"));
  bwd_ = case_.BackwardArgs(out_, grads_);
  TeplugTensor d_o = *bwd_.d_o;
  d_o.shape[1] = 36;
  bwd_.d_o = &d_o;
  EXPECT_THAT(BackwardMalformed(),
              HasSubstr("TeplugAttentionBwdArgs.d_o: shape [2, 36, 4, 16] but o's shape is "
                        "[2, 37, 4, 16]"));
  bwd_ = case_.BackwardArgs(out_, grads_);
  bwd_.dbias = bwd_.dq;
  EXPECT_THAT(BackwardMalformed(),
              HasSubstr("TeplugAttentionBwdArgs.dbias is set but params.bias_type is none"));
  bwd_ = case_.BackwardArgs(out_, grads_);
  bwd_.dq = nullptr;
  EXPECT_THAT(BackwardMalformed(), HasSubstr("TeplugAttentionBwdArgs.dq is NULL"));
}

// A packed layout's gradient members are one buffer, like its inputs.
TEST(CpuAttentionPackedGradientsTest, MembersOfOnePackedBufferMustShareIt) {
  std::mt19937_64 rng(5);
  AttentionConfig config;
  config.layout = TEPLUG_LAYOUT_BSHD_BS2HD;
  AttentionCase c(config, rng);
  AttentionCase::Outputs out = c.NewOutputs(rng);
  AttentionCase::Gradients grads = c.NewGradients(rng), other = c.NewGradients(rng);
  TeplugAttentionBwdArgs bwd = c.BackwardArgs(out, grads);
  bwd.dv = other.dv;
  const absl::Status s = CpuAttention(1).RunBackward(bwd);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("layout bshd_bs2hd packs dk and dv in one buffer, so dv must be the same "
                        "buffer as dk"));
}

TEST_F(CpuAttentionRefusalTest, MalformedArgsNameTheField) {
  TeplugAttentionParams p = *args_.params;
  args_.params = &p;
  p.num_heads_kv = 3;
  EXPECT_THAT(Malformed(), HasSubstr("params.num_heads_q 4 is not a multiple of num_heads_kv 3"));
  p = *case_.Args(out_).params;
  p.layout = TEPLUG_LAYOUT_THD_THD_THD;
  EXPECT_THAT(Malformed(), HasSubstr("thd layouts need a padding mask type"));
  p = *case_.Args(out_).params;
  p.mask_type = TEPLUG_MASK_PADDING;
  EXPECT_THAT(Malformed(), HasSubstr("params.cu_seqlens_q is NULL"));
  p = *case_.Args(out_).params;
  p.dropout = 1.0f;
  EXPECT_THAT(Malformed(), HasSubstr("params.dropout 1 is outside [0, 1)"));
  p = *case_.Args(out_).params;
  p.max_seqlen_kv = 44;
  EXPECT_THAT(Malformed(), HasSubstr("TeplugAttentionFwdArgs.k: shape [2, 45, 4, 16] but layout "
                                     "bshd_bshd_bshd needs [2, 44, 4, 16]"));
  p = *case_.Args(out_).params;
  args_.softmax_lse = nullptr;
  EXPECT_THAT(Malformed(), HasSubstr("softmax_lse is NULL but params.is_training is set"));
}

}  // namespace
}  // namespace teplug::cpu::provider
