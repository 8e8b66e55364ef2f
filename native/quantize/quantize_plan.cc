#include "native/quantize/quantize_plan.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "native/quantize/tensor_checks.h"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::quantize {
namespace {

constexpr uint64_t kHighPrecision = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) |
                                    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) |
                                    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
constexpr uint64_t kFp8 =
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E5M2);

#define TEPLUG_QUANTIZE_RETURN_IF_ERROR(expr) \
  do {                                        \
    const absl::Status status_ = (expr);      \
    if (!status_.ok()) return status_;        \
  } while (false)

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

HighPrecision HighPrecisionOf(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP16
             ? HighPrecision::kFp16
             : (dtype == TEPLUG_DTYPE_BF16 ? HighPrecision::kBf16 : HighPrecision::kFp32);
}

float InputMaxFinite(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP16
             ? kFp16MaxFinite
             : (dtype == TEPLUG_DTYPE_BF16 ? kBf16MaxFinite : kFp32MaxFinite);
}

// The quantized side: fp8 served, fp4 valid but not served, anything else malformed.
absl::Status RequireFp8(const CheckedTensor& t) {
  if (t.tensor.dtype == TEPLUG_DTYPE_FP4_E2M1) {
    return absl::UnimplementedError(
        absl::StrCat(t.name,
                     ".dtype is fp4_e2m1: native has no fp4 scaling recipe (teplug v1.0 defines "
                     "none); use fp8_e4m3 or "
                     "fp8_e5m2"));
  }
  return RequireDType(t, kFp8, "the quantized side is fp8_e4m3, fp8_e5m2 or fp4_e2m1");
}

absl::StatusOr<Scaling> ScalingOf(const TeplugQuantization& q, const std::string& name) {
  switch (q.mode) {
    case TEPLUG_SCALING_PER_TENSOR:
      return Scaling::kPerTensor;
    case TEPLUG_SCALING_MXFP8_1D32:
      return Scaling::kMx;
    case TEPLUG_SCALING_BLOCK_1D128:
      return Scaling::kBlock1D;
    case TEPLUG_SCALING_BLOCK_2D128:
      return Scaling::kBlock2D;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(name, ".mode is ", sdk::ScalingName(q.mode), " (", q.mode,
                       "); a quantized tensor needs per_tensor, mxfp8_1d32, "
                       "block_1d128 or block_2d128"));
  }
}

absl::StatusOr<TeplugQuantization> ReadQuantization(const TeplugQuantization* q,
                                                    const std::string& name) {
  TeplugQuantization out = sdk::Versioned<TeplugQuantization>();
  if (q == nullptr)
    return absl::InvalidArgumentError(absl::StrCat(name, " is NULL: the scaling mode is needed"));
  if (!sdk::ReadVersioned(q, &out, TEPLUG_STRUCT_SIZE(TeplugQuantization, columnwise_scale_inv))) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ".struct_size ", q->struct_size, " is smaller than v1.0's"));
  }
  return out;
}

// teplug's name of the mode ("mxfp8_1d32").
const char* ScalingModeName(Scaling scaling) {
  switch (scaling) {
    case Scaling::kMx:
      return sdk::ScalingName(TEPLUG_SCALING_MXFP8_1D32);
    case Scaling::kBlock1D:
      return sdk::ScalingName(TEPLUG_SCALING_BLOCK_1D128);
    case Scaling::kBlock2D:
      return sdk::ScalingName(TEPLUG_SCALING_BLOCK_2D128);
    case Scaling::kPerTensor:
      break;
  }
  return sdk::ScalingName(TEPLUG_SCALING_PER_TENSOR);
}

// The scale grid of `scaling` for a [rows, cols] matrix (row-wise rule).
std::vector<int64_t> ScaleGrid(Scaling scaling, int64_t rows, int64_t cols) {
  switch (scaling) {
    case Scaling::kMx:
      return {rows, CeilDiv(cols, 32)};
    case Scaling::kBlock1D:
      return {rows, CeilDiv(cols, 128)};
    case Scaling::kBlock2D:
      return {CeilDiv(rows, 128), CeilDiv(cols, 128)};
    case Scaling::kPerTensor:
      break;
  }
  return {1};
}

