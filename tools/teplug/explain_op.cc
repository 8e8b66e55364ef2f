#include "tools/teplug/explain_op.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "core/kernel/kernel.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cli {
namespace {


std::vector<std::string> Names(const char* const* names, int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back(names[i]);
  return out;
}

int32_t DType(const FlagSet& f, const std::string& flag) {
  int32_t d = TEPLUG_DTYPE_INVALID;
  sdk::ParseDType(f.GetString(flag), &d);  // the flag's allowed set guarantees a known name
  return d;
}

bool IsFp8(int32_t d) { return d == TEPLUG_DTYPE_FP8_E4M3 || d == TEPLUG_DTYPE_FP8_E5M2; }
bool IsScaled(int32_t d) { return IsFp8(d) || d == TEPLUG_DTYPE_FP4_E2M1; }

TeplugTensor* NewTensor(ExplainedOp* e, int32_t dtype, std::vector<int64_t> shape) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = nullptr;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) t.shape[i] = shape[i];
  t.device = &e->device;
  e->tensors.push_back(t);
  return &e->tensors.back();
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Quantization metadata for a [rows, cols] tensor in `mode`, with a scale_inv
// of the shape types.h gives for that mode.
const TeplugQuantization* NewQuant(ExplainedOp* e, int32_t mode, int64_t rows, int64_t cols) {
  TeplugQuantization q = sdk::Versioned<TeplugQuantization>();
  q.mode = mode;
  switch (mode) {
    case TEPLUG_SCALING_PER_TENSOR:
      q.scale = NewTensor(e, TEPLUG_DTYPE_FP32, {1});
      q.scale_inv = NewTensor(e, TEPLUG_DTYPE_FP32, {1});
      q.amax = NewTensor(e, TEPLUG_DTYPE_FP32, {1});
      break;
    case TEPLUG_SCALING_MXFP8_1D32:
      q.scale_inv = NewTensor(e, TEPLUG_DTYPE_E8M0, {rows, CeilDiv(cols, 32)});
      break;
    case TEPLUG_SCALING_BLOCK_1D128:
      q.scale_inv = NewTensor(e, TEPLUG_DTYPE_FP32, {rows, CeilDiv(cols, 128)});
      break;
    case TEPLUG_SCALING_BLOCK_2D128:
      q.scale_inv = NewTensor(e, TEPLUG_DTYPE_FP32, {CeilDiv(rows, 128), CeilDiv(cols, 128)});
      break;
    default:
      break;
  }
  e->quantizations.push_back(q);
  return &e->quantizations.back();
}

int32_t ScalingMode(const FlagSet& f) {
  int32_t m = TEPLUG_SCALING_NONE;
  sdk::ParseScaling(f.GetString("mode"), &m);
  return m;
}

