// The cuDNN IAttention's fp8 path against a fake backend and a fake CUDA
// runtime: which scale reaches which graph input, where the amaxes go
// (the caller's, workspace scratch when untracked, the largest of several
// outputs that share one tensor), the statistics an fp8 inference keeps in
// the workspace, one-byte padding rows, and every refusal with its field.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "native/attention/cudnn_attention.h"
#include "native/attention/testing/fake_cudnn_attention_backend.h"
#include "native/attention/testing/host_tensor.h"
#include "native/device/testing/fake_cuda_runtime.h"
#include "teplug/sdk/error.hpp"

namespace teplug::native::attention {
namespace {

using native::testing::FakeCudaRuntime;
using testing::FakeCudnnAttentionBackend;

// TransformerEngine's fp8 shapes on Hopper: head dim 128, lengths multiples
// of 128 (cudnn_attention_support.h).
constexpr int64_t B = 2, S = 128, H = 2, D = 128;
constexpr size_t kElements = static_cast<size_t>(B * S * H * D);

// A per-tensor quantization with its three fp32 [1] tensors.
struct PerTensor {
  TeplugQuantization quant{};
  TeplugTensor scale{}, scale_inv{}, amax{};
  float values[3] = {64.0f, 1.0f / 64, -1.0f};  // scale, scale_inv, amax

  const void* scale_data() const { return &values[0]; }
  const void* scale_inv_data() const { return &values[1]; }
  float* amax_data() { return &values[2]; }
};

// A bshd e4m3 forward and backward with every scale, in host memory (the
// fakes read it).
struct Fp8Call {
  TeplugDevice device{sizeof(TeplugDevice), TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_NVIDIA, 0, 90};
  TeplugAttentionParams params{};
  TeplugTensor q{}, k{}, v{}, o{}, d_o{}, dq{}, dk{}, dv{}, lse{}, cu_q{}, cu_kv{};
  std::vector<uint8_t> q_mem, k_mem, v_mem, o_mem, d_o_mem, dq_mem, dk_mem, dv_mem;
  std::vector<float> lse_mem;
  std::vector<int32_t> cu_q_mem{0, 100, 228}, cu_kv_mem{0, 128, 192};
  PerTensor q_s, k_s, v_s, o_s, d_o_s, dq_s, dk_s, dv_s, s_s, dp_s;
  TeplugAttentionFwdArgs fwd{};
  TeplugAttentionBwdArgs bwd{};

  Fp8Call() {
    params.struct_size = sizeof(params);
    params.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
    params.mask_type = TEPLUG_MASK_CAUSAL;
    params.is_training = 1;
    params.batch = B;
    params.num_heads_q = params.num_heads_kv = H;
    params.head_dim_qk = params.head_dim_v = D;
    params.max_seqlen_q = params.max_seqlen_kv = S;
    params.window_left = params.window_right = -1;
    params.softmax_scale = 0.088f;
    struct {
      TeplugTensor* t;
      std::vector<uint8_t>* mem;
      PerTensor* s;
    } members[] = {{&q, &q_mem, &q_s},    {&k, &k_mem, &k_s},       {&v, &v_mem, &v_s},
                   {&o, &o_mem, &o_s},    {&d_o, &d_o_mem, &d_o_s}, {&dq, &dq_mem, &dq_s},
                   {&dk, &dk_mem, &dk_s}, {&dv, &dv_mem, &dv_s}};
    for (const auto& m : members) {
      m.mem->assign(kElements, 0x38);  // e4m3 1.0
      Init(m.t, m.mem->data(), {B, S, H, D}, TEPLUG_DTYPE_FP8_E4M3);
      Quantize(m.s);
      m.t->quant = &m.s->quant;
    }
    Quantize(&s_s);
    Quantize(&dp_s);
    lse_mem.assign(static_cast<size_t>(B * H * S), 1.5f);
    Init(&lse, lse_mem.data(), {B, H, S}, TEPLUG_DTYPE_FP32);
    Init(&cu_q, cu_q_mem.data(), {B + 1}, TEPLUG_DTYPE_INT32);
    Init(&cu_kv, cu_kv_mem.data(), {B + 1}, TEPLUG_DTYPE_INT32);
    fwd.struct_size = sizeof(fwd);
    fwd.params = &params;
    fwd.q = &q;
    fwd.k = &k;
    fwd.v = &v;
    fwd.o = &o;
    fwd.softmax_lse = &lse;
    fwd.s_quant = &s_s.quant;
    bwd.struct_size = sizeof(bwd);
    bwd.params = &params;
    bwd.q = &q;
    bwd.k = &k;
    bwd.v = &v;
    bwd.o = &o;
    bwd.d_o = &d_o;
    bwd.softmax_lse = &lse;
    bwd.dq = &dq;
    bwd.dk = &dk;
    bwd.dv = &dv;
    bwd.s_quant = &s_s.quant;
    bwd.dp_quant = &dp_s.quant;
  }
  Fp8Call(const Fp8Call&) = delete;

