// Per-tensor FP8 quantization with one fp32 scale for the whole tensor, in
// TransformerEngine's two flavours:
//   - delayed scaling: the scale comes from earlier steps' amax history
//     (UpdateDelayedScale); quantization only records this step's amax;
//   - current scaling: amax of this very tensor -> scale -> quantize.
// Quantization is TE's cast: code = fp8_saturating(float(x * scale)), the
// product rounded to fp32 first (TE computes in fp32) and then converted with
// __NV_SATFINITE semantics (overflow and +-Inf clamp to +-max normal, NaN stays
// NaN). Dequantization is float(decode(code) * scale_inv).
//
// Followed (read, not copied): NVIDIA/TransformerEngine
//   transformer_engine/common/recipe/delayed_scaling.cu (amax history, margin)
//   transformer_engine/common/recipe/current_scaling.cu + recipe_common.cuh
//   transformer_engine/common/util/vectorized_pointwise.h (cast: amax, x*scale)
#ifndef TEPLUG_PLUGINS_REFERENCE_NUMERICS_PER_TENSOR_SCALING_H_
#define TEPLUG_PLUGINS_REFERENCE_NUMERICS_PER_TENSOR_SCALING_H_

#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "plugins/reference/numerics/float_formats.h"

namespace teplug::reference {

// A 2D [rows, cols] tensor quantized with one scale. A 1D tensor is rows = 1.
struct PerTensorFp8 {
  Fp8Format format = Fp8Format::kE4M3;
  size_t rows = 0;
  size_t cols = 0;
  // Codes in the input's row-major [rows, cols] layout.
  std::vector<uint8_t> data;
  // The same codes transposed to row-major [cols, rows]; empty unless asked
  // for. Per-tensor scaling has one scale, so this is an exact transpose.
  std::vector<uint8_t> columnwise_data;
  float scale = 1.0f;      // quantization multiplier: code = fp8(x * scale)
  float scale_inv = 1.0f;  // 1 / scale in fp32, the dequantization multiplier
  float amax = 0.0f;       // max |x| of the input, NaN skipped (TE's fmaxf)
};

// Options of TE's Float8CurrentScaling recipe.
struct CurrentScalingOptions {
  float amax_epsilon = 0.0f;       // amax is raised to at least this
  bool force_pow2_scales = false;  // round the scale down to a power of two
  // Scale used when fp8_max / amax overflows fp32: TE uses the largest finite
  // value of the *input* dtype (65504 for fp16, bf16's 3.3895e38, FLT_MAX).
  float input_max_finite = FLT_MAX;
};

// Delayed scaling: quantizes x [rows, cols] with the given scale (finite and
// > 0, else InvalidArgument) and records amax = max|x|, scale_inv = 1/scale.
absl::StatusOr<PerTensorFp8> QuantizeWithDelayedScaling(const float* x, size_t rows, size_t cols,
                                                        float scale, Fp8Format format,
                                                        bool with_columnwise);

// Current scaling: amax = max|x|, scale = ComputeScaleFromAmax(amax,
// fp8_max, options...), then quantizes as above.
absl::StatusOr<PerTensorFp8> QuantizeWithCurrentScaling(const float* x, size_t rows, size_t cols,
                                                        Fp8Format format,
                                                        const CurrentScalingOptions& options,
                                                        bool with_columnwise);

// out[i] = float(decode(codes[i]) * scale_inv) for `count` codes.
absl::Status DequantizePerTensor(const uint8_t* codes, size_t count, Fp8Format format,
                                 float scale_inv, float* out);

// How the delayed scaling recipe reduces the amax history.
enum class AmaxComputeAlgo {
  kMostRecent,  // history[0], the latest step
  kMax,         // max over the whole window
};

// New scale and scale_inv from the amax history (TE's
// amax_and_scale_update): amax by `algo` over history[0..length) with
// history[0] the most recent; scale = (fp8_max * 2^-margin) / amax in fp32
// when that amax is finite and > 0, else previous_scale is kept.
struct DelayedScale {
  float scale;
  float scale_inv;
};
absl::StatusOr<DelayedScale> UpdateDelayedScale(const float* amax_history, size_t length,
                                                AmaxComputeAlgo algo, float previous_scale,
                                                Fp8Format format, float margin);

}  // namespace teplug::reference

#endif  // TEPLUG_PLUGINS_REFERENCE_NUMERICS_PER_TENSOR_SCALING_H_
