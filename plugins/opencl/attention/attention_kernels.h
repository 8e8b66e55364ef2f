// The OpenCL C of the opencl provider's attention, compiled by ProgramCache
// once per context and element type: "-DTEPLUG_HALF" (fp16, vload_half /
// vstore_half_rte, no cl_khr_fp16 needed), "-DTEPLUG_BF16" (bf16 as ushort,
// widened exactly, stored round-to-nearest-even) or nothing (fp32). Every
// product and sum is fp32.
//
// Addressing. Element (b, s, h, d) of Q, K, V, O or a gradient is
//   x[off + b * sb + (tok0[b] + s) * ss + h * sh + d]
// (sb = 0 and tok0 = cu_seqlens[b] for packed-token layouts, tok0 = 0
// otherwise), so every layout, packed member and strided view is one set of
// (off, sb, ss, sh). `seqs` holds per batch {len_q, len_kv, tok0_q, tok0_kv}.
//
// Scores, visibility, LSE and gradients are attention.h's:
//   S'_ij = qk*scale | (qk + bias)*scale | qk*scale + bias | qk*scale - slope*|i+delta-j|
//   visible: lo_i <= j < hi_i with lo/hi from len_kv and the window, both
//   non-decreasing in i (so a query tile's keys are [lo(first), hi(last))).
//
// Kernels:
//   attn_forward   work-group = TILE query rows of one (b, h); K/V blocks of
//                  TILE keys staged in local memory; online softmax; O and LSE.
//   attn_row_dot   delta_i = rowsum(dO_i * O_i) per (b, h, i) into fp32 scratch.
//   attn_dq        work-group = TILE query rows; dQ_i = scale sum_j dS_ij K_j.
//   attn_dkv       work-group = TILE keys of one (b, kv head); every query head
//                  of the group and every query row visited in blocks:
//                  dV_j = sum P_ij dO_i, dK_j = scale sum dS_ij Q_i.
//   attn_dbias     one bias element per item, summed over its broadcast axes.
//   zero_absent    writes 0 to the rows of an output no sequence owns
//                  (padding rows, tokens past cu_seqlens[B]).
// No atomics: each output element is written by one work item in a fixed
// order, so results are bitwise reproducible.
#ifndef TEPLUG_PLUGINS_OPENCL_ATTENTION_ATTENTION_KERNELS_H_
#define TEPLUG_PLUGINS_OPENCL_ATTENTION_ATTENTION_KERNELS_H_

