/* teplug/attention.h — IAttention v1: fused scaled-dot-product attention,
 * forward and backward, with TransformerEngine's parameter set.
 *
 * The reference provider (plugins/reference/kernels/attention_reference.h,
 * fp64; long form in plugins/reference/kernels/README.md) is the executable
 * definition of these semantics: test against it.
 *
 * Semantics. Per batch b, query head h (reading KV head h / (Hq / Hkv)),
 * query row i and key j, with sq_b, skv_b the batch's actual lengths (from
 * cu_seqlens for THD layouts and padding masks, otherwise max_seqlen_q,
 * max_seqlen_kv):
 *   S_ij = q_i . k_j
 *   bias none:        S'_ij = S_ij * scale
 *   bias pre_scale:   S'_ij = (S_ij + B[b][h][i][j]) * scale
 *   bias post_scale:  S'_ij = S_ij * scale + B[b][h][i][j]
 *   bias alibi:       S'_ij = S_ij * scale - slope_h * |i + delta_b - j|
 *   delta_b = 0 for causal and padding_causal (top-left diagonal),
 *             skv_b - sq_b for every other mask type (bottom-right diagonal)
 *   visible(i, j) = j < skv_b
 *               and (window_left  < 0 or j >= i + delta_b - window_left)
 *               and (window_right < 0 or j <= i + delta_b + window_right)
 *     (the causal mask types force window_right = 0, whether the caller
 *      passed -1 or 0: causal is j <= i, causal_bottom_right is
 *      j <= i + skv_b - sq_b)
 *   P = softmax over visible j of S'        (masked positions are -inf)
 *   LSE_i = log(sum over visible j of exp(S'_ij))  (natural log, before dropout)
 *   training with dropout p: P_ij *= 1/(1-p) if kept, 0 if dropped
 *   O_i = sum_j P_ij V_j
 * Rows with no visible key, and padding rows i >= sq_b, give O = 0 and
 * LSE = -inf (and zero gradients). `scale` is softmax_scale. With
 * alibi_slopes NULL the slopes are TransformerEngine's defaults: with n the
 * largest power of two <= Hq, slope_h = 2^(-8(h+1)/n) for h < n and
 * slope_{n+k} = 2^(-4(2k+1)/n) for the remaining heads (for a power-of-two Hq
 * simply 2^(-8(h+1)/Hq)).
 * Backward computes dQ, dK, dV (and dBias) of the forward above given dO,
 * using the forward's O and LSE (as fused kernels do: P rebuilt from LSE,
 * softmax gradient with rowsum(dO * O)), with the same dropout mask.
 *
 * Dropout RNG. Applied when is_training and dropout > 0. Every provider must
 * produce the reference's mask bit for bit (implemented in
 * plugins/reference/kernels/dropout_mask.h; Philox in
 * plugins/reference/kernels/philox.h, a dependency-free constexpr header a
 * CUDA provider may include as is):
 *   grid    = [B, Hq, max_sq, max_skv]  (padded positions, also for THD)
 *   linear  = ((b * Hq + h) * max_sq + i) * max_skv + j            (uint64)
 *   key     = (rng_seed & 0xFFFFFFFF, rng_seed >> 32)               (Philox key words)
 *   c       = rng_offset + floor(linear / 4)  (128-bit unsigned sum of two uint64)
 *   counter = (c bits 0..31, 32..63, 64..95, 96..127)
 *   r       = Philox4x32_10(counter, key).word[linear % 4]
 *   u       = r * 2^-32                                             (in [0, 1))
 *   keep    = (u >= p); kept P is multiplied by 1/(1-p), dropped P becomes 0
 * Philox4x32-10 is Random123's philox4x32 with 10 rounds: multipliers
 * 0xD2511F53, 0xCD9E8D57, key increments 0x9E3779B9, 0xBB67AE85. A caller
 * that runs several dropout launches with one seed advances rng_offset by at
 * least ceil(B * Hq * max_sq * max_skv / 4) between them. Backward
 * regenerates the forward's mask from the same rng_seed and rng_offset.
 *
 * Field reference: every field here appeared in ABI v1.0 ("v1.0"); "0 /
 * NULL:" is what a zero value means (and what a reader assumes for a field a
 * shorter struct lacks). */
#ifndef TEPLUG_ATTENTION_H_
#define TEPLUG_ATTENTION_H_

