// Example IQuantizer/1 ops for `teplug explain`: a [rows, cols] tensor
// quantized to (or dequantized from) the quantized dtype in a scaling mode.
#include <string>
#include <vector>

#include "core/ops/example_params.h"
#include "core/ops/quantizer.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {

absl::StatusOr<std::vector<ExampleParam>> QuantizerExampleParams(const InterfaceModule& module,
                                                                 const OpSpec& op) {
  const config::InterfaceVocabulary v = module.Vocabulary();
  const bool quantize = op.op == TEPLUG_OP_QUANTIZE;
  std::vector<ExampleParam> params = {
      // The quantized side is the output of quantize and the input of dequantize.
      AlsoSets(FactParam(v, "dtype", "fp8_e4m3"), quantize ? "output_dtype" : "input_dtype"),
      // The high-precision side.
      quantize ? FactParam(v, "input_dtype", "bf16") : FactParam(v, "output_dtype", "bf16"),
      FactParam(v, "scaling_mode", "per_tensor"),
      IntegerParam("rows", "rows", 1024, 1, int64_t{1} << 40),
      IntegerParam("cols", "columns", 1024, 1, int64_t{1} << 40),
  };
  if (quantize) {
    params.push_back(
        NameParam("recipe", "per-tensor scale recipe", "current", {"current", "delayed"}));
    params.push_back(SwitchParam("columnwise", "also write the column-wise copy"));
    params.push_back(FactParam(v, "mx_scale_rule", "ocp"));
  }
  return params;
}

void BuildQuantizerExample(const OpSpec& op, const ExampleValues& v, ExampleOp* e) {
  const int64_t rows = v.Integer("rows"), cols = v.Integer("cols");
  TeplugTensor* low = e->NewTensor(DTypeValue(v, "dtype"), {rows, cols});
  low->quant = e->NewQuantization(ScalingModeValue(v, "scaling_mode"), rows, cols);
  if (op.op == TEPLUG_OP_QUANTIZE) {
    auto* q = e->NewStruct<TeplugQuantizeArgs>();
    q->input = e->NewTensor(DTypeValue(v, "input_dtype"), {rows, cols});
    q->output = low;
    q->recipe = v.Name("recipe") == "delayed" ? TEPLUG_RECIPE_DELAYED : TEPLUG_RECIPE_CURRENT;
    q->rowwise = 1;
    q->columnwise = v.Switch("columnwise");
    sdk::ParseMxScaleRule(v.Name("mx_scale_rule"), &q->mx_scale_rule);
    e->args = q;
  } else {
    auto* q = e->NewStruct<TeplugDequantizeArgs>();
    q->input = low;
    q->output = e->NewTensor(DTypeValue(v, "output_dtype"), {rows, cols});
    e->args = q;
  }
}

}  // namespace teplug::core
