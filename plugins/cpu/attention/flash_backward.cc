#include "plugins/cpu/attention/flash_backward.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "plugins/cpu/attention/bf16_tile_matmul.h"
#include "plugins/cpu/attention/dropout_philox.h"
#include "plugins/cpu/attention/flash_forward.h"
#include "plugins/cpu/attention/parallel_for.h"
#include "plugins/cpu/attention/score_rule.h"
#include "plugins/cpu/attention/tensor_rows.h"
#include "plugins/cpu/attention/tile_products.h"

namespace teplug::cpu::attention {
namespace {

size_t Size(int64_t n) { return static_cast<size_t>(n); }

// Without dBias, the backward is one pass whose items each own a group of
// key tiles of one (batch, kv head) and sum dS K into that group's dQ
// buffer; a (batch, kv head) has as many groups as make at least this many
// items (at most one per key tile). A constant, not the thread count, so the
// sums and their order are the same for any number of threads.
constexpr int64_t kFusedBackwardItems = 16;

// What the tiles read, zero past each sequence's length: D_i = dO_i . O_i
// in fp32, and either (fp32 tiles) fp32 copies of Q and dO rows per (batch,
// query head), K rows and K, V transposed (key axis contiguous) per (batch,
// kv head), or (bf16 tiles: Q, K, V and dO all bf16) the bf16 rows of Q and dO
// padded to whole query tiles and of K and V padded to Bf16KeyRows, so that
// every tile product reads full tiles.
struct WideInputs {
  bool bf16 = false;
  int64_t query_rows = 0;    // rows per (batch, query head) of q, d_o and q16, d_o16
  std::vector<float> q;      // [B][Hq][query_rows][d_qk]
  std::vector<float> d_o;    // [B][Hq][query_rows][d_v]
  std::vector<float> row_d;  // [B][Hq][max_sq]
  std::vector<float> k;      // [B][Hkv][max_skv][d_qk]
  std::vector<float> kt;     // [B][Hkv][d_qk][max_skv]
  std::vector<float> vt;     // [B][Hkv][d_v][max_skv]
  std::vector<uint16_t> q16, d_o16;  // as q and d_o
  std::vector<uint16_t> k16;         // [B][Hkv][Bf16KeyRows][d_qk]
  std::vector<uint16_t> v16;         // [B][Hkv][Bf16KeyRows][d_v]
};

WideInputs Widen(const BackwardCall& bc, int threads) {
  const AttentionCall& c = bc.call;
  WideInputs w;
  w.bf16 = UsesBf16Tiles(c) && bc.d_o.dtype == TEPLUG_DTYPE_BF16;
  w.query_rows = w.bf16 ? (c.max_sq + kQueryTile - 1) / kQueryTile * kQueryTile : c.max_sq;
  w.row_d.assign(Size(c.batch * c.hq * c.max_sq), 0.0f);
  if (w.bf16) {
    w.q16.assign(Size(c.batch * c.hq * w.query_rows * c.d_qk), 0);
    w.d_o16.assign(Size(c.batch * c.hq * w.query_rows * c.d_v), 0);
    w.k16.assign(Size(c.batch * c.hkv * Bf16KeyRows(c) * c.d_qk), 0);
    w.v16.assign(Size(c.batch * c.hkv * Bf16KeyRows(c) * c.d_v), 0);
  } else {
    w.q.assign(Size(c.batch * c.hq * c.max_sq * c.d_qk), 0.0f);
    w.d_o.assign(Size(c.batch * c.hq * c.max_sq * c.d_v), 0.0f);
    w.k.assign(Size(c.batch * c.hkv * c.max_skv * c.d_qk), 0.0f);
    w.kt.assign(w.k.size(), 0.0f);
    w.vt.assign(Size(c.batch * c.hkv * c.max_skv * c.d_v), 0.0f);
  }
  ParallelFor(c.batch * c.hq, threads, [&](int64_t item) {
    const int64_t b = item / c.hq, h = item % c.hq;
    float* row_d = w.row_d.data() + item * c.max_sq;
    std::vector<float> o(Size(c.d_v)), d_o_wide(Size(c.d_v));
    for (int64_t i = 0; i < c.len_q[b]; ++i) {
      const int64_t row = item * w.query_rows + i;
      float* d_o_row = w.bf16 ? d_o_wide.data() : w.d_o.data() + row * c.d_v;
      LoadRow(bc.d_o.data, bc.d_o.dtype, bc.d_o.Offset(b, i, h), c.d_v, d_o_row);
      if (w.bf16) {
        CopyBf16Row(c.q.data, c.q.Offset(b, i, h), c.d_qk, w.q16.data() + row * c.d_qk);
        CopyBf16Row(bc.d_o.data, bc.d_o.Offset(b, i, h), c.d_v, w.d_o16.data() + row * c.d_v);
      } else {
        LoadRow(c.q.data, c.q.dtype, c.q.Offset(b, i, h), c.d_qk, w.q.data() + row * c.d_qk);
      }
      LoadRow(c.o.data, c.o.dtype, c.o.Offset(b, i, h), c.d_v, o.data());
      float dot = 0.0f;
      for (int64_t e = 0; e < c.d_v; ++e) dot += d_o_row[e] * o[Size(e)];
      row_d[i] = dot;
    }
  });
  ParallelFor(c.batch * c.hkv, threads, [&](int64_t item) {
    const int64_t b = item / c.hkv, h = item % c.hkv;
    if (w.bf16) {
      CopyBf16KeysAndValues(c, item, w.k16.data() + item * Bf16KeyRows(c) * c.d_qk,
                            w.v16.data() + item * Bf16KeyRows(c) * c.d_v);
      return;
    }
    float* k = w.k.data() + item * c.max_skv * c.d_qk;
    float* kt = w.kt.data() + item * c.d_qk * c.max_skv;
    float* vt = w.vt.data() + item * c.d_v * c.max_skv;
    std::vector<float> v(Size(c.d_v));
    for (int64_t j = 0; j < c.len_kv[b]; ++j) {
      const float* k_row = k + j * c.d_qk;
      LoadRow(c.k.data, c.k.dtype, c.k.Offset(b, j, h), c.d_qk, k + j * c.d_qk);
      for (int64_t d = 0; d < c.d_qk; ++d) kt[d * c.max_skv + j] = k_row[d];
      LoadRow(c.v.data, c.v.dtype, c.v.Offset(b, j, h), c.d_v, v.data());
      for (int64_t d = 0; d < c.d_v; ++d) vt[d * c.max_skv + j] = v[Size(d)];
    }
  });
  return w;
}

// The dropped probabilities Z∘P and the score gradients dS of up to
// kQueryTile query rows against up to kKeyTile keys, rows kKeyTile apart;
// with bf16 tiles also dS and, when `with_p16` (for dK and dV), Z∘P rounded
// to bf16 as full [kQueryTile][kKeyTile] tiles (0 outside the rows and keys
// computed).
class GradientTile {
 public:
  GradientTile(const BackwardCall& bc, const WideInputs& w, const DropoutMask* dropout,
               bool with_p16)
      : c_(bc.call), w_(w), dropout_(dropout), with_p16_(w.bf16 && with_p16) {
    p_.resize(Size(kQueryTile * kKeyTile));
    ds_.resize(Size(kQueryTile * kKeyTile));
    if (with_p16_) p16_.resize(p_.size());
    if (w.bf16) ds16_.resize(ds_.size());
    row_.resize(Size(kKeyTile));
    lo_.resize(Size(kQueryTile));
    hi_.resize(Size(kQueryTile));
  }