#include "teplug/capability.h"
#include "teplug/status.h"
#include "teplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* IAttention/1 (v1.0). */
#define TEPLUG_IID_ATTENTION_V1_INIT {0x7465706c75670001ull, 0x6174746e00000001ull}

/* Q/K/V memory layouts (v1.0, TransformerEngine's names; bit sets use
 * TEPLUG_LAYOUT_BIT). s = sequence, b = batch, h = heads, d = head dim,
 * t = total tokens of a packed variable-length batch. "3" marks one buffer
 * holding Q, K and V (index 0, 1, 2 along that axis), "2" one buffer holding K
 * and V (0 = K, 1 = V). Shapes are row-major, last index fastest; S is
 * max_seqlen_q for Q and max_seqlen_kv for K/V, H is num_heads_q for Q and
 * num_heads_kv for K/V, D is head_dim_qk for Q/K and head_dim_v for V.
 *
 * For a packed layout, pass the packed tensor as EVERY MEMBER IT HOLDS:
 * q = k = v point at the same TeplugTensor for *3* layouts, k = v for *2*
 * layouts; its rank and shape are the buffer's (rank 5 [S, B, 3, H, D],
 * rank 4 [T, 3, H, D], ...). Packed layouts need equal head dims across the
 * packed members and, for *3*, equal head counts and lengths.
 *
 * THD layouts (t3hd .. thd_thd_thd) need cu_seqlens_q and cu_seqlens_kv and
 * a PADDING MASK TYPE (padding, padding_causal or
 * padding_causal_bottom_right): the sequences of a packed batch are told
 * apart only by cu_seqlens, which only the padding masks read. THD with any
 * other mask type is TEPLUG_INVALID_ARGUMENT. The token of (b, s) is
 * t = cu_seqlens[b] + s (cu_seqlens_q for Q, cu_seqlens_kv for K/V).
 *
 * The output o is never packed: [B, S, Hq, Dv] for bshd formats,
 * [S, B, Hq, Dv] for sbhd, [T, Hq, Dv] for thd. Backward gradients have the
 * layouts and shapes of Q, K, V; for a packed layout dq = dk = dv (or
 * dk = dv) is the packed gradient buffer. */
typedef enum TeplugQkvLayout {
  TEPLUG_LAYOUT_SB3HD = 0,          /* sbhd: one [S, B, 3, H, D] as q = k = v */
  TEPLUG_LAYOUT_SBH3D = 1,          /* sbhd: one [S, B, H, 3, D] as q = k = v */
  TEPLUG_LAYOUT_SBHD_SB2HD = 2,     /* sbhd: Q [S, B, H, D]; one [S, B, 2, H, D] as k = v */
  TEPLUG_LAYOUT_SBHD_SBH2D = 3,     /* sbhd: Q [S, B, H, D]; one [S, B, H, 2, D] as k = v */
  TEPLUG_LAYOUT_SBHD_SBHD_SBHD = 4, /* sbhd: Q, K, V each [S, B, H, D] */
  TEPLUG_LAYOUT_BS3HD = 5,          /* bshd: one [B, S, 3, H, D] as q = k = v */
  TEPLUG_LAYOUT_BSH3D = 6,          /* bshd: one [B, S, H, 3, D] as q = k = v */
  TEPLUG_LAYOUT_BSHD_BS2HD = 7,     /* bshd: Q [B, S, H, D]; one [B, S, 2, H, D] as k = v */
  TEPLUG_LAYOUT_BSHD_BSH2D = 8,     /* bshd: Q [B, S, H, D]; one [B, S, H, 2, D] as k = v */
  TEPLUG_LAYOUT_BSHD_BSHD_BSHD = 9, /* bshd: Q, K, V each [B, S, H, D] */
  TEPLUG_LAYOUT_T3HD = 10,          /* thd: one [T, 3, H, D] as q = k = v */
  TEPLUG_LAYOUT_TH3D = 11,          /* thd: one [T, H, 3, D] as q = k = v */
  TEPLUG_LAYOUT_THD_T2HD = 12,      /* thd: Q [T, H, D]; one [T, 2, H, D] as k = v */
  TEPLUG_LAYOUT_THD_TH2D = 13,      /* thd: Q [T, H, D]; one [T, H, 2, D] as k = v */
  TEPLUG_LAYOUT_THD_THD_THD = 14,   /* thd: Q, K, V each [T, H, D] */
  TEPLUG_LAYOUT_COUNT_ = 15
} TeplugQkvLayout;
#define TEPLUG_LAYOUT_BIT(l) (UINT32_C(1) << (l))

