#include "tools/teplug/conformance_attention_call.h"

#include <cmath>
#include <cstring>
#include <random>

#include "absl/strings/str_cat.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/teplug/conformance_contract.h"
#include "tools/teplug/conformance_interface.h"

namespace teplug::cli {
namespace {

void WriteFloat(const TeplugTensor* t, float value) { std::memcpy(t->data, &value, sizeof value); }

// Gives `t` per-tensor quantization with `scale` and scale_inv = 1/scale
// (powers of two, so both are exact).
void SetPerTensorScale(HostTensor* t, float scale) {
  t->AttachQuantization(TEPLUG_SCALING_PER_TENSOR);
  WriteFloat(t->tensor()->quant->scale, scale);
  WriteFloat(t->tensor()->quant->scale_inv, 1.0f / scale);
}

// Random fp8 codes of magnitude 2^-3..1 (exponent fields 4..6 of e4m3,
// 12..14 of e5m2, any mantissa), either sign, with a scale_inv of 1/2 or 1.
void FillFp8(HostTensor* t, std::mt19937_64* rng) {
  const bool e4m3 = t->dtype() == TEPLUG_DTYPE_FP8_E4M3;
  auto* codes = static_cast<uint8_t*>(t->tensor()->data);
  for (int64_t i = 0; i < t->count(); ++i) {
    const uint64_t r = (*rng)();
    const uint8_t sign = static_cast<uint8_t>((r & 1) << 7);
    const uint64_t exponent = (e4m3 ? 4 : 12) + (r >> 1) % 3;
    const uint64_t mantissa = (r >> 8) & (e4m3 ? 7 : 3);
    codes[i] = static_cast<uint8_t>(sign | (exponent << (e4m3 ? 3 : 2)) | mantissa);
  }
  SetPerTensorScale(t, (*rng)() & 1 ? 1.0f : 2.0f);
}

void FillInput(HostTensor* t, std::mt19937_64* rng) {
  if (IsFp8DType(t->dtype())) {
    FillFp8(t, rng);
  } else {
    FillNonZero(t, rng);
  }
}

// [S, B] for sbhd, [B, S] for bshd, [T] for thd.
std::vector<int64_t> Lead(const AttentionCase& c, int64_t seq, int64_t tokens) {
  switch (FormatOf(c.layout)) {
    case QkvFormat::kSbhd:
      return {seq, c.batch};
    case QkvFormat::kBshd:
      return {c.batch, seq};
    default:
      return {tokens};
  }
}

std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Q, K, V (or their gradients, names prefixed "d") of `dtype` in the case's layout.
QkvBuffers MakeQkv(const AttentionInputs& in, int32_t dtype, const std::string& prefix) {
  const AttentionCase& c = in.c;
  QkvBuffers b;
  b.packing = PackingOf(c.layout);
  const std::vector<int64_t> lead_q = Lead(c, c.seq_q, in.tokens_q);
  const std::vector<int64_t> lead_kv = Lead(c, c.seq_kv, in.tokens_kv);
  const bool after = PackedAfterHeads(c.layout);
  const int64_t hkv = KvHeads(c);
  switch (b.packing) {
    case QkvPacking::kQkvPacked:
      b.q = HostTensor(prefix + "qkv", dtype,
                       Concat(lead_q, after ? std::vector<int64_t>{c.heads, 3, c.head_dim}
                                            : std::vector<int64_t>{3, c.heads, c.head_dim}));
      break;
    case QkvPacking::kKvPacked:
      b.q = HostTensor(prefix + "q", dtype, Concat(lead_q, {c.heads, c.head_dim}));
      b.k = HostTensor(prefix + "kv", dtype,
                       Concat(lead_kv, after ? std::vector<int64_t>{hkv, 2, c.head_dim}
                                             : std::vector<int64_t>{2, hkv, c.head_dim}));
      break;
    case QkvPacking::kSeparate:
      b.q = HostTensor(prefix + "q", dtype, Concat(lead_q, {c.heads, c.head_dim}));
      b.k = HostTensor(prefix + "k", dtype, Concat(lead_kv, {hkv, c.head_dim}));
      b.v = HostTensor(prefix + "v", dtype, Concat(lead_kv, {hkv, c.head_dim_v}));
      break;
  }
  return b;
}

// Per-sequence lengths in [1, max], one shorter than max when max > 1.
std::vector<int64_t> Lengths(int64_t batch, int64_t max, std::mt19937_64* rng) {
  std::vector<int64_t> lengths(static_cast<size_t>(batch));
  bool all_full = true;
  for (int64_t& l : lengths) {
    l = 1 + static_cast<int64_t>((*rng)() % static_cast<uint64_t>(max));
    all_full = all_full && l == max;
  }
  if (all_full && max > 1)
    lengths.back() = 1 + static_cast<int64_t>((*rng)() % static_cast<uint64_t>(max - 1));
  return lengths;
}

// int32 [batch + 1] prefix sums of `lengths`; returns the total.
int64_t SetCuSeqlens(const std::vector<int64_t>& lengths, const char* name, HostTensor* t) {
  *t = HostTensor(name, TEPLUG_DTYPE_INT32, {static_cast<int64_t>(lengths.size()) + 1});
  auto* sums = static_cast<int32_t*>(t->tensor()->data);
  sums[0] = 0;
  for (size_t b = 0; b < lengths.size(); ++b)
    sums[b + 1] = sums[b] + static_cast<int32_t>(lengths[b]);
  return sums[lengths.size()];
}

// The dtype of a pre/post-scale bias: q's, or bf16 for fp8 inputs.
int32_t BiasDType(const AttentionCase& c) {
  return IsFp8DType(c.dtype) ? TEPLUG_DTYPE_BF16 : c.dtype;
}

bool TakesBiasTensor(const AttentionCase& c) {
  return c.bias == TEPLUG_BIAS_PRE_SCALE || c.bias == TEPLUG_BIAS_POST_SCALE;
}

std::vector<int64_t> OutputShape(const AttentionInputs& in) {
  return Concat(Lead(in.c, in.c.seq_q, in.tokens_q), {in.c.heads, in.c.head_dim_v});
}


template <typename Args>
std::string Call(const core::Kernel& kernel, const std::string& provider, int32_t op, Args a,
                 const char* who,
                 TeplugError* (*TeplugAttentionV1Vtbl::*run)(TeplugAttentionV1*, const Args*),
                 const CaseDevice* where) {
  DeviceStaging staging(where);
  if (std::string e = staging.Stage(StagedTensorsOf(a)); !e.empty())
    return absl::StrCat(who, ": ", e);
  absl::StatusOr<core::Selection> s = kernel.Select(sdk::kIidAttentionV1, op, &a, provider);
  if (!s.ok())
    return absl::StrCat(who, " does not serve it: ", KernelMessageHead(s.status().message()));
  auto* at = s->as<TeplugAttentionV1>();
  size_t bytes = 0;
  if (std::string e = TakeError(at->vtbl->workspace_size(at, op, &a, &bytes), "workspace_size");
      !e.empty())
    return absl::StrCat(who, " failed: ", e);
  if (std::string e = staging.Workspace(bytes, &a.workspace); !e.empty())
    return absl::StrCat(who, ": ", e);
  a.workspace_size = bytes;
  a.stream = staging.stream();
  if (std::string e = TakeError((at->vtbl->*run)(at, &a), sdk::OpName(op)); !e.empty())
    return absl::StrCat(who, " failed: ", e);
  if (std::string e = staging.Finish(); !e.empty()) return absl::StrCat(who, ": ", e);
  return "";
}

}  // namespace

TeplugTensor* QkvBuffers::Member(int member) {
  if (packing == QkvPacking::kQkvPacked) return q.tensor();
  if (packing == QkvPacking::kKvPacked) return member == 0 ? q.tensor() : k.tensor();
  return member == 0 ? q.tensor() : member == 1 ? k.tensor() : v.tensor();
}

std::vector<HostTensor*> QkvBuffers::Buffers() {
  if (packing == QkvPacking::kQkvPacked) return {&q};
  if (packing == QkvPacking::kKvPacked) return {&q, &k};
  return {&q, &k, &v};
}

std::vector<const HostTensor*> QkvBuffers::Buffers() const {
  std::vector<const HostTensor*> out;
  for (HostTensor* b : const_cast<QkvBuffers*>(this)->Buffers()) out.push_back(b);
  return out;
}

std::unique_ptr<AttentionInputs> MakeAttentionInputs(const AttentionCase& c, uint64_t seed) {
  auto in = std::make_unique<AttentionInputs>();
  in->c = c;
  std::mt19937_64 rng(seed);
  TeplugAttentionParams& p = in->params;
  p = sdk::Versioned<TeplugAttentionParams>();
  if (IsPaddingMask(c.mask) || FormatOf(c.layout) == QkvFormat::kThd) {
    const std::vector<int64_t> lengths_q = Lengths(c.batch, c.seq_q, &rng);
    const std::vector<int64_t> lengths_kv = PackingOf(c.layout) == QkvPacking::kQkvPacked
                                                ? lengths_q
                                                : Lengths(c.batch, c.seq_kv, &rng);
    const int64_t total_q = SetCuSeqlens(lengths_q, "cu_seqlens_q", &in->cu_seqlens_q);
    const int64_t total_kv = SetCuSeqlens(lengths_kv, "cu_seqlens_kv", &in->cu_seqlens_kv);
    if (FormatOf(c.layout) == QkvFormat::kThd) in->tokens_q = total_q, in->tokens_kv = total_kv;
    p.cu_seqlens_q = in->cu_seqlens_q.tensor();
    p.cu_seqlens_kv = in->cu_seqlens_kv.tensor();
  }
  // Every position of every buffer gets a value, padding included: an
  // implementation that reads past a sequence's length reads noise.
  in->qkv = MakeQkv(*in, c.dtype, "");
  for (HostTensor* b : in->qkv.Buffers()) FillInput(b, &rng);
  in->d_o = HostTensor("d_o", c.dtype, OutputShape(*in));
  FillInput(&in->d_o, &rng);
  if (TakesBiasTensor(c)) {
    in->bias = HostTensor(
        "bias", BiasDType(c),
        {c.bias_full_batch ? c.batch : 1, c.bias_full_heads ? c.heads : 1, c.seq_q, c.seq_kv});
    FillNonZero(&in->bias, &rng);
  }
  if (c.bias == TEPLUG_BIAS_ALIBI && c.alibi_slopes_given) {
    in->alibi_slopes = HostTensor("alibi_slopes", TEPLUG_DTYPE_FP32, {c.heads});
    std::uniform_real_distribution<double> slope(0.05, 0.5);
    std::vector<double> slopes(static_cast<size_t>(c.heads));
    for (double& s : slopes) s = slope(rng);
    in->alibi_slopes.SetValues(slopes);
    p.alibi_slopes = in->alibi_slopes.tensor();
  }
  if (IsFp8DType(c.dtype)) {
    in->s_scales = HostTensor("s", c.dtype, {1});
    SetPerTensorScale(&in->s_scales, 64.0f);  // P in [0, 1/(1 - dropout)]
    in->dp_scales = HostTensor("dp", c.dtype, {1});
    SetPerTensorScale(&in->dp_scales, 16.0f);
  }
  p.layout = c.layout;
  p.mask_type = c.mask;
  p.bias_type = c.bias;
  p.is_training = 1;
  p.batch = c.batch;
  p.num_heads_q = c.heads;
  p.num_heads_kv = KvHeads(c);
  p.head_dim_qk = c.head_dim;
  p.head_dim_v = c.head_dim_v;
  p.max_seqlen_q = c.seq_q;
  p.max_seqlen_kv = c.seq_kv;
  p.window_left = c.window_left;
  p.window_right = c.window_right;
  p.softmax_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.head_dim)));
  p.dropout = static_cast<float>(c.dropout);
  p.rng_seed = rng();
  p.rng_offset = rng();
  p.deterministic = c.deterministic ? 1 : 0;
  return in;
}

