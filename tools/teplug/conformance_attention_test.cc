#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "gtest/gtest.h"
#include "tools/teplug/conformance_attention_call.h"
#include "tools/teplug/conformance_attention_case.h"

namespace teplug::cli {
namespace {

std::string ErrorOf(const std::string& text) {
  absl::StatusOr<AttentionCase> c = ParseAttentionCase(text);
  return c.ok() ? "(parsed)" : std::string(c.status().message());
}

TEST(AttentionCaseText, FormatThenParseGivesTheSameCase) {
  AttentionCase c;
  c.dtype = TEPLUG_DTYPE_FP8_E5M2;
  c.layout = TEPLUG_LAYOUT_THD_TH2D;
  c.mask = TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
  c.bias = TEPLUG_BIAS_PRE_SCALE;
  c.bias_full_batch = false;
  c.gqa = c.deterministic = c.backward = true;
  c.dropout = 0.375;
  c.window_left = 4;
  c.window_right = 0;
  c.seq_q = 7;
  c.heads = 6;
  const std::string text = FormatAttentionCase(c);
  EXPECT_EQ(text,
            "qkv_dtype=fp8_e5m2,layout=thd_th2d,mask=padding_causal_bottom_right,bias=pre_scale,"
            "bias_shape=1h,gqa=1,dropout=0.375,window_left=4,window_right=0,deterministic=1,"
            "backward=1,batch=2,seq_q=7,seq_kv=12,heads=6,head_dim=16,head_dim_v=16");
  absl::StatusOr<AttentionCase> back = ParseAttentionCase(text);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(FormatAttentionCase(*back), text);
  c = AttentionCase();
  c.bias = TEPLUG_BIAS_ALIBI;
  c.alibi_slopes_given = true;
  c.head_dim_v = 8;
  back = ParseAttentionCase(FormatAttentionCase(c));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->alibi_slopes_given);
  EXPECT_EQ(back->head_dim_v, 8);
  // head_dim_v defaults to head_dim.
  back = ParseAttentionCase("head_dim=24");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->head_dim_v, 24);
}

TEST(AttentionCaseText, BadKeysValuesAndCombinationsAreNamed) {
  EXPECT_NE(ErrorOf("qkv_dtype=fp32,mask_type=none").find("unknown key \"mask_type\""),
            std::string::npos);
  EXPECT_NE(ErrorOf("qkv_dtype=fp4_e2m1").find("qkv_dtype=fp4_e2m1"), std::string::npos);
  EXPECT_NE(ErrorOf("dropout=1").find("[0, 1)"), std::string::npos);
  EXPECT_NE(ErrorOf("window_left=-2").find("window_left=-2"), std::string::npos);
  EXPECT_NE(ErrorOf("layout=thd_thd_thd,mask=causal").find("needs a padding mask"),
            std::string::npos);
  EXPECT_NE(ErrorOf("layout=bsh3d,gqa=1").find("gqa=0 and seq_q = seq_kv"), std::string::npos);
  EXPECT_NE(ErrorOf("layout=sb3hd,seq_q=4,seq_kv=5").find("seq_q = seq_kv"), std::string::npos);
  EXPECT_NE(ErrorOf("layout=bshd_bs2hd,head_dim_v=8").find("head_dim = head_dim_v"),
            std::string::npos);
  EXPECT_NE(ErrorOf("bias_shape=11").find("bias_shape applies to bias=pre_scale or post_scale"),
            std::string::npos);
  EXPECT_NE(ErrorOf("bias=post_scale,alibi_slopes=given").find("alibi_slopes applies"),
            std::string::npos);
  EXPECT_NE(ErrorOf("mask=causal,window_right=2").find("implies window_right 0"),
            std::string::npos);
  EXPECT_NE(ErrorOf("gqa=1,heads=3").find("even heads"), std::string::npos);
  EXPECT_EQ(ErrorOf("layout=t3hd,mask=padding,seq_q=9,seq_kv=9"), "(parsed)");
}

