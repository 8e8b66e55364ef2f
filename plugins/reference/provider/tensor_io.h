// Reading any host ABI tensor into fp64 and writing fp64 results back into
// any dtype with exactly one rounding: the adapter's only path between the C
// ABI's typed, strided, possibly quantized buffers and the reference's dense
// row-major double arrays.
//
// Read semantics (real value of each element, row-major over the shape):
//   fp32/fp16/bf16/int*: the stored value, exactly.
//   fp8_e4m3/fp8_e5m2/fp4_e2m1: decode(code) * scale_inv, where quant->mode
//     picks scale_inv: per_tensor fp32[1]; mxfp8_1d32 e8m0 [rows,
//     ceil(cols/32)]; block_1d128 fp32 [rows, ceil(cols/128)]; block_2d128
//     fp32 [ceil(rows/128), ceil(cols/128)] (rows/cols: TensorView). The
//     product of two floats is exact in double, so the read is exact.
// Write semantics:
//   fp32/fp16/bf16: round-to-nearest-even once from the double.
//   fp8: quant (per_tensor) is required with quant->scale fp32[1]; code =
//     fp8_satfinite(value * scale) (TE's saturating cast, one rounding of the
//     double product); quant->scale_inv, when given, receives 1/scale (fp32).
//   Any dtype: quant->amax, when given, receives max |value| (NaN skipped, as
//     TE's fmaxf reduction does) before scaling.
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_TENSOR_IO_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_TENSOR_IO_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "plugins/reference/provider/tensor_view.h"

namespace teplug::reference::provider {

// Bit masks of the dtypes each direction handles.
inline constexpr uint64_t kHighPrecisionDTypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) |
                                                 TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) |
                                                 TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
inline constexpr uint64_t kFp8DTypes =
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E5M2);
inline constexpr uint64_t kScaledDTypes = kFp8DTypes | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP4_E2M1);
inline constexpr uint64_t kIntegerDTypes =
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_INT8) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_INT32) |
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_INT64) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_UINT8);
inline constexpr uint64_t kReadableDTypes = kHighPrecisionDTypes | kScaledDTypes | kIntegerDTypes;
inline constexpr uint64_t kWritableDTypes = kHighPrecisionDTypes | kFp8DTypes;

// [ceil(rows / block_rows), ceil(cols / block_cols)]: the grid of scales
// when each covers a block_rows x block_cols block of a [rows, cols] tensor.
std::vector<int64_t> BlockGridShape(int64_t rows, int64_t cols, int64_t block_rows,
                                    int64_t block_cols);

// The row-wise scale_inv a scaling mode defines for a [rows, cols] tensor
// (the file comment's table): each scale covers a block_rows x block_cols
// block; the scale_inv tensor is `shape` of `dtype`. per_tensor: one block
// covering the whole tensor and one fp32 element (any shape; `shape` is [1]).
struct ScaleGridRule {
  int64_t block_rows = 1;
  int64_t block_cols = 1;
  std::vector<int64_t> shape;
  int32_t dtype = TEPLUG_DTYPE_FP32;
};

// std::nullopt unless mode is per_tensor, mxfp8_1d32, block_1d128 or block_2d128.
std::optional<ScaleGridRule> ScaleGridRuleOf(int32_t mode, int64_t rows, int64_t cols);

// The real values of `t` (see the file comment). Errors name the tensor and
// field: a quantized dtype without quant / scale_inv, a scale_inv of the
// wrong dtype or shape, an unknown scaling mode, an e8m0 tensor (scales are
// not data).
absl::StatusOr<std::vector<double>> ReadValues(const TensorView& t);

// The stored integers of an int8/int32/int64/uint8 tensor, exactly.
absl::StatusOr<std::vector<int64_t>> ReadIntegers(const TensorView& t);

// Writes `values` (t.element_count of them, row-major) into `t` as the file
// comment says. Errors: wrong count, dtype not writable, fp8 without a
// per-tensor quant->scale, a non-finite or non-positive scale.
absl::Status WriteValues(const TensorView& t, const std::vector<double>& values);

// Writes 8-bit codes (fp8, e8m0, int8, uint8 tensors) as they are, row-major.
absl::Status WriteCodes(const TensorView& t, const std::vector<uint8_t>& codes);

// Writes one fp32 number into an fp32 tensor of one element (a scale, a
// scale_inv or an amax); errors name t.name.
absl::Status WriteScalar(const TensorView& t, float value);

}  // namespace teplug::reference::provider

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_TENSOR_IO_H_
