// teplug's attention call as cuDNN's scaled-dot-product-attention problem:
// plain host code (no cuDNN types), so the argument checks and the
// translation of teplug's layouts and strides into cuDNN's [B, H, S, D]
// tensors are tested without a GPU or cuDNN.
//
// cuDNN describes Q, K, V, O (and the gradients) as 4-D tensors with dims
// [B, H, S, D] and arbitrary strides. Every teplug layout is such a view:
// bshd / sbhd / thd name the order of the axes in memory, and a packed
// layout (q = k = v or k = v are one buffer) is the member's view at an
// element offset along the packing axis (the "3" or "2"). THD tensors have
// no batch axis: the batch's token offsets (cu_seqlens times the elements
// per token) are cuDNN's ragged offsets, and the batch stride is that of a
// [B, S, H, D] tensor of max_seqlen tokens.
#ifndef TEPLUG_NATIVE_ATTENTION_SDPA_PROBLEM_H_
#define TEPLUG_NATIVE_ATTENTION_SDPA_PROBLEM_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "teplug/attention.h"

namespace teplug::native::attention {

// One tensor as cuDNN sees it: dims and strides (elements) in [B, H, S, D]
// order, and the element offset of its first element from the teplug
// tensor's data pointer (nonzero for the K and V members of packed buffers).
struct SdpaTensorView {
  std::array<int64_t, 4> dims{};
  std::array<int64_t, 4> strides{};
  int64_t element_offset = 0;
  // THD only: elements between consecutive tokens (the ragged offset of
  // batch b is cu_seqlens[b] times this).
  int64_t token_stride = 0;
  bool operator==(const SdpaTensorView& o) const {
    return dims == o.dims && strides == o.strides && element_offset == o.element_offset &&
           token_stride == o.token_stride;
  }
};

// Everything a cuDNN SDPA graph depends on, plus the values the call passes
// at execution (softmax_scale, RNG seed/offset stay in the args).
struct SdpaProblem {
  bool backward = false;
  int32_t dtype = 0;  // TeplugDType of Q, K, V, O (fp16 or bf16)
  int64_t batch = 0, heads_q = 0, heads_kv = 0, seq_q = 0, seq_kv = 0, dim_qk = 0, dim_v = 0;
  int32_t layout = 0;      // the TeplugQkvLayout (for messages and the rule table)
  SdpaTensorView q, k, v, o;
  SdpaTensorView d_o, dq, dk, dv;  // backward only: views of the gradients (their own strides)
  bool ragged = false;     // THD
  bool padding = false;    // actual lengths from cu_seqlens
  bool causal = false;
  bool bottom_right = false;  // the diagonal's alignment (causal_bottom_right and non-causal masks)
  int64_t window_left = -1;   // keys left of the diagonal, -1 unbounded
  int64_t window_right = -1;  // keys right of it, -1 unbounded (0 for causal masks)
  int32_t mask_type = 0;
  int32_t bias_type = 0;
  bool has_bias = false;  // post_scale (or pre_scale, which cuDNN lacks) with a bias tensor
  SdpaTensorView bias;    // [1 or B, 1 or Hq, Sq, Skv]
  bool dbias = false;     // backward writes dBias
  SdpaTensorView dbias_view;
  bool alibi = false;
  bool explicit_alibi_slopes = false;
  bool training = false;  // forward writes the softmax statistics (LSE)
  bool dropout = false;   // training with p > 0
  float dropout_probability = 0.0f;
  bool deterministic = false;
  int ordinal = 0;  // the CUDA device of every tensor
  // The arch q's TeplugDevice names (0: not given). Not part of a graph's
  // signature: the GPU's own arch is asked from the runtime.
  int32_t device_arch = 0;
};

// Checks a forward call and translates it. InvalidArgument names the field
// and value of a malformed call (a NULL tensor, a shape that disagrees with
// the layout, mixed zero strides, tensors on different devices);
// Unimplemented names what cuDNN's SDPA cannot take although the call is
// valid (fp32 or mixed dtypes, a non-unit head-dim stride, host tensors).
absl::StatusOr<SdpaProblem> SdpaProblemOfForward(const TeplugAttentionFwdArgs& args);
absl::StatusOr<SdpaProblem> SdpaProblemOfBackward(const TeplugAttentionBwdArgs& args);

// The shape teplug's contract gives a tensor of `layout` (attention.h):
// member 'q', 'k' or 'v' (packed buffers: the buffer's shape), or 'o'.
std::vector<int64_t> ExpectedShape(const TeplugAttentionParams& params, char member);

// The graph-defining fields of a problem as integers (SdpaProblem has no
// padding-free representation to hash), for the graph cache's key.
std::vector<int64_t> SdpaProblemWords(const SdpaProblem& p);

}  // namespace teplug::native::attention

#endif  // TEPLUG_NATIVE_ATTENTION_SDPA_PROBLEM_H_
