// Writing INorm's forward output y in any dtype the reference serves, as
// teplug/norm.h defines it:
//   fp32/fp16/bf16: the exact value rounded once to y's dtype; y->quant, when
//     given, has mode none and only its amax is written: max |y| of the values
//     as stored (TransformerEngine's kernel takes amax after the cast).
//   fp8_e4m3/fp8_e5m2: the exact value rounded to fp32, then quantized row-wise
//     exactly as the reference IQuantizer quantizes that fp32 tensor (the same
//     numerics calls): per_tensor with the given quant->scale (delayed
//     scaling; scale_inv and amax written when given), or mxfp8_1d32 with the
//     args' MX scale rule (e8m0 scale_inv required; amax when given).
// Column-wise output is refused (quant->columnwise_data must be NULL).
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_NORM_OUTPUT_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_NORM_OUTPUT_H_

#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "plugins/reference/numerics/mx_scaling.h"
#include "plugins/reference/provider/tensor_view.h"

namespace teplug::reference::provider {

// Where one y goes, checked before anything is computed or written.
struct NormOutputTarget {
  TensorView y;
  int32_t mode = TEPLUG_SCALING_NONE;   // quant->mode for an fp8 y
  std::optional<TensorView> scale;      // per_tensor: fp32[1], read
  std::optional<TensorView> scale_inv;  // per_tensor fp32[1] or mxfp8 e8m0 grid, written
  std::optional<TensorView> amax;       // fp32[1], written
  MxScaleRule mx_rule = MxScaleRule::kOcpSpec;  // mxfp8_1d32: the scale rule
};

// Checks y (already viewed; `rows` x `hidden` is its 2D geometry) and its
// quant for the rules above. Errors name the field, e.g.
// "TeplugNormFwdArgs.y.quant.scale is NULL: ...".
absl::StatusOr<NormOutputTarget> CheckNormOutput(const TensorView& y, int64_t rows, int64_t hidden);

// Writes `values` (rows x hidden, row-major, exact) into the target.
absl::Status WriteNormOutput(const NormOutputTarget& target, const std::vector<double>& values,
                             int64_t rows, int64_t hidden);

}  // namespace teplug::reference::provider

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_NORM_OUTPUT_H_
