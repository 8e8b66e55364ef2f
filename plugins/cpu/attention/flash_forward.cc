#include "plugins/cpu/attention/flash_forward.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "plugins/cpu/attention/bf16_tile_matmul.h"
#include "plugins/cpu/attention/dropout_philox.h"
#include "plugins/cpu/attention/parallel_for.h"
#include "plugins/cpu/attention/score_rule.h"
#include "plugins/cpu/attention/tensor_rows.h"
#include "plugins/cpu/attention/tile_products.h"

namespace teplug::cpu::attention {
namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

// The keys and values the tiles read; keys past a batch's length stay 0
// (never visible). fp32 tiles: K transposed [B][Hkv][d_qk][max_skv] and V
// [B][Hkv][max_skv][d_v] widened to fp32. bf16 tiles (Q, K and V all bf16):
// K [B][Hkv][Bf16KeyRows][d_qk] and V [B][Hkv][Bf16KeyRows][d_v] as given,
// the rows past max_skv 0 so that every tile product reads a full key tile.
struct WideKeyValues {
  bool bf16 = false;
  std::vector<float> kt, v;
  std::vector<uint16_t> k16, v16;
};

WideKeyValues WidenKeyValues(const AttentionCall& c, int threads) {
  WideKeyValues w;
  w.bf16 = UsesBf16Tiles(c);
  const int64_t key_rows = w.bf16 ? Bf16KeyRows(c) : c.max_skv;
  if (w.bf16) {
    w.k16.assign(static_cast<size_t>(c.batch * c.hkv * key_rows * c.d_qk), 0);
    w.v16.assign(static_cast<size_t>(c.batch * c.hkv * key_rows * c.d_v), 0);
  } else {
    w.kt.assign(static_cast<size_t>(c.batch * c.hkv * c.d_qk * key_rows), 0.0f);
    w.v.assign(static_cast<size_t>(c.batch * c.hkv * key_rows * c.d_v), 0.0f);
  }
  ParallelFor(c.batch * c.hkv, threads, [&](int64_t item) {
    const int64_t b = item / c.hkv, h = item % c.hkv;
    if (w.bf16) {
      CopyBf16KeysAndValues(c, item, w.k16.data() + item * key_rows * c.d_qk,
                            w.v16.data() + item * key_rows * c.d_v);
      return;
    }
    float* kt = w.kt.data() + item * c.d_qk * c.max_skv;
    float* v = w.v.data() + item * c.max_skv * c.d_v;
    std::vector<float> row(static_cast<size_t>(c.d_qk));
    for (int64_t j = 0; j < c.len_kv[b]; ++j) {
      LoadRow(c.k.data, c.k.dtype, c.k.Offset(b, j, h), c.d_qk, row.data());
      for (int64_t d = 0; d < c.d_qk; ++d) kt[d * c.max_skv + j] = row[d];
      LoadRow(c.v.data, c.v.dtype, c.v.Offset(b, j, h), c.d_v, v + j * c.d_v);
    }
  });
  return w;
}

// One (batch, query head, query tile) item.
class QueryTile {
 public:
  QueryTile(const AttentionCall& c, const WideKeyValues& kv, const DropoutMask* dropout)
      : c_(c), kv_(kv), dropout_(dropout) {}

