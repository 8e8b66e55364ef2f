#include "plugins/reference/provider/quantizer_provider.h"

#include <cfloat>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/reference/numerics/block_scaling.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/numerics/mx_scaling.h"
#include "plugins/reference/numerics/per_tensor_scaling.h"
#include "plugins/reference/numerics/scale_from_amax.h"
#include "plugins/reference/provider/status_bridge.h"
#include "plugins/reference/provider/tensor_io.h"
#include "plugins/reference/provider/tensor_view.h"
#include "teplug/sdk/names.hpp"

namespace teplug::reference::provider {
namespace {

// Largest finite value of the input dtype: TE's scale when fp8_max / amax overflows.
float InputMaxFinite(int32_t dtype) {
  switch (dtype) {
    case TEPLUG_DTYPE_FP16: return kFp16MaxNormal;
    case TEPLUG_DTYPE_BF16: return DecodeBf16(0x7F7F);
    default: return FLT_MAX;
  }
}

// Where the outputs of one quantize call go, checked up front.
struct QuantizeTargets {
  Fp8Format format = Fp8Format::kE4M3;
  TeplugQuantization quant{};
  std::optional<TensorView> data;              // row-wise codes
  std::optional<TensorView> scale_inv;         // row-wise scale_inv
  std::optional<TensorView> columnwise_data;   // [cols, rows] codes
  std::optional<TensorView> columnwise_scale_inv;
  std::optional<TensorView> scale;             // per_tensor only
  std::optional<TensorView> amax;
};

absl::Status CheckScaleTensor(const TensorView& s, int32_t mode, int64_t rows, int64_t cols) {
  const ScaleGridRule rule = *ScaleGridRuleOf(mode, rows, cols);  // CheckTargets checked mode
  const std::string what =
      absl::StrCat(sdk::ScalingName(mode), " scaling of a [", rows, ", ", cols, "] tensor needs");
  if (mode == TEPLUG_SCALING_PER_TENSOR) {  // any shape of one element
    if (s.element_count != 1 || s.dtype != rule.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(s.name, ": ", sdk::DTypeName(s.dtype), " ",
                                                     ShapeString(s.shape), " but ", what,
                                                     " one fp32 element"));
    }
    return absl::OkStatus();
  }
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(s, rule.shape, what));
  return RequireDType(s, TEPLUG_DTYPE_BIT(rule.dtype),
                      absl::StrCat(sdk::ScalingName(mode), " scales must be"));
}

absl::StatusOr<std::optional<TensorView>> ViewRequired(const TeplugTensor* t, const std::string& name,
                                                       const std::string& why) {
  if (t == nullptr) return absl::InvalidArgumentError(absl::StrCat(name, " is NULL: ", why));
  absl::StatusOr<TensorView> v = ViewTensor(t, name);
  if (!v.ok()) return v.status();
  return std::optional<TensorView>(*std::move(v));
}

