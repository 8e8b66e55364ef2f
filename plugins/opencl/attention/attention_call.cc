#include "plugins/opencl/attention/attention_call.h"

#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "plugins/opencl/provider/device_address_space.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::opencl::attention {
namespace {

using provider::DeviceAddressSpace;
using provider::ResolvedAddress;

bool IsPaddingMask(int32_t m) {
  return m == TEPLUG_MASK_PADDING || m == TEPLUG_MASK_PADDING_CAUSAL ||
         m == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
}

bool IsCausalMask(int32_t m) {
  return m == TEPLUG_MASK_CAUSAL || m == TEPLUG_MASK_PADDING_CAUSAL ||
         m == TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT || m == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
}

size_t ElementBytes(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP32 || dtype == TEPLUG_DTYPE_INT32 ? 4 : 2;
}

// Where member `member` (0 Q, 1 K, 2 V) of a layout lives in the buffer passed
// for it: how many members that buffer packs, which one this is, and whether
// the packing axis follows the heads ("h3d", "h2d").
struct Packing {
  int64_t members = 1, index = 0;
  bool after_heads = false;
};

Packing PackingOf(int32_t layout, int member) {
  Packing p;
  switch (layout % 5) {  // per format: 3hd, h3d, hd_2hd, hd_h2d, hd_hd_hd
    case 0:
    case 1:
      p.members = 3, p.index = member;
      break;
    case 2:
    case 3:
      if (member > 0) p.members = 2, p.index = member - 1;
      break;
    default:
      break;
  }
  p.after_heads = p.members > 1 && layout % 5 % 2 == 1;
  return p;
}

SequenceFormat FormatOf(int32_t layout) {
  if (layout <= TEPLUG_LAYOUT_SBHD_SBHD_SBHD) return SequenceFormat::kSbhd;
  if (layout <= TEPLUG_LAYOUT_BSHD_BSHD_BSHD) return SequenceFormat::kBshd;
  return SequenceFormat::kThd;
}

std::string Shape(const int64_t* s, int rank) {
  return absl::StrCat("[", absl::StrJoin(s, s + rank, ", "), "]");
}

// A tensor's fields after the struct_size check, with the row-major strides
// filled in when the caller gave zeros; on an OpenCL device.
TeplugTensor ReadTensor(const TeplugTensor* p, const std::string& name) {
  TeplugTensor t;
  if (p == nullptr) throw sdk::InvalidArgument(name + " is NULL");
  if (!sdk::ReadVersioned(p, &t, TEPLUG_STRUCT_SIZE(TeplugTensor, quant))) {
    throw sdk::InvalidArgument(
        absl::StrCat(name, ".struct_size ", p->struct_size, " is smaller than a v1 TeplugTensor"));
  }
  if (t.rank < 0 || t.rank > TEPLUG_MAX_RANK)
    throw sdk::InvalidArgument(absl::StrCat(name, ".rank ", t.rank, " is outside 0..8"));
  if (t.device == nullptr || t.device->kind != TEPLUG_DEVICE_OPENCL) {
    throw sdk::Unsupported(
        absl::StrCat(name, " is not on an OpenCL device (kind ",
                     t.device == nullptr ? TEPLUG_DEVICE_CPU : t.device->kind,
                     "); the opencl attention reads memory of the opencl IDevice only"));
  }
  if (t.quant != nullptr)
    throw sdk::Unsupported(name + " is quantized; the opencl attention serves fp32, fp16 and bf16");
  bool any = false, all = true;
  for (int r = 0; r < t.rank; ++r) any |= t.strides[r] != 0, all &= t.strides[r] != 0;
  if (any && !all) throw sdk::InvalidArgument(name + ": strides mix zero and non-zero entries");
  if (!any) {
    int64_t s = 1;
    for (int r = t.rank - 1; r >= 0; --r) t.strides[r] = s, s *= t.shape[r];
  }
  for (int r = 0; r < t.rank; ++r) {
    if (t.shape[r] < 0)
      throw sdk::InvalidArgument(absl::StrCat(name, ".shape[", r, "] is ", t.shape[r]));
    if (t.strides[r] < 0) {
      throw sdk::Unsupported(absl::StrCat(name, ".strides[", r, "] is ", t.strides[r],
                                          "; the opencl attention takes positive strides"));
    }
  }
  return t;
}

void RequireShape(const TeplugTensor& t, const std::vector<int64_t>& want, const std::string& name,
                  const char* why) {
  bool same = t.rank == static_cast<int32_t>(want.size());
  for (int r = 0; same && r < t.rank; ++r) same = t.shape[r] == want[r];
  if (!same) {
    throw sdk::InvalidArgument(absl::StrCat(name, " has shape ", Shape(t.shape, t.rank), "; ", why,
                                            " ",
                                            Shape(want.data(), static_cast<int>(want.size()))));
  }
}

// Resolves [data, last element] of `t` to (cl_mem, element offset), checking
// the owner; with no data and !need_data, a NULL buffer.
cl_mem Resolve(const TeplugTensor& t, const std::string& name, bool need_data, int64_t* off,
               const void** owner) {
  int64_t last = 0, count = 1;
  for (int r = 0; r < t.rank; ++r) {
    count *= t.shape[r];
    if (t.shape[r] > 0) last += (t.shape[r] - 1) * t.strides[r];
  }
  if (count == 0) return nullptr;
  if (t.data == nullptr) {
    if (need_data) throw sdk::InvalidArgument(name + ".data is NULL");
    return nullptr;
  }
  const size_t es = ElementBytes(t.dtype);
  const size_t bytes = (static_cast<size_t>(last) + 1) * es;
  ResolvedAddress r;
  if (!DeviceAddressSpace::Instance().Resolve(t.data, bytes, &r)) {
    throw sdk::InvalidArgument(absl::StrCat(name, ": [data, +", bytes,
                                            " bytes) is not inside memory allocated by the "
                                            "opencl IDevice"));
  }
  if (r.offset % es != 0) {
    throw sdk::InvalidArgument(absl::StrCat(name, ".data is ", r.offset,
                                            " bytes into its buffer, not a multiple of ", es));
  }
  if (*owner == nullptr) *owner = r.owner;
  if (r.owner != *owner) {
    throw sdk::InvalidArgument(
        name + " is memory of another opencl context than the call's other tensors");
  }
  *off = static_cast<int64_t>(r.offset / es);
  return r.buffer;
}

// The addressing of a [lead.., (members,) heads, (members,) dim] tensor.
HeadTensor ReadHeads(const TeplugTensor* p, const std::string& name, const AttentionShape& s,
                     Packing pack, bool q_side, int64_t heads, int64_t dim, bool need_data,
                     const void** owner) {
  const TeplugTensor t = ReadTensor(p, name);
  if (t.dtype != s.dtype) {
    throw sdk::InvalidArgument(
        absl::StrCat(name, " is ", sdk::DTypeName(t.dtype), " but q is ", sdk::DTypeName(s.dtype)));
  }
  const int64_t seq = q_side ? s.max_sq : s.max_skv;
  std::vector<int64_t> want;
  switch (s.format) {
    case SequenceFormat::kSbhd:
      want = {seq, s.batch};
      break;
    case SequenceFormat::kBshd:
      want = {s.batch, seq};
      break;
    case SequenceFormat::kThd:
      want = {t.rank > 0 ? t.shape[0] : 0};
      break;
  }
  const size_t lead = want.size();
  if (pack.members == 1) {
    want.insert(want.end(), {heads, dim});
  } else if (pack.after_heads) {
    want.insert(want.end(), {heads, pack.members, dim});
  } else {
    want.insert(want.end(), {pack.members, heads, dim});
  }
  RequireShape(t, want, name, absl::StrCat("layout ", sdk::LayoutName(s.layout), " needs").c_str());
  const int64_t* st = t.strides;
  if (dim > 1 && st[t.rank - 1] != 1) {
    throw sdk::Unsupported(absl::StrCat(name, ".strides[", t.rank - 1, "] is ", st[t.rank - 1],
                                        "; the opencl attention reads head vectors of stride 1"));
  }
  HeadTensor h;
  h.heads = heads;
  h.dim = dim;
  h.rows = want[0];
  switch (s.format) {
    case SequenceFormat::kSbhd:
      h.ss = st[0], h.sb = st[1];
      break;
    case SequenceFormat::kBshd:
      h.sb = st[0], h.ss = st[1];
      break;
    case SequenceFormat::kThd:
      h.ss = st[0], h.sb = 0;
      break;
  }
  int64_t member_off = 0;
  if (pack.members == 1) {
    h.sh = st[lead];
  } else if (pack.after_heads) {
    h.sh = st[lead], member_off = pack.index * st[lead + 1];
  } else {
    member_off = pack.index * st[lead], h.sh = st[lead + 1];
  }
  h.buffer = Resolve(t, name, need_data, &h.off, owner);
  h.off += member_off;
  return h;
}

FlatTensor ReadFlat(const TeplugTensor* p, const std::string& name, int32_t dtype,
                    const std::vector<int64_t>& shape, const char* why, bool need_data,
                    const void** owner) {
  const TeplugTensor t = ReadTensor(p, name);
  if (t.dtype != dtype) {
    throw sdk::InvalidArgument(
        absl::StrCat(name, " is ", sdk::DTypeName(t.dtype), "; ", why, " ", sdk::DTypeName(dtype)));
  }
  RequireShape(t, shape, name, why);
  int64_t expected = 1;
  for (int r = t.rank - 1; r >= 0; --r) {
    if (t.shape[r] > 1 && t.strides[r] != expected) {
      throw sdk::Unsupported(absl::StrCat(name, " is not dense; the opencl attention reads ", name,
                                          " as one contiguous block"));
    }
    expected *= t.shape[r];
  }
  FlatTensor f;
  f.count = expected;
  f.buffer = Resolve(t, name, need_data, &f.off, owner);
  return f;
}

AttentionShape ReadParams(const TeplugAttentionParams* pp, const std::string& args,
                          const TeplugTensor* q, bool need_data) {
  const std::string pn = args + ".params";
  TeplugAttentionParams p;
  if (pp == nullptr) throw sdk::InvalidArgument(pn + " is NULL");
  if (!sdk::ReadVersioned(pp, &p, TEPLUG_STRUCT_SIZE(TeplugAttentionParams, reserved0))) {
    throw sdk::InvalidArgument(absl::StrCat(pn, ".struct_size ", pp->struct_size,
                                            " is smaller than v1 TeplugAttentionParams"));
  }
  AttentionShape s;
  if (p.layout < 0 || p.layout >= TEPLUG_LAYOUT_COUNT_)
    throw sdk::InvalidArgument(absl::StrCat(pn, ".layout ", p.layout, " is not a TeplugQkvLayout"));
  if (p.mask_type < 0 || p.mask_type >= TEPLUG_MASK_COUNT_)
    throw sdk::InvalidArgument(
        absl::StrCat(pn, ".mask_type ", p.mask_type, " is not a TeplugMaskType"));
  if (p.bias_type < 0 || p.bias_type >= TEPLUG_BIAS_COUNT_)
    throw sdk::InvalidArgument(
        absl::StrCat(pn, ".bias_type ", p.bias_type, " is not a TeplugBiasType"));
  for (const auto& [value, field] : {std::pair<int64_t, const char*>{p.batch, "batch"},
                                     {p.num_heads_q, "num_heads_q"},
                                     {p.num_heads_kv, "num_heads_kv"},
                                     {p.head_dim_qk, "head_dim_qk"},
                                     {p.head_dim_v, "head_dim_v"},
                                     {p.max_seqlen_q, "max_seqlen_q"},
                                     {p.max_seqlen_kv, "max_seqlen_kv"}}) {
    if (value < 1) throw sdk::InvalidArgument(absl::StrCat(pn, ".", field, " is ", value));
  }
  if (p.num_heads_q % p.num_heads_kv != 0) {
    throw sdk::InvalidArgument(absl::StrCat(pn, ".num_heads_q ", p.num_heads_q,
                                            " is not a multiple of num_heads_kv ", p.num_heads_kv));
  }
  if (p.window_left < -1 || p.window_right < -1) {
    throw sdk::InvalidArgument(absl::StrCat(pn, ": window (", p.window_left, ", ", p.window_right,
                                            "); each side is -1 (unbounded) or >= 0"));
  }
  if (IsCausalMask(p.mask_type) && p.window_right > 0) {
    throw sdk::InvalidArgument(absl::StrCat(pn, ".window_right ", p.window_right, " with mask ",
                                            sdk::MaskName(p.mask_type), " (which implies 0)"));
  }
  if (!(p.dropout >= 0.0f && p.dropout < 1.0f))
    throw sdk::InvalidArgument(absl::StrCat(pn, ".dropout ", p.dropout, " is outside [0, 1)"));
  s.layout = p.layout, s.mask = p.mask_type, s.bias_type = p.bias_type;
  s.format = FormatOf(p.layout);
  if (s.format == SequenceFormat::kThd && !IsPaddingMask(p.mask_type)) {
    throw sdk::InvalidArgument(absl::StrCat(pn, ": layout ", sdk::LayoutName(p.layout),
                                            " needs a padding mask, not ",
                                            sdk::MaskName(p.mask_type)));
  }
  if (p.is_training && p.dropout > 0) {
    throw sdk::Unsupported(absl::StrCat(pn, ".dropout ", p.dropout,
                                        " in training: the opencl attention has no dropout"));
  }
  for (int64_t d : {p.head_dim_qk, p.head_dim_v}) {
    if (d > kMaxHeadDim) {
      throw sdk::Unsupported(absl::StrCat(pn, ": head dim ", d, " is above ", kMaxHeadDim,
                                          ", the largest the opencl attention tiles hold"));
    }
  }
  if (q == nullptr) throw sdk::InvalidArgument(args + ".q is NULL");
  s.dtype = q->dtype;
  if (s.dtype != TEPLUG_DTYPE_FP32 && s.dtype != TEPLUG_DTYPE_FP16 &&
      s.dtype != TEPLUG_DTYPE_BF16) {
    throw sdk::Unsupported(absl::StrCat(args, ".q is ", sdk::DTypeName(s.dtype),
                                        "; the opencl attention serves fp32, fp16 and bf16"));
  }
  s.batch = p.batch, s.hq = p.num_heads_q, s.hkv = p.num_heads_kv;
  s.dqk = p.head_dim_qk, s.dv = p.head_dim_v;
  s.max_sq = p.max_seqlen_q, s.max_skv = p.max_seqlen_kv;
  s.window_left = p.window_left;
  s.window_right = IsCausalMask(p.mask_type) ? 0 : p.window_right;
  s.bottom_right = p.mask_type != TEPLUG_MASK_CAUSAL && p.mask_type != TEPLUG_MASK_PADDING_CAUSAL;
  s.scale = p.softmax_scale;
  s.reads_lengths = IsPaddingMask(p.mask_type);
  s.training = p.is_training != 0;
  if (s.reads_lengths) {
    for (const auto& [t, side] : {std::pair<const TeplugTensor*, const char*>{p.cu_seqlens_q, "q"},
                                  {p.cu_seqlens_kv, "kv"}}) {
      if (t == nullptr) {
        if (s.format == SequenceFormat::kThd) {
          throw sdk::InvalidArgument(absl::StrCat(pn, ".cu_seqlens_", side, " is NULL; layout ",
                                                  sdk::LayoutName(p.layout), " needs it"));
        }
        continue;
      }
      FlatTensor f =
          ReadFlat(t, absl::StrCat(pn, ".cu_seqlens_", side), TEPLUG_DTYPE_INT32, {s.batch + 1},
                   "cu_seqlens are int32 batch + 1 prefix sums", need_data, &s.owner);
      (side[0] == 'q' ? s.cu_q : s.cu_kv) = f;
    }
  }
  if (s.bias_type == TEPLUG_BIAS_ALIBI && p.alibi_slopes != nullptr) {
    s.slopes = ReadFlat(p.alibi_slopes, pn + ".alibi_slopes", TEPLUG_DTYPE_FP32, {s.hq},
                        "alibi_slopes are fp32 [num_heads_q]", need_data, &s.owner);
  }
  return s;
}

// The pre/post-scale bias (or its gradient): dense [1|B, 1|Hq, max_sq, max_skv].
void ReadBias(const TeplugTensor* p, const std::string& name, AttentionShape* s, bool need_data,
              cl_mem* buffer, int64_t* off) {
  const TeplugTensor t = ReadTensor(p, name);
  if (t.rank != 4 || (t.shape[0] != 1 && t.shape[0] != s->batch) ||
      (t.shape[1] != 1 && t.shape[1] != s->hq) || t.shape[2] != s->max_sq ||
      t.shape[3] != s->max_skv) {
    throw sdk::InvalidArgument(absl::StrCat(name, " has shape ", Shape(t.shape, t.rank),
                                            "; a bias is [1 or ", s->batch, ", 1 or ", s->hq, ", ",
                                            s->max_sq, ", ", s->max_skv, "]"));
  }
  s->bias_batches = t.shape[0], s->bias_heads = t.shape[1];
  const FlatTensor f = ReadFlat(p, name, s->dtype, {t.shape[0], t.shape[1], t.shape[2], t.shape[3]},
                                "a bias is in q's dtype and shape", need_data, &s->owner);
  *buffer = f.buffer;
  *off = f.off;
}

bool TakesBiasTensor(int32_t bias_type) {
  return bias_type == TEPLUG_BIAS_PRE_SCALE || bias_type == TEPLUG_BIAS_POST_SCALE;
}

// Q, K and V (or dQ, dK, dV) in the layout; `names` are the args fields.
void ReadQkv(std::array<const TeplugTensor*, 3> in, const std::string& args,
             std::array<const char*, 3> fields, AttentionShape* s, bool need_data,
             std::array<HeadTensor*, 3> out) {
  std::string names[3];
  for (int m = 0; m < 3; ++m) names[m] = absl::StrCat(args, ".", fields[m]);
  for (int m = 0; m < 3; ++m) {
    const Packing pack = PackingOf(s->layout, m);
    const int owner = pack.members == 3 ? 0 : pack.members == 2 ? 1 : m;
    if (owner != m && in[m] != in[owner] &&
        (in[m] == nullptr || in[owner] == nullptr || in[m]->data != in[owner]->data)) {
      throw sdk::InvalidArgument(absl::StrCat(names[m], " is not the buffer ", names[owner],
                                              " names: layout ", sdk::LayoutName(s->layout),
                                              " packs them in one tensor"));
    }
    *out[m] = ReadHeads(in[m], names[m], *s, pack, m == 0, m == 0 ? s->hq : s->hkv,
                        m == 2 ? s->dv : s->dqk, need_data, &s->owner);
  }
  if (s->format == SequenceFormat::kThd && out[0]->rows != out[1]->rows &&
      PackingOf(s->layout, 0).members == 3) {
    throw sdk::InvalidArgument("packed q, k, v disagree on their token count");
  }
}

// softmax_lse: fp32 [B, Hq, max_sq].
FlatTensor ReadLse(const TeplugTensor* p, const std::string& args, AttentionShape* s,
                   bool need_data) {
  return ReadFlat(p, args + ".softmax_lse", TEPLUG_DTYPE_FP32, {s->batch, s->hq, s->max_sq},
                  "softmax_lse is fp32 [batch, heads, max_sq]", need_data, &s->owner);
}

// O or dO: never packed, [.., Hq, Dv] in the layout's format.
HeadTensor ReadOutputLike(const TeplugTensor* p, const std::string& name, AttentionShape* s,
                          bool need_data) {
  return ReadHeads(p, name, *s, Packing{}, true, s->hq, s->dv, need_data, &s->owner);
}

}  // namespace

