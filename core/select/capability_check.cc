#include "core/select/capability_check.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {
namespace {

using Reason = std::optional<std::string>;

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
  return absl::StrCat(what, " dtype ", sdk::DTypeName(dtype), " not in ", DTypes(allowed));
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

int64_t ElemBytesTimes(int32_t dtype, int64_t n) { return n * sdk::DTypeBits(dtype) / 8; }

Reason CheckAlignment(const char* what, const TeplugTensor* t, int64_t alignment) {
  if (t == nullptr || alignment <= 1) return std::nullopt;
  auto addr = reinterpret_cast<uintptr_t>(t->data);
  if (addr % static_cast<uintptr_t>(alignment) != 0) {
    return absl::StrCat(what, " data pointer not aligned to ", alignment, " bytes");
  }
  const int64_t ld = t->rank == 2 ? (t->strides[0] != 0 ? t->strides[0] : t->shape[1]) : 0;
  if (ElemBytesTimes(t->dtype, ld) % alignment != 0) {
    return absl::StrCat(what, " leading dimension ", ld, " (", ElemBytesTimes(t->dtype, ld),
                        " bytes) not a multiple of ", alignment, " bytes");
  }
  return std::nullopt;
}

Reason CheckScaling(const char* what, const TeplugTensor* t, uint32_t modes) {
  if (t == nullptr || t->quant == nullptr || t->quant->mode == TEPLUG_SCALING_NONE) return std::nullopt;
  if (t->quant->mode >= 0 && t->quant->mode < 32 && (modes & TEPLUG_SCALING_BIT(t->quant->mode))) {
    return std::nullopt;
  }
  return absl::StrCat(what, " scaling mode ", sdk::ScalingName(t->quant->mode), " not in ",
                      SetOf(modes, TEPLUG_SCALING_COUNT_, [](int m) { return sdk::ScalingName(m); }));
}

Reason CheckGemm(const TeplugGemmCaps& c, const TeplugGemmArgs& a) {
  for (auto [what, t, allowed] : {std::tuple{"A", a.a, c.a_dtypes}, {"B", a.b, c.b_dtypes},
                                  {"D", static_cast<const TeplugTensor*>(a.d), c.d_dtypes}}) {
    if (Reason r = CheckDType(what, t->dtype, allowed)) return r;
  }
  if (a.bias != nullptr && !(c.epilogues & TEPLUG_GEMM_CAP_BIAS)) return std::string("bias epilogue not supported");
  if (a.epilogue == TEPLUG_EPILOGUE_GELU && !(c.epilogues & TEPLUG_GEMM_CAP_GELU)) {
    return std::string("GELU epilogue not supported");
  }
  if (a.epilogue != TEPLUG_EPILOGUE_NONE && a.epilogue != TEPLUG_EPILOGUE_GELU) {
    return absl::StrCat("epilogue ", a.epilogue, " unknown");
  }
  if (a.pre_gelu_out != nullptr && !(c.epilogues & TEPLUG_GEMM_CAP_GELU_AUX)) {
    return std::string("pre_gelu_out (GELU aux output) not supported");
  }
  if (a.accumulate && !(c.epilogues & TEPLUG_GEMM_CAP_ACCUMULATE)) {
    return std::string("accumulate into D not supported");
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
      if (v > c.max_dim) return absl::StrCat(what, " ", v, " > max ", c.max_dim);
    }
  }
  return std::nullopt;
}

