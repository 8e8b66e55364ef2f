// An fp32 attention (plain C ABI, bshd_bshd_bshd, masks none and padding,
// forward and backward, deterministic) that is honest unless built with one
// lie:
//   LIE_NUMBERS           ignores softmax_scale in the forward's scores;
//   LIE_PADDING           ignores cu_seqlens: every sequence is taken at its
//                         padded length, so padding keys are attended and
//                         padding rows written;
//   LIE_BACKWARD          leaves softmax_scale out of dQ, a classic slip;
//   LIE_NONDETERMINISTIC  with deterministic set, every other backward call
//                         moves dQ[0] by one ulp (as a racy reduction would):
//                         within tolerance, but not bitwise reproducible.
//   LIE_ABOVE_64          reads only the first 64 elements of each head in
//                         its dot products, though it declares head dims up
//                         to 128 (with HEAD_DIM_MAX_128).
// Declared limits, each refused (unsupported) past it: HEAD_DIM_MAX_128
// (head_dim_max 128), HEAD_DIM_MULTIPLE_16 (head_dim_multiple 16).
// `teplug conformance` must pass the honest copy and fail each liar on the
// claims its lie touches (every claim; mask_types=padding;
// features=backward; features=deterministic; head_dim_max=128). Built with ON_OPAQUE_DEVICE it
// serves the opencl:0 device of opaque_device.h instead of the CPU (its
// tensors' data are that device's handles) and registers that IDevice too.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <vector>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_plugins/plugin_parts.h"
#ifdef ON_OPAQUE_DEVICE
#include "tools/teplug/conformance_plugins/opaque_device.h"
#endif

namespace {

using conformance_plugins::AddRef;
using conformance_plugins::Error;
using conformance_plugins::Release;

const TeplugIID kAttentionIid = TEPLUG_IID_ATTENTION_V1_INIT;
const TeplugIID kObjectIid = TEPLUG_IID_OBJECT_INIT;

// The host address of a tensor's data.
template <typename T>
T* Data(const TeplugTensor* t) {
#ifdef ON_OPAQUE_DEVICE
  return static_cast<T*>(opaque_device::Host(t->data));
#else
  return static_cast<T*>(t->data);
#endif
}

TeplugObject* Query(TeplugObject* self, const TeplugIID* iid) {
  if (iid == nullptr ||
      !(teplug_iid_equal(iid, &kAttentionIid) || teplug_iid_equal(iid, &kObjectIid)))
    return nullptr;
  AddRef(self);
  return self;
}

// The refusal of head dims outside the declared limits; NULL inside them.
TeplugError* OutsideLimits(const TeplugAttentionParams* p) {
  for (int64_t d : {p->head_dim_qk, p->head_dim_v}) {
#ifdef HEAD_DIM_MAX_128
    if (d > 128) return Error(TEPLUG_UNSUPPORTED, "a head dim above 128");
#endif
#ifdef HEAD_DIM_MULTIPLE_16
    if (d % 16 != 0) return Error(TEPLUG_UNSUPPORTED, "a head dim not a multiple of 16");
#endif
    (void)d;
  }
  return nullptr;
}

TeplugError* Workspace(TeplugAttentionV1*, int32_t op, const void* args, size_t* bytes) {
  if (bytes == nullptr) return Error(TEPLUG_INVALID_ARGUMENT, "workspace_size: bytes is NULL");
  if (args == nullptr) return Error(TEPLUG_INVALID_ARGUMENT, "workspace_size: args is NULL");
  const TeplugAttentionParams* params =
      op == TEPLUG_OP_ATTENTION_FORWARD
          ? static_cast<const TeplugAttentionFwdArgs*>(args)->params
          : static_cast<const TeplugAttentionBwdArgs*>(args)->params;
  if (params == nullptr) return Error(TEPLUG_INVALID_ARGUMENT, "workspace_size: params is NULL");
  if (TeplugError* e = OutsideLimits(params)) return e;
  *bytes = 0;
  return nullptr;
}

// One call's geometry: [B, S, H, D] tensors, the actual lengths per batch.
struct Problem {
  int64_t batch, sq, skv, heads, dim;
  double scale;
  std::vector<int64_t> len_q, len_kv;