  // Selects rows i0 .. i0 + rows - 1 of (b, h) and their visible keys; a row
  // whose LSE is -inf (no visible key in the forward) sees none. Returns the union [begin, end) of
  // the rows' visible keys (empty when no row sees a key).
  void Select(int64_t b, int64_t h, int64_t i0, int64_t rows, int64_t* begin, int64_t* end) {
    b_ = b, h_ = h, i0_ = i0;
    valid_ = std::clamp<int64_t>(c_.len_q[b] - i0, 0, rows);
    *begin = c_.max_skv, *end = 0;
    const float* lse = c_.lse + (b * c_.hq + h) * c_.max_sq;
    for (int64_t r = 0; r < valid_; ++r) {
      c_.VisibleRange(b, i0 + r, &lo_[Size(r)], &hi_[Size(r)]);
      if (lse[i0 + r] == -HUGE_VALF) hi_[Size(r)] = lo_[Size(r)];
      if (hi_[Size(r)] > lo_[Size(r)]) {
        *begin = std::min(*begin, lo_[Size(r)]);
        *end = std::max(*end, hi_[Size(r)]);
      }
    }
    if (*end <= *begin) *begin = *end = 0;
  }

  // Z∘P and dS of the selected rows for keys j0 .. j0 + cols - 1 (0 where a
  // key is not visible).
  void Compute(int64_t j0, int64_t cols) {
    const int64_t bh = b_ * c_.hq + h_, hk = h_ / (c_.hq / c_.hkv), bk = b_ * c_.hkv + hk;
    const int64_t row = bh * w_.query_rows + i0_;
    if (w_.bf16) {
      const int64_t key = bk * Bf16KeyRows(c_) + j0, dq = c_.d_qk, dv = c_.d_v;
      Bf16TileMatmul(QueryTileRows(w_.q16.data() + row * dq, dq),
                     KeyTileColumns(w_.k16.data() + key * dq, dq), p_.data(), kKeyTile,
                     /*accumulate=*/false);
      Bf16TileMatmul(QueryTileRows(w_.d_o16.data() + row * dv, dv),
                     KeyTileColumns(w_.v16.data() + key * dv, dv), ds_.data(), kKeyTile,
                     /*accumulate=*/false);
    } else {
      const float* kt = w_.kt.data() + bk * c_.d_qk * c_.max_skv;
      const float* vt = w_.vt.data() + bk * c_.d_v * c_.max_skv;
      ScoreTile(w_.q.data() + row * c_.d_qk, valid_, c_.d_qk, kt + j0, c_.max_skv, cols,
                p_.data(), kKeyTile);
      ScoreTile(w_.d_o.data() + row * c_.d_v, valid_, c_.d_v, vt + j0, c_.max_skv, cols,
                ds_.data(), kKeyTile);
    }
    const float* lse = c_.lse + bh * c_.max_sq;
    const float* row_d = w_.row_d.data() + bh * c_.max_sq;
    for (int64_t r = 0; r < valid_; ++r) {
      const int64_t i = i0_ + r;
      float* p = p_.data() + r * kKeyTile;
      float* ds = ds_.data() + r * kKeyTile;
      const int64_t lo = std::clamp(lo_[Size(r)] - j0, int64_t{0}, cols);
      const int64_t hi = std::clamp(hi_[Size(r)] - j0, lo, cols);
      std::fill(p, p + lo, 0.0f), std::fill(ds, ds + lo, 0.0f);
      std::fill(p + hi, p + cols, 0.0f), std::fill(ds + hi, ds + cols, 0.0f);
      if (hi == lo) continue;
      ApplyScoreRule(c_, b_, h_, i, j0, p, lo, hi, row_.data());
      ExpShifted(p + lo, hi - lo, lse[i]);
      const float d = row_d[i];
      if (dropout_ == nullptr) {
        for (int64_t k = lo; k < hi; ++k) ds[k] = p[k] * (ds[k] - d);
        continue;
      }
      dropout_->RowFactors(b_, h_, i, j0 + lo, hi - lo, row_.data());
      for (int64_t k = lo; k < hi; ++k) {
        const float z = row_[Size(k - lo)];
        ds[k] = p[k] * (z * ds[k] - d);
        p[k] *= z;
      }
    }
    if (with_p16_) {
      RoundTileToBf16(p_.data(), kKeyTile, valid_, cols, kQueryTile, kKeyTile, p16_.data(),
                      kKeyTile);
    }
    if (w_.bf16) {
      RoundTileToBf16(ds_.data(), kKeyTile, valid_, cols, kQueryTile, kKeyTile, ds16_.data(),
                      kKeyTile);
    }
  }

