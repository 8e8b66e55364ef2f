#include "plugins/reference/provider/attention_problem.h"

#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/reference/provider/status_bridge.h"
#include "plugins/reference/provider/tensor_io.h"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider {
namespace {

// ReadAttentionProblem casts TeplugMaskType to AttnMaskType and asks the
// kernels' IsPaddingMask which masks use cu_seqlens: the numbering must agree.
static_assert(static_cast<int>(AttnMaskType::kPadding) == TEPLUG_MASK_PADDING &&
              static_cast<int>(AttnMaskType::kPaddingCausal) == TEPLUG_MASK_PADDING_CAUSAL &&
              static_cast<int>(AttnMaskType::kPaddingCausalBottomRight) ==
                  TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT);

// The separate-tensor layout of the same format: how O and dO are laid out.
QkvLayout SeparateLayoutOf(QkvLayout layout) {
  switch (QkvFormatOf(layout)) {
    case QkvFormat::kSbhd: return QkvLayout::kSbhdSbhdSbhd;
    case QkvFormat::kBshd: return QkvLayout::kBshdBshdBshd;
    default: return QkvLayout::kThdThdThd;
  }
}

const std::string& TensorName(QkvTensor t) {
  static const std::string names[] = {"q", "k", "v"};
  return names[static_cast<int>(t)];
}

// cu_seqlens: int32 [batch + 1] as int64.
absl::StatusOr<std::vector<int64_t>> ReadCuSeqlens(const TeplugTensor* t, const std::string& name,
                                                   int64_t batch) {
  absl::StatusOr<TensorView> v = ViewTensor(t, name);
  if (!v.ok()) return v.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(*v, {batch + 1}, "batch + 1 prefix sums are"));
  TEPLUG_REFERENCE_RETURN_IF_ERROR(
      RequireDType(*v, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_INT32), "cu_seqlens must be"));
  absl::StatusOr<std::vector<int64_t>> values = ReadIntegers(*v);
  if (!values.ok()) return values.status();
  if ((*values)[0] != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s[0] is %d; prefix sums start at 0", name, (*values)[0]));
  }
  for (int64_t b = 0; b < batch; ++b) {
    if ((*values)[b + 1] < (*values)[b]) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s decreases at entry %d (%d after %d); prefix sums of lengths never decrease", name,
          b + 1, (*values)[b + 1], (*values)[b]));
    }
  }
  return values;
}

std::vector<int64_t> Lengths(const std::vector<int64_t>& cu) {
  std::vector<int64_t> out;
  for (size_t b = 0; b + 1 < cu.size(); ++b) out.push_back(cu[b + 1] - cu[b]);
  return out;
}

// Layout dims as seen for the O/dO tensors: Q's geometry with head_dim_v.
QkvDims OutputDims(const AttentionProblem& p) {
  QkvDims d = p.dims;
  d.d_qk = p.dims.d_v;
  return d;
}

// Sequence positions of batch b present in the buffer of `side`.
int64_t PresentLength(const AttentionProblem& p, bool q_side, int64_t b) {
  if (!p.thd) return q_side ? p.dims.max_sq : p.dims.max_skv;
  const std::vector<int64_t>& cu = q_side ? p.cu_seqlens_q : p.cu_seqlens_kv;
  return cu[b + 1] - cu[b];
}

int64_t TokensNeeded(const AttentionProblem& p, bool q_side) {
  if (!p.thd) return 0;
  return q_side ? p.cu_seqlens_q.back() : p.cu_seqlens_kv.back();
}

// Checks that a thd buffer holds at least the tokens cu_seqlens addresses
// and returns its token extent (shape[0]); 0 for non-thd layouts.
absl::StatusOr<int64_t> TokenExtent(const AttentionProblem& p, const TensorView& t, bool q_side) {
  if (!p.thd) return 0;
  const int64_t needed = TokensNeeded(p, q_side);
  if (t.shape.empty() || t.shape[0] < needed) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: shape %s holds fewer than the %d tokens cu_seqlens_%s addresses", t.name,
        ShapeString(t.shape), needed, q_side ? "q" : "kv"));
  }
  return t.shape[0];
}

}  // namespace