absl::StatusOr<QuantizeTargets> CheckTargets(const TeplugQuantizeArgs& args, const TensorView& out,
                                             int64_t rows, int64_t cols) {
  QuantizeTargets t;
  const std::string q_name = out.name + ".quant";
  if (out.dtype == TEPLUG_DTYPE_FP4_E2M1) {
    return absl::UnimplementedError(
        absl::StrCat(out.name, ": dtype fp4_e2m1 is not supported by the reference quantizer "
                               "(its numerics have no fp4 scaling recipe); use fp8_e4m3 or fp8_e5m2"));
  }
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(out, kFp8DTypes, "the reference quantizes into"));
  t.format = out.dtype == TEPLUG_DTYPE_FP8_E4M3 ? Fp8Format::kE4M3 : Fp8Format::kE5M2;
  absl::StatusOr<TeplugQuantization> q = ReadQuantization(out.quant, q_name);
  if (!q.ok()) return q.status();
  t.quant = *q;
  const int32_t mode = t.quant.mode;
  if (!ScaleGridRuleOf(mode, rows, cols).has_value()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.mode is %s (%d); quantize needs per_tensor, mxfp8_1d32, block_1d128 or block_2d128",
        q_name, sdk::ScalingName(mode), mode));
  }
  if (!args.rowwise && !args.columnwise) {
    return absl::InvalidArgumentError(
        "TeplugQuantizeArgs: rowwise and columnwise are both false; at least one output is needed");
  }
  if (args.rowwise) {
    if (out.element_count > 0 && out.data == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(out.name, ".data is NULL but rowwise is set"));
    }
    t.data = out;
    absl::StatusOr<std::optional<TensorView>> s =
        ViewRequired(t.quant.scale_inv, q_name + ".scale_inv", "rowwise output needs its scales");
    if (!s.ok()) return s.status();
    t.scale_inv = *std::move(s);
    TEPLUG_REFERENCE_RETURN_IF_ERROR(CheckScaleTensor(*t.scale_inv, mode, rows, cols));
  }
  if (args.columnwise) {
    absl::StatusOr<std::optional<TensorView>> d = ViewRequired(
        t.quant.columnwise_data, q_name + ".columnwise_data", "columnwise is set");
    if (!d.ok()) return d.status();
    t.columnwise_data = *std::move(d);
    const bool mx = mode == TEPLUG_SCALING_MXFP8_1D32;
    TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(
        *t.columnwise_data, mx ? std::vector<int64_t>{rows, cols} : std::vector<int64_t>{cols, rows},
        mx ? "mxfp8 column-wise codes keep the input's layout" : "the transpose of the input is"));
    TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(*t.columnwise_data, TEPLUG_DTYPE_BIT(out.dtype),
                                                  "it must match the output dtype"));
    if (t.quant.columnwise_scale_inv != nullptr || mode != TEPLUG_SCALING_PER_TENSOR) {
      absl::StatusOr<std::optional<TensorView>> s =
          ViewRequired(t.quant.columnwise_scale_inv, q_name + ".columnwise_scale_inv",
                       "columnwise output needs its scales");
      if (!s.ok()) return s.status();
      t.columnwise_scale_inv = *std::move(s);
      if (mx) {  // blocks of 32 down each column: [ceil(rows/32), cols]
        TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(
            *t.columnwise_scale_inv, BlockGridShape(rows, cols, 32, 1),
            absl::StrCat("mxfp8_1d32 column-wise scaling of a [", rows, ", ", cols, "] tensor needs")));
        TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(*t.columnwise_scale_inv,
                                                      TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_E8M0),
                                                      "mxfp8_1d32 scales must be"));
      } else {
        TEPLUG_REFERENCE_RETURN_IF_ERROR(CheckScaleTensor(*t.columnwise_scale_inv, mode, cols, rows));
      }
    }
  }
  if (mode == TEPLUG_SCALING_PER_TENSOR) {
    const bool delayed = args.recipe == TEPLUG_RECIPE_DELAYED;
    if (args.recipe != TEPLUG_RECIPE_DELAYED && args.recipe != TEPLUG_RECIPE_CURRENT) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "TeplugQuantizeArgs.recipe %d is not delayed (0) or current (1)", args.recipe));
    }
    if (delayed || t.quant.scale != nullptr) {
      absl::StatusOr<std::optional<TensorView>> s = ViewRequired(
          t.quant.scale, q_name + ".scale", "delayed scaling quantizes with the given scale");
      if (!s.ok()) return s.status();
      t.scale = *std::move(s);
      TEPLUG_REFERENCE_RETURN_IF_ERROR(CheckScaleTensor(*t.scale, TEPLUG_SCALING_PER_TENSOR, 1, 1));
    }
  }
  if (t.quant.amax != nullptr) {
    absl::StatusOr<TensorView> a = ViewTensor(t.quant.amax, q_name + ".amax");
    if (!a.ok()) return a.status();
    t.amax = *std::move(a);
    TEPLUG_REFERENCE_RETURN_IF_ERROR(CheckScaleTensor(*t.amax, TEPLUG_SCALING_PER_TENSOR, 1, 1));
  }
  return t;
}

