// IAttention/1 in the core: the field tables of the forward and backward
// args (sharing TeplugAttentionParams), everything derived from them, the
// capability descriptor, and the dispatching object.
#include "core/ops/attention.h"

#include <algorithm>
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

using Fwd = TeplugAttentionFwdArgs;
using Bwd = TeplugAttentionBwdArgs;
using Params = TeplugAttentionParams;
using Caps = TeplugAttentionCaps;

constexpr size_t kParamsAt = offsetof(Fwd, params);
static_assert(offsetof(Bwd, params) == kParamsAt, "both args structs hold params at the same offset");
constexpr size_t kParamsV1 = TEPLUG_STRUCT_SIZE(Params, reserved0);

constexpr Field P(Field f) { return f.Via(kParamsAt); }

// Every parameter but the per-call ones (softmax_scale, the RNG seed and
// offset, the cu_seqlens and ALiBi data) is keyed; attention shapes follow
// from the parameters and layout (THD token counts vary per batch), so only
// the biases' broadcast shapes are.
#define TEPLUG_ATTENTION_PARAMS_FIELDS                                                                          \
  StructField("params", kParamsAt, "TeplugAttentionParams", kParamsV1),                                         \
      P(ScalarField("layout", FieldRole::kInt32, offsetof(Params, layout))                                      \
            .Enum(TEPLUG_LAYOUT_COUNT_, &sdk::LayoutName, "TeplugQkvLayout")                                    \
            .Fact("layout", "QKV layout; a format (sbhd, bshd, thd) stands for its layouts")),                                                                                   \
      P(ScalarField("mask_type", FieldRole::kInt32, offsetof(Params, mask_type))                                \
            .Enum(TEPLUG_MASK_COUNT_, &sdk::MaskName, "TeplugMaskType")                                         \
            .Fact("mask_type", "attention mask type")),                                                                                \
      P(ScalarField("bias_type", FieldRole::kInt32, offsetof(Params, bias_type))                                \
            .Enum(TEPLUG_BIAS_COUNT_, &sdk::BiasName, "TeplugBiasType")                                         \
            .Fact("bias_type", "attention bias type")),                                                                                \
      P(ScalarField("is_training", FieldRole::kInt32, offsetof(Params, is_training)).Selected()),               \
      P(ScalarField("batch", FieldRole::kInt64, offsetof(Params, batch))),                                      \
      P(ScalarField("num_heads_q", FieldRole::kInt64, offsetof(Params, num_heads_q)).Selected()),               \
      P(ScalarField("num_heads_kv", FieldRole::kInt64, offsetof(Params, num_heads_kv)).Selected()),             \
      P(ScalarField("head_dim_qk", FieldRole::kInt64, offsetof(Params, head_dim_qk)).Selected()),               \
      P(ScalarField("head_dim_v", FieldRole::kInt64, offsetof(Params, head_dim_v)).Selected()),                 \
      P(ScalarField("max_seqlen_q", FieldRole::kInt64, offsetof(Params, max_seqlen_q)).Selected()),             \
      P(ScalarField("max_seqlen_kv", FieldRole::kInt64, offsetof(Params, max_seqlen_kv)).Selected()),           \
      P(ScalarField("window_left", FieldRole::kInt64, offsetof(Params, window_left)).Selected()),               \
      P(ScalarField("window_right", FieldRole::kInt64, offsetof(Params, window_right)).Selected()),             \
      P(PerCallField("softmax_scale", offsetof(Params, softmax_scale))),                                        \
      P(ScalarField("dropout", FieldRole::kFloat, offsetof(Params, dropout)).Selected()),                       \
      P(PerCallField("rng_seed", offsetof(Params, rng_seed))),                                                  \
      P(PerCallField("rng_offset", offsetof(Params, rng_offset))),                                              \
      P(TensorField("cu_seqlens_q", offsetof(Params, cu_seqlens_q), kKeyPresence)),                             \
      P(TensorField("cu_seqlens_kv", offsetof(Params, cu_seqlens_kv), kKeyPresence)),                           \
      P(TensorField("alibi_slopes", offsetof(Params, alibi_slopes), kKeyPresence)),                             \
      P(ScalarField("deterministic", FieldRole::kInt32, offsetof(Params, deterministic)).Selected())