absl::Status BuildAttention(const FlagSet& f, ExplainedOp* e) {
  const std::string op = f.GetString("op").empty() ? "forward" : f.GetString("op");
  if (op != "forward" && op != "backward") {
    return f.UsageError(
        absl::StrCat("--op ", op, " is not an attention op; use forward or backward"));
  }
  e->iid = sdk::kIidAttentionV1;
  e->op = op == "forward" ? TEPLUG_OP_ATTENTION_FORWARD : TEPLUG_OP_ATTENTION_BACKWARD;
  TeplugAttentionParams& p = e->attention_params;
  p = sdk::Versioned<TeplugAttentionParams>();
  std::string layout = f.GetString("layout");
  if (layout == "bshd" || layout == "sbhd" || layout == "thd")
    layout = layout + "_" + layout + "_" + layout;
  if (!sdk::ParseLayout(layout, &p.layout)) {
    return f.UsageError(
        absl::StrCat("bad value \"", f.GetString("layout"),
                     "\" for --layout: expected a format (bshd, sbhd, thd) or one of ",
                     absl::StrJoin(Names(sdk::internal::kLayouts, TEPLUG_LAYOUT_COUNT_), ", ")));
  }
  sdk::ParseMask(f.GetString("mask"), &p.mask_type);
  sdk::ParseBias(f.GetString("bias"), &p.bias_type);
  p.is_training = op == "backward" || f.GetBool("training");
  p.batch = f.GetInt("batch");
  p.num_heads_q = f.GetInt("heads");
  p.num_heads_kv = f.IsSet("heads-kv") ? f.GetInt("heads-kv") : p.num_heads_q;
  p.head_dim_qk = f.GetInt("head-dim");
  p.head_dim_v = f.IsSet("head-dim-v") ? f.GetInt("head-dim-v") : p.head_dim_qk;
  p.max_seqlen_q = f.GetInt("seq-q");
  p.max_seqlen_kv = f.IsSet("seq-kv") ? f.GetInt("seq-kv") : p.max_seqlen_q;
  p.window_left = f.GetInt("window-left");
  p.window_right = f.GetInt("window-right");
  p.softmax_scale = 1.0f;
  p.dropout = static_cast<float>(f.GetDouble("dropout"));
  p.deterministic = f.GetBool("deterministic");
  const int32_t dtype = DType(f, "dtype");
  const int64_t b = p.batch, sq = p.max_seqlen_q, skv = p.max_seqlen_kv;
  const std::string format = sdk::LayoutFormat(p.layout);
  if (format == "thd" || p.mask_type == TEPLUG_MASK_PADDING ||
      p.mask_type == TEPLUG_MASK_PADDING_CAUSAL ||
      p.mask_type == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT) {
    p.cu_seqlens_q = NewTensor(e, TEPLUG_DTYPE_INT32, {b + 1});
    p.cu_seqlens_kv = NewTensor(e, TEPLUG_DTYPE_INT32, {b + 1});
  }
  // Separate tensors in the layout's format (explain shapes the unpacked
  // buffers; packed layouts pass the same metadata for every member).
  auto shape_of = [&](int64_t s, int64_t h, int64_t d) -> std::vector<int64_t> {
    if (format == "sbhd") return {s, b, h, d};
    if (format == "thd") return {b * s, h, d};
    return {b, s, h, d};
  };
  const TeplugQuantization* fp8_quant = nullptr;
  if (IsFp8(dtype)) fp8_quant = NewQuant(e, TEPLUG_SCALING_PER_TENSOR, 1, 1);
  auto qkv = [&](int64_t s, int64_t h, int64_t d) {
    TeplugTensor* t = NewTensor(e, dtype, shape_of(s, h, d));
    t->quant = fp8_quant;
    return t;
  };
  TeplugTensor* q = qkv(sq, p.num_heads_q, p.head_dim_qk);
  TeplugTensor* k = qkv(skv, p.num_heads_kv, p.head_dim_qk);
  TeplugTensor* v = qkv(skv, p.num_heads_kv, p.head_dim_v);
  TeplugTensor* o = qkv(sq, p.num_heads_q, p.head_dim_v);
  TeplugTensor* lse = NewTensor(e, TEPLUG_DTYPE_FP32, {b, p.num_heads_q, sq});
  TeplugTensor* bias = nullptr;
  if (p.bias_type == TEPLUG_BIAS_PRE_SCALE || p.bias_type == TEPLUG_BIAS_POST_SCALE) {
    bias = NewTensor(e, TEPLUG_DTYPE_FP32, {1, p.num_heads_q, sq, skv});
  }
  if (e->op == TEPLUG_OP_ATTENTION_FORWARD) {
    TeplugAttentionFwdArgs& a = e->attention_forward;
    a = sdk::Versioned<TeplugAttentionFwdArgs>();
    a.params = &p;
    a.q = q, a.k = k, a.v = v, a.o = o, a.bias = bias;
    a.softmax_lse = lse;
    if (fp8_quant != nullptr) a.s_quant = fp8_quant;
    e->args = &a;
  } else {
    TeplugAttentionBwdArgs& a = e->attention_backward;
    a = sdk::Versioned<TeplugAttentionBwdArgs>();
    a.params = &p;
    a.q = q, a.k = k, a.v = v, a.o = o, a.bias = bias;
    a.d_o = qkv(sq, p.num_heads_q, p.head_dim_v);
    a.softmax_lse = lse;
    a.dq = qkv(sq, p.num_heads_q, p.head_dim_qk);
    a.dk = qkv(skv, p.num_heads_kv, p.head_dim_qk);
    a.dv = qkv(skv, p.num_heads_kv, p.head_dim_v);
    if (fp8_quant != nullptr) a.s_quant = a.dp_quant = fp8_quant;
    e->args = &a;
  }
  return absl::OkStatus();
}