absl::StatusOr<AttentionProblem> ReadAttentionProblem(const TeplugAttentionParams* params,
                                                      const TeplugTensor* bias,
                                                      const std::string& args_name) {
  const std::string pn = args_name + ".params";
  if (params == nullptr) return absl::InvalidArgumentError(pn + " is NULL");
  TeplugAttentionParams a;
  if (!sdk::ReadVersioned(params, &a, TEPLUG_STRUCT_SIZE(TeplugAttentionParams, reserved0))) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.struct_size %d is smaller than the v1 TeplugAttentionParams", pn, params->struct_size));
  }
  if (a.layout < 0 || a.layout >= TEPLUG_LAYOUT_COUNT_) {
    return absl::InvalidArgumentError(absl::StrFormat("%s.layout %d is not a TeplugQkvLayout", pn, a.layout));
  }
  if (a.mask_type < 0 || a.mask_type >= TEPLUG_MASK_COUNT_) {
    return absl::InvalidArgumentError(absl::StrFormat("%s.mask_type %d is not a TeplugMaskType", pn, a.mask_type));
  }
  if (a.bias_type < 0 || a.bias_type >= TEPLUG_BIAS_COUNT_) {
    return absl::InvalidArgumentError(absl::StrFormat("%s.bias_type %d is not a TeplugBiasType", pn, a.bias_type));
  }
  const struct {
    const char* name;
    int64_t value;
  } extents[] = {{"batch", a.batch},           {"num_heads_q", a.num_heads_q},
                 {"num_heads_kv", a.num_heads_kv}, {"head_dim_qk", a.head_dim_qk},
                 {"head_dim_v", a.head_dim_v}, {"max_seqlen_q", a.max_seqlen_q},
                 {"max_seqlen_kv", a.max_seqlen_kv}};
  for (const auto& e : extents) {
    if (e.value <= 0) {
      return absl::InvalidArgumentError(absl::StrFormat("%s.%s is %d; it must be > 0", pn, e.name, e.value));
    }
  }
  if (a.num_heads_q % a.num_heads_kv != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.num_heads_q %d is not a multiple of num_heads_kv %d (grouped-query attention)", pn,
        a.num_heads_q, a.num_heads_kv));
  }
  if (a.window_left < -1 || a.window_right < -1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: window (%d, %d); each side is -1 (unbounded) or >= 0", pn, a.window_left, a.window_right));
  }
  if (!(a.dropout >= 0.0f && a.dropout < 1.0f)) {
    return absl::InvalidArgumentError(absl::StrFormat("%s.dropout %g is outside [0, 1)", pn, a.dropout));
  }
  if (!std::isfinite(a.softmax_scale)) {
    return absl::InvalidArgumentError(absl::StrFormat("%s.softmax_scale %g is not finite", pn, a.softmax_scale));
  }

  AttentionProblem p;
  p.layout = static_cast<QkvLayout>(a.layout);
  p.thd = QkvFormatOf(p.layout) == QkvFormat::kThd;
  p.dims.batch = a.batch;
  p.dims.max_sq = a.max_seqlen_q;
  p.dims.max_skv = a.max_seqlen_kv;
  p.dims.hq = a.num_heads_q;
  p.dims.hkv = a.num_heads_kv;
  p.dims.d_qk = a.head_dim_qk;
  p.dims.d_v = a.head_dim_v;
  p.shape = AttentionShape{a.batch, a.num_heads_q, a.num_heads_kv, a.max_seqlen_q,
                           a.max_seqlen_kv, a.head_dim_qk, a.head_dim_v};
  AttentionOptions& o = p.options;
  o.mask_type = static_cast<AttnMaskType>(a.mask_type);
  o.bias_type = static_cast<AttnBiasType>(a.bias_type);
  o.softmax_scale = a.softmax_scale;
  o.is_training = a.is_training != 0;
  o.dropout_p = a.dropout;
  o.dropout_seed = a.rng_seed;
  o.dropout_offset = a.rng_offset;
  o.window_left = a.window_left;
  o.window_right = a.window_right;

  // A packed (thd) batch has no padding rows to fall back on: its sequences
  // are told apart by cu_seqlens, which only the padding mask types read.
  if (p.thd && !IsPaddingMask(o.mask_type)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.mask_type %s with layout %s: thd layouts need a padding mask type (padding, "
        "padding_causal or padding_causal_bottom_right)",
        pn, sdk::MaskName(a.mask_type), sdk::LayoutName(a.layout)));
  }
  const bool needs_lengths = p.thd || IsPaddingMask(o.mask_type);
  if (needs_lengths && (a.cu_seqlens_q == nullptr || a.cu_seqlens_kv == nullptr)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.cu_seqlens_%s is NULL but layout %s with mask %s needs int32 [batch + 1] prefix sums",
        pn, a.cu_seqlens_q == nullptr ? "q" : "kv", sdk::LayoutName(a.layout),
        sdk::MaskName(a.mask_type)));
  }
  if (a.cu_seqlens_q != nullptr) {
    absl::StatusOr<std::vector<int64_t>> cu = ReadCuSeqlens(a.cu_seqlens_q, pn + ".cu_seqlens_q", a.batch);
    if (!cu.ok()) return cu.status();
    p.cu_seqlens_q = *std::move(cu);
    o.seqlens_q = Lengths(p.cu_seqlens_q);
  }
  if (a.cu_seqlens_kv != nullptr) {
    absl::StatusOr<std::vector<int64_t>> cu = ReadCuSeqlens(a.cu_seqlens_kv, pn + ".cu_seqlens_kv", a.batch);
    if (!cu.ok()) return cu.status();
    p.cu_seqlens_kv = *std::move(cu);
    o.seqlens_kv = Lengths(p.cu_seqlens_kv);
  }
  absl::Status layout_ok = ValidateQkvLayout(p.layout, p.dims, p.thd ? p.cu_seqlens_q : std::vector<int64_t>(),
                                             p.thd ? p.cu_seqlens_kv : std::vector<int64_t>());
  if (!layout_ok.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(pn, ": ", layout_ok.message()));
  }

  if (a.alibi_slopes != nullptr) {
    if (a.bias_type != TEPLUG_BIAS_ALIBI) {
      return absl::InvalidArgumentError(absl::StrCat(pn, ".alibi_slopes is set but bias_type is ",
                                                     sdk::BiasName(a.bias_type)));
    }
    absl::StatusOr<TensorView> s = ViewTensor(a.alibi_slopes, pn + ".alibi_slopes");
    if (!s.ok()) return s.status();
    TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(*s, {a.num_heads_q}, "one slope per query head is"));
    TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireDType(*s, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32), "slopes must be"));
    absl::StatusOr<std::vector<double>> slopes = ReadValues(*s);
    if (!slopes.ok()) return slopes.status();
    o.alibi_slopes = *std::move(slopes);
  }

  const bool tensor_bias = a.bias_type == TEPLUG_BIAS_PRE_SCALE || a.bias_type == TEPLUG_BIAS_POST_SCALE;
  const std::string bn = args_name + ".bias";
  if (!tensor_bias && bias != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(bn, " is set but params.bias_type is ",
                                                   sdk::BiasName(a.bias_type),
                                                   "; only pre_scale and post_scale take a bias tensor"));
  }
  if (tensor_bias) {
    if (bias == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(bn, " is NULL but params.bias_type is ",
                                                     sdk::BiasName(a.bias_type)));
    }
    absl::StatusOr<TensorView> b = ViewTensor(bias, bn);
    if (!b.ok()) return b.status();
    const bool shape_ok = b->shape.size() == 4 && (b->shape[0] == 1 || b->shape[0] == a.batch) &&
                          (b->shape[1] == 1 || b->shape[1] == a.num_heads_q) &&
                          b->shape[2] == a.max_seqlen_q && b->shape[3] == a.max_seqlen_kv;
    if (!shape_ok) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: shape %s but it must be [1 or batch %d, 1 or num_heads_q %d, max_seqlen_q %d, "
          "max_seqlen_kv %d]",
          bn, ShapeString(b->shape), a.batch, a.num_heads_q, a.max_seqlen_q, a.max_seqlen_kv));
    }
    absl::StatusOr<std::vector<double>> values = ReadValues(*b);
    if (!values.ok()) return values.status();
    o.bias = *std::move(values);
    o.bias_batch = b->shape[0];
    o.bias_heads = b->shape[1];
    p.bias_shape = b->shape;
  }
  return p;
}

