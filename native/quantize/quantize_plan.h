// The native quantizer's argument checks: a teplug quantize or dequantize
// call turned into the kernels' launch description, or the reason it cannot
// be. Pure host logic (no CUDA call), so every refusal is tested without a
// GPU. absl::InvalidArgumentError: the call is malformed (the contract's
// TEPLUG_INVALID_ARGUMENT); absl::UnimplementedError: valid, but not served
// by the native kernels (TEPLUG_UNSUPPORTED): fp4, non-contiguous or host
// tensors. Messages name the field and the value.
#ifndef TEPLUG_NATIVE_QUANTIZE_QUANTIZE_PLAN_H_
#define TEPLUG_NATIVE_QUANTIZE_QUANTIZE_PLAN_H_

#include "absl/status/statusor.h"
#include "native/quantize/quantize_launch.h"
#include "teplug/quantizer.h"

namespace teplug::native::quantize {

struct QuantizePlan {
  QuantizeLaunch launch;
  int ordinal = 0;  // the GPU every tensor of the call is on
};

struct DequantizePlan {
  DequantizeLaunch launch;
  int ordinal = 0;
};

// `data_required`: false when only `supports` is asked (data pointers may
// then be NULL); true for the call itself.
absl::StatusOr<QuantizePlan> PlanQuantize(const TeplugQuantizeArgs& args, bool data_required);
absl::StatusOr<DequantizePlan> PlanDequantize(const TeplugDequantizeArgs& args, bool data_required);

}  // namespace teplug::native::quantize

#endif  // TEPLUG_NATIVE_QUANTIZE_QUANTIZE_PLAN_H_
