// IQuantizer/1 in the core: the field tables of quantize and dequantize,
// everything derived from them, the capability descriptor, and the
// dispatching object.
#include "core/ops/quantizer.h"

#include <cstddef>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "core/kernel/dispatch_objects.h"
#include "core/ops/capability_reader.h"
#include "core/ops/table_check.h"
#include "core/ops/table_describe.h"
#include "core/ops/table_key.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"

namespace teplug::core {
namespace {

using Quantize = TeplugQuantizeArgs;
using Dequantize = TeplugDequantizeArgs;
using Caps = TeplugQuantizerCaps;

constexpr uint32_t kTensor = kRequired | kDeviceFrom | kKeyShape;
constexpr Field kQuantizeFields[] = {
    TensorField("input", offsetof(Quantize, input), kTensor)
        .Fact("input_dtype", "the input's element type")
        .DTypes(offsetof(Caps, input_dtypes)),
    TensorField("output", offsetof(Quantize, output), kTensor)
        .Fact("output_dtype", "the output's element type")
        .DTypes(offsetof(Caps, output_dtypes))
        .Scaling(offsetof(Caps, scaling_modes)),
    ScalarField("recipe", FieldRole::kInt32, offsetof(Quantize, recipe)).Selected(),
    ScalarField("amax_epsilon", FieldRole::kFloat, offsetof(Quantize, amax_epsilon)),
    ScalarField("force_pow2_scales", FieldRole::kInt32, offsetof(Quantize, force_pow2_scales)),
    ScalarField("rowwise", FieldRole::kInt32, offsetof(Quantize, rowwise)),
    ScalarField("columnwise", FieldRole::kInt32, offsetof(Quantize, columnwise)).Selected(),
    PerCallField("stream", offsetof(Quantize, stream)),
    ScalarField("mx_scale_rule", FieldRole::kInt32, offsetof(Quantize, mx_scale_rule))
        .Since(TEPLUG_STRUCT_SIZE(Quantize, mx_scale_rule))
        .Enum(TEPLUG_MX_SCALE_COUNT_, &sdk::MxScaleRuleName, "TeplugMxScaleRule")
        .Fact("mx_scale_rule",
              "how MXFP8 block scales are chosen (quantize; other modes ignore it)"),
};
// Dequantize reads the quantized side as input: its dtype against
// output_dtypes, the high-precision output against input_dtypes.
constexpr Field kDequantizeFields[] = {
    TensorField("input", offsetof(Dequantize, input), kTensor)
        .Fact("input_dtype", "the input's element type")
        .DTypes(offsetof(Caps, output_dtypes))
        .Scaling(offsetof(Caps, scaling_modes)),
    TensorField("output", offsetof(Dequantize, output), kTensor).Fact("output_dtype", "the output's element type").DTypes(offsetof(Caps, input_dtypes)),
    PerCallField("stream", offsetof(Dequantize, stream)),
};
constexpr size_t kQuantizeV1 = TEPLUG_STRUCT_SIZE(Quantize, stream);
constexpr size_t kDequantizeV1 = TEPLUG_STRUCT_SIZE(Dequantize, stream);

int32_t ModeOf(const TeplugTensor* t) { return t->quant != nullptr ? t->quant->mode : TEPLUG_SCALING_NONE; }

// mx_scale_rule (v1.3): OCP from a struct without it.
int32_t MxScaleRuleOf(const Quantize& a) {
  return TEPLUG_FIELD_OR(a, Quantize, mx_scale_rule, TEPLUG_MX_SCALE_OCP);
}

absl::StatusOr<OpDescription> DescribeQuantize(const InterfaceModule& module, const OpSpec& spec, const void* raw,
                                               const DeviceSpelling& spelling) {
  OpDescription d;
  absl::Status s = DescribeFromTable(module, spec, kQuantizeV1, raw, spelling, &d);
  if (!s.ok()) return s;
  const auto& a = *static_cast<const Quantize*>(raw);
  if (a.output->quant == nullptr) {
    return absl::InvalidArgumentError(
        "TeplugQuantizeArgs.output.quant is NULL (the scaling mode and scale tensors are required)");
  }
  d.facts.AddName("dtype", sdk::DTypeName(a.output->dtype));
  d.facts.AddName("scaling_mode", sdk::ScalingName(a.output->quant->mode));
  FinishDescription(absl::StrCat(ShapeText(a.input), " -> ", ShapeText(a.output), " ",
                                 sdk::ScalingName(a.output->quant->mode),
                                 a.output->quant->mode == TEPLUG_SCALING_PER_TENSOR
                                     ? (a.recipe == TEPLUG_RECIPE_CURRENT ? " current" : " delayed")
                                     : "",
                                 a.output->quant->mode == TEPLUG_SCALING_MXFP8_1D32 &&
                                         MxScaleRuleOf(a) == TEPLUG_MX_SCALE_TRANSFORMER_ENGINE
                                     ? " transformer_engine scale rule"
                                     : "",
                                 a.rowwise ? " rowwise" : "", a.columnwise ? " columnwise" : ""),
                    spelling, &d);
  return d;
}

absl::StatusOr<OpDescription> DescribeDequantize(const InterfaceModule& module, const OpSpec& spec,
                                                 const void* raw,
                                                 const DeviceSpelling& spelling) {
  OpDescription d;
  absl::Status s = DescribeFromTable(module, spec, kDequantizeV1, raw, spelling, &d);
  if (!s.ok()) return s;
  const auto& a = *static_cast<const Dequantize*>(raw);
  d.facts.AddName("dtype", sdk::DTypeName(a.input->dtype));
  d.facts.AddName("scaling_mode", sdk::ScalingName(ModeOf(a.input)));
  FinishDescription(absl::StrCat(ShapeText(a.input), " ", sdk::ScalingName(ModeOf(a.input)), " -> ",
                                 ShapeText(a.output)),
                    spelling, &d);
  return d;
}

std::optional<Refusal> CheckQuantize(const Capability& cap, const OpDescription& op) {
  const Caps& c = cap.As<Caps>();
  const auto& a = *static_cast<const Quantize*>(op.args);
  if (auto r = CheckTensorsFromTable<kQuantizeFields>(&c, &a)) return r;
  if (a.columnwise && !(c.features & TEPLUG_QUANT_CAP_COLUMNWISE)) return FixedRefusal("columnwise output not supported");
  if (a.output->quant->mode == TEPLUG_SCALING_MXFP8_1D32 &&
      MxScaleRuleOf(a) == TEPLUG_MX_SCALE_TRANSFORMER_ENGINE &&
      !(c.features & TEPLUG_QUANT_CAP_MX_TE_SCALE)) {
    return FixedRefusal("TransformerEngine's MXFP8 scale rule not supported");
  }
  if (a.output->quant->mode == TEPLUG_SCALING_PER_TENSOR) {
    if (a.recipe == TEPLUG_RECIPE_CURRENT && !(c.features & TEPLUG_QUANT_CAP_CURRENT_SCALING)) {
      return FixedRefusal("current scaling not supported");
    }
    if (a.recipe == TEPLUG_RECIPE_DELAYED && !(c.features & TEPLUG_QUANT_CAP_DELAYED_SCALING)) {
      return FixedRefusal("delayed scaling not supported");
    }
  }
  return std::nullopt;
}

std::optional<Refusal> CheckDequantize(const Capability& cap, const OpDescription& op) {
  const Caps& c = cap.As<Caps>();
  if (!(c.features & TEPLUG_QUANT_CAP_DEQUANTIZE)) return FixedRefusal("dequantize not supported");
  return CheckTensorsFromTable<kDequantizeFields>(&c, op.args);
}

absl::Status Validate(const Caps& c) {
  const char* s = "TeplugQuantizerCaps";
  constexpr uint64_t kFeatures = TEPLUG_QUANT_CAP_COLUMNWISE | TEPLUG_QUANT_CAP_DEQUANTIZE |
                                 TEPLUG_QUANT_CAP_CURRENT_SCALING |
                                 TEPLUG_QUANT_CAP_DELAYED_SCALING | TEPLUG_QUANT_CAP_MX_TE_SCALE;
  for (absl::Status st : {CheckDtypes(s, "input_dtypes", c.input_dtypes, true),
                          CheckDtypes(s, "output_dtypes", c.output_dtypes, true),
                          CheckBits(s, "scaling_modes", c.scaling_modes, MaskBelow(TEPLUG_SCALING_COUNT_), true),
                          CheckBits(s, "features", c.features, kFeatures, false)}) {
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

constexpr int64_t kKeyTag = 0x7175616e00000000;  // "quan"
constexpr OpSpec kQuantizeOp{TEPLUG_OP_QUANTIZE,
                             "quantize",
                             "TeplugQuantizeArgs",
                             kQuantizeFields,
                             &DescribeQuantize,
                             &BuildKeyFromTable<kQuantizeFields, kKeyTag | TEPLUG_OP_QUANTIZE, kQuantizeV1>,
                             &CheckQuantize};
constexpr OpSpec kDequantizeOp{TEPLUG_OP_DEQUANTIZE,
                               "dequantize",
                               "TeplugDequantizeArgs",
                               kDequantizeFields,
                               &DescribeDequantize,
                               &BuildKeyFromTable<kDequantizeFields, kKeyTag | TEPLUG_OP_DEQUANTIZE, kDequantizeV1>,
                               &CheckDequantize};
constexpr const OpSpec* kOps[] = {&kQuantizeOp, &kDequantizeOp};

using Object = TeplugQuantizerV1;
using Vtbl = TeplugQuantizerV1Vtbl;
const Vtbl kDispatchTable = {dispatch::Base(sizeof(Vtbl)), &dispatch::Supports,
                             &dispatch::Op<Object, Quantize, &Vtbl::quantize, kQuantizeOp>,
                             &dispatch::Op<Object, Dequantize, &Vtbl::dequantize, kDequantizeOp>};

// The TEPLUG_QUANT_CAP_* bits of TeplugQuantizerCaps.features, by bit.
constexpr const char* kFeatureCapNames[] = {"columnwise", "dequantize", "current_scaling",
                                            "delayed_scaling", "mx_te_scale"};
constexpr CapsField kQuantizerCapsFields[] = {
    DTypesCapsField("input_dtypes", offsetof(Caps, input_dtypes)),
    DTypesCapsField("output_dtypes", offsetof(Caps, output_dtypes)),
    BitsCapsField("scaling_modes", offsetof(Caps, scaling_modes), TEPLUG_SCALING_COUNT_, &sdk::ScalingName),
    BitsCapsField("features", offsetof(Caps, features), std::size(kFeatureCapNames), &NameIn<kFeatureCapNames>),
};
static_assert(CoversDescriptor<Caps>(kQuantizerCapsFields),
              "kQuantizerCapsFields must name every field of TeplugQuantizerCaps");

class Quantizer final : public InterfaceModule {
 public:
  const char* name() const override { return "quantizer"; }
  const char* display_name() const override { return "IQuantizer/1"; }
  const TeplugIID& iid() const override { return sdk::kIidQuantizerV1; }
  absl::Span<const OpSpec* const> ops() const override { return kOps; }
  absl::StatusOr<Capability> ReadCapability(const void* raw) const override {
    return ReadCaps<Caps>(*this, "TeplugQuantizerCaps", raw, TEPLUG_STRUCT_SIZE(Caps, features), Validate);
  }
  std::string SummarizeCapability(const Capability& cap) const override {
    const Caps& c = cap.As<Caps>();
    return absl::StrCat(DTypeSet(c.input_dtypes), " -> ", DTypeSet(c.output_dtypes), "; modes ",
                        NameSet(c.scaling_modes, TEPLUG_SCALING_COUNT_, &sdk::ScalingName));
  }
  absl::Span<const CapsField> CapabilityFieldTable() const override { return kQuantizerCapsFields; }
  std::optional<std::string> CheckTable(const TeplugObject* object) const override {
    return CheckFunctionTable("TeplugQuantizerV1Vtbl", object, TEPLUG_STRUCT_SIZE(Vtbl, dequantize),
                              {{"quantize", offsetof(Vtbl, quantize)}, {"dequantize", offsetof(Vtbl, dequantize)}});
  }
  TeplugSupportsFn SupportsHook(const TeplugObject* object) const override {
    return reinterpret_cast<const Vtbl*>(object->vtbl)->supports;
  }
  const void* DispatchTable() const override { return &kDispatchTable; }
  absl::StatusOr<std::vector<ExampleParam>> ExampleParams(const OpSpec& op) const override {
    return QuantizerExampleParams(*this, op);
  }
  void BuildExample(const OpSpec& op, const ExampleValues& values, ExampleOp* out) const override {
    BuildQuantizerExample(op, values, out);
  }

 protected:
  void AddDerivedFacts(config::InterfaceVocabulary* v) const override {
    AddDTypeFact(v, "dtype", "the quantized element type: the output's for quantize, the input's for dequantize");
    std::vector<std::string> modes;
    for (int32_t m = 0; m < TEPLUG_SCALING_COUNT_; ++m) modes.emplace_back(sdk::ScalingName(m));
    AddNameFact(v, "scaling_mode", "the quantized tensor's scaling mode", std::move(modes));
  }
};

}  // namespace

const InterfaceModule& QuantizerModule() {
  static const Quantizer kModule;
  return kModule;
}

}  // namespace teplug::core
