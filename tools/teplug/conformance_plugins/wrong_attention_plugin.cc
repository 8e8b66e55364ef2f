// An attention plugin (plain C ABI, fp32, bshd_bshd_bshd, no mask, no GQA,
// forward only) whose numbers are wrong: it ignores softmax_scale, a classic
// slip. `teplug conformance` must fail it on its attention's claims.
#include <cmath>
#include <vector>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_plugins/plugin_parts.h"

namespace {

using conformance_plugins::AddRef;
using conformance_plugins::Error;
using conformance_plugins::Release;

const TeplugIID kAttentionIid = TEPLUG_IID_ATTENTION_V1_INIT;
const TeplugIID kObjectIid = TEPLUG_IID_OBJECT_INIT;

TeplugObject* Query(TeplugObject* self, const TeplugIID* iid) {
  if (iid == nullptr ||
      !(teplug_iid_equal(iid, &kAttentionIid) || teplug_iid_equal(iid, &kObjectIid)))
    return nullptr;
  AddRef(self);
  return self;
}

TeplugError* Workspace(TeplugAttentionV1*, int32_t, const void*, size_t* bytes) {
  *bytes = 0;
  return nullptr;
}

TeplugError* Forward(TeplugAttentionV1*, const TeplugAttentionFwdArgs* a) {
  if (a == nullptr || a->params == nullptr || a->q == nullptr || a->k == nullptr ||
      a->v == nullptr || a->o == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT, "forward: params, q, k, v and o are required");
  const TeplugAttentionParams& p = *a->params;
  const int64_t b_n = p.batch, sq = p.max_seqlen_q, skv = p.max_seqlen_kv, h_n = p.num_heads_q,
                d_n = p.head_dim_qk;
  const auto* q = static_cast<const float*>(a->q->data);
  const auto* k = static_cast<const float*>(a->k->data);
  const auto* v = static_cast<const float*>(a->v->data);
  auto* o = static_cast<float*>(a->o->data);
  auto at = [&](int64_t b, int64_t s, int64_t seq, int64_t h, int64_t d) {
    return ((b * seq + s) * h_n + h) * d_n + d;
  };
  std::vector<double> score(static_cast<size_t>(skv));
  for (int64_t b = 0; b < b_n; ++b)
    for (int64_t h = 0; h < h_n; ++h)
      for (int64_t i = 0; i < sq; ++i) {
        double top = -INFINITY;
        for (int64_t j = 0; j < skv; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < d_n; ++d)
            dot += double{q[at(b, i, sq, h, d)]} * k[at(b, j, skv, h, d)];
          score[j] = dot;  // the lie: softmax_scale is never applied
          top = std::max(top, dot);
        }
        double sum = 0;
        for (int64_t j = 0; j < skv; ++j) sum += std::exp(score[j] - top);
        for (int64_t d = 0; d < d_n; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < skv; ++j)
            acc += std::exp(score[j] - top) / sum * v[at(b, j, skv, h, d)];
          o[at(b, i, sq, h, d)] = static_cast<float>(acc);
        }
        if (a->softmax_lse != nullptr)
          static_cast<float*>(a->softmax_lse->data)[(b * h_n + h) * sq + i] =
              static_cast<float>(top + std::log(sum));
      }
  return nullptr;
}
TeplugError* Backward(TeplugAttentionV1*, const TeplugAttentionBwdArgs*) {
  return Error(TEPLUG_UNSUPPORTED, "backward: not served");
}

const TeplugAttentionV1Vtbl kVtbl = {{sizeof(TeplugAttentionV1Vtbl), &Query, &AddRef, &Release},
                                     nullptr,
                                     &Workspace,
                                     &Forward,
                                     &Backward};
TeplugAttentionV1 g_attention = {&kVtbl};

const TeplugDeviceSupport kCpu[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};
TeplugAttentionCaps MakeCaps() {
  TeplugAttentionCaps c = {};
  c.struct_size = sizeof c;
  c.devices = kCpu;
  c.num_devices = 1;
  c.qkv_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  c.layouts = TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_BSHD_BSHD_BSHD);
  c.mask_types = TEPLUG_MASK_BIT(TEPLUG_MASK_NONE);
  c.bias_types = TEPLUG_BIAS_BIT(TEPLUG_BIAS_NONE);
  return c;
}
const TeplugAttentionCaps kCaps = MakeCaps();

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  return conformance_plugins::RegisterOne(
      host, info, "conformance_attention_numbers", kAttentionIid,
      reinterpret_cast<TeplugObject*>(&g_attention), &kCaps, "unscaled");
}
