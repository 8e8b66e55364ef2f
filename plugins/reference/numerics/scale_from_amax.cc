#include "plugins/reference/numerics/scale_from_amax.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace teplug::reference {

float AbsMaxIgnoringNan(const float* x, size_t count, size_t stride) {
  float amax = 0.0f;
  for (size_t i = 0; i < count; ++i) {
    amax = std::fmax(std::fabs(x[i * stride]), amax);
  }
  return amax;
}

float ComputeScaleFromAmax(float amax, float fp8_max, bool force_pow2_scales,
                           float amax_epsilon, float value_for_inf) {
  if (amax < amax_epsilon) amax = amax_epsilon;  // false for NaN, as in TE
  if (std::isinf(amax) || amax == 0.0f || std::isnan(amax)) return 1.0f;
  float scale = fp8_max / amax;
  if (std::isinf(scale)) scale = value_for_inf;
  if (force_pow2_scales) {
    // Keep sign and exponent, drop the mantissa: the largest power of two not
    // above a normal scale (scale >= fp8_max / FLT_MAX is always normal).
    uint32_t bits;
    std::memcpy(&bits, &scale, sizeof bits);
    bits &= 0xFF800000u;
    std::memcpy(&scale, &bits, sizeof bits);
  }
  return scale;
}

}  // namespace teplug::reference