// A scale (or amax) tensor: present, on the call's GPU, of the mode's dtype
// and grid (per-tensor: any shape of one element).
absl::StatusOr<CheckedTensor> CheckScaleTensor(const TeplugTensor* p, const std::string& name,
                                               Scaling scaling, const std::vector<int64_t>& grid,
                                               const CheckedTensor& first, bool data_required,
                                               const std::string& why) {
  absl::StatusOr<CheckedTensor> t = ReadCudaTensor(p, name, data_required);
  if (!t.ok()) return t.status();
  TEPLUG_QUANTIZE_RETURN_IF_ERROR(RequireSameDevice(*t, first));
  const bool e8m0 = scaling == Scaling::kMx;
  TEPLUG_QUANTIZE_RETURN_IF_ERROR(
      RequireDType(*t, TEPLUG_DTYPE_BIT(e8m0 ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32),
                   absl::StrCat(ScalingModeName(scaling), " scales are ", e8m0 ? "e8m0" : "fp32")));
  if (scaling == Scaling::kPerTensor) {
    if (t->elements != 1) {
      return absl::InvalidArgumentError(absl::StrCat(name, " has shape ", ShapeText(t->shape), " (",
                                                     t->elements, " elements) but ", why,
                                                     " one fp32 element"));
    }
  } else {
    TEPLUG_QUANTIZE_RETURN_IF_ERROR(RequireShape(*t, grid, why));
  }
  TEPLUG_QUANTIZE_RETURN_IF_ERROR(RequireElementAlignment(*t));
  return t;
}

}  // namespace

