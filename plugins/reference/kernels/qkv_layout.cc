#include "plugins/reference/kernels/qkv_layout.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace teplug {
namespace reference {
namespace {

// Static facts about one layout.
struct LayoutTraits {
  QkvLayout layout;
  const char* name;
  QkvFormat format;
  QkvPacking packing;
  QkvPackAxis pack_axis;
};

constexpr LayoutTraits kLayoutTraits[] = {
    {QkvLayout::kSb3hd, "sb3hd", QkvFormat::kSbhd, QkvPacking::kQkvPacked,
     QkvPackAxis::kBeforeHeads},
    {QkvLayout::kSbh3d, "sbh3d", QkvFormat::kSbhd, QkvPacking::kQkvPacked,
     QkvPackAxis::kBetweenHeadsAndDim},
    {QkvLayout::kSbhdSb2hd, "sbhd_sb2hd", QkvFormat::kSbhd,
     QkvPacking::kKvPacked, QkvPackAxis::kBeforeHeads},
    {QkvLayout::kSbhdSbh2d, "sbhd_sbh2d", QkvFormat::kSbhd,
     QkvPacking::kKvPacked, QkvPackAxis::kBetweenHeadsAndDim},
    {QkvLayout::kSbhdSbhdSbhd, "sbhd_sbhd_sbhd", QkvFormat::kSbhd,
     QkvPacking::kSeparate, QkvPackAxis::kNone},
    {QkvLayout::kBs3hd, "bs3hd", QkvFormat::kBshd, QkvPacking::kQkvPacked,
     QkvPackAxis::kBeforeHeads},
    {QkvLayout::kBsh3d, "bsh3d", QkvFormat::kBshd, QkvPacking::kQkvPacked,
     QkvPackAxis::kBetweenHeadsAndDim},
    {QkvLayout::kBshdBs2hd, "bshd_bs2hd", QkvFormat::kBshd,
     QkvPacking::kKvPacked, QkvPackAxis::kBeforeHeads},
    {QkvLayout::kBshdBsh2d, "bshd_bsh2d", QkvFormat::kBshd,
     QkvPacking::kKvPacked, QkvPackAxis::kBetweenHeadsAndDim},
    {QkvLayout::kBshdBshdBshd, "bshd_bshd_bshd", QkvFormat::kBshd,
     QkvPacking::kSeparate, QkvPackAxis::kNone},
    {QkvLayout::kT3hd, "t3hd", QkvFormat::kThd, QkvPacking::kQkvPacked,
     QkvPackAxis::kBeforeHeads},
    {QkvLayout::kTh3d, "th3d", QkvFormat::kThd, QkvPacking::kQkvPacked,
     QkvPackAxis::kBetweenHeadsAndDim},
    {QkvLayout::kThdT2hd, "thd_t2hd", QkvFormat::kThd, QkvPacking::kKvPacked,
     QkvPackAxis::kBeforeHeads},
    {QkvLayout::kThdTh2d, "thd_th2d", QkvFormat::kThd, QkvPacking::kKvPacked,
     QkvPackAxis::kBetweenHeadsAndDim},
    {QkvLayout::kThdThdThd, "thd_thd_thd", QkvFormat::kThd,
     QkvPacking::kSeparate, QkvPackAxis::kNone},
};

// TraitsOf indexes the table by enum value, so the rows must follow the enum.
constexpr bool TraitsFollowEnumOrder() {
  int row = 0;
  for (const LayoutTraits& traits : kLayoutTraits) {
    if (static_cast<int>(traits.layout) != row++) return false;
  }
  return row == static_cast<int>(QkvLayout::kThdThdThd) + 1;
}
static_assert(TraitsFollowEnumOrder(),
              "kLayoutTraits rows must be in QkvLayout enum order");

const LayoutTraits& TraitsOf(QkvLayout layout) {
  return kLayoutTraits[static_cast<int>(layout)];
}

// Whether `tensor` lives in a packed buffer under `packing`, and how many
// tensors share it (3 or 2; 1 when not packed).
int PackCount(QkvPacking packing, QkvTensor tensor) {
  switch (packing) {
    case QkvPacking::kQkvPacked:
      return 3;
    case QkvPacking::kKvPacked:
      return tensor == QkvTensor::kQ ? 1 : 2;
    case QkvPacking::kSeparate:
      return 1;
  }
  return 1;
}

// Index of `tensor` along the packing axis of its buffer.
int PackIndex(QkvPacking packing, QkvTensor tensor) {
  if (packing == QkvPacking::kQkvPacked) return static_cast<int>(tensor);
  if (packing == QkvPacking::kKvPacked && tensor != QkvTensor::kQ) {
    return tensor == QkvTensor::kK ? 0 : 1;
  }
  return 0;
}

// The extents (S, H, D) that belong to `tensor`.
struct TensorExtents {
  int64_t seq;
  int64_t heads;
  int64_t dim;
};

TensorExtents ExtentsOf(QkvTensor tensor, const QkvDims& dims) {
  switch (tensor) {
    case QkvTensor::kQ:
      return {dims.max_sq, dims.hq, dims.d_qk};
    case QkvTensor::kK:
      return {dims.max_skv, dims.hkv, dims.d_qk};
    case QkvTensor::kV:
      return {dims.max_skv, dims.hkv, dims.d_v};
  }
  return {0, 0, 0};
}

// Checks one side's cu_seqlens for a thd layout.
absl::Status ValidateCuSeqlens(const char* side,
                               const std::vector<int64_t>& cu_seqlens,
                               int64_t batch, int64_t max_len) {
  if (static_cast<int64_t>(cu_seqlens.size()) != batch + 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cu_seqlens_%s must have batch + 1 = %d entries, got %d", side,
        batch + 1, cu_seqlens.size()));
  }
  if (cu_seqlens[0] < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cu_seqlens_%s[0] must be >= 0, got %d", side, cu_seqlens[0]));
  }
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t length = cu_seqlens[b + 1] - cu_seqlens[b];
    if (length < 0 || length > max_len) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "cu_seqlens_%s: sequence %d has length %d (entries %d..%d), must be "
          "in [0, %d]",
          side, b, length, cu_seqlens[b], cu_seqlens[b + 1], max_len));
    }
  }
  return absl::OkStatus();
}

}  // namespace

