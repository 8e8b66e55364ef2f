#include "core/select/capability_check.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/boundary/plugin_call.h"
#include "core/log/untrusted_text.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {
namespace {

using Reason = std::optional<Refusal>;
using Kind = Refusal::Kind;

Refusal Fixed(const char* message) {
  Refusal r;
  r.kind = Kind::kFixed;
  r.what = message;
  return r;
}
Refusal Values(Kind kind, const char* what, int64_t value, int64_t limit = 0, uint64_t mask = 0,
               int64_t value2 = 0) {
  Refusal r;
  r.kind = kind;
  r.what = what;
  r.value = value;
  r.value2 = value2;
  r.limit = limit;
  r.mask = mask;
  return r;
}

// "{a, b, c}" for the bits set in `mask`, built in one string (rejections
// are formatted on the selection path, so no temporary vector of names).
template <class NameFn>
std::string SetOf(uint64_t mask, int count, NameFn name) {
  std::string out;
  out.reserve(160);
  out += "{";
  for (int i = 0; i < count; ++i) {
    if (mask & (uint64_t{1} << i)) {
      if (out.size() > 1) out += ", ";
      out += name(i);
    }
  }
  out += "}";
  return out;
}

std::string DTypes(uint64_t mask) {
  return SetOf(mask, TEPLUG_DTYPE_COUNT_, [](int d) { return sdk::DTypeName(d); });
}

Reason CheckDType(const char* what, int32_t dtype, uint64_t allowed) {
  if (dtype >= 0 && dtype < 64 && (allowed & TEPLUG_DTYPE_BIT(dtype))) return std::nullopt;
  return Values(Kind::kDType, what, dtype, 0, allowed);
}

std::string DeviceSupportLabel(const TeplugDeviceSupport& s) {
  std::string out = sdk::DeviceKindName(s.kind);
  std::string vendor = VendorName(s.vendor_id);
  if (!vendor.empty()) absl::StrAppend(&out, " ", vendor);
  if (s.arch_min != 0 || s.arch_max != 0) {
    absl::StrAppend(&out, " arch ", s.arch_min != 0 ? absl::StrCat(s.arch_min) : "", "..",
                    s.arch_max != 0 ? absl::StrCat(s.arch_max) : "");
  }
  return out;
}

// The bytes of `n` elements of `dtype`, or nullopt when that does not fit in
// an int64_t (a caller's stride can be any value).
std::optional<int64_t> ElemBytesTimes(int32_t dtype, int64_t n) {
  int64_t bits = 0;
  if (__builtin_mul_overflow(n, int64_t{sdk::DTypeBits(dtype)}, &bits)) return std::nullopt;
  return bits / 8;
}

Reason CheckAlignment(const char* what, const TeplugTensor* t, int64_t alignment) {
  if (t == nullptr || alignment <= 1) return std::nullopt;
  auto addr = reinterpret_cast<uintptr_t>(t->data);
  if (addr % static_cast<uintptr_t>(alignment) != 0) return Values(Kind::kMisaligned, what, 0, alignment);
  const int64_t ld = t->rank == 2 ? (t->strides[0] != 0 ? t->strides[0] : t->shape[1]) : 0;
  const std::optional<int64_t> ld_bytes = ElemBytesTimes(t->dtype, ld);
  if (!ld_bytes.has_value() || *ld_bytes % alignment != 0) {
    // A leading dimension too large to count in bytes is refused too (its
    // byte count is shown saturated).
    return Values(Kind::kLeadingDim, what, ld, alignment, 0, ld_bytes.value_or(INT64_MAX));
  }
  return std::nullopt;
}

Reason CheckScaling(const char* what, const TeplugTensor* t, uint32_t modes) {
  if (t == nullptr || t->quant == nullptr || t->quant->mode == TEPLUG_SCALING_NONE) return std::nullopt;
  if (t->quant->mode >= 0 && t->quant->mode < 32 && (modes & TEPLUG_SCALING_BIT(t->quant->mode))) {
    return std::nullopt;
  }
  return Values(Kind::kScaling, what, t->quant->mode, 0, modes);
}

Reason CheckGemm(const TeplugGemmCaps& c, const TeplugGemmArgs& a) {
  for (auto [what, t, allowed] : {std::tuple{"A", a.a, c.a_dtypes}, {"B", a.b, c.b_dtypes},
                                  {"D", static_cast<const TeplugTensor*>(a.d), c.d_dtypes}}) {
    if (Reason r = CheckDType(what, t->dtype, allowed)) return r;
  }
  if (a.bias != nullptr && !(c.epilogues & TEPLUG_GEMM_CAP_BIAS)) return Fixed("bias epilogue not supported");
  if (a.epilogue == TEPLUG_EPILOGUE_GELU && !(c.epilogues & TEPLUG_GEMM_CAP_GELU)) {
    return Fixed("GELU epilogue not supported");
  }
  if (a.epilogue != TEPLUG_EPILOGUE_NONE && a.epilogue != TEPLUG_EPILOGUE_GELU) {
    return Values(Kind::kEpilogue, "epilogue", a.epilogue);
  }
  if (a.pre_gelu_out != nullptr && !(c.epilogues & TEPLUG_GEMM_CAP_GELU_AUX)) {
    return Fixed("pre_gelu_out (GELU aux output) not supported");
  }
  if (a.accumulate && !(c.epilogues & TEPLUG_GEMM_CAP_ACCUMULATE)) {
    return Fixed("accumulate into D not supported");
  }
  for (auto [what, t] : {std::pair{"A", a.a}, {"B", a.b}, {"D", static_cast<const TeplugTensor*>(a.d)}}) {
    if (Reason r = CheckScaling(what, t, c.scaling_modes)) return r;
  }
  for (auto [what, t] : {std::pair{"A", a.a}, {"B", a.b}, {"C", a.c}, {"D", static_cast<const TeplugTensor*>(a.d)}}) {
    if (Reason r = CheckAlignment(what, t, c.alignment)) return r;
  }
  if (c.max_dim > 0) {
    const int64_t m = a.trans_a ? a.a->shape[1] : a.a->shape[0];
    const int64_t k = a.trans_a ? a.a->shape[0] : a.a->shape[1];
    const int64_t n = a.trans_b ? a.b->shape[0] : a.b->shape[1];
    for (auto [what, v] : {std::pair{"M", m}, {"N", n}, {"K", k}}) {
      if (v > c.max_dim) return Values(Kind::kAbove, what, v, c.max_dim);
    }
  }
  return std::nullopt;
}

Reason CheckAttentionParams(const TeplugAttentionCaps& c, const TeplugAttentionParams& p, bool backward) {
  if (!(c.layouts & TEPLUG_LAYOUT_BIT(p.layout))) {
    return Values(Kind::kLayout, "layout", p.layout, 0, c.layouts);
  }
  if (!(c.mask_types & TEPLUG_MASK_BIT(p.mask_type))) {
    return Values(Kind::kMask, "mask", p.mask_type, 0, c.mask_types);
  }
  if (!(c.bias_types & TEPLUG_BIAS_BIT(p.bias_type))) {
    return Values(Kind::kBias, "bias", p.bias_type, 0, c.bias_types);
  }
  for (auto [what, d] : {std::pair{"head_dim_qk", p.head_dim_qk}, {"head_dim_v", p.head_dim_v}}) {
    if (c.head_dim_min > 0 && d < c.head_dim_min) return Values(Kind::kBelow, what, d, c.head_dim_min);
    if (c.head_dim_max > 0 && d > c.head_dim_max) return Values(Kind::kAbove, what, d, c.head_dim_max);
    if (c.head_dim_multiple > 1 && d % c.head_dim_multiple != 0) {
      return Values(Kind::kNotMultiple, what, d, c.head_dim_multiple);
    }
  }
  if (p.head_dim_qk != p.head_dim_v && !(c.features & TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS)) {
    return Values(Kind::kHeadDims, "head_dim", p.head_dim_qk, 0, 0, p.head_dim_v);
  }
  if (c.max_seqlen_q > 0 && p.max_seqlen_q > c.max_seqlen_q) {
    return Values(Kind::kAbove, "max_seqlen_q", p.max_seqlen_q, c.max_seqlen_q);
  }
  if (c.max_seqlen_kv > 0 && p.max_seqlen_kv > c.max_seqlen_kv) {
    return Values(Kind::kAbove, "max_seqlen_kv", p.max_seqlen_kv, c.max_seqlen_kv);
  }
  if (p.is_training && p.dropout > 0 && !(c.features & TEPLUG_ATTN_CAP_DROPOUT)) {
    Refusal r = Values(Kind::kDropout, "dropout", 0);
    r.real = p.dropout;
    return r;
  }
  const bool causal = p.mask_type == TEPLUG_MASK_CAUSAL || p.mask_type == TEPLUG_MASK_PADDING_CAUSAL ||
                      p.mask_type == TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT ||
                      p.mask_type == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
  const bool window = p.window_left >= 0 || (p.window_right >= 0 && !(causal && p.window_right == 0));
  if (window && !(c.features & TEPLUG_ATTN_CAP_SLIDING_WINDOW)) {
    return Values(Kind::kWindow, "sliding window", p.window_left, 0, 0, p.window_right);
  }
  if (p.num_heads_q != p.num_heads_kv && !(c.features & TEPLUG_ATTN_CAP_GQA)) {
    return Values(Kind::kGqa, "grouped-query attention", p.num_heads_q, 0, 0, p.num_heads_kv);
  }
  if (p.deterministic && !(c.features & TEPLUG_ATTN_CAP_DETERMINISTIC)) {
    return Fixed("deterministic execution not supported");
  }
  if (backward && !(c.features & TEPLUG_ATTN_CAP_BACKWARD)) return Fixed("backward not supported");
  return std::nullopt;
}

Reason CheckAttention(const TeplugAttentionCaps& c, const OpDescription& op) {
  if (op.op == TEPLUG_OP_ATTENTION_FORWARD) {
    const auto& a = *static_cast<const TeplugAttentionFwdArgs*>(op.args);
    for (auto [what, t] : {std::pair{"q", a.q}, {"k", a.k}, {"v", a.v}}) {
      if (Reason r = CheckDType(what, t->dtype, c.qkv_dtypes)) return r;
    }
    return CheckAttentionParams(c, *a.params, false);
  }
  const auto& a = *static_cast<const TeplugAttentionBwdArgs*>(op.args);
  for (auto [what, t] : {std::pair{"q", a.q}, {"k", a.k}, {"v", a.v}}) {
    if (Reason r = CheckDType(what, t->dtype, c.qkv_dtypes)) return r;
  }
  return CheckAttentionParams(c, *a.params, true);
}

Reason CheckQuantizer(const TeplugQuantizerCaps& c, const OpDescription& op) {
  if (op.op == TEPLUG_OP_QUANTIZE) {
    const auto& a = *static_cast<const TeplugQuantizeArgs*>(op.args);
    if (Reason r = CheckDType("input", a.input->dtype, c.input_dtypes)) return r;
    if (Reason r = CheckDType("output", a.output->dtype, c.output_dtypes)) return r;
    if (Reason r = CheckScaling("output", a.output, c.scaling_modes)) return r;
    if (a.columnwise && !(c.features & TEPLUG_QUANT_CAP_COLUMNWISE)) {
      return Fixed("columnwise output not supported");
    }
    if (a.output->quant->mode == TEPLUG_SCALING_PER_TENSOR) {
      if (a.recipe == TEPLUG_RECIPE_CURRENT && !(c.features & TEPLUG_QUANT_CAP_CURRENT_SCALING)) {
        return Fixed("current scaling not supported");
      }
      if (a.recipe == TEPLUG_RECIPE_DELAYED && !(c.features & TEPLUG_QUANT_CAP_DELAYED_SCALING)) {
        return Fixed("delayed scaling not supported");
      }
    }
    return std::nullopt;
  }
  const auto& a = *static_cast<const TeplugDequantizeArgs*>(op.args);
  if (!(c.features & TEPLUG_QUANT_CAP_DEQUANTIZE)) return Fixed("dequantize not supported");
  if (Reason r = CheckDType("input", a.input->dtype, c.output_dtypes)) return r;
  if (Reason r = CheckDType("output", a.output->dtype, c.input_dtypes)) return r;
  return CheckScaling("input", a.input, c.scaling_modes);
}

Reason CheckCollective(const TeplugCollectiveCaps& c, const OpDescription& op) {
  if (op.op == kOpCommCreate) {
    if (c.max_world_size > 0 && op.world_size > c.max_world_size) {
      return Values(Kind::kAbove, "world size", op.world_size, c.max_world_size);
    }
    return std::nullopt;
  }
  if (!(c.ops & TEPLUG_OP_BIT(op.op))) return Values(Kind::kCollectiveOp, "collective", op.op);
  const auto& a = *static_cast<const TeplugCollectiveArgs*>(op.args);
  for (auto [what, t] : {std::pair{"send", a.send}, {"recv", static_cast<const TeplugTensor*>(a.recv)}}) {
    if (t != nullptr) {
      if (Reason r = CheckDType(what, t->dtype, c.dtypes)) return r;
    }
  }
  if ((op.op == TEPLUG_OP_ALL_REDUCE || op.op == TEPLUG_OP_REDUCE_SCATTER) &&
      !(a.reduce_op >= 0 && a.reduce_op < 32 && (c.reductions & TEPLUG_REDUCE_BIT(a.reduce_op)))) {
    return Values(Kind::kReduction, "reduction", a.reduce_op, 0, c.reductions);
  }
  return std::nullopt;
}

}  // namespace