constexpr uint32_t kInput = kRequired | kDeviceFrom;
constexpr Field kForwardFields[] = {
    TEPLUG_ATTENTION_PARAMS_FIELDS,
    TensorField("q", offsetof(Fwd, q), kInput).DTypes(offsetof(Caps, qkv_dtypes)),
    TensorField("k", offsetof(Fwd, k), kInput).DTypes(offsetof(Caps, qkv_dtypes)),
    TensorField("v", offsetof(Fwd, v), kInput).DTypes(offsetof(Caps, qkv_dtypes)),
    TensorField("bias", offsetof(Fwd, bias), kKeyShape),
    TensorField("o", offsetof(Fwd, o), kInput),
    TensorField("softmax_lse", offsetof(Fwd, softmax_lse)),
    PresenceField("s_quant", offsetof(Fwd, s_quant)),
    WorkspaceField(offsetof(Fwd, workspace)),
    PerCallField("stream", offsetof(Fwd, stream)),
};
constexpr Field kBackwardFields[] = {
    TEPLUG_ATTENTION_PARAMS_FIELDS,
    TensorField("q", offsetof(Bwd, q), kInput).DTypes(offsetof(Caps, qkv_dtypes)),
    TensorField("k", offsetof(Bwd, k), kInput).DTypes(offsetof(Caps, qkv_dtypes)),
    TensorField("v", offsetof(Bwd, v), kInput).DTypes(offsetof(Caps, qkv_dtypes)),
    TensorField("o", offsetof(Bwd, o), kRequired),
    TensorField("d_o", offsetof(Bwd, d_o), kInput),
    TensorField("softmax_lse", offsetof(Bwd, softmax_lse), kRequired),
    TensorField("bias", offsetof(Bwd, bias), kKeyShape),
    TensorField("dq", offsetof(Bwd, dq), kRequired),
    TensorField("dk", offsetof(Bwd, dk), kRequired),
    TensorField("dv", offsetof(Bwd, dv), kRequired),
    TensorField("dbias", offsetof(Bwd, dbias), kKeyShape),
    PresenceField("s_quant", offsetof(Bwd, s_quant)),
    PresenceField("dp_quant", offsetof(Bwd, dp_quant)),
    WorkspaceField(offsetof(Bwd, workspace)),
    PerCallField("stream", offsetof(Bwd, stream)),
};
#undef TEPLUG_ATTENTION_PARAMS_FIELDS

const Params& ParamsOf(const void* args) { return **reinterpret_cast<const Params* const*>(static_cast<const char*>(args) + kParamsAt); }
const TeplugTensor& QOf(const void* args) { return *static_cast<const Fwd*>(args)->q; }  // q is at the same offset in both
static_assert(offsetof(Fwd, q) == offsetof(Bwd, q), "q at the same offset in both args structs");

int64_t Clamp(int64_t v) { return std::min<int64_t>(v, INT32_MAX); }

