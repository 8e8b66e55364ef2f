#include "plugins/cpu/attention/score_rule.h"

#include <cstdlib>

#include "plugins/cpu/attention/tensor_rows.h"

namespace teplug::cpu::attention {

void ApplyScoreRule(const AttentionCall& c, int64_t b, int64_t h, int64_t i, int64_t j0, float* s,
                    int64_t lo, int64_t hi, float* scratch) {
  const float scale = c.scale;
  switch (c.bias_type) {
    case TEPLUG_BIAS_PRE_SCALE:
    case TEPLUG_BIAS_POST_SCALE: {
      const int64_t bb = c.bias_batch == 1 ? 0 : b, bh = c.bias_heads == 1 ? 0 : h;
      const int64_t offset = ((bb * c.bias_heads + bh) * c.max_sq + i) * c.max_skv + j0;
      LoadRow(c.bias.data, c.bias.dtype, offset + lo, hi - lo, scratch + lo);
      if (c.bias_type == TEPLUG_BIAS_PRE_SCALE) {
        for (int64_t k = lo; k < hi; ++k) s[k] = (s[k] + scratch[k]) * scale;
      } else {
        for (int64_t k = lo; k < hi; ++k) s[k] = s[k] * scale + scratch[k];
      }
      return;
    }
    case TEPLUG_BIAS_ALIBI: {
      const float slope = c.alibi_slopes[h];
      const int64_t diagonal = i + c.DiagonalShift(b);
      for (int64_t k = lo; k < hi; ++k) {
        s[k] = s[k] * scale - slope * static_cast<float>(std::llabs(diagonal - (j0 + k)));
      }
      return;
    }
    default:
      for (int64_t k = lo; k < hi; ++k) s[k] *= scale;
      return;
  }
}

}  // namespace teplug::cpu::attention