absl::StatusOr<QuantizePlan> PlanQuantize(const TeplugQuantizeArgs& args, bool data_required) {
  absl::StatusOr<CheckedTensor> in =
      ReadCudaTensor(args.input, "TeplugQuantizeArgs.input", data_required);
  if (!in.ok()) return in.status();
  TEPLUG_QUANTIZE_RETURN_IF_ERROR(
      RequireDType(*in, kHighPrecision, "quantize reads fp32, fp16 or bf16"));
  TEPLUG_QUANTIZE_RETURN_IF_ERROR(RequireElementAlignment(*in));
  // The row-wise data may be NULL when only the column-wise copy is written.
  absl::StatusOr<CheckedTensor> out =
      ReadCudaTensor(args.output, "TeplugQuantizeArgs.output", data_required && args.rowwise);
  if (!out.ok()) return out.status();
  TEPLUG_QUANTIZE_RETURN_IF_ERROR(RequireFp8(*out));
  TEPLUG_QUANTIZE_RETURN_IF_ERROR(RequireSameDevice(*out, *in));
  TEPLUG_QUANTIZE_RETURN_IF_ERROR(RequireShape(*out, in->shape, "the input's shape is"));
  const std::string q_name = "TeplugQuantizeArgs.output.quant";
  absl::StatusOr<TeplugQuantization> q = ReadQuantization(out->tensor.quant, q_name);
  if (!q.ok()) return q.status();
  absl::StatusOr<Scaling> scaling = ScalingOf(*q, q_name);
  if (!scaling.ok()) return scaling.status();
  if (!args.rowwise && !args.columnwise) {
    return absl::InvalidArgumentError(
        "TeplugQuantizeArgs: rowwise and columnwise are both 0; at least one output is needed");
  }
  if (!(args.amax_epsilon >= 0.0f) || std::isinf(args.amax_epsilon)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TeplugQuantizeArgs.amax_epsilon is ", args.amax_epsilon, "; it must be finite and >= 0"));
  }

  QuantizePlan plan;
  plan.ordinal = in->ordinal;
  QuantizeLaunch& l = plan.launch;
  l.input = in->tensor.data;
  l.input_type = HighPrecisionOf(in->tensor.dtype);
  l.rows = in->rows;
  l.cols = in->cols;
  l.kind = out->tensor.dtype == TEPLUG_DTYPE_FP8_E4M3 ? Fp8Kind::kE4M3 : Fp8Kind::kE5M2;
  l.scaling = *scaling;
  l.input_max_finite = InputMaxFinite(in->tensor.dtype);
  l.amax_epsilon = args.amax_epsilon;
  l.force_pow2_scales = args.force_pow2_scales != 0;
  l.stream = args.stream;
  const std::string mode_text = absl::StrCat(sdk::ScalingName(q->mode), " scaling of a [", l.rows,
                                             ", ", l.cols, "] tensor needs");

  if (args.rowwise) {
    l.rowwise_data = static_cast<uint8_t*>(out->tensor.data);
    absl::StatusOr<CheckedTensor> s =
        CheckScaleTensor(q->scale_inv, q_name + ".scale_inv", l.scaling,
                         ScaleGrid(l.scaling, l.rows, l.cols), *in, data_required, mode_text);
    if (!s.ok()) return s.status();
    l.rowwise_scale_inv = s->tensor.data;
  }
  if (args.columnwise) {
    const bool mx = l.scaling == Scaling::kMx;
    absl::StatusOr<CheckedTensor> d =
        ReadCudaTensor(q->columnwise_data, q_name + ".columnwise_data", data_required);
    if (!d.ok()) return d.status();
    TEPLUG_QUANTIZE_RETURN_IF_ERROR(RequireSameDevice(*d, *in));
    TEPLUG_QUANTIZE_RETURN_IF_ERROR(RequireShape(
        *d, mx ? std::vector<int64_t>{l.rows, l.cols} : std::vector<int64_t>{l.cols, l.rows},
        mx ? "mxfp8_1d32 column-wise codes keep the input's [rows, cols]:"
           : "the column-wise copy is the transpose"));
    TEPLUG_QUANTIZE_RETURN_IF_ERROR(
        RequireDType(*d, TEPLUG_DTYPE_BIT(out->tensor.dtype),
                     absl::StrCat("it must be the output's ", sdk::DTypeName(out->tensor.dtype))));
    l.columnwise_data = static_cast<uint8_t*>(d->tensor.data);
    // Per-tensor scaling has one scale: its column-wise scale_inv is optional.
    if (q->columnwise_scale_inv != nullptr || l.scaling != Scaling::kPerTensor) {
      const std::vector<int64_t> grid =
          mx ? std::vector<int64_t>{CeilDiv(l.rows, 32), l.cols}
             : (l.scaling == Scaling::kBlock1D ? std::vector<int64_t>{l.cols, CeilDiv(l.rows, 128)}
                                               : ScaleGrid(l.scaling, l.cols, l.rows));
      absl::StatusOr<CheckedTensor> s =
          CheckScaleTensor(q->columnwise_scale_inv, q_name + ".columnwise_scale_inv", l.scaling,
                           grid, *in, data_required, absl::StrCat("column-wise ", mode_text));
      if (!s.ok()) return s.status();
      l.columnwise_scale_inv = s->tensor.data;
    }
  }
  if (l.scaling == Scaling::kPerTensor) {
    if (args.recipe != TEPLUG_RECIPE_DELAYED && args.recipe != TEPLUG_RECIPE_CURRENT) {
      return absl::InvalidArgumentError(absl::StrCat("TeplugQuantizeArgs.recipe is ", args.recipe,
                                                     "; it must be delayed (0) or current (1)"));
    }
    l.current_scaling = args.recipe == TEPLUG_RECIPE_CURRENT;
    if (!l.current_scaling || q->scale != nullptr) {
      absl::StatusOr<CheckedTensor> s =
          CheckScaleTensor(q->scale, q_name + ".scale", Scaling::kPerTensor, {1}, *in,
                           data_required, "delayed scaling quantizes with the given scale:");
      if (!s.ok()) return s.status();
      l.scale = static_cast<float*>(s->tensor.data);
    }
  } else {
    // Delayed and current scaling are per-tensor recipes: the other modes ignore them.
    l.force_pow2_scales = l.scaling == Scaling::kMx ? false : l.force_pow2_scales;
    l.amax_epsilon = l.scaling == Scaling::kMx ? 0.0f : l.amax_epsilon;
  }
  // OCP from a v1.0-v1.2 caller, whose struct ends before the field.
  const int32_t rule =
      TEPLUG_FIELD_OR(args, TeplugQuantizeArgs, mx_scale_rule, TEPLUG_MX_SCALE_OCP);
  if (rule != TEPLUG_MX_SCALE_OCP && rule != TEPLUG_MX_SCALE_TRANSFORMER_ENGINE) {
    return absl::InvalidArgumentError(
        absl::StrCat("TeplugQuantizeArgs.mx_scale_rule is ", rule,
                     "; it must be ocp (0) or transformer_engine (1)"));
  }
  l.mx_rule = l.scaling == Scaling::kMx && rule == TEPLUG_MX_SCALE_TRANSFORMER_ENGINE
                  ? MxRule::kTransformerEngine
                  : MxRule::kOcp;
  if (q->amax != nullptr) {
    absl::StatusOr<CheckedTensor> a = CheckScaleTensor(
        q->amax, q_name + ".amax", Scaling::kPerTensor, {1}, *in, data_required, "amax is");
    if (!a.ok()) return a.status();
    l.amax = static_cast<float*>(a->tensor.data);
  }
  return plan;
}

