#include "native/attention/sdpa_problem.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "teplug/sdk/names.hpp"

namespace teplug::native::attention {
namespace {

// Where each axis of a layout's tensor is: sequence (tokens for THD), batch
// (-1 for THD), heads, head dim, and the packing axis (-1 when unpacked).
struct Axes {
  int rank, s, b, h, d, m;
};

constexpr Axes kSbhd = {4, 0, 1, 2, 3, -1};
constexpr Axes kBshd = {4, 1, 0, 2, 3, -1};
constexpr Axes kThd = {3, 0, -1, 1, 2, -1};

// The axes of member 'q' or 'k'/'v' (packed members share the buffer's).
Axes AxesOf(int32_t layout, char member) {
  const bool q = member == 'q';
  switch (layout) {
    case TEPLUG_LAYOUT_SB3HD: return {5, 0, 1, 3, 4, 2};
    case TEPLUG_LAYOUT_SBH3D: return {5, 0, 1, 2, 4, 3};
    case TEPLUG_LAYOUT_SBHD_SB2HD: return q ? kSbhd : Axes{5, 0, 1, 3, 4, 2};
    case TEPLUG_LAYOUT_SBHD_SBH2D: return q ? kSbhd : Axes{5, 0, 1, 2, 4, 3};
    case TEPLUG_LAYOUT_SBHD_SBHD_SBHD: return kSbhd;
    case TEPLUG_LAYOUT_BS3HD: return {5, 1, 0, 3, 4, 2};
    case TEPLUG_LAYOUT_BSH3D: return {5, 1, 0, 2, 4, 3};
    case TEPLUG_LAYOUT_BSHD_BS2HD: return q ? kBshd : Axes{5, 1, 0, 3, 4, 2};
    case TEPLUG_LAYOUT_BSHD_BSH2D: return q ? kBshd : Axes{5, 1, 0, 2, 4, 3};
    case TEPLUG_LAYOUT_BSHD_BSHD_BSHD: return kBshd;
    case TEPLUG_LAYOUT_T3HD: return {4, 0, -1, 2, 3, 1};
    case TEPLUG_LAYOUT_TH3D: return {4, 0, -1, 1, 3, 2};
    case TEPLUG_LAYOUT_THD_T2HD: return q ? kThd : Axes{4, 0, -1, 2, 3, 1};
    case TEPLUG_LAYOUT_THD_TH2D: return q ? kThd : Axes{4, 0, -1, 1, 3, 2};
    default: return kThd;
  }
}

bool IsFp8(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP8_E4M3 || dtype == TEPLUG_DTYPE_FP8_E5M2;
}
bool IsThd(int32_t layout) { return layout >= TEPLUG_LAYOUT_T3HD && layout <= TEPLUG_LAYOUT_THD_THD_THD; }
bool QkvPacked(int32_t layout) {
  return layout == TEPLUG_LAYOUT_SB3HD || layout == TEPLUG_LAYOUT_SBH3D || layout == TEPLUG_LAYOUT_BS3HD ||
         layout == TEPLUG_LAYOUT_BSH3D || layout == TEPLUG_LAYOUT_T3HD || layout == TEPLUG_LAYOUT_TH3D;
}
bool KvPacked(int32_t layout) {
  return !QkvPacked(layout) && layout != TEPLUG_LAYOUT_SBHD_SBHD_SBHD &&
         layout != TEPLUG_LAYOUT_BSHD_BSHD_BSHD && layout != TEPLUG_LAYOUT_THD_THD_THD;
}

std::string ShapeText(const int64_t* shape, int rank) {
  std::vector<int64_t> v(shape, shape + rank);
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

// The tensor's strides in elements (row-major when all zero).
absl::StatusOr<std::array<int64_t, TEPLUG_MAX_RANK>> Strides(const TeplugTensor& t, const std::string& name) {
  std::array<int64_t, TEPLUG_MAX_RANK> s{};
  int zeros = 0;
  for (int i = 0; i < t.rank; ++i) zeros += t.strides[i] == 0 ? 1 : 0;
  if (zeros == t.rank) {
    int64_t step = 1;
    for (int i = t.rank - 1; i >= 0; --i) {
      s[i] = step;
      step *= t.shape[i];
    }
    return s;
  }
  if (zeros != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("native attention: ", name, " mixes zero and nonzero strides ",
                     ShapeText(t.strides, t.rank)));
  }
  for (int i = 0; i < t.rank; ++i) s[i] = t.strides[i];
  return s;
}

class Translator {
 public:
  explicit Translator(const TeplugAttentionParams& p) : p_(p) {}

