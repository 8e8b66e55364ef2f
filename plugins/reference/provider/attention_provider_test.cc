// IAttention v1 through the ABI. Layout buffers are built here with this
// test's own index formulas (independent of kernels/qkv_layout.cc):
//   - every one of the 15 layouts gives bitwise the same O, LSE, dQ, dK, dV as
//     bshd_bshd_bshd after re-layout (causal, GQA-free since packed layouts
//     need hq == hkv), forward and backward;
//   - bshd_bshd_bshd O matches a naive causal softmax attention written here
//     (fp32 output: relative 2^-23), and its dQ, dK, dV match the kernels'
//     AttentionBackward called directly on the same inputs (fp32 output:
//     relative 2^-24, one rounding);
//   - outputs and gradients start as NaN (attention_runner.h), so an element
//     the provider does not write fails the comparisons;
//   - THD with cu_seqlens equals padded BSHD with a padding mask, bitwise, with
//     GQA, head_dim_qk != head_dim_v and dropout; empty rows have LSE -inf;
//   - errors name the args field.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/kernels/attention_reference.h"
#include "plugins/reference/provider/reference_entry.h"
#include "plugins/reference/provider/testing/abi_tensor.h"
#include "plugins/reference/provider/testing/attention_runner.h"
#include "plugins/reference/provider/testing/direct_host.h"
#include "plugins/reference/provider/testing/qkv_buffers.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider {
namespace {

using testing::AbiTensor;
using testing::BufferShape;
using testing::Dims;
using testing::Gather;
using testing::LayoutSpec;
using testing::Scatter;
using testing::SpecOf;

class AttentionProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host_.Run(&teplug_reference_entry).ok());
    attn_ = testing::Find<TeplugAttentionV1>(host_.recorded, sdk::kIidAttentionV1);
    ASSERT_NE(attn_, nullptr);
  }

  // Forward + backward through the ABI; fails the test on an error.
  testing::AttentionOutputs RunLayout(int32_t layout, const TeplugAttentionParams& params,
                                      const Dims& d, const std::vector<int64_t>& cu_q,
                                      const std::vector<int64_t>& cu_kv, const std::vector<double>& q,
                                      const std::vector<double>& k, const std::vector<double>& v,
                                      const std::vector<double>& d_o) {
    testing::AttentionOutputs r =
        testing::RunAttention(attn_, layout, params, d, cu_q, cu_kv, q, k, v, d_o);
    EXPECT_EQ(r.error, "") << sdk::LayoutName(layout);
    return r;
  }

  testing::DirectHost host_;
  TeplugAttentionV1* attn_ = nullptr;
  std::mt19937_64 rng_{4242};
};

TeplugAttentionParams BaseParams(const Dims& d) {
  TeplugAttentionParams p = sdk::Versioned<TeplugAttentionParams>();
  p.batch = d.b;
  p.num_heads_q = d.hq;
  p.num_heads_kv = d.hkv;
  p.head_dim_qk = d.dqk;
  p.head_dim_v = d.dv;
  p.max_seqlen_q = d.sq;
  p.max_seqlen_kv = d.skv;
  p.window_left = -1;
  p.window_right = -1;
  p.softmax_scale = 0.4f;
  p.is_training = 1;
  return p;
}