  void Init(TeplugTensor* t, void* data, std::vector<int64_t> shape, int32_t dtype) {
    testing::InitTensor(t, data, shape, dtype, &device);
  }
  void Quantize(PerTensor* s) {
    s->quant.struct_size = sizeof(s->quant);
    s->quant.mode = TEPLUG_SCALING_PER_TENSOR;
    Init(&s->scale, &s->values[0], {1}, TEPLUG_DTYPE_FP32);
    Init(&s->scale_inv, &s->values[1], {1}, TEPLUG_DTYPE_FP32);
    Init(&s->amax, &s->values[2], {1}, TEPLUG_DTYPE_FP32);
    s->quant.scale = &s->scale;
    s->quant.scale_inv = &s->scale_inv;
    s->quant.amax = &s->amax;
  }
  void Padding() {
    params.mask_type = TEPLUG_MASK_PADDING_CAUSAL;
    params.cu_seqlens_q = &cu_q;
    params.cu_seqlens_kv = &cu_kv;
  }
};

struct Fixture {
  FakeCudaRuntime runtime{{{"fake", 9, 0, uint64_t{80} << 30}}};
  FakeCudnnAttentionBackend backend;
  std::unique_ptr<sdk::AttentionImpl> attention =
      NewCudnnAttention(backend, runtime, kGraphCacheCapacity);
  std::vector<char> ws;

