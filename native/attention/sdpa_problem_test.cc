// teplug's attention arguments as cuDNN's [B, H, S, D] views, for every
// layout family, packed members and explicit strides; and each refusal's
// status and message. No GPU: tensors carry a CUDA device and no data.
#include "native/attention/sdpa_problem.h"

#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace teplug::native::attention {
namespace {

constexpr int64_t B = 2, S = 16, SKV = 32, HQ = 4, HKV = 2, D = 64;

TeplugDevice Cuda(int ordinal) { return {sizeof(TeplugDevice), TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_NVIDIA, ordinal, 90}; }

struct Call {
  TeplugDevice device = Cuda(0);
  TeplugAttentionParams params{};
  std::vector<TeplugTensor> store = std::vector<TeplugTensor>(8);
  TeplugAttentionFwdArgs args{};

  explicit Call(int32_t layout, int64_t heads_kv = HKV) {
    params.struct_size = sizeof(params);
    params.layout = layout;
    params.batch = B;
    params.num_heads_q = HQ;
    params.num_heads_kv = heads_kv;
    params.head_dim_qk = D;
    params.head_dim_v = D;
    params.max_seqlen_q = S;
    params.max_seqlen_kv = SKV;
    params.window_left = params.window_right = -1;
    params.softmax_scale = 0.125f;
    args.struct_size = sizeof(args);
    args.params = &params;
  }
  TeplugTensor* Tensor(int slot, std::vector<int64_t> shape, int32_t dtype = TEPLUG_DTYPE_BF16) {
    TeplugTensor& t = store[static_cast<size_t>(slot)];
    t = TeplugTensor{};
    t.struct_size = sizeof(t);
    t.dtype = dtype;
    t.rank = static_cast<int32_t>(shape.size());
    for (size_t i = 0; i < shape.size(); ++i) t.shape[i] = shape[i];
    t.device = &device;
    return &t;
  }
};

// Q, K, V and O as separate bshd tensors.
Call Bshd() {
  Call c(TEPLUG_LAYOUT_BSHD_BSHD_BSHD);
  c.args.q = c.Tensor(0, {B, S, HQ, D});
  c.args.k = c.Tensor(1, {B, SKV, HKV, D});
  c.args.v = c.Tensor(2, {B, SKV, HKV, D});
  c.args.o = c.Tensor(3, {B, S, HQ, D});
  return c;
}

TEST(SdpaProblem, BshdViewsAreBatchHeadSeqDim) {
  Call c = Bshd();
  absl::StatusOr<SdpaProblem> p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->q.dims, (std::array<int64_t, 4>{B, HQ, S, D}));
  EXPECT_EQ(p->q.strides, (std::array<int64_t, 4>{S * HQ * D, D, HQ * D, 1}));
  EXPECT_EQ(p->k.dims, (std::array<int64_t, 4>{B, HKV, SKV, D}));
  EXPECT_EQ(p->k.strides, (std::array<int64_t, 4>{SKV * HKV * D, D, HKV * D, 1}));
  EXPECT_EQ(p->o.strides, (std::array<int64_t, 4>{S * HQ * D, D, HQ * D, 1}));
  EXPECT_EQ(p->q.element_offset, 0);
  EXPECT_FALSE(p->ragged);
  EXPECT_FALSE(p->backward);
  EXPECT_EQ(p->heads_kv, HKV);
}

TEST(SdpaProblem, SbhdViewsPutTheBatchBetweenSequenceAndHeads) {
  Call c(TEPLUG_LAYOUT_SBHD_SBHD_SBHD);
  c.args.q = c.Tensor(0, {S, B, HQ, D});
  c.args.k = c.Tensor(1, {SKV, B, HKV, D});
  c.args.v = c.Tensor(2, {SKV, B, HKV, D});
  c.args.o = c.Tensor(3, {S, B, HQ, D});
  absl::StatusOr<SdpaProblem> p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->q.strides, (std::array<int64_t, 4>{HQ * D, D, B * HQ * D, 1}));
  EXPECT_EQ(p->v.strides, (std::array<int64_t, 4>{HKV * D, D, B * HKV * D, 1}));
  EXPECT_EQ(p->o.strides, (std::array<int64_t, 4>{HQ * D, D, B * HQ * D, 1}));
}