TEST(AttentionCaseClaims, NameEveryFeatureTheCaseUses) {
  AttentionCase c;
  c.mask = TEPLUG_MASK_CAUSAL;
  c.window_right = 0;  // what causal implies: not a sliding window
  EXPECT_EQ(AttentionCaseClaims(c),
            (std::vector<std::string>{"qkv_dtypes=fp32", "layouts=bshd_bshd_bshd",
                                      "mask_types=causal", "bias_types=none"}));
  c.window_left = 2;
  c.dropout = 0.5;
  c.gqa = c.deterministic = c.backward = true;
  c.head_dim_v = 8;
  const std::vector<std::string> claims = AttentionCaseClaims(c);
  for (const char* f :
       {"features=dropout", "features=sliding_window", "features=gqa", "features=deterministic",
        "features=backward", "features=different_head_dims"})
    EXPECT_NE(std::find(claims.begin(), claims.end(), f), claims.end()) << f;
}

// Every claim the reference makes (all of IAttention/1's but the dtypes
// conformance cannot build).
std::vector<std::string> ReferenceClaims() {
  std::vector<std::string> claims;
  for (const std::string& c : AllAttentionClaims())
    if (AttentionClaimCheckable(c)) claims.push_back(c);
  return claims;
}

// Every declared checkable claim is exercised by a planned case, each case
// only by declared claims, parses back to itself and is legal.
void ExpectPlanCovers(const std::vector<std::string>& claims, bool quick,
                      const std::set<std::string>& unpaired) {
  std::set<std::string> exercised;
  const std::vector<PlannedAttentionCase> plan = PlanAttentionCases(claims, quick, 5);
  for (const PlannedAttentionCase& p : plan) {
    const std::string text = FormatAttentionCase(p.c);
    absl::StatusOr<AttentionCase> back = ParseAttentionCase(text);
    ASSERT_TRUE(back.ok()) << text << ": " << back.status();
    EXPECT_EQ(FormatAttentionCase(*back), text);
    for (const std::string& e : AttentionCaseClaims(p.c)) {
      EXPECT_NE(std::find(claims.begin(), claims.end(), e), claims.end())
          << text << " exercises undeclared " << e;
      exercised.insert(e);
    }
  }
  for (const std::string& claim : claims) {
    const bool expected = AttentionClaimCheckable(claim) && unpaired.count(claim) == 0;
    EXPECT_EQ(exercised.count(claim) == 1, expected) << claim << (quick ? " (quick)" : "");
  }
}

TEST(PlanAttentionCases, CoversEveryClaimOfTheReference) {
  ExpectPlanCovers(ReferenceClaims(), true, {});
  ExpectPlanCovers(ReferenceClaims(), false, {});
  EXPECT_GT(PlanAttentionCases(ReferenceClaims(), false, 5).size(),
            PlanAttentionCases(ReferenceClaims(), true, 5).size());
}

TEST(PlanAttentionCases, RunsBackwardInEveryCaseWhenDeclared) {
  for (const PlannedAttentionCase& p : PlanAttentionCases(ReferenceClaims(), false, 3))
    EXPECT_TRUE(p.c.backward) << FormatAttentionCase(p.c);
  const std::vector<std::string> forward_only = {"qkv_dtypes=bf16", "layouts=sbhd_sbhd_sbhd",
                                                 "mask_types=causal", "bias_types=none"};
  for (const PlannedAttentionCase& p : PlanAttentionCases(forward_only, false, 3))
    EXPECT_FALSE(p.c.backward) << FormatAttentionCase(p.c);
}