ForwardOutputs MakeForwardOutputs(const AttentionInputs& in) {
  ForwardOutputs out{
      HostTensor("o", in.c.dtype, OutputShape(in)),
      HostTensor("softmax_lse", TEPLUG_DTYPE_FP32, {in.c.batch, in.c.heads, in.c.seq_q})};
  if (IsFp8DType(in.c.dtype))
    SetPerTensorScale(&out.o, in.c.dtype == TEPLUG_DTYPE_FP8_E4M3 ? 64.0f : 256.0f);
  return out;
}

BackwardOutputs MakeBackwardOutputs(const AttentionInputs& in) {
  BackwardOutputs out;
  out.d = MakeQkv(in, in.c.dtype, "d");
  if (IsFp8DType(in.c.dtype))
    for (HostTensor* b : out.d.Buffers()) SetPerTensorScale(b, 16.0f);
  if (TakesBiasTensor(in.c)) {
    const TeplugTensor* bias = in.bias.tensor();
    out.dbias = HostTensor("dbias", bias->dtype,
                           std::vector<int64_t>(bias->shape, bias->shape + bias->rank));
  }
  return out;
}

TeplugAttentionFwdArgs ForwardArgs(AttentionInputs* in, ForwardOutputs* out) {
  TeplugAttentionFwdArgs a = sdk::Versioned<TeplugAttentionFwdArgs>();
  a.params = &in->params;
  a.q = in->qkv.Member(0);
  a.k = in->qkv.Member(1);
  a.v = in->qkv.Member(2);
  a.bias = TakesBiasTensor(in->c) ? in->bias.tensor() : nullptr;
  a.o = out->o.tensor();
  a.softmax_lse = out->lse.tensor();
  a.s_quant = IsFp8DType(in->c.dtype) ? in->s_scales.tensor()->quant : nullptr;
  return a;
}