TEST(SdpaProblem, QkvPackedMembersAreOffsetsAlongThePackingAxis) {
  Call c(TEPLUG_LAYOUT_BS3HD, HQ);
  c.params.max_seqlen_kv = S;
  TeplugTensor* qkv = c.Tensor(0, {B, S, 3, HQ, D});
  c.args.q = c.args.k = c.args.v = qkv;
  c.args.o = c.Tensor(3, {B, S, HQ, D});
  absl::StatusOr<SdpaProblem> p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->q.strides, (std::array<int64_t, 4>{S * 3 * HQ * D, D, 3 * HQ * D, 1}));
  EXPECT_EQ(p->q.element_offset, 0);
  EXPECT_EQ(p->k.element_offset, HQ * D);
  EXPECT_EQ(p->v.element_offset, 2 * HQ * D);

  Call h(TEPLUG_LAYOUT_SBH3D, HQ);
  h.params.max_seqlen_kv = S;
  qkv = h.Tensor(0, {S, B, HQ, 3, D});
  h.args.q = h.args.k = h.args.v = qkv;
  h.args.o = h.Tensor(3, {S, B, HQ, D});
  p = SdpaProblemOfForward(h.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->q.strides, (std::array<int64_t, 4>{HQ * 3 * D, 3 * D, B * HQ * 3 * D, 1}));
  EXPECT_EQ(p->k.element_offset, D);
  EXPECT_EQ(p->v.element_offset, 2 * D);
}

TEST(SdpaProblem, KvPackedMembersAreKThenV) {
  Call c(TEPLUG_LAYOUT_BSHD_BS2HD);
  c.args.q = c.Tensor(0, {B, S, HQ, D});
  TeplugTensor* kv = c.Tensor(1, {B, SKV, 2, HKV, D});
  c.args.k = c.args.v = kv;
  c.args.o = c.Tensor(3, {B, S, HQ, D});
  absl::StatusOr<SdpaProblem> p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->k.element_offset, 0);
  EXPECT_EQ(p->v.element_offset, HKV * D);
  EXPECT_EQ(p->k.strides, (std::array<int64_t, 4>{SKV * 2 * HKV * D, D, 2 * HKV * D, 1}));
}

TEST(SdpaProblem, ThdViewsAreRaggedWithTokenStrides) {
  Call c(TEPLUG_LAYOUT_THD_TH2D);
  c.params.mask_type = TEPLUG_MASK_PADDING;
  TeplugTensor* cu_q = c.Tensor(5, {B + 1}, TEPLUG_DTYPE_INT32);
  TeplugTensor* cu_kv = c.Tensor(6, {B + 1}, TEPLUG_DTYPE_INT32);
  c.params.cu_seqlens_q = cu_q;
  c.params.cu_seqlens_kv = cu_kv;
  const int64_t tq = 20, tkv = 50;
  c.args.q = c.Tensor(0, {tq, HQ, D});
  TeplugTensor* kv = c.Tensor(1, {tkv, HKV, 2, D});
  c.args.k = c.args.v = kv;
  c.args.o = c.Tensor(3, {tq, HQ, D});
  absl::StatusOr<SdpaProblem> p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->ragged);
  EXPECT_TRUE(p->padding);
  EXPECT_EQ(p->q.token_stride, HQ * D);
  EXPECT_EQ(p->k.token_stride, HKV * 2 * D);
  EXPECT_EQ(p->q.dims, (std::array<int64_t, 4>{B, HQ, S, D}));
  EXPECT_EQ(p->q.strides, (std::array<int64_t, 4>{S * HQ * D, D, HQ * D, 1}));
  EXPECT_EQ(p->k.strides, (std::array<int64_t, 4>{SKV * HKV * 2 * D, 2 * D, HKV * 2 * D, 1}));
  EXPECT_EQ(p->v.element_offset, D);
  EXPECT_EQ(p->o.token_stride, HQ * D);
}

