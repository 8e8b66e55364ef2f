// What the cpu attention refuses and why: supports() says no, with a reason
// naming the field, to fp8 inputs, s_quant, non-contiguous strides, another
// device and the backward op; malformed args are accepted by supports() and
// reported by the forward as invalid_argument naming the field.
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

TEST_F(CpuAttentionRefusalTest, Backward) {
  TeplugAttentionBwdArgs bwd = sdk::Versioned<TeplugAttentionBwdArgs>();
  std::string reason;
  EXPECT_FALSE(attention_.SupportsBackward(bwd, &reason));
  EXPECT_THAT(reason, HasSubstr("forward only"));
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
