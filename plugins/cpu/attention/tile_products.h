// The two products of a flash-attention tile and its softmax exponentials, as plain loops the
// compiler vectorises (cloned for AVX-512, AVX2 and baseline x86-64, picked at load time),
// and the rounding of a tile to bf16 for the bf16 products. Accumulation is fp32.
#ifndef TEPLUG_PLUGINS_CPU_ATTENTION_TILE_PRODUCTS_H_
#define TEPLUG_PLUGINS_CPU_ATTENTION_TILE_PRODUCTS_H_

#include <cstdint>

namespace teplug::cpu::attention {

// scores[r * score_stride + c] = sum_d q[r * depth + d] * kt[d * kt_stride + c]
// for r < rows, c < cols: Q rows times a block of K stored transposed
// ([depth][keys], so the key axis is contiguous).
void ScoreTile(const float* q, int64_t rows, int64_t depth, const float* kt, int64_t kt_stride,
               int64_t cols, float* scores, int64_t score_stride);

// acc[r * width + e] += sum_c p[r * p_stride + c] * v[c * width + e]
// for r < rows, e < width: probabilities times a block of V rows.
void AccumulateTile(const float* p, int64_t rows, int64_t p_stride, int64_t cols, const float* v,
                    int64_t width, float* acc);

// acc[c * width + e] += sum_r p[r * p_stride + c] * x[r * width + e]
// for c < cols, e < width: the transpose of a [rows][cols] tile times rows of
// x (the backward's dV += P^T dO and dK += dS^T Q, keys as output rows).
void AccumulateTransposedTile(const float* p, int64_t rows, int64_t p_stride, int64_t cols,
                              const float* x, int64_t width, float* acc);

// s[c] *= scale for c < n; returns the largest s[c] (-inf for n = 0).
float ScaleAndMax(float* s, int64_t n, float scale);

// s[c] = exp(s[c] - max) for c < n (max >= every s[c]; -inf gives 0);
// returns their sum (NaN when a score is NaN). Cephes' expf polynomial, within 2 ulp of exp.
float ExpShiftedSum(float* s, int64_t n, float max);

// s[c] = exp(s[c] - shift) for c < n, the same polynomial as ExpShiftedSum,
// for a shift that is a row's log-sum-exp (>= every s[c] up to rounding);
// values of s[c] - shift above 0 are clamped to 0 (result 1), as a
// probability never exceeds 1.
void ExpShifted(float* s, int64_t n, float shift);

// out[r * out_stride + c] = in[r * in_stride + c] rounded to bf16 (nearest
// even, NaN kept a NaN, as scalar_formats.h's FloatToBf16) for r < rows,
// c < cols, and 0 for c in [cols, out_cols) and for rows rows .. out_rows - 1:
// a tile of fp32 probabilities or score gradients as a full-size operand of
// the bf16 tile products (bf16_tile_matmul.h).
void RoundTileToBf16(const float* in, int64_t in_stride, int64_t rows, int64_t cols,
                     int64_t out_rows, int64_t out_cols, uint16_t* out, int64_t out_stride);

}  // namespace teplug::cpu::attention

#endif  // TEPLUG_PLUGINS_CPU_ATTENTION_TILE_PRODUCTS_H_