// THD layouts need a padding mask: with none declared they get no case, and
// the other claims still do; with one declared, THD cases use it.
TEST(PlanAttentionCases, PairsThdLayoutsOnlyWithADeclaredPaddingMask) {
  std::vector<std::string> claims = {"qkv_dtypes=fp16",     "layouts=bshd_bshd_bshd",
                                     "layouts=thd_thd_thd", "layouts=t3hd",
                                     "mask_types=causal",   "bias_types=none",
                                     "features=gqa",        "features=different_head_dims"};
  for (bool quick : {true, false})
    ExpectPlanCovers(claims, quick, {"layouts=thd_thd_thd", "layouts=t3hd"});
  claims.push_back("mask_types=padding_causal");
  for (bool quick : {true, false}) ExpectPlanCovers(claims, quick, {});
  for (const PlannedAttentionCase& p : PlanAttentionCases(claims, false, 9)) {
    if (FormatOf(p.c.layout) == QkvFormat::kThd) {
      EXPECT_EQ(p.c.mask, TEPLUG_MASK_PADDING_CAUSAL);
    }
  }
}

TEST(PlanAttentionCases, SeedsDifferPerCaseAndFollowTheSeed) {
  const std::vector<PlannedAttentionCase> a = PlanAttentionCases(ReferenceClaims(), true, 1);
  const std::vector<PlannedAttentionCase> b = PlanAttentionCases(ReferenceClaims(), true, 2);
  ASSERT_GT(a.size(), 1u);
  EXPECT_NE(a[0].seed, a[1].seed);
  EXPECT_NE(a[0].seed, b[0].seed);
}

std::vector<int64_t> ShapeOf(const TeplugTensor* t) {
  return std::vector<int64_t>(t->shape, t->shape + t->rank);
}

// The buffers follow attention.h's layout table: a packed buffer is passed
// as every member it holds, with the packing axis where the name says.
TEST(MakeAttentionInputs, LaysOutPackedAndThdBuffersAsTheAbiSays) {
  AttentionCase c;
  c.layout = TEPLUG_LAYOUT_SBH3D;
  c.seq_q = c.seq_kv = 5;
  c.batch = 3;
  c.heads = 2;
  c.head_dim = c.head_dim_v = 8;
  std::unique_ptr<AttentionInputs> in = MakeAttentionInputs(c, 1);
  EXPECT_EQ(in->qkv.Member(0), in->qkv.Member(1));
  EXPECT_EQ(in->qkv.Member(1), in->qkv.Member(2));
  EXPECT_EQ(ShapeOf(in->qkv.Member(0)), (std::vector<int64_t>{5, 3, 2, 3, 8}));
  EXPECT_EQ(in->params.cu_seqlens_q, nullptr);
  ForwardOutputs out = MakeForwardOutputs(*in);
  EXPECT_EQ(ShapeOf(out.o.tensor()), (std::vector<int64_t>{5, 3, 2, 8}));

  c.layout = TEPLUG_LAYOUT_THD_T2HD;
  c.mask = TEPLUG_MASK_PADDING;
  c.seq_kv = 9;
  c.gqa = true;
  in = MakeAttentionInputs(c, 2);
  ASSERT_NE(in->params.cu_seqlens_q, nullptr);
  ASSERT_NE(in->params.cu_seqlens_kv, nullptr);
  const auto* cu_q = static_cast<const int32_t*>(in->params.cu_seqlens_q->data);
  const auto* cu_kv = static_cast<const int32_t*>(in->params.cu_seqlens_kv->data);
  bool shorter_q = false, shorter_kv = false;
  for (int b = 0; b < 3; ++b) {
    EXPECT_GE(cu_q[b + 1] - cu_q[b], 1);
    EXPECT_LE(cu_q[b + 1] - cu_q[b], 5);
    EXPECT_LE(cu_kv[b + 1] - cu_kv[b], 9);
    shorter_q = shorter_q || cu_q[b + 1] - cu_q[b] < 5;
    shorter_kv = shorter_kv || cu_kv[b + 1] - cu_kv[b] < 9;
  }
  EXPECT_TRUE(shorter_q && shorter_kv) << "padding must be exercised";
  EXPECT_EQ(in->qkv.Member(1), in->qkv.Member(2));
  EXPECT_NE(in->qkv.Member(0), in->qkv.Member(1));
  EXPECT_EQ(ShapeOf(in->qkv.Member(0)), (std::vector<int64_t>{cu_q[3], 2, 8}));
  EXPECT_EQ(ShapeOf(in->qkv.Member(1)), (std::vector<int64_t>{cu_kv[3], 2, 1, 8}));
  out = MakeForwardOutputs(*in);
  EXPECT_EQ(ShapeOf(out.o.tensor()), (std::vector<int64_t>{cu_q[3], 2, 8}));
  EXPECT_EQ(ShapeOf(out.lse.tensor()), (std::vector<int64_t>{3, 2, 5}));
  BackwardOutputs grads = MakeBackwardOutputs(*in);
  EXPECT_EQ(ShapeOf(grads.d.Member(2)), ShapeOf(in->qkv.Member(2)));
}