TeplugAttentionBwdArgs BackwardArgs(AttentionInputs* in, const ForwardOutputs& fwd,
                                    BackwardOutputs* out) {
  TeplugAttentionBwdArgs a = sdk::Versioned<TeplugAttentionBwdArgs>();
  a.params = &in->params;
  a.q = in->qkv.Member(0);
  a.k = in->qkv.Member(1);
  a.v = in->qkv.Member(2);
  a.o = fwd.o.tensor();
  a.d_o = in->d_o.tensor();
  a.softmax_lse = fwd.lse.tensor();
  a.bias = TakesBiasTensor(in->c) ? in->bias.tensor() : nullptr;
  a.dq = out->d.Member(0);
  a.dk = out->d.Member(1);
  a.dv = out->d.Member(2);
  a.dbias = TakesBiasTensor(in->c) ? out->dbias.tensor() : nullptr;
  a.s_quant = IsFp8DType(in->c.dtype) ? in->s_scales.tensor()->quant : nullptr;
  a.dp_quant = IsFp8DType(in->c.dtype) ? in->dp_scales.tensor()->quant : nullptr;
  return a;
}

std::string CallForward(const core::Kernel& kernel, const std::string& provider,
                        TeplugAttentionFwdArgs args, const char* who, const CaseDevice* where) {
  return Call(kernel, provider, TEPLUG_OP_ATTENTION_FORWARD, args, who,
              &TeplugAttentionV1Vtbl::forward, where);
}

std::string CallBackward(const core::Kernel& kernel, const std::string& provider,
                         TeplugAttentionBwdArgs args, const char* who, const CaseDevice* where) {
  return Call(kernel, provider, TEPLUG_OP_ATTENTION_BACKWARD, args, who,
              &TeplugAttentionV1Vtbl::backward, where);
}

bool SameBytes(const HostTensor& a, const HostTensor& b) {
  const size_t bytes = static_cast<size_t>(a.count() * sdk::DTypeBits(a.dtype()) / 8);
  return a.count() == b.count() && a.dtype() == b.dtype() &&
         std::memcmp(a.tensor()->data, b.tensor()->data, bytes) == 0;
}

double RecordedAmax(const HostTensor& t) {
  float amax = 0;
  std::memcpy(&amax, t.tensor()->quant->amax->data, sizeof amax);
  return amax;
}

}  // namespace teplug::cli
