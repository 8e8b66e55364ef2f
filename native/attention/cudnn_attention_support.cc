#include "native/attention/cudnn_attention_support.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "teplug/sdk/names.hpp"

namespace teplug::native::attention {
namespace {

using Q = AttentionQuery;

bool IsFp8(const Q& q) { return q.dtype == TEPLUG_DTYPE_FP8_E4M3 || q.dtype == TEPLUG_DTYPE_FP8_E5M2; }
bool IsF16(const Q& q) { return q.dtype == TEPLUG_DTYPE_FP16 || q.dtype == TEPLUG_DTYPE_BF16; }
// TE's is_training: a backward will run.
bool Training(const Q& q) { return q.backward || q.training; }
bool Thd(const Q& q) { return q.layout >= TEPLUG_LAYOUT_T3HD && q.layout <= TEPLUG_LAYOUT_THD_THD_THD; }
bool NoBias(const Q& q) { return q.bias_type == TEPLUG_BIAS_NONE; }
bool NoDropout(const Q& q) { return q.dropout == 0.0f; }
bool Causal(const Q& q) { return q.mask_type == TEPLUG_MASK_CAUSAL || q.mask_type == TEPLUG_MASK_PADDING_CAUSAL; }
bool BottomRightCausal(const Q& q) {
  return q.mask_type == TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT ||
         q.mask_type == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
}
bool PaddingMask(const Q& q) {
  return q.mask_type == TEPLUG_MASK_PADDING || q.mask_type == TEPLUG_MASK_PADDING_CAUSAL ||
         q.mask_type == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
}
// TE gives the causal masks a right window of 0.
int64_t WindowRight(const Q& q) { return Causal(q) || BottomRightCausal(q) ? 0 : q.window_right; }
// The diagonal native hands cuDNN (sdpa_problem.cc): bottom-right for every
// mask but causal and padding_causal, except without a padding mask and with
// equal max lengths, where the two diagonals coincide and top-left is used.
bool BottomRightDiagonal(const Q& q) {
  return !Causal(q) && (PaddingMask(q) || q.seq_q != q.seq_kv);
}

const char* Phase(const Q& q) { return q.backward ? "backward" : q.training ? "training forward" : "inference"; }
std::string Mask(const Q& q) { return sdk::MaskName(q.mask_type); }
std::string Bias(const Q& q) { return sdk::BiasName(q.bias_type); }
std::string Format(const Q& q) { return sdk::LayoutFormat(q.layout); }
std::string HeadDims(const Q& q) {
  if (q.dim_qk == q.dim_v) return absl::StrCat("head_dim ", q.dim_qk);
  return absl::StrCat("head_dim_qk ", q.dim_qk, ", head_dim_v ", q.dim_v);
}
std::string Sm(int32_t arch) { return absl::StrCat("sm_", arch); }

// ------------------------------------------------------------------ rules

std::string Version(const Q& q) {
  if (q.cudnn_version < 90000) return "native attention needs cuDNN 9.0 or newer";
  if (q.cudnn_version == 91000 || q.cudnn_version == 91001) {
    return "cuDNN 9.10.0 and 9.10.1 have known SDPA bugs; TransformerEngine refuses them";
  }
  return "";
}

std::string Arch(const Q& q) {
  if (q.arch < 80) return "fused attention needs sm_80 or newer";
  if (q.arch >= 100 && q.cudnn_version < 90700 && IsF16(q)) return absl::StrCat(Sm(q.arch), " needs cuDNN 9.7 or newer");
  return "";
}

std::string Dtype(const Q& q) {
  if (IsF16(q) || q.dtype == TEPLUG_DTYPE_FP8_E4M3) return "";
  return absl::StrCat("dtype ", sdk::DTypeName(q.dtype),
                      " is not served by cuDNN fused attention (fp16, bf16, fp8_e4m3)");
}

// F16: head dims per arch, version and phase.
std::string HeadDimF16(const Q& q) {
  if (!IsF16(q)) return "";
  const int64_t dqk = q.dim_qk, dv = q.dim_v;
  const int32_t v = q.cudnn_version, sm = q.arch;
  if (dqk % 8 != 0 || dv % 8 != 0) return absl::StrCat(HeadDims(q), ": head dims must be multiples of 8");
  if (Training(q) && v >= 91100 && sm == 90 && dqk >= 128 && dv >= 128 && !(dqk == 192 && dv == 128) &&
      dqk != dv) {
    return absl::StrCat(HeadDims(q), " ", Phase(q),
                        ": cuDNN 9.11+ has a known bug on sm_90 for unequal head dims >= 128");
  }
  if (dqk <= 128 && dv <= 128) return "";
  if (!Training(q)) {
    if (dqk <= 256 && dv <= 256 && sm == 90 && v >= 90100) return "";
    if (sm >= 100 && v >= 90900 && q.seq_q > 1) return "";
    if (v >= 91002 && (q.seq_q > 1 || !Causal(q))) return "";
    if (v >= 91002) return absl::StrCat(HeadDims(q), " inference with max_seqlen_q 1 needs a non-causal mask, got ", Mask(q));
    if (sm == 90) return absl::StrCat(HeadDims(q), " inference on sm_90 needs cuDNN 9.1 (<= 256) or 9.10.2 (any)");
    return absl::StrCat(HeadDims(q), " inference needs sm_90, or cuDNN 9.10.2");
  }
  // Training.
  if (dqk <= 256 && dv <= 256 && sm == 90 && v >= 90500) return "";
  if (sm >= 100 && dqk == 192 && dv == 128 && v >= 91100) return "";
  if (sm >= 100 && sm < 110 && dqk == 256 && dv == 256) {
    const int32_t needed = Thd(q) ? 92500 : 92300;
    if (v < needed) return absl::StrCat(HeadDims(q), " ", Phase(q), " on ", Sm(sm), " needs cuDNN ", CudnnVersionText(needed));
    if (!NoBias(q) || !NoDropout(q)) {
      return absl::StrCat(HeadDims(q), " ", Phase(q), " on ", Sm(sm), " needs no bias and no dropout, got bias ", Bias(q),
                          ", dropout ", q.dropout);
    }
    const bool full = q.window_left == -1 && q.window_right == -1;
    if (!full && !((Causal(q) || BottomRightCausal(q)) && (q.window_right == -1 || q.window_right == 0))) {
      return absl::StrCat(HeadDims(q), " ", Phase(q), " on ", Sm(sm),
                          ": a sliding window needs a causal mask, got ", Mask(q));
    }
    return "";
  }
  if (dqk > 256 || dv > 256) return absl::StrCat(HeadDims(q), " ", Phase(q), ": head dims above 256 are not served");
  if (sm < 90) return absl::StrCat(HeadDims(q), " ", Phase(q), " needs sm_90");
  if (sm == 90) return absl::StrCat(HeadDims(q), " ", Phase(q), " needs cuDNN 9.5");
  return absl::StrCat(HeadDims(q), " ", Phase(q), " on ", Sm(sm),
                      " is served for head dims <= 128, 192/128 (cuDNN 9.11) and 256/256 (cuDNN 9.23)");
}

std::string BiasType(const Q& q) {
  switch (q.bias_type) {
    case TEPLUG_BIAS_NONE:
      return "";
    case TEPLUG_BIAS_PRE_SCALE:
      return "bias pre_scale is not served by cuDNN fused attention (no bias, post_scale, alibi)";
    case TEPLUG_BIAS_POST_SCALE:
      if (IsFp8(q)) return "fp8 needs no bias, got post_scale";
      return "";
    case TEPLUG_BIAS_ALIBI:
      if (IsFp8(q)) return "fp8 needs no bias, got alibi";
      if (q.mask_type != TEPLUG_MASK_CAUSAL && q.mask_type != TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT) {
        return absl::StrCat("alibi needs mask causal or causal_bottom_right, got ", Mask(q));
      }
      if (q.arch < 90) return "alibi needs sm_90";
      return "";
    default:
      return absl::StrCat("bias type ", q.bias_type, " is unknown");
  }
}

std::string BiasWithMask(const Q& q) {
  if (q.bias_type == TEPLUG_BIAS_POST_SCALE &&
      (q.mask_type == TEPLUG_MASK_PADDING || q.mask_type == TEPLUG_MASK_PADDING_CAUSAL)) {
    return absl::StrCat("bias post_scale with mask ", Mask(q), " is not served");
  }
  return "";
}

std::string MaskType(const Q& q) {
  if (!IsF16(q)) return "";
  const int32_t v = q.cudnn_version;
  const bool sq_le_skv = q.seq_q <= q.seq_kv;
  const bool mult64 = q.seq_q % 64 == 0 && q.seq_kv % 64 == 0;
  const bool plain = NoBias(q) && NoDropout(q);
  switch (q.mask_type) {
    case TEPLUG_MASK_NONE:
    case TEPLUG_MASK_CAUSAL:
      if (Thd(q) && v < 90700) return absl::StrCat("mask ", Mask(q), " with thd needs cuDNN 9.7");
      return "";
    case TEPLUG_MASK_PADDING:
    case TEPLUG_MASK_PADDING_CAUSAL:
      if (Thd(q) && v < 90100) return absl::StrCat("mask ", Mask(q), " with thd needs cuDNN 9.1");
      return "";
    case TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT:
      if (!sq_le_skv) {
        return absl::StrCat("mask causal_bottom_right needs max_seqlen_q <= max_seqlen_kv, got ", q.seq_q, " > ",
                            q.seq_kv);
      }
      if (v >= 90700) return "";
      if (v >= 90300 && !Thd(q) && mult64 && plain) return "";
      return "mask causal_bottom_right before cuDNN 9.7 needs cuDNN 9.3, bshd/sbhd, seqlens multiple of 64, no "
             "bias and no dropout";
    case TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT:
      if (v >= 90700 && (plain || sq_le_skv)) return "";
      if (v >= 90600 && mult64 && sq_le_skv && plain) return "";
      if (v >= 90700) {
        return absl::StrCat("mask padding_causal_bottom_right with bias or dropout needs max_seqlen_q <= "
                            "max_seqlen_kv, got ",
                            q.seq_q, " > ", q.seq_kv);
      }
      return "mask padding_causal_bottom_right before cuDNN 9.7 needs cuDNN 9.6, seqlens multiple of 64, "
             "max_seqlen_q <= max_seqlen_kv, no bias and no dropout";
    default:
      return absl::StrCat("mask type ", q.mask_type, " is unknown");
  }
}

// Not one of TE's rules: cuDNN frontend 1.16, which native is built with,
// refuses a bottom-right diagonal with a right bound (a causal_bottom_right
// mask, or window_right >= 0) together with bias, ALiBi or dropout
// (sdpa_support_surface.h, CompositeSDPABackwardNode::validate in
// scaled_dot_product_flash_attention.h, sdpa_fp8_bwd.h), where TE's table
// promises bias and dropout with these masks from cuDNN 9.7. TE turns
// causal_bottom_right without padding and with equal lengths into top-left
// causal; native does the same, so only the remaining cases are refused.
std::string BottomRightDiagonalWith(const Q& q) {
  if (!BottomRightDiagonal(q) || WindowRight(q) < 0) return "";
  if (NoBias(q) && NoDropout(q)) return "";
  return absl::StrCat("bias ", Bias(q), " and dropout ", q.dropout, " with mask ", Mask(q),
                      ", window_right ", WindowRight(q), ", max_seqlen_q ", q.seq_q,
                      ", max_seqlen_kv ", q.seq_kv,
                      ": cuDNN frontend 1.16 refuses bias, alibi and dropout with a bottom-right "
                      "diagonal (it is top-left only without a padding mask and with max_seqlen_q "
                      "== max_seqlen_kv)");
}

std::string ThdLayout(const Q& q) {
  if (!Thd(q)) return "";
  if (IsFp8(q)) return "fp8 needs bshd or sbhd, got thd";
  if (q.arch < 90) return "thd layouts need sm_90";
  if (q.heads_q != q.heads_kv && q.cudnn_version < 90600) {
    return absl::StrCat("thd with num_heads_q ", q.heads_q, " != num_heads_kv ", q.heads_kv, " needs cuDNN 9.6");
  }
  // 64-bit ragged offsets came with 9.5. TE passes 32-bit ones before it;
  // native's graph always declares 64-bit offsets (cudnn_sdpa_graph.cc), so
  // every thd call needs 9.5 here.
  if (q.cudnn_version < 90500) {
    return absl::StrCat("thd: native's ragged offsets are 64-bit, which needs cuDNN 9.5, got ",
                        CudnnVersionText(q.cudnn_version));
  }
  return "";
}

std::string Window(const Q& q) {
  const int32_t v = q.cudnn_version;
  const int64_t wl = q.window_left, wr = WindowRight(q);
  const bool sq_le_skv = q.seq_q <= q.seq_kv;
  const bool plain = NoBias(q) && NoDropout(q);
  const bool full_or_causal = wl == -1 && (wr == -1 || wr == 0);
  // TransformerEngine's utils.py: an fp8 window needs Blackwell and 9.21,
  // and (as every window there) no dropout and max_seqlen_q <= max_seqlen_kv.
  if (IsFp8(q) && !full_or_causal) {
    if (q.arch < 100 || v < 92100) {
      return absl::StrCat("fp8 with sliding window (", wl, ", ", wr,
                          ") needs sm_100 and cuDNN 9.21");
    }
    if (!NoDropout(q) || !sq_le_skv) {
      return absl::StrCat("fp8 with sliding window (", wl, ", ", wr,
                          ") needs no dropout and max_seqlen_q <= ", "max_seqlen_kv, got dropout ",
                          q.dropout, ", max_seqlen_q ", q.seq_q, ", max_seqlen_kv ", q.seq_kv);
    }
  }
  if (!IsF16(q)) return "";
  // Before 9.2: full attention or causal only.
  if (v < 90200 && full_or_causal) return "";
  // 9.2: (left, 0) with a top-left diagonal, bshd/sbhd.
  if (v >= 90200 &&
      ((wl == -1 && wr == -1 && q.mask_type == TEPLUG_MASK_NONE) ||
       (wr == 0 &&
        (q.mask_type == TEPLUG_MASK_NONE || q.mask_type == TEPLUG_MASK_CAUSAL ||
         (q.mask_type == TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT && q.seq_q == q.seq_kv)) &&
        sq_le_skv && plain && !Thd(q)))) {
    return "";
  }
  // 9.6: (left, right) with either diagonal, any format.
  if (v >= 90600) {
    if (full_or_causal) return "";
    const bool bottom_right_ok = q.arch < 100 || v > 90700 || q.seq_q == q.seq_kv;
    const bool mask_ok = q.mask_type == TEPLUG_MASK_NONE || q.mask_type == TEPLUG_MASK_PADDING ||
                         q.mask_type == TEPLUG_MASK_PADDING_CAUSAL ||
                         (BottomRightCausal(q) && bottom_right_ok);
    if (mask_ok && sq_le_skv && plain) return "";
  }
  return absl::StrCat("sliding window (", wl, ", ", wr, ") with mask ", Mask(q), ", ", Format(q), ", bias ", Bias(q),
                      ", dropout ", q.dropout, ", max_seqlen_q ", q.seq_q, ", max_seqlen_kv ", q.seq_kv,
                      " is not served: a window needs max_seqlen_q <= max_seqlen_kv, no bias and no dropout, and "
                      "from cuDNN 9.6 a mask other than causal (top-left)");
}

std::string KnownBug914(const Q& q) {
  if (IsF16(q) && q.cudnn_version == 91400 && q.seq_kv > 1024 && q.window_left != -1 &&
      q.mask_type != TEPLUG_MASK_CAUSAL && q.mask_type != TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT) {
    return "cuDNN 9.14.0 has a known bug with a left window, a non-causal mask and max_seqlen_kv > 1024";
  }
  return "";
}

// TE's determinism filter (utils.py) and Blackwell's backward kernels
// (fused_attn.cpp), and cuDNN frontend 1.16's backward node, which refuses a
// deterministic algorithm on compute capability 10.x ("Deterministic algorithm
// is not supported on blackwell architecture",
// CompositeSDPABackwardNode::validate) although TE serves it from 9.18.1.
std::string Determinism(const Q& q) {
  if (!q.backward) return "";
  if (IsF16(q) && q.deterministic) {
    if (q.arch < 90) return "deterministic backward needs sm_90";
    if (q.dbias) return "deterministic backward with dBias is not served";
    if (q.arch / 10 == 10) {
      return absl::StrCat("deterministic backward on ", Sm(q.arch),
                          ": cuDNN frontend 1.16 has no deterministic backward on sm_10x");
    }
    // fused_attn.cpp: "Deterministic fused attention on SM120 is not supported".
    if (q.arch == 120) return "deterministic backward on sm_120 is not served";
  }
  if (IsFp8(q) && q.deterministic && (q.arch < 90 || q.cudnn_version < 91900)) {
    return "fp8 deterministic backward needs sm_90 and cuDNN 9.19";
  }
  if (IsF16(q) && q.arch >= 100) {
    if (q.deterministic) {
      if (q.cudnn_version < 91801) return absl::StrCat("deterministic backward on ", Sm(q.arch), " needs cuDNN 9.18.1");
      if (!NoDropout(q) || !NoBias(q)) {
        return absl::StrCat("deterministic backward on ", Sm(q.arch), " needs no dropout and no bias, got dropout ",
                            q.dropout, ", bias ", Bias(q));
      }
    } else if (!NoDropout(q) && !NoBias(q)) {
      return absl::StrCat("backward on ", Sm(q.arch), " with both dropout ", q.dropout, " and bias ", Bias(q),
                          " is not served");
    }
  }
  return "";
}

// nvte_get_fused_attn_backend's FP8 branch.
std::string Fp8(const Q& q) {
  if (!IsFp8(q)) return "";
  const int32_t v = q.cudnn_version, sm = q.arch;
  const int64_t dqk = q.dim_qk, dv = q.dim_v;
  if (sm < 90) return "fp8 needs sm_90";
  if (v == 91000) return "cuDNN 9.10.0 has known fp8 SDPA bugs";
  const bool m = q.mask_type == TEPLUG_MASK_NONE || q.mask_type == TEPLUG_MASK_CAUSAL;
  const bool m_pad = m || q.mask_type == TEPLUG_MASK_PADDING || q.mask_type == TEPLUG_MASK_PADDING_CAUSAL;
  const bool m_br = m || q.mask_type == TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT;
  const bool c921 = v >= 90201 && sm < 100 && q.seq_q % 128 == 0 && q.seq_kv % 128 == 0 && dqk == 128 &&
                    dv == 128 && m;
  const bool dims97 = (sm < 100 && !Training(q) && dqk <= 256 && dv <= 256) ||
                      (sm < 100 && Training(q) && dqk == 128 && dv == 128) || (sm >= 100 && dqk <= 128 && dv <= 128);
  const bool c97 = v >= 90700 && dims97 && dqk % 16 == 0 && dv % 16 == 0 && m_pad;
  const bool c921b = v >= 92100 && sm >= 100 && dqk <= 192 && dv <= 128 && dqk % 16 == 0 && dv % 16 == 0 && m_br;
  if (c921 || c97 || c921b) return "";
  return absl::StrCat("fp8 ", Phase(q), " with ", HeadDims(q), ", mask ", Mask(q), " on ", Sm(sm),
                      " is not served: sm_90 ", Phase(q), " needs head dims multiples of 16 ",
                      Training(q) ? "equal to 128" : "<= 256",
                      " and mask none, causal, padding or padding_causal (cuDNN 9.7)");
}

}  // namespace

const std::vector<AttentionRule>& CudnnAttentionRules() {
  static const std::vector<AttentionRule> rules = {
      {"cudnn_version", Version},
      {"arch", Arch},
      {"dtype", Dtype},
      {"fp8", Fp8},
      {"head_dim", HeadDimF16},
      {"bias_type", BiasType},
      {"bias_with_mask", BiasWithMask},
      {"mask_type", MaskType},
      {"bottom_right_diagonal", BottomRightDiagonalWith},
      {"thd_layout", ThdLayout},
      {"sliding_window", Window},
      {"known_bug_9_14", KnownBug914},
      {"determinism", Determinism},
  };
  return rules;
}

std::string CudnnVersionText(int32_t version) {
  const int32_t major = version / 10000, minor = (version % 10000) / 100, patch = version % 100;
  if (patch == 0) return absl::StrCat(major, ".", minor);
  return absl::StrCat(major, ".", minor, ".", patch);
}

std::string WhyCudnnRefuses(const AttentionQuery& query) {
  for (const AttentionRule& rule : CudnnAttentionRules()) {
    std::string why = rule.why_not(query);
    if (!why.empty()) {
      return absl::StrCat("cuDNN ", CudnnVersionText(query.cudnn_version), " on ", Sm(query.arch), ": ", why);
    }
  }
  return "";
}

AttentionQuery QueryOf(const TeplugAttentionParams& params, bool backward, int32_t dtype, bool dbias, int32_t arch,
                       int32_t cudnn_version) {
  AttentionQuery q;
  q.arch = arch;
  q.cudnn_version = cudnn_version;
  q.backward = backward;
  q.training = params.is_training != 0;
  q.dtype = dtype;
  q.layout = params.layout;
  q.mask_type = params.mask_type;
  q.bias_type = params.bias_type;
  q.dropout = params.is_training != 0 ? params.dropout : 0.0f;
  q.batch = params.batch;
  q.heads_q = params.num_heads_q;
  q.heads_kv = params.num_heads_kv;
  q.seq_q = params.max_seqlen_q;
  q.seq_kv = params.max_seqlen_kv;
  q.dim_qk = params.head_dim_qk;
  q.dim_v = params.head_dim_v;
  q.window_left = params.window_left;
  q.window_right = params.window_right;
  q.deterministic = params.deterministic != 0;
  q.dbias = dbias;
  return q;
}

}  // namespace teplug::native::attention