std::vector<int64_t> QkvBufferShape(const AttentionProblem& p, QkvTensor tensor, int64_t tokens) {
  const QkvDims& d = p.dims;
  const bool q = tensor == QkvTensor::kQ;
  const int64_t s = q ? d.max_sq : d.max_skv;
  const int64_t h = q ? d.hq : d.hkv;
  const int64_t dim = tensor == QkvTensor::kV ? d.d_v : d.d_qk;
  const QkvPacking packing = QkvPackingOf(p.layout);
  const bool packed = packing == QkvPacking::kQkvPacked || (packing == QkvPacking::kKvPacked && !q);
  const int64_t members = packing == QkvPacking::kQkvPacked ? 3 : 2;
  std::vector<int64_t> lead;
  switch (QkvFormatOf(p.layout)) {
    case QkvFormat::kSbhd: lead = {s, d.batch}; break;
    case QkvFormat::kBshd: lead = {d.batch, s}; break;
    default: lead = {tokens}; break;
  }
  std::vector<int64_t> tail;
  if (!packed) {
    tail = {h, dim};
  } else if (QkvPackAxisOf(p.layout) == QkvPackAxis::kBeforeHeads) {
    tail = {members, h, dim};
  } else {
    tail = {h, members, dim};
  }
  lead.insert(lead.end(), tail.begin(), tail.end());
  return lead;
}