int32_t MxScaleRuleOf(const TeplugQuantizeArgs& args) {
  return TEPLUG_FIELD_OR(args, TeplugQuantizeArgs, mx_scale_rule, TEPLUG_MX_SCALE_OCP);
}

absl::Status WriteFloats(const TensorView& t, const std::vector<float>& values) {
  return WriteValues(t, std::vector<double>(values.begin(), values.end()));
}

absl::Status QuantizePerTensor(const TeplugQuantizeArgs& args, const QuantizeTargets& t,
                               const std::vector<float>& x, int64_t rows, int64_t cols,
                               int32_t input_dtype) {
  absl::StatusOr<PerTensorFp8> q;
  if (args.recipe == TEPLUG_RECIPE_DELAYED) {
    const float scale = *static_cast<const float*>(t.scale->data);
    q = QuantizeWithDelayedScaling(x.data(), rows, cols, scale, t.format, args.columnwise != 0);
  } else {
    CurrentScalingOptions options;
    options.amax_epsilon = args.amax_epsilon;
    options.force_pow2_scales = args.force_pow2_scales != 0;
    options.input_max_finite = InputMaxFinite(input_dtype);
    q = QuantizeWithCurrentScaling(x.data(), rows, cols, t.format, options, args.columnwise != 0);
  }
  if (!q.ok()) return absl::Status(q.status().code(), absl::StrCat("quantize (per_tensor): ", q.status().message()));
  if (t.data) TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteCodes(*t.data, q->data));
  if (t.scale_inv) TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteScalar(*t.scale_inv, q->scale_inv));
  if (t.columnwise_data) TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteCodes(*t.columnwise_data, q->columnwise_data));
  if (t.columnwise_scale_inv) {
    TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteScalar(*t.columnwise_scale_inv, q->scale_inv));
  }
  if (args.recipe == TEPLUG_RECIPE_CURRENT && t.scale) {
    TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteScalar(*t.scale, q->scale));
  }
  if (t.amax) TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteScalar(*t.amax, q->amax));
  return absl::OkStatus();
}

absl::Status QuantizeMx(const TeplugQuantizeArgs& args, const QuantizeTargets& t,
                        const std::vector<float>& x, int64_t rows, int64_t cols) {
  const MxScaleRule rule = MxScaleRuleOf(args) == TEPLUG_MX_SCALE_TRANSFORMER_ENGINE
                               ? MxScaleRule::kTransformerEngine
                               : MxScaleRule::kOcpSpec;
  absl::StatusOr<MxFp8> q =
      QuantizeMxfp8(x.data(), rows, cols, t.format, rule, args.columnwise != 0);
  if (!q.ok()) return absl::Status(q.status().code(), absl::StrCat("quantize (mxfp8_1d32): ", q.status().message()));
  if (t.data) {
    TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteCodes(*t.data, q->data));
    TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteCodes(*t.scale_inv, q->scales));
  }
  if (t.columnwise_data) {
    // As in TE and the ABI: codes stay [rows, cols], scales [ceil(rows/32), cols].
    TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteCodes(*t.columnwise_data, q->columnwise_data));
    TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteCodes(*t.columnwise_scale_inv, q->columnwise_scales));
  }
  return absl::OkStatus();
}

absl::Status QuantizeBlocks(const TeplugQuantizeArgs& args, const QuantizeTargets& t,
                            const std::vector<float>& x, int64_t rows, int64_t cols,
                            int32_t input_dtype) {
  BlockScalingOptions options;
  options.amax_epsilon = args.amax_epsilon;
  options.force_pow2_scales = args.force_pow2_scales != 0;
  options.input_max_finite = InputMaxFinite(input_dtype);
  const BlockScalingKind kind =
      t.quant.mode == TEPLUG_SCALING_BLOCK_1D128 ? BlockScalingKind::k1D : BlockScalingKind::k2D;
  absl::StatusOr<BlockScaledFp8> q =
      QuantizeBlockScaled(x.data(), rows, cols, t.format, kind, options, args.columnwise != 0);
  if (!q.ok()) {
    return absl::Status(q.status().code(), absl::StrCat("quantize (", sdk::ScalingName(t.quant.mode),
                                                        "): ", q.status().message()));
  }
  if (t.data) {
    TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteCodes(*t.data, q->data));
    TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteFloats(*t.scale_inv, q->scale_inv));
  }
  if (t.columnwise_data) {
    TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteCodes(*t.columnwise_data, q->columnwise_data));
    TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteFloats(*t.columnwise_scale_inv, q->columnwise_scale_inv));
  }
  return absl::OkStatus();
}