absl::StatusOr<DequantizePlan> PlanDequantize(const TeplugDequantizeArgs& args,
                                              bool data_required) {
  absl::StatusOr<CheckedTensor> in =
      ReadCudaTensor(args.input, "TeplugDequantizeArgs.input", data_required);
  if (!in.ok()) return in.status();
  TEPLUG_QUANTIZE_RETURN_IF_ERROR(RequireFp8(*in));
  absl::StatusOr<CheckedTensor> out =
      ReadCudaTensor(args.output, "TeplugDequantizeArgs.output", data_required);
  if (!out.ok()) return out.status();
  TEPLUG_QUANTIZE_RETURN_IF_ERROR(
      RequireDType(*out, kHighPrecision, "dequantize writes fp32, fp16 or bf16"));
  TEPLUG_QUANTIZE_RETURN_IF_ERROR(RequireSameDevice(*out, *in));
  TEPLUG_QUANTIZE_RETURN_IF_ERROR(RequireShape(*out, in->shape, "the input's shape is"));
  TEPLUG_QUANTIZE_RETURN_IF_ERROR(RequireElementAlignment(*out));
  const std::string q_name = "TeplugDequantizeArgs.input.quant";
  absl::StatusOr<TeplugQuantization> q = ReadQuantization(in->tensor.quant, q_name);
  if (!q.ok()) return q.status();
  absl::StatusOr<Scaling> scaling = ScalingOf(*q, q_name);
  if (!scaling.ok()) return scaling.status();
  if (q->scale_inv == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        q_name, ".scale_inv is NULL: dequantize reads the row-wise data with its scales"));
  }
  absl::StatusOr<CheckedTensor> s =
      CheckScaleTensor(q->scale_inv, q_name + ".scale_inv", *scaling,
                       ScaleGrid(*scaling, in->rows, in->cols), *in, data_required,
                       absl::StrCat(sdk::ScalingName(q->mode), " scaling of a [", in->rows, ", ",
                                    in->cols, "] tensor needs"));
  if (!s.ok()) return s.status();

  DequantizePlan plan;
  plan.ordinal = in->ordinal;
  DequantizeLaunch& l = plan.launch;
  l.codes = static_cast<const uint8_t*>(in->tensor.data);
  l.kind = in->tensor.dtype == TEPLUG_DTYPE_FP8_E4M3 ? Fp8Kind::kE4M3 : Fp8Kind::kE5M2;
  l.scaling = *scaling;
  l.scale_inv = s->tensor.data;
  l.rows = in->rows;
  l.cols = in->cols;
  l.output = out->tensor.data;
  l.output_type = HighPrecisionOf(out->tensor.dtype);
  l.stream = args.stream;
  return plan;
}

}  // namespace teplug::native::quantize