Reason CheckAttentionParams(const TeplugAttentionCaps& c, const TeplugAttentionParams& p, bool backward) {
  if (!(c.layouts & TEPLUG_LAYOUT_BIT(p.layout))) {
    return absl::StrCat("layout ", sdk::LayoutName(p.layout), " not in ",
                        SetOf(c.layouts, TEPLUG_LAYOUT_COUNT_, [](int l) { return sdk::LayoutName(l); }));
  }
  if (!(c.mask_types & TEPLUG_MASK_BIT(p.mask_type))) {
    return absl::StrCat("mask ", sdk::MaskName(p.mask_type), " not in ",
                        SetOf(c.mask_types, TEPLUG_MASK_COUNT_, [](int m) { return sdk::MaskName(m); }));
  }
  if (!(c.bias_types & TEPLUG_BIAS_BIT(p.bias_type))) {
    return absl::StrCat("bias ", sdk::BiasName(p.bias_type), " not in ",
                        SetOf(c.bias_types, TEPLUG_BIAS_COUNT_, [](int b) { return sdk::BiasName(b); }));
  }
  for (auto [what, d] : {std::pair{"head_dim_qk", p.head_dim_qk}, {"head_dim_v", p.head_dim_v}}) {
    if (c.head_dim_min > 0 && d < c.head_dim_min) return absl::StrCat(what, " ", d, " < min ", c.head_dim_min);
    if (c.head_dim_max > 0 && d > c.head_dim_max) return absl::StrCat(what, " ", d, " > max ", c.head_dim_max);
    if (c.head_dim_multiple > 1 && d % c.head_dim_multiple != 0) {
      return absl::StrCat(what, " ", d, " not a multiple of ", c.head_dim_multiple);
    }
  }
  if (p.head_dim_qk != p.head_dim_v && !(c.features & TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS)) {
    return absl::StrCat("head_dim_qk ", p.head_dim_qk, " != head_dim_v ", p.head_dim_v, " not supported");
  }
  if (c.max_seqlen_q > 0 && p.max_seqlen_q > c.max_seqlen_q) {
    return absl::StrCat("max_seqlen_q ", p.max_seqlen_q, " > max ", c.max_seqlen_q);
  }
  if (c.max_seqlen_kv > 0 && p.max_seqlen_kv > c.max_seqlen_kv) {
    return absl::StrCat("max_seqlen_kv ", p.max_seqlen_kv, " > max ", c.max_seqlen_kv);
  }
  if (p.is_training && p.dropout > 0 && !(c.features & TEPLUG_ATTN_CAP_DROPOUT)) {
    return absl::StrCat("dropout ", p.dropout, " not supported");
  }
  const bool causal = p.mask_type == TEPLUG_MASK_CAUSAL || p.mask_type == TEPLUG_MASK_PADDING_CAUSAL ||
                      p.mask_type == TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT ||
                      p.mask_type == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
  const bool window = p.window_left >= 0 || (p.window_right >= 0 && !(causal && p.window_right == 0));
  if (window && !(c.features & TEPLUG_ATTN_CAP_SLIDING_WINDOW)) {
    return absl::StrCat("sliding window (", p.window_left, ", ", p.window_right, ") not supported");
  }
  if (p.num_heads_q != p.num_heads_kv && !(c.features & TEPLUG_ATTN_CAP_GQA)) {
    return absl::StrCat("grouped-query attention (hq ", p.num_heads_q, " != hkv ", p.num_heads_kv,
                        ") not supported");
  }
  if (p.deterministic && !(c.features & TEPLUG_ATTN_CAP_DETERMINISTIC)) {
    return std::string("deterministic execution not supported");
  }
  if (backward && !(c.features & TEPLUG_ATTN_CAP_BACKWARD)) return std::string("backward not supported");
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
      return std::string("columnwise output not supported");
    }
    if (a.output->quant->mode == TEPLUG_SCALING_PER_TENSOR) {
      if (a.recipe == TEPLUG_RECIPE_CURRENT && !(c.features & TEPLUG_QUANT_CAP_CURRENT_SCALING)) {
        return std::string("current scaling not supported");
      }
      if (a.recipe == TEPLUG_RECIPE_DELAYED && !(c.features & TEPLUG_QUANT_CAP_DELAYED_SCALING)) {
        return std::string("delayed scaling not supported");
      }
    }
    return std::nullopt;
  }
  const auto& a = *static_cast<const TeplugDequantizeArgs*>(op.args);
  if (!(c.features & TEPLUG_QUANT_CAP_DEQUANTIZE)) return std::string("dequantize not supported");
  if (Reason r = CheckDType("input", a.input->dtype, c.output_dtypes)) return r;
  if (Reason r = CheckDType("output", a.output->dtype, c.input_dtypes)) return r;
  return CheckScaling("input", a.input, c.scaling_modes);
}

Reason CheckCollective(const TeplugCollectiveCaps& c, const OpDescription& op) {
  if (op.op == kOpCommCreate) {
    if (c.max_world_size > 0 && op.world_size > c.max_world_size) {
      return absl::StrCat("world size ", op.world_size, " > max ", c.max_world_size);
    }
    return std::nullopt;
  }
  if (!(c.ops & TEPLUG_OP_BIT(op.op))) return absl::StrCat("collective ", op.op_name, " not supported");
  const auto& a = *static_cast<const TeplugCollectiveArgs*>(op.args);
  for (auto [what, t] : {std::pair{"send", a.send}, {"recv", static_cast<const TeplugTensor*>(a.recv)}}) {
    if (t != nullptr) {
      if (Reason r = CheckDType(what, t->dtype, c.dtypes)) return r;
    }
  }
  if ((op.op == TEPLUG_OP_ALL_REDUCE || op.op == TEPLUG_OP_REDUCE_SCATTER) &&
      !(a.reduce_op >= 0 && a.reduce_op < 32 && (c.reductions & TEPLUG_REDUCE_BIT(a.reduce_op)))) {
    return absl::StrCat("reduction ", sdk::ReduceName(a.reduce_op), " not in ",
                        SetOf(c.reductions, TEPLUG_REDUCE_COUNT_, [](int r) { return sdk::ReduceName(r); }));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> CheckDevice(const std::vector<TeplugDeviceSupport>& devices,
                                       const TeplugDevice& device) {
  for (const TeplugDeviceSupport& s : devices) {
    if (s.kind != TEPLUG_DEVICE_ANY && s.kind != device.kind) continue;
    if (s.vendor_id != TEPLUG_VENDOR_ANY && s.vendor_id != device.vendor_id) continue;
    if (s.arch_min != 0 && device.arch < s.arch_min) continue;
    if (s.arch_max != 0 && device.arch > s.arch_max) continue;
    return std::nullopt;
  }
  std::vector<std::string> accepted;
  for (const TeplugDeviceSupport& s : devices) accepted.push_back(DeviceSupportLabel(s));
  return absl::StrCat("device ", DeviceLabel(device), " not in {", absl::StrJoin(accepted, ", "), "}");
}

std::optional<std::string> CheckCapability(const Capability& cap, const OpDescription& op) {
  if (Reason r = CheckDevice(cap.devices, op.device)) return r;
  switch (cap.kind) {
    case InterfaceKind::kGemm: return CheckGemm(cap.gemm(), *static_cast<const TeplugGemmArgs*>(op.args));
    case InterfaceKind::kAttention: return CheckAttention(cap.attention(), op);
    case InterfaceKind::kQuantizer: return CheckQuantizer(cap.quantizer(), op);
    case InterfaceKind::kCollective: return CheckCollective(cap.collective(), op);
  }
  return std::string("unknown interface");
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
