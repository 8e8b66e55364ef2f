#include "plugins/reference/provider/norm_output.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/numerics/mx_scaling.h"
#include "plugins/reference/numerics/per_tensor_scaling.h"
#include "plugins/reference/numerics/scale_from_amax.h"
#include "plugins/reference/provider/quantizer_provider.h"
#include "plugins/reference/provider/status_bridge.h"
#include "plugins/reference/provider/tensor_io.h"
#include "teplug/sdk/names.hpp"

namespace teplug::reference::provider {
namespace {

// An fp32 tensor of one element (a scale, scale_inv or amax).
absl::StatusOr<std::optional<TensorView>> ViewScalar(const TeplugTensor* t, const std::string& name,
                                                     bool required, const std::string& why) {
  if (t == nullptr) {
    if (!required) return std::optional<TensorView>();
    return absl::InvalidArgumentError(absl::StrCat(name, " is NULL: ", why));
  }
  absl::StatusOr<TensorView> v = ViewTensor(t, name);
  if (!v.ok()) return v.status();
  if (v->dtype != TEPLUG_DTYPE_FP32 || v->element_count != 1) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", sdk::DTypeName(v->dtype), " ",
                                                   ShapeString(v->shape),
                                                   " but it must be one fp32 element"));
  }
  return std::optional<TensorView>(*std::move(v));
}

// The value `v` takes when stored in a high-precision dtype.
double RoundedTo(int32_t dtype, double v) {
  switch (dtype) {
    case TEPLUG_DTYPE_FP16:
      return DecodeFp16(EncodeFp16(v));
    case TEPLUG_DTYPE_BF16:
      return DecodeBf16(EncodeBf16(v));
    default:
      return static_cast<float>(v);
  }
}

absl::Status CheckHighPrecision(const TeplugQuantization& q, NormOutputTarget* t) {
  const std::string q_name = t->y.name + ".quant";
  if (q.mode != TEPLUG_SCALING_NONE || q.scale != nullptr || q.scale_inv != nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: mode %s with scale/scale_inv on a %s y; a high-precision y takes only amax "
        "(mode none)",
        q_name, sdk::ScalingName(q.mode), sdk::DTypeName(t->y.dtype)));
  }
  absl::StatusOr<std::optional<TensorView>> amax = ViewScalar(q.amax, q_name + ".amax", false, "");
  if (!amax.ok()) return amax.status();
  t->amax = *std::move(amax);
  return absl::OkStatus();
}