absl::Status BuildGemm(const FlagSet& f, ExplainedOp* e) {
  if (!f.GetString("op").empty() && f.GetString("op") != "gemm") {
    return f.UsageError(
        absl::StrCat("--op ", f.GetString("op"), " is not a gemm op; IGemm has one op, gemm"));
  }
  e->iid = sdk::kIidGemmV1;
  e->op = TEPLUG_OP_GEMM;
  const int64_t m = f.GetInt("m"), n = f.GetInt("n"), k = f.GetInt("k");
  const bool ta = f.GetBool("trans-a"), tb = f.GetBool("trans-b");
  const int32_t da = DType(f, "dtype");
  const int32_t db = f.IsSet("dtype-b") ? DType(f, "dtype-b") : da;
  int32_t dd = f.IsSet("dtype-d") ? DType(f, "dtype-d") : (IsScaled(da) ? TEPLUG_DTYPE_BF16 : da);
  const int32_t mode = f.IsSet("mode") ? ScalingMode(f) : TEPLUG_SCALING_PER_TENSOR;
  TeplugTensor* a = NewTensor(e, da, ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k});
  TeplugTensor* b = NewTensor(e, db, tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n});
  if (IsScaled(da)) a->quant = NewQuant(e, mode, a->shape[0], a->shape[1]);
  if (IsScaled(db)) b->quant = NewQuant(e, mode, b->shape[0], b->shape[1]);
  TeplugTensor* d = NewTensor(e, dd, {m, n});
  if (IsFp8(dd)) d->quant = NewQuant(e, TEPLUG_SCALING_PER_TENSOR, 1, 1);
  TeplugGemmArgs& g = e->gemm;
  g = sdk::Versioned<TeplugGemmArgs>();
  g.a = a, g.b = b, g.d = d;
  g.trans_a = ta, g.trans_b = tb;
  g.alpha = 1.0f;
  if (f.GetBool("with-bias")) g.bias = NewTensor(e, IsFp8(dd) ? TEPLUG_DTYPE_BF16 : dd, {n});
  if (f.GetString("epilogue") == "gelu") g.epilogue = TEPLUG_EPILOGUE_GELU;
  g.accumulate = f.GetBool("accumulate");
  e->args = &g;
  return absl::OkStatus();
}

absl::Status BuildQuantizer(const FlagSet& f, ExplainedOp* e) {
  const std::string op = f.GetString("op").empty() ? "quantize" : f.GetString("op");
  if (op != "quantize" && op != "dequantize") {
    return f.UsageError(
        absl::StrCat("--op ", op, " is not a quantizer op; use quantize or dequantize"));
  }
  e->iid = sdk::kIidQuantizerV1;
  const int64_t rows = f.GetInt("rows"), cols = f.GetInt("cols");
  int32_t qtype = DType(f, "dtype");
  if (!f.IsSet("dtype")) qtype = TEPLUG_DTYPE_FP8_E4M3;
  const int32_t htype = DType(f, "input-dtype");
  const int32_t mode = f.IsSet("mode") ? ScalingMode(f) : TEPLUG_SCALING_PER_TENSOR;
  TeplugTensor* high = NewTensor(e, htype, {rows, cols});
  TeplugTensor* low = NewTensor(e, qtype, {rows, cols});
  low->quant = NewQuant(e, mode, rows, cols);
  if (op == "quantize") {
    e->op = TEPLUG_OP_QUANTIZE;
    TeplugQuantizeArgs& q = e->quantize;
    q = sdk::Versioned<TeplugQuantizeArgs>();
    q.input = high;
    q.output = low;
    q.recipe = f.GetString("recipe") == "delayed" ? TEPLUG_RECIPE_DELAYED : TEPLUG_RECIPE_CURRENT;
    q.rowwise = 1;
    q.columnwise = f.GetBool("columnwise");
    e->args = &q;
  } else {
    e->op = TEPLUG_OP_DEQUANTIZE;
    TeplugDequantizeArgs& q = e->dequantize;
    q = sdk::Versioned<TeplugDequantizeArgs>();
    q.input = low;
    q.output = high;
    e->args = &q;
  }
  return absl::OkStatus();
}

