/* teplug/attention.h — IAttention v1: fused scaled-dot-product attention,
 * forward and backward, with TransformerEngine's parameter set.
 *
 * Semantics (the reference provider is the executable definition; see
 * interfaces/README.md "IAttention"):
 *   S = Q K^T                                 per (batch, q head, kv group)
 *   pre_scale bias:  S' = (S + B) * scale;  post_scale: S' = S * scale + B
 *   alibi:           S' = S * scale - slope_h * |i + off - j|, off = skv_b - sq_b
 *                    (bottom-right aligned) except for the causal and
 *                    padding_causal masks, where off = 0 (top-left), as in
 *                    TransformerEngine
 *   masked positions are -inf; P = softmax(S'); LSE = log(sum exp S') (natural
 *   log, before dropout); training dropout keeps P with probability 1-p and
 *   scales kept values by 1/(1-p) using the Philox4x32-10 mapping documented in
 *   the README; O = P V. Fully masked rows give O = 0 and LSE = -inf. */
#ifndef TEPLUG_ATTENTION_H_
#define TEPLUG_ATTENTION_H_

#include "teplug/capability.h"
#include "teplug/status.h"
#include "teplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEPLUG_IID_ATTENTION_V1_INIT {0x7465706c75670001ull, 0x6174746e00000001ull}

/* Q/K/V memory layouts (TransformerEngine's names). s = sequence, b = batch,
 * h = heads, d = head dim, t = total tokens of a packed variable-length batch
 * (THD, with cu_seqlens). "3" and "2" mark packed tensors: sb3hd is one
 * [s, b, 3, h, d] buffer holding Q, K and V; bshd_bs2hd is Q [b, s, h, d] plus
 * one [b, s, 2, h, d] buffer holding K and V. For a packed layout, pass the
 * packed tensor as every member it holds (q = k = v for *3*; k = v for *2*). */
typedef enum TeplugQkvLayout {
  TEPLUG_LAYOUT_SB3HD = 0,
  TEPLUG_LAYOUT_SBH3D = 1,
  TEPLUG_LAYOUT_SBHD_SB2HD = 2,
  TEPLUG_LAYOUT_SBHD_SBH2D = 3,
  TEPLUG_LAYOUT_SBHD_SBHD_SBHD = 4,
  TEPLUG_LAYOUT_BS3HD = 5,
  TEPLUG_LAYOUT_BSH3D = 6,
  TEPLUG_LAYOUT_BSHD_BS2HD = 7,
  TEPLUG_LAYOUT_BSHD_BSH2D = 8,
  TEPLUG_LAYOUT_BSHD_BSHD_BSHD = 9,
  TEPLUG_LAYOUT_T3HD = 10,
  TEPLUG_LAYOUT_TH3D = 11,
  TEPLUG_LAYOUT_THD_T2HD = 12,
  TEPLUG_LAYOUT_THD_TH2D = 13,
  TEPLUG_LAYOUT_THD_THD_THD = 14,
  TEPLUG_LAYOUT_COUNT_ = 15
} TeplugQkvLayout;
#define TEPLUG_LAYOUT_BIT(l) (UINT32_C(1) << (l))

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

typedef enum TeplugBiasType {
  TEPLUG_BIAS_NONE = 0,
  TEPLUG_BIAS_PRE_SCALE = 1,
  TEPLUG_BIAS_POST_SCALE = 2,
  TEPLUG_BIAS_ALIBI = 3,
  TEPLUG_BIAS_COUNT_ = 4
} TeplugBiasType;
#define TEPLUG_BIAS_BIT(b) (UINT32_C(1) << (b))

/* Parameters shared by forward and backward (pass the same values to both).
 *  - num_heads_q must be a multiple of num_heads_kv (grouped-query attention:
 *    q head h reads kv head h / (num_heads_q / num_heads_kv)).
 *  - cu_seqlens_q/kv: int32 [batch + 1] prefix sums of the actual lengths;
 *    required for THD layouts and padding masks, otherwise NULL (every
 *    sequence has the max length).
 *  - window_left/right: sliding window, -1 = unbounded; causal masks imply
 *    window_right = 0 (the caller may pass -1 or 0 there).
 *  - dropout in [0, 1); applied only when is_training; rng_seed/rng_offset
 *    key the Philox stream (README "Dropout RNG").
 *  - alibi_slopes: optional fp32 [num_heads_q] for TEPLUG_BIAS_ALIBI (NULL =
 *    TransformerEngine's default slopes: 2^(-8(h+1)/H) when H is a power of
 *    two, otherwise the interleaved construction of TE's get_alibi; see
 *    plugins/reference/kernels/README.md).
 *  - deterministic: require bitwise reproducible results (backward). */
typedef struct TeplugAttentionParams {
  size_t struct_size;
  int32_t layout;    /* TeplugQkvLayout */
  int32_t mask_type; /* TeplugMaskType */
  int32_t bias_type; /* TeplugBiasType */
  TeplugBool is_training;
  int64_t batch;
  int64_t num_heads_q;
  int64_t num_heads_kv;
  int64_t head_dim_qk;
  int64_t head_dim_v;
  int64_t max_seqlen_q;
  int64_t max_seqlen_kv;
  int64_t window_left;
  int64_t window_right;
  float softmax_scale;
  float dropout;
  uint64_t rng_seed;
  uint64_t rng_offset;
  const TeplugTensor* cu_seqlens_q;
  const TeplugTensor* cu_seqlens_kv;
  const TeplugTensor* alibi_slopes;
  TeplugBool deterministic;
  int32_t reserved0; /* zero */
} TeplugAttentionParams;
TEPLUG_DECLARE_LAST_FIELD(TeplugAttentionParams, reserved0);

