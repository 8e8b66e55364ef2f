#include "plugins/reference/provider/testing/attention_runner.h"

#include <limits>
#include <memory>

#include "plugins/reference/provider/testing/abi_tensor.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider::testing {
namespace {

// Quiet NaN in every element of an output buffer (AbiTensor starts zeroed):
// an element the provider leaves unwritten then reads back as NaN and breaks
// any comparison, instead of passing as a plausible 0.
void FillWithNan(AbiTensor& t) {
  t.Fill(std::vector<double>(static_cast<size_t>(t.count()), std::numeric_limits<double>::quiet_NaN()));
}

}  // namespace

AttentionOutputs RunAttention(TeplugAttentionV1* attn, int32_t layout, TeplugAttentionParams params,
                            const Dims& d, const std::vector<int64_t>& cu_q,
                            const std::vector<int64_t>& cu_kv, const std::vector<double>& q,
                            const std::vector<double>& k, const std::vector<double>& v,
                            const std::vector<double>& d_o, int32_t dtype,
                            const TeplugTensor* bias) {
  const LayoutSpec s = SpecOf(layout);
  params.layout = layout;
  std::vector<int64_t> lq, lkv;
  for (int64_t b = 0; b < d.b; ++b) {
    lq.push_back(s.format == 't' ? cu_q[b + 1] - cu_q[b] : d.sq);
    lkv.push_back(s.format == 't' ? cu_kv[b + 1] - cu_kv[b] : d.skv);
  }
  const int64_t tq = cu_q.back(), tkv = cu_kv.back();
  // Input buffers: one per distinct buffer of the layout.
  std::vector<std::unique_ptr<AbiTensor>> in(3), grad(3);
  const std::vector<double>* canon[] = {&q, &k, &v};
  for (int w = 0; w < 3; ++w) {
    if (OwnerOf(s, w) != w) continue;
    const auto shape = BufferShape(s, d, w, w == 0 ? tq : tkv);
    in[w] = std::make_unique<AbiTensor>(dtype, shape);
    if (dtype == TEPLUG_DTYPE_FP8_E4M3 || dtype == TEPLUG_DTYPE_FP8_E5M2) in[w]->SetPerTensor(1.0f, 1.0f);
    grad[w] = std::make_unique<AbiTensor>(TEPLUG_DTYPE_FP32, shape);
    FillWithNan(*grad[w]);
    std::vector<double> buffer(static_cast<size_t>(in[w]->count()), 0.0);
    for (int m = 0; m < 3; ++m) {
      if (OwnerOf(s, m) == w) Scatter(s, d, m, m == 0 ? cu_q : cu_kv, m == 0 ? lq : lkv, *canon[m], &buffer);
    }
    in[w]->Fill(buffer);
  }
  auto member = [&](std::vector<std::unique_ptr<AbiTensor>>& v, int w) {
    return v[OwnerOf(s, w)]->get();
  };
  const LayoutSpec os{s.format, 0, false};
  const Dims od{d.b, d.sq, d.sq, d.hq, d.hq, d.dv, d.dv};
  AbiTensor o(TEPLUG_DTYPE_FP32, BufferShape(os, od, 0, tq));
  FillWithNan(o);
  AbiTensor d_o_t(TEPLUG_DTYPE_FP32, BufferShape(os, od, 0, tq));
  std::vector<double> dob(static_cast<size_t>(d_o_t.count()), 0.0);
  Scatter(os, od, 0, cu_q, lq, d_o, &dob);
  d_o_t.Fill(dob);
  AbiTensor lse(TEPLUG_DTYPE_FP32, {d.b, d.hq, d.sq});
  FillWithNan(lse);
  AbiTensor cq(TEPLUG_DTYPE_INT32, {d.b + 1}), ckv(TEPLUG_DTYPE_INT32, {d.b + 1});
  cq.Fill(std::vector<double>(cu_q.begin(), cu_q.end()));
  ckv.Fill(std::vector<double>(cu_kv.begin(), cu_kv.end()));
  const bool padding = params.mask_type == TEPLUG_MASK_PADDING ||
                       params.mask_type == TEPLUG_MASK_PADDING_CAUSAL ||
                       params.mask_type == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
  if (s.format == 't' || padding) {
    params.cu_seqlens_q = cq.get();
    params.cu_seqlens_kv = ckv.get();
  }
  TeplugAttentionFwdArgs f = sdk::Versioned<TeplugAttentionFwdArgs>();
  f.params = &params;
  f.q = member(in, 0);
  f.k = member(in, 1);
  f.v = member(in, 2);
  f.o = o.get();
  f.softmax_lse = lse.get();
  f.bias = bias;
  AttentionOutputs r;
  sdk::OwnedError e(attn->vtbl->forward(attn, &f));
  if (!e.ok()) {
    r.error = "forward: " + e.message();
    return r;
  }
  TeplugAttentionBwdArgs bw = sdk::Versioned<TeplugAttentionBwdArgs>();
  bw.params = &params;
  bw.q = f.q;
  bw.k = f.k;
  bw.v = f.v;
  bw.o = o.get();
  bw.d_o = d_o_t.get();
  bw.softmax_lse = lse.get();
  bw.dq = member(grad, 0);
  bw.dk = member(grad, 1);
  bw.dv = member(grad, 2);
  bw.bias = bias;
  e = sdk::OwnedError(attn->vtbl->backward(attn, &bw));
  if (!e.ok()) {
    r.error = "backward: " + e.message();
    return r;
  }
  r.o = Gather(os, od, 0, cu_q, lq, o.Values());
  r.lse = lse.Values();
  r.dq = Gather(s, d, 0, cu_q, lq, grad[0]->Values());
  r.dk = Gather(s, d, 1, cu_kv, lkv, grad[OwnerOf(s, 1)]->Values());
  r.dv = Gather(s, d, 2, cu_kv, lkv, grad[OwnerOf(s, 2)]->Values());
  return r;
}

}  // namespace teplug::reference::provider::testing