TEST(SdpaProblem, ExplicitStridesDescribeAHeadMajorMemoryOrder) {
  Call c = Bshd();
  TeplugTensor* q = &c.store[0];
  // [B, S, H, D] shape over [B, H, S, D] memory (a bhsd tensor).
  const int64_t strides[4] = {HQ * S * D, D, S * D, 1};
  for (int i = 0; i < 4; ++i) q->strides[i] = strides[i];
  absl::StatusOr<SdpaProblem> p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->q.strides, (std::array<int64_t, 4>{HQ * S * D, S * D, D, 1}));
}

TEST(SdpaProblem, MasksSetDiagonalAndWindow) {
  Call c = Bshd();
  c.params.mask_type = TEPLUG_MASK_CAUSAL;
  absl::StatusOr<SdpaProblem> p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->causal);
  EXPECT_FALSE(p->bottom_right);
  EXPECT_EQ(p->window_right, 0);  // causal implies it, whatever was passed
  c.params.mask_type = TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT;
  c.params.window_left = 8;
  p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->bottom_right);
  EXPECT_EQ(p->window_left, 8);
  c.params.mask_type = TEPLUG_MASK_NONE;  // non-causal masks: bottom-right diagonal
  c.params.window_right = 3;
  p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->causal);
  EXPECT_TRUE(p->bottom_right);
  EXPECT_EQ(p->window_right, 3);
  // A padding mask without cu_seqlens is no padding at all.
  c.params.mask_type = TEPLUG_MASK_PADDING;
  p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->padding);
}

// Without padding and with equal lengths the bottom-right diagonal is the
// top-left one, which cuDNN takes with bias, ALiBi and dropout.
TEST(SdpaProblem, EqualLengthsWithoutPaddingUseTheTopLeftDiagonal) {
  Call c = Bshd();
  c.params.mask_type = TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT;
  absl::StatusOr<SdpaProblem> p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->bottom_right);  // S 16 < SKV 32: the diagonals differ
  c.params.max_seqlen_kv = S;
  c.Tensor(1, {B, S, HKV, D});
  c.Tensor(2, {B, S, HKV, D});
  p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->causal);
  EXPECT_FALSE(p->bottom_right);
  EXPECT_EQ(p->window_right, 0);
  c.params.mask_type = TEPLUG_MASK_NONE;  // the same for a non-causal window
  c.params.window_right = 4;
  p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->bottom_right);
  // A padding mask gives each sequence its own lengths: bottom-right stays.
  c.params.mask_type = TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
  c.params.cu_seqlens_q = c.Tensor(5, {B + 1}, TEPLUG_DTYPE_INT32);
  c.params.cu_seqlens_kv = c.Tensor(6, {B + 1}, TEPLUG_DTYPE_INT32);
  p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->padding);
  EXPECT_TRUE(p->bottom_right);
}

// attention.h allows softmax_lse in an inference: it is checked as in
// training, written, and part of the graph's signature.
TEST(SdpaProblem, AnInferenceMayAskForLse) {
  Call c = Bshd();
  absl::StatusOr<SdpaProblem> p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->writes_lse);
  const std::vector<int64_t> without = SdpaProblemWords(*p);
  c.args.softmax_lse = c.Tensor(4, {B, HQ, S}, TEPLUG_DTYPE_FP32);
  p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->writes_lse);
  EXPECT_FALSE(p->training);
  EXPECT_NE(SdpaProblemWords(*p), without);
  c.args.softmax_lse = c.Tensor(4, {B, HQ, S}, TEPLUG_DTYPE_BF16);
  p = SdpaProblemOfForward(c.args);
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      p.status().message(),
      "native attention: softmax_lse must be fp32 [2, 4, 16], got dtype bf16 shape [2, 4, 16]");
}