/* Mask types (v1.0; bit sets use TEPLUG_MASK_BIT). The padding variants use
 * the actual lengths from cu_seqlens. */
typedef enum TeplugMaskType {
  TEPLUG_MASK_NONE = 0,
  TEPLUG_MASK_PADDING = 1,
  TEPLUG_MASK_CAUSAL = 2, /* top-left aligned: j <= i */
  TEPLUG_MASK_PADDING_CAUSAL = 3,
  TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT = 4, /* j <= i + skv - sq */
  TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT = 5,
  TEPLUG_MASK_COUNT_ = 6
} TeplugMaskType;
#define TEPLUG_MASK_BIT(m) (UINT32_C(1) << (m))

/* Bias types (v1.0; bit sets use TEPLUG_BIAS_BIT); formulas above. */
typedef enum TeplugBiasType {
  TEPLUG_BIAS_NONE = 0,
  TEPLUG_BIAS_PRE_SCALE = 1,
  TEPLUG_BIAS_POST_SCALE = 2,
  TEPLUG_BIAS_ALIBI = 3,
  TEPLUG_BIAS_COUNT_ = 4
} TeplugBiasType;
#define TEPLUG_BIAS_BIT(b) (UINT32_C(1) << (b))

/* Parameters shared by forward and backward (152 bytes in v1.0): pass the
 * SAME VALUES to both. Allocated by the caller, borrowed for the call. */
typedef struct TeplugAttentionParams {
  /* v1.0. The writer's sizeof(TeplugAttentionParams). */
  size_t struct_size;
  /* v1.0. A TeplugQkvLayout. 0: sb3hd. */
  int32_t layout;
  /* v1.0. A TeplugMaskType. 0: none (not allowed with THD layouts). */
  int32_t mask_type;
  /* v1.0. A TeplugBiasType. 0: none. */
  int32_t bias_type;
  /* v1.0. Training: dropout applies and LSE is needed. 0: inference. */
  TeplugBool is_training;
  /* v1.0. B, required. */
  int64_t batch;
  /* v1.0. Hq, required; a multiple of num_heads_kv. */
  int64_t num_heads_q;
  /* v1.0. Hkv, required; q head h reads kv head h / (Hq / Hkv)
   * (grouped-query attention). */
  int64_t num_heads_kv;
  /* v1.0. D of Q and K, required. */
  int64_t head_dim_qk;
  /* v1.0. D of V and O, required. */
  int64_t head_dim_v;
  /* v1.0. Padded query length (S of Q), required. */
  int64_t max_seqlen_q;
  /* v1.0. Padded key/value length, required. */
  int64_t max_seqlen_kv;
  /* v1.0. Sliding window: keys left of the diagonal; -1 = unbounded. 0: a
   * real window of 0 (only the diagonal), so callers write -1 for
   * "unbounded". */
  int64_t window_left;
  /* v1.0. Keys right of the diagonal; -1 = unbounded; the causal masks imply
   * 0 (the caller may pass -1 or 0 there). 0: a window of 0. */
  int64_t window_right;
  /* v1.0. `scale` in the formulas (typically 1/sqrt(head_dim_qk)). 0: a
   * scale of 0, so set it. */
  float softmax_scale;
  /* v1.0. Probability p in [0, 1); applied only when is_training. 0: no
   * dropout. */
  float dropout;
  /* v1.0. Philox key (Dropout RNG above). 0: seed 0. */
  uint64_t rng_seed;
  /* v1.0. First Philox counter block. 0: offset 0. */
  uint64_t rng_offset;
  /* v1.0. int32 [batch + 1] prefix sums of the actual query lengths; required
   * for THD layouts and padding masks. NULL: every sequence has
   * max_seqlen_q. */
  const TeplugTensor* cu_seqlens_q;
  /* v1.0. The same for keys/values. NULL: every sequence has
   * max_seqlen_kv. */
  const TeplugTensor* cu_seqlens_kv;
  /* v1.0. fp32 [num_heads_q] for TEPLUG_BIAS_ALIBI. NULL: the default slopes
   * (above). */
  const TeplugTensor* alibi_slopes;
  /* v1.0. Require bitwise reproducible results (backward). 0: not required. */
  TeplugBool deterministic;
  /* v1.0. Zero. */
  int32_t reserved0;
} TeplugAttentionParams;
TEPLUG_DECLARE_LAST_FIELD(TeplugAttentionParams, reserved0);