absl::Status BuildNorm(const FlagSet& f, ExplainedOp* e) {
  const std::string op = f.GetString("op").empty() ? "forward" : f.GetString("op");
  const std::optional<int32_t> code = core::Kernel::OpNumber(sdk::kIidNormV1, op);
  if (!code) return f.UsageError(absl::StrCat("--op ", op, " is not a norm op; use forward or backward"));
  e->iid = sdk::kIidNormV1;
  e->op = *code;
  int32_t type = TEPLUG_NORM_LAYERNORM;
  sdk::ParseNormType(f.GetString("norm-type"), &type);  // the flag's allowed set guarantees a known name
  const bool layernorm = type == TEPLUG_NORM_LAYERNORM;
  const int64_t rows = f.GetInt("rows"), hidden = f.GetInt("hidden");
  const int32_t x_type = f.IsSet("dtype") ? DType(f, "dtype") : TEPLUG_DTYPE_BF16;
  TeplugTensor* x = NewTensor(e, x_type, {rows, hidden});
  TeplugTensor* gamma = NewTensor(e, x_type, {hidden});
  TeplugTensor* beta = layernorm ? NewTensor(e, x_type, {hidden}) : nullptr;
  TeplugTensor* mu = layernorm ? NewTensor(e, TEPLUG_DTYPE_FP32, {rows}) : nullptr;
  TeplugTensor* rsigma = NewTensor(e, TEPLUG_DTYPE_FP32, {rows});
  if (*code == TEPLUG_NORM_OP_FORWARD) {
    const int32_t y_type = f.IsSet("output-dtype") ? DType(f, "output-dtype") : x_type;
    TeplugTensor* y = NewTensor(e, y_type, {rows, hidden});
    if (IsFp8(y_type)) {
      y->quant = NewQuant(e, f.IsSet("mode") ? ScalingMode(f) : TEPLUG_SCALING_PER_TENSOR, rows, hidden);
    }
    TeplugNormFwdArgs& a = e->norm_forward;
    a = sdk::Versioned<TeplugNormFwdArgs>();
    a.norm_type = type;
    a.zero_centered_gamma = f.GetBool("zero-centered-gamma");
    a.epsilon = 1e-5f;
    a.x = x, a.gamma = gamma, a.beta = beta, a.y = y, a.mu = mu, a.rsigma = rsigma;
    e->args = &a;
  } else {
    TeplugNormBwdArgs& a = e->norm_backward;
    a = sdk::Versioned<TeplugNormBwdArgs>();
    a.norm_type = type;
    a.zero_centered_gamma = f.GetBool("zero-centered-gamma");
    a.dy = NewTensor(e, x_type, {rows, hidden});
    a.x = x, a.mu = mu, a.rsigma = rsigma, a.gamma = gamma;
    a.dx = NewTensor(e, x_type, {rows, hidden});
    a.dgamma = NewTensor(e, x_type, {hidden});
    a.dbeta = layernorm ? NewTensor(e, x_type, {hidden}) : nullptr;
    e->args = &a;
  }
  return absl::OkStatus();
}

// Collectives are decided once per communicator, when it is created
// (comm_create): that is the decision `explain collective` shows. A per-call
// op is refused, since the dispatcher never decides one.
absl::Status BuildCollective(const FlagSet& f, ExplainedOp* e) {
  const std::string op = f.GetString("op").empty() ? "comm_create" : f.GetString("op");
  const std::optional<int32_t> comm_create = core::Kernel::OpNumber(sdk::kIidCollectiveV1, "comm_create");
  if (op != "comm_create" || !comm_create) {
    return f.UsageError(absl::StrCat(
        "--op ", op, ": collectives are decided once per communicator, at comm_create, and every call on it "
        "goes to that implementation; `teplug explain collective` explains that decision (leave --op out, "
        "set --world-size)"));
  }
  e->iid = sdk::kIidCollectiveV1;
  e->op = *comm_create;
  TeplugCommCreateArgs& c = e->comm_create;
  c = sdk::Versioned<TeplugCommCreateArgs>();
  c.rank = 0;
  c.world_size = static_cast<int32_t>(f.GetInt("world-size"));
  c.device = &e->device;
  e->args = &c;
  return absl::OkStatus();
}

