#include "tools/teplug/op_tensors.h"

#include <initializer_list>

namespace teplug::cli {
namespace {

TeplugTensor* In(const TeplugTensor* t) { return const_cast<TeplugTensor*>(t); }

// The tensors of the params (cu_seqlens, ALiBi slopes) and of an fp8
// TeplugQuantization given beside the tensors (s_quant, dp_quant: scale and
// scale_inv read, amax written), appended to `out`.
void AddParamsAndQuant(const TeplugAttentionParams* p,
                       std::initializer_list<const TeplugQuantization*> quants,
                       std::vector<StagedTensor>* out) {
  if (p != nullptr)
    for (const TeplugTensor* t : {p->cu_seqlens_q, p->cu_seqlens_kv, p->alibi_slopes})
      out->push_back({In(t), false});
  for (const TeplugQuantization* q : quants) {
    if (q == nullptr) continue;
    out->push_back({In(q->scale), false});
    out->push_back({In(q->scale_inv), false});
    out->push_back({In(q->amax), true});
  }
}

}  // namespace

std::vector<StagedTensor> StagedTensorsOf(const TeplugAttentionFwdArgs& a) {
  std::vector<StagedTensor> out = {{In(a.q), false},   {In(a.k), false},        {In(a.v), false},
                                   {In(a.bias), false}, {a.o, true}, {a.softmax_lse, true}};
  AddParamsAndQuant(a.params, {a.s_quant}, &out);
  return out;
}
std::vector<StagedTensor> StagedTensorsOf(const TeplugAttentionBwdArgs& a) {
  std::vector<StagedTensor> out = {
      {In(a.q), false},           {In(a.k), false},    {In(a.v), false},  {In(a.o), false},
      {In(a.d_o), false},         {In(a.softmax_lse), false}, {In(a.bias), false},
      {a.dq, true},               {a.dk, true},        {a.dv, true},      {a.dbias, true}};
  AddParamsAndQuant(a.params, {a.s_quant, a.dp_quant}, &out);
  return out;
}

std::vector<StagedTensor> StagedTensorsOf(const TeplugGemmArgs& args) {
  return {{In(args.a), false}, {In(args.b), false},    {In(args.c), false},
          {In(args.bias), false}, {args.d, true}, {args.pre_gelu_out, true}};
}

std::vector<StagedTensor> StagedTensorsOf(const TeplugQuantizeArgs& a) {
  return {{In(a.input), false}, {a.output, true}};
}

std::vector<StagedTensor> StagedTensorsOf(const TeplugDequantizeArgs& a) {
  return {{In(a.input), false}, {a.output, true}};
}

}  // namespace teplug::cli
