// Example IAttention/1 ops for `teplug explain`: separate Q, K, V and O
// tensors in the layout's format, with cu_seqlens where the layout or mask
// needs them and a bias tensor for pre/post-scale biases.
#include <string>
#include <vector>

#include "core/ops/attention.h"
#include "core/ops/example_params.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {
namespace {

// A layout name, or a format (bshd) standing for its plain layout (bshd_bshd_bshd).
int32_t Layout(const std::string& text) {
  int32_t layout = 0;
  if (!sdk::ParseLayout(text, &layout)) sdk::ParseLayout(text + "_" + text + "_" + text, &layout);
  return layout;
}

}  // namespace

absl::StatusOr<std::vector<ExampleParam>> AttentionExampleParams(const InterfaceModule& module,
                                                                 const OpSpec& op) {
  const config::InterfaceVocabulary v = module.Vocabulary();
  constexpr int64_t kMaxSeq = int64_t{1} << 30;
  std::vector<ExampleParam> params = {
      Documented(FactParam(v, "dtype", "bf16"), "Q's, K's, V's and O's element type"),
      Documented(FactParam(v, "layout", "bshd"),
                 "QKV layout, or a format (bshd, sbhd, thd) for its plain layout"),
      FactParam(v, "mask_type", "none"),
      FactParam(v, "bias_type", "none"),
      IntegerParam("batch", "batch size", 1, 1, 1 << 20),
      IntegerParam("heads", "query heads", 16, 1, 1 << 16),
      Following(IntegerParam("heads_kv", "key/value heads", 16, 1, 1 << 16), "heads"),
      Documented(
          FactParam(v, "head_dim", "128", 1, 1 << 16),
          "head dimension of Q and K (the fact head_dim is the larger of it and head_dim_v)"),
      Following(IntegerParam("head_dim_v", "head dimension of V", 128, 1, 1 << 16), "head_dim"),
      AlsoSets(
          IntegerParam("seq_q",
                       "query sequence length (the fact seq_len is the larger of it and seq_kv)",
                       512, 1, kMaxSeq),
          "seq_len"),
      Following(IntegerParam("seq_kv", "key/value sequence length", 512, 1, kMaxSeq), "seq_q"),
      RealParam("dropout", "dropout probability (applies in training)", 0.0, 0.0, 0.999),
      IntegerParam("window_left", "sliding window, left (-1 = unbounded)", -1, -1, kMaxSeq),
      IntegerParam("window_right", "sliding window, right (-1 = unbounded)", -1, -1, kMaxSeq),
      SwitchParam("deterministic", "requires bitwise reproducible results"),
  };
  if (op.op == TEPLUG_OP_ATTENTION_FORWARD)
    params.push_back(SwitchParam("training", "forward in training mode"));
  return params;
}

void BuildAttentionExample(const OpSpec& op, const ExampleValues& v, ExampleOp* e) {
  const bool forward = op.op == TEPLUG_OP_ATTENTION_FORWARD;
  auto* p = e->NewStruct<TeplugAttentionParams>();
  p->layout = Layout(v.Name("layout"));
  sdk::ParseMask(v.Name("mask_type"), &p->mask_type);
  sdk::ParseBias(v.Name("bias_type"), &p->bias_type);
  p->is_training = !forward || v.Switch("training");
  p->batch = v.Integer("batch");
  p->num_heads_q = v.Integer("heads");
  p->num_heads_kv = v.Integer("heads_kv");
  p->head_dim_qk = v.Integer("head_dim");
  p->head_dim_v = v.Integer("head_dim_v");
  p->max_seqlen_q = v.Integer("seq_q");
  p->max_seqlen_kv = v.Integer("seq_kv");
  p->window_left = v.Integer("window_left");
  p->window_right = v.Integer("window_right");
  p->softmax_scale = 1.0f;
  p->dropout = static_cast<float>(v.Real("dropout"));
  p->deterministic = v.Switch("deterministic");
  const int32_t dtype = DTypeValue(v, "dtype");
  const int64_t b = p->batch, sq = p->max_seqlen_q, skv = p->max_seqlen_kv;
  const std::string format = sdk::LayoutFormat(p->layout);
  if (format == "thd" || p->mask_type == TEPLUG_MASK_PADDING ||
      p->mask_type == TEPLUG_MASK_PADDING_CAUSAL ||
      p->mask_type == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT) {
    p->cu_seqlens_q = e->NewTensor(TEPLUG_DTYPE_INT32, {b + 1});
    p->cu_seqlens_kv = e->NewTensor(TEPLUG_DTYPE_INT32, {b + 1});
  }
  // Separate tensors in the layout's format (packed layouts pass the same
  // metadata for every member).
  auto shape_of = [&](int64_t s, int64_t h, int64_t d) -> std::vector<int64_t> {
    if (format == "sbhd") return {s, b, h, d};
    if (format == "thd") return {b * s, h, d};
    return {b, s, h, d};
  };
  const TeplugQuantization* fp8_quant =
      IsFp8(dtype) ? e->NewQuantization(TEPLUG_SCALING_PER_TENSOR, 1, 1) : nullptr;
  auto qkv = [&](int64_t s, int64_t h, int64_t d) {
    TeplugTensor* t = e->NewTensor(dtype, shape_of(s, h, d));
    t->quant = fp8_quant;
    return t;
  };
  TeplugTensor* q = qkv(sq, p->num_heads_q, p->head_dim_qk);
  TeplugTensor* k = qkv(skv, p->num_heads_kv, p->head_dim_qk);
  TeplugTensor* val = qkv(skv, p->num_heads_kv, p->head_dim_v);
  TeplugTensor* o = qkv(sq, p->num_heads_q, p->head_dim_v);
  TeplugTensor* lse = e->NewTensor(TEPLUG_DTYPE_FP32, {b, p->num_heads_q, sq});
  TeplugTensor* bias = nullptr;
  if (p->bias_type == TEPLUG_BIAS_PRE_SCALE || p->bias_type == TEPLUG_BIAS_POST_SCALE) {
    bias = e->NewTensor(TEPLUG_DTYPE_FP32, {1, p->num_heads_q, sq, skv});
  }
  if (forward) {
    auto* a = e->NewStruct<TeplugAttentionFwdArgs>();
    a->params = p;
    a->q = q, a->k = k, a->v = val, a->o = o, a->bias = bias;
    a->softmax_lse = lse;
    a->s_quant = fp8_quant;
    e->args = a;
  } else {
    auto* a = e->NewStruct<TeplugAttentionBwdArgs>();
    a->params = p;
    a->q = q, a->k = k, a->v = val, a->o = o, a->bias = bias;
    a->d_o = qkv(sq, p->num_heads_q, p->head_dim_v);
    a->softmax_lse = lse;
    a->dq = qkv(sq, p->num_heads_q, p->head_dim_qk);
    a->dk = qkv(skv, p->num_heads_kv, p->head_dim_qk);
    a->dv = qkv(skv, p->num_heads_kv, p->head_dim_v);
    a->s_quant = a->dp_quant = fp8_quant;
    e->args = a;
  }
}

}  // namespace teplug::core