  void Run(int64_t b, int64_t h, int64_t i0) {
    const int64_t rows = std::min(kQueryTile, c_.max_sq - i0);
    const int64_t valid = std::clamp<int64_t>(c_.len_q[b] - i0, 0, rows);
    const int64_t hk = h / (c_.hq / c_.hkv);
    if (kv_.bf16) {
      q16_.assign(static_cast<size_t>(kQueryTile * c_.d_qk), 0);  // rows past `valid` stay 0
      p16_.resize(static_cast<size_t>(kQueryTile * kKeyTile));
    } else {
      q_.assign(static_cast<size_t>(valid * c_.d_qk), 0.0f);
    }
    acc_.assign(static_cast<size_t>(kQueryTile * c_.d_v), 0.0f);  // bf16: P V writes whole tiles
    m_.assign(static_cast<size_t>(rows), kMinusInf);
    l_.assign(static_cast<size_t>(rows), 0.0f);
    lo_.assign(static_cast<size_t>(rows), 0);
    hi_.assign(static_cast<size_t>(rows), 0);
    scores_.resize(static_cast<size_t>(kQueryTile * kKeyTile));
    row_.resize(static_cast<size_t>(kKeyTile));
    int64_t begin = c_.max_skv, end = 0;
    for (int64_t r = 0; r < valid; ++r) {
      const int64_t at = c_.q.Offset(b, i0 + r, h);
      if (kv_.bf16) {
        CopyBf16Row(c_.q.data, at, c_.d_qk, q16_.data() + r * c_.d_qk);
      } else {
        LoadRow(c_.q.data, c_.q.dtype, at, c_.d_qk, q_.data() + r * c_.d_qk);
      }
      c_.VisibleRange(b, i0 + r, &lo_[r], &hi_[r]);
      if (hi_[r] > lo_[r]) begin = std::min(begin, lo_[r]), end = std::max(end, hi_[r]);
    }
    const int64_t bk = b * c_.hkv + hk;
    for (int64_t j0 = begin; j0 < end; j0 += kKeyTile) {
      const int64_t cols = std::min(kKeyTile, end - j0);
      if (kv_.bf16) {
        ScoresBf16(bk, j0);
      } else {
        const float* kt = kv_.kt.data() + bk * c_.d_qk * c_.max_skv;
        ScoreTile(q_.data(), valid, c_.d_qk, kt + j0, c_.max_skv, cols, scores_.data(), kKeyTile);
      }
      for (int64_t r = 0; r < valid; ++r) Softmax(b, h, i0 + r, r, j0, cols);
      if (kv_.bf16) {
        AccumulateBf16(bk, j0, valid, cols);
      } else {
        const float* v = kv_.v.data() + bk * c_.max_skv * c_.d_v;
        AccumulateTile(scores_.data(), valid, kKeyTile, cols, v + j0 * c_.d_v, c_.d_v,
                       acc_.data());
      }
    }
    Finish(b, h, i0, rows);
  }

 private:
  // bf16 tiles: the scores of the whole query tile (padding rows 0) against
  // keys j0 .. j0 + kKeyTile - 1 of (batch, kv head) bk.
  void ScoresBf16(int64_t bk, int64_t j0) {
    const int64_t d = c_.d_qk;
    Bf16TileMatmul(QueryTileRows(q16_.data(), d),
                   KeyTileColumns(kv_.k16.data() + (bk * Bf16KeyRows(c_) + j0) * d, d),
                   scores_.data(), kKeyTile, /*accumulate=*/false);
  }

  // bf16 tiles: acc += P V with the first `valid` rows and `cols` columns of
  // the probabilities rounded to bf16 (the rest 0).
  void AccumulateBf16(int64_t bk, int64_t j0, int64_t valid, int64_t cols) {
    RoundTileToBf16(scores_.data(), kKeyTile, valid, cols, kQueryTile, kKeyTile, p16_.data(),
                    kKeyTile);
    const int64_t d = c_.d_v;
    Bf16TileMatmul(QueryTileRows(p16_.data(), kKeyTile),
                   KeyTileRows(kv_.v16.data() + (bk * Bf16KeyRows(c_) + j0) * d, d), acc_.data(),
                   d, /*accumulate=*/true);
  }

  // Turns row r's scores for keys j0 .. j0 + cols - 1 into (dropped)
  // probabilities relative to the row's running max, rescaling what the row
  // has accumulated when the max grows.
  void Softmax(int64_t b, int64_t h, int64_t i, int64_t r, int64_t j0, int64_t cols) {
    float* s = scores_.data() + r * kKeyTile;
    const int64_t lo = std::max(lo_[r], j0) - j0, hi = std::min(hi_[r], j0 + cols) - j0;
    if (hi <= lo) {
      std::fill(s, s + cols, 0.0f);
      return;
    }
    // Scale and bias, then the block's max (scaling there when no bias).
    const bool plain = c_.bias_type == TEPLUG_BIAS_NONE;
    if (!plain) ApplyScoreRule(c_, b, h, i, j0, s, lo, hi, row_.data());
    const float block_max = ScaleAndMax(s + lo, hi - lo, plain ? c_.scale : 1.0f);
    const float m_new = std::max(m_[r], block_max);
    if (m_new == kMinusInf) {  // every visible score is -inf (e.g. a -inf bias)
      std::fill(s, s + cols, 0.0f);
      return;
    }
    if (m_new > m_[r]) {
      const float alpha = m_[r] == kMinusInf ? 0.0f : std::exp(m_[r] - m_new);
      float* acc = acc_.data() + r * c_.d_v;
      for (int64_t e = 0; e < c_.d_v; ++e) acc[e] *= alpha;
      l_[r] *= alpha;
      m_[r] = m_new;
    }
    l_[r] += ExpShiftedSum(s + lo, hi - lo, m_new);
    std::fill(s, s + lo, 0.0f);
    std::fill(s + hi, s + cols, 0.0f);
    if (dropout_ != nullptr) {
      dropout_->RowFactors(b, h, i, j0 + lo, hi - lo, row_.data());
      for (int64_t c = lo; c < hi; ++c) s[c] *= row_[c - lo];
    }
  }