  absl::Status CheckParams() {
    if (p_.struct_size < TEPLUG_STRUCT_SIZE(TeplugAttentionParams, reserved0)) {
      return Invalid(absl::StrCat("params.struct_size ", p_.struct_size, " is smaller than v1's ",
                                  TEPLUG_STRUCT_SIZE(TeplugAttentionParams, reserved0)));
    }
    if (p_.layout < 0 || p_.layout >= TEPLUG_LAYOUT_COUNT_) return Invalid(absl::StrCat("params.layout ", p_.layout, " is unknown"));
    if (p_.mask_type < 0 || p_.mask_type >= TEPLUG_MASK_COUNT_) {
      return Invalid(absl::StrCat("params.mask_type ", p_.mask_type, " is unknown"));
    }
    if (p_.bias_type < 0 || p_.bias_type >= TEPLUG_BIAS_COUNT_) {
      return Invalid(absl::StrCat("params.bias_type ", p_.bias_type, " is unknown"));
    }
    const struct {
      int64_t value;
      const char* name;
    } sizes[] = {{p_.batch, "batch"},           {p_.num_heads_q, "num_heads_q"},   {p_.num_heads_kv, "num_heads_kv"},
                 {p_.head_dim_qk, "head_dim_qk"}, {p_.head_dim_v, "head_dim_v"},     {p_.max_seqlen_q, "max_seqlen_q"},
                 {p_.max_seqlen_kv, "max_seqlen_kv"}};
    for (const auto& x : sizes) {
      if (x.value <= 0) return Invalid(absl::StrCat("params.", x.name, " is ", x.value, "; it must be positive"));
    }
    if (p_.num_heads_q % p_.num_heads_kv != 0) {
      return Invalid(absl::StrCat("params.num_heads_q ", p_.num_heads_q, " is not a multiple of num_heads_kv ",
                                  p_.num_heads_kv));
    }
    if (p_.window_left < -1 || p_.window_right < -1) {
      return Invalid(absl::StrCat("params.window_left/right (", p_.window_left, ", ", p_.window_right,
                                  ") must be -1 or >= 0"));
    }
    if (p_.is_training && !(p_.dropout >= 0.0f && p_.dropout < 1.0f)) {
      return Invalid(absl::StrCat("params.dropout ", p_.dropout, " is outside [0, 1)"));
    }
    const bool padding_mask = p_.mask_type == TEPLUG_MASK_PADDING || p_.mask_type == TEPLUG_MASK_PADDING_CAUSAL ||
                              p_.mask_type == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
    if (IsThd(p_.layout)) {
      if (!padding_mask) {
        return Invalid(absl::StrCat("layout ", sdk::LayoutName(p_.layout), " needs a padding mask type, got ",
                                    sdk::MaskName(p_.mask_type)));
      }
      if (p_.cu_seqlens_q == nullptr || p_.cu_seqlens_kv == nullptr) {
        return Invalid(absl::StrCat("layout ", sdk::LayoutName(p_.layout), " needs cu_seqlens_q and cu_seqlens_kv"));
      }
    }
    if ((p_.cu_seqlens_q == nullptr) != (p_.cu_seqlens_kv == nullptr) && padding_mask) {
      return Invalid("params.cu_seqlens_q and cu_seqlens_kv must be given together for a padding mask");
    }
    return absl::OkStatus();
  }

  // The expected shape of member 'q', 'k', 'v' or 'o'; T (THD) is taken from
  // the tensor itself.
  std::vector<int64_t> Shape(char member, int64_t tokens) const {
    if (member == 'o') {
      const int64_t hq = p_.num_heads_q, dv = p_.head_dim_v;
      if (IsThd(p_.layout)) return {tokens, hq, dv};
      if (std::string(sdk::LayoutFormat(p_.layout)) == "sbhd") return {p_.max_seqlen_q, p_.batch, hq, dv};
      return {p_.batch, p_.max_seqlen_q, hq, dv};
    }
    const Axes a = AxesOf(p_.layout, member);
    std::vector<int64_t> shape(static_cast<size_t>(a.rank));
    const bool is_q = member == 'q';
    shape[a.s] = IsThd(p_.layout) ? tokens : (is_q ? p_.max_seqlen_q : p_.max_seqlen_kv);
    if (a.b >= 0) shape[a.b] = p_.batch;
    shape[a.h] = is_q ? p_.num_heads_q : p_.num_heads_kv;
    shape[a.d] = member == 'v' ? p_.head_dim_v : p_.head_dim_qk;
    if (a.m >= 0) shape[a.m] = QkvPacked(p_.layout) ? 3 : 2;
    return shape;
  }