std::optional<Refusal> CheckDevice(const std::vector<TeplugDeviceSupport>& devices, const TeplugDevice& device) {
  for (const TeplugDeviceSupport& s : devices) {
    if (s.kind != TEPLUG_DEVICE_ANY && s.kind != device.kind) continue;
    if (s.vendor_id != TEPLUG_VENDOR_ANY && s.vendor_id != device.vendor_id) continue;
    if (s.arch_min != 0 && device.arch < s.arch_min) continue;
    if (s.arch_max != 0 && device.arch > s.arch_max) continue;
    return std::nullopt;
  }
  Refusal r;
  r.kind = Kind::kDevice;
  r.what = "device";
  r.device = device;
  return r;
}

std::optional<Refusal> CheckCapability(const Capability& cap, const OpDescription& op) {
  if (Reason r = CheckDevice(cap.devices, op.device)) return r;
  return CheckOpCapability(cap, op);
}

std::optional<Refusal> CheckOpCapability(const Capability& cap, const OpDescription& op) {
  switch (cap.kind) {
    case InterfaceKind::kGemm: return CheckGemm(cap.gemm(), *static_cast<const TeplugGemmArgs*>(op.args));
    case InterfaceKind::kAttention: return CheckAttention(cap.attention(), op);
    case InterfaceKind::kQuantizer: return CheckQuantizer(cap.quantizer(), op);
    case InterfaceKind::kCollective: return CheckCollective(cap.collective(), op);
  }
  return Fixed("unknown interface");
}