TEST(SdpaProblem, TrainingNeedsAContiguousFp32Lse) {
  Call c = Bshd();
  c.params.is_training = 1;
  c.params.dropout = 0.25f;
  absl::StatusOr<SdpaProblem> p = SdpaProblemOfForward(c.args);
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(), "native attention: softmax_lse is NULL; training needs it");
  c.args.softmax_lse = c.Tensor(4, {B, HQ, S}, TEPLUG_DTYPE_FP32);
  p = SdpaProblemOfForward(c.args);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->dropout);
  EXPECT_FLOAT_EQ(p->dropout_probability, 0.25f);
  c.args.softmax_lse = c.Tensor(4, {B, HQ, S}, TEPLUG_DTYPE_BF16);
  p = SdpaProblemOfForward(c.args);
  EXPECT_EQ(p.status().message(), "native attention: softmax_lse must be fp32 [2, 4, 16], got dtype bf16 shape [2, 4, 16]");
}

TEST(SdpaProblem, RefusalsNameFieldAndValue) {
  struct Case {
    const char* what;
    std::function<void(Call&)> change;
    absl::StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"wrong shape",
       [](Call& c) {
         c.Tensor(1, {B, SKV, HQ, D});
       },
       absl::StatusCode::kInvalidArgument,
       "native attention: k has shape [2, 32, 4, 64] but layout bshd_bshd_bshd needs [2, 32, 2, "
       "64]"},
      {"heads", [](Call& c) { c.params.num_heads_kv = 3; }, absl::StatusCode::kInvalidArgument,
       "native attention: params.num_heads_q 4 is not a multiple of num_heads_kv 3"},
      {"batch", [](Call& c) { c.params.batch = 0; }, absl::StatusCode::kInvalidArgument,
       "native attention: params.batch is 0; it must be positive"},
      {"mixed strides", [](Call& c) { c.store[0].strides[0] = 5; },
       absl::StatusCode::kInvalidArgument,
       "native attention: q mixes zero and nonzero strides [5, 0, 0, 0]"},
      {"head stride",
       [](Call& c) {
         const int64_t s[4] = {S * HQ * D * 2, HQ * D * 2, D * 2, 2};
         for (int i = 0; i < 4; ++i) c.store[0].strides[i] = s[i];
       },
       absl::StatusCode::kUnimplemented,
       "native attention: q's head-dim stride is 2; cuDNN needs 1"},
      {"host tensor", [](Call& c) { c.store[2].device = nullptr; },
       absl::StatusCode::kUnimplemented,
       "native attention: v is not on a CUDA device (kind 1); native runs attention on CUDA "
       "devices"},
      {"other gpu",
       [](Call& c) {
         static const TeplugDevice other = Cuda(1);
         c.store[2].device = &other;
       },
       absl::StatusCode::kInvalidArgument, "native attention: v is on cuda:1, q on cuda:0"},
      {"dtype mix", [](Call& c) { c.store[1].dtype = TEPLUG_DTYPE_FP16; },
       absl::StatusCode::kUnimplemented,
       "native attention: q, k, v dtypes bf16, fp16, bf16 differ; cuDNN takes one"},
      {"o dtype", [](Call& c) { c.store[3].dtype = TEPLUG_DTYPE_FP32; },
       absl::StatusCode::kInvalidArgument, "native attention: o has dtype fp32; q has bf16"},
      {"bias missing", [](Call& c) { c.params.bias_type = TEPLUG_BIAS_POST_SCALE; },
       absl::StatusCode::kInvalidArgument,
       "native attention: bias is NULL but params.bias_type is post_scale"},
      {"bias shape",
       [](Call& c) {
         c.params.bias_type = TEPLUG_BIAS_POST_SCALE;
         c.args.bias = c.Tensor(4, {1, 3, S, SKV});
       },
       absl::StatusCode::kInvalidArgument,
       "native attention: bias has shape [1, 3, 16, 32]; it must be [1 or 2, 1 or 4, 16, 32]"},
      {"bias dtype",
       [](Call& c) {
         c.params.bias_type = TEPLUG_BIAS_POST_SCALE;
         c.args.bias = c.Tensor(4, {1, HQ, S, SKV}, TEPLUG_DTYPE_FP32);
       },
       absl::StatusCode::kUnimplemented,
       "native attention: bias has dtype fp32; cuDNN takes it in q's dtype bf16"},
      {"thd mask", [](Call& c) { c.params.layout = TEPLUG_LAYOUT_THD_THD_THD; },
       absl::StatusCode::kInvalidArgument,
       "native attention: layout thd_thd_thd needs a padding mask type, got none"},
      {"dropout",
       [](Call& c) {
         c.params.is_training = 1;
         c.params.dropout = 1.0f;
       },
       absl::StatusCode::kInvalidArgument, "native attention: params.dropout 1 is outside [0, 1)"},
      {"window", [](Call& c) { c.params.window_left = -2; }, absl::StatusCode::kInvalidArgument,
       "native attention: params.window_left/right (-2, -1) must be -1 or >= 0"},
  };
  for (const Case& k : cases) {
    Call c = Bshd();
    k.change(c);
    absl::StatusOr<SdpaProblem> p = SdpaProblemOfForward(c.args);
    EXPECT_EQ(p.status().code(), k.code) << k.what << ": " << p.status();
    EXPECT_EQ(p.status().message(), k.message) << k.what;
  }
}