ForwardCall ReadForward(const TeplugAttentionFwdArgs& a, bool need_data) {
  const std::string n = "TeplugAttentionFwdArgs";
  ForwardCall c;
  c.shape = ReadParams(a.params, n, a.q, need_data);
  AttentionShape& s = c.shape;
  ReadQkv({a.q, a.k, a.v}, n, {"q", "k", "v"}, &s, need_data, {&c.q, &c.k, &c.v});
  c.o = ReadOutputLike(a.o, n + ".o", &s, need_data);
  if (TakesBiasTensor(s.bias_type)) {
    ReadBias(a.bias, n + ".bias", &s, need_data, &s.bias, &s.bias_off);
  } else if (a.bias != nullptr) {
    throw sdk::InvalidArgument(
        absl::StrCat(n, ".bias is given with bias_type ", sdk::BiasName(s.bias_type)));
  }
  if (a.softmax_lse != nullptr) {
    c.lse = ReadLse(a.softmax_lse, n, &s, need_data);
  } else if (s.training) {
    throw sdk::InvalidArgument(n + ".softmax_lse is NULL in training");
  }
  return c;
}

BackwardCall ReadBackward(const TeplugAttentionBwdArgs& a, bool need_data) {
  const std::string n = "TeplugAttentionBwdArgs";
  BackwardCall c;
  c.shape = ReadParams(a.params, n, a.q, need_data);
  AttentionShape& s = c.shape;
  ReadQkv({a.q, a.k, a.v}, n, {"q", "k", "v"}, &s, need_data, {&c.q, &c.k, &c.v});
  ReadQkv({a.dq, a.dk, a.dv}, n, {"dq", "dk", "dv"}, &s, need_data, {&c.dq, &c.dk, &c.dv});
  c.o = ReadOutputLike(a.o, n + ".o", &s, need_data);
  c.d_o = ReadOutputLike(a.d_o, n + ".d_o", &s, need_data);
  c.lse = ReadLse(a.softmax_lse, n, &s, need_data);
  if (TakesBiasTensor(s.bias_type)) {
    ReadBias(a.bias, n + ".bias", &s, need_data, &s.bias, &s.bias_off);
    if (a.dbias != nullptr) {
      const int64_t bb = s.bias_batches, bh = s.bias_heads;
      ReadBias(a.dbias, n + ".dbias", &s, need_data, &c.dbias, &c.dbias_off);
      if (s.bias_batches != bb || s.bias_heads != bh)
        throw sdk::InvalidArgument(n + ".dbias does not have the shape of bias");
    }
  } else if (a.bias != nullptr || a.dbias != nullptr) {
    throw sdk::InvalidArgument(
        absl::StrCat(n, ".bias or dbias is given with bias_type ", sdk::BiasName(s.bias_type)));
  }
  return c;
}

}  // namespace teplug::opencl::attention
