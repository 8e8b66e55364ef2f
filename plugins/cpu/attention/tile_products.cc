#include "plugins/cpu/attention/tile_products.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace teplug::cpu::attention {

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define TEPLUG_TILE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TEPLUG_TILE_CLONES
#endif

namespace {

// Register blocks: kRows rows x kCols columns of sums stay in registers
// while the reduction axis streams through.
constexpr int64_t kRows = 8;
constexpr int64_t kCols = 32;

}  // namespace

TEPLUG_TILE_CLONES
void ScoreTile(const float* q, int64_t rows, int64_t depth, const float* kt, int64_t kt_stride,
               int64_t cols, float* scores, int64_t score_stride) {
  for (int64_t r0 = 0; r0 < rows; r0 += kRows) {
    const int64_t nr = std::min(kRows, rows - r0);
    for (int64_t c0 = 0; c0 < cols; c0 += kCols) {
      const int64_t nc = std::min(kCols, cols - c0);
      float sum[kRows][kCols] = {};
      if (nr == kRows && nc == kCols) {
        for (int64_t d = 0; d < depth; ++d) {
          const float* k = kt + d * kt_stride + c0;
          for (int64_t r = 0; r < kRows; ++r) {
            const float a = q[(r0 + r) * depth + d];
            for (int64_t c = 0; c < kCols; ++c) sum[r][c] += a * k[c];
          }
        }
      } else {
        for (int64_t d = 0; d < depth; ++d) {
          const float* k = kt + d * kt_stride + c0;
          for (int64_t r = 0; r < nr; ++r) {
            const float a = q[(r0 + r) * depth + d];
            for (int64_t c = 0; c < nc; ++c) sum[r][c] += a * k[c];
          }
        }
      }
      for (int64_t r = 0; r < nr; ++r) {
        std::memcpy(scores + (r0 + r) * score_stride + c0, sum[r], sizeof(float) * nc);
      }
    }
  }
}

namespace {

// acc[o * width + e] += sum_k W(o, k) * x[k * width + e] for o < out_rows,
// e < width, k < reduce, with W(o, k) = p[o * p_stride + k], or
// p[k * p_stride + o] when kTransposed. Inlined into each cloned caller.
template <bool kTransposed>
__attribute__((always_inline)) inline void WeightedRowSums(const float* p, int64_t p_stride,
                                                           int64_t out_rows, int64_t reduce,
                                                           const float* x, int64_t width,
                                                           float* acc) {
  const int64_t o_step = kTransposed ? 1 : p_stride, k_step = kTransposed ? p_stride : 1;
  for (int64_t o0 = 0; o0 < out_rows; o0 += kRows) {
    const int64_t no = std::min(kRows, out_rows - o0);
    const float* p0 = p + o0 * o_step;
    for (int64_t e0 = 0; e0 < width; e0 += kCols) {
      const int64_t ne = std::min(kCols, width - e0);
      float sum[kRows][kCols];
      for (int64_t o = 0; o < no; ++o)
        std::memcpy(sum[o], acc + (o0 + o) * width + e0, sizeof(float) * ne);
      if (no == kRows && ne == kCols) {
        for (int64_t k = 0; k < reduce; ++k) {
          const float* xr = x + k * width + e0;
          for (int64_t o = 0; o < kRows; ++o) {
            const float w = p0[o * o_step + k * k_step];
            for (int64_t e = 0; e < kCols; ++e) sum[o][e] += w * xr[e];
          }
        }
      } else {
        for (int64_t k = 0; k < reduce; ++k) {
          const float* xr = x + k * width + e0;
          for (int64_t o = 0; o < no; ++o) {
            const float w = p0[o * o_step + k * k_step];
            for (int64_t e = 0; e < ne; ++e) sum[o][e] += w * xr[e];
          }
        }
      }
      for (int64_t o = 0; o < no; ++o)
        std::memcpy(acc + (o0 + o) * width + e0, sum[o], sizeof(float) * ne);
    }
  }
}

}  // namespace

TEPLUG_TILE_CLONES
void AccumulateTile(const float* p, int64_t rows, int64_t p_stride, int64_t cols, const float* v,
                    int64_t width, float* acc) {
  WeightedRowSums<false>(p, p_stride, rows, cols, v, width, acc);
}