TEST(SdpaProblem, PackedLayoutsNeedOneTensor) {
  Call c(TEPLUG_LAYOUT_BSHD_BS2HD);
  c.args.q = c.Tensor(0, {B, S, HQ, D});
  c.args.k = c.Tensor(1, {B, SKV, 2, HKV, D});
  c.args.v = c.Tensor(2, {B, SKV, 2, HKV, D});
  c.args.o = c.Tensor(3, {B, S, HQ, D});
  absl::StatusOr<SdpaProblem> p = SdpaProblemOfForward(c.args);
  EXPECT_EQ(p.status().message(), "native attention: layout bshd_bs2hd is packed: k and v must be the same tensor");
}

TEST(SdpaProblem, BackwardViewsTheGradientsWithTheirOwnStrides) {
  Call c = Bshd();
  c.params.is_training = 1;
  c.params.bias_type = TEPLUG_BIAS_POST_SCALE;
  TeplugAttentionBwdArgs a{};
  a.struct_size = sizeof(a);
  a.params = &c.params;
  a.q = c.args.q;
  a.k = c.args.k;
  a.v = c.args.v;
  a.o = c.args.o;
  a.softmax_lse = c.Tensor(4, {B, HQ, S}, TEPLUG_DTYPE_FP32);
  a.bias = c.Tensor(5, {1, HQ, S, SKV});
  std::vector<TeplugTensor> grads(5);
  auto grad = [&](int i, std::vector<int64_t> shape) {
    grads[static_cast<size_t>(i)] = TeplugTensor{};
    TeplugTensor& t = grads[static_cast<size_t>(i)];
    t.struct_size = sizeof(t);
    t.dtype = TEPLUG_DTYPE_BF16;
    t.rank = static_cast<int32_t>(shape.size());
    for (size_t k = 0; k < shape.size(); ++k) t.shape[k] = shape[k];
    t.device = &c.device;
    return &t;
  };
  a.d_o = grad(0, {B, S, HQ, D});
  a.dq = grad(1, {B, S, HQ, D});
  a.dk = grad(2, {B, SKV, HKV, D});
  a.dv = grad(3, {B, SKV, HKV, D});
  a.dbias = grad(4, {1, HQ, S, SKV});
  const int64_t dq_strides[4] = {HQ * S * D, D, S * D, 1};  // bhsd memory
  for (int i = 0; i < 4; ++i) grads[1].strides[i] = dq_strides[i];
  absl::StatusOr<SdpaProblem> p = SdpaProblemOfBackward(a);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->backward);
  EXPECT_TRUE(p->dbias);
  EXPECT_EQ(p->dq.strides, (std::array<int64_t, 4>{HQ * S * D, S * D, D, 1}));
  EXPECT_EQ(p->q.strides, (std::array<int64_t, 4>{S * HQ * D, D, HQ * D, 1}));
  EXPECT_EQ(p->dbias_view.dims, (std::array<int64_t, 4>{1, HQ, S, SKV}));
  grads[4].dtype = TEPLUG_DTYPE_FP32;
  p = SdpaProblemOfBackward(a);
  EXPECT_EQ(p.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(p.status().message(),
            "native attention: dbias has dtype fp32; cuDNN takes it in q's dtype bf16");
  grads[4].dtype = TEPLUG_DTYPE_BF16;
  grads[4].shape[0] = B;
  p = SdpaProblemOfBackward(a);
  EXPECT_EQ(p.status().message(), "native attention: dbias must have bias's shape");
  a.dbias = nullptr;
  a.dk = nullptr;
  p = SdpaProblemOfBackward(a);
  EXPECT_EQ(p.status().message(), "native attention: dk is NULL");
}

