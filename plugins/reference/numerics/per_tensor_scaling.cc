#include "plugins/reference/numerics/per_tensor_scaling.h"

#include <cmath>

#include "absl/strings/str_format.h"
#include "plugins/reference/numerics/scale_from_amax.h"

namespace teplug::reference {
namespace {

absl::Status CheckInput(const char* function, const void* x, size_t rows, size_t cols) {
  if (x == nullptr && rows * cols != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: input pointer is null for a [%d, %d] tensor", function, rows, cols));
  }
  return absl::OkStatus();
}

// Fills codes, the optional transpose, amax and scale_inv for a given scale.
PerTensorFp8 Quantize(const float* x, size_t rows, size_t cols, float scale, Fp8Format format,
                      bool with_columnwise) {
  PerTensorFp8 result;
  result.format = format;
  result.rows = rows;
  result.cols = cols;
  result.scale = scale;
  result.scale_inv = 1.0f / scale;
  result.amax = AbsMaxIgnoringNan(x, rows * cols);
  result.data.resize(rows * cols);
  for (size_t i = 0; i < rows * cols; ++i) {
    const float scaled = x[i] * scale;  // fp32 product, as TE's cast kernel
    result.data[i] = EncodeFp8(format, scaled, /*saturate=*/true);
  }
  if (with_columnwise) {
    result.columnwise_data.resize(rows * cols);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < cols; ++c) {
        result.columnwise_data[c * rows + r] = result.data[r * cols + c];
      }
    }
  }
  return result;
}

}  // namespace

absl::StatusOr<PerTensorFp8> QuantizeWithDelayedScaling(const float* x, size_t rows, size_t cols,
                                                        float scale, Fp8Format format,
                                                        bool with_columnwise) {
  if (absl::Status s = CheckInput("QuantizeWithDelayedScaling", x, rows, cols); !s.ok()) return s;
  if (!std::isfinite(scale) || !(scale > 0.0f)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "QuantizeWithDelayedScaling: scale must be finite and > 0, got %g", scale));
  }
  return Quantize(x, rows, cols, scale, format, with_columnwise);
}

absl::StatusOr<PerTensorFp8> QuantizeWithCurrentScaling(const float* x, size_t rows, size_t cols,
                                                        Fp8Format format,
                                                        const CurrentScalingOptions& options,
                                                        bool with_columnwise) {
  if (absl::Status s = CheckInput("QuantizeWithCurrentScaling", x, rows, cols); !s.ok()) return s;
  if (!(options.amax_epsilon >= 0.0f) || !(options.input_max_finite > 0.0f)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "QuantizeWithCurrentScaling: amax_epsilon must be >= 0 and input_max_finite > 0, got "
        "%g and %g",
        options.amax_epsilon, options.input_max_finite));
  }
  const float amax = AbsMaxIgnoringNan(x, rows * cols);
  const float scale = ComputeScaleFromAmax(amax, Fp8MaxNormal(format), options.force_pow2_scales,
                                           options.amax_epsilon, options.input_max_finite);
  return Quantize(x, rows, cols, scale, format, with_columnwise);
}

absl::Status DequantizePerTensor(const uint8_t* codes, size_t count, Fp8Format format,
                                 float scale_inv, float* out) {
  if (count != 0 && (codes == nullptr || out == nullptr)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "DequantizePerTensor: %s pointer is null for %d elements",
        codes == nullptr ? "codes" : "output", count));
  }
  for (size_t i = 0; i < count; ++i) {
    out[i] = DecodeFp8(format, codes[i]) * scale_inv;  // fp32, as TE's dequantize
  }
  return absl::OkStatus();
}

absl::StatusOr<DelayedScale> UpdateDelayedScale(const float* amax_history, size_t length,
                                                AmaxComputeAlgo algo, float previous_scale,
                                                Fp8Format format, float margin) {
  if (amax_history == nullptr || length == 0) {
    return absl::InvalidArgumentError(
        "UpdateDelayedScale: amax history must have at least one entry");
  }
  const float amax = algo == AmaxComputeAlgo::kMostRecent
                         ? amax_history[0]
                         : AbsMaxIgnoringNan(amax_history, length);
  const float scaled_max = Fp8MaxNormal(format) * std::pow(2.0f, -margin);
  const float scale = (std::isfinite(amax) && amax > 0.0f) ? scaled_max / amax : previous_scale;
  return DelayedScale{scale, 1.0f / scale};
}

}  // namespace teplug::reference