  std::string WhyNotForward(const TeplugAttentionFwdArgs& a) {
    std::string reason;
    EXPECT_FALSE(attention->SupportsForward(a, &reason));
    return reason;
  }
  std::string WhyNotBackward(const TeplugAttentionBwdArgs& a) {
    std::string reason;
    EXPECT_FALSE(attention->SupportsBackward(a, &reason));
    return reason;
  }
  SdpaBuffers Forward(TeplugAttentionFwdArgs a) {
    ws.assign(attention->ForwardWorkspaceSize(a), 0);
    a.workspace = ws.data();
    a.workspace_size = ws.size();
    attention->Forward(a);
    EXPECT_FALSE(backend.executions().empty());
    return backend.executions().empty() ? SdpaBuffers{} : backend.executions().back();
  }
  SdpaBuffers Backward(TeplugAttentionBwdArgs a) {
    ws.assign(attention->BackwardWorkspaceSize(a), 0);
    a.workspace = ws.data();
    a.workspace_size = ws.size();
    attention->Backward(a);
    EXPECT_FALSE(backend.executions().empty());
    return backend.executions().empty() ? SdpaBuffers{} : backend.executions().back();
  }
  SdpaWorkspaceLayout Layout() const {
    return LayOutWorkspace(backend.built().back(), backend.graph_workspace);
  }
  const char* At(size_t offset) const { return ws.data() + offset; }
};

TEST(CudnnAttentionFp8, ForwardHandsEachScaleToItsGraphInput) {
  Fixture f;
  Fp8Call c;
  const SdpaBuffers b = f.Forward(c.fwd);
  const SdpaProblem p = f.backend.built().at(0);
  EXPECT_TRUE(p.fp8);
  EXPECT_EQ(p.dtype, TEPLUG_DTYPE_FP8_E4M3);
  EXPECT_EQ(b.q, c.q_mem.data());
  EXPECT_EQ(b.o, c.o_mem.data());
  EXPECT_EQ(b.stats, c.lse_mem.data());
  EXPECT_EQ(b.fp8.descale_q, c.q_s.scale_inv_data());
  EXPECT_EQ(b.fp8.descale_k, c.k_s.scale_inv_data());
  EXPECT_EQ(b.fp8.descale_v, c.v_s.scale_inv_data());
  EXPECT_EQ(b.fp8.descale_s, c.s_s.scale_inv_data());
  EXPECT_EQ(b.fp8.scale_s, c.s_s.scale_data());
  EXPECT_EQ(b.fp8.scale_o, c.o_s.scale_data());
  EXPECT_EQ(b.fp8.amax_s, c.s_s.amax_data());
  EXPECT_EQ(b.fp8.amax_o, c.o_s.amax_data());
  // The graph wrote them; nothing had to be combined.
  EXPECT_EQ(*c.s_s.amax_data(), testing::kFakeAmaxS);
  EXPECT_EQ(*c.o_s.amax_data(), testing::kFakeAmaxO);
  EXPECT_EQ(f.backend.count("MaxOfAmaxes"), 0);
}

TEST(CudnnAttentionFp8, InferenceKeepsStatisticsAndUntrackedAmaxesInTheWorkspace) {
  Fixture f;
  Fp8Call c;
  c.params.is_training = 0;
  c.fwd.softmax_lse = nullptr;
  c.s_s.quant.amax = nullptr;
  c.o_s.quant.amax = nullptr;
  const SdpaBuffers b = f.Forward(c.fwd);
  const SdpaWorkspaceLayout w = f.Layout();
  EXPECT_EQ(f.ws.size(), w.total);
  ASSERT_NE(w.stats_scratch, SdpaWorkspaceLayout::kNone);
  EXPECT_GE(w.total, w.stats_scratch + static_cast<size_t>(B * H * S) * sizeof(float));
  EXPECT_EQ(b.stats, f.At(w.stats_scratch));
  // Each amax slot 16 bytes from the workspace's 256-byte-aligned scratch:
  // as aligned as the frontend declares every tensor.
  EXPECT_EQ(w.amax_scratch % 256, 0u);
  EXPECT_EQ(b.fp8.amax_s, f.At(w.amax_scratch));
  EXPECT_EQ(b.fp8.amax_o, f.At(w.amax_scratch + 16));
  EXPECT_EQ(*c.o_s.amax_data(), -1.0f);  // untracked: not written
  // A training forward has its LSE: no statistics scratch.
  Fp8Call training;
  f.Forward(training.fwd);
  EXPECT_EQ(f.Layout().stats_scratch, SdpaWorkspaceLayout::kNone);
}

TEST(CudnnAttentionFp8, AnInferenceGivenLseWritesItThereInsteadOfScratch) {
  Fixture f;
  Fp8Call c;
  c.params.is_training = 0;  // softmax_lse stays given
  const SdpaBuffers b = f.Forward(c.fwd);
  EXPECT_TRUE(f.backend.built().back().writes_lse);
  EXPECT_EQ(b.stats, c.lse_mem.data());
  EXPECT_EQ(f.Layout().stats_scratch, SdpaWorkspaceLayout::kNone);
}

TEST(CudnnAttentionFp8, BackwardHandsEachScaleToItsGraphInput) {
  Fixture f;
  Fp8Call c;
  const SdpaBuffers b = f.Backward(c.bwd);
  EXPECT_EQ(f.backend.built().at(0).grad_dtype, TEPLUG_DTYPE_FP8_E4M3);
  EXPECT_EQ(b.fp8.descale_o, c.o_s.scale_inv_data());
  EXPECT_EQ(b.fp8.descale_d_o, c.d_o_s.scale_inv_data());
  EXPECT_EQ(b.fp8.descale_s, c.s_s.scale_inv_data());
  EXPECT_EQ(b.fp8.scale_s, c.s_s.scale_data());
  EXPECT_EQ(b.fp8.descale_dp, c.dp_s.scale_inv_data());
  EXPECT_EQ(b.fp8.scale_dp, c.dp_s.scale_data());
  EXPECT_EQ(b.fp8.scale_dq, c.dq_s.scale_data());
  EXPECT_EQ(b.fp8.scale_dk, c.dk_s.scale_data());
  EXPECT_EQ(b.fp8.scale_dv, c.dv_s.scale_data());
  EXPECT_EQ(*c.dq_s.amax_data(), testing::kFakeAmaxDq);
  EXPECT_EQ(*c.dk_s.amax_data(), testing::kFakeAmaxDk);
  EXPECT_EQ(*c.dv_s.amax_data(), testing::kFakeAmaxDv);
  EXPECT_EQ(*c.dp_s.amax_data(), testing::kFakeAmaxDp);
  EXPECT_EQ(f.backend.count("MaxOfAmaxes"), 0);
}

TEST(CudnnAttentionFp8, GradientsSharingOneAmaxGetTheLargest) {
  // dK and dV in one tensor (as kv-packed layouts give them), then all three.
  Fixture f;
  Fp8Call kv;
  kv.dv.quant = &kv.dk_s.quant;
  const SdpaBuffers b = f.Backward(kv.bwd);
  const SdpaWorkspaceLayout w = f.Layout();
  EXPECT_EQ(b.fp8.amax_dq, kv.dq_s.amax_data());
  EXPECT_EQ(b.fp8.amax_dk, f.At(w.amax_scratch + 1 * 16));
  EXPECT_EQ(b.fp8.amax_dv, f.At(w.amax_scratch + 2 * 16));
  EXPECT_GE(w.total, w.amax_scratch + SdpaWorkspaceLayout::kAmaxSlots * 16);
  EXPECT_EQ(*kv.dk_s.amax_data(), std::max(testing::kFakeAmaxDk, testing::kFakeAmaxDv));
  EXPECT_EQ(*kv.dq_s.amax_data(), testing::kFakeAmaxDq);
  const std::vector<std::string> log = f.backend.log();
  ASSERT_GE(log.size(), 2u);
  EXPECT_EQ(log[log.size() - 2], "Execute");
  EXPECT_EQ(log.back(), "MaxOfAmaxes");

  Fp8Call qkv;
  qkv.dk.quant = qkv.dv.quant = &qkv.dq_s.quant;
  f.Backward(qkv.bwd);
  EXPECT_EQ(*qkv.dq_s.amax_data(),
            std::max({testing::kFakeAmaxDq, testing::kFakeAmaxDk, testing::kFakeAmaxDv}));
  EXPECT_EQ(*qkv.dp_s.amax_data(), testing::kFakeAmaxDp);
  EXPECT_EQ(f.backend.count("MaxOfAmaxes"), 2);
}

TEST(CudnnAttentionFp8, PaddingRowsAreZeroBytes) {
  Fixture f;
  Fp8Call c;
  c.Padding();
  c.o_mem.assign(kElements, 0x7F);  // e4m3 NaN: padding rows must lose it
  f.Forward(c.fwd);
  // Batch 0 has 100 query rows; batch 1 all 128.
  for (int64_t s = 0; s < S; ++s) {
    for (int64_t d : {int64_t{0}, D - 1}) {
      EXPECT_EQ(c.o_mem[static_cast<size_t>((0 * S + s) * H * D + d)], s < 100 ? 0x7F : 0) << s;
      EXPECT_EQ(c.o_mem[static_cast<size_t>((1 * S + s) * H * D + d)], 0x7F) << s;
    }
  }
  // Backward: batch 1 has 64 keys; dK rows 64.. of batch 1 are zero bytes.
  c.dk_mem.assign(kElements, 0x7F);
  f.Backward(c.bwd);
  for (int64_t s = 0; s < S; ++s) {
    EXPECT_EQ(c.dk_mem[static_cast<size_t>((1 * S + s) * H * D)], s < 64 ? 0x7F : 0) << s;
  }
}

TEST(CudnnAttentionFp8, E5m2GradientsAreServedAndMixedOnesRefused) {
  Fixture f;
  Fp8Call c;
  f.Backward(c.bwd);
  for (TeplugTensor* t : {&c.d_o, &c.dq, &c.dk, &c.dv}) t->dtype = TEPLUG_DTYPE_FP8_E5M2;
  f.Backward(c.bwd);
  EXPECT_EQ(f.backend.built().back().grad_dtype, TEPLUG_DTYPE_FP8_E5M2);
  EXPECT_EQ(f.backend.count("BuildGraph"), 2);  // the gradients' dtype is part of the signature
  c.dq.dtype = TEPLUG_DTYPE_FP8_E4M3;
  EXPECT_EQ(
      f.WhyNotBackward(c.bwd),
      "native attention: dq has dtype fp8_e4m3; cuDNN writes dQ, dK and dV in dO's dtype fp8_e5m2");
  for (TeplugTensor* t : {&c.d_o, &c.dq, &c.dk, &c.dv}) t->dtype = TEPLUG_DTYPE_BF16;
  EXPECT_EQ(f.WhyNotBackward(c.bwd),
            "native attention: d_o has dtype bf16; native's fp8 backward takes an fp8 dO");
}

TEST(CudnnAttentionFp8, RefusalsNameTheField) {
  Fixture f;
  auto forward = [&f](void (*change)(Fp8Call&)) {
    Fp8Call c;
    change(c);
    return f.WhyNotForward(c.fwd);
  };
  EXPECT_EQ(
      forward([](Fp8Call& c) { c.fwd.s_quant = nullptr; }),
      "native attention: s_quant is NULL; cuDNN's fp8 attention quantizes P with its scale and "
      "scale_inv");
  EXPECT_EQ(forward([](Fp8Call& c) { c.k.quant = nullptr; }),
            "native attention: k.quant is NULL; fp8 attention needs k's per-tensor scales");
  EXPECT_EQ(forward([](Fp8Call& c) { c.q_s.quant.mode = TEPLUG_SCALING_MXFP8_1D32; }),
            "native attention: q.quant.mode is mxfp8_1d32; native's fp8 attention takes per_tensor "
            "scales");
  EXPECT_EQ(forward([](Fp8Call& c) { c.v_s.quant.scale_inv = nullptr; }),
            "native attention: v.quant.scale_inv is NULL; fp8 attention needs it");
  EXPECT_EQ(forward([](Fp8Call& c) { c.o_s.quant.scale = nullptr; }),
            "native attention: o.quant.scale is NULL; fp8 attention needs it");
  EXPECT_EQ(
      forward([](Fp8Call& c) { c.s_s.scale.dtype = TEPLUG_DTYPE_BF16; }),
      "native attention: s_quant.scale must be fp32 with one element, got dtype bf16 shape [1]");
  EXPECT_EQ(
      forward([](Fp8Call& c) { c.s_s.amax.shape[0] = 2; }),
      "native attention: s_quant.amax must be fp32 with one element, got dtype fp32 shape [2]");
  EXPECT_EQ(forward([](Fp8Call& c) {
              static const TeplugDevice other{sizeof(TeplugDevice), TEPLUG_DEVICE_CUDA,
                                              TEPLUG_VENDOR_NVIDIA, 1, 90};
              c.q_s.scale_inv.device = &other;
            }),
            "native attention: q.quant.scale_inv must be on cuda:0 with the tensors it scales");
  EXPECT_EQ(
      forward([](Fp8Call& c) { c.o.dtype = TEPLUG_DTYPE_BF16; }),
      "native attention: o has dtype bf16; native's fp8 attention keeps O in q's dtype fp8_e4m3");
  // supports() takes scales without data; the call itself needs them.
  Fp8Call c;
  c.q_s.scale_inv.data = nullptr;
  std::string reason;
  EXPECT_TRUE(f.attention->SupportsForward(c.fwd, &reason)) << reason;
  f.ws.assign(f.attention->ForwardWorkspaceSize(c.fwd), 0);
  c.fwd.workspace = f.ws.data();
  c.fwd.workspace_size = f.ws.size();
  try {
    f.attention->Forward(c.fwd);
    FAIL() << "a NULL descale was run";
  } catch (const sdk::Exception& e) {
    EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(e.what()), "native attention: q.quant.scale_inv.data is NULL");
  }