  int64_t valid_rows() const { return valid_; }
  const float* p() const { return p_.data(); }
  const float* ds() const { return ds_.data(); }
  // bf16 tiles: the [kQueryTile][kKeyTile] bf16 Z∘P and dS.
  const uint16_t* p16() const { return p16_.data(); }
  const uint16_t* ds16() const { return ds16_.data(); }

 private:
  const AttentionCall& c_;
  const WideInputs& w_;
  const DropoutMask* dropout_;
  const bool with_p16_;
  int64_t b_ = 0, h_ = 0, i0_ = 0, valid_ = 0;
  std::vector<float> p_, ds_, row_;
  std::vector<uint16_t> p16_, ds16_;
  std::vector<int64_t> lo_, hi_;
};

// dK and dV of keys j0 .. j0 + kKeyTile - 1 of (b, kv head hk), over every
// query row of every query head of the group; when dq_sums is not null, also
// adds those keys' terms dS K (unscaled) to dq_sums ([B][Hq][query_rows][d_qk]).
void KeyValueTile(const BackwardCall& bc, const WideInputs& w, const DropoutMask* dropout,
                  int64_t b, int64_t hk, int64_t j0, float* dq_sums) {
  const AttentionCall& c = bc.call;
  const int64_t rows = std::min(kKeyTile, c.max_skv - j0);
  const int64_t cols = std::clamp<int64_t>(c.len_kv[b] - j0, 0, rows);  // keys that exist
  // kKeyTile rows: the bf16 products write whole tiles.
  std::vector<float> dk(Size(kKeyTile * c.d_qk), 0.0f), dv(Size(kKeyTile * c.d_v), 0.0f);
  GradientTile tile(bc, w, dropout, /*with_p16=*/true);
  const int64_t group = c.hq / c.hkv, bk = b * c.hkv + hk;
  for (int64_t h = hk * group; cols > 0 && h < (hk + 1) * group; ++h) {
    const int64_t bh = b * c.hq + h;
    for (int64_t i0 = 0; i0 < c.len_q[b]; i0 += kQueryTile) {
      int64_t begin = 0, end = 0;
      tile.Select(b, h, i0, std::min(kQueryTile, c.max_sq - i0), &begin, &end);
      if (end <= j0 || begin >= j0 + cols) continue;
      tile.Compute(j0, cols);
      const int64_t valid = tile.valid_rows(), row = bh * w.query_rows + i0;
      float* dq = dq_sums == nullptr ? nullptr : dq_sums + row * c.d_qk;
      if (w.bf16) {
        Bf16TileMatmul(QueryTileColumns(tile.p16(), kKeyTile),
                       QueryTileRows(w.d_o16.data() + row * c.d_v, c.d_v), dv.data(), c.d_v,
                       /*accumulate=*/true);
        Bf16TileMatmul(QueryTileColumns(tile.ds16(), kKeyTile),
                       QueryTileRows(w.q16.data() + row * c.d_qk, c.d_qk), dk.data(), c.d_qk,
                       /*accumulate=*/true);
        if (dq != nullptr) {
          Bf16TileMatmul(QueryTileRows(tile.ds16(), kKeyTile),
                         KeyTileRows(w.k16.data() + (bk * Bf16KeyRows(c) + j0) * c.d_qk, c.d_qk),
                         dq, c.d_qk, /*accumulate=*/true);
        }
        continue;
      }
      AccumulateTransposedTile(tile.p(), valid, kKeyTile, cols, w.d_o.data() + row * c.d_v,
                               c.d_v, dv.data());
      AccumulateTransposedTile(tile.ds(), valid, kKeyTile, cols, w.q.data() + row * c.d_qk,
                               c.d_qk, dk.data());
      if (dq != nullptr) {
        AccumulateTile(tile.ds(), valid, kKeyTile, cols,
                       w.k.data() + (bk * c.max_skv + j0) * c.d_qk, c.d_qk, dq);
      }
    }
  }
  for (float& x : dk) x *= c.scale;
  const bool thd = c.format == SequenceFormat::kThd;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t j = j0 + r;
    if (thd && j >= c.len_kv[b]) break;  // not in the packed buffer
    StoreRow(bc.dk.data, bc.dk.dtype, bc.dk.Offset(b, j, hk), c.d_qk, dk.data() + r * c.d_qk);
    StoreRow(bc.dv.data, bc.dv.dtype, bc.dv.Offset(b, j, hk), c.d_v, dv.data() + r * c.d_v);
  }
}

// dQ of rows i0 .. i0 + kQueryTile - 1 of every (batch, query head) a dBias
// element (bias batch bb, bias head bh) sums over, and those rows of dBias
// when wanted. Without a broadcast dBias that is one (batch, head).
void QueryTile(const BackwardCall& bc, const WideInputs& w, const DropoutMask* dropout,
               int64_t bb, int64_t bhead, int64_t i0, int64_t batches, int64_t heads) {
  const AttentionCall& c = bc.call;
  const int64_t rows = std::min(kQueryTile, c.max_sq - i0);
  const bool want_dbias = bc.dbias.data != nullptr;
  const float dbias_factor = c.bias_type == TEPLUG_BIAS_PRE_SCALE ? c.scale : 1.0f;
  std::vector<float> dbias(want_dbias ? Size(rows * c.max_skv) : 0, 0.0f);
  std::vector<float> dq(Size(kQueryTile * c.d_qk));  // the bf16 products write whole tiles
  GradientTile tile(bc, w, dropout, /*with_p16=*/false);
  const bool thd = c.format == SequenceFormat::kThd;
  // Broadcast over batches (heads): every batch (head) in order; else just
  // this one.
  const int64_t b_first = batches == c.batch ? bb : 0, b_last = batches == c.batch ? bb + 1 : c.batch;
  const int64_t h_first = heads == c.hq ? bhead : 0, h_last = heads == c.hq ? bhead + 1 : c.hq;
  for (int64_t b = b_first; b < b_last; ++b) {
    for (int64_t h = h_first; h < h_last; ++h) {
      std::fill(dq.begin(), dq.end(), 0.0f);
      const int64_t bk = b * c.hkv + h / (c.hq / c.hkv);
      int64_t begin = 0, end = 0;
      tile.Select(b, h, i0, rows, &begin, &end);
      for (int64_t j0 = begin; j0 < end; j0 += kKeyTile) {
        const int64_t cols = std::min(kKeyTile, end - j0);
        tile.Compute(j0, cols);
        const int64_t valid = tile.valid_rows();
        if (w.bf16) {
          Bf16TileMatmul(QueryTileRows(tile.ds16(), kKeyTile),
                         KeyTileRows(w.k16.data() + (bk * Bf16KeyRows(c) + j0) * c.d_qk, c.d_qk),
                         dq.data(), c.d_qk, /*accumulate=*/true);
        } else {
          AccumulateTile(tile.ds(), valid, kKeyTile, cols,
                         w.k.data() + (bk * c.max_skv + j0) * c.d_qk, c.d_qk, dq.data());
        }
        for (int64_t r = 0; want_dbias && r < valid; ++r) {
          const float* ds = tile.ds() + r * kKeyTile;
          float* out = dbias.data() + r * c.max_skv + j0;
          for (int64_t k = 0; k < cols; ++k) out[k] += dbias_factor * ds[k];
        }
      }
      for (float& x : dq) x *= c.scale;
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = i0 + r;
        if (thd && i >= c.len_q[b]) break;  // not in the packed buffer
        StoreRow(bc.dq.data, bc.dq.dtype, bc.dq.Offset(b, i, h), c.d_qk, dq.data() + r * c.d_qk);
      }
    }
  }
  if (!want_dbias) return;
  const int64_t offset = ((bb * c.bias_heads + bhead) * c.max_sq + i0) * c.max_skv;
  StoreRow(bc.dbias.data, bc.dbias.dtype, offset, rows * c.max_skv, dbias.data());
}

