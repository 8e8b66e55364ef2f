#include "core/select/op_description.h"

#include <algorithm>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {
namespace {

constexpr size_t kTensorV1 = TEPLUG_STRUCT_SIZE(TeplugTensor, quant);
// Selection reads a quantization's scaling mode only (op_signature.cc keys
// the same).
constexpr size_t kQuantModeV1 = TEPLUG_STRUCT_SIZE(TeplugQuantization, mode);

bool TensorOk(const TeplugTensor* t) { return t != nullptr && t->struct_size >= kTensorV1; }

absl::Status CheckArgsSize(const void* args, size_t have, size_t need, const char* name) {
  if (args == nullptr) return absl::InvalidArgumentError(absl::StrCat(name, " is NULL"));
  if (have < need) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ".struct_size ", have, " < ", need, " (the v1 layout)"));
  }
  return absl::OkStatus();
}

absl::Status CheckTensor(const TeplugTensor* t, const char* args_name, const char* field,
                         bool required) {
  if (t == nullptr) {
    if (!required) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(args_name, ".", field, " is NULL"));
  }
  if (t->struct_size < kTensorV1) {
    return absl::InvalidArgumentError(absl::StrCat(args_name, ".", field, ".struct_size ",
                                                   t->struct_size, " < ", kTensorV1));
  }
  if (t->rank < 0 || t->rank > TEPLUG_MAX_RANK) {
    return absl::InvalidArgumentError(
        absl::StrCat(args_name, ".", field, ".rank ", t->rank, " not in [0, 8]"));
  }
  if (t->quant != nullptr && t->quant->struct_size < kQuantModeV1) {
    return absl::InvalidArgumentError(absl::StrCat(args_name, ".", field, ".quant.struct_size ",
                                                   t->quant->struct_size, " < ", kQuantModeV1));
  }
  return absl::OkStatus();
}

std::string Shape(const TeplugTensor* t) {
  if (t == nullptr) return "-";
  std::string s = absl::StrCat(sdk::DTypeName(t->dtype), "[");
  for (int i = 0; i < t->rank; ++i) absl::StrAppend(&s, i ? "," : "", t->shape[i]);
  return s + "]";
}

TeplugDevice FirstDevice(std::initializer_list<const TeplugTensor*> tensors) {
  for (const TeplugTensor* t : tensors) {
    if (TensorOk(t) && t->device != nullptr) return DeviceOf(t);
  }
  return DeviceOf(nullptr);
}

void FinishDevice(OpDescription* d) {
  d->device_kind = sdk::DeviceKindName(d->device.kind);
  d->vendor = VendorName(d->device.vendor_id);
}

int Clamp(int64_t v) { return static_cast<int>(std::min<int64_t>(v, INT32_MAX)); }

// ------------------------------------------------------------------ GEMM
absl::StatusOr<OpDescription> DescribeGemm(const TeplugGemmArgs* a) {
  const size_t have = a == nullptr ? 0 : a->struct_size;
  absl::Status s = CheckArgsSize(a, have, TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream), "TeplugGemmArgs");
  if (!s.ok()) return s;
  for (auto [t, name, req] : {std::tuple{static_cast<const TeplugTensor*>(a->a), "a", true},
                              {a->b, "b", true}, {a->c, "c", false}, {a->d, "d", true},
                              {a->bias, "bias", false}, {a->pre_gelu_out, "pre_gelu_out", false}}) {
    s = CheckTensor(t, "TeplugGemmArgs", name, req);
    if (!s.ok()) return s;
  }
  if (a->a->rank != 2 || a->b->rank != 2 || a->d->rank != 2) {
    return absl::InvalidArgumentError(absl::StrCat("TeplugGemmArgs: a, b and d must be rank 2 (got ",
                                                   a->a->rank, ", ", a->b->rank, ", ", a->d->rank, ")"));
  }
  OpDescription d;
  d.kind = InterfaceKind::kGemm;
  d.op = TEPLUG_OP_GEMM;
  d.args = a;
  d.op_name = "gemm";
  d.device = FirstDevice({a->a, a->b, a->d});
  FinishDevice(&d);
  d.dtype = sdk::DTypeName(a->a->dtype);
  const int64_t m = a->trans_a ? a->a->shape[1] : a->a->shape[0];
  const int64_t k = a->trans_a ? a->a->shape[0] : a->a->shape[1];
  const int64_t n = a->trans_b ? a->b->shape[0] : a->b->shape[1];
  d.summary = absl::StrCat("gemm ", Shape(a->a), a->trans_a ? "^T" : "", " x ", Shape(a->b),
                           a->trans_b ? "^T" : "", " -> ", Shape(a->d), " M=", m, " N=", n, " K=", k,
                           a->bias ? " +bias" : "", a->epilogue == TEPLUG_EPILOGUE_GELU ? " gelu" : "",
                           a->accumulate ? " accumulate" : "", " on ", DeviceLabel(d.device));
  return d;
}