  // Checks `t` as member `member` and returns its [B, H, S, D] view.
  absl::StatusOr<SdpaTensorView> View(const TeplugTensor* t, const std::string& name, char member) {
    if (t == nullptr) return Invalid(absl::StrCat(name, " is NULL"));
    const int64_t tokens = t->rank > 0 ? t->shape[0] : 0;
    const std::vector<int64_t> want = Shape(member, tokens);
    if (t->rank != static_cast<int32_t>(want.size()) ||
        !std::equal(want.begin(), want.end(), t->shape)) {
      return Invalid(absl::StrCat(name, " has shape ", ShapeText(t->shape, t->rank), " but layout ",
                                  sdk::LayoutName(p_.layout), " needs ", ShapeText(want.data(), static_cast<int>(want.size()))));
    }
    absl::StatusOr<std::array<int64_t, TEPLUG_MAX_RANK>> st = Strides(*t, name);
    if (!st.ok()) return st.status();
    const std::array<int64_t, TEPLUG_MAX_RANK>& s = *st;
    const Axes a = member == 'o' ? (IsThd(p_.layout)                                    ? kThd
                                    : std::string(sdk::LayoutFormat(p_.layout)) == "sbhd" ? kSbhd
                                                                                          : kBshd)
                                 : AxesOf(p_.layout, member);
    SdpaTensorView v;
    const int64_t seq = member == 'q' || member == 'o' ? p_.max_seqlen_q : p_.max_seqlen_kv;
    v.dims = {p_.batch, t->shape[a.h], seq, t->shape[a.d]};
    v.strides = {a.b >= 0 ? s[a.b] : seq * s[a.s], s[a.h], s[a.s], s[a.d]};
    if (IsThd(p_.layout)) v.token_stride = s[a.s];
    if (a.m >= 0) {
      const int index = member == 'q' ? 0 : member == 'k' ? (QkvPacked(p_.layout) ? 1 : 0) : (QkvPacked(p_.layout) ? 2 : 1);
      v.element_offset = index * s[a.m];
    }
    if (v.strides[3] != 1) {
      return absl::UnimplementedError(absl::StrCat("native attention: ", name, "'s head-dim stride is ", v.strides[3],
                                                   "; cuDNN needs 1"));
    }
    return v;
  }

  // Device checks: every tensor on one CUDA device.
  absl::Status Device(const TeplugTensor* t, const std::string& name) {
    if (t == nullptr) return absl::OkStatus();
    const TeplugDevice* d = t->device;
    if (d == nullptr || d->kind != TEPLUG_DEVICE_CUDA) {
      return absl::UnimplementedError(absl::StrCat("native attention: ", name, " is not on a CUDA device (kind ",
                                                   d == nullptr ? TEPLUG_DEVICE_CPU : d->kind,
                                                   "); native runs attention on CUDA devices"));
    }
    if (ordinal_ < 0) {
      ordinal_ = d->ordinal;
      arch_ = d->arch;
    } else if (d->ordinal != ordinal_) {
      return Invalid(absl::StrCat(name, " is on cuda:", d->ordinal, ", q on cuda:", ordinal_));
    }
    return absl::OkStatus();
  }

  absl::Status SeqLens(const TeplugTensor* t, const std::string& name) {
    if (t == nullptr) return absl::OkStatus();
    if (t->dtype != TEPLUG_DTYPE_INT32 || t->rank != 1 || t->shape[0] != p_.batch + 1) {
      return Invalid(absl::StrCat(name, " must be int32 [", p_.batch + 1, "], got dtype ", sdk::DTypeName(t->dtype),
                                  " shape ", ShapeText(t->shape, t->rank)));
    }
    if (t->rank == 1 && t->strides[0] != 0 && t->strides[0] != 1) {
      return absl::UnimplementedError(absl::StrCat("native attention: ", name, " must be contiguous"));
    }
    return Device(t, name);
  }