TEST(MakeAttentionInputs, FollowsTheSeedAndFillsEveryPosition) {
  AttentionCase c;
  c.dtype = TEPLUG_DTYPE_BF16;
  c.mask = TEPLUG_MASK_PADDING_CAUSAL;
  c.dropout = 0.25;
  std::unique_ptr<AttentionInputs> a = MakeAttentionInputs(c, 4), b = MakeAttentionInputs(c, 4),
                                   other = MakeAttentionInputs(c, 5);
  EXPECT_TRUE(SameBytes(a->qkv.k, b->qkv.k));
  EXPECT_EQ(a->params.rng_seed, b->params.rng_seed);
  EXPECT_FALSE(SameBytes(a->qkv.k, other->qkv.k));
  EXPECT_NE(a->params.rng_seed, other->params.rng_seed);
  EXPECT_FLOAT_EQ(a->params.dropout, 0.25f);
  for (double v : a->qkv.k.Values()) ASSERT_NE(v, 0.0) << "padding positions hold noise too";
}

TEST(MakeAttentionInputs, Fp8TensorsCarryTheirScales) {
  AttentionCase c;
  c.dtype = TEPLUG_DTYPE_FP8_E4M3;
  c.bias = TEPLUG_BIAS_POST_SCALE;
  std::unique_ptr<AttentionInputs> in = MakeAttentionInputs(c, 3);
  for (const TeplugTensor* t : {in->qkv.Member(0), in->qkv.Member(1), in->d_o.tensor()}) {
    ASSERT_NE(t->quant, nullptr);
    EXPECT_EQ(t->quant->mode, TEPLUG_SCALING_PER_TENSOR);
  }
  double largest = 0;
  for (double v : in->qkv.q.Values()) {
    EXPECT_NE(v, 0.0);
    largest = std::max(largest, std::fabs(v));
  }
  EXPECT_LE(largest, 1.0);
  EXPECT_EQ(in->bias.dtype(), TEPLUG_DTYPE_BF16);
  ForwardOutputs out = MakeForwardOutputs(*in);
  ASSERT_NE(out.o.tensor()->quant, nullptr);
  float scale = 0, scale_inv = 0;
  std::memcpy(&scale, out.o.tensor()->quant->scale->data, sizeof scale);
  std::memcpy(&scale_inv, out.o.tensor()->quant->scale_inv->data, sizeof scale_inv);
  EXPECT_EQ(scale * scale_inv, 1.0f);
  TeplugAttentionFwdArgs fwd = ForwardArgs(in.get(), &out);
  EXPECT_NE(fwd.s_quant, nullptr);
  BackwardOutputs grads = MakeBackwardOutputs(*in);
  TeplugAttentionBwdArgs bwd = BackwardArgs(in.get(), out, &grads);
  EXPECT_NE(bwd.dp_quant, nullptr);
  EXPECT_EQ(bwd.dbias, grads.dbias.tensor());
  EXPECT_EQ(ShapeOf(bwd.dbias), (std::vector<int64_t>{2, 4, 8, 12}));
}

}  // namespace
}  // namespace teplug::cli