absl::Status CheckQuantized(const TeplugQuantization& q, int64_t rows, int64_t hidden,
                            NormOutputTarget* t) {
  const std::string q_name = t->y.name + ".quant";
  t->mode = q.mode;
  if (q.mode == TEPLUG_SCALING_PER_TENSOR) {
    absl::StatusOr<std::optional<TensorView>> scale = ViewScalar(
        q.scale, q_name + ".scale", true, "per_tensor output quantizes with the given scale");
    if (!scale.ok()) return scale.status();
    t->scale = *std::move(scale);
    const float s = *static_cast<const float*>(t->scale->data);
    if (!std::isfinite(s) || s <= 0.0f) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.scale is %g; it must be finite and > 0", q_name, s));
    }
    absl::StatusOr<std::optional<TensorView>> inv =
        ViewScalar(q.scale_inv, q_name + ".scale_inv", false, "");
    if (!inv.ok()) return inv.status();
    t->scale_inv = *std::move(inv);
  } else if (q.mode == TEPLUG_SCALING_MXFP8_1D32) {
    if (q.scale_inv == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          q_name, ".scale_inv is NULL: mxfp8_1d32 output needs its e8m0 block scales"));
    }
    absl::StatusOr<TensorView> inv = ViewTensor(q.scale_inv, q_name + ".scale_inv");
    if (!inv.ok()) return inv.status();
    const ScaleGridRule rule = *ScaleGridRuleOf(q.mode, rows, hidden);
    TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(
        *inv, rule.shape,
        absl::StrCat("mxfp8_1d32 scaling of a [", rows, ", ", hidden, "] output needs")));
    TEPLUG_REFERENCE_RETURN_IF_ERROR(
        RequireDType(*inv, TEPLUG_DTYPE_BIT(rule.dtype), "mxfp8_1d32 scales must be"));
    t->scale_inv = *std::move(inv);
  } else {
    return absl::UnimplementedError(absl::StrFormat(
        "%s.mode is %s (%d); an fp8 norm output is served with per_tensor or mxfp8_1d32", q_name,
        sdk::ScalingName(q.mode), q.mode));
  }
  absl::StatusOr<std::optional<TensorView>> amax = ViewScalar(q.amax, q_name + ".amax", false, "");
  if (!amax.ok()) return amax.status();
  t->amax = *std::move(amax);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<NormOutputTarget> CheckNormOutput(const TensorView& y, int64_t rows,
                                                 int64_t hidden) {
  NormOutputTarget t;
  t.y = y;
  TEPLUG_REFERENCE_RETURN_IF_ERROR(
      RequireDType(y, kHighPrecisionDTypes | kFp8DTypes, "the reference norm writes y as"));
  const bool fp8 = (TEPLUG_DTYPE_BIT(y.dtype) & kFp8DTypes) != 0;
  if (y.quant == nullptr) {
    if (!fp8) return t;
    return absl::InvalidArgumentError(
        absl::StrCat(y.name, ".quant is NULL: an ", sdk::DTypeName(y.dtype),
                     " y needs per_tensor (scale) or mxfp8_1d32 (scale_inv) quantization"));
  }
  absl::StatusOr<TeplugQuantization> q = ReadQuantization(y.quant, y.name + ".quant");
  if (!q.ok()) return q.status();
  if (q->columnwise_data != nullptr || q->columnwise_scale_inv != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        y.name,
        ".quant.columnwise_data/columnwise_scale_inv are set but INorm/1 writes row-wise "
        "output only; quantize y column-wise with IQuantizer"));
  }
  TEPLUG_REFERENCE_RETURN_IF_ERROR(fp8 ? CheckQuantized(*q, rows, hidden, &t)
                                       : CheckHighPrecision(*q, &t));
  return t;
}

absl::Status WriteNormOutput(const NormOutputTarget& t, const std::vector<double>& values,
                             int64_t rows, int64_t hidden) {
  if (t.mode == TEPLUG_SCALING_NONE) {
    // Round first, so the amax WriteValues writes is that of the stored values.
    std::vector<double> stored(values.size());
    for (size_t i = 0; i < values.size(); ++i) stored[i] = RoundedTo(t.y.dtype, values[i]);
    return WriteValues(t.y, stored);
  }
  // fp8: the fp32 result quantized as IQuantizer quantizes an fp32 input.
  const std::vector<float> y32(values.begin(), values.end());
  const Fp8Format format = t.y.dtype == TEPLUG_DTYPE_FP8_E4M3 ? Fp8Format::kE4M3 : Fp8Format::kE5M2;
  const size_t r = static_cast<size_t>(rows), h = static_cast<size_t>(hidden);
  if (t.mode == TEPLUG_SCALING_PER_TENSOR) {
    const float scale = *static_cast<const float*>(t.scale->data);
    absl::StatusOr<PerTensorFp8> q =
        QuantizeWithDelayedScaling(y32.data(), r, h, scale, format, /*with_columnwise=*/false);
    if (!q.ok()) return q.status();
    TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteCodes(t.y, q->data));
    if (t.scale_inv) TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteScalar(*t.scale_inv, q->scale_inv));
    return t.amax ? WriteScalar(*t.amax, q->amax) : absl::OkStatus();
  }
  absl::StatusOr<MxFp8> q =
      QuantizeMxfp8(y32.data(), r, h, format, t.mx_rule, /*with_columnwise=*/false);
  if (!q.ok()) return q.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteCodes(t.y, q->data));
  TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteCodes(*t.scale_inv, q->scales));
  return t.amax ? WriteScalar(*t.amax, AbsMaxIgnoringNan(y32.data(), y32.size()))
                : absl::OkStatus();
}

}  // namespace teplug::reference::provider