class ReferenceQuantizer : public sdk::QuantizerImpl {
 public:
  void Quantize(const TeplugQuantizeArgs& args) override { ThrowIfError(RunReferenceQuantize(args)); }
  void Dequantize(const TeplugDequantizeArgs& args) override {
    ThrowIfError(RunReferenceDequantize(args));
  }
};

}  // namespace

absl::Status RunReferenceQuantize(const TeplugQuantizeArgs& args) {
  // OCP from a v1.0-v1.2 caller, whose struct ends before the field.
  const int32_t rule = MxScaleRuleOf(args);
  if (rule != TEPLUG_MX_SCALE_OCP && rule != TEPLUG_MX_SCALE_TRANSFORMER_ENGINE) {
    return absl::InvalidArgumentError(
        absl::StrCat("TeplugQuantizeArgs.mx_scale_rule ", rule, " is not a TeplugMxScaleRule"));
  }
  absl::StatusOr<TensorView> in = ViewTensor(args.input, "TeplugQuantizeArgs.input");
  if (!in.ok()) return in.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(*in, kHighPrecisionDTypes, "quantize reads only"));
  // The output's data may be NULL for a column-wise-only call; CheckTargets
  // requires it only when rowwise is set.
  absl::StatusOr<TensorView> out =
      ViewTensor(args.output, "TeplugQuantizeArgs.output", NullData::kAllow);
  if (!out.ok()) return out.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(*out, in->shape, "the input is"));
  const int64_t rows = in->rows(), cols = in->cols();
  absl::StatusOr<QuantizeTargets> targets = CheckTargets(args, *out, rows, cols);
  if (!targets.ok()) return targets.status();
  absl::StatusOr<std::vector<double>> values = ReadValues(*in);
  if (!values.ok()) return values.status();
  const std::vector<float> x(values->begin(), values->end());  // exact: inputs are <= fp32
  switch (targets->quant.mode) {
    case TEPLUG_SCALING_PER_TENSOR: return QuantizePerTensor(args, *targets, x, rows, cols, in->dtype);
    case TEPLUG_SCALING_MXFP8_1D32: {
      TEPLUG_REFERENCE_RETURN_IF_ERROR(QuantizeMx(args, *targets, x, rows, cols));
      break;
    }
    default: {
      TEPLUG_REFERENCE_RETURN_IF_ERROR(QuantizeBlocks(args, *targets, x, rows, cols, in->dtype));
      break;
    }
  }
  if (targets->amax) {
    TEPLUG_REFERENCE_RETURN_IF_ERROR(
        WriteScalar(*targets->amax, AbsMaxIgnoringNan(x.data(), x.size())));
  }
  return absl::OkStatus();
}

absl::Status RunReferenceDequantize(const TeplugDequantizeArgs& args) {
  absl::StatusOr<TensorView> in = ViewTensor(args.input, "TeplugDequantizeArgs.input");
  if (!in.ok()) return in.status();
  absl::StatusOr<TensorView> out = ViewTensor(args.output, "TeplugDequantizeArgs.output");
  if (!out.ok()) return out.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(*in, kFp8DTypes, "dequantize reads only"));
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(*out, kHighPrecisionDTypes, "dequantize writes only"));
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(*out, in->shape, "the input is"));
  absl::StatusOr<std::vector<double>> values = ReadValues(*in);
  if (!values.ok()) return values.status();
  return WriteValues(*out, *values);
}

std::unique_ptr<sdk::QuantizerImpl> NewReferenceQuantizer() {
  return std::make_unique<ReferenceQuantizer>();
}

}  // namespace teplug::reference::provider