  // The common part of forward and backward.
  absl::StatusOr<SdpaProblem> Common(const TeplugTensor* q, const TeplugTensor* k, const TeplugTensor* v,
                                     const TeplugTensor* o, const TeplugTensor* bias, bool backward) {
    if (absl::Status s = CheckParams(); !s.ok()) return s;
    SdpaProblem r;
    r.backward = backward;
    r.layout = p_.layout;
    r.batch = p_.batch;
    r.heads_q = p_.num_heads_q;
    r.heads_kv = p_.num_heads_kv;
    r.seq_q = p_.max_seqlen_q;
    r.seq_kv = p_.max_seqlen_kv;
    r.dim_qk = p_.head_dim_qk;
    r.dim_v = p_.head_dim_v;
    if (QkvPacked(p_.layout) && !(q == k && k == v)) {
      return Invalid(absl::StrCat("layout ", sdk::LayoutName(p_.layout), " is packed: q, k and v must be the same tensor"));
    }
    if (KvPacked(p_.layout) && k != v) {
      return Invalid(absl::StrCat("layout ", sdk::LayoutName(p_.layout), " is packed: k and v must be the same tensor"));
    }
    for (auto [t, name] : {std::pair{q, "q"}, {k, "k"}, {v, "v"}, {o, "o"}}) {
      if (absl::Status s = Device(t, name); !s.ok() && t != nullptr) return s;
    }
    auto view = [&](const TeplugTensor* t, const char* name, char member, SdpaTensorView* out) -> absl::Status {
      absl::StatusOr<SdpaTensorView> x = View(t, name, member);
      if (!x.ok()) return x.status();
      *out = *x;
      return absl::OkStatus();
    };
    if (absl::Status s = view(q, "q", 'q', &r.q); !s.ok()) return s;
    if (absl::Status s = view(k, "k", 'k', &r.k); !s.ok()) return s;
    if (absl::Status s = view(v, "v", 'v', &r.v); !s.ok()) return s;
    if (absl::Status s = view(o, "o", 'o', &r.o); !s.ok()) return s;
    r.dtype = q->dtype;
    if (k->dtype != r.dtype || v->dtype != r.dtype) {
      return absl::UnimplementedError(absl::StrCat("native attention: q, k, v dtypes ", sdk::DTypeName(q->dtype), ", ",
                                                   sdk::DTypeName(k->dtype), ", ", sdk::DTypeName(v->dtype),
                                                   " differ; cuDNN takes one"));
    }
    r.fp8 = IsFp8(r.dtype);
    if (o->dtype != r.dtype) {
      if (r.fp8) {
        return absl::UnimplementedError(absl::StrCat(
            "native attention: o has dtype ", sdk::DTypeName(o->dtype),
            "; native's fp8 attention keeps O in q's dtype ", sdk::DTypeName(r.dtype)));
      }
      return Invalid(absl::StrCat("o has dtype ", sdk::DTypeName(o->dtype), "; q has ", sdk::DTypeName(r.dtype)));
    }
    r.ragged = IsThd(p_.layout);
    if (absl::Status s = SeqLens(p_.cu_seqlens_q, "params.cu_seqlens_q"); !s.ok()) return s;
    if (absl::Status s = SeqLens(p_.cu_seqlens_kv, "params.cu_seqlens_kv"); !s.ok()) return s;
    r.mask_type = p_.mask_type;
    r.padding = (p_.mask_type == TEPLUG_MASK_PADDING || p_.mask_type == TEPLUG_MASK_PADDING_CAUSAL ||
                 p_.mask_type == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT) &&
                p_.cu_seqlens_q != nullptr;
    const bool top_left_causal = p_.mask_type == TEPLUG_MASK_CAUSAL || p_.mask_type == TEPLUG_MASK_PADDING_CAUSAL;
    const bool bottom_right_causal = p_.mask_type == TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT ||
                                     p_.mask_type == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
    r.causal = top_left_causal || bottom_right_causal;
    r.bottom_right = !top_left_causal && !DiagonalsCoincide();
    r.window_left = p_.window_left;
    r.window_right = r.causal ? 0 : p_.window_right;
    r.bias_type = p_.bias_type;
    r.alibi = p_.bias_type == TEPLUG_BIAS_ALIBI;
    r.explicit_alibi_slopes = r.alibi && p_.alibi_slopes != nullptr;
    const bool tensor_bias = p_.bias_type == TEPLUG_BIAS_PRE_SCALE || p_.bias_type == TEPLUG_BIAS_POST_SCALE;
    if (tensor_bias && bias == nullptr) {
      return Invalid(absl::StrCat("bias is NULL but params.bias_type is ", sdk::BiasName(p_.bias_type)));
    }
    if (!tensor_bias && bias != nullptr) {
      return Invalid(absl::StrCat("bias is given but params.bias_type is ", sdk::BiasName(p_.bias_type)));
    }
    if (bias != nullptr) {
      absl::StatusOr<SdpaTensorView> b = BiasView(bias, "bias", r.dtype);
      if (!b.ok()) return b.status();
      r.has_bias = true;
      r.bias = *b;
    }
    r.training = p_.is_training != 0;
    r.dropout = r.training && p_.dropout > 0.0f;
    r.dropout_probability = r.dropout ? p_.dropout : 0.0f;
    r.deterministic = p_.deterministic != 0;
    r.ordinal = ordinal_;
    r.device_arch = arch_;
    return r;
  }

