// IGemm/1 in the core: the field table of TeplugGemmArgs and everything
// derived from it, the capability descriptor, and the dispatching object.
#include "core/ops/gemm.h"

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

using Args = TeplugGemmArgs;
using Caps = TeplugGemmCaps;

// GEMM shapes are its parameters (M, N, K): every tensor's shape is keyed.
constexpr uint32_t kOperand = kKeyShape | kCheckAlign;
constexpr Field kGemmFields[] = {
    TensorField("a", offsetof(Args, a), kRequired | kDeviceFrom | kOperand)
        .Fact("a_dtype", "A's element type").Label("A").DTypes(offsetof(Caps, a_dtypes)).Scaling(offsetof(Caps, scaling_modes)),
    TensorField("b", offsetof(Args, b), kRequired | kDeviceFrom | kOperand)
        .Fact("b_dtype", "B's element type").Label("B").DTypes(offsetof(Caps, b_dtypes)).Scaling(offsetof(Caps, scaling_modes)),
    TensorField("c", offsetof(Args, c), kOperand).Fact("c_dtype", "C's element type (unknown when there is no C)").Label("C"),
    TensorField("d", offsetof(Args, d), kRequired | kDeviceFrom | kOperand)
        .Fact("d_dtype", "D's (the output's) element type").Label("D").DTypes(offsetof(Caps, d_dtypes)).Scaling(offsetof(Caps, scaling_modes)),
    TensorField("bias", offsetof(Args, bias), kKeyShape).Selected(),
    TensorField("pre_gelu_out", offsetof(Args, pre_gelu_out), kKeyShape).Selected(),
    ScalarField("trans_a", FieldRole::kInt32, offsetof(Args, trans_a)).Selected(),
    ScalarField("trans_b", FieldRole::kInt32, offsetof(Args, trans_b)).Selected(),
    PerCallField("alpha", offsetof(Args, alpha)),
    PerCallField("beta", offsetof(Args, beta)),
    ScalarField("epilogue", FieldRole::kInt32, offsetof(Args, epilogue)).Selected(),
    ScalarField("accumulate", FieldRole::kInt32, offsetof(Args, accumulate)).Selected(),
    ScalarField("use_split_accumulator", FieldRole::kInt32, offsetof(Args, use_split_accumulator)),
    WorkspaceField(offsetof(Args, workspace)),
    PerCallField("stream", offsetof(Args, stream)),
};
constexpr size_t kArgsV1 = TEPLUG_STRUCT_SIZE(Args, stream);

struct Dims {
  int64_t m, n, k;
};
Dims DimsOf(const Args& a) {
  return {a.trans_a ? a.a->shape[1] : a.a->shape[0], a.trans_b ? a.b->shape[0] : a.b->shape[1],
          a.trans_a ? a.a->shape[0] : a.a->shape[1]};
}

absl::StatusOr<OpDescription> Describe(const InterfaceModule& module, const OpSpec& spec, const void* raw,
                                       const DeviceSpelling& spelling) {
  OpDescription d;
  absl::Status s = DescribeFromTable(module, spec, kArgsV1, raw, spelling, &d);
  if (!s.ok()) return s;
  const auto& a = *static_cast<const Args*>(raw);
  if (a.a->rank != 2 || a.b->rank != 2 || a.d->rank != 2) {
    return absl::InvalidArgumentError(absl::StrCat("TeplugGemmArgs: a, b and d must be rank 2 (got ", a.a->rank,
                                                   ", ", a.b->rank, ", ", a.d->rank, ")"));
  }
  const Dims dims = DimsOf(a);
  d.facts.AddName("dtype", sdk::DTypeName(a.a->dtype));
  d.facts.AddInteger("m", dims.m);
  d.facts.AddInteger("n", dims.n);
  d.facts.AddInteger("k", dims.k);
  FinishDescription(
      absl::StrCat(ShapeText(a.a), a.trans_a ? "^T" : "", " x ", ShapeText(a.b), a.trans_b ? "^T" : "",
                   " -> ", ShapeText(a.d), " M=", dims.m, " N=", dims.n, " K=", dims.k, a.bias ? " +bias" : "",
                   a.epilogue == TEPLUG_EPILOGUE_GELU ? " gelu" : "", a.accumulate ? " accumulate" : ""),
      spelling, &d);
  return d;
}

