// The IAttention adapter's bridge between ABI tensors in any of TE's 15 QKV
// layouts and the reference kernels' canonical fp64 arrays:
//   - ReadAttentionProblem checks TeplugAttentionParams (+ cu_seqlens,
//     ALiBi slopes, bias) and turns them into the kernels' shape and options;
//   - GatherQkv reads Q, K or V from its layout buffer (packed buffers are
//     read through every member they hold) into [B][H][S][D];
//   - ScatterQkv / ScatterOutput write canonical arrays back into a layout
//     buffer (dQ/dK/dV, and O in the q layout family with head_dim_v).
// Errors name the args struct and field, e.g.
//   "TeplugAttentionFwdArgs.k: shape [2, 8, 4, 16] but layout bshd_bshd_bshd needs [2, 8, 2, 16]".
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_ATTENTION_PROBLEM_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_ATTENTION_PROBLEM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "plugins/reference/kernels/attention_reference.h"
#include "plugins/reference/kernels/qkv_layout.h"
#include "plugins/reference/provider/tensor_view.h"
#include "teplug/attention.h"

namespace teplug::reference::provider {

// One attention call, as the kernels see it.
struct AttentionProblem {
  QkvLayout layout = QkvLayout::kBshdBshdBshd;
  bool thd = false;
  QkvDims dims;
  AttentionShape shape;
  AttentionOptions options;
  // cu_seqlens per side (batch + 1 entries); empty when not given.
  std::vector<int64_t> cu_seqlens_q;
  std::vector<int64_t> cu_seqlens_kv;
  // The checked bias tensor's shape (pre/post-scale bias only; else empty).
  std::vector<int64_t> bias_shape;
};

// Checks params and the bias tensor (optional unless bias_type is pre/post
// scale) and reads cu_seqlens, slopes and bias values. `args_name` prefixes
// messages ("TeplugAttentionFwdArgs").
absl::StatusOr<AttentionProblem> ReadAttentionProblem(const TeplugAttentionParams* params,
                                                      const TeplugTensor* bias,
                                                      const std::string& args_name);

// The buffer shape `layout` needs for `tensor`, e.g. [S, B, 3, H, D] for Q of
// sb3hd. For thd the token extent is `tokens`.
std::vector<int64_t> QkvBufferShape(const AttentionProblem& p, QkvTensor tensor, int64_t tokens);

// Reads `tensor` of the layout from `t` (shape checked) into the canonical
// [B][H][S][D] array (positions past a thd sequence's length are 0).
absl::StatusOr<std::vector<double>> GatherQkv(const AttentionProblem& p, QkvTensor tensor,
                                              const TensorView& t);

// Reads O or dO (q layout family, head_dim_v) into [B][Hq][Sq][Dv].
absl::StatusOr<std::vector<double>> GatherOutputLike(const AttentionProblem& p, const TensorView& t);

// Writes canonical O [B][Hq][Sq][Dv] into `t` (q layout family, head_dim_v);
// thd tokens past cu_seqlens_q[batch] are written as 0.
absl::Status ScatterOutput(const AttentionProblem& p, const std::vector<double>& o,
                           const TensorView& t);

// Writes canonical dQ, dK, dV into dq/dk/dv. For packed layouts the members of
// one buffer must be the same buffer (same data pointer); it is written once.
absl::Status ScatterGradients(const AttentionProblem& p, const std::vector<double>& dq,
                              const std::vector<double>& dk, const std::vector<double>& dv,
                              const TensorView& dq_t, const TensorView& dk_t,
                              const TensorView& dv_t);

// The checked LSE shape: fp32 [batch, num_heads_q, max_seqlen_q].
absl::Status CheckLse(const AttentionProblem& p, const TensorView& lse);

}  // namespace teplug::reference::provider

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_ATTENTION_PROBLEM_H_