template <size_t kArgsV1>
absl::StatusOr<OpDescription> Describe(const InterfaceModule& module, const OpSpec& spec, const void* raw,
                                       const DeviceSpelling& spelling) {
  OpDescription d;
  absl::Status s = DescribeFromTable(module, spec, kArgsV1, raw, spelling, &d);
  if (!s.ok()) return s;
  const Params& p = ParamsOf(raw);
  const char* dtype = sdk::DTypeName(QOf(raw).dtype);
  d.facts.AddName("dtype", dtype);
  d.facts.AddInteger("head_dim", Clamp(std::max(p.head_dim_qk, p.head_dim_v)));
  d.facts.AddInteger("seq_len", Clamp(std::max(p.max_seqlen_q, p.max_seqlen_kv)));
  std::string text = absl::StrCat(dtype, " ", sdk::LayoutName(p.layout), " b=", p.batch,
                                  " hq=", p.num_heads_q, " hkv=", p.num_heads_kv, " d=", p.head_dim_qk, "/",
                                  p.head_dim_v, " sq=", p.max_seqlen_q, " skv=", p.max_seqlen_kv,
                                  " mask=", sdk::MaskName(p.mask_type));
  if (p.bias_type != TEPLUG_BIAS_NONE) absl::StrAppend(&text, " bias=", sdk::BiasName(p.bias_type));
  if (p.is_training && p.dropout > 0) absl::StrAppend(&text, " dropout=", p.dropout);
  if (p.window_left >= 0 || p.window_right >= 0) {
    absl::StrAppend(&text, " window=(", p.window_left, ",", p.window_right, ")");
  }
  if (p.deterministic) absl::StrAppend(&text, " deterministic");
  FinishDescription(text, spelling, &d);
  return d;
}

Refusal Custom(const char* what, int64_t value, int64_t value2, std::string (*format)(const Refusal&)) {
  Refusal r = ValueRefusal(Refusal::Kind::kCustom, what, value);
  r.value2 = value2;
  r.format = format;
  return r;
}

// The head-dimension bound `dim` breaks (kBelow, kAbove, kNotMultiple),
// with that bound in *bound, or kFixed when it breaks none. Checked for
// every candidate, so it builds no refusal and keeps no array of dims.
Refusal::Kind HeadDimBound(const Caps& c, int64_t dim, int64_t* bound) {
  if (c.head_dim_min > 0 && dim < c.head_dim_min) {
    *bound = c.head_dim_min;
    return Refusal::Kind::kBelow;
  }
  if (c.head_dim_max > 0 && dim > c.head_dim_max) {
    *bound = c.head_dim_max;
    return Refusal::Kind::kAbove;
  }
  if (c.head_dim_multiple > 1 && dim % c.head_dim_multiple != 0) {
    *bound = c.head_dim_multiple;
    return Refusal::Kind::kNotMultiple;
  }
  return Refusal::Kind::kFixed;
}