  // Without a padding mask every sequence has the max lengths, so with equal
  // ones the bottom-right diagonal (offset s_kv - s_q) is the top-left one.
  // cuDNN's frontend refuses a bottom-right diagonal with a right bound
  // (a causal mask or window_right) together with bias, ALiBi or dropout, so
  // these calls get top-left, as TransformerEngine's
  // fused_attn_f16_arbitrary_seqlen.cu does for causal_bottom_right.
  bool DiagonalsCoincide() const {
    const bool padding_mask = p_.mask_type == TEPLUG_MASK_PADDING ||
                              p_.mask_type == TEPLUG_MASK_PADDING_CAUSAL ||
                              p_.mask_type == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
    return !padding_mask && p_.max_seqlen_q == p_.max_seqlen_kv;
  }

  // Checks bias or dbias `t` and returns its view. The graph declares both in
  // Q's dtype (as TransformerEngine gives them), so another dtype is refused
  // rather than read or written as Q's.
  absl::StatusOr<SdpaTensorView> BiasView(const TeplugTensor* t, const std::string& name,
                                          int32_t q_dtype) {
    if (absl::Status s = Device(t, name); !s.ok()) return s;
    const bool shape_ok = t->rank == 4 && (t->shape[0] == 1 || t->shape[0] == p_.batch) &&
                          (t->shape[1] == 1 || t->shape[1] == p_.num_heads_q) && t->shape[2] == p_.max_seqlen_q &&
                          t->shape[3] == p_.max_seqlen_kv;
    if (!shape_ok) {
      return Invalid(absl::StrCat(name, " has shape ", ShapeText(t->shape, t->rank), "; it must be [1 or ", p_.batch,
                                  ", 1 or ", p_.num_heads_q, ", ", p_.max_seqlen_q, ", ", p_.max_seqlen_kv, "]"));
    }
    if (t->dtype != q_dtype) {
      return absl::UnimplementedError(
          absl::StrCat("native attention: ", name, " has dtype ", sdk::DTypeName(t->dtype),
                       "; cuDNN takes it in q's dtype ", sdk::DTypeName(q_dtype)));
    }
    absl::StatusOr<std::array<int64_t, TEPLUG_MAX_RANK>> st = Strides(*t, name);
    if (!st.ok()) return st.status();
    SdpaTensorView v;
    v.dims = {t->shape[0], t->shape[1], t->shape[2], t->shape[3]};
    v.strides = {(*st)[0], (*st)[1], (*st)[2], (*st)[3]};
    return v;
  }

  absl::Status Lse(const TeplugTensor* t, const std::string& name) {
    if (t == nullptr) return Invalid(absl::StrCat(name, " is NULL; training needs it"));
    if (absl::Status s = Device(t, name); !s.ok()) return s;
    const std::vector<int64_t> want = {p_.batch, p_.num_heads_q, p_.max_seqlen_q};
    if (t->dtype != TEPLUG_DTYPE_FP32 || t->rank != 3 || !std::equal(want.begin(), want.end(), t->shape)) {
      return Invalid(absl::StrCat(name, " must be fp32 ", ShapeText(want.data(), 3), ", got dtype ",
                                  sdk::DTypeName(t->dtype), " shape ", ShapeText(t->shape, t->rank)));
    }
    absl::StatusOr<std::array<int64_t, TEPLUG_MAX_RANK>> st = Strides(*t, name);
    if (!st.ok()) return st.status();
    if ((*st)[2] != 1 || (*st)[1] != p_.max_seqlen_q || (*st)[0] != p_.num_heads_q * p_.max_seqlen_q) {
      return absl::UnimplementedError(absl::StrCat("native attention: ", name, " must be contiguous"));
    }
    return absl::OkStatus();
  }

  static absl::Status Invalid(const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("native attention: ", what));
  }

  const TeplugAttentionParams& p_;
  int ordinal_ = -1;
  int32_t arch_ = 0;
};

// Reads the per-tensor scales of an fp8 call: every scale tensor fp32 with
// one element on the call's CUDA device.
class ScaleReader {
 public:
  ScaleReader(int ordinal, bool need_data) : ordinal_(ordinal), need_data_(need_data) {}