namespace teplug::opencl::attention {

// Query rows (and key rows) per work-group; the local size of the tiled kernels.
inline constexpr int kAttentionTile = 16;

inline constexpr char kAttentionKernelSource[] = R"CL(
#define TILE 16
#if defined(TEPLUG_HALF)
typedef half T;
#define LOAD(p, i) vload_half((i), (p))
#define STORE(p, i, v) vstore_half_rte((v), (i), (p))
#elif defined(TEPLUG_BF16)
typedef ushort T;
#define LOAD(p, i) as_float(((uint)(p)[(i)]) << 16)
ushort to_bf16(float f) {
  const uint u = as_uint(f);
  if (isnan(f)) return (ushort)((u >> 16) | 0x40u);
  return (ushort)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
#define STORE(p, i, v) ((p)[(i)] = to_bf16(v))
#else
typedef float T;
#define LOAD(p, i) ((p)[(i)])
#define STORE(p, i, v) ((p)[(i)] = (v))
#endif

#define BIAS_NONE 0
#define BIAS_PRE 1
#define BIAS_POST 2
#define BIAS_ALIBI 3

// What every kernel needs to know about the problem.
typedef struct {
  int hq, group, max_sq, max_skv, dqk, dv;
  float scale;
  int window_left, window_right, bottom_right;
  int bias_kind;
  long bias_off, bias_sb, bias_sh;  // bias [Bb][Hb][max_sq][max_skv], dense
} Problem;

#define PROBLEM_ARGS                                                                      \
  int hq, int group, int max_sq, int max_skv, int dqk, int dv, float scale,               \
      int window_left, int window_right, int bottom_right, __global const T *bias,        \
      int bias_kind, long bias_off, long bias_sb, long bias_sh, __global const float *slopes
#define MAKE_PROBLEM()                                                                    \
  Problem P = {hq, group, max_sq, max_skv, dqk, dv, scale, window_left, window_right,     \
               bottom_right, bias_kind, bias_off, bias_sb, bias_sh}

// Element index of (b, s, h, 0).
#define AT(off, sb, ss, sh, b, tok0, s, h) ((off) + (long)(b) * (sb) + ((long)(tok0) + (s)) * (ss) + (long)(h) * (sh))

int delta_of(const Problem *P, int len_q, int len_kv) {
  return P->bottom_right ? len_kv - len_q : 0;
}
int visible_lo(const Problem *P, int i, int delta) {
  return P->window_left < 0 ? 0 : max(0, i + delta - P->window_left);
}
int visible_hi(const Problem *P, int i, int delta, int len_kv) {
  return P->window_right < 0 ? len_kv : min(len_kv, i + delta + P->window_right + 1);
}

float score(const Problem *P, __global const T *bias, __global const float *slopes, float qk,
            int b, int h, int i, int j, int delta) {
  if (P->bias_kind == BIAS_PRE || P->bias_kind == BIAS_POST) {
    const float x = LOAD(bias, P->bias_off + b * P->bias_sb + h * P->bias_sh +
                                   ((long)i * P->max_skv + j));
    return P->bias_kind == BIAS_PRE ? (qk + x) * P->scale : qk * P->scale + x;
  }
  if (P->bias_kind == BIAS_ALIBI) return qk * P->scale - slopes[h] * (float)abs(i + delta - j);
  return qk * P->scale;
}

// The query tile of a work-group of attn_forward / attn_dq (TILE rows of one
// (b, h) from i0): its rows inside the sequence, the keys any of them sees
// ([tile_lo, tile_hi)) and this item's row i with its visible keys [lo, hi).
typedef struct {
  int lid, i0, i, bh, b, h, hk, tq, tkv, delta, rows, tile_lo, tile_hi, lo, hi;
} QueryTile;

QueryTile query_tile(const Problem *P, __global const int *seqs) {
  QueryTile t;
  t.lid = get_local_id(0), t.i0 = get_group_id(0) * TILE, t.i = t.i0 + t.lid;
  t.bh = get_global_id(1), t.b = t.bh / P->hq, t.h = t.bh % P->hq, t.hk = t.h / P->group;
  const int len_q = seqs[4 * t.b], len_kv = seqs[4 * t.b + 1];
  t.tq = seqs[4 * t.b + 2], t.tkv = seqs[4 * t.b + 3];
  t.delta = delta_of(P, len_q, len_kv);
  t.rows = clamp(len_q - t.i0, 0, TILE);
  t.tile_lo = t.rows > 0 ? visible_lo(P, t.i0, t.delta) : 0;
  t.tile_hi = t.rows > 0 ? visible_hi(P, t.i0 + t.rows - 1, t.delta, len_kv) : 0;
  t.lo = visible_lo(P, t.i, t.delta), t.hi = visible_hi(P, t.i, t.delta, len_kv);
  return t;
}

// Copies `rows` rows of `width` elements (row r at x[base + r * ss + d]) into
// dst[r * width + d] as fp32, zeros past `valid` rows; every item of the
// work-group takes part.
void stage(__local float *dst, __global const T *x, long base, long ss, int valid, int width,
           int lid) {
  for (int e = lid; e < TILE * width; e += TILE) {
    const int r = e / width, d = e - r * width;
    dst[e] = r < valid ? LOAD(x, base + r * ss + d) : 0.0f;
  }
}

__kernel void attn_forward(
    __global const T *q, long q_off, long q_sb, long q_ss, long q_sh,
    __global const T *k, long k_off, long k_sb, long k_ss, long k_sh,
    __global const T *v, long v_off, long v_sb, long v_ss, long v_sh,
    __global T *o, long o_off, long o_sb, long o_ss, long o_sh,
    __global float *lse, long lse_off, int has_lse, __global const int *seqs, PROBLEM_ARGS,
    __local float *qt, __local float *kt, __local float *vt, __local float *acc) {
  MAKE_PROBLEM();
  const QueryTile Q = query_tile(&P, seqs);
  const int lid = Q.lid, i0 = Q.i0, i = Q.i, bh = Q.bh, b = Q.b, h = Q.h, hk = Q.hk;
  const int tq = Q.tq, tkv = Q.tkv, delta = Q.delta, rows = Q.rows;
  const bool row = lid < rows;
  stage(qt, q, AT(q_off, q_sb, q_ss, q_sh, b, tq, i0, h), q_ss, rows, dqk, lid);
  for (int d = 0; d < dv; ++d) acc[lid * dv + d] = 0.0f;
  float m = -INFINITY, l = 0.0f;
  for (int j0 = Q.tile_lo; j0 < Q.tile_hi; j0 += TILE) {
    const int keys = min(TILE, Q.tile_hi - j0);
    barrier(CLK_LOCAL_MEM_FENCE);
    stage(kt, k, AT(k_off, k_sb, k_ss, k_sh, b, tkv, j0, hk), k_ss, keys, dqk, lid);
    stage(vt, v, AT(v_off, v_sb, v_ss, v_sh, b, tkv, j0, hk), v_ss, keys, dv, lid);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!row) continue;
    float s[TILE];
    float block_max = -INFINITY;
    for (int jj = 0; jj < keys; ++jj) {
      const int j = j0 + jj;
      s[jj] = -INFINITY;
      if (j < Q.lo || j >= Q.hi) continue;
      float qk = 0.0f;
      for (int d = 0; d < dqk; ++d) qk += qt[lid * dqk + d] * kt[jj * dqk + d];
      s[jj] = score(&P, bias, slopes, qk, b, h, i, j, delta);
      block_max = fmax(block_max, s[jj]);
    }
    if (block_max == -INFINITY) continue;
    const float m_new = fmax(m, block_max), correction = exp(m - m_new);
    l *= correction;
    for (int d = 0; d < dv; ++d) acc[lid * dv + d] *= correction;
    for (int jj = 0; jj < keys; ++jj) {
      if (s[jj] == -INFINITY) continue;
      const float p = exp(s[jj] - m_new);
      l += p;
      for (int d = 0; d < dv; ++d) acc[lid * dv + d] += p * vt[jj * dv + d];
    }
    m = m_new;
  }
  if (i >= max_sq) return;
  if (has_lse) lse[lse_off + (long)bh * max_sq + i] = (row && l > 0.0f) ? m + log(l) : -INFINITY;
  if (!row) return;  // a padding row: zero_absent owns it
  const long at = AT(o_off, o_sb, o_ss, o_sh, b, tq, i, h);
  const float inv = l > 0.0f ? 1.0f / l : 0.0f;
  for (int d = 0; d < dv; ++d) STORE(o, at + d, acc[lid * dv + d] * inv);
}

__kernel void attn_row_dot(
    __global const T *o, long o_off, long o_sb, long o_ss, long o_sh,
    __global const T *g, long g_off, long g_sb, long g_ss, long g_sh,
    __global const int *seqs, int hq, int max_sq, int dv, __global float *out) {
  const int i = get_global_id(0), bh = get_global_id(1), b = bh / hq, h = bh % hq;
  float sum = 0.0f;
  if (i < seqs[4 * b]) {
    const int tq = seqs[4 * b + 2];
    const long at_o = AT(o_off, o_sb, o_ss, o_sh, b, tq, i, h);
    const long at_g = AT(g_off, g_sb, g_ss, g_sh, b, tq, i, h);
    for (int d = 0; d < dv; ++d) sum += LOAD(o, at_o + d) * LOAD(g, at_g + d);
  }
  out[(long)bh * max_sq + i] = sum;
}

__kernel void attn_dq(
    __global const T *q, long q_off, long q_sb, long q_ss, long q_sh,
    __global const T *k, long k_off, long k_sb, long k_ss, long k_sh,
    __global const T *v, long v_off, long v_sb, long v_ss, long v_sh,
    __global const T *g, long g_off, long g_sb, long g_ss, long g_sh,
    __global T *dq, long dq_off, long dq_sb, long dq_ss, long dq_sh,
    __global const float *lse, __global const float *row_dot, __global const int *seqs,
    PROBLEM_ARGS, __local float *qt, __local float *gt, __local float *kt, __local float *vt,
    __local float *acc) {
  MAKE_PROBLEM();
  const QueryTile Q = query_tile(&P, seqs);
  const int lid = Q.lid, i0 = Q.i0, i = Q.i, bh = Q.bh, b = Q.b, h = Q.h, hk = Q.hk;
  const int tq = Q.tq, tkv = Q.tkv, delta = Q.delta, rows = Q.rows;
  const bool row = lid < rows;
  const float row_lse = row ? lse[(long)bh * max_sq + i] : -INFINITY;
  const float di = row ? row_dot[(long)bh * max_sq + i] : 0.0f;
  stage(qt, q, AT(q_off, q_sb, q_ss, q_sh, b, tq, i0, h), q_ss, rows, dqk, lid);
  stage(gt, g, AT(g_off, g_sb, g_ss, g_sh, b, tq, i0, h), g_ss, rows, dv, lid);
  for (int d = 0; d < dqk; ++d) acc[lid * dqk + d] = 0.0f;
  for (int j0 = Q.tile_lo; j0 < Q.tile_hi; j0 += TILE) {
    const int keys = min(TILE, Q.tile_hi - j0);
    barrier(CLK_LOCAL_MEM_FENCE);
    stage(kt, k, AT(k_off, k_sb, k_ss, k_sh, b, tkv, j0, hk), k_ss, keys, dqk, lid);
    stage(vt, v, AT(v_off, v_sb, v_ss, v_sh, b, tkv, j0, hk), v_ss, keys, dv, lid);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!row || row_lse == -INFINITY) continue;
    for (int jj = 0; jj < keys; ++jj) {
      const int j = j0 + jj;
      if (j < Q.lo || j >= Q.hi) continue;
      float qk = 0.0f, dp = 0.0f;
      for (int d = 0; d < dqk; ++d) qk += qt[lid * dqk + d] * kt[jj * dqk + d];
      for (int d = 0; d < dv; ++d) dp += gt[lid * dv + d] * vt[jj * dv + d];
      const float p = exp(score(&P, bias, slopes, qk, b, h, i, j, delta) - row_lse);
      const float ds = p * (dp - di) * scale;
      for (int d = 0; d < dqk; ++d) acc[lid * dqk + d] += ds * kt[jj * dqk + d];
    }
  }
  if (!row) return;
  const long at = AT(dq_off, dq_sb, dq_ss, dq_sh, b, tq, i, h);
  for (int d = 0; d < dqk; ++d) STORE(dq, at + d, acc[lid * dqk + d]);
}

