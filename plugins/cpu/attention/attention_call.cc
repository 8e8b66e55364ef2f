#include "plugins/cpu/attention/attention_call.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cpu::attention {
namespace {


bool IsFloatDType(int32_t d) {
  return d == TEPLUG_DTYPE_FP32 || d == TEPLUG_DTYPE_FP16 || d == TEPLUG_DTYPE_BF16;
}

bool IsPadding(int32_t mask) {
  return mask == TEPLUG_MASK_PADDING || mask == TEPLUG_MASK_PADDING_CAUSAL ||
         mask == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
}

bool IsCausal(int32_t mask) {
  return mask == TEPLUG_MASK_CAUSAL || mask == TEPLUG_MASK_PADDING_CAUSAL ||
         mask == TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT || mask == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
}

std::string ShapeString(const TeplugTensor& t) {
  return absl::StrCat("[", absl::StrJoin(t.shape, t.shape + t.rank, ", "), "]");
}

std::string ShapeString(const std::vector<int64_t>& s) {
  return absl::StrCat("[", absl::StrJoin(s, ", "), "]");
}

// Reads a tensor: present, with data, in host memory, row-major (all strides
// zero or the contiguous ones).
absl::StatusOr<TeplugTensor> ReadTensor(const TeplugTensor* p, const std::string& name) {
  TeplugTensor t;
  if (p == nullptr) return absl::InvalidArgumentError(name + " is NULL");
  if (!sdk::ReadVersioned(p, &t, TEPLUG_STRUCT_SIZE(TeplugTensor, quant))) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.struct_size %d is smaller than the v1 TeplugTensor", name, p->struct_size));
  }
  if (t.rank < 0 || t.rank > TEPLUG_MAX_RANK) {
    return absl::InvalidArgumentError(absl::StrFormat("%s.rank %d is outside 0..8", name, t.rank));
  }
  if (t.data == nullptr) return absl::InvalidArgumentError(name + ".data is NULL");
  if (t.device != nullptr && t.device->kind != TEPLUG_DEVICE_CPU) {
    return absl::UnimplementedError(absl::StrFormat(
        "%s is on device kind %d; the cpu provider reads host memory only", name, t.device->kind));
  }
  bool any_stride = false, all_stride = true;
  for (int r = 0; r < t.rank; ++r) {
    any_stride |= t.strides[r] != 0;
    all_stride &= t.strides[r] != 0;
  }
  if (any_stride && !all_stride) {
    return absl::InvalidArgumentError(name + ": strides mix zero and non-zero entries");
  }
  if (any_stride) {
    int64_t expected = 1;
    for (int r = t.rank - 1; r >= 0; --r) {
      if (t.shape[r] > 1 && t.strides[r] != expected) {
        return absl::UnimplementedError(absl::StrFormat(
            "%s: strides [%s] are not row-major contiguous; the cpu attention kernel reads "
            "dense buffers only",
            name, absl::StrJoin(t.strides, t.strides + t.rank, ", ")));
      }
      expected *= t.shape[r];
    }
  }
  return t;
}

absl::Status RequireFloat(const TeplugTensor& t, const std::string& name) {
  if (IsFloatDType(t.dtype) && t.quant == nullptr) return absl::OkStatus();
  const std::string what =
      t.quant != nullptr ? "a quantized tensor" : absl::StrCat("dtype ", sdk::DTypeName(t.dtype));
  return absl::UnimplementedError(
      absl::StrCat(name, " is ", what, "; the cpu attention kernel serves fp32, fp16 and bf16"));
}

absl::Status RequireShape(const TeplugTensor& t, const std::vector<int64_t>& shape,
                          const std::string& name, const std::string& why) {
  bool same = t.rank == static_cast<int32_t>(shape.size());
  for (int r = 0; same && r < t.rank; ++r) same = t.shape[r] == shape[r];
  if (same) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, ": shape ", ShapeString(t), " but ", why, " ", ShapeString(shape)));
}