/* Forward (96 bytes in v1.0). Tensors are in the layout params->layout
 * names. */
typedef struct TeplugAttentionFwdArgs {
  /* v1.0. The writer's sizeof(TeplugAttentionFwdArgs). */
  size_t struct_size;
  /* v1.0. The parameters, required. */
  const TeplugAttentionParams* params;
  /* v1.0. Q in params->layout, required: fp16, bf16, fp32, or fp8 with
   * per-tensor scale_inv. */
  const TeplugTensor* q;
  /* v1.0. K, required (the same pointer as q or v when packed). */
  const TeplugTensor* k;
  /* v1.0. V, required. */
  const TeplugTensor* v;
  /* v1.0. [1 or B, 1 or Hq, max_sq, max_skv] for pre_scale / post_scale
   * (1 = broadcast). NULL: no bias; must be NULL for none and alibi. */
  const TeplugTensor* bias;
  /* v1.0. Output, required; shape per layout (above), dtype of q (for fp8,
   * o carries quant->scale and amax). */
  TeplugTensor* o;
  /* v1.0. fp32 [B, Hq, max_sq], the natural-log sum-exp backward needs (also
   * for THD). NULL: allowed only when !is_training. */
  TeplugTensor* softmax_lse;
  /* v1.0. fp8 only: scale / scale_inv / amax of the softmax output P. NULL:
   * not fp8. */
  const TeplugQuantization* s_quant;
  /* v1.0. Scratch on the op's device. NULL: none. */
  void* workspace;
  /* v1.0. Bytes at `workspace`. */
  size_t workspace_size;
  /* v1.0. NULL: CPU / default stream. */
  TeplugStream stream;
} TeplugAttentionFwdArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugAttentionFwdArgs, stream);

/* Backward (144 bytes in v1.0): given dO, produce dQ, dK, dV and dBias. */
typedef struct TeplugAttentionBwdArgs {
  /* v1.0. The writer's sizeof(TeplugAttentionBwdArgs). */
  size_t struct_size;
  /* v1.0. The forward's parameters, required. */
  const TeplugAttentionParams* params;
  /* v1.0. Forward input Q, required. */
  const TeplugTensor* q;
  /* v1.0. Forward input K, required. */
  const TeplugTensor* k;
  /* v1.0. Forward input V, required. */
  const TeplugTensor* v;
  /* v1.0. Forward output O, required. */
  const TeplugTensor* o;
  /* v1.0. dL/dO, shape and layout of O, required. */
  const TeplugTensor* d_o;
  /* v1.0. The forward's LSE, required. */
  const TeplugTensor* softmax_lse;
  /* v1.0. The forward's bias. NULL: no bias. */
  const TeplugTensor* bias;
  /* v1.0. dL/dQ, layout and shape of Q (the packed gradient buffer for packed
   * layouts), required. */
  TeplugTensor* dq;
  /* v1.0. dL/dK, required. */
  TeplugTensor* dk;
  /* v1.0. dL/dV, required. */
  TeplugTensor* dv;
  /* v1.0. dL/dBias, shape of bias, summed over its broadcast dims; only for
   * pre_scale / post_scale. NULL: not wanted. */
  TeplugTensor* dbias;
  /* v1.0. fp8 only: scales of P. NULL: not fp8. */
  const TeplugQuantization* s_quant;
  /* v1.0. fp8 only: scale / scale_inv / amax of dP. NULL: not fp8. */
  const TeplugQuantization* dp_quant;
  /* v1.0. Scratch. NULL: none. */
  void* workspace;
  /* v1.0. Bytes at `workspace`. */
  size_t workspace_size;
  /* v1.0. NULL: CPU / default stream. */
  TeplugStream stream;
} TeplugAttentionBwdArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugAttentionBwdArgs, stream);

/* Bits of TeplugAttentionCaps.features (v1.0), each set when the call needs
 * it. */