  size_t Q(int64_t b, int64_t s, int64_t h) const { return ((b * sq + s) * heads + h) * dim; }
  size_t Kv(int64_t b, int64_t s, int64_t h) const { return ((b * skv + s) * heads + h) * dim; }
  size_t Row(int64_t b, int64_t h, int64_t i) const { return (b * heads + h) * sq + i; }
};

// Per-batch lengths: from cu_seqlens (int32 prefix sums) for the padding
// mask, else the padded length.
std::vector<int64_t> Lengths(const TeplugAttentionParams& p, const TeplugTensor* cu, int64_t max) {
  std::vector<int64_t> lengths(static_cast<size_t>(p.batch), max);
#ifndef LIE_PADDING
  if (p.mask_type == TEPLUG_MASK_PADDING && cu != nullptr) {
    const auto* sums = Data<const int32_t>(cu);
    for (int64_t b = 0; b < p.batch; ++b) lengths[b] = sums[b + 1] - sums[b];
  }
#endif
  return lengths;
}

Problem Read(const TeplugAttentionParams& p) {
  return {p.batch,
          p.max_seqlen_q,
          p.max_seqlen_kv,
          p.num_heads_q,
          p.head_dim_qk,
          p.softmax_scale,
          Lengths(p, p.cu_seqlens_q, p.max_seqlen_q),
          Lengths(p, p.cu_seqlens_kv, p.max_seqlen_kv)};
}

double Dot(const float* a, const float* b, int64_t n) {
#ifdef LIE_ABOVE_64
  n = std::min<int64_t>(n, 64);
#endif
  double sum = 0;
  for (int64_t d = 0; d < n; ++d) sum += double{a[d]} * b[d];
  return sum;
}

TeplugError* Forward(TeplugAttentionV1*, const TeplugAttentionFwdArgs* a) {
  if (a == nullptr || a->params == nullptr || a->q == nullptr || a->k == nullptr ||
      a->v == nullptr || a->o == nullptr || a->softmax_lse == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT,
                 "forward: params, q, k, v, o and softmax_lse are required");
  if (TeplugError* e = OutsideLimits(a->params)) return e;
  if (a->q->dtype != TEPLUG_DTYPE_FP32 || a->k->dtype != TEPLUG_DTYPE_FP32 ||
      a->v->dtype != TEPLUG_DTYPE_FP32)
    return Error(TEPLUG_UNSUPPORTED, "only fp32 q, k and v");
  const Problem p = Read(*a->params);
  const auto* q = Data<const float>(a->q);
  const auto* k = Data<const float>(a->k);
  const auto* v = Data<const float>(a->v);
  auto* o = Data<float>(a->o);
  auto* lse = Data<float>(a->softmax_lse);
  std::memset(o, 0, sizeof(float) * p.batch * p.sq * p.heads * p.dim);
  std::vector<double> s(static_cast<size_t>(p.skv));
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.heads; ++h)
      for (int64_t i = 0; i < p.sq; ++i) {
        lse[p.Row(b, h, i)] = -INFINITY;
        if (i >= p.len_q[b] || p.len_kv[b] == 0) continue;
        double top = -INFINITY;
        for (int64_t j = 0; j < p.len_kv[b]; ++j) {
#ifdef LIE_NUMBERS
          s[j] = Dot(q + p.Q(b, i, h), k + p.Kv(b, j, h), p.dim);
#else
          s[j] = p.scale * Dot(q + p.Q(b, i, h), k + p.Kv(b, j, h), p.dim);
#endif
          top = std::max(top, s[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < p.len_kv[b]; ++j) sum += std::exp(s[j] - top);
        for (int64_t d = 0; d < p.dim; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < p.len_kv[b]; ++j)
            acc += std::exp(s[j] - top) / sum * v[p.Kv(b, j, h) + d];
          o[p.Q(b, i, h) + d] = static_cast<float>(acc);
        }
        lse[p.Row(b, h, i)] = static_cast<float>(top + std::log(sum));
      }
  return nullptr;
}

// dV = P^T dO, dS = P * (dO V^T - rowsum(dO * O)), dQ = scale dS K,
// dK = scale dS^T Q, with P rebuilt from the forward's LSE.
TeplugError* Backward(TeplugAttentionV1*, const TeplugAttentionBwdArgs* a) {
  if (a == nullptr || a->params == nullptr || a->q == nullptr || a->k == nullptr ||
      a->v == nullptr || a->o == nullptr || a->d_o == nullptr || a->softmax_lse == nullptr ||
      a->dq == nullptr || a->dk == nullptr || a->dv == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT, "backward: a required tensor is NULL");
  if (TeplugError* e = OutsideLimits(a->params)) return e;
  if (a->q->dtype != TEPLUG_DTYPE_FP32 || a->k->dtype != TEPLUG_DTYPE_FP32 ||
      a->v->dtype != TEPLUG_DTYPE_FP32)
    return Error(TEPLUG_UNSUPPORTED, "only fp32 q, k and v");
  const Problem p = Read(*a->params);
  const auto* q = Data<const float>(a->q);
  const auto* k = Data<const float>(a->k);
  const auto* v = Data<const float>(a->v);
  const auto* o = Data<const float>(a->o);
  const auto* d_o = Data<const float>(a->d_o);
  const auto* lse = Data<const float>(a->softmax_lse);
  const size_t q_count = static_cast<size_t>(p.batch * p.sq * p.heads * p.dim);
  const size_t kv_count = static_cast<size_t>(p.batch * p.skv * p.heads * p.dim);
  std::vector<double> dq(q_count), dk(kv_count), dv(kv_count);
#ifdef LIE_BACKWARD
  const double dq_scale = 1.0;  // the lie
#else
  const double dq_scale = p.scale;
#endif
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.heads; ++h)
      for (int64_t i = 0; i < p.len_q[b]; ++i) {
        const float* qi = q + p.Q(b, i, h);
        const float* doi = d_o + p.Q(b, i, h);
        const double row_lse = lse[p.Row(b, h, i)];
        if (std::isinf(row_lse)) continue;
        const double rowsum = Dot(doi, o + p.Q(b, i, h), p.dim);
        for (int64_t j = 0; j < p.len_kv[b]; ++j) {
          const size_t kj = p.Kv(b, j, h);
          const double prob = std::exp(p.scale * Dot(qi, k + kj, p.dim) - row_lse);
          const double ds = prob * (Dot(doi, v + kj, p.dim) - rowsum);
          for (int64_t d = 0; d < p.dim; ++d) {
            dv[kj + d] += prob * doi[d];
            dq[p.Q(b, i, h) + d] += dq_scale * ds * k[kj + d];
            dk[kj + d] += p.scale * ds * qi[d];
          }
        }
      }
  auto store = [](const std::vector<double>& from, TeplugTensor* to) {
    auto* out = Data<float>(to);
    for (size_t i = 0; i < from.size(); ++i) out[i] = static_cast<float>(from[i]);
  };
  store(dq, a->dq);
#ifdef LIE_NONDETERMINISTIC
  static std::atomic<uint32_t> calls{0};
  auto* dq0 = Data<float>(a->dq);
  if (a->params->deterministic && (calls++ & 1) != 0) *dq0 = std::nextafter(*dq0, INFINITY);
#endif
  store(dk, a->dk);
  store(dv, a->dv);
  return nullptr;
}