// -------------------------------------------------------------- attention
const char* const kAttnFwd = "TeplugAttentionFwdArgs";
const char* const kAttnBwd = "TeplugAttentionBwdArgs";

absl::Status CheckParams(const TeplugAttentionParams* p, const char* args_name) {
  if (p == nullptr) return absl::InvalidArgumentError(absl::StrCat(args_name, ".params is NULL"));
  if (p->struct_size < TEPLUG_STRUCT_SIZE(TeplugAttentionParams, reserved0)) {
    return absl::InvalidArgumentError(absl::StrCat("TeplugAttentionParams.struct_size ", p->struct_size,
                                                   " < ", TEPLUG_STRUCT_SIZE(TeplugAttentionParams, reserved0)));
  }
  if (p->layout < 0 || p->layout >= TEPLUG_LAYOUT_COUNT_) {
    return absl::InvalidArgumentError(absl::StrCat("TeplugAttentionParams.layout ", p->layout, " is not a TeplugQkvLayout"));
  }
  if (p->mask_type < 0 || p->mask_type >= TEPLUG_MASK_COUNT_) {
    return absl::InvalidArgumentError(absl::StrCat("TeplugAttentionParams.mask_type ", p->mask_type, " is not a TeplugMaskType"));
  }
  if (p->bias_type < 0 || p->bias_type >= TEPLUG_BIAS_COUNT_) {
    return absl::InvalidArgumentError(absl::StrCat("TeplugAttentionParams.bias_type ", p->bias_type, " is not a TeplugBiasType"));
  }
  for (auto [t, name] : {std::pair{p->cu_seqlens_q, "cu_seqlens_q"}, {p->cu_seqlens_kv, "cu_seqlens_kv"},
                         {p->alibi_slopes, "alibi_slopes"}}) {
    absl::Status s = CheckTensor(t, "TeplugAttentionParams", name, false);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

void DescribeParams(const TeplugAttentionParams* p, OpDescription* d) {
  d->layout = sdk::LayoutName(p->layout);
  d->mask_type = sdk::MaskName(p->mask_type);
  d->head_dim = Clamp(std::max(p->head_dim_qk, p->head_dim_v));
  d->seq_len = Clamp(std::max(p->max_seqlen_q, p->max_seqlen_kv));
}

std::string ParamsSummary(const TeplugAttentionParams* p) {
  std::string s = absl::StrCat(sdk::LayoutName(p->layout), " b=", p->batch, " hq=", p->num_heads_q,
                               " hkv=", p->num_heads_kv, " d=", p->head_dim_qk, "/", p->head_dim_v,
                               " sq=", p->max_seqlen_q, " skv=", p->max_seqlen_kv,
                               " mask=", sdk::MaskName(p->mask_type));
  if (p->bias_type != TEPLUG_BIAS_NONE) absl::StrAppend(&s, " bias=", sdk::BiasName(p->bias_type));
  if (p->is_training && p->dropout > 0) absl::StrAppend(&s, " dropout=", p->dropout);
  if (p->window_left >= 0 || p->window_right >= 0) {
    absl::StrAppend(&s, " window=(", p->window_left, ",", p->window_right, ")");
  }
  if (p->deterministic) absl::StrAppend(&s, " deterministic");
  return s;
}

// What forward and backward descriptions share, once their args are checked.
OpDescription AttentionDescription(int32_t op, const char* op_name, const void* args,
                                   const TeplugAttentionParams& params, const TeplugTensor& q,
                                   const TeplugDevice& device) {
  OpDescription d;
  d.kind = InterfaceKind::kAttention;
  d.op = op;
  d.args = args;
  d.op_name = op_name;
  d.device = device;
  FinishDevice(&d);
  d.dtype = sdk::DTypeName(q.dtype);
  DescribeParams(&params, &d);
  d.summary = absl::StrCat("attention_", op_name, " ", d.dtype, " ", ParamsSummary(&params), " on ",
                           DeviceLabel(d.device));
  return d;
}

absl::StatusOr<OpDescription> DescribeAttentionFwd(const TeplugAttentionFwdArgs* a) {
  const size_t have = a == nullptr ? 0 : a->struct_size;
  absl::Status s = CheckArgsSize(a, have, TEPLUG_STRUCT_SIZE(TeplugAttentionFwdArgs, stream), kAttnFwd);
  if (!s.ok()) return s;  // before reading any field: a short struct does not hold them
  s = CheckParams(a->params, kAttnFwd);
  for (auto [t, name, req] : {std::tuple{a->q, "q", true}, {a->k, "k", true}, {a->v, "v", true},
                              {a->bias, "bias", false}, {static_cast<const TeplugTensor*>(a->o), "o", true},
                              {static_cast<const TeplugTensor*>(a->softmax_lse), "softmax_lse", false}}) {
    if (s.ok()) s = CheckTensor(t, kAttnFwd, name, req);
  }
  if (!s.ok()) return s;
  return AttentionDescription(TEPLUG_OP_ATTENTION_FORWARD, "forward", a, *a->params, *a->q,
                              FirstDevice({a->q, a->k, a->v, a->o}));
}

absl::StatusOr<OpDescription> DescribeAttentionBwd(const TeplugAttentionBwdArgs* a) {
  const size_t have = a == nullptr ? 0 : a->struct_size;
  absl::Status s = CheckArgsSize(a, have, TEPLUG_STRUCT_SIZE(TeplugAttentionBwdArgs, stream), kAttnBwd);
  if (!s.ok()) return s;  // before reading any field: a short struct does not hold them
  s = CheckParams(a->params, kAttnBwd);
  for (auto [t, name, req] :
       {std::tuple{a->q, "q", true}, {a->k, "k", true}, {a->v, "v", true}, {a->o, "o", true},
        {a->d_o, "d_o", true}, {a->softmax_lse, "softmax_lse", true}, {a->bias, "bias", false},
        {static_cast<const TeplugTensor*>(a->dq), "dq", true},
        {static_cast<const TeplugTensor*>(a->dk), "dk", true},
        {static_cast<const TeplugTensor*>(a->dv), "dv", true},
        {static_cast<const TeplugTensor*>(a->dbias), "dbias", false}}) {
    if (s.ok()) s = CheckTensor(t, kAttnBwd, name, req);
  }
  if (!s.ok()) return s;
  return AttentionDescription(TEPLUG_OP_ATTENTION_BACKWARD, "backward", a, *a->params, *a->q,
                              FirstDevice({a->q, a->k, a->v, a->d_o}));
}

// -------------------------------------------------------------- quantizer
absl::StatusOr<OpDescription> DescribeQuantize(const TeplugQuantizeArgs* a) {
  const size_t have = a == nullptr ? 0 : a->struct_size;
  absl::Status s = CheckArgsSize(a, have, TEPLUG_STRUCT_SIZE(TeplugQuantizeArgs, stream), "TeplugQuantizeArgs");
  if (s.ok()) s = CheckTensor(a->input, "TeplugQuantizeArgs", "input", true);
  if (s.ok()) s = CheckTensor(a->output, "TeplugQuantizeArgs", "output", true);
  if (!s.ok()) return s;
  if (a->output->quant == nullptr) {
    return absl::InvalidArgumentError("TeplugQuantizeArgs.output.quant is NULL (the scaling mode and scale "
                                      "tensors are required)");
  }
  OpDescription d;
  d.kind = InterfaceKind::kQuantizer;
  d.op = TEPLUG_OP_QUANTIZE;
  d.args = a;
  d.op_name = "quantize";
  d.device = FirstDevice({a->input, a->output});
  FinishDevice(&d);
  d.dtype = sdk::DTypeName(a->output->dtype);
  d.summary = absl::StrCat("quantize ", Shape(a->input), " -> ", Shape(a->output), " ",
                           sdk::ScalingName(a->output->quant->mode),
                           a->output->quant->mode == TEPLUG_SCALING_PER_TENSOR
                               ? (a->recipe == TEPLUG_RECIPE_CURRENT ? " current" : " delayed")
                               : "",
                           a->rowwise ? " rowwise" : "", a->columnwise ? " columnwise" : "", " on ",
                           DeviceLabel(d.device));
  return d;
}

absl::StatusOr<OpDescription> DescribeDequantize(const TeplugDequantizeArgs* a) {
  const size_t have = a == nullptr ? 0 : a->struct_size;
  absl::Status s =
      CheckArgsSize(a, have, TEPLUG_STRUCT_SIZE(TeplugDequantizeArgs, stream), "TeplugDequantizeArgs");
  if (s.ok()) s = CheckTensor(a->input, "TeplugDequantizeArgs", "input", true);
  if (s.ok()) s = CheckTensor(a->output, "TeplugDequantizeArgs", "output", true);
  if (!s.ok()) return s;
  OpDescription d;
  d.kind = InterfaceKind::kQuantizer;
  d.op = TEPLUG_OP_DEQUANTIZE;
  d.args = a;
  d.op_name = "dequantize";
  d.device = FirstDevice({a->input, a->output});
  FinishDevice(&d);
  d.dtype = sdk::DTypeName(a->input->dtype);
  d.summary = absl::StrCat("dequantize ", Shape(a->input), " ",
                           sdk::ScalingName(a->input->quant ? a->input->quant->mode : TEPLUG_SCALING_NONE),
                           " -> ", Shape(a->output), " on ", DeviceLabel(d.device));
  return d;
}

// ------------------------------------------------------------- collective
absl::StatusOr<OpDescription> DescribeCollective(int32_t op, const TeplugCollectiveArgs* a) {
  const size_t have = a == nullptr ? 0 : a->struct_size;
  absl::Status s =
      CheckArgsSize(a, have, TEPLUG_STRUCT_SIZE(TeplugCollectiveArgs, stream), "TeplugCollectiveArgs");
  if (s.ok()) s = CheckTensor(a->send, "TeplugCollectiveArgs", "send", false);
  if (s.ok()) s = CheckTensor(a->recv, "TeplugCollectiveArgs", "recv", false);
  if (!s.ok()) return s;
  if (op < TEPLUG_OP_ALL_REDUCE || op > TEPLUG_OP_BARRIER) {
    return absl::InvalidArgumentError(absl::StrCat("collective op ", op, " is not one of all_reduce..barrier"));
  }
  OpDescription d;
  d.kind = InterfaceKind::kCollective;
  d.op = op;
  d.args = a;
  d.op_name = sdk::OpName(op);
  d.device = FirstDevice({a->send, a->recv});
  FinishDevice(&d);
  const TeplugTensor* t = a->send != nullptr ? a->send : a->recv;
  d.dtype = t != nullptr ? sdk::DTypeName(t->dtype) : "";
  d.summary = absl::StrCat(d.op_name, " ", t != nullptr ? Shape(t) : "",
                           (op == TEPLUG_OP_ALL_REDUCE || op == TEPLUG_OP_REDUCE_SCATTER)
                               ? absl::StrCat(" ", sdk::ReduceName(a->reduce_op))
                               : "",
                           " on ", DeviceLabel(d.device));
  return d;
}

absl::StatusOr<OpDescription> DescribeCommCreate(const TeplugCommCreateArgs* a) {
  const size_t have = a == nullptr ? 0 : a->struct_size;
  absl::Status s =
      CheckArgsSize(a, have, TEPLUG_STRUCT_SIZE(TeplugCommCreateArgs, device), "TeplugCommCreateArgs");
  if (!s.ok()) return s;
  constexpr size_t kDeviceV1 = TEPLUG_STRUCT_SIZE(TeplugDevice, arch);
  if (a->device != nullptr && a->device->struct_size < kDeviceV1) {
    return absl::InvalidArgumentError(absl::StrCat("TeplugCommCreateArgs.device.struct_size ",
                                                   a->device->struct_size, " < ", kDeviceV1));
  }
  OpDescription d;
  d.kind = InterfaceKind::kCollective;
  d.op = kOpCommCreate;
  d.args = a;
  d.op_name = "comm_create";
  d.device = a->device != nullptr ? *a->device : DeviceOf(nullptr);
  FinishDevice(&d);
  d.world_size = a->world_size;
  d.summary = absl::StrCat("comm_create rank ", a->rank, " of ", a->world_size, " on ", DeviceLabel(d.device));
  return d;
}

}  // namespace

config::OpFacts OpDescription::Facts() const {
  config::OpFacts f;
  f.interface_name = InterfaceName(kind);
  f.op = op_name;
  f.device_kind = device_kind;
  f.vendor = vendor;
  switch (kind) {
    case InterfaceKind::kGemm: {
      const auto* a = static_cast<const TeplugGemmArgs*>(args);
      f.AddName("dtype", dtype);
      f.AddName("a_dtype", sdk::DTypeName(a->a->dtype));
      f.AddName("b_dtype", sdk::DTypeName(a->b->dtype));
      f.AddName("c_dtype", a->c != nullptr ? sdk::DTypeName(a->c->dtype) : "");
      f.AddName("d_dtype", sdk::DTypeName(a->d->dtype));
      f.AddInteger("m", a->trans_a ? a->a->shape[1] : a->a->shape[0]);
      f.AddInteger("n", a->trans_b ? a->b->shape[0] : a->b->shape[1]);
      f.AddInteger("k", a->trans_a ? a->a->shape[0] : a->a->shape[1]);
      break;
    }
    case InterfaceKind::kAttention:
      f.AddName("dtype", dtype);
      f.AddName("layout", layout);
      f.AddName("mask_type", mask_type);
      f.AddInteger("head_dim", head_dim);
      f.AddInteger("seq_len", seq_len);
      break;
    case InterfaceKind::kQuantizer: {
      const TeplugTensor* quantized = op == TEPLUG_OP_QUANTIZE
                                          ? static_cast<const TeplugQuantizeArgs*>(args)->output
                                          : static_cast<const TeplugDequantizeArgs*>(args)->input;
      f.AddName("dtype", dtype);
      f.AddName("scaling_mode", quantized->quant != nullptr ? sdk::ScalingName(quantized->quant->mode) : "none");
      break;
    }
    case InterfaceKind::kCollective:
      if (op == kOpCommCreate) f.AddInteger("world_size", world_size);
      break;
  }
  return f;
}

TeplugDevice DeviceOf(const TeplugTensor* t) {
  TeplugDevice d{};
  d.struct_size = sizeof(TeplugDevice);
  d.kind = TEPLUG_DEVICE_CPU;
  if (t != nullptr && t->device != nullptr &&
      t->device->struct_size >= TEPLUG_STRUCT_SIZE(TeplugDevice, arch)) {
    d = *t->device;
  }
  return d;
}

std::string VendorName(uint32_t vendor_id) {
  switch (vendor_id) {
    case TEPLUG_VENDOR_ANY: return "";
    case TEPLUG_VENDOR_NVIDIA: return "nvidia";
    case TEPLUG_VENDOR_AMD: return "amd";
    case TEPLUG_VENDOR_INTEL: return "intel";
    default: return absl::StrFormat("0x%04x", vendor_id);
  }
}

std::string DeviceLabel(const TeplugDevice& d) {
  std::string s = absl::StrCat(sdk::DeviceKindName(d.kind), ":", d.ordinal);
  std::string vendor = VendorName(d.vendor_id);
  if (!vendor.empty() || d.arch != 0) {
    absl::StrAppend(&s, " (", vendor.empty() ? "any vendor" : vendor);
    if (d.arch != 0) absl::StrAppend(&s, ", arch ", d.arch);
    absl::StrAppend(&s, ")");
  }
  return s;
}

absl::StatusOr<OpDescription> DescribeOp(InterfaceKind kind, int32_t op, const void* args) {
  switch (kind) {
    case InterfaceKind::kGemm:
      if (op != TEPLUG_OP_GEMM) break;
      return DescribeGemm(static_cast<const TeplugGemmArgs*>(args));
    case InterfaceKind::kAttention:
      if (op == TEPLUG_OP_ATTENTION_FORWARD) {
        return DescribeAttentionFwd(static_cast<const TeplugAttentionFwdArgs*>(args));
      }
      if (op == TEPLUG_OP_ATTENTION_BACKWARD) {
        return DescribeAttentionBwd(static_cast<const TeplugAttentionBwdArgs*>(args));
      }
      break;
    case InterfaceKind::kQuantizer:
      if (op == TEPLUG_OP_QUANTIZE) return DescribeQuantize(static_cast<const TeplugQuantizeArgs*>(args));
      if (op == TEPLUG_OP_DEQUANTIZE) {
        return DescribeDequantize(static_cast<const TeplugDequantizeArgs*>(args));
      }
      break;
    case InterfaceKind::kCollective:
      if (op == kOpCommCreate) return DescribeCommCreate(static_cast<const TeplugCommCreateArgs*>(args));
      return DescribeCollective(op, static_cast<const TeplugCollectiveArgs*>(args));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("op ", sdk::OpName(op), " (", op, ") is not an op of ", InterfaceDisplayName(kind)));
}

}  // namespace teplug::core