// int32 [batch + 1] non-decreasing prefix sums from 0.
absl::StatusOr<std::vector<int64_t>> ReadCuSeqlens(const TeplugTensor* p, const std::string& name,
                                                   int64_t batch) {
  absl::StatusOr<TeplugTensor> t = ReadTensor(p, name);
  if (!t.ok()) return t.status();
  if (t->dtype != TEPLUG_DTYPE_INT32) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " is ", sdk::DTypeName(t->dtype), "; cu_seqlens must be int32"));
  }
  if (absl::Status s = RequireShape(*t, {batch + 1}, name, "batch + 1 prefix sums are"); !s.ok()) {
    return s;
  }
  const int32_t* values = static_cast<const int32_t*>(t->data);
  std::vector<int64_t> cu(values, values + batch + 1);
  if (cu[0] != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s[0] is %d; prefix sums start at 0", name, cu[0]));
  }
  for (int64_t b = 0; b < batch; ++b) {
    if (cu[b + 1] < cu[b]) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s decreases at entry %d (%d after %d); prefix sums of lengths never decrease", name,
          b + 1, cu[b + 1], cu[b]));
    }
  }
  return cu;
}

std::vector<float> DefaultAlibiSlopes(int64_t hq) {
  int64_t n = 1;
  while (n * 2 <= hq) n *= 2;
  std::vector<float> slopes(static_cast<size_t>(hq));
  for (int64_t h = 0; h < hq; ++h) {
    const double exponent =
        h < n ? -8.0 * static_cast<double>(h + 1) / static_cast<double>(n)
              : -4.0 * static_cast<double>(2 * (h - n) + 1) / static_cast<double>(n);
    slopes[static_cast<size_t>(h)] = static_cast<float>(std::exp2(exponent));
  }
  return slopes;
}

// Addressing and expected buffer shape of Q (member 0), K (1) or V (2).
struct MemberGeometry {
  std::vector<int64_t> shape;
  TensorAccess access;
};

MemberGeometry Geometry(const AttentionCall& c, int32_t layout, int member, int64_t tokens) {
  const bool q = member == 0;
  const int64_t s = q ? c.max_sq : c.max_skv;
  const int64_t h = q ? c.hq : c.hkv;
  const int64_t d = member == 2 ? c.d_v : c.d_qk;
  int members = 1;
  bool before_heads = true;  // "3hd" / "2hd" (else "h3d" / "h2d")
  switch (layout) {
    case TEPLUG_LAYOUT_SB3HD:
    case TEPLUG_LAYOUT_BS3HD:
    case TEPLUG_LAYOUT_T3HD:
      members = 3;
      break;
    case TEPLUG_LAYOUT_SBH3D:
    case TEPLUG_LAYOUT_BSH3D:
    case TEPLUG_LAYOUT_TH3D:
      members = 3, before_heads = false;
      break;
    case TEPLUG_LAYOUT_SBHD_SB2HD:
    case TEPLUG_LAYOUT_BSHD_BS2HD:
    case TEPLUG_LAYOUT_THD_T2HD:
      members = q ? 1 : 2;
      break;
    case TEPLUG_LAYOUT_SBHD_SBH2D:
    case TEPLUG_LAYOUT_BSHD_BSH2D:
    case TEPLUG_LAYOUT_THD_TH2D:
      members = q ? 1 : 2, before_heads = false;
      break;
    default:
      break;
  }
  // Index of this member inside its packed buffer.
  const int index = members == 3 ? member : members == 2 ? member - 1 : 0;
  MemberGeometry g;
  switch (c.format) {
    case SequenceFormat::kSbhd:
      g.shape = {s, c.batch};
      break;
    case SequenceFormat::kBshd:
      g.shape = {c.batch, s};
      break;
    case SequenceFormat::kThd:
      g.shape = {tokens};
      break;
  }
  if (members == 1) {
    g.shape.insert(g.shape.end(), {h, d});
  } else if (before_heads) {
    g.shape.insert(g.shape.end(), {members, h, d});
  } else {
    g.shape.insert(g.shape.end(), {h, members, d});
  }
  TensorAccess& a = g.access;
  a.format = c.format;
  a.batch = c.batch;
  a.max_seqlen = s;
  a.row_stride = members * h * d;
  a.head_stride = (members == 1 || before_heads) ? d : members * d;
  a.member_offset = before_heads ? index * h * d : index * d;
  return g;
}

