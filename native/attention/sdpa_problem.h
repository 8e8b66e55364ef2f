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
  int32_t dtype = 0;  // TeplugDType of Q, K, V, O (fp16, bf16, or fp8 with per-tensor scales)
  bool fp8 = false;   // dtype is fp8: the graph takes descales and scales and writes amaxes
  // Backward: the dtype of dO, dQ, dK and dV (q's, or for fp8 q either fp8
  // format: TransformerEngine's HYBRID recipe gives gradients in e5m2).
  int32_t grad_dtype = 0;
  int64_t batch = 0, heads_q = 0, heads_kv = 0, seq_q = 0, seq_kv = 0, dim_qk = 0, dim_v = 0;
  int32_t layout = 0;      // the TeplugQkvLayout (for messages and the rule table)
  SdpaTensorView q, k, v, o;
  SdpaTensorView d_o, dq, dk, dv;  // backward only: views of the gradients (their own strides)
  bool ragged = false;     // THD
  bool padding = false;    // actual lengths from cu_seqlens
  bool causal = false;
  // The diagonal's alignment: bottom-right for causal_bottom_right and the
  // non-causal masks, except without a padding mask and with max_seqlen_q ==
  // max_seqlen_kv, where it is the top-left diagonal (cuDNN takes bias, ALiBi
  // and dropout only with that one).
  bool bottom_right = false;
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
  bool training = false;  // params.is_training: dropout applies, and the forward writes LSE
  // Forward: the graph writes the caller's softmax_lse (training, or an
  // inference that gives one; attention.h lets it).
  bool writes_lse = false;
  bool dropout = false;   // training with p > 0
  float dropout_probability = 0.0f;
  bool deterministic = false;
  int ordinal = 0;  // the CUDA device of every tensor
  // The arch q's TeplugDevice names (0: not given). Not part of a graph's
  // signature: the GPU's own arch is asked from the runtime.
  int32_t device_arch = 0;
};

// The per-tensor scale factors an fp8 graph reads and the amaxes it writes,
// as device pointers to one fp32 each: each fp8 tensor's quant->scale_inv
// (descale), each fp8 output's quant->scale, and P's and dP's from s_quant and
// dp_quant. An amax is NULL where the call tracks none (the graph then writes
// it to workspace scratch); a descale or scale is NULL only when the call
// asks `supports` without data.
struct SdpaFp8Scales {
  const void* descale_q = nullptr;
  const void* descale_k = nullptr;
  const void* descale_v = nullptr;
  const void* descale_o = nullptr;    // backward
  const void* descale_d_o = nullptr;  // backward
  const void* descale_s = nullptr;
  const void* descale_dp = nullptr;  // backward
  const void* scale_s = nullptr;
  const void* scale_o = nullptr;   // forward
  const void* scale_dp = nullptr;  // backward
  const void* scale_dq = nullptr;  // backward
  const void* scale_dk = nullptr;  // backward
  const void* scale_dv = nullptr;  // backward
  void* amax_s = nullptr;          // forward
  void* amax_o = nullptr;          // forward
  void* amax_dp = nullptr;         // backward
  void* amax_dq = nullptr;         // backward
  void* amax_dk = nullptr;         // backward
  void* amax_dv = nullptr;         // backward
};

// Checks a forward call and translates it. InvalidArgument names the field
// and value of a malformed call (a NULL tensor, a shape that disagrees with
// the layout, mixed zero strides, tensors on different devices);
// Unimplemented names what cuDNN's SDPA cannot take although the call is
// valid (fp32 or mixed dtypes, a non-unit head-dim stride, host tensors).
absl::StatusOr<SdpaProblem> SdpaProblemOfForward(const TeplugAttentionFwdArgs& args);
absl::StatusOr<SdpaProblem> SdpaProblemOfBackward(const TeplugAttentionBwdArgs& args);

// The scales of an fp8 call the functions above accepted (its problem's
// fp8 set; `ordinal` its problem's): each quantization per_tensor, each scale
// tensor fp32 with one element on cuda:`ordinal`, and here with data.
// InvalidArgument names the missing or malformed field ("s_quant is NULL",
// "dq.quant.scale.data is NULL"); the functions above make the same checks
// but data.
absl::StatusOr<SdpaFp8Scales> SdpaFp8ScalesOfForward(const TeplugAttentionFwdArgs& args,
                                                     int ordinal);
absl::StatusOr<SdpaFp8Scales> SdpaFp8ScalesOfBackward(const TeplugAttentionBwdArgs& args,
                                                      int ordinal);

// The shape teplug's contract gives a tensor of `layout` (attention.h):
// member 'q', 'k' or 'v' (packed buffers: the buffer's shape), or 'o'.
std::vector<int64_t> ExpectedShape(const TeplugAttentionParams& params, char member);

// The graph-defining fields of a problem as integers (SdpaProblem has no
// padding-free representation to hash), for the graph cache's key.
std::vector<int64_t> SdpaProblemWords(const SdpaProblem& p);

}  // namespace teplug::native::attention

#endif  // TEPLUG_NATIVE_ATTENTION_SDPA_PROBLEM_H_