// kBackward is known per op, so each op's check is compiled with its answer
// (it runs for every candidate).
template <bool kBackward>
std::optional<Refusal> CheckParams(const Caps& c, const Params& p) {
  if (!(c.layouts & TEPLUG_LAYOUT_BIT(p.layout))) {
    return NamedRefusal("layout", p.layout, c.layouts, &sdk::LayoutName, TEPLUG_LAYOUT_COUNT_);
  }
  if (!(c.mask_types & TEPLUG_MASK_BIT(p.mask_type))) {
    return NamedRefusal("mask", p.mask_type, c.mask_types, &sdk::MaskName, TEPLUG_MASK_COUNT_);
  }
  if (!(c.bias_types & TEPLUG_BIAS_BIT(p.bias_type))) {
    return NamedRefusal("bias", p.bias_type, c.bias_types, &sdk::BiasName, TEPLUG_BIAS_COUNT_);
  }
  int64_t bound = 0;
  if (Refusal::Kind k = HeadDimBound(c, p.head_dim_qk, &bound); k != Refusal::Kind::kFixed) {
    return ValueRefusal(k, "head_dim_qk", p.head_dim_qk, bound);
  }
  if (Refusal::Kind k = HeadDimBound(c, p.head_dim_v, &bound); k != Refusal::Kind::kFixed) {
    return ValueRefusal(k, "head_dim_v", p.head_dim_v, bound);
  }
  if (p.head_dim_qk != p.head_dim_v && !(c.features & TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS)) {
    return Custom("head_dim", p.head_dim_qk, p.head_dim_v, [](const Refusal& r) {
      return absl::StrCat("head_dim_qk ", r.value, " != head_dim_v ", r.value2, " not supported");
    });
  }
  if (c.max_seqlen_q > 0 && p.max_seqlen_q > c.max_seqlen_q) {
    return ValueRefusal(Refusal::Kind::kAbove, "max_seqlen_q", p.max_seqlen_q, c.max_seqlen_q);
  }
  if (c.max_seqlen_kv > 0 && p.max_seqlen_kv > c.max_seqlen_kv) {
    return ValueRefusal(Refusal::Kind::kAbove, "max_seqlen_kv", p.max_seqlen_kv, c.max_seqlen_kv);
  }
  if (p.is_training && p.dropout > 0 && !(c.features & TEPLUG_ATTN_CAP_DROPOUT)) {
    Refusal r = Custom("dropout", 0, 0, [](const Refusal& x) { return absl::StrCat("dropout ", x.real, " not supported"); });
    r.real = p.dropout;
    return r;
  }
  const bool causal = p.mask_type == TEPLUG_MASK_CAUSAL || p.mask_type == TEPLUG_MASK_PADDING_CAUSAL ||
                      p.mask_type == TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT ||
                      p.mask_type == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
  const bool window = p.window_left >= 0 || (p.window_right >= 0 && !(causal && p.window_right == 0));
  if (window && !(c.features & TEPLUG_ATTN_CAP_SLIDING_WINDOW)) {
    return Custom("sliding window", p.window_left, p.window_right, [](const Refusal& r) {
      return absl::StrCat("sliding window (", r.value, ", ", r.value2, ") not supported");
    });
  }
  if (p.num_heads_q != p.num_heads_kv && !(c.features & TEPLUG_ATTN_CAP_GQA)) {
    return Custom("grouped-query attention", p.num_heads_q, p.num_heads_kv, [](const Refusal& r) {
      return absl::StrCat("grouped-query attention (hq ", r.value, " != hkv ", r.value2, ") not supported");
    });
  }
  if (p.deterministic && !(c.features & TEPLUG_ATTN_CAP_DETERMINISTIC)) {
    return FixedRefusal("deterministic execution not supported");
  }
  if (kBackward && !(c.features & TEPLUG_ATTN_CAP_BACKWARD)) return FixedRefusal("backward not supported");
  return std::nullopt;
}

template <const auto& kFields, bool kBackward>
std::optional<Refusal> Check(const Capability& cap, const OpDescription& op) {
  const Caps& c = cap.As<Caps>();
  if (auto r = CheckTensorsFromTable<kFields>(&c, op.args)) return r;
  return CheckParams<kBackward>(c, ParamsOf(op.args));
}

absl::Status Validate(const Caps& c) {
  const char* s = "TeplugAttentionCaps";
  constexpr uint64_t kFeatures = TEPLUG_ATTN_CAP_DROPOUT | TEPLUG_ATTN_CAP_SLIDING_WINDOW | TEPLUG_ATTN_CAP_GQA |
                                 TEPLUG_ATTN_CAP_DETERMINISTIC | TEPLUG_ATTN_CAP_BACKWARD |
                                 TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS;
  for (absl::Status st : {CheckDtypes(s, "qkv_dtypes", c.qkv_dtypes, true),
                          CheckBits(s, "layouts", c.layouts, MaskBelow(TEPLUG_LAYOUT_COUNT_), true),
                          CheckBits(s, "mask_types", c.mask_types, MaskBelow(TEPLUG_MASK_COUNT_), true),
                          CheckBits(s, "bias_types", c.bias_types, MaskBelow(TEPLUG_BIAS_COUNT_), true),
                          CheckBits(s, "features", c.features, kFeatures, false),
                          CheckNonNegative(s, "head_dim_min", c.head_dim_min),
                          CheckNonNegative(s, "head_dim_max", c.head_dim_max),
                          CheckNonNegative(s, "head_dim_multiple", c.head_dim_multiple),
                          CheckNonNegative(s, "max_seqlen_q", c.max_seqlen_q),
                          CheckNonNegative(s, "max_seqlen_kv", c.max_seqlen_kv)}) {
    if (!st.ok()) return st;
  }
  if (c.head_dim_max > 0 && c.head_dim_min > c.head_dim_max) {
    return absl::InvalidArgumentError(
        absl::StrCat(s, ".head_dim_min ", c.head_dim_min, " > head_dim_max ", c.head_dim_max));
  }
  return absl::OkStatus();
}