  // The per-tensor quantization `name` (a tensor's quant, s_quant, dp_quant).
  // A tensor's missing quant is malformed (its codes have no value); a
  // missing s_quant or dp_quant is valid (the reference needs neither) but
  // not served: cuDNN quantizes P and dP with them.
  enum class Of {
    kTensor,        // q, k, v, o, d_o, dq, dk, dv
    kIntermediate,  // P (s_quant), dP (dp_quant)
  };
  absl::StatusOr<const TeplugQuantization*> PerTensor(const TeplugQuantization* q,
                                                      const std::string& name, const char* what,
                                                      Of of = Of::kTensor) const {
    if (q == nullptr && of == Of::kTensor) {
      return Translator::Invalid(
          absl::StrCat(name, " is NULL; fp8 attention needs ", what, "'s per-tensor scales"));
    }
    if (q == nullptr) {
      return absl::UnimplementedError(absl::StrCat("native attention: ", name,
                                                   " is NULL; cuDNN's fp8 attention quantizes ",
                                                   what, " with its scale and scale_inv"));
    }
    if (q->struct_size < TEPLUG_STRUCT_SIZE(TeplugQuantization, amax)) {
      return Translator::Invalid(absl::StrCat(name, ".struct_size ", q->struct_size,
                                              " is smaller than v1's ",
                                              TEPLUG_STRUCT_SIZE(TeplugQuantization, amax)));
    }
    if (q->mode != TEPLUG_SCALING_PER_TENSOR) {
      return absl::UnimplementedError(
          absl::StrCat("native attention: ", name, ".mode is ", sdk::ScalingName(q->mode),
                       "; native's fp8 attention takes per_tensor scales"));
    }
    return q;
  }

  // The scale tensor's data (NULL when the call gives none, as `supports`
  // may); `required` refuses a NULL tensor.
  absl::StatusOr<void*> Scalar(const TeplugTensor* t, const std::string& name,
                               bool required) const {
    if (t == nullptr) {
      if (required)
        return Translator::Invalid(absl::StrCat(name, " is NULL; fp8 attention needs it"));
      return nullptr;
    }
    int64_t count = 1;
    for (int i = 0; i < t->rank && i < TEPLUG_MAX_RANK; ++i) count *= t->shape[i];
    if (t->dtype != TEPLUG_DTYPE_FP32 || t->rank < 0 || t->rank > TEPLUG_MAX_RANK || count != 1) {
      return Translator::Invalid(
          absl::StrCat(name, " must be fp32 with one element, got dtype ", sdk::DTypeName(t->dtype),
                       " shape ", ShapeText(t->shape, std::clamp(t->rank, 0, TEPLUG_MAX_RANK))));
    }
    const TeplugDevice* d = t->device;
    if (d == nullptr || d->kind != TEPLUG_DEVICE_CUDA || d->ordinal != ordinal_) {
      return Translator::Invalid(
          absl::StrCat(name, " must be on cuda:", ordinal_, " with the tensors it scales"));
    }
    if (need_data_ && t->data == nullptr)
      return Translator::Invalid(absl::StrCat(name, ".data is NULL"));
    return t->data;
  }

  // descale (scale_inv) of fp8 tensor `t`.
  absl::Status Descale(const TeplugTensor* t, const std::string& name, const void** out) const {
    absl::StatusOr<const TeplugQuantization*> q =
        PerTensor(t->quant, name + ".quant", name.c_str());
    if (!q.ok()) return q.status();
    return Take(Scalar((*q)->scale_inv, name + ".quant.scale_inv", true), out);
  }

  // scale and amax of fp8 output `t`.
  absl::Status Output(const TeplugTensor* t, const std::string& name, const void** scale,
                      void** amax) const {
    absl::StatusOr<const TeplugQuantization*> q =
        PerTensor(t->quant, name + ".quant", name.c_str());
    if (!q.ok()) return q.status();
    if (absl::Status s = Take(Scalar((*q)->scale, name + ".quant.scale", true), scale); !s.ok())
      return s;
    return Take(Scalar((*q)->amax, name + ".quant.amax", false), amax);
  }

  template <typename T>
  static absl::Status Take(absl::StatusOr<void*> v, T** out) {
    if (!v.ok()) return v.status();
    *out = *v;
    return absl::OkStatus();
  }