#define TEPLUG_ATTN_CAP_DROPOUT (UINT32_C(1) << 0)        /* is_training && dropout > 0 */
/* A window other than the one a causal mask implies. */
#define TEPLUG_ATTN_CAP_SLIDING_WINDOW (UINT32_C(1) << 1)
#define TEPLUG_ATTN_CAP_GQA (UINT32_C(1) << 2)            /* num_heads_q != num_heads_kv */
#define TEPLUG_ATTN_CAP_DETERMINISTIC (UINT32_C(1) << 3)  /* deterministic */
#define TEPLUG_ATTN_CAP_BACKWARD (UINT32_C(1) << 4)       /* the backward op */
#define TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS (UINT32_C(1) << 5) /* head_dim_qk != head_dim_v */

/* What an attention implementation serves (88 bytes in v1.0): plugin-owned,
 * static. A bit set of 0 serves nothing (qkv_dtypes, layouts, mask_types and
 * bias_types must not be 0); a limit of 0 is no bound. */
typedef struct TeplugAttentionCaps {
  /* v1.0. The plugin's sizeof(TeplugAttentionCaps). */
  size_t struct_size;
  /* v1.0. Devices served, compared with the op's device. */
  const TeplugDeviceSupport* devices;
  /* v1.0. Entries in `devices`, 1..64. */
  size_t num_devices;
  /* v1.0. TEPLUG_DTYPE_BIT set for q, k, v (o follows q, fp8 excepted); fp8
   * support = fp8 bits here. */
  uint64_t qkv_dtypes;
  /* v1.0. TEPLUG_LAYOUT_BIT(layout) set; THD support = THD layouts here. */
  uint32_t layouts;
  /* v1.0. TEPLUG_MASK_BIT(mask_type) set. */
  uint32_t mask_types;
  /* v1.0. TEPLUG_BIAS_BIT(bias_type) set. */
  uint32_t bias_types;
  /* v1.0. TEPLUG_ATTN_CAP_* bits. 0: none of the features. */
  uint32_t features;
  /* v1.0. Smallest head_dim_qk and head_dim_v served. 0: no bound. */
  int64_t head_dim_min;
  /* v1.0. Largest head_dim_qk and head_dim_v; >= head_dim_min when both are
   * set. 0: unbounded. */
  int64_t head_dim_max;
  /* v1.0. Both head dims must be multiples of it. 0 or 1: any. */
  int64_t head_dim_multiple;
  /* v1.0. Largest params->max_seqlen_q. 0: unbounded. */
  int64_t max_seqlen_q;
  /* v1.0. Largest params->max_seqlen_kv. 0: unbounded. */
  int64_t max_seqlen_kv;
} TeplugAttentionCaps;
TEPLUG_DECLARE_LAST_FIELD(TeplugAttentionCaps, max_seqlen_kv);

/* The IAttention v1 function table (64 bytes in v1.0). Every member but
 * `supports` is required. */
typedef struct TeplugAttentionV1 TeplugAttentionV1;
typedef struct TeplugAttentionV1Vtbl {
  /* v1.0. base.struct_size = sizeof(TeplugAttentionV1Vtbl). */
  TeplugObjectVtbl base;
  /* v1.0. The hook of capability.h: `op` is TEPLUG_OP_ATTENTION_FORWARD or
   * _BACKWARD, `args` the matching args struct. May be NULL. */
  TeplugSupportsFn supports;
  /* v1.0. Bytes of workspace the op needs: op TEPLUG_OP_ATTENTION_FORWARD
   * with args a TeplugAttentionFwdArgs*, or _BACKWARD with a
   * TeplugAttentionBwdArgs*; another op is TEPLUG_INVALID_ARGUMENT. */
  TeplugError* (*workspace_size)(TeplugAttentionV1* self, int32_t op, const void* args,
                                 size_t* bytes);
  /* v1.0. Runs the forward. */
  TeplugError* (*forward)(TeplugAttentionV1* self, const TeplugAttentionFwdArgs* args);
  /* v1.0. Runs the backward. An implementation without backward leaves
   * TEPLUG_ATTN_CAP_BACKWARD clear and returns TEPLUG_UNSUPPORTED here. */
  TeplugError* (*backward)(TeplugAttentionV1* self, const TeplugAttentionBwdArgs* args);
} TeplugAttentionV1Vtbl;
TEPLUG_DECLARE_LAST_FIELD(TeplugAttentionV1Vtbl, backward);

struct TeplugAttentionV1 {
  const TeplugAttentionV1Vtbl* vtbl;
};

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_ATTENTION_H_ */