const std::vector<QkvLayout>& AllQkvLayouts() {
  static const std::vector<QkvLayout>* const kAll = [] {
    auto* all = new std::vector<QkvLayout>();
    for (const LayoutTraits& traits : kLayoutTraits) all->push_back(traits.layout);
    return all;
  }();
  return *kAll;
}

const char* QkvLayoutName(QkvLayout layout) { return TraitsOf(layout).name; }

absl::StatusOr<QkvLayout> ParseQkvLayout(absl::string_view name) {
  std::vector<std::string> accepted;
  for (const LayoutTraits& traits : kLayoutTraits) {
    if (name == traits.name) return traits.layout;
    accepted.push_back(traits.name);
  }
  return absl::InvalidArgumentError(
      absl::StrFormat("unknown QKV layout \"%s\"; accepted: %s", name,
                      absl::StrJoin(accepted, ", ")));
}

QkvFormat QkvFormatOf(QkvLayout layout) { return TraitsOf(layout).format; }
QkvPacking QkvPackingOf(QkvLayout layout) { return TraitsOf(layout).packing; }
QkvPackAxis QkvPackAxisOf(QkvLayout layout) {
  return TraitsOf(layout).pack_axis;
}

absl::Status ValidateQkvLayout(QkvLayout layout, const QkvDims& dims,
                               const std::vector<int64_t>& cu_seqlens_q,
                               const std::vector<int64_t>& cu_seqlens_kv) {
  const char* name = QkvLayoutName(layout);
  const int64_t extents[] = {dims.batch, dims.max_sq, dims.max_skv, dims.hq,
                             dims.hkv,   dims.d_qk,   dims.d_v};
  const char* extent_names[] = {"batch", "max_sq", "max_skv", "hq",
                                "hkv",   "d_qk",   "d_v"};
  for (int e = 0; e < 7; ++e) {
    if (extents[e] <= 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("layout %s: %s must be positive, got %d", name,
                          extent_names[e], extents[e]));
    }
  }
  const QkvPacking packing = QkvPackingOf(layout);
  if (packing == QkvPacking::kQkvPacked) {
    if (dims.hq != dims.hkv || dims.d_qk != dims.d_v ||
        dims.max_sq != dims.max_skv) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "layout %s packs Q, K and V in one buffer, so it needs hq == hkv, "
          "d_qk == d_v and max_sq == max_skv; got hq=%d hkv=%d d_qk=%d d_v=%d "
          "max_sq=%d max_skv=%d",
          name, dims.hq, dims.hkv, dims.d_qk, dims.d_v, dims.max_sq,
          dims.max_skv));
    }
  }
  if (packing == QkvPacking::kKvPacked && dims.d_qk != dims.d_v) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "layout %s packs K and V in one buffer, so it needs d_qk == d_v; got "
        "d_qk=%d d_v=%d",
        name, dims.d_qk, dims.d_v));
  }
  if (QkvFormatOf(layout) != QkvFormat::kThd) return absl::OkStatus();
  absl::Status status =
      ValidateCuSeqlens("q", cu_seqlens_q, dims.batch, dims.max_sq);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("layout %s: %s", name, status.message()));
  }
  status = ValidateCuSeqlens("kv", cu_seqlens_kv, dims.batch, dims.max_skv);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("layout %s: %s", name, status.message()));
  }
  if (packing == QkvPacking::kQkvPacked && cu_seqlens_q != cu_seqlens_kv) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "layout %s packs Q, K and V per token, so cu_seqlens_q must equal "
        "cu_seqlens_kv",
        name));
  }
  return absl::OkStatus();
}