TEST_F(AttentionProviderTest, EveryLayoutMatchesBshdAndTheNaiveOracle) {
  const Dims d{2, 5, 5, 2, 2, 4, 4};
  const std::vector<int64_t> cu = {0, 5, 10};
  const auto q = testing::RandomValues(rng_, d.b * d.hq * d.sq * d.dqk);
  const auto k = testing::RandomValues(rng_, d.b * d.hkv * d.skv * d.dqk);
  const auto v = testing::RandomValues(rng_, d.b * d.hkv * d.skv * d.dv);
  const auto d_o = testing::RandomValues(rng_, d.b * d.hq * d.sq * d.dv);
  TeplugAttentionParams params = BaseParams(d);
  params.mask_type = TEPLUG_MASK_CAUSAL;
  const testing::AttentionOutputs want = RunLayout(TEPLUG_LAYOUT_BSHD_BSHD_BSHD, params, d, cu, cu, q, k, v, d_o);

  // Naive causal attention on the fp32-rounded inputs the tensors hold.
  for (int64_t b = 0; b < d.b; ++b) {
    for (int64_t h = 0; h < d.hq; ++h) {
      for (int64_t i = 0; i < d.sq; ++i) {
        std::vector<long double> p(d.skv, 0);
        long double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j <= i; ++j) {
          long double s = 0;
          for (int64_t e = 0; e < d.dqk; ++e) {
            s += static_cast<long double>(static_cast<float>(q[((b * d.hq + h) * d.sq + i) * d.dqk + e])) *
                 static_cast<float>(k[((b * d.hkv + h) * d.skv + j) * d.dqk + e]);
          }
          p[j] = s * 0.4f;
          mx = std::max(mx, p[j]);
        }
        for (int64_t j = 0; j <= i; ++j) sum += (p[j] = std::exp(p[j] - mx));
        for (int64_t e = 0; e < d.dv; ++e) {
          long double o = 0;
          for (int64_t j = 0; j <= i; ++j) {
            o += p[j] / sum * static_cast<float>(v[((b * d.hkv + h) * d.skv + j) * d.dv + e]);
          }
          const double got = want.o[((b * d.hq + h) * d.sq + i) * d.dv + e];
          ASSERT_NEAR(got, static_cast<double>(o), std::fabs(static_cast<double>(o)) * 0x1p-23 + 1e-12)
              << "b" << b << " h" << h << " i" << i << " e" << e;
        }
        ASSERT_NEAR(want.lse[(b * d.hq + h) * d.sq + i], static_cast<double>(mx + std::log(sum)), 1e-5);
      }
    }
  }
  // dQ, dK, dV of bshd_bshd_bshd against the kernels' AttentionBackward (which
  // kernels/attention_backward_test.cc checks against finite differences),
  // called here on the canonical arrays the provider should have read through
  // the ABI: fp32-rounded Q, K, V and dO, and its own O and LSE (checked above).
  // Only the adapter's layout reads and writes stand between the two, plus one
  // rounding of each gradient to fp32: within half an fp32 ulp, relative 2^-24.
  // Without this check every gradient comparison is layout against layout.
  {
    auto as_fp32 = [](std::vector<double> x) {
      for (double& e : x) e = static_cast<float>(e);
      return x;
    };
    const AttentionShape shape{d.b, d.hq, d.hkv, d.sq, d.skv, d.dqk, d.dv};
    AttentionOptions options;
    options.mask_type = AttnMaskType::kCausal;
    options.softmax_scale = params.softmax_scale;  // the float 0.4f the provider reads
    options.is_training = true;
    const absl::StatusOr<AttentionGradients> oracle = AttentionBackward(
        shape, options, as_fp32(q), as_fp32(k), as_fp32(v), want.o, want.lse, as_fp32(d_o));
    ASSERT_TRUE(oracle.ok()) << oracle.status();
    const struct {
      const char* name;
      const std::vector<double>& got;
      const std::vector<double>& oracle;
    } grads[] = {{"dq", want.dq, oracle->dq}, {"dk", want.dk, oracle->dk}, {"dv", want.dv, oracle->dv}};
    for (const auto& g : grads) {
      ASSERT_EQ(g.got.size(), g.oracle.size()) << g.name;
      for (size_t i = 0; i < g.got.size(); ++i) {
        ASSERT_NEAR(g.got[i], g.oracle[i], std::fabs(g.oracle[i]) * 0x1p-24 + 1e-12)
            << g.name << " element " << i << " (canonical [B][H][S][D])";
      }
    }
  }
  // thd layouts need a padding mask; with every sequence at full length,
  // padding_causal is the causal mask of the other layouts.
  TeplugAttentionParams thd_params = params;
  thd_params.mask_type = TEPLUG_MASK_PADDING_CAUSAL;
  for (int32_t layout = 0; layout < TEPLUG_LAYOUT_COUNT_; ++layout) {
    SCOPED_TRACE(sdk::LayoutName(layout));
    const bool thd = std::string(sdk::LayoutFormat(layout)) == "thd";
    const testing::AttentionOutputs got =
        RunLayout(layout, thd ? thd_params : params, d, cu, cu, q, k, v, d_o);
    EXPECT_EQ(got.o, want.o);
    EXPECT_EQ(got.lse, want.lse);
    EXPECT_EQ(got.dq, want.dq);
    EXPECT_EQ(got.dk, want.dk);
    EXPECT_EQ(got.dv, want.dv);
  }
}