TEPLUG_TILE_CLONES
void AccumulateTransposedTile(const float* p, int64_t rows, int64_t p_stride, int64_t cols,
                              const float* x, int64_t width, float* acc) {
  WeightedRowSums<true>(p, p_stride, cols, rows, x, width, acc);
}

TEPLUG_TILE_CLONES
float ScaleAndMax(float* s, int64_t n, float scale) {
  // 16 fixed lanes, as in ExpShiftedSum, as one GCC vector: the compiler
  // does not vectorise the running maxima of an array of lanes.
  constexpr int64_t kLanes = 16;
  using Lanes = float __attribute__((vector_size(kLanes * sizeof(float))));
  Lanes lanes;
  for (int64_t l = 0; l < kLanes; ++l) lanes[l] = -__builtin_inff();
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes) {
    Lanes x;
    std::memcpy(&x, s + c, sizeof x);
    x *= scale;
    std::memcpy(s + c, &x, sizeof x);
    lanes = x > lanes ? x : lanes;
  }
  for (; c < n; ++c) {
    s[c] *= scale;
    lanes[c % kLanes] = s[c] > lanes[c % kLanes] ? s[c] : lanes[c % kLanes];
  }
  float max = lanes[0];
  for (int64_t l = 1; l < kLanes; ++l) max = lanes[l] > max ? lanes[l] : max;
  return max;
}

namespace {

// exp(x) for x <= 0 (NaN kept, below -87 gives 0): 2^k * exp(r),
// k = round(x / ln 2), |r| <= ln 2 / 2; Cephes' expf polynomial.
__attribute__((always_inline)) inline float ExpNonPositive(float x) {
  const float xc = x >= -87.0f ? x : -87.0f;  // NaN too: the cast below needs a number
  // k = floor(t) by truncation of the positive t + 128 (t >= -125.1).
  const int32_t k_biased = static_cast<int32_t>(xc * 1.44269504088896341f + 128.5f);
  const float k = static_cast<float>(k_biased - 128);
  const float r = xc - k * 0.693359375f + k * 2.12194440e-4f;
  float y = 1.9875691500e-4f;
  y = y * r + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  y = y * r * r + r + 1.0f;
  const float two_k = __builtin_bit_cast(float, (k_biased - 1) << 23);  // 2^k
  return x < -87.0f ? 0.0f : (x == x ? y * two_k : x);                  // a NaN score stays NaN
}

}  // namespace

TEPLUG_TILE_CLONES
float ExpShiftedSum(float* s, int64_t n, float max) {
  for (int64_t c = 0; c < n; ++c) s[c] = ExpNonPositive(s[c] - max);
  // The sum in 16 fixed lanes (vectorisable without reassociating), added
  // in a fixed order: the same result on every call.
  constexpr int64_t kLanes = 16;
  float lanes[kLanes] = {};
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] += s[c + l];
  }
  for (; c < n; ++c) lanes[c % kLanes] += s[c];
  float sum = 0.0f;
  for (int64_t l = 0; l < kLanes; ++l) sum += lanes[l];
  return sum;
}

TEPLUG_TILE_CLONES
void ExpShifted(float* s, int64_t n, float shift) {
  for (int64_t c = 0; c < n; ++c) {
    const float x = s[c] - shift;
    s[c] = ExpNonPositive(x > 0.0f ? 0.0f : x);
  }
}

TEPLUG_TILE_CLONES
void RoundTileToBf16(const float* in, int64_t in_stride, int64_t rows, int64_t cols,
                     int64_t out_rows, int64_t out_cols, uint16_t* out, int64_t out_stride) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = in + r * in_stride;
    uint16_t* y = out + r * out_stride;
    // FloatToBf16 without branches, so that the loop vectorises.
    for (int64_t c = 0; c < cols; ++c) {
      const uint32_t u = __builtin_bit_cast(uint32_t, x[c]);
      const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
      const uint32_t quiet_nan = (u >> 16) | 0x0040u;
      y[c] = static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
    }
    std::fill(y + cols, y + out_cols, uint16_t{0});
  }
  for (int64_t r = rows; r < out_rows; ++r) {
    std::fill(out + r * out_stride, out + r * out_stride + out_cols, uint16_t{0});
  }
}

}  // namespace teplug::cpu::attention