TEST(SdpaProblem, WordsTellGraphDefiningFieldsApart) {
  Call c = Bshd();
  const std::vector<int64_t> base = SdpaProblemWords(*SdpaProblemOfForward(c.args));
  EXPECT_EQ(SdpaProblemWords(*SdpaProblemOfForward(c.args)), base);
  c.params.softmax_scale = 0.5f;  // a value passed at execution
  c.params.rng_seed = 7;
  EXPECT_EQ(SdpaProblemWords(*SdpaProblemOfForward(c.args)), base);
  Call strided = Bshd();
  const int64_t s[4] = {HQ * S * D, D, S * D, 1};
  for (int i = 0; i < 4; ++i) strided.store[0].strides[i] = s[i];
  EXPECT_NE(SdpaProblemWords(*SdpaProblemOfForward(strided.args)), base);
  Call causal = Bshd();
  causal.params.mask_type = TEPLUG_MASK_CAUSAL;
  EXPECT_NE(SdpaProblemWords(*SdpaProblemOfForward(causal.args)), base);
  Call other = Bshd();
  static const TeplugDevice gpu1 = Cuda(1);
  for (int i = 0; i < 4; ++i) other.store[static_cast<size_t>(i)].device = &gpu1;
  EXPECT_NE(SdpaProblemWords(*SdpaProblemOfForward(other.args)), base);
  Call dropout = Bshd();
  dropout.params.is_training = 1;
  dropout.args.softmax_lse = dropout.Tensor(4, {B, HQ, S}, TEPLUG_DTYPE_FP32);
  dropout.params.dropout = 0.1f;
  const std::vector<int64_t> p1 = SdpaProblemWords(*SdpaProblemOfForward(dropout.args));
  dropout.params.dropout = 0.2f;
  EXPECT_NE(SdpaProblemWords(*SdpaProblemOfForward(dropout.args)), p1);
}

TEST(SdpaProblem, ExpectedShapesPerLayout) {
  TeplugAttentionParams p{};
  p.batch = B;
  p.num_heads_q = HQ;
  p.num_heads_kv = HKV;
  p.head_dim_qk = D;
  p.head_dim_v = 32;
  p.max_seqlen_q = S;
  p.max_seqlen_kv = SKV;
  p.layout = TEPLUG_LAYOUT_SBHD_SBH2D;
  EXPECT_EQ(ExpectedShape(p, 'q'), (std::vector<int64_t>{S, B, HQ, D}));
  EXPECT_EQ(ExpectedShape(p, 'k'), (std::vector<int64_t>{SKV, B, HKV, 2, D}));
  EXPECT_EQ(ExpectedShape(p, 'o'), (std::vector<int64_t>{S, B, HQ, 32}));
  p.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  EXPECT_EQ(ExpectedShape(p, 'v'), (std::vector<int64_t>{B, SKV, HKV, 32}));
}

}  // namespace
}  // namespace teplug::native::attention