// The interfaces `teplug explain` knows, in help order, with their builders.
struct InterfaceBuilder {
  const char* name;
  absl::Status (*build)(const FlagSet&, ExplainedOp*);
};
constexpr InterfaceBuilder kInterfaces[] = {{"attention", BuildAttention},
                                            {"gemm", BuildGemm},
                                            {"quantizer", BuildQuantizer},
                                            {"collective", BuildCollective},
                                            {"norm", BuildNorm}};

}  // namespace

absl::StatusOr<TeplugDevice> ParseDevice(const std::string& text, const core::DeviceNames& names) {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  std::vector<std::string> parts = absl::StrSplit(text, ':');
  if (std::optional<int32_t> kind = names.ResolveKind(parts[0])) {
    d.kind = *kind;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad value \"", text,
        "\" for --device: expected cpu, cuda, opencl, a vendor kind number >= 1024 or a kind a loaded "
        "provider names (declared: ",
        names.DeclaredKindList(), "), optionally with :ORDINAL (e.g. cuda:1)"));
  }
  if (parts.size() > 2 ||
      (parts.size() == 2 && (!absl::SimpleAtoi(parts[1], &d.ordinal) || d.ordinal < 0))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad value \"", text, "\" for --device: the ordinal after ':' must be a number >= 0"));
  }
  return d;
}

void AddOpFlags(FlagSet* f) {
  std::vector<std::string> dtypes = sdk::DTypeNames();
  f->AddString(
      "op", "OP",
      "the op: attention forward|backward, gemm gemm, quantizer quantize|dequantize, collective "
      "comm_create (collectives are decided once per communicator), norm forward|backward");
  f->SetDefaultText("op", "the first");
  f->AddString("device", "KIND[:N]",
               "device the op runs on: cpu, cuda, opencl, a vendor kind number, or a kind name a "
               "loaded provider declares (gaudi:0)",
               "cpu");
  f->AddInt("arch", "device architecture (CUDA: compute capability x10, e.g. 90)", 0, 0, 1 << 20);
  f->AddString("vendor", "NAME",
               "device vendor: nvidia, amd, intel, a PCI id like 0x10de, or a vendor name a loaded "
               "provider declares",
               "any");
  f->AddString("dtype", "DTYPE",
               "element type (attention: q/k/v; gemm: a; quantizer: quantized output)", "bf16",
               dtypes);
  f->SetDefaultText("dtype", "bf16; quantizer fp8_e4m3, collective fp32");
  // attention
  f->AddString("layout", "LAYOUT", "attention QKV layout, or a format bshd|sbhd|thd", "bshd");
  f->AddInt("batch", "attention batch size", 1, 1, 1 << 20);
  f->AddInt("heads", "attention query heads", 16, 1, 1 << 16);
  f->AddInt("heads-kv", "attention key/value heads", 16, 1, 1 << 16);
  f->SetDefaultText("heads-kv", "--heads");
  f->AddInt("head-dim", "attention head dimension of q and k", 128, 1, 1 << 16);
  f->AddInt("head-dim-v", "attention head dimension of v", 128, 1, 1 << 16);
  f->SetDefaultText("head-dim-v", "--head-dim");
  f->AddInt("seq-q", "attention query sequence length", 512, 1, int64_t{1} << 30);
  f->AddInt("seq-kv", "attention key/value sequence length", 512, 1, int64_t{1} << 30);
  f->SetDefaultText("seq-kv", "--seq-q");
  f->AddString("mask", "MASK", "attention mask type", "none",
               Names(sdk::internal::kMasks, TEPLUG_MASK_COUNT_));
  f->AddString("bias", "BIAS", "attention bias type", "none",
               Names(sdk::internal::kBiases, TEPLUG_BIAS_COUNT_));
  f->AddDouble("dropout", "attention dropout probability", 0.0, 0.0, 0.999);
  f->AddInt("window-left", "attention sliding window, left (-1 = unbounded)", -1, -1,
            int64_t{1} << 30);
  f->AddInt("window-right", "attention sliding window, right (-1 = unbounded)", -1, -1,
            int64_t{1} << 30);
  f->AddBool("training", "attention forward in training mode");
  f->AddBool("deterministic", "attention requires bitwise reproducible results");
  // gemm
  f->AddInt("m", "gemm rows of op(A) and D", 1024, 1, int64_t{1} << 40);
  f->AddInt("n", "gemm columns of op(B) and D", 1024, 1, int64_t{1} << 40);
  f->AddInt("k", "gemm inner dimension", 1024, 1, int64_t{1} << 40);
  f->AddString("dtype-b", "DTYPE", "gemm B dtype", "", dtypes);
  f->SetDefaultText("dtype-b", "--dtype");
  f->AddString("dtype-d", "DTYPE", "gemm D dtype", "", dtypes);
  f->SetDefaultText("dtype-d", "--dtype, bf16 for fp8/fp4 inputs");
  f->AddBool("trans-a", "gemm: A is transposed");
  f->AddBool("trans-b", "gemm: B is transposed");
  f->AddBool("with-bias", "gemm: add a bias vector");
  f->AddString("epilogue", "EPILOGUE", "gemm epilogue", "none", {"none", "gelu"});
  f->AddBool("accumulate", "gemm: D += A*B");
  // quantizer (and gemm fp8 operands)
  f->AddString("mode", "MODE", "scaling mode of quantized tensors", "",
               Names(sdk::internal::kScalings, TEPLUG_SCALING_COUNT_));
  f->SetDefaultText("mode", "per_tensor");
  f->AddInt("rows", "quantizer and norm rows", 1024, 1, int64_t{1} << 40);
  f->AddInt("cols", "quantizer columns", 1024, 1, int64_t{1} << 40);
  f->AddString("input-dtype", "DTYPE", "quantizer high-precision side", "bf16",
               {"fp32", "fp16", "bf16"});
  f->AddString("recipe", "RECIPE", "quantizer per-tensor scale recipe", "current",
               {"current", "delayed"});
  f->AddBool("columnwise", "quantizer also writes the column-wise copy");
  // norm
  f->AddString("norm-type", "TYPE", "norm: layernorm or rmsnorm", "layernorm", sdk::NormTypeNames());
  f->AddInt("hidden", "norm: the normalized size (x's last axis)", 1024, 1, int64_t{1} << 30);
  f->AddBool("zero-centered-gamma", "norm: gamma is stored minus one");
  f->AddString("output-dtype", "DTYPE", "norm: y's dtype (fp8: quantized with --mode)", "", dtypes);
  f->SetDefaultText("output-dtype", "--dtype");
  // collective (decided at comm_create)
  f->AddInt("world-size", "collective: ranks in the communicator", 2, 1, 1 << 20);
}