 private:
  int ordinal_;
  bool need_data_;
};

// s_quant: P's descale and scale, and its amax when `amax` is given.
absl::Status ReadP(const ScaleReader& r, const TeplugQuantization* s_quant, SdpaFp8Scales* f,
                   void** amax) {
  absl::StatusOr<const TeplugQuantization*> q =
      r.PerTensor(s_quant, "s_quant", "P", ScaleReader::Of::kIntermediate);
  if (!q.ok()) return q.status();
  if (absl::Status s = r.Take(r.Scalar((*q)->scale_inv, "s_quant.scale_inv", true), &f->descale_s);
      !s.ok())
    return s;
  if (absl::Status s = r.Take(r.Scalar((*q)->scale, "s_quant.scale", true), &f->scale_s); !s.ok())
    return s;
  if (amax == nullptr) return absl::OkStatus();
  return r.Take(r.Scalar((*q)->amax, "s_quant.amax", false), amax);
}

absl::StatusOr<SdpaFp8Scales> Fp8ScalesOfForward(const TeplugAttentionFwdArgs& a, int ordinal,
                                                 bool need_data) {
  const ScaleReader r(ordinal, need_data);
  SdpaFp8Scales f;
  for (auto [t, name, out] :
       {std::tuple{a.q, "q", &f.descale_q}, {a.k, "k", &f.descale_k}, {a.v, "v", &f.descale_v}}) {
    if (absl::Status s = r.Descale(t, name, out); !s.ok()) return s;
  }
  if (absl::Status s = ReadP(r, a.s_quant, &f, &f.amax_s); !s.ok()) return s;
  if (absl::Status s = r.Output(a.o, "o", &f.scale_o, &f.amax_o); !s.ok()) return s;
  return f;
}

absl::StatusOr<SdpaFp8Scales> Fp8ScalesOfBackward(const TeplugAttentionBwdArgs& a, int ordinal,
                                                  bool need_data) {
  const ScaleReader r(ordinal, need_data);
  SdpaFp8Scales f;
  for (auto [t, name, out] : {std::tuple{a.q, "q", &f.descale_q},
                              {a.k, "k", &f.descale_k},
                              {a.v, "v", &f.descale_v},
                              {a.o, "o", &f.descale_o},
                              {a.d_o, "d_o", &f.descale_d_o}}) {
    if (absl::Status s = r.Descale(t, name, out); !s.ok()) return s;
  }
  if (absl::Status s = ReadP(r, a.s_quant, &f, nullptr); !s.ok()) return s;
  absl::StatusOr<const TeplugQuantization*> dp =
      r.PerTensor(a.dp_quant, "dp_quant", "dP", ScaleReader::Of::kIntermediate);
  if (!dp.ok()) return dp.status();
  if (absl::Status s =
          r.Take(r.Scalar((*dp)->scale_inv, "dp_quant.scale_inv", true), &f.descale_dp);
      !s.ok())
    return s;
  if (absl::Status s = r.Take(r.Scalar((*dp)->scale, "dp_quant.scale", true), &f.scale_dp); !s.ok())
    return s;
  if (absl::Status s = r.Take(r.Scalar((*dp)->amax, "dp_quant.amax", false), &f.amax_dp); !s.ok())
    return s;
  for (auto [t, name, scale, amax] : {std::tuple{a.dq, "dq", &f.scale_dq, &f.amax_dq},
                                      {a.dk, "dk", &f.scale_dk, &f.amax_dk},
                                      {a.dv, "dv", &f.scale_dv, &f.amax_dv}}) {
    if (absl::Status s = r.Output(t, name, scale, amax); !s.ok()) return s;
  }
  return f;
}

}  // namespace

std::vector<int64_t> ExpectedShape(const TeplugAttentionParams& params, char member) {
  return Translator(params).Shape(member, 0);
}

absl::StatusOr<SdpaProblem> SdpaProblemOfForward(const TeplugAttentionFwdArgs& args) {
  if (args.params == nullptr) return absl::InvalidArgumentError("native attention: params is NULL");
  Translator t(*args.params);
  absl::StatusOr<SdpaProblem> r = t.Common(args.q, args.k, args.v, args.o, args.bias, false);
  if (!r.ok()) return r;
  // An inference may ask for LSE too; given, it is written (and checked) as
  // in training.
  r->writes_lse = r->training || args.softmax_lse != nullptr;
  if (r->writes_lse) {
    if (absl::Status s = t.Lse(args.softmax_lse, "softmax_lse"); !s.ok()) return s;
  }
  if (r->fp8) {
    if (absl::StatusOr<SdpaFp8Scales> f = Fp8ScalesOfForward(args, r->ordinal, false); !f.ok())
      return f.status();
  }
  return r;
}

