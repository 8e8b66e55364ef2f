#include "plugins/cpu/attention/tile_products.h"

namespace teplug::cpu::attention {

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define TEPLUG_TILE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TEPLUG_TILE_CLONES
#endif

// Four query rows at a time, so each K element loaded feeds four sums.
TEPLUG_TILE_CLONES
void ScoreTile(const float* q, int64_t rows, int64_t depth, const float* kt, int64_t kt_stride,
               int64_t cols, float* scores, int64_t score_stride) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    float* __restrict s0 = scores + r * score_stride;
    float* __restrict s1 = s0 + score_stride;
    float* __restrict s2 = s1 + score_stride;
    float* __restrict s3 = s2 + score_stride;
    for (int64_t c = 0; c < cols; ++c) s0[c] = s1[c] = s2[c] = s3[c] = 0.0f;
    const float* q0 = q + r * depth;
    for (int64_t d = 0; d < depth; ++d) {
      const float a0 = q0[d], a1 = q0[depth + d], a2 = q0[2 * depth + d], a3 = q0[3 * depth + d];
      const float* __restrict k = kt + d * kt_stride;
      for (int64_t c = 0; c < cols; ++c) {
        const float kc = k[c];
        s0[c] += a0 * kc;
        s1[c] += a1 * kc;
        s2[c] += a2 * kc;
        s3[c] += a3 * kc;
      }
    }
  }
  for (; r < rows; ++r) {
    float* __restrict s = scores + r * score_stride;
    for (int64_t c = 0; c < cols; ++c) s[c] = 0.0f;
    for (int64_t d = 0; d < depth; ++d) {
      const float a = q[r * depth + d];
      const float* __restrict k = kt + d * kt_stride;
      for (int64_t c = 0; c < cols; ++c) s[c] += a * k[c];
    }
  }
}

TEPLUG_TILE_CLONES
void AccumulateTile(const float* p, int64_t rows, int64_t p_stride, int64_t cols, const float* v,
                    int64_t width, float* acc) {
  for (int64_t r = 0; r < rows; ++r) {
    float* __restrict out = acc + r * width;
    const float* pr = p + r * p_stride;
    for (int64_t c = 0; c < cols; ++c) {
      const float w = pr[c];
      if (w == 0.0f) continue;  // masked or dropped key
      const float* __restrict vr = v + c * width;
      for (int64_t e = 0; e < width; ++e) out[e] += w * vr[e];
    }
  }
}

}  // namespace teplug::cpu::attention