// The five bf16 products of GradientTile::Compute (S, dP) and KeyValueTile
// and QueryTile (dV, dK, dQ), prepared before the worker threads start.
void PrepareBf16Products(const AttentionCall& c) {
  for (const int64_t d : {c.d_qk, c.d_v}) {  // S = Q K^T, dP = dO V^T
    PrepareBf16TileMatmul(QueryTileRows(nullptr, d), KeyTileColumns(nullptr, d), kKeyTile,
                          /*accumulate=*/false);
  }
  for (const int64_t d : {c.d_v, c.d_qk}) {  // dV += P^T dO, dK += dS^T Q
    PrepareBf16TileMatmul(QueryTileColumns(nullptr, kKeyTile), QueryTileRows(nullptr, d), d,
                          /*accumulate=*/true);
  }
  PrepareBf16TileMatmul(QueryTileRows(nullptr, kKeyTile), KeyTileRows(nullptr, c.d_qk), c.d_qk,
                        /*accumulate=*/true);  // dQ += dS K
}

// dQ of (b, query head h) = scale * the sum of the groups' dS K sums
// (`sums`: `groups` of [B][Hq][query_rows][d_qk], added in group order).
void StoreSummedQueryGradients(const BackwardCall& bc, const WideInputs& w,
                               const std::vector<float>& sums, int64_t groups, int64_t b,
                               int64_t h) {
  const AttentionCall& c = bc.call;
  const bool thd = c.format == SequenceFormat::kThd;
  const int64_t group_size = c.batch * c.hq * w.query_rows * c.d_qk;
  std::vector<float> dq(Size(c.d_qk));
  for (int64_t i = 0; i < c.max_sq; ++i) {
    if (thd && i >= c.len_q[b]) break;  // not in the packed buffer
    const float* sum = sums.data() + ((b * c.hq + h) * w.query_rows + i) * c.d_qk;
    std::copy(sum, sum + c.d_qk, dq.begin());
    for (int64_t g = 1; g < groups; ++g) {
      for (int64_t d = 0; d < c.d_qk; ++d) dq[Size(d)] += sum[g * group_size + d];
    }
    for (float& x : dq) x *= c.scale;
    StoreRow(bc.dq.data, bc.dq.dtype, bc.dq.Offset(b, i, h), c.d_qk, dq.data());
  }
}