const TeplugAttentionV1Vtbl kVtbl = {{sizeof(TeplugAttentionV1Vtbl), &Query, &AddRef, &Release},
                                     nullptr,
                                     &Workspace,
                                     &Forward,
                                     &Backward};
TeplugAttentionV1 g_attention = {&kVtbl};

#ifdef ON_OPAQUE_DEVICE
const TeplugDeviceSupport* const kServed = opaque_device::kOpencl;
#else
const TeplugDeviceSupport kServed[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};
#endif
TeplugAttentionCaps MakeCaps() {
  TeplugAttentionCaps c = {};
  c.struct_size = sizeof c;
  c.devices = kServed;
  c.num_devices = 1;
  c.qkv_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  c.layouts = TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_BSHD_BSHD_BSHD);
  c.mask_types = TEPLUG_MASK_BIT(TEPLUG_MASK_NONE) | TEPLUG_MASK_BIT(TEPLUG_MASK_PADDING);
  c.bias_types = TEPLUG_BIAS_BIT(TEPLUG_BIAS_NONE);
  c.features = TEPLUG_ATTN_CAP_BACKWARD | TEPLUG_ATTN_CAP_DETERMINISTIC;
#ifdef HEAD_DIM_MAX_128
  c.head_dim_max = 128;
#endif
#ifdef HEAD_DIM_MULTIPLE_16
  c.head_dim_multiple = 16;
#endif
  return c;
}
const TeplugAttentionCaps kCaps = MakeCaps();

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
#ifdef ON_OPAQUE_DEVICE
  if (TeplugError* e = conformance_plugins::RegisterOne(
          host, info, PLUGIN_PROVIDER_NAME, opaque_device::kDeviceIid,
          reinterpret_cast<TeplugObject*>(&opaque_device::g_opaque_device),
          &opaque_device::kOpaqueDeviceCaps, "opaque_device"))
    return e;
  return conformance_plugins::RegisterImplementation(
      host, kAttentionIid, reinterpret_cast<TeplugObject*>(&g_attention), &kCaps, "fp32");
#else
  return conformance_plugins::RegisterOne(host, info, PLUGIN_PROVIDER_NAME, kAttentionIid,
                                          reinterpret_cast<TeplugObject*>(&g_attention), &kCaps,
                                          "fp32");
#endif
}