std::optional<Refusal> Check(const Capability& cap, const OpDescription& op) {
  const Caps& c = cap.As<Caps>();
  const auto& a = *static_cast<const Args*>(op.args);
  if (auto r = CheckTensorsFromTable<kGemmFields>(&c, &a, c.alignment)) return r;
  if (a.bias != nullptr && !(c.epilogues & TEPLUG_GEMM_CAP_BIAS)) return FixedRefusal("bias epilogue not supported");
  if (a.epilogue == TEPLUG_EPILOGUE_GELU && !(c.epilogues & TEPLUG_GEMM_CAP_GELU)) {
    return FixedRefusal("GELU epilogue not supported");
  }
  if (a.epilogue != TEPLUG_EPILOGUE_NONE && a.epilogue != TEPLUG_EPILOGUE_GELU) {
    Refusal r = ValueRefusal(Refusal::Kind::kCustom, "epilogue", a.epilogue);
    r.format = [](const Refusal& x) { return absl::StrCat("epilogue ", x.value, " unknown"); };
    return r;
  }
  if (a.pre_gelu_out != nullptr && !(c.epilogues & TEPLUG_GEMM_CAP_GELU_AUX)) {
    return FixedRefusal("pre_gelu_out (GELU aux output) not supported");
  }
  if (a.accumulate && !(c.epilogues & TEPLUG_GEMM_CAP_ACCUMULATE)) {
    return FixedRefusal("accumulate into D not supported");
  }
  if (c.max_dim > 0) {
    const Dims dims = DimsOf(a);
    for (auto [what, v] : {std::pair{"M", dims.m}, {"N", dims.n}, {"K", dims.k}}) {
      if (v > c.max_dim) return ValueRefusal(Refusal::Kind::kAbove, what, v, c.max_dim);
    }
  }
  return std::nullopt;
}

// The largest TeplugGemmCaps.alignment served: the key tells pointer
// alignment classes apart only up to 256 bytes (table_key.h), so a larger
// requirement could be answered from the cache for a pointer it does not hold.
constexpr int64_t kMaxAlignment = 256;

absl::Status Validate(const Caps& c) {
  const char* s = "TeplugGemmCaps";
  for (absl::Status st : {CheckDtypes(s, "a_dtypes", c.a_dtypes, true), CheckDtypes(s, "b_dtypes", c.b_dtypes, true),
                          CheckDtypes(s, "d_dtypes", c.d_dtypes, true),
                          CheckBits(s, "epilogues", c.epilogues,
                                    TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU | TEPLUG_GEMM_CAP_GELU_AUX |
                                        TEPLUG_GEMM_CAP_ACCUMULATE,
                                    false),
                          CheckBits(s, "scaling_modes", c.scaling_modes, MaskBelow(TEPLUG_SCALING_COUNT_), false),
                          CheckNonNegative(s, "alignment", c.alignment), CheckNonNegative(s, "max_dim", c.max_dim)}) {
    if (!st.ok()) return st;
  }
  if (c.alignment > 1 && (c.alignment & (c.alignment - 1)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(s, ".alignment ", c.alignment, " is not a power of two"));
  }
  if (c.alignment > kMaxAlignment) {
    return absl::InvalidArgumentError(absl::StrCat(s, ".alignment ", c.alignment, " > ", kMaxAlignment,
                                                   ": the host tells pointer alignments apart only up to ",
                                                   kMaxAlignment, " bytes"));
  }
  return absl::OkStatus();
}

constexpr OpSpec kGemmOp{TEPLUG_OP_GEMM,
                         "gemm",
                         "TeplugGemmArgs",
                         kGemmFields,
                         &Describe,
                         &BuildKeyFromTable<kGemmFields, 0x67656d6d00000000 | TEPLUG_OP_GEMM, kArgsV1>,
                         &Check};
constexpr const OpSpec* kOps[] = {&kGemmOp};

const TeplugGemmV1Vtbl kDispatchTable = {
    dispatch::Base(sizeof(TeplugGemmV1Vtbl)), &dispatch::Supports,
    &dispatch::Workspace<TeplugGemmV1, Args, &TeplugGemmV1Vtbl::workspace_size, kGemmOp>,
    &dispatch::Op<TeplugGemmV1, Args, &TeplugGemmV1Vtbl::gemm, kGemmOp>};

