// INorm/1 in the core: the field tables of the forward and backward args,
// everything derived from them, the capability descriptor, and the
// dispatching object.
#include "core/ops/norm.h"

#include <cstddef>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "core/kernel/dispatch_objects.h"
#include "core/ops/capability_reader.h"
#include "core/ops/table_check.h"
#include "core/ops/table_describe.h"
#include "core/ops/table_key.h"
#include "teplug/quantizer.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"

namespace teplug::core {
namespace {

using Fwd = TeplugNormFwdArgs;
using Bwd = TeplugNormBwdArgs;
using Caps = TeplugNormCaps;

// Norm shapes are the op's size (rows, hidden): every tensor's shape is keyed.
constexpr uint32_t kInput = kRequired | kDeviceFrom | kKeyShape;
constexpr Field NormType(size_t offset) {
  return ScalarField("norm_type", FieldRole::kInt32, offset)
      .Enum(TEPLUG_NORM_TYPE_COUNT_, &sdk::NormTypeName, "TeplugNormType")
      .Fact("norm_type", "layernorm or rmsnorm");
}
constexpr Field kForwardFields[] = {
    NormType(offsetof(Fwd, norm_type)),
    ScalarField("zero_centered_gamma", FieldRole::kInt32, offsetof(Fwd, zero_centered_gamma))
        .Selected(),
    PerCallField("epsilon", offsetof(Fwd, epsilon)),
    TensorField("x", offsetof(Fwd, x), kInput)
        .Fact("dtype", "x's element type")
        .DTypes(offsetof(Caps, input_dtypes)),
    TensorField("gamma", offsetof(Fwd, gamma), kRequired | kKeyShape)
        .DTypes(offsetof(Caps, weight_dtypes)),
    TensorField("beta", offsetof(Fwd, beta), kKeyShape).DTypes(offsetof(Caps, weight_dtypes)),
    TensorField("y", offsetof(Fwd, y), kRequired | kKeyShape)
        .Fact("output_dtype", "y's element type (fp8: quantized output)")
        .DTypes(offsetof(Caps, output_dtypes))
        .Scaling(offsetof(Caps, scaling_modes)),
    TensorField("mu", offsetof(Fwd, mu), kKeyShape),
    TensorField("rsigma", offsetof(Fwd, rsigma), kKeyShape),
    WorkspaceField(offsetof(Fwd, workspace)),
    PerCallField("stream", offsetof(Fwd, stream)),
    ScalarField("mx_scale_rule", FieldRole::kInt32, offsetof(Fwd, mx_scale_rule))
        .Since(TEPLUG_STRUCT_SIZE(Fwd, mx_scale_rule))
        .Enum(TEPLUG_MX_SCALE_COUNT_, &sdk::MxScaleRuleName, "TeplugMxScaleRule")
        .Fact("mx_scale_rule",
              "how an MXFP8 y's block scales are chosen (forward; other outputs ignore it)"),
};
constexpr Field kBackwardFields[] = {
    NormType(offsetof(Bwd, norm_type)),
    ScalarField("zero_centered_gamma", FieldRole::kInt32, offsetof(Bwd, zero_centered_gamma)).Selected(),
    TensorField("dy", offsetof(Bwd, dy), kInput).DTypes(offsetof(Caps, input_dtypes)),
    TensorField("x", offsetof(Bwd, x), kInput).Fact("dtype", "x's element type").DTypes(offsetof(Caps, input_dtypes)),
    TensorField("mu", offsetof(Bwd, mu), kKeyShape),
    TensorField("rsigma", offsetof(Bwd, rsigma), kRequired | kKeyShape),
    TensorField("gamma", offsetof(Bwd, gamma), kRequired | kKeyShape).DTypes(offsetof(Caps, weight_dtypes)),
    TensorField("dx", offsetof(Bwd, dx), kRequired | kKeyShape).DTypes(offsetof(Caps, input_dtypes)),
    TensorField("dgamma", offsetof(Bwd, dgamma), kRequired | kKeyShape).DTypes(offsetof(Caps, weight_dtypes)),
    TensorField("dbeta", offsetof(Bwd, dbeta), kKeyShape).DTypes(offsetof(Caps, weight_dtypes)),
    WorkspaceField(offsetof(Bwd, workspace)),
    PerCallField("stream", offsetof(Bwd, stream)),
};
constexpr size_t kFwdV1 = TEPLUG_STRUCT_SIZE(Fwd, stream);
constexpr size_t kBwdV1 = TEPLUG_STRUCT_SIZE(Bwd, stream);

// Whether a forward asks for TransformerEngine's rule for an MXFP8 y
// (mx_scale_rule, v1.3: OCP from a struct without it).
bool WantsTeMxScales(const Fwd& a) {
  return TEPLUG_FIELD_OR(a, Fwd, mx_scale_rule, TEPLUG_MX_SCALE_OCP) ==
             TEPLUG_MX_SCALE_TRANSFORMER_ENGINE &&
         a.y->quant != nullptr && a.y->quant->mode == TEPLUG_SCALING_MXFP8_1D32;
}
bool WantsTeMxScales(const Bwd&) { return false; }

// The hidden size: the last axis of x (1 for a rank-0 x).
int64_t HiddenOf(const TeplugTensor& x) { return x.rank > 0 ? x.shape[x.rank - 1] : 1; }

template <class Args, size_t kArgsV1>
absl::StatusOr<OpDescription> Describe(const InterfaceModule& module, const OpSpec& spec, const void* raw,
                                       const DeviceSpelling& spelling) {
  OpDescription d;
  absl::Status s = DescribeFromTable(module, spec, kArgsV1, raw, spelling, &d);
  if (!s.ok()) return s;
  const Args& a = *static_cast<const Args*>(raw);
  const int64_t hidden = HiddenOf(*a.x);
  d.facts.AddInteger("hidden_size", hidden);
  FinishDescription(absl::StrCat(sdk::NormTypeName(a.norm_type), " ", ShapeText(a.x), " hidden=",
                                 hidden, a.zero_centered_gamma ? " zero_centered_gamma" : "",
                                 WantsTeMxScales(a) ? " transformer_engine scale rule" : ""),
                    spelling, &d);
  return d;
}

template <class Args, const auto& kFields, bool kBackward>
std::optional<Refusal> Check(const Capability& cap, const OpDescription& op) {
  const Caps& c = cap.As<Caps>();
  const Args& a = *static_cast<const Args*>(op.args);
  if (!(c.norm_types & TEPLUG_NORM_TYPE_BIT(a.norm_type))) {
    return NamedRefusal("norm type", a.norm_type, c.norm_types, &sdk::NormTypeName, TEPLUG_NORM_TYPE_COUNT_);
  }
  if (kBackward && !(c.features & TEPLUG_NORM_CAP_BACKWARD)) return FixedRefusal("backward not supported");
  if (a.zero_centered_gamma && !(c.features & TEPLUG_NORM_CAP_ZERO_CENTERED_GAMMA)) {
    return FixedRefusal("zero-centered gamma not supported");
  }
  if (auto r = CheckTensorsFromTable<kFields>(&c, op.args)) return r;
  if (WantsTeMxScales(a) && !(c.features & TEPLUG_NORM_CAP_MX_TE_SCALE)) {
    return FixedRefusal("TransformerEngine's MXFP8 scale rule not supported");
  }
  const int64_t hidden = HiddenOf(*a.x);
  if (c.hidden_min > 0 && hidden < c.hidden_min) return ValueRefusal(Refusal::Kind::kBelow, "hidden size", hidden, c.hidden_min);
  if (c.hidden_max > 0 && hidden > c.hidden_max) return ValueRefusal(Refusal::Kind::kAbove, "hidden size", hidden, c.hidden_max);
  if (c.hidden_multiple > 1 && hidden % c.hidden_multiple != 0) {
    return ValueRefusal(Refusal::Kind::kNotMultiple, "hidden size", hidden, c.hidden_multiple);
  }
  return std::nullopt;
}

absl::Status Validate(const Caps& c) {
  const char* s = "TeplugNormCaps";
  constexpr uint64_t kFeatures =
      TEPLUG_NORM_CAP_BACKWARD | TEPLUG_NORM_CAP_ZERO_CENTERED_GAMMA | TEPLUG_NORM_CAP_MX_TE_SCALE;
  for (absl::Status st : {CheckDtypes(s, "input_dtypes", c.input_dtypes, true),
                          CheckDtypes(s, "weight_dtypes", c.weight_dtypes, true),
                          CheckDtypes(s, "output_dtypes", c.output_dtypes, true),
                          CheckBits(s, "norm_types", c.norm_types, MaskBelow(TEPLUG_NORM_TYPE_COUNT_), true),
                          CheckBits(s, "scaling_modes", c.scaling_modes, MaskBelow(TEPLUG_SCALING_COUNT_), false),
                          CheckBits(s, "features", c.features, kFeatures, false),
                          CheckNonNegative(s, "hidden_min", c.hidden_min),
                          CheckNonNegative(s, "hidden_max", c.hidden_max),
                          CheckNonNegative(s, "hidden_multiple", c.hidden_multiple)}) {
    if (!st.ok()) return st;
  }
  if (c.hidden_max > 0 && c.hidden_min > c.hidden_max) {
    return absl::InvalidArgumentError(absl::StrCat(s, ".hidden_min ", c.hidden_min, " > hidden_max ", c.hidden_max));
  }
  return absl::OkStatus();
}

constexpr int64_t kKeyTag = 0x6e6f726d00000000;  // "norm"
constexpr OpSpec kForwardOp{TEPLUG_NORM_OP_FORWARD,
                            "forward",
                            "TeplugNormFwdArgs",
                            kForwardFields,
                            &Describe<Fwd, kFwdV1>,
                            &BuildKeyFromTable<kForwardFields, kKeyTag | TEPLUG_NORM_OP_FORWARD, kFwdV1>,
                            &Check<Fwd, kForwardFields, false>};
constexpr OpSpec kBackwardOp{TEPLUG_NORM_OP_BACKWARD,
                             "backward",
                             "TeplugNormBwdArgs",
                             kBackwardFields,
                             &Describe<Bwd, kBwdV1>,
                             &BuildKeyFromTable<kBackwardFields, kKeyTag | TEPLUG_NORM_OP_BACKWARD, kBwdV1>,
                             &Check<Bwd, kBackwardFields, true>};
constexpr const OpSpec* kOps[] = {&kForwardOp, &kBackwardOp};

using Object = TeplugNormV1;
using Vtbl = TeplugNormV1Vtbl;
const Vtbl kDispatchTable = {dispatch::Base(sizeof(Vtbl)), &dispatch::Supports,
                             &dispatch::WorkspaceOfOp<Object, &Vtbl::workspace_size>,
                             &dispatch::Op<Object, Fwd, &Vtbl::forward, kForwardOp>,
                             &dispatch::Op<Object, Bwd, &Vtbl::backward, kBackwardOp>};

// The TEPLUG_NORM_CAP_* bits of TeplugNormCaps.features, by bit.
constexpr const char* kFeatureCapNames[] = {"backward", "zero_centered_gamma", "mx_te_scale"};
constexpr CapsField kNormCapsFields[] = {
    DTypesCapsField("input_dtypes", offsetof(Caps, input_dtypes)),
    DTypesCapsField("weight_dtypes", offsetof(Caps, weight_dtypes)),
    DTypesCapsField("output_dtypes", offsetof(Caps, output_dtypes)),
    BitsCapsField("norm_types", offsetof(Caps, norm_types), TEPLUG_NORM_TYPE_COUNT_, &sdk::NormTypeName),
    BitsCapsField("scaling_modes", offsetof(Caps, scaling_modes), TEPLUG_SCALING_COUNT_, &sdk::ScalingName),
    BitsCapsField("features", offsetof(Caps, features), std::size(kFeatureCapNames), &NameIn<kFeatureCapNames>),
    ReservedCapsField("reserved0", offsetof(Caps, reserved0)),
    LimitCapsField("hidden_min", offsetof(Caps, hidden_min), "no bound"),
    LimitCapsField("hidden_max", offsetof(Caps, hidden_max), "unbounded"),
    LimitCapsField("hidden_multiple", offsetof(Caps, hidden_multiple), "any"),
};
static_assert(CoversDescriptor<Caps>(kNormCapsFields), "kNormCapsFields must name every field of TeplugNormCaps");

class Norm final : public InterfaceModule {
 public:
  const char* name() const override { return "norm"; }
  const char* display_name() const override { return "INorm/1"; }
  const TeplugIID& iid() const override { return sdk::kIidNormV1; }
  absl::Span<const OpSpec* const> ops() const override { return kOps; }
  absl::StatusOr<Capability> ReadCapability(const void* raw) const override {
    return ReadCaps<Caps>(*this, "TeplugNormCaps", raw, TEPLUG_STRUCT_SIZE(Caps, hidden_multiple), Validate);
  }
  std::string SummarizeCapability(const Capability& cap) const override {
    const Caps& c = cap.As<Caps>();
    std::string out = absl::StrCat(NameSet(c.norm_types, TEPLUG_NORM_TYPE_COUNT_, &sdk::NormTypeName), "; x ",
                                   DTypeSet(c.input_dtypes), " -> y ", DTypeSet(c.output_dtypes));
    if (c.features & TEPLUG_NORM_CAP_BACKWARD) absl::StrAppend(&out, "; backward");
    if (c.features & TEPLUG_NORM_CAP_ZERO_CENTERED_GAMMA) absl::StrAppend(&out, "; zero-centered gamma");
    return out;
  }
  absl::Span<const CapsField> CapabilityFieldTable() const override { return kNormCapsFields; }
  std::optional<std::string> CheckTable(const TeplugObject* object) const override {
    return CheckFunctionTable("TeplugNormV1Vtbl", object, TEPLUG_STRUCT_SIZE(Vtbl, backward),
                              {{"workspace_size", offsetof(Vtbl, workspace_size)},
                               {"forward", offsetof(Vtbl, forward)},
                               {"backward", offsetof(Vtbl, backward)}});
  }
  TeplugSupportsFn SupportsHook(const TeplugObject* object) const override {
    return reinterpret_cast<const Vtbl*>(object->vtbl)->supports;
  }
  const void* DispatchTable() const override { return &kDispatchTable; }
  absl::StatusOr<std::vector<ExampleParam>> ExampleParams(const OpSpec& op) const override {
    return NormExampleParams(*this, op);
  }
  void BuildExample(const OpSpec& op, const ExampleValues& values, ExampleOp* out) const override {
    BuildNormExample(op, values, out);
  }

 protected:
  void AddDerivedFacts(config::InterfaceVocabulary* v) const override {
    AddIntegerFact(v, "hidden_size", "the normalized size: x's last axis");
  }
};

}  // namespace

const InterfaceModule& NormModule() {
  static const Norm kModule;
  return kModule;
}

}  // namespace teplug::core