// What the forward and backward args share, read the same way; `name` is
// the args struct's name for messages.
struct CallInputs {
  const char* name = nullptr;
  const TeplugAttentionParams* params = nullptr;
  const TeplugTensor *q = nullptr, *k = nullptr, *v = nullptr, *bias = nullptr, *o = nullptr,
                     *softmax_lse = nullptr;
  // The first fp8 scale field that is set ("s_quant", "dp_quant"); NULL: none.
  const char* fp8_field = nullptr;
  // Backward: softmax_lse is always required.
  bool backward = false;
};

// The output's buffer shape: [B, S, Hq, Dv] (bshd), [S, B, Hq, Dv] (sbhd),
// [tokens, Hq, Dv] (thd).
std::vector<int64_t> OutputShape(const AttentionCall& c, int64_t tokens) {
  switch (c.format) {
    case SequenceFormat::kSbhd:
      return {c.max_sq, c.batch, c.hq, c.d_v};
    case SequenceFormat::kBshd:
      return {c.batch, c.max_sq, c.hq, c.d_v};
    case SequenceFormat::kThd:
      break;
  }
  return {tokens, c.hq, c.d_v};
}

absl::StatusOr<AttentionCall> ReadCall(const CallInputs& args) {
  const std::string an = args.name;
  const std::string pn = an + ".params";
  TeplugAttentionParams a;
  if (args.params == nullptr) return absl::InvalidArgumentError(pn + " is NULL");
  if (!sdk::ReadVersioned(args.params, &a, TEPLUG_STRUCT_SIZE(TeplugAttentionParams, reserved0))) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.struct_size %d is smaller than the v1 TeplugAttentionParams", pn,
                        args.params->struct_size));
  }
  if (a.layout < 0 || a.layout >= TEPLUG_LAYOUT_COUNT_) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.layout %d is not a TeplugQkvLayout", pn, a.layout));
  }
  if (a.mask_type < 0 || a.mask_type >= TEPLUG_MASK_COUNT_) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.mask_type %d is not a TeplugMaskType", pn, a.mask_type));
  }
  if (a.bias_type < 0 || a.bias_type >= TEPLUG_BIAS_COUNT_) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.bias_type %d is not a TeplugBiasType", pn, a.bias_type));
  }
  const struct {
    const char* name;
    int64_t value;
  } extents[] = {{"batch", a.batch},
                 {"num_heads_q", a.num_heads_q},
                 {"num_heads_kv", a.num_heads_kv},
                 {"head_dim_qk", a.head_dim_qk},
                 {"head_dim_v", a.head_dim_v},
                 {"max_seqlen_q", a.max_seqlen_q},
                 {"max_seqlen_kv", a.max_seqlen_kv}};
  for (const auto& e : extents) {
    if (e.value <= 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.%s is %d; it must be > 0", pn, e.name, e.value));
    }
  }
  if (a.num_heads_q % a.num_heads_kv != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.num_heads_q %d is not a multiple of num_heads_kv %d (grouped-query attention)", pn,
        a.num_heads_q, a.num_heads_kv));
  }
  if (a.window_left < -1 || a.window_right < -1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: window (%d, %d); each side is -1 (unbounded) or >= 0", pn,
                        a.window_left, a.window_right));
  }
  if (!(a.dropout >= 0.0f && a.dropout < 1.0f)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.dropout %g is outside [0, 1)", pn, a.dropout));
  }
  if (!std::isfinite(a.softmax_scale)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.softmax_scale %g is not finite", pn, a.softmax_scale));
  }
  if (args.fp8_field != nullptr) {
    return absl::UnimplementedError(absl::StrCat(an, ".", args.fp8_field,
                                                 " is set; the cpu attention kernel serves no fp8"));
  }

  AttentionCall c;
  c.layout = a.layout;
  c.batch = a.batch;
  c.hq = a.num_heads_q;
  c.hkv = a.num_heads_kv;
  c.d_qk = a.head_dim_qk;
  c.d_v = a.head_dim_v;
  c.max_sq = a.max_seqlen_q;
  c.max_skv = a.max_seqlen_kv;
  c.format = a.layout >= TEPLUG_LAYOUT_T3HD    ? SequenceFormat::kThd
             : a.layout >= TEPLUG_LAYOUT_BS3HD ? SequenceFormat::kBshd
                                               : SequenceFormat::kSbhd;
  c.mask_type = a.mask_type;
  c.bias_type = a.bias_type;
  c.bottom_right = a.mask_type != TEPLUG_MASK_CAUSAL && a.mask_type != TEPLUG_MASK_PADDING_CAUSAL;
  c.window_left = a.window_left;
  c.window_right = IsCausal(a.mask_type) ? 0 : a.window_right;
  c.scale = a.softmax_scale;
  c.dropout = a.is_training != 0 && a.dropout > 0.0f;
  c.dropout_p = a.dropout;
  c.rng_seed = a.rng_seed;
  c.rng_offset = a.rng_offset;

  const bool thd = c.format == SequenceFormat::kThd;
  if (thd && !IsPadding(a.mask_type)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.mask_type %s with layout %s: thd layouts need a padding mask type (padding, "
        "padding_causal or padding_causal_bottom_right)",
        pn, sdk::MaskName(a.mask_type), sdk::LayoutName(a.layout)));
  }
  if ((thd || IsPadding(a.mask_type)) &&
      (a.cu_seqlens_q == nullptr || a.cu_seqlens_kv == nullptr)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.cu_seqlens_%s is NULL but layout %s with mask %s needs int32 [batch + 1] prefix sums",
        pn, a.cu_seqlens_q == nullptr ? "q" : "kv", sdk::LayoutName(a.layout),
        sdk::MaskName(a.mask_type)));
  }
  const struct {
    const TeplugTensor* tensor;
    const char* name;
    int64_t max;
    std::vector<int64_t>* cu;
    std::vector<int64_t>* len;
  } sides[] = {{a.cu_seqlens_q, "cu_seqlens_q", c.max_sq, &c.cu_q, &c.len_q},
               {a.cu_seqlens_kv, "cu_seqlens_kv", c.max_skv, &c.cu_kv, &c.len_kv}};
  for (const auto& side : sides) {
    side.len->assign(static_cast<size_t>(c.batch), side.max);
    if (side.tensor == nullptr) continue;
    absl::StatusOr<std::vector<int64_t>> cu =
        ReadCuSeqlens(side.tensor, pn + "." + side.name, c.batch);
    if (!cu.ok()) return cu.status();
    *side.cu = *std::move(cu);
    for (int64_t b = 0; b < c.batch; ++b) {
      const int64_t len = (*side.cu)[b + 1] - (*side.cu)[b];
      if (len > side.max) {
        return absl::InvalidArgumentError(
            absl::StrFormat("%s.%s: batch %d has length %d, more than max_seqlen %d", pn, side.name,
                            b, len, side.max));
      }
      if (IsPadding(a.mask_type)) (*side.len)[b] = len;
    }
  }

  if (a.alibi_slopes != nullptr && a.bias_type != TEPLUG_BIAS_ALIBI) {
    return absl::InvalidArgumentError(
        absl::StrCat(pn, ".alibi_slopes is set but bias_type is ", sdk::BiasName(a.bias_type)));
  }
  if (a.bias_type == TEPLUG_BIAS_ALIBI) {
    if (a.alibi_slopes == nullptr) {
      c.alibi_slopes = DefaultAlibiSlopes(c.hq);
    } else {
      absl::StatusOr<TeplugTensor> s = ReadTensor(a.alibi_slopes, pn + ".alibi_slopes");
      if (!s.ok()) return s.status();
      if (absl::Status st =
              RequireShape(*s, {c.hq}, pn + ".alibi_slopes", "one slope per query head is");
          !st.ok()) {
        return st;
      }
      if (s->dtype != TEPLUG_DTYPE_FP32) {
        return absl::InvalidArgumentError(absl::StrCat(
            pn, ".alibi_slopes is ", sdk::DTypeName(s->dtype), "; slopes must be fp32"));
      }
      const float* values = static_cast<const float*>(s->data);
      c.alibi_slopes.assign(values, values + c.hq);
    }
  }

  const bool tensor_bias =
      a.bias_type == TEPLUG_BIAS_PRE_SCALE || a.bias_type == TEPLUG_BIAS_POST_SCALE;
  const std::string bn = an + ".bias";
  if (!tensor_bias && args.bias != nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(bn, " is set but params.bias_type is ", sdk::BiasName(a.bias_type),
                     "; only pre_scale and post_scale take a bias tensor"));
  }
  if (tensor_bias) {
    if (args.bias == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(bn, " is NULL but params.bias_type is ", sdk::BiasName(a.bias_type)));
    }
    absl::StatusOr<TeplugTensor> b = ReadTensor(args.bias, bn);
    if (!b.ok()) return b.status();
    if (absl::Status s = RequireFloat(*b, bn); !s.ok()) return s;
    const bool shape_ok = b->rank == 4 && (b->shape[0] == 1 || b->shape[0] == c.batch) &&
                          (b->shape[1] == 1 || b->shape[1] == c.hq) && b->shape[2] == c.max_sq &&
                          b->shape[3] == c.max_skv;
    if (!shape_ok) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: shape %s but it must be [1 or batch %d, 1 or num_heads_q %d, max_seqlen_q %d, "
          "max_seqlen_kv %d]",
          bn, ShapeString(*b), c.batch, c.hq, c.max_sq, c.max_skv));
    }
    c.bias.data = b->data;
    c.bias.dtype = b->dtype;
    c.bias_batch = b->shape[0];
    c.bias_heads = b->shape[1];
  }

  // Q, K, V in the layout (packed buffers read through each member).
  const TeplugTensor* members[] = {args.q, args.k, args.v};
  const char* names[] = {"q", "k", "v"};
  TensorAccess* accesses[] = {&c.q, &c.k, &c.v};
  for (int m = 0; m < 3; ++m) {
    const std::string name = absl::StrCat(an, ".", names[m]);
    absl::StatusOr<TeplugTensor> t = ReadTensor(members[m], name);
    if (!t.ok()) return t.status();
    if (absl::Status s = RequireFloat(*t, name); !s.ok()) return s;
    const std::vector<int64_t>& cu = m == 0 ? c.cu_q : c.cu_kv;
    int64_t tokens = 0;
    if (thd) {
      tokens = t->rank > 0 ? t->shape[0] : 0;
      if (tokens < cu.back()) {
        return absl::InvalidArgumentError(
            absl::StrFormat("%s: shape %s holds fewer than the %d tokens cu_seqlens_%s addresses",
                            name, ShapeString(*t), cu.back(), m == 0 ? "q" : "kv"));
      }
    }
    MemberGeometry g = Geometry(c, a.layout, m, tokens);
    if (absl::Status s = RequireShape(*t, g.shape, name,
                                      absl::StrCat("layout ", sdk::LayoutName(a.layout), " needs"));
        !s.ok()) {
      return s;
    }
    *accesses[m] = g.access;
    accesses[m]->data = t->data;
    accesses[m]->dtype = t->dtype;
    accesses[m]->cu_seqlens = m == 0 ? c.cu_q.data() : c.cu_kv.data();
  }

  // O: the separate layout of the format, head_dim_v.
  const std::string on = an + ".o";
  absl::StatusOr<TeplugTensor> o = ReadTensor(args.o, on);
  if (!o.ok()) return o.status();
  if (absl::Status s = RequireFloat(*o, on); !s.ok()) return s;
  if (c.format == SequenceFormat::kThd) {
    c.o_tokens = o->rank > 0 ? o->shape[0] : 0;
    if (c.o_tokens < c.cu_q.back()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: shape %s holds fewer than the %d tokens cu_seqlens_q addresses", on,
                          ShapeString(*o), c.cu_q.back()));
    }
  }
  const std::vector<int64_t> o_shape = OutputShape(c, c.o_tokens);
  if (absl::Status s = RequireShape(
          *o, o_shape, on,
          absl::StrCat("layout ", sdk::LayoutName(a.layout), " with head_dim_v needs"));
      !s.ok()) {
    return s;
  }
  c.o.data = o->data;
  c.o.dtype = o->dtype;
  c.o.format = c.format;
  c.o.batch = c.batch;
  c.o.max_seqlen = c.max_sq;
  c.o.row_stride = c.hq * c.d_v;
  c.o.head_stride = c.d_v;
  c.o.cu_seqlens = c.cu_q.data();

  const std::string ln = an + ".softmax_lse";
  if (args.softmax_lse == nullptr) {
    if (args.backward) {
      return absl::InvalidArgumentError(ln +
                                        " is NULL; backward rebuilds the probabilities from it");
    }
    if (a.is_training != 0) {
      return absl::InvalidArgumentError(
          ln + " is NULL but params.is_training is set; backward needs it");
    }
  } else {
    absl::StatusOr<TeplugTensor> l = ReadTensor(args.softmax_lse, ln);
    if (!l.ok()) return l.status();
    if (absl::Status s = RequireShape(*l, {c.batch, c.hq, c.max_sq}, ln, "softmax_lse is fp32");
        !s.ok()) {
      return s;
    }
    if (l->dtype != TEPLUG_DTYPE_FP32) {
      return absl::InvalidArgumentError(
          absl::StrCat(ln, " is ", sdk::DTypeName(l->dtype), "; softmax_lse must be fp32"));
    }
    c.lse = static_cast<float*>(l->data);  // backward only reads it
  }
  return c;
}

}  // namespace