  auto backward = [&f](void (*change)(Fp8Call&)) {
    Fp8Call c;
    change(c);
    return f.WhyNotBackward(c.bwd);
  };
  EXPECT_EQ(
      backward([](Fp8Call& c) { c.bwd.dp_quant = nullptr; }),
      "native attention: dp_quant is NULL; cuDNN's fp8 attention quantizes dP with its scale and "
      "scale_inv");
  EXPECT_EQ(backward([](Fp8Call& c) { c.d_o_s.quant.scale_inv = nullptr; }),
            "native attention: d_o.quant.scale_inv is NULL; fp8 attention needs it");
  EXPECT_EQ(backward([](Fp8Call& c) { c.dv_s.quant.scale = nullptr; }),
            "native attention: dv.quant.scale is NULL; fp8 attention needs it");
}

TEST(CudnnAttentionFp8, WhatTheFrontendsFp8BackwardLacksIsNamed) {
  Fixture f;
  Fp8Call deterministic;
  deterministic.params.deterministic = 1;
  EXPECT_EQ(f.WhyNotBackward(deterministic.bwd),
            "native attention: deterministic fp8 backward: native's cuDNN frontend has no "
            "determinism option for fp8 "
            "backward");
  // The forward of the same call is served.
  std::string reason;
  EXPECT_TRUE(f.attention->SupportsForward(deterministic.fwd, &reason)) << reason;
}

TEST(CudnnAttentionFp8, TheRuleTableRefusesWindowsBeforeBlackwellAnd921) {
  Fixture f;
  Fp8Call c;
  c.params.mask_type = TEPLUG_MASK_NONE;
  c.params.window_left = 64;
  c.params.window_right = 0;
  EXPECT_EQ(f.WhyNotForward(c.fwd),
            "native attention: cuDNN 9.19 on sm_90: fp8 with sliding window (64, 0) needs sm_100 "
            "and cuDNN 9.21");
}

}  // namespace
}  // namespace teplug::native::attention