absl::StatusOr<SdpaProblem> SdpaProblemOfBackward(const TeplugAttentionBwdArgs& args) {
  if (args.params == nullptr) return absl::InvalidArgumentError("native attention: params is NULL");
  Translator t(*args.params);
  absl::StatusOr<SdpaProblem> r = t.Common(args.q, args.k, args.v, args.o, args.bias, true);
  if (!r.ok()) return r;
  if (absl::Status s = t.Lse(args.softmax_lse, "softmax_lse"); !s.ok()) return s;
  const int32_t layout = args.params->layout;
  if (QkvPacked(layout) && !(args.dq == args.dk && args.dk == args.dv)) {
    return Translator::Invalid(absl::StrCat("layout ", sdk::LayoutName(layout), " is packed: dq, dk and dv must be the same tensor"));
  }
  if (KvPacked(layout) && args.dk != args.dv) {
    return Translator::Invalid(absl::StrCat("layout ", sdk::LayoutName(layout), " is packed: dk and dv must be the same tensor"));
  }
  const struct {
    const TeplugTensor* t;
    const char* name;
    char member;
    SdpaTensorView* out;
  } grads[] = {{args.d_o, "d_o", 'o', &r->d_o}, {args.dq, "dq", 'q', &r->dq}, {args.dk, "dk", 'k', &r->dk},
               {args.dv, "dv", 'v', &r->dv}};
  for (const auto& g : grads) {
    if (absl::Status s = t.Device(g.t, g.name); !s.ok() && g.t != nullptr) return s;
    absl::StatusOr<SdpaTensorView> v = t.View(g.t, g.name, g.member);
    if (!v.ok()) return v.status();
    *g.out = *v;
  }
  // dO sets the gradients' dtype: q's, or either fp8 format for fp8 q.
  r->grad_dtype = args.d_o->dtype;
  if (!r->fp8 && r->grad_dtype != r->dtype) {
    return Translator::Invalid(absl::StrCat("d_o has dtype ", sdk::DTypeName(r->grad_dtype),
                                            "; q has ", sdk::DTypeName(r->dtype)));
  }
  if (r->fp8 && !IsFp8(r->grad_dtype)) {
    return absl::UnimplementedError(absl::StrCat("native attention: d_o has dtype ",
                                                 sdk::DTypeName(r->grad_dtype),
                                                 "; native's fp8 backward takes an fp8 dO"));
  }
  for (const auto& g : grads) {
    if (g.t->dtype == r->grad_dtype) continue;
    if (r->fp8) {
      return absl::UnimplementedError(absl::StrCat(
          "native attention: ", g.name, " has dtype ", sdk::DTypeName(g.t->dtype),
          "; cuDNN writes dQ, dK and dV in ", "dO's dtype ", sdk::DTypeName(r->grad_dtype)));
    }
    return Translator::Invalid(absl::StrCat(g.name, " has dtype ", sdk::DTypeName(g.t->dtype),
                                            "; q has ", sdk::DTypeName(r->dtype)));
  }
  if (args.dbias != nullptr) {
    if (!r->has_bias) return Translator::Invalid("dbias is given but there is no bias");
    absl::StatusOr<SdpaTensorView> v = t.BiasView(args.dbias, "dbias", r->dtype);
    if (!v.ok()) return v.status();
    if (v->dims != r->bias.dims) return Translator::Invalid("dbias must have bias's shape");
    r->dbias = true;
    r->dbias_view = *v;
  }
  if (r->fp8) {
    if (absl::StatusOr<SdpaFp8Scales> f = Fp8ScalesOfBackward(args, r->ordinal, false); !f.ok())
      return f.status();
  }
  return r;
}

absl::StatusOr<SdpaFp8Scales> SdpaFp8ScalesOfForward(const TeplugAttentionFwdArgs& args,
                                                     int ordinal) {
  return Fp8ScalesOfForward(args, ordinal, true);
}

absl::StatusOr<SdpaFp8Scales> SdpaFp8ScalesOfBackward(const TeplugAttentionBwdArgs& args,
                                                      int ordinal) {
  return Fp8ScalesOfBackward(args, ordinal, true);
}

std::vector<int64_t> SdpaProblemWords(const SdpaProblem& p) {
  std::vector<int64_t> w = {p.backward,
                            p.dtype,
                            p.grad_dtype,
                            p.batch,
                            p.heads_q,
                            p.heads_kv,
                            p.seq_q,
                            p.seq_kv,
                            p.dim_qk,
                            p.dim_v,
                            p.layout,
                            p.ragged,
                            p.padding,
                            p.causal,
                            p.bottom_right,
                            p.window_left,
                            p.window_right,
                            p.mask_type,
                            p.bias_type,
                            p.has_bias,
                            p.dbias,
                            p.alibi,
                            p.explicit_alibi_slopes,
                            p.training,
                            p.writes_lse,
                            p.dropout,
                            p.deterministic,
                            p.ordinal};
  // The probability as its bits: graphs with different p differ.
  uint32_t bits = 0;
  static_assert(sizeof(bits) == sizeof(p.dropout_probability));
  std::memcpy(&bits, &p.dropout_probability, sizeof(bits));
  w.push_back(bits);
  for (const SdpaTensorView* v : {&p.q, &p.k, &p.v, &p.o, &p.d_o, &p.dq, &p.dk, &p.dv, &p.bias, &p.dbias_view}) {
    w.insert(w.end(), v->dims.begin(), v->dims.end());
    w.insert(w.end(), v->strides.begin(), v->strides.end());
    w.push_back(v->element_offset);
    w.push_back(v->token_stride);
  }
  return w;
}

}  // namespace teplug::native::attention
