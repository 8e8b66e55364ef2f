// TransformerEngine's rules for turning a tensor (or block) into an amax and
// an amax into an FP8 scale, restated for the reference. Shared by per-tensor
// current scaling and the 1x128 / 128x128 block scaling recipes.
//
// Followed (read, not copied): NVIDIA/TransformerEngine
//   transformer_engine/common/recipe/recipe_common.cuh  compute_scale_from_amax
//   tests/pytorch/references/quantize_scale_calc.py     scale_from_amax_tensor
//   cast kernels (util/vectorized_pointwise.h): amax = fmaxf(fabsf(x), amax)
#ifndef TEPLUG_PLUGINS_REFERENCE_NUMERICS_SCALE_FROM_AMAX_H_
#define TEPLUG_PLUGINS_REFERENCE_NUMERICS_SCALE_FROM_AMAX_H_

#include <cstddef>

namespace teplug::reference {

// max |x| over `count` elements `stride` apart, starting at 0. NaN elements
// are skipped, as TE's fmaxf-based reduction skips them (fmaxf returns the
// other operand); +-Inf counts as Inf. An empty range gives 0.
float AbsMaxIgnoringNan(const float* x, size_t count, size_t stride = 1);

// TE's compute_scale_from_amax, in fp32:
//   amax < amax_epsilon          -> amax = amax_epsilon
//   amax is 0, Inf or NaN        -> scale = 1
//   otherwise scale = fp8_max / amax (IEEE round-to-nearest division)
//   scale overflowed to Inf      -> scale = value_for_inf (TE passes the
//                                   largest finite value of the input dtype)
//   force_pow2_scales            -> scale's mantissa bits cleared, i.e. rounded
//                                   down to a power of two
float ComputeScaleFromAmax(float amax, float fp8_max, bool force_pow2_scales,
                           float amax_epsilon, float value_for_inf);

}  // namespace teplug::reference

#endif  // TEPLUG_PLUGINS_REFERENCE_NUMERICS_SCALE_FROM_AMAX_H_
