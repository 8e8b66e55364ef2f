// Example INorm/1 ops for `teplug explain`: LayerNorm or RMSNorm over
// [rows, hidden_size], forward with an optionally quantized y, or backward.
#include <string>
#include <vector>

#include "core/ops/example_params.h"
#include "core/ops/norm.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {

absl::StatusOr<std::vector<ExampleParam>> NormExampleParams(const InterfaceModule& module,
                                                            const OpSpec& op) {
  const config::InterfaceVocabulary v = module.Vocabulary();
  std::vector<ExampleParam> params = {
      FactParam(v, "norm_type", "layernorm"),
      FactParam(v, "dtype", "bf16"),
      FactParam(v, "hidden_size", "1024", 1, int64_t{1} << 30),
      IntegerParam("rows", "rows of x", 1024, 1, int64_t{1} << 40),
      SwitchParam("zero_centered_gamma", "gamma is stored minus one"),
  };
  if (op.op == TEPLUG_NORM_OP_FORWARD) {
    params.push_back(Following(FactParam(v, "output_dtype", ""), "dtype"));
    params.push_back(NameParam("scaling_mode", "y's scaling mode when output_dtype is fp8",
                               "per_tensor", ScalingModeNames()));
    params.push_back(FactParam(v, "mx_scale_rule", "ocp"));
  }
  return params;
}

void BuildNormExample(const OpSpec& op, const ExampleValues& v, ExampleOp* e) {
  int32_t type = TEPLUG_NORM_LAYERNORM;
  sdk::ParseNormType(v.Name("norm_type"), &type);  // checked against the vocabulary's norm types
  const bool layernorm = type == TEPLUG_NORM_LAYERNORM;
  const int64_t rows = v.Integer("rows"), hidden = v.Integer("hidden_size");
  const int32_t x_type = DTypeValue(v, "dtype");
  TeplugTensor* x = e->NewTensor(x_type, {rows, hidden});
  TeplugTensor* gamma = e->NewTensor(x_type, {hidden});
  TeplugTensor* beta = layernorm ? e->NewTensor(x_type, {hidden}) : nullptr;
  TeplugTensor* mu = layernorm ? e->NewTensor(TEPLUG_DTYPE_FP32, {rows}) : nullptr;
  TeplugTensor* rsigma = e->NewTensor(TEPLUG_DTYPE_FP32, {rows});
  if (op.op == TEPLUG_NORM_OP_FORWARD) {
    const int32_t y_type = DTypeValue(v, "output_dtype");
    TeplugTensor* y = e->NewTensor(y_type, {rows, hidden});
    if (IsFp8(y_type)) {
      y->quant = e->NewQuantization(ScalingModeValue(v, "scaling_mode"), rows, hidden);
    }
    auto* a = e->NewStruct<TeplugNormFwdArgs>();
    a->norm_type = type;
    a->zero_centered_gamma = v.Switch("zero_centered_gamma");
    a->epsilon = 1e-5f;
    a->x = x, a->gamma = gamma, a->beta = beta, a->y = y, a->mu = mu, a->rsigma = rsigma;
    sdk::ParseMxScaleRule(v.Name("mx_scale_rule"), &a->mx_scale_rule);
    e->args = a;
  } else {
    auto* a = e->NewStruct<TeplugNormBwdArgs>();
    a->norm_type = type;
    a->zero_centered_gamma = v.Switch("zero_centered_gamma");
    a->dy = e->NewTensor(x_type, {rows, hidden});
    a->x = x, a->mu = mu, a->rsigma = rsigma, a->gamma = gamma;
    a->dx = e->NewTensor(x_type, {rows, hidden});
    a->dgamma = e->NewTensor(x_type, {hidden});
    a->dbeta = layernorm ? e->NewTensor(x_type, {hidden}) : nullptr;
    e->args = a;
  }
}

}  // namespace teplug::core