absl::StatusOr<std::vector<double>> GatherQkv(const AttentionProblem& p, QkvTensor tensor,
                                              const TensorView& t) {
  const bool q_side = tensor == QkvTensor::kQ;
  absl::StatusOr<int64_t> tokens = TokenExtent(p, t, q_side);
  if (!tokens.ok()) return tokens.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(
      t, QkvBufferShape(p, tensor, *tokens),
      absl::StrCat("layout ", QkvLayoutName(p.layout), " needs for ", TensorName(tensor))));
  absl::StatusOr<std::vector<double>> buffer = ReadValues(t);
  if (!buffer.ok()) return buffer.status();
  const int64_t h_count = q_side ? p.dims.hq : p.dims.hkv;
  const int64_t s_count = q_side ? p.dims.max_sq : p.dims.max_skv;
  const int64_t d_count = tensor == QkvTensor::kV ? p.dims.d_v : p.dims.d_qk;
  const std::vector<int64_t>& cu = q_side ? p.cu_seqlens_q : p.cu_seqlens_kv;
  std::vector<double> out(static_cast<size_t>(p.dims.batch * h_count * s_count * d_count), 0.0);
  for (int64_t b = 0; b < p.dims.batch; ++b) {
    const int64_t present = PresentLength(p, q_side, b);
    for (int64_t h = 0; h < h_count; ++h) {
      for (int64_t s = 0; s < present; ++s) {
        for (int64_t d = 0; d < d_count; ++d) {
          out[((b * h_count + h) * s_count + s) * d_count + d] =
              (*buffer)[QkvElementOffset(p.layout, tensor, p.dims, cu, b, s, h, d)];
        }
      }
    }
  }
  return out;
}

absl::StatusOr<std::vector<double>> GatherOutputLike(const AttentionProblem& p, const TensorView& t) {
  AttentionProblem o = p;
  o.layout = SeparateLayoutOf(p.layout);
  o.dims = OutputDims(p);
  return GatherQkv(o, QkvTensor::kQ, t);
}

absl::Status ScatterOutput(const AttentionProblem& p, const std::vector<double>& o,
                           const TensorView& t) {
  AttentionProblem op = p;
  op.layout = SeparateLayoutOf(p.layout);
  op.dims = OutputDims(p);
  absl::StatusOr<int64_t> tokens = TokenExtent(op, t, /*q_side=*/true);
  if (!tokens.ok()) return tokens.status();
  TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(
      t, QkvBufferShape(op, QkvTensor::kQ, *tokens),
      absl::StrCat("layout ", QkvLayoutName(p.layout), " with head_dim_v needs for o")));
  std::vector<double> buffer(static_cast<size_t>(t.element_count), 0.0);
  const QkvDims& d = op.dims;
  for (int64_t b = 0; b < d.batch; ++b) {
    const int64_t present = PresentLength(op, true, b);
    for (int64_t h = 0; h < d.hq; ++h) {
      for (int64_t s = 0; s < present; ++s) {
        for (int64_t e = 0; e < d.d_qk; ++e) {
          buffer[QkvElementOffset(op.layout, QkvTensor::kQ, d, op.cu_seqlens_q, b, s, h, e)] =
              o[((b * d.hq + h) * d.max_sq + s) * d.d_qk + e];
        }
      }
    }
  }
  return WriteValues(t, buffer);
}