constexpr size_t kFwdV1 = TEPLUG_STRUCT_SIZE(Fwd, stream);
constexpr size_t kBwdV1 = TEPLUG_STRUCT_SIZE(Bwd, stream);
constexpr int64_t kKeyTag = 0x6174746e00000000;  // "attn"
constexpr OpSpec kForwardOp{TEPLUG_OP_ATTENTION_FORWARD,
                            "forward",
                            "TeplugAttentionFwdArgs",
                            kForwardFields,
                            &Describe<kFwdV1>,
                            &BuildKeyFromTable<kForwardFields, kKeyTag | TEPLUG_OP_ATTENTION_FORWARD, kFwdV1>,
                            &Check<kForwardFields, false>};
constexpr OpSpec kBackwardOp{TEPLUG_OP_ATTENTION_BACKWARD,
                             "backward",
                             "TeplugAttentionBwdArgs",
                             kBackwardFields,
                             &Describe<kBwdV1>,
                             &BuildKeyFromTable<kBackwardFields, kKeyTag | TEPLUG_OP_ATTENTION_BACKWARD, kBwdV1>,
                             &Check<kBackwardFields, true>};
constexpr const OpSpec* kOps[] = {&kForwardOp, &kBackwardOp};

using Object = TeplugAttentionV1;
using Vtbl = TeplugAttentionV1Vtbl;
const Vtbl kDispatchTable = {dispatch::Base(sizeof(Vtbl)), &dispatch::Supports,
                             &dispatch::WorkspaceOfOp<Object, &Vtbl::workspace_size>,
                             &dispatch::Op<Object, Fwd, &Vtbl::forward, kForwardOp>,
                             &dispatch::Op<Object, Bwd, &Vtbl::backward, kBackwardOp>};

// The TEPLUG_ATTN_CAP_* bits of TeplugAttentionCaps.features, by bit.
constexpr const char* kFeatureCapNames[] = {"dropout",       "sliding_window", "gqa",
                                            "deterministic", "backward",       "different_head_dims"};
constexpr CapsField kAttentionCapsFields[] = {
    DTypesCapsField("qkv_dtypes", offsetof(Caps, qkv_dtypes)),
    BitsCapsField("layouts", offsetof(Caps, layouts), TEPLUG_LAYOUT_COUNT_, &sdk::LayoutName),
    BitsCapsField("mask_types", offsetof(Caps, mask_types), TEPLUG_MASK_COUNT_, &sdk::MaskName),
    BitsCapsField("bias_types", offsetof(Caps, bias_types), TEPLUG_BIAS_COUNT_, &sdk::BiasName),
    BitsCapsField("features", offsetof(Caps, features), std::size(kFeatureCapNames), &NameIn<kFeatureCapNames>),
    LimitCapsField("head_dim_min", offsetof(Caps, head_dim_min), "no bound"),
    LimitCapsField("head_dim_max", offsetof(Caps, head_dim_max), "unbounded"),
    LimitCapsField("head_dim_multiple", offsetof(Caps, head_dim_multiple), "any"),
    LimitCapsField("max_seqlen_q", offsetof(Caps, max_seqlen_q), "unbounded"),
    LimitCapsField("max_seqlen_kv", offsetof(Caps, max_seqlen_kv), "unbounded"),
};
static_assert(CoversDescriptor<Caps>(kAttentionCapsFields),
              "kAttentionCapsFields must name every field of TeplugAttentionCaps");