// thd: gradient rows past the last sequence's tokens belong to no sequence: 0.
void ZeroTrailingTokens(const BackwardCall& bc) {
  const AttentionCall& c = bc.call;
  if (c.format != SequenceFormat::kThd) return;
  const struct {
    const TensorAccess& access;
    int64_t tokens, used, heads, dim;
  } members[] = {{bc.dq, bc.dq_tokens, c.cu_q.back(), c.hq, c.d_qk},
                 {bc.dk, bc.dk_tokens, c.cu_kv.back(), c.hkv, c.d_qk},
                 {bc.dv, bc.dv_tokens, c.cu_kv.back(), c.hkv, c.d_v}};
  for (const auto& m : members) {
    const std::vector<float> zeros(Size(m.dim), 0.0f);
    for (int64_t t = m.used; t < m.tokens; ++t) {
      for (int64_t h = 0; h < m.heads; ++h) {
        const TensorAccess& a = m.access;
        StoreRow(a.data, a.dtype, a.member_offset + t * a.row_stride + h * a.head_stride, m.dim,
                 zeros.data());
      }
    }
  }
}

}  // namespace

void FlashAttentionBackward(const BackwardCall& bc, int threads) {
  const AttentionCall& c = bc.call;
  const WideInputs w = Widen(bc, threads);
  DropoutMask mask(c.rng_seed, c.rng_offset, c.dropout_p, c.hq, c.max_sq, c.max_skv);
  const DropoutMask* dropout = c.dropout ? &mask : nullptr;
  if (w.bf16) PrepareBf16Products(c);
  const int64_t key_tiles = (c.max_skv + kKeyTile - 1) / kKeyTile;
  const bool want_dbias = bc.dbias.data != nullptr;
  if (!want_dbias) {
    // One pass: items (batch, kv head, key group), a group being the key
    // tiles g, g + groups, ...; dQ summed per group, then over the groups.
    const int64_t groups =
        std::clamp<int64_t>(kFusedBackwardItems / (c.batch * c.hkv), 1, key_tiles);
    std::vector<float> dq_sums(Size(groups * c.batch * c.hq * w.query_rows * c.d_qk), 0.0f);
    ParallelFor(c.batch * c.hkv * groups, threads, [&](int64_t item) {
      const int64_t g = item % groups, bk = item / groups;
      float* sums = dq_sums.data() + g * c.batch * c.hq * w.query_rows * c.d_qk;
      for (int64_t t = g; t < key_tiles; t += groups) {
        KeyValueTile(bc, w, dropout, bk / c.hkv, bk % c.hkv, t * kKeyTile, sums);
      }
    });
    ParallelFor(c.batch * c.hq, threads, [&](int64_t bh) {
      StoreSummedQueryGradients(bc, w, dq_sums, groups, bh / c.hq, bh % c.hq);
    });
    ZeroTrailingTokens(bc);
    return;
  }
  ParallelFor(c.batch * c.hkv * key_tiles, threads, [&](int64_t item) {
    const int64_t t = item % key_tiles, bk = item / key_tiles;
    KeyValueTile(bc, w, dropout, bk / c.hkv, bk % c.hkv, t * kKeyTile, /*dq_sums=*/nullptr);
  });
  // A broadcast dBias sums over batches or heads: one item per bias element
  // row tile, looping over what it sums.
  const int64_t batches = want_dbias ? c.bias_batch : c.batch;
  const int64_t heads = want_dbias ? c.bias_heads : c.hq;
  const int64_t query_tiles = (c.max_sq + kQueryTile - 1) / kQueryTile;
  ParallelFor(batches * heads * query_tiles, threads, [&](int64_t item) {
    const int64_t t = item % query_tiles, bh = item / query_tiles;
    QueryTile(bc, w, dropout, bh / heads, bh % heads, t * kQueryTile, batches, heads);
  });
  ZeroTrailingTokens(bc);
}

}  // namespace teplug::cpu::attention
