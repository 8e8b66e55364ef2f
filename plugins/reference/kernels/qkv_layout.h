// The 15 TransformerEngine QKV memory layouts and where element
// (tensor, b, s, h, d) of Q, K or V lives in the buffer a caller passes for
// that tensor. Used by adapters to gather ABI tensors into the reference's
// canonical dense arrays and to scatter gradients back.
//
// Layout names read as: format letters, with "3" = Q, K and V packed in one
// buffer (index 0, 1, 2 along that axis) and "2" = K and V packed in one
// buffer (index 0 = K, 1 = V). For the packed tensors the caller passes the
// same packed buffer for each of them. Buffer shapes (row-major, last fastest):
//   sbhd (separate):  [S, B, H, D]         bshd: [B, S, H, D]   thd: [T, H, D]
//   sb3hd: [S, B, 3, H, D]  sbh3d: [S, B, H, 3, D]
//   sbhd_sb2hd: Q [S, B, H, D], KV [S, B, 2, H, D]
//   sbhd_sbh2d: Q [S, B, H, D], KV [S, B, H, 2, D]
//   bs3hd, bsh3d, bshd_bs2hd, bshd_bsh2d: the same with B and S swapped
//   t3hd: [T, 3, H, D]  th3d: [T, H, 3, D]  thd_t2hd: KV [T, 2, H, D]
//   thd_th2d: KV [T, H, 2, D]
// where S = max_sq for Q and max_skv for K/V, H = hq for Q and hkv for K/V,
// D = d_qk for Q/K and d_v for V, and for thd T is the total token count; the
// token of (b, s) is t = cu_seqlens[b] + s with cu_seqlens_q for Q and
// cu_seqlens_kv for K/V.
#ifndef TEPLUG_PLUGINS_REFERENCE_KERNELS_QKV_LAYOUT_H_
#define TEPLUG_PLUGINS_REFERENCE_KERNELS_QKV_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace teplug {
namespace reference {

// TransformerEngine's 15 QKV layouts, in the canonical order of the ABI.
enum class QkvLayout {
  kSb3hd,
  kSbh3d,
  kSbhdSb2hd,
  kSbhdSbh2d,
  kSbhdSbhdSbhd,
  kBs3hd,
  kBsh3d,
  kBshdBs2hd,
  kBshdBsh2d,
  kBshdBshdBshd,
  kT3hd,
  kTh3d,
  kThdT2hd,
  kThdTh2d,
  kThdThdThd,
};

// All 15 layouts, for iteration.
const std::vector<QkvLayout>& AllQkvLayouts();

// The order of the sequence/batch/token axes in a layout.
enum class QkvFormat { kSbhd, kBshd, kThd };

// How Q, K, V share buffers in a layout.
enum class QkvPacking {
  kSeparate,   // three buffers
  kKvPacked,   // Q alone; K and V in one buffer
  kQkvPacked,  // one buffer for all three
};

// Where the packing axis ("3" or "2") sits in a packed buffer.
enum class QkvPackAxis {
  kNone,           // separate layouts
  kBeforeHeads,    // ...3hd / ...2hd: [.., 3|2, H, D]
  kBetweenHeadsAndDim,  // ...h3d / ...h2d: [.., H, 3|2, D]
};

// Which of the three attention inputs an offset is asked for.
enum class QkvTensor { kQ, kK, kV };

// Problem dimensions the offsets depend on.
struct QkvDims {
  int64_t batch = 0;
  int64_t max_sq = 0;
  int64_t max_skv = 0;
  int64_t hq = 0;
  int64_t hkv = 0;
  int64_t d_qk = 0;
  int64_t d_v = 0;
};

// The canonical lower-case name ("sb3hd", ..., "thd_thd_thd").
const char* QkvLayoutName(QkvLayout layout);

// The inverse of QkvLayoutName; an unknown name is an InvalidArgument error
// listing the accepted ones.
absl::StatusOr<QkvLayout> ParseQkvLayout(absl::string_view name);

QkvFormat QkvFormatOf(QkvLayout layout);
QkvPacking QkvPackingOf(QkvLayout layout);
QkvPackAxis QkvPackAxisOf(QkvLayout layout);

// Checks that `dims` and the cumulative sequence offsets suit `layout`:
// positive extents; packed QKV needs hq == hkv, d_qk == d_v, max_sq == max_skv
// (and, for t3hd/th3d, cu_seqlens_q == cu_seqlens_kv); packed KV needs
// d_qk == d_v; thd layouts need batch + 1 non-decreasing, non-negative
// cu_seqlens entries per side whose per-sequence lengths do not exceed the
// max length. Non-thd layouts ignore cu_seqlens (pass empty vectors).
absl::Status ValidateQkvLayout(QkvLayout layout, const QkvDims& dims,
                               const std::vector<int64_t>& cu_seqlens_q,
                               const std::vector<int64_t>& cu_seqlens_kv);

// Element offset of (tensor, b, s, h, d) in the buffer the caller passes for
// `tensor`. `cu_seqlens` is that tensor's side (cu_seqlens_q for Q,
// cu_seqlens_kv for K and V) and is read only for thd layouts.
// Preconditions: ValidateQkvLayout passed; b < batch; s below that side's
// max length (for thd: below cu_seqlens[b+1] - cu_seqlens[b]); h below that
// tensor's head count; d below its head dimension.
int64_t QkvElementOffset(QkvLayout layout, QkvTensor tensor,
                         const QkvDims& dims,
                         const std::vector<int64_t>& cu_seqlens, int64_t b,
                         int64_t s, int64_t h, int64_t d);

// Number of elements of the buffer the caller passes for `tensor` (the whole
// packed buffer for packed tensors). For thd, T = cu_seqlens.back().
int64_t QkvBufferElementCount(QkvLayout layout, QkvTensor tensor,
                              const QkvDims& dims,
                              const std::vector<int64_t>& cu_seqlens);

}  // namespace reference
}  // namespace teplug

#endif  // TEPLUG_PLUGINS_REFERENCE_KERNELS_QKV_LAYOUT_H_