/* Forward. Tensors are in the layout `params->layout` names.
 *  - q, k, v: inputs (fp16, bf16, fp32, or fp8 with per-tensor scale_inv).
 *  - bias: [1 or b, 1 or h, max_sq, max_skv] for pre/post_scale, else NULL.
 *  - o: output in q's layout family with head_dim_v ([b, s, h, dv] for bshd
 *    formats, [s, b, h, dv] for sbhd, [t, h, dv] for thd). For fp8, o carries
 *    quant->scale and amax.
 *  - softmax_lse: fp32 [b, h, max_sq] (natural-log sum-exp, needed by
 *    backward); may be NULL when !is_training.
 *  - s_quant: fp8 only: scale/scale_inv/amax of the softmax output P. */
typedef struct TeplugAttentionFwdArgs {
  size_t struct_size;
  const TeplugAttentionParams* params;
  const TeplugTensor* q;
  const TeplugTensor* k;
  const TeplugTensor* v;
  const TeplugTensor* bias;
  TeplugTensor* o;
  TeplugTensor* softmax_lse;
  const TeplugQuantization* s_quant;
  void* workspace;
  size_t workspace_size;
  TeplugStream stream;
} TeplugAttentionFwdArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugAttentionFwdArgs, stream);

/* Backward: given dO, produce dQ, dK, dV (same layouts and shapes as Q, K, V;
 * for packed layouts dq = dk = dv is the packed gradient buffer) and dBias
 * (shape of bias, summed over broadcast dims; NULL unless bias_type is
 * pre_scale or post_scale and the caller wants it).
 * dp_quant: fp8 only: scale/scale_inv/amax of dP. */
typedef struct TeplugAttentionBwdArgs {
  size_t struct_size;
  const TeplugAttentionParams* params;
  const TeplugTensor* q;
  const TeplugTensor* k;
  const TeplugTensor* v;
  const TeplugTensor* o;
  const TeplugTensor* d_o;
  const TeplugTensor* softmax_lse;
  const TeplugTensor* bias;
  TeplugTensor* dq;
  TeplugTensor* dk;
  TeplugTensor* dv;
  TeplugTensor* dbias;
  const TeplugQuantization* s_quant;
  const TeplugQuantization* dp_quant;
  void* workspace;
  size_t workspace_size;
  TeplugStream stream;
} TeplugAttentionBwdArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugAttentionBwdArgs, stream);

/* Feature bits for TeplugAttentionCaps.features. */
#define TEPLUG_ATTN_CAP_DROPOUT (UINT32_C(1) << 0)
#define TEPLUG_ATTN_CAP_SLIDING_WINDOW (UINT32_C(1) << 1)
#define TEPLUG_ATTN_CAP_GQA (UINT32_C(1) << 2)
#define TEPLUG_ATTN_CAP_DETERMINISTIC (UINT32_C(1) << 3)
#define TEPLUG_ATTN_CAP_BACKWARD (UINT32_C(1) << 4)
#define TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS (UINT32_C(1) << 5) /* head_dim_qk != head_dim_v */

/* What an attention implementation serves. THD support is expressed by the
 * THD layouts in `layouts`, fp8 by fp8 dtypes in `qkv_dtypes`. */
typedef struct TeplugAttentionCaps {
  size_t struct_size;
  const TeplugDeviceSupport* devices;
  size_t num_devices;
  uint64_t qkv_dtypes; /* TEPLUG_DTYPE_BIT set for q, k, v (o follows q, fp8 excepted) */
  uint32_t layouts;    /* TEPLUG_LAYOUT_BIT set */
  uint32_t mask_types; /* TEPLUG_MASK_BIT set */
  uint32_t bias_types; /* TEPLUG_BIAS_BIT set */
  uint32_t features;   /* TEPLUG_ATTN_CAP_* */
  int64_t head_dim_min;      /* applies to head_dim_qk and head_dim_v; 0 = none */
  int64_t head_dim_max;      /* 0 = unbounded */
  int64_t head_dim_multiple; /* 0 or 1 = any */
  int64_t max_seqlen_q;      /* 0 = unbounded */
  int64_t max_seqlen_kv;     /* 0 = unbounded */
} TeplugAttentionCaps;
TEPLUG_DECLARE_LAST_FIELD(TeplugAttentionCaps, max_seqlen_kv);

typedef struct TeplugAttentionV1 TeplugAttentionV1;
typedef struct TeplugAttentionV1Vtbl {
  TeplugObjectVtbl base;
  TeplugSupportsFn supports; /* may be NULL */
  /* Bytes of workspace the op needs (op is TEPLUG_OP_ATTENTION_FORWARD with
   * args a TeplugAttentionFwdArgs*, or _BACKWARD with a TeplugAttentionBwdArgs*). */
  TeplugError* (*workspace_size)(TeplugAttentionV1* self, int32_t op, const void* args,
                                 size_t* bytes);
  TeplugError* (*forward)(TeplugAttentionV1* self, const TeplugAttentionFwdArgs* args);
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
