// IAttention v1 through the ABI. Layout buffers are built here with this
// test's own index formulas (independent of kernels/qkv_layout.cc):
//   - every one of the 15 layouts gives bitwise the same O, LSE, dQ, dK, dV as
//     bshd_bshd_bshd after re-layout (causal, GQA-free since packed layouts
//     need hq == hkv), forward and backward;
//   - bshd_bshd_bshd O matches a naive causal softmax attention written here
//     (fp32 output: relative 2^-23);
//   - THD with cu_seqlens equals padded BSHD with a padding mask, bitwise, with
//     GQA, head_dim_qk != head_dim_v and dropout; empty rows have LSE -inf;
//   - errors name the args field.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/provider/reference_entry.h"
#include "plugins/reference/provider/testing/abi_tensor.h"
#include "plugins/reference/provider/testing/direct_host.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider {
namespace {

using testing::AbiTensor;

// Problem extents; canonical arrays are [B][H][S][D].
struct Dims {
  int64_t b, sq, skv, hq, hkv, dqk, dv;
};

// This test's description of a layout: format and packing.
struct LayoutSpec {
  char format;       // 's' sbhd, 'b' bshd, 't' thd
  int pack;          // 0 separate, 3 qkv, 2 kv
  bool heads_first;  // h3d / h2d: pack axis after the heads
};

LayoutSpec SpecOf(int32_t layout) {
  const std::string name = sdk::LayoutName(layout);
  LayoutSpec s;
  s.format = name[0] == 's' ? 's' : (name[0] == 'b' ? 'b' : 't');
  s.pack = name.find('3') != std::string::npos ? 3 : (name.find('2') != std::string::npos ? 2 : 0);
  s.heads_first = name.find("h3d") != std::string::npos || name.find("h2d") != std::string::npos;
  return s;
}

// Which tensor: 0 q, 1 k, 2 v.
bool Packed(const LayoutSpec& s, int which) { return s.pack == 3 || (s.pack == 2 && which > 0); }

std::vector<int64_t> BufferShape(const LayoutSpec& s, const Dims& d, int which, int64_t tokens) {
  const int64_t seq = which == 0 ? d.sq : d.skv;
  const int64_t h = which == 0 ? d.hq : d.hkv;
  const int64_t dim = which == 2 ? d.dv : d.dqk;
  std::vector<int64_t> shape = s.format == 's' ? std::vector<int64_t>{seq, d.b}
                               : s.format == 'b' ? std::vector<int64_t>{d.b, seq}
                                                 : std::vector<int64_t>{tokens};
  if (!Packed(s, which)) {
    shape.insert(shape.end(), {h, dim});
  } else if (s.heads_first) {
    shape.insert(shape.end(), {h, s.pack, dim});
  } else {
    shape.insert(shape.end(), {s.pack, h, dim});
  }
  return shape;
}

int64_t Offset(const LayoutSpec& s, const Dims& d, int which, const std::vector<int64_t>& cu,
               int64_t b, int64_t i, int64_t h, int64_t e) {
  const int64_t seq = which == 0 ? d.sq : d.skv;
  const int64_t heads = which == 0 ? d.hq : d.hkv;
  const int64_t dim = which == 2 ? d.dv : d.dqk;
  const int64_t lead = s.format == 's' ? i * d.b + b : s.format == 'b' ? b * seq + i : cu[b] + i;
  if (!Packed(s, which)) return (lead * heads + h) * dim + e;
  const int64_t member = s.pack == 3 ? which : which - 1;
  if (s.heads_first) return ((lead * heads + h) * s.pack + member) * dim + e;
  return ((lead * s.pack + member) * heads + h) * dim + e;
}

// Writes canonical [B][H][S][D] arrays into one layout buffer of `n` elements.
void Scatter(const LayoutSpec& s, const Dims& d, int which, const std::vector<int64_t>& cu,
             const std::vector<int64_t>& lens, const std::vector<double>& canon,
             std::vector<double>* buffer) {
  const int64_t seq = which == 0 ? d.sq : d.skv;
  const int64_t heads = which == 0 ? d.hq : d.hkv;
  const int64_t dim = which == 2 ? d.dv : d.dqk;
  for (int64_t b = 0; b < d.b; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < lens[b]; ++i)
        for (int64_t e = 0; e < dim; ++e)
          (*buffer)[Offset(s, d, which, cu, b, i, h, e)] = canon[((b * heads + h) * seq + i) * dim + e];
}

std::vector<double> Gather(const LayoutSpec& s, const Dims& d, int which,
                           const std::vector<int64_t>& cu, const std::vector<int64_t>& lens,
                           const std::vector<double>& buffer) {
  const int64_t seq = which == 0 ? d.sq : d.skv;
  const int64_t heads = which == 0 ? d.hq : d.hkv;
  const int64_t dim = which == 2 ? d.dv : d.dqk;
  std::vector<double> canon(static_cast<size_t>(d.b * heads * seq * dim), 0.0);
  for (int64_t b = 0; b < d.b; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < lens[b]; ++i)
        for (int64_t e = 0; e < dim; ++e)
          canon[((b * heads + h) * seq + i) * dim + e] = buffer[Offset(s, d, which, cu, b, i, h, e)];
  return canon;
}

// Results of one forward + backward, in canonical form.
struct Outputs {
  std::vector<double> o, lse, dq, dk, dv;
};

class AttentionProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host_.Run(&teplug_reference_entry).ok());
    attn_ = testing::Find<TeplugAttentionV1>(host_.recorded, sdk::kIidAttentionV1);
    ASSERT_NE(attn_, nullptr);
  }

  // Runs forward then backward for `layout` on canonical inputs; returns
  // canonical outputs. cu/lens describe the sequences (cu used for thd and
  // padding masks).
  Outputs RunLayout(int32_t layout, TeplugAttentionParams params, const Dims& d,
                const std::vector<int64_t>& cu_q, const std::vector<int64_t>& cu_kv,
                const std::vector<double>& q, const std::vector<double>& k,
                const std::vector<double>& v, const std::vector<double>& d_o) {
    const LayoutSpec s = SpecOf(layout);
    params.layout = layout;
    std::vector<int64_t> lq, lkv;
    for (int64_t b = 0; b < d.b; ++b) {
      lq.push_back(s.format == 't' ? cu_q[b + 1] - cu_q[b] : d.sq);
      lkv.push_back(s.format == 't' ? cu_kv[b + 1] - cu_kv[b] : d.skv);
    }
    const int64_t tq = cu_q.back(), tkv = cu_kv.back();
    // Input buffers: one per distinct buffer of the layout.
    std::vector<std::unique_ptr<AbiTensor>> in(3), grad(3);
    const std::vector<double>* canon[] = {&q, &k, &v};
    for (int w = 0; w < 3; ++w) {
      const int owner = s.pack == 3 ? 0 : (s.pack == 2 && w == 2 ? 1 : w);
      if (owner != w) continue;
      const auto shape = BufferShape(s, d, w, w == 0 ? tq : tkv);
      in[w] = std::make_unique<AbiTensor>(TEPLUG_DTYPE_FP32, shape);
      grad[w] = std::make_unique<AbiTensor>(TEPLUG_DTYPE_FP32, shape);
      std::vector<double> buffer(static_cast<size_t>(in[w]->count()), 0.0);
      for (int m = 0; m < 3; ++m) {
        const int mo = s.pack == 3 ? 0 : (s.pack == 2 && m == 2 ? 1 : m);
        if (mo == w) Scatter(s, d, m, m == 0 ? cu_q : cu_kv, m == 0 ? lq : lkv, *canon[m], &buffer);
      }
      in[w]->Fill(buffer);
    }
    auto member = [&](std::vector<std::unique_ptr<AbiTensor>>& v, int w) {
      const int owner = s.pack == 3 ? 0 : (s.pack == 2 && w == 2 ? 1 : w);
      return v[owner]->get();
    };
    const LayoutSpec os{s.format, 0, false};
    const Dims od{d.b, d.sq, d.sq, d.hq, d.hq, d.dv, d.dv};
    AbiTensor o(TEPLUG_DTYPE_FP32, BufferShape(os, od, 0, tq));
    AbiTensor d_o_t(TEPLUG_DTYPE_FP32, BufferShape(os, od, 0, tq));
    std::vector<double> dob(static_cast<size_t>(d_o_t.count()), 0.0);
    Scatter(os, od, 0, cu_q, lq, d_o, &dob);
    d_o_t.Fill(dob);
    AbiTensor lse(TEPLUG_DTYPE_FP32, {d.b, d.hq, d.sq});
    AbiTensor cq(TEPLUG_DTYPE_INT32, {d.b + 1}), ckv(TEPLUG_DTYPE_INT32, {d.b + 1});
    cq.Fill(std::vector<double>(cu_q.begin(), cu_q.end()));
    ckv.Fill(std::vector<double>(cu_kv.begin(), cu_kv.end()));
    const bool padding = params.mask_type == TEPLUG_MASK_PADDING ||
                         params.mask_type == TEPLUG_MASK_PADDING_CAUSAL ||
                         params.mask_type == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
    if (s.format == 't' || padding) {
      params.cu_seqlens_q = cq.get();
      params.cu_seqlens_kv = ckv.get();
    }
    TeplugAttentionFwdArgs f = sdk::Versioned<TeplugAttentionFwdArgs>();
    f.params = &params;
    f.q = member(in, 0);
    f.k = member(in, 1);
    f.v = member(in, 2);
    f.o = o.get();
    f.softmax_lse = lse.get();
    sdk::OwnedError e(attn_->vtbl->forward(attn_, &f));
    EXPECT_TRUE(e.ok()) << sdk::LayoutName(layout) << ": " << e.message();
    TeplugAttentionBwdArgs bw = sdk::Versioned<TeplugAttentionBwdArgs>();
    bw.params = &params;
    bw.q = f.q;
    bw.k = f.k;
    bw.v = f.v;
    bw.o = o.get();
    bw.d_o = d_o_t.get();
    bw.softmax_lse = lse.get();
    bw.dq = member(grad, 0);
    bw.dk = member(grad, 1);
    bw.dv = member(grad, 2);
    e = sdk::OwnedError(attn_->vtbl->backward(attn_, &bw));
    EXPECT_TRUE(e.ok()) << sdk::LayoutName(layout) << ": " << e.message();
    Outputs r;
    r.o = Gather(os, od, 0, cu_q, lq, o.Values());
    r.lse = lse.Values();
    r.dq = Gather(s, d, 0, cu_q, lq, grad[0]->Values());
    r.dk = Gather(s, d, 1, cu_kv, lkv, member(grad, 1) == grad[0]->get() ? grad[0]->Values()
                                                                         : grad[1]->Values());
    const AbiTensor* dv_owner = s.pack == 3 ? grad[0].get() : (s.pack == 2 ? grad[1].get() : grad[2].get());
    r.dv = Gather(s, d, 2, cu_kv, lkv, dv_owner->Values());
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
  const Outputs want = RunLayout(TEPLUG_LAYOUT_BSHD_BSHD_BSHD, params, d, cu, cu, q, k, v, d_o);

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
  for (int32_t layout = 0; layout < TEPLUG_LAYOUT_COUNT_; ++layout) {
    SCOPED_TRACE(sdk::LayoutName(layout));
    const Outputs got = RunLayout(layout, params, d, cu, cu, q, k, v, d_o);
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
  const Outputs padded = RunLayout(TEPLUG_LAYOUT_BSHD_BSHD_BSHD, params, d, cu_q, cu_kv, q, k, v, d_o);
  const Outputs thd = RunLayout(TEPLUG_LAYOUT_THD_THD_THD, params, d, cu_q, cu_kv, q, k, v, d_o);
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
  EXPECT_NE(e.message().find("TeplugAttentionFwdArgs.params.cu_seqlens_q is NULL"), std::string::npos)
      << e.message();

  params.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  params.bias_type = TEPLUG_BIAS_POST_SCALE;
  e = sdk::OwnedError(attn_->vtbl->forward(attn_, &f));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("TeplugAttentionFwdArgs.bias is NULL"), std::string::npos) << e.message();
}

}  // namespace
}  // namespace teplug::reference::provider