__kernel void attn_dkv(
    __global const T *q, long q_off, long q_sb, long q_ss, long q_sh,
    __global const T *k, long k_off, long k_sb, long k_ss, long k_sh,
    __global const T *v, long v_off, long v_sb, long v_ss, long v_sh,
    __global const T *g, long g_off, long g_sb, long g_ss, long g_sh,
    __global T *dk, long dk_off, long dk_sb, long dk_ss, long dk_sh,
    __global T *dvv, long dv_off, long dv_sb, long dv_ss, long dv_sh,
    __global const float *lse, __global const float *row_dot, __global const int *seqs,
    PROBLEM_ARGS, __local float *qt, __local float *gt, __local float *kt, __local float *vt,
    __local float *dk_acc, __local float *dv_acc, __local float *lse_t, __local float *dot_t) {
  MAKE_PROBLEM();
  const int lid = get_local_id(0), j0 = get_group_id(0) * TILE, j = j0 + lid;
  const int hkv = hq / group;
  const int bk = get_global_id(1), b = bk / hkv, hk = bk % hkv;
  const int len_q = seqs[4 * b], len_kv = seqs[4 * b + 1];
  const int tq = seqs[4 * b + 2], tkv = seqs[4 * b + 3];
  const int delta = delta_of(&P, len_q, len_kv);
  const int keys = clamp(len_kv - j0, 0, TILE);
  const bool key = lid < keys;
  stage(kt, k, AT(k_off, k_sb, k_ss, k_sh, b, tkv, j0, hk), k_ss, keys, dqk, lid);
  stage(vt, v, AT(v_off, v_sb, v_ss, v_sh, b, tkv, j0, hk), v_ss, keys, dv, lid);
  for (int d = 0; d < dqk; ++d) dk_acc[lid * dqk + d] = 0.0f;
  for (int d = 0; d < dv; ++d) dv_acc[lid * dv + d] = 0.0f;
  const int n_blocks = keys > 0 ? (len_q + TILE - 1) / TILE : 0;
  for (int r = 0; r < group; ++r) {
    const int h = hk * group + r;
    const long stats = ((long)b * hq + h) * max_sq;
    for (int blk = 0; blk < n_blocks; ++blk) {
      const int i0 = blk * TILE, rows = min(TILE, len_q - i0);
      barrier(CLK_LOCAL_MEM_FENCE);
      stage(qt, q, AT(q_off, q_sb, q_ss, q_sh, b, tq, i0, h), q_ss, rows, dqk, lid);
      stage(gt, g, AT(g_off, g_sb, g_ss, g_sh, b, tq, i0, h), g_ss, rows, dv, lid);
      lse_t[lid] = lid < rows ? lse[stats + i0 + lid] : -INFINITY;
      dot_t[lid] = lid < rows ? row_dot[stats + i0 + lid] : 0.0f;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (!key) continue;
      for (int ii = 0; ii < rows; ++ii) {
        const int i = i0 + ii;
        if (lse_t[ii] == -INFINITY || j < visible_lo(&P, i, delta) ||
            j >= visible_hi(&P, i, delta, len_kv))
          continue;
        float qk = 0.0f, dp = 0.0f;
        for (int d = 0; d < dqk; ++d) qk += qt[ii * dqk + d] * kt[lid * dqk + d];
        for (int d = 0; d < dv; ++d) dp += gt[ii * dv + d] * vt[lid * dv + d];
        const float p = exp(score(&P, bias, slopes, qk, b, h, i, j, delta) - lse_t[ii]);
        const float ds = p * (dp - dot_t[ii]) * scale;
        for (int d = 0; d < dv; ++d) dv_acc[lid * dv + d] += p * gt[ii * dv + d];
        for (int d = 0; d < dqk; ++d) dk_acc[lid * dqk + d] += ds * qt[ii * dqk + d];
      }
    }
  }
  if (!key) return;
  const long at_k = AT(dk_off, dk_sb, dk_ss, dk_sh, b, tkv, j, hk);
  const long at_v = AT(dv_off, dv_sb, dv_ss, dv_sh, b, tkv, j, hk);
  for (int d = 0; d < dqk; ++d) STORE(dk, at_k + d, dk_acc[lid * dqk + d]);
  for (int d = 0; d < dv; ++d) STORE(dvv, at_v + d, dv_acc[lid * dv + d]);
}