std::string FormatRefusal(const Refusal& r, const std::vector<TeplugDeviceSupport>& devices) {
  const int32_t v = static_cast<int32_t>(r.value);
  switch (r.kind) {
    case Kind::kFixed: return r.what;
    case Kind::kDType: return absl::StrCat(r.what, " dtype ", sdk::DTypeName(v), " not in ", DTypes(r.mask));
    case Kind::kScaling:
      return absl::StrCat(r.what, " scaling mode ", sdk::ScalingName(v), " not in ",
                          SetOf(r.mask, TEPLUG_SCALING_COUNT_, [](int m) { return sdk::ScalingName(m); }));
    case Kind::kLayout:
      return absl::StrCat("layout ", sdk::LayoutName(v), " not in ",
                          SetOf(r.mask, TEPLUG_LAYOUT_COUNT_, [](int l) { return sdk::LayoutName(l); }));
    case Kind::kMask:
      return absl::StrCat("mask ", sdk::MaskName(v), " not in ",
                          SetOf(r.mask, TEPLUG_MASK_COUNT_, [](int m) { return sdk::MaskName(m); }));
    case Kind::kBias:
      return absl::StrCat("bias ", sdk::BiasName(v), " not in ",
                          SetOf(r.mask, TEPLUG_BIAS_COUNT_, [](int b) { return sdk::BiasName(b); }));
    case Kind::kReduction:
      return absl::StrCat("reduction ", sdk::ReduceName(v), " not in ",
                          SetOf(r.mask, TEPLUG_REDUCE_COUNT_, [](int x) { return sdk::ReduceName(x); }));
    case Kind::kAbove: return absl::StrCat(r.what, " ", r.value, " > max ", r.limit);
    case Kind::kBelow: return absl::StrCat(r.what, " ", r.value, " < min ", r.limit);
    case Kind::kNotMultiple: return absl::StrCat(r.what, " ", r.value, " not a multiple of ", r.limit);
    case Kind::kEpilogue: return absl::StrCat("epilogue ", r.value, " unknown");
    case Kind::kMisaligned: return absl::StrCat(r.what, " data pointer not aligned to ", r.limit, " bytes");
    case Kind::kLeadingDim:
      return absl::StrCat(r.what, " leading dimension ", r.value, " (", r.value2, " bytes) not a multiple of ",
                          r.limit, " bytes");
    case Kind::kHeadDims:
      return absl::StrCat("head_dim_qk ", r.value, " != head_dim_v ", r.value2, " not supported");
    case Kind::kDropout: return absl::StrCat("dropout ", r.real, " not supported");
    case Kind::kWindow: return absl::StrCat("sliding window (", r.value, ", ", r.value2, ") not supported");
    case Kind::kGqa:
      return absl::StrCat("grouped-query attention (hq ", r.value, " != hkv ", r.value2, ") not supported");
    case Kind::kCollectiveOp: return absl::StrCat("collective ", sdk::OpName(v), " not supported");
    case Kind::kDevice: {
      std::string accepted;
      for (const TeplugDeviceSupport& s : devices) {
        absl::StrAppend(&accepted, accepted.empty() ? "" : ", ", DeviceSupportLabel(s));
      }
      return absl::StrCat("device ", DeviceLabel(r.device), " not in {", accepted, "}");
    }
  }
  return "refused";
}