TEST_F(AttentionProviderTest, ThdEqualsPaddedBshdWithPaddingMask) {
  const Dims d{3, 5, 6, 4, 2, 8, 4};
  const std::vector<int64_t> cu_q = {0, 3, 8, 8};    // lengths 3, 5, 0
  const std::vector<int64_t> cu_kv = {0, 4, 6, 12};  // lengths 4, 2, 6
  auto q = testing::RandomValues(rng_, d.b * d.hq * d.sq * d.dqk);
  auto k = testing::RandomValues(rng_, d.b * d.hkv * d.skv * d.dqk);
  auto v = testing::RandomValues(rng_, d.b * d.hkv * d.skv * d.dv);
  auto d_o = testing::RandomValues(rng_, d.b * d.hq * d.sq * d.dv);
  // Padded positions hold data in BSHD; THD has none. Zero them in the
  // canonical inputs so both runs see the same tensors.
  auto zero_padding = [&](std::vector<double>& x, int64_t heads, int64_t seq, int64_t dim,
                          const std::vector<int64_t>& cu) {
    for (int64_t b = 0; b < d.b; ++b)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = cu[b + 1] - cu[b]; i < seq; ++i)
          for (int64_t e = 0; e < dim; ++e) x[((b * heads + h) * seq + i) * dim + e] = 0;
  };
  zero_padding(q, d.hq, d.sq, d.dqk, cu_q);
  zero_padding(d_o, d.hq, d.sq, d.dv, cu_q);
  zero_padding(k, d.hkv, d.skv, d.dqk, cu_kv);
  zero_padding(v, d.hkv, d.skv, d.dv, cu_kv);
  TeplugAttentionParams params = BaseParams(d);
  params.mask_type = TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
  params.dropout = 0.25f;
  params.rng_seed = 99;
  params.rng_offset = 7;
  const testing::AttentionOutputs padded = RunLayout(TEPLUG_LAYOUT_BSHD_BSHD_BSHD, params, d, cu_q, cu_kv, q, k, v, d_o);
  const testing::AttentionOutputs thd = RunLayout(TEPLUG_LAYOUT_THD_THD_THD, params, d, cu_q, cu_kv, q, k, v, d_o);
  EXPECT_EQ(thd.o, padded.o);
  EXPECT_EQ(thd.lse, padded.lse);
  EXPECT_EQ(thd.dq, padded.dq);
  EXPECT_EQ(thd.dk, padded.dk);
  EXPECT_EQ(thd.dv, padded.dv);
  // Rows past a sequence's length have LSE -inf (batch 0 rows 3, 4; all of batch 2).
  for (int64_t h = 0; h < d.hq; ++h) {
    EXPECT_EQ(thd.lse[(0 * d.hq + h) * d.sq + 3], -std::numeric_limits<double>::infinity());
    EXPECT_EQ(thd.lse[(2 * d.hq + h) * d.sq + 0], -std::numeric_limits<double>::infinity());
    EXPECT_TRUE(std::isfinite(thd.lse[(1 * d.hq + h) * d.sq + 4]));
  }
}

TEST_F(AttentionProviderTest, ErrorsNameTheField) {
  const Dims d{2, 8, 8, 4, 2, 16, 16};
  TeplugAttentionParams params = BaseParams(d);
  params.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  AbiTensor q(TEPLUG_DTYPE_BF16, {2, 8, 4, 16}), k(TEPLUG_DTYPE_BF16, {2, 8, 4, 16}),
      v(TEPLUG_DTYPE_BF16, {2, 8, 2, 16}), o(TEPLUG_DTYPE_BF16, {2, 8, 4, 16}),
      lse(TEPLUG_DTYPE_FP32, {2, 4, 8});
  TeplugAttentionFwdArgs f = sdk::Versioned<TeplugAttentionFwdArgs>();
  f.params = &params;
  f.q = q.get();
  f.k = k.get();
  f.v = v.get();
  f.o = o.get();
  f.softmax_lse = lse.get();
  sdk::OwnedError e(attn_->vtbl->forward(attn_, &f));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugAttentionFwdArgs.k: shape [2, 8, 4, 16] but layout "
                             "bshd_bshd_bshd needs for k [2, 8, 2, 16]"),
            std::string::npos)
      << e.message();

  TeplugDevice dev = sdk::Versioned<TeplugDevice>();
  dev.kind = TEPLUG_DEVICE_OPENCL;
  q.get()->device = &dev;
  e = sdk::OwnedError(attn_->vtbl->forward(attn_, &f));
  EXPECT_EQ(e.code(), TEPLUG_UNSUPPORTED);
  EXPECT_NE(e.message().find("TeplugAttentionFwdArgs.q.device: kind opencl"), std::string::npos)
      << e.message();
  q.get()->device = nullptr;

  params.layout = TEPLUG_LAYOUT_THD_THD_THD;
  e = sdk::OwnedError(attn_->vtbl->forward(attn_, &f));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugAttentionFwdArgs.params.mask_type none with layout "
                             "thd_thd_thd: thd layouts need a padding mask type"),
            std::string::npos)
      << e.message();
  params.mask_type = TEPLUG_MASK_CAUSAL;
  e = sdk::OwnedError(attn_->vtbl->forward(attn_, &f));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("mask_type causal with layout thd_thd_thd"), std::string::npos)
      << e.message();
  params.mask_type = TEPLUG_MASK_PADDING_CAUSAL;
  e = sdk::OwnedError(attn_->vtbl->forward(attn_, &f));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugAttentionFwdArgs.params.cu_seqlens_q is NULL"), std::string::npos)
      << e.message();
  params.mask_type = TEPLUG_MASK_NONE;

  params.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  k.get()->strides[3] = 1;  // strides [0, 0, 0, 1]
  e = sdk::OwnedError(attn_->vtbl->forward(attn_, &f));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugAttentionFwdArgs.k.strides [0, 0, 0, 1] mix zero and non-zero"),
            std::string::npos)
      << e.message();
  k.get()->strides[3] = 0;

  params.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  params.bias_type = TEPLUG_BIAS_POST_SCALE;
  e = sdk::OwnedError(attn_->vtbl->forward(attn_, &f));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugAttentionFwdArgs.bias is NULL"), std::string::npos) << e.message();
}

}  // namespace
}  // namespace teplug::reference::provider