// One element (bb, hb, i, j) of dbias [Bb][Hb][max_sq][max_skv] per item:
// sum over the batches and heads it broadcasts to of dS_ij (post_scale) or
// scale * dS_ij (pre_scale).
__kernel void attn_dbias(
    __global const T *q, long q_off, long q_sb, long q_ss, long q_sh,
    __global const T *k, long k_off, long k_sb, long k_ss, long k_sh,
    __global const T *v, long v_off, long v_sb, long v_ss, long v_sh,
    __global const T *g, long g_off, long g_sb, long g_ss, long g_sh,
    __global T *db, long db_off, int bias_batches, int bias_heads, int batch,
    __global const float *lse, __global const float *row_dot, __global const int *seqs,
    PROBLEM_ARGS) {
  MAKE_PROBLEM();
  const int j = get_global_id(0), i = get_global_id(1), bhb = get_global_id(2);
  const int bb = bhb / bias_heads, hb = bhb % bias_heads;
  float sum = 0.0f;
  for (int b = bias_batches == 1 ? 0 : bb; b < (bias_batches == 1 ? batch : bb + 1); ++b) {
    const int len_q = seqs[4 * b], len_kv = seqs[4 * b + 1];
    const int tq = seqs[4 * b + 2], tkv = seqs[4 * b + 3];
    const int delta = delta_of(&P, len_q, len_kv);
    if (i >= len_q || j < visible_lo(&P, i, delta) || j >= visible_hi(&P, i, delta, len_kv))
      continue;
    for (int h = bias_heads == 1 ? 0 : hb; h < (bias_heads == 1 ? hq : hb + 1); ++h) {
      const long stats = ((long)b * hq + h) * max_sq + i;
      if (lse[stats] == -INFINITY) continue;
      const int hk = h / group;
      const long aq = AT(q_off, q_sb, q_ss, q_sh, b, tq, i, h);
      const long ag = AT(g_off, g_sb, g_ss, g_sh, b, tq, i, h);
      const long ak = AT(k_off, k_sb, k_ss, k_sh, b, tkv, j, hk);
      const long av = AT(v_off, v_sb, v_ss, v_sh, b, tkv, j, hk);
      float qk = 0.0f, dp = 0.0f;
      for (int d = 0; d < dqk; ++d) qk += LOAD(q, aq + d) * LOAD(k, ak + d);
      for (int d = 0; d < dv; ++d) dp += LOAD(g, ag + d) * LOAD(v, av + d);
      const float p = exp(score(&P, bias, slopes, qk, b, h, i, j, delta) - lse[stats]);
      const float ds = p * (dp - row_dot[stats]);
      sum += bias_kind == BIAS_PRE ? ds * scale : ds;
    }
  }
  STORE(db, db_off + ((long)bhb * max_sq + i) * max_skv + j, sum);
}

// Rows of an output no sequence owns, written 0: with per_batch, row r is
// (b, s) = (r / seq, r % seq), absent when s >= its length (lengths at
// seqs[4b + side]); otherwise (packed tokens) row r is token r, absent
// outside [tokens_first, tokens_end) (cu_seqlens[0], cu_seqlens[B]). Every
// (row, head, d) is one item.
__kernel void zero_absent(__global T *x, long off, long sb, long ss, long sh, int per_batch,
                          int seq, int side, long tokens_first, long tokens_end, int heads, int dim,
                          __global const int *seqs) {
  const long r = get_global_id(0);
  const int hd = get_global_id(1), h = hd / dim, d = hd % dim;
  long at;
  if (per_batch) {
    const int b = r / seq, s = r % seq;
    if (s < seqs[4 * b + side]) return;
    at = AT(off, sb, ss, sh, b, 0, s, h);
  } else {
    if (r >= tokens_first && r < tokens_end) return;
    at = off + r * ss + (long)h * sh;
  }
  STORE(x, at + d, 0.0f);
}
)CL";

}  // namespace teplug::opencl::attention

#endif  // TEPLUG_PLUGINS_OPENCL_ATTENTION_ATTENTION_KERNELS_H_