class Attention final : public InterfaceModule {
 public:
  const char* name() const override { return "attention"; }
  const char* display_name() const override { return "IAttention/1"; }
  const TeplugIID& iid() const override { return sdk::kIidAttentionV1; }
  absl::Span<const OpSpec* const> ops() const override { return kOps; }
  absl::StatusOr<Capability> ReadCapability(const void* raw) const override {
    return ReadCaps<Caps>(*this, "TeplugAttentionCaps", raw, TEPLUG_STRUCT_SIZE(Caps, max_seqlen_kv), Validate);
  }
  std::string SummarizeCapability(const Capability& cap) const override {
    const Caps& c = cap.As<Caps>();
    std::string out = absl::StrCat("qkv ", DTypeSet(c.qkv_dtypes), "; ", __builtin_popcount(c.layouts), "/",
                                   TEPLUG_LAYOUT_COUNT_, " layouts; ", __builtin_popcount(c.mask_types), "/",
                                   TEPLUG_MASK_COUNT_, " masks; head_dim ",
                                   c.head_dim_min > 0 ? absl::StrCat(c.head_dim_min) : "1", "..",
                                   c.head_dim_max > 0 ? absl::StrCat(c.head_dim_max) : "any");
    if (c.features & TEPLUG_ATTN_CAP_BACKWARD) absl::StrAppend(&out, "; backward");
    if (c.features & TEPLUG_ATTN_CAP_DROPOUT) absl::StrAppend(&out, "; dropout");
    return out;
  }
  absl::Span<const CapsField> CapabilityFieldTable() const override { return kAttentionCapsFields; }
  std::optional<std::string> CheckTable(const TeplugObject* object) const override {
    return CheckFunctionTable("TeplugAttentionV1Vtbl", object, TEPLUG_STRUCT_SIZE(Vtbl, backward),
                              {{"workspace_size", offsetof(Vtbl, workspace_size)},
                               {"forward", offsetof(Vtbl, forward)},
                               {"backward", offsetof(Vtbl, backward)}});
  }
  TeplugSupportsFn SupportsHook(const TeplugObject* object) const override {
    return reinterpret_cast<const Vtbl*>(object->vtbl)->supports;
  }
  const void* DispatchTable() const override { return &kDispatchTable; }
  absl::StatusOr<std::vector<ExampleParam>> ExampleParams(const OpSpec& op) const override {
    return AttentionExampleParams(*this, op);
  }
  void BuildExample(const OpSpec& op, const ExampleValues& values, ExampleOp* out) const override {
    BuildAttentionExample(op, values, out);
  }

 protected:
  void AddDerivedFacts(config::InterfaceVocabulary* v) const override {
    AddDTypeFact(v, "dtype", "Q's element type");
    AddIntegerFact(v, "head_dim", "the larger of the Q/K and V head dimensions");
    AddIntegerFact(v, "seq_len", "the larger of the maximum Q and KV sequence lengths");
    // A layout format (sbhd, bshd, thd) stands for every layout of that format.
    for (config::FactSpec& f : v->facts) {
      if (f.name != "layout") continue;
      for (int32_t l = 0; l < TEPLUG_LAYOUT_COUNT_; ++l) {
        const std::string layout = sdk::LayoutName(l);
        const std::string format = sdk::LayoutFormat(l);
        auto group = std::find_if(f.groups.begin(), f.groups.end(), [&](const auto& g) { return g.first == format; });
        if (group == f.groups.end()) f.groups.push_back({format, {layout}});
        else group->second.push_back(layout);
      }
    }
  }
};

}  // namespace

const InterfaceModule& AttentionModule() {
  static const Attention kModule;
  return kModule;
}

}  // namespace teplug::core