absl::Status ScatterGradients(const AttentionProblem& p, const std::vector<double>& dq,
                              const std::vector<double>& dk, const std::vector<double>& dv,
                              const TensorView& dq_t, const TensorView& dk_t,
                              const TensorView& dv_t) {
  const QkvTensor tensors[] = {QkvTensor::kQ, QkvTensor::kK, QkvTensor::kV};
  const std::vector<double>* grads[] = {&dq, &dk, &dv};
  const TensorView* views[] = {&dq_t, &dk_t, &dv_t};
  // Buffer group of each tensor: which members share one buffer.
  int group[3] = {0, 1, 2};
  const QkvPacking packing = QkvPackingOf(p.layout);
  if (packing == QkvPacking::kQkvPacked) group[1] = group[2] = 0;
  if (packing == QkvPacking::kKvPacked) group[2] = 1;
  for (int i = 0; i < 3; ++i) {
    const TensorView& owner = *views[group[i]];
    if (group[i] != i && views[i]->data != owner.data) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: layout %s packs d%s and d%s in one buffer, so %s must be the same buffer as %s",
          views[i]->name, QkvLayoutName(p.layout), TensorName(tensors[group[i]]),
          TensorName(tensors[i]), views[i]->name, owner.name));
    }
  }
  for (int g = 0; g < 3; ++g) {
    if (group[g] != g) continue;  // written through its group's owner
    const TensorView& t = *views[g];
    const bool q_side = tensors[g] == QkvTensor::kQ;
    absl::StatusOr<int64_t> tokens = TokenExtent(p, t, q_side);
    if (!tokens.ok()) return tokens.status();
    TEPLUG_REFERENCE_RETURN_IF_ERROR(RequireShape(
        t, QkvBufferShape(p, tensors[g], *tokens),
        absl::StrCat("layout ", QkvLayoutName(p.layout), " needs for d", TensorName(tensors[g]))));
    std::vector<double> buffer(static_cast<size_t>(t.element_count), 0.0);
    for (int i = 0; i < 3; ++i) {
      if (group[i] != g) continue;
      const QkvTensor tensor = tensors[i];
      const bool qs = tensor == QkvTensor::kQ;
      const int64_t h_count = qs ? p.dims.hq : p.dims.hkv;
      const int64_t s_count = qs ? p.dims.max_sq : p.dims.max_skv;
      const int64_t d_count = tensor == QkvTensor::kV ? p.dims.d_v : p.dims.d_qk;
      const std::vector<int64_t>& cu = qs ? p.cu_seqlens_q : p.cu_seqlens_kv;
      const std::vector<double>& grad = *grads[i];
      for (int64_t b = 0; b < p.dims.batch; ++b) {
        const int64_t present = PresentLength(p, qs, b);
        for (int64_t h = 0; h < h_count; ++h) {
          for (int64_t s = 0; s < present; ++s) {
            for (int64_t d = 0; d < d_count; ++d) {
              buffer[QkvElementOffset(p.layout, tensor, p.dims, cu, b, s, h, d)] =
                  grad[((b * h_count + h) * s_count + s) * d_count + d];
            }
          }
        }
      }
    }
    TEPLUG_REFERENCE_RETURN_IF_ERROR(WriteValues(t, buffer));
  }
  return absl::OkStatus();
}

absl::Status CheckLse(const AttentionProblem& p, const TensorView& lse) {
  TEPLUG_REFERENCE_RETURN_IF_ERROR(
      RequireShape(lse, {p.dims.batch, p.dims.hq, p.dims.max_sq}, "softmax_lse is fp32"));
  return RequireDType(lse, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32), "softmax_lse must be");
}

}  // namespace teplug::reference::provider
