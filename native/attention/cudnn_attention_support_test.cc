// The cuDNN fused-attention rule table against a fake device list (sm_80,
// sm_89, sm_90, sm_100) and cuDNN versions: each case is one of
// TransformerEngine's rules (cudnn_attention_support.h names the commit) or
// of the cuDNN frontend's checks, on both sides of its boundary, with the
// exact reason.
#include "native/attention/cudnn_attention_support.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace teplug::native::attention {
namespace {

constexpr int32_t kCudnn919 = 91900;
constexpr int32_t kFakeArchs[] = {80, 89, 90, 100};

AttentionQuery Bf16(int32_t arch, int32_t version = kCudnn919) {
  AttentionQuery q;
  q.arch = arch;
  q.cudnn_version = version;
  q.dtype = TEPLUG_DTYPE_BF16;
  q.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  q.batch = 2;
  q.heads_q = q.heads_kv = 8;
  q.seq_q = q.seq_kv = 512;
  q.dim_qk = q.dim_v = 128;
  return q;
}

AttentionQuery Backward(AttentionQuery q) {
  q.backward = true;
  q.training = true;
  return q;
}

TEST(CudnnAttentionSupport, PlainBf16AndFp16AreServedOnEveryFakeDevice) {
  for (int32_t arch : kFakeArchs) {
    for (int32_t dtype : {TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP16}) {
      AttentionQuery q = Bf16(arch);
      q.dtype = dtype;
      EXPECT_EQ(WhyCudnnRefuses(q), "") << arch;
      EXPECT_EQ(WhyCudnnRefuses(Backward(q)), "") << arch;
    }
  }
}

TEST(CudnnAttentionSupport, HeadDim256BackwardNeedsHopper) {
  AttentionQuery q = Backward(Bf16(80));
  q.dim_qk = q.dim_v = 256;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_80: head_dim 256 backward needs sm_90");
  q.arch = 89;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_89: head_dim 256 backward needs sm_90");
  q.arch = 90;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.cudnn_version = 90400;  // sm_90 backward at 256 came with 9.5
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.4 on sm_90: head_dim 256 backward needs cuDNN 9.5");
  q.cudnn_version = 90500;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
}

TEST(CudnnAttentionSupport, HeadDim256OnBlackwellBackwardNeeds923) {
  AttentionQuery q = Backward(Bf16(100));
  q.dim_qk = q.dim_v = 256;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_100: head_dim 256 backward on sm_100 needs cuDNN 9.23");
  q.cudnn_version = 92300;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.layout = TEPLUG_LAYOUT_THD_THD_THD;
  q.mask_type = TEPLUG_MASK_PADDING;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.23 on sm_100: head_dim 256 backward on sm_100 needs cuDNN 9.25");
}

TEST(CudnnAttentionSupport, HeadDim256InferenceRulesPerArchAndVersion) {
  AttentionQuery q = Bf16(80);
  q.dim_qk = q.dim_v = 256;
  EXPECT_EQ(WhyCudnnRefuses(q), "");  // 9.10.2: any head dim, any arch, inference
  q.cudnn_version = 90900;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.9 on sm_80: head_dim 256 inference needs sm_90, or cuDNN 9.10.2");
  q.arch = 90;
  EXPECT_EQ(WhyCudnnRefuses(q), "");  // 9.1: <= 256 on Hopper
  q.training = true;  // a training forward follows the backward's rule
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.arch = 89;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.9 on sm_89: head_dim 256 training forward needs sm_90");
}

TEST(CudnnAttentionSupport, HeadDimsMustBeMultiplesOf8) {
  AttentionQuery q = Bf16(90);
  q.dim_qk = 60;
  EXPECT_EQ(WhyCudnnRefuses(q),
            "cuDNN 9.19 on sm_90: head_dim_qk 60, head_dim_v 128: head dims must be multiples of 8");
  q.dim_qk = 64;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
}

TEST(CudnnAttentionSupport, MlaBackwardOnHopperHasAKnownBugExcept192And128) {
  AttentionQuery q = Backward(Bf16(90));
  q.dim_qk = 256;
  q.dim_v = 128;
  EXPECT_EQ(WhyCudnnRefuses(q),
            "cuDNN 9.19 on sm_90: head_dim_qk 256, head_dim_v 128 backward: cuDNN 9.11+ has a known bug on sm_90 "
            "for unequal head dims >= 128");
  q.dim_qk = 192;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.cudnn_version = 91000 + 2;  // below 9.11 the bug rule does not apply
  EXPECT_EQ(WhyCudnnRefuses(q), "");
}

TEST(CudnnAttentionSupport, DtypesAreFp16Bf16AndFp8E4m3) {
  AttentionQuery q = Bf16(90);
  q.dtype = TEPLUG_DTYPE_FP32;
  EXPECT_EQ(WhyCudnnRefuses(q),
            "cuDNN 9.19 on sm_90: dtype fp32 is not served by cuDNN fused attention (fp16, bf16, fp8_e4m3)");
  q.dtype = TEPLUG_DTYPE_FP8_E5M2;
  EXPECT_NE(WhyCudnnRefuses(q).find("dtype fp8_e5m2 is not served"), std::string::npos);
}

TEST(CudnnAttentionSupport, ArchFloorAndBlackwellVersion) {
  AttentionQuery q = Bf16(75);
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_75: fused attention needs sm_80 or newer");
  q = Bf16(100, 90600);
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.6 on sm_100: sm_100 needs cuDNN 9.7 or newer");
  q.cudnn_version = 90700;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
}

TEST(CudnnAttentionSupport, VersionsBelow9AndTheBuggy910AreRefused) {
  EXPECT_EQ(WhyCudnnRefuses(Bf16(90, 80906)), "cuDNN 8.9.6 on sm_90: native attention needs cuDNN 9.0 or newer");
  EXPECT_EQ(WhyCudnnRefuses(Bf16(90, 91000)),
            "cuDNN 9.10 on sm_90: cuDNN 9.10.0 and 9.10.1 have known SDPA bugs; TransformerEngine refuses them");
  EXPECT_NE(WhyCudnnRefuses(Bf16(90, 91001)), "");
  EXPECT_EQ(WhyCudnnRefuses(Bf16(90, 91002)), "");
}

TEST(CudnnAttentionSupport, BiasTypes) {
  AttentionQuery q = Bf16(80);
  q.bias_type = TEPLUG_BIAS_POST_SCALE;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.bias_type = TEPLUG_BIAS_PRE_SCALE;
  EXPECT_EQ(WhyCudnnRefuses(q),
            "cuDNN 9.19 on sm_80: bias pre_scale is not served by cuDNN fused attention (no bias, post_scale, alibi)");
  q.bias_type = TEPLUG_BIAS_ALIBI;
  q.mask_type = TEPLUG_MASK_CAUSAL;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_80: alibi needs sm_90");
  q.arch = 90;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.mask_type = TEPLUG_MASK_PADDING_CAUSAL;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_90: alibi needs mask causal or causal_bottom_right, got padding_causal");
}

TEST(CudnnAttentionSupport, PostScaleBiasWithPaddingMasksIsRefused) {
  AttentionQuery q = Bf16(90);
  q.bias_type = TEPLUG_BIAS_POST_SCALE;
  q.mask_type = TEPLUG_MASK_PADDING;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_90: bias post_scale with mask padding is not served");
  q.mask_type = TEPLUG_MASK_CAUSAL;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
}

TEST(CudnnAttentionSupport, BottomRightCausalNeedsSqAtMostSkv) {
  AttentionQuery q = Bf16(90);
  q.mask_type = TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT;
  q.seq_q = 256;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.seq_q = 1024;
  EXPECT_EQ(WhyCudnnRefuses(q),
            "cuDNN 9.19 on sm_90: mask causal_bottom_right needs max_seqlen_q <= max_seqlen_kv, got 1024 > 512");
  q.seq_q = 100;  // before 9.7 the lengths had to be multiples of 64
  q.cudnn_version = 90600;
  EXPECT_NE(WhyCudnnRefuses(q).find("seqlens multiple of 64"), std::string::npos);
  q.seq_q = 128;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
}

// cuDNN frontend 1.16 refuses bias, ALiBi and dropout with a bottom-right
// diagonal and a right bound; without padding and with equal lengths native
// gives cuDNN the top-left diagonal instead (the same mask), as TE does.
TEST(CudnnAttentionSupport, BiasAlibiAndDropoutNeedATopLeftDiagonal) {
  AttentionQuery q = Bf16(90);
  q.mask_type = TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT;
  q.bias_type = TEPLUG_BIAS_POST_SCALE;
  EXPECT_EQ(WhyCudnnRefuses(q), "");  // 512 == 512: top-left
  q.seq_q = 256;
  EXPECT_EQ(WhyCudnnRefuses(q),
            "cuDNN 9.19 on sm_90: bias post_scale and dropout 0 with mask causal_bottom_right, "
            "window_right 0, max_seqlen_q 256, max_seqlen_kv 512: cuDNN frontend 1.16 refuses "
            "bias, alibi and dropout with a bottom-right diagonal (it is top-left only without a "
            "padding mask and with max_seqlen_q == max_seqlen_kv)");
  q.bias_type = TEPLUG_BIAS_ALIBI;
  EXPECT_NE(WhyCudnnRefuses(q).find("bias alibi and dropout 0 with mask causal_bottom_right"),
            std::string::npos);
  q.bias_type = TEPLUG_BIAS_NONE;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.training = true;
  q.dropout = 0.1f;
  EXPECT_NE(WhyCudnnRefuses(q).find("bias none and dropout 0.1 with mask causal_bottom_right"),
            std::string::npos);
  EXPECT_NE(WhyCudnnRefuses(Backward(q)).find("cuDNN frontend 1.16 refuses"), std::string::npos);
  q.seq_q = 512;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  EXPECT_EQ(WhyCudnnRefuses(Backward(q)), "");
  // A padding mask keeps the bottom-right diagonal, even with equal lengths.
  q.mask_type = TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
  EXPECT_NE(WhyCudnnRefuses(q).find("with mask padding_causal_bottom_right"), std::string::npos);
  q.dropout = 0.0f;
  q.bias_type = TEPLUG_BIAS_POST_SCALE;
  EXPECT_NE(WhyCudnnRefuses(q).find(
                "bias post_scale and dropout 0 with mask padding_causal_bottom_right"),
            std::string::npos);
  // A non-causal mask's diagonal is bottom-right too: it matters with a right bound.
  q.mask_type = TEPLUG_MASK_NONE;
  q.seq_q = 256;
  EXPECT_EQ(WhyCudnnRefuses(q), "");  // no right bound
  q.window_right = 0;
  EXPECT_NE(WhyCudnnRefuses(q).find("with mask none, window_right 0"), std::string::npos);
  q.seq_q = 512;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
}

TEST(CudnnAttentionSupport, ThdNeedsHopper) {
  AttentionQuery q = Bf16(80);
  q.layout = TEPLUG_LAYOUT_THD_THD_THD;
  q.mask_type = TEPLUG_MASK_PADDING;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_80: thd layouts need sm_90");
  q.arch = 89;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_89: thd layouts need sm_90");
  for (int32_t arch : {90, 100}) {
    q.arch = arch;
    EXPECT_EQ(WhyCudnnRefuses(q), "") << arch;
  }
  q.arch = 90;
  q.heads_kv = 2;
  q.cudnn_version = 90500;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.5 on sm_90: thd with num_heads_q 8 != num_heads_kv 2 needs cuDNN 9.6");
  q.cudnn_version = 90600;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  // native's graph declares 64-bit ragged offsets, which came with 9.5.
  q.heads_kv = q.heads_q;
  q.cudnn_version = 90400;
  EXPECT_EQ(WhyCudnnRefuses(q),
            "cuDNN 9.4 on sm_90: thd: native's ragged offsets are 64-bit, which needs cuDNN 9.5, "
            "got 9.4");
}

TEST(CudnnAttentionSupport, SlidingWindowNeedsNoBiasNoDropoutAndSqAtMostSkv) {
  AttentionQuery q = Bf16(90);
  q.window_left = 64;
  q.window_right = 0;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.bias_type = TEPLUG_BIAS_POST_SCALE;
  EXPECT_NE(WhyCudnnRefuses(q).find("sliding window (64, 0) with mask none"), std::string::npos);
  q.bias_type = TEPLUG_BIAS_NONE;
  q.training = true;
  q.dropout = 0.1f;
  EXPECT_NE(WhyCudnnRefuses(q).find("sliding window"), std::string::npos);
  q.dropout = 0.0f;
  q.seq_q = 1024;
  EXPECT_NE(WhyCudnnRefuses(q).find("max_seqlen_q 1024, max_seqlen_kv 512"), std::string::npos);
  // A causal mask's own window (right 0, left unbounded) is no sliding window.
  q = Bf16(90);
  q.mask_type = TEPLUG_MASK_CAUSAL;
  q.window_right = -1;
  q.training = true;
  q.dropout = 0.1f;
  q.bias_type = TEPLUG_BIAS_POST_SCALE;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
}

TEST(CudnnAttentionSupport, DeterministicBackwardNeedsHopper) {
  AttentionQuery q = Backward(Bf16(80));
  q.deterministic = true;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_80: deterministic backward needs sm_90");
  q.arch = 89;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_89: deterministic backward needs sm_90");
  q.arch = 90;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.bias_type = TEPLUG_BIAS_POST_SCALE;
  q.dbias = true;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_90: deterministic backward with dBias is not served");
  // The forward is deterministic anyway.
  AttentionQuery f = Bf16(80);
  f.deterministic = true;
  f.training = true;
  EXPECT_EQ(WhyCudnnRefuses(f), "");
}

// TE serves a deterministic backward on Blackwell from cuDNN 9.18.1; the
// frontend native is built with (1.16) refuses it on every sm_10x, and TE
// refuses it on sm_120.
TEST(CudnnAttentionSupport, DeterministicBackwardOnBlackwell) {
  for (int32_t arch : {100, 103}) {
    AttentionQuery q = Backward(Bf16(arch));
    q.deterministic = true;
    EXPECT_EQ(WhyCudnnRefuses(q),
              "cuDNN 9.19 on sm_" + std::to_string(arch) + ": deterministic backward on sm_" +
                  std::to_string(arch) +
                  ": cuDNN frontend 1.16 has no deterministic backward on sm_10x");
    q.deterministic = false;
    EXPECT_EQ(WhyCudnnRefuses(q), "");
  }
  AttentionQuery q = Backward(Bf16(120));
  q.deterministic = true;
  EXPECT_EQ(WhyCudnnRefuses(q),
            "cuDNN 9.19 on sm_120: deterministic backward on sm_120 is not served");
  // sm_110 (compute capability 11.0) has TE's rules: cuDNN 9.18.1, no dropout, no bias.
  q.arch = 110;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.cudnn_version = 91800;
  EXPECT_EQ(WhyCudnnRefuses(q),
            "cuDNN 9.18 on sm_110: deterministic backward on sm_110 needs cuDNN 9.18.1");
  q.cudnn_version = kCudnn919;
  q.dropout = 0.1f;
  EXPECT_EQ(WhyCudnnRefuses(q),
            "cuDNN 9.19 on sm_110: deterministic backward on sm_110 needs no dropout and no bias, "
            "got dropout 0.1, bias none");
  // The forward is deterministic anyway.
  AttentionQuery f = Bf16(100);
  f.deterministic = true;
  f.training = true;
  EXPECT_EQ(WhyCudnnRefuses(f), "");
}

TEST(CudnnAttentionSupport, BlackwellBackwardWithDropoutAndBias) {
  AttentionQuery q = Backward(Bf16(100));
  q.dropout = 0.1f;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.bias_type = TEPLUG_BIAS_POST_SCALE;
  EXPECT_EQ(WhyCudnnRefuses(q),
            "cuDNN 9.19 on sm_100: backward on sm_100 with both dropout 0.1 and bias post_scale is not served");
}

TEST(CudnnAttentionSupport, Fp8PerArchAndShape) {
  AttentionQuery q = Bf16(89);
  q.dtype = TEPLUG_DTYPE_FP8_E4M3;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_89: fp8 needs sm_90");
  q.arch = 90;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q = Backward(q);
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.dim_qk = q.dim_v = 64;  // sm_90 fp8 training: head dim 128 only
  EXPECT_NE(WhyCudnnRefuses(q).find("fp8 backward with head_dim 64, mask none on sm_90 is not served"),
            std::string::npos);
  q.arch = 100;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.bias_type = TEPLUG_BIAS_POST_SCALE;
  EXPECT_EQ(WhyCudnnRefuses(q), "cuDNN 9.19 on sm_100: fp8 needs no bias, got post_scale");
}

// TransformerEngine's utils.py: an fp8 window needs sm_100 and cuDNN 9.21,
// no dropout and max_seqlen_q <= max_seqlen_kv; the causal masks' own
// window is no sliding window.
TEST(CudnnAttentionSupport, Fp8SlidingWindowNeedsBlackwellAnd921) {
  AttentionQuery q = Bf16(90);
  q.dtype = TEPLUG_DTYPE_FP8_E4M3;
  q.dim_qk = q.dim_v = 128;
  q.window_left = 256;
  q.window_right = 0;
  EXPECT_EQ(WhyCudnnRefuses(q),
            "cuDNN 9.19 on sm_90: fp8 with sliding window (256, 0) needs sm_100 and cuDNN 9.21");
  q.arch = 100;
  EXPECT_EQ(WhyCudnnRefuses(q),
            "cuDNN 9.19 on sm_100: fp8 with sliding window (256, 0) needs sm_100 and cuDNN 9.21");
  q.cudnn_version = 92100;
  EXPECT_EQ(WhyCudnnRefuses(q), "");
  q.training = true;
  q.dropout = 0.1f;
  EXPECT_EQ(
      WhyCudnnRefuses(q),
      "cuDNN 9.21 on sm_100: fp8 with sliding window (256, 0) needs no dropout and max_seqlen_q <= "
      "max_seqlen_kv, got dropout 0.1, max_seqlen_q 512, max_seqlen_kv 512");
  q.dropout = 0.0f;
  q.window_left = -1;
  q.mask_type = TEPLUG_MASK_CAUSAL;
  q.arch = 90;
  q.cudnn_version = kCudnn919;
  EXPECT_EQ(WhyCudnnRefuses(q), "");  // causal: no sliding window
}

TEST(CudnnAttentionSupport, EveryRuleHasAUniqueName) {
  std::set<std::string> names;
  for (const AttentionRule& rule : CudnnAttentionRules()) EXPECT_TRUE(names.insert(rule.name).second) << rule.name;
  EXPECT_GE(names.size(), 10u);
}

TEST(CudnnAttentionSupport, VersionText) {
  EXPECT_EQ(CudnnVersionText(91900), "9.19");
  EXPECT_EQ(CudnnVersionText(91002), "9.10.2");
  EXPECT_EQ(CudnnVersionText(80906), "8.9.6");
}

TEST(CudnnAttentionSupport, QueryOfTakesDropoutOnlyWhenTraining) {
  TeplugAttentionParams p{};
  p.layout = TEPLUG_LAYOUT_SBHD_SBHD_SBHD;
  p.dropout = 0.2f;
  p.batch = 3;
  p.head_dim_qk = 96;
  p.head_dim_v = 64;
  AttentionQuery q = QueryOf(p, false, TEPLUG_DTYPE_FP16, false, 90, kCudnn919);
  EXPECT_EQ(q.dropout, 0.0f);
  EXPECT_EQ(q.batch, 3);
  EXPECT_EQ(q.dim_qk, 96);
  p.is_training = 1;
  q = QueryOf(p, true, TEPLUG_DTYPE_FP16, true, 90, kCudnn919);
  EXPECT_EQ(q.dropout, 0.2f);
  EXPECT_TRUE(q.backward);
  EXPECT_TRUE(q.dbias);
}

}  // namespace
}  // namespace teplug::native::attention