  // O = acc / l and LSE = m + log(l) for every row of the tile; rows without
  // a visible key (l = 0) and padding rows get O = 0 and LSE = -inf.
  void Finish(int64_t b, int64_t h, int64_t i0, int64_t rows) {
    const bool thd = c_.format == SequenceFormat::kThd;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = i0 + r;
      float* acc = acc_.data() + r * c_.d_v;
      const bool has_keys = l_[r] > 0.0f;
      const float inv = has_keys ? 1.0f / l_[r] : 0.0f;
      for (int64_t e = 0; e < c_.d_v; ++e) acc[e] = has_keys ? acc[e] * inv : 0.0f;
      if (c_.lse != nullptr) {
        c_.lse[(b * c_.hq + h) * c_.max_sq + i] = has_keys ? m_[r] + std::log(l_[r]) : kMinusInf;
      }
      if (thd && i >= c_.len_q[b]) continue;  // not in the packed buffer
      StoreRow(c_.o.data, c_.o.dtype, c_.o.Offset(b, i, h), c_.d_v, acc);
    }
  }

  const AttentionCall& c_;
  const WideKeyValues& kv_;
  const DropoutMask* dropout_;
  std::vector<float> q_, acc_, m_, l_, scores_, row_;
  std::vector<uint16_t> q16_, p16_;
  std::vector<int64_t> lo_, hi_;
};

// thd: o rows past the last sequence's tokens are part of no sequence: 0.
void ZeroTrailingTokens(const AttentionCall& c) {
  if (c.format != SequenceFormat::kThd) return;
  const std::vector<float> zeros(static_cast<size_t>(c.hq * c.d_v), 0.0f);
  for (int64_t t = c.cu_q.back(); t < c.o_tokens; ++t) {
    StoreRow(c.o.data, c.o.dtype, t * c.o.row_stride, c.hq * c.d_v, zeros.data());
  }
}

}  // namespace

void CopyBf16KeysAndValues(const AttentionCall& c, int64_t item, uint16_t* k, uint16_t* v) {
  const int64_t b = item / c.hkv, h = item % c.hkv;
  for (int64_t j = 0; j < c.len_kv[b]; ++j) {
    CopyBf16Row(c.k.data, c.k.Offset(b, j, h), c.d_qk, k + j * c.d_qk);
    CopyBf16Row(c.v.data, c.v.Offset(b, j, h), c.d_v, v + j * c.d_v);
  }
}

bool UsesBf16Tiles(const AttentionCall& c) {
  return c.q.dtype == TEPLUG_DTYPE_BF16 && c.k.dtype == TEPLUG_DTYPE_BF16 &&
         c.v.dtype == TEPLUG_DTYPE_BF16;
}

void FlashAttentionForward(const AttentionCall& c, int threads) {
  const WideKeyValues kv = WidenKeyValues(c, threads);
  DropoutMask mask(c.rng_seed, c.rng_offset, c.dropout_p, c.hq, c.max_sq, c.max_skv);
  const DropoutMask* dropout = c.dropout ? &mask : nullptr;
  if (kv.bf16) {  // the two products of QueryTile's ScoresBf16 and AccumulateBf16
    PrepareBf16TileMatmul(QueryTileRows(nullptr, c.d_qk), KeyTileColumns(nullptr, c.d_qk),
                          kKeyTile, /*accumulate=*/false);
    PrepareBf16TileMatmul(QueryTileRows(nullptr, kKeyTile), KeyTileRows(nullptr, c.d_v), c.d_v,
                          /*accumulate=*/true);
  }
  const int64_t tiles = (c.max_sq + kQueryTile - 1) / kQueryTile;
  ParallelFor(c.batch * c.hq * tiles, threads, [&](int64_t item) {
    QueryTile tile(c, kv, dropout);
    const int64_t t = item % tiles, bh = item / tiles;
    tile.Run(bh / c.hq, bh % c.hq, t * kQueryTile);
  });
  ZeroTrailingTokens(c);
}

}  // namespace teplug::cpu::attention