// The TEPLUG_GEMM_CAP_* bits of TeplugGemmCaps.epilogues, by bit.
constexpr const char* kEpilogueCapNames[] = {"bias", "gelu", "gelu_aux", "accumulate"};
constexpr CapsField kGemmCapsFields[] = {
    DTypesCapsField("a_dtypes", offsetof(Caps, a_dtypes)),
    DTypesCapsField("b_dtypes", offsetof(Caps, b_dtypes)),
    DTypesCapsField("d_dtypes", offsetof(Caps, d_dtypes)),
    BitsCapsField("epilogues", offsetof(Caps, epilogues), std::size(kEpilogueCapNames), &NameIn<kEpilogueCapNames>),
    BitsCapsField("scaling_modes", offsetof(Caps, scaling_modes), TEPLUG_SCALING_COUNT_, &sdk::ScalingName),
    LimitCapsField("alignment", offsetof(Caps, alignment), "none"),
    LimitCapsField("max_dim", offsetof(Caps, max_dim), "unbounded"),
};
static_assert(CoversDescriptor<Caps>(kGemmCapsFields), "kGemmCapsFields must name every field of TeplugGemmCaps");

class Gemm final : public InterfaceModule {
 public:
  const char* name() const override { return "gemm"; }
  const char* display_name() const override { return "IGemm/1"; }
  const TeplugIID& iid() const override { return sdk::kIidGemmV1; }
  absl::Span<const OpSpec* const> ops() const override { return kOps; }
  absl::StatusOr<Capability> ReadCapability(const void* raw) const override {
    return ReadCaps<Caps>(*this, "TeplugGemmCaps", raw, TEPLUG_STRUCT_SIZE(Caps, max_dim), Validate);
  }
  std::string SummarizeCapability(const Capability& cap) const override {
    const Caps& c = cap.As<Caps>();
    std::string out =
        absl::StrCat("A ", DTypeSet(c.a_dtypes), " B ", DTypeSet(c.b_dtypes), " D ", DTypeSet(c.d_dtypes));
    if (c.epilogues & TEPLUG_GEMM_CAP_BIAS) absl::StrAppend(&out, "; bias");
    if (c.epilogues & TEPLUG_GEMM_CAP_GELU) absl::StrAppend(&out, "; gelu");
    if (c.alignment > 1) absl::StrAppend(&out, "; align ", c.alignment);
    return out;
  }
  absl::Span<const CapsField> CapabilityFieldTable() const override { return kGemmCapsFields; }
  std::optional<std::string> CheckTable(const TeplugObject* object) const override {
    using V = TeplugGemmV1Vtbl;
    return CheckFunctionTable("TeplugGemmV1Vtbl", object, TEPLUG_STRUCT_SIZE(V, gemm),
                              {{"workspace_size", offsetof(V, workspace_size)}, {"gemm", offsetof(V, gemm)}});
  }
  TeplugSupportsFn SupportsHook(const TeplugObject* object) const override {
    return reinterpret_cast<const TeplugGemmV1Vtbl*>(object->vtbl)->supports;
  }
  const void* DispatchTable() const override { return &kDispatchTable; }
  absl::StatusOr<std::vector<ExampleParam>> ExampleParams(const OpSpec& op) const override {
    return GemmExampleParams(*this, op);
  }
  void BuildExample(const OpSpec& op, const ExampleValues& values, ExampleOp* out) const override {
    BuildGemmExample(op, values, out);
  }

 protected:
  void AddDerivedFacts(config::InterfaceVocabulary* v) const override {
    AddDTypeFact(v, "dtype", "A's element type (the same as a_dtype)");
    AddIntegerFact(v, "m", "rows of op(A) and of D");
    AddIntegerFact(v, "n", "columns of op(B) and of D");
    AddIntegerFact(v, "k", "the reduced dimension: columns of op(A), rows of op(B)");
  }
};

}  // namespace

const InterfaceModule& GemmModule() {
  static const Gemm kModule;
  return kModule;
}

}  // namespace teplug::core