std::optional<std::string> AskSupports(const Implementation& impl, int32_t op, const void* args, bool* threw) {
  if (impl.supports == nullptr) return std::nullopt;
  char reason[256] = {0};
  TeplugBool yes = 0;
  std::string exception;
  if (!GuardPluginCall({impl.QualifiedName(), "supports"},
                       [&] { yes = impl.supports(impl.object.get(), op, args, reason, sizeof reason); }, &exception)) {
    if (threw != nullptr) *threw = true;
    return exception;
  }
  if (yes) return std::nullopt;
  reason[sizeof reason - 1] = '\0';  // a plugin may fill the whole buffer
  if (reason[0] == '\0') return std::string("declined by supports() without a reason");
  // Plugin text: it reaches decision records, callers' errors and logs.
  return EscapeUntrustedText(reason);
}

std::string SummarizeCapability(const Capability& cap) {
  std::vector<std::string> devices;
  for (const TeplugDeviceSupport& s : cap.devices) devices.push_back(DeviceSupportLabel(s));
  std::string out = absl::StrCat("devices {", absl::StrJoin(devices, ", "), "}");
  switch (cap.kind) {
    case InterfaceKind::kGemm: {
      const auto& c = cap.gemm();
      absl::StrAppend(&out, "; A ", DTypes(c.a_dtypes), " B ", DTypes(c.b_dtypes), " D ", DTypes(c.d_dtypes));
      if (c.epilogues & TEPLUG_GEMM_CAP_BIAS) absl::StrAppend(&out, "; bias");
      if (c.epilogues & TEPLUG_GEMM_CAP_GELU) absl::StrAppend(&out, "; gelu");
      if (c.alignment > 1) absl::StrAppend(&out, "; align ", c.alignment);
      break;
    }
    case InterfaceKind::kAttention: {
      const auto& c = cap.attention();
      absl::StrAppend(&out, "; qkv ", DTypes(c.qkv_dtypes), "; ", __builtin_popcount(c.layouts), "/15 layouts; ",
                      __builtin_popcount(c.mask_types), "/6 masks; head_dim ",
                      c.head_dim_min > 0 ? absl::StrCat(c.head_dim_min) : "1", "..",
                      c.head_dim_max > 0 ? absl::StrCat(c.head_dim_max) : "any");
      if (c.features & TEPLUG_ATTN_CAP_BACKWARD) absl::StrAppend(&out, "; backward");
      if (c.features & TEPLUG_ATTN_CAP_DROPOUT) absl::StrAppend(&out, "; dropout");
      break;
    }
    case InterfaceKind::kQuantizer: {
      const auto& c = cap.quantizer();
      absl::StrAppend(&out, "; ", DTypes(c.input_dtypes), " -> ", DTypes(c.output_dtypes), "; modes ",
                      SetOf(c.scaling_modes, TEPLUG_SCALING_COUNT_, [](int m) { return sdk::ScalingName(m); }));
      break;
    }
    case InterfaceKind::kCollective: {
      const auto& c = cap.collective();
      absl::StrAppend(&out, "; ", __builtin_popcount(c.ops), " ops; dtypes ", DTypes(c.dtypes));
      if (c.max_world_size > 0) absl::StrAppend(&out, "; world <= ", c.max_world_size);
      break;
    }
  }
  return out;
}

}  // namespace teplug::core