void AttentionCall::VisibleRange(int64_t b, int64_t i, int64_t* lo, int64_t* hi) const {
  const int64_t skv = len_kv[b];
  if (i >= len_q[b]) {
    *lo = *hi = 0;
    return;
  }
  const int64_t diagonal = i + DiagonalShift(b);
  *lo = window_left >= 0 ? std::max<int64_t>(0, diagonal - window_left) : 0;
  *hi = window_right >= 0 ? std::min(skv, diagonal + window_right + 1) : skv;
  if (*hi < *lo) *hi = *lo;
}

absl::StatusOr<AttentionCall> ReadAttentionForward(const TeplugAttentionFwdArgs& args) {
  CallInputs in;
  in.name = "TeplugAttentionFwdArgs";
  in.params = args.params;
  in.q = args.q, in.k = args.k, in.v = args.v, in.bias = args.bias;
  in.o = args.o;
  in.softmax_lse = args.softmax_lse;
  if (args.s_quant != nullptr) in.fp8_field = "s_quant";
  return ReadCall(in);
}

absl::StatusOr<BackwardCall> ReadAttentionBackward(const TeplugAttentionBwdArgs& args) {
  const std::string an = "TeplugAttentionBwdArgs";
  CallInputs in;
  in.name = "TeplugAttentionBwdArgs";
  in.params = args.params;
  in.q = args.q, in.k = args.k, in.v = args.v, in.bias = args.bias;
  in.o = args.o;
  in.softmax_lse = args.softmax_lse;
  in.backward = true;
  if (args.s_quant != nullptr) in.fp8_field = "s_quant";
  if (args.dp_quant != nullptr && in.fp8_field == nullptr) in.fp8_field = "dp_quant";
  absl::StatusOr<AttentionCall> read = ReadCall(in);
  if (!read.ok()) return read.status();
  BackwardCall bc;
  bc.call = *std::move(read);
  const AttentionCall& c = bc.call;
  const bool thd = c.format == SequenceFormat::kThd;

  // dO: o's shape and addressing.
  const std::string dn = an + ".d_o";
  absl::StatusOr<TeplugTensor> d_o = ReadTensor(args.d_o, dn);
  if (!d_o.ok()) return d_o.status();
  if (absl::Status s = RequireFloat(*d_o, dn); !s.ok()) return s;
  if (absl::Status s = RequireShape(*d_o, OutputShape(c, c.o_tokens), dn, "o's shape is");
      !s.ok()) {
    return s;
  }
  bc.d_o = c.o;
  bc.d_o.data = d_o->data;
  bc.d_o.dtype = d_o->dtype;

  // dQ, dK, dV: the shapes of Q, K, V; members of one packed buffer share it.
  const TeplugTensor* grads[] = {args.dq, args.dk, args.dv};
  const char* names[] = {"dq", "dk", "dv"};
  TensorAccess* accesses[] = {&bc.dq, &bc.dk, &bc.dv};
  int64_t* tokens[] = {&bc.dq_tokens, &bc.dk_tokens, &bc.dv_tokens};
  for (int m = 0; m < 3; ++m) {
    const std::string name = absl::StrCat(an, ".", names[m]);
    absl::StatusOr<TeplugTensor> t = ReadTensor(grads[m], name);
    if (!t.ok()) return t.status();
    if (absl::Status s = RequireFloat(*t, name); !s.ok()) return s;
    const std::vector<int64_t>& cu = m == 0 ? c.cu_q : c.cu_kv;
    if (thd) {
      *tokens[m] = t->rank > 0 ? t->shape[0] : 0;
      if (*tokens[m] < cu.back()) {
        return absl::InvalidArgumentError(
            absl::StrFormat("%s: shape %s holds fewer than the %d tokens cu_seqlens_%s addresses",
                            name, ShapeString(*t), cu.back(), m == 0 ? "q" : "kv"));
      }
    }
    MemberGeometry g = Geometry(c, c.layout, m, *tokens[m]);
    if (absl::Status s = RequireShape(*t, g.shape, name,
                                      absl::StrCat("layout ", sdk::LayoutName(c.layout), " needs"));
        !s.ok()) {
      return s;
    }
    *accesses[m] = g.access;
    accesses[m]->data = t->data;
    accesses[m]->dtype = t->dtype;
    accesses[m]->cu_seqlens = cu.data();
  }
  const int32_t packing = c.layout % 5;  // 0, 1: q, k, v packed; 2, 3: k, v packed
  const int first_shared = packing <= 1 ? 0 : packing <= 3 ? 1 : 3;
  for (int m = first_shared + 1; m < 3; ++m) {
    if (accesses[m]->data != accesses[first_shared]->data) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s.%s: layout %s packs %s and %s in one buffer, so %s must be the same buffer as %s",
          an, names[m], sdk::LayoutName(c.layout), names[first_shared], names[m], names[m],
          names[first_shared]));
    }
  }

  // dBias: the bias's shape.
  if (args.dbias != nullptr) {
    const std::string bn = an + ".dbias";
    if (c.bias_type != TEPLUG_BIAS_PRE_SCALE && c.bias_type != TEPLUG_BIAS_POST_SCALE) {
      return absl::InvalidArgumentError(
          absl::StrCat(bn, " is set but params.bias_type is ", sdk::BiasName(c.bias_type),
                       "; only pre_scale and post_scale have a bias tensor to differentiate"));
    }
    absl::StatusOr<TeplugTensor> t = ReadTensor(args.dbias, bn);
    if (!t.ok()) return t.status();
    if (absl::Status s = RequireFloat(*t, bn); !s.ok()) return s;
    if (absl::Status s = RequireShape(
            *t, {c.bias_batch, c.bias_heads, c.max_sq, c.max_skv}, bn, "the bias's shape is");
        !s.ok()) {
      return s;
    }
    bc.dbias.data = t->data;
    bc.dbias.dtype = t->dtype;
  }
  return bc;
}

}  // namespace teplug::cpu::attention