int64_t QkvElementOffset(QkvLayout layout, QkvTensor tensor,
                         const QkvDims& dims,
                         const std::vector<int64_t>& cu_seqlens, int64_t b,
                         int64_t s, int64_t h, int64_t d) {
  const LayoutTraits& traits = TraitsOf(layout);
  const TensorExtents extents = ExtentsOf(tensor, dims);
  const int64_t pack_count = PackCount(traits.packing, tensor);
  const int64_t pack_index = PackIndex(traits.packing, tensor);
  // Row index of the (b, s) token among the leading axes of the buffer.
  int64_t token = 0;
  switch (traits.format) {
    case QkvFormat::kSbhd:
      token = s * dims.batch + b;
      break;
    case QkvFormat::kBshd:
      token = b * extents.seq + s;
      break;
    case QkvFormat::kThd:
      token = cu_seqlens[b] + s;
      break;
  }
  // Inner block per token: [pack, H, D] or [H, pack, D] (pack = 1 if separate).
  const bool pack_between_heads_and_dim =
      pack_count > 1 && traits.pack_axis == QkvPackAxis::kBetweenHeadsAndDim;
  const int64_t inner =
      pack_between_heads_and_dim
          ? (h * pack_count + pack_index) * extents.dim + d
          : (pack_index * extents.heads + h) * extents.dim + d;
  return token * pack_count * extents.heads * extents.dim + inner;
}

int64_t QkvBufferElementCount(QkvLayout layout, QkvTensor tensor,
                              const QkvDims& dims,
                              const std::vector<int64_t>& cu_seqlens) {
  const TensorExtents extents = ExtentsOf(tensor, dims);
  const int64_t tokens = QkvFormatOf(layout) == QkvFormat::kThd
                             ? cu_seqlens.back()
                             : dims.batch * extents.seq;
  return tokens * PackCount(QkvPackingOf(layout), tensor) * extents.heads *
         extents.dim;
}

}  // namespace reference
}  // namespace teplug