absl::StatusOr<std::unique_ptr<ExplainedOp>> BuildExplainedOp(const std::string& interface,
                                                              const FlagSet& f,
                                                              const core::DeviceNames& device_names) {
  const InterfaceBuilder* builder = nullptr;
  std::vector<std::string> names;
  for (const InterfaceBuilder& i : kInterfaces) {
    if (interface == i.name) builder = &i;
    names.emplace_back(i.name);
  }
  if (builder == nullptr) {
    const std::string close = ClosestMatch(interface, names);
    return f.UsageError(
        absl::StrCat("unknown interface \"", interface, "\"",
                     close.empty() ? "" : absl::StrCat("; did you mean ", close, "?"),
                     " Interfaces: ", absl::StrJoin(names, ", ")));
  }
  auto e = std::make_unique<ExplainedOp>();
  absl::StatusOr<TeplugDevice> device = ParseDevice(f.GetString("device"), device_names);
  if (!device.ok()) return f.UsageError(std::string(device.status().message()));
  e->device = *device;
  e->device.arch = static_cast<int32_t>(f.GetInt("arch"));
  const std::string vendor = f.GetString("vendor");
  if (std::optional<uint32_t> id = device_names.ResolveVendor(vendor)) {
    e->device.vendor_id = *id;
  } else if (vendor != "any") {
    uint32_t hex = 0;
    if (!absl::SimpleHexAtoi(vendor, &hex) || hex > 0xffff) {
      return f.UsageError(absl::StrCat(
          "bad value \"", vendor,
          "\" for --vendor: expected nvidia, amd, intel, any, a PCI id like 0x10de or a vendor a "
          "loaded provider names (declared: ",
          device_names.DeclaredVendorList(), ")"));
    }
    e->device.vendor_id = hex;
  }
  if (absl::Status st = builder->build(f, e.get()); !st.ok()) return st;
  return e;
}

}  // namespace teplug::cli
