// One IAttention forward or backward call as the cpu kernel sees it:
// TeplugAttentionFwdArgs / TeplugAttentionBwdArgs checked and turned into
// extents, per-batch lengths, the visibility and score rules of attention.h,
// and an element addressing for Q, K, V (any of the 15 layouts, packed ones
// included), O, and for the backward dO, dQ, dK, dV and dBias.
// Errors: InvalidArgument for malformed args (naming the struct, field and
// values), Unimplemented for well-formed args this kernel does not serve
// (fp8, a device other than the host, non-contiguous strides).
#ifndef TEPLUG_PLUGINS_CPU_ATTENTION_ATTENTION_CALL_H_
#define TEPLUG_PLUGINS_CPU_ATTENTION_ATTENTION_CALL_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "teplug/attention.h"

namespace teplug::cpu::attention {

enum class SequenceFormat { kSbhd, kBshd, kThd };

// Where element (b, s, h, d) of one of Q, K, V, O lies in its buffer:
//   data + (member_offset + Row(b, s) * row_stride + h * head_stride + d) * size
struct TensorAccess {
  void* data = nullptr;
  int32_t dtype = 0;
  int64_t member_offset = 0;
  int64_t row_stride = 0;
  int64_t head_stride = 0;
  SequenceFormat format = SequenceFormat::kBshd;
  int64_t batch = 0;
  int64_t max_seqlen = 0;
  // thd only: the call's cu_seqlens (heap storage of AttentionCall's
  // vectors, which moves keep in place).
  const int64_t* cu_seqlens = nullptr;

  // Element index of (b, s, h, 0).
  int64_t Offset(int64_t b, int64_t s, int64_t h) const {
    int64_t row = 0;
    switch (format) {
      case SequenceFormat::kSbhd:
        row = s * batch + b;
        break;
      case SequenceFormat::kBshd:
        row = b * max_seqlen + s;
        break;
      case SequenceFormat::kThd:
        row = cu_seqlens[b] + s;
        break;
    }
    return member_offset + row * row_stride + h * head_stride;
  }
};

// Movable, not copyable: the TensorAccess members point into its vectors.
struct AttentionCall {
  AttentionCall() = default;
  AttentionCall(AttentionCall&&) = default;
  AttentionCall& operator=(AttentionCall&&) = default;
  AttentionCall(const AttentionCall&) = delete;
  AttentionCall& operator=(const AttentionCall&) = delete;

  int32_t layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
  int64_t batch = 0, hq = 0, hkv = 0, d_qk = 0, d_v = 0, max_sq = 0, max_skv = 0;
  SequenceFormat format = SequenceFormat::kBshd;
  // Actual lengths per batch (max lengths unless a padding mask reads
  // cu_seqlens).
  std::vector<int64_t> len_q, len_kv;
  std::vector<int64_t> cu_q, cu_kv;  // as given; empty when NULL
  int32_t mask_type = TEPLUG_MASK_NONE;
  int32_t bias_type = TEPLUG_BIAS_NONE;
  bool bottom_right = false;  // delta_b = skv_b - sq_b (else 0)
  int64_t window_left = -1;   // -1: unbounded
  int64_t window_right = -1;  // 0 for the causal masks
  float scale = 1.0f;
  bool dropout = false;
  double dropout_p = 0.0;
  uint64_t rng_seed = 0, rng_offset = 0;
  std::vector<float> alibi_slopes;  // [hq] for alibi
  // pre/post-scale bias [bias_batch][bias_heads][max_sq][max_skv].
  TensorAccess bias;
  int64_t bias_batch = 1, bias_heads = 1;
  TensorAccess q, k, v, o;
  // fp32 [batch][hq][max_sq]; NULL when not wanted. The forward writes it,
  // the backward reads it.
  float* lse = nullptr;
  // Tokens of the o buffer (thd): rows past cu_q[batch] are written 0.
  int64_t o_tokens = 0;

  // Keys j of query row i in batch b are visible iff lo <= j < hi.
  void VisibleRange(int64_t b, int64_t i, int64_t* lo, int64_t* hi) const;
  // delta_b of attention.h.
  int64_t DiagonalShift(int64_t b) const { return bottom_right ? len_kv[b] - len_q[b] : 0; }
};

// One backward call: the forward's description (q, k, v, o, bias and lse
// read) plus dO and where the gradients go. Movable like AttentionCall.
struct BackwardCall {
  AttentionCall call;
  TensorAccess d_o;         // O's addressing, in the d_o buffer
  TensorAccess dq, dk, dv;  // Q's, K's, V's addressing, in the gradient buffers
  // thd: token rows of each gradient buffer (rows past the last sequence's
  // tokens are written 0).
  int64_t dq_tokens = 0, dk_tokens = 0, dv_tokens = 0;
  // dBias [bias_batch][bias_heads][max_sq][max_skv] (the bias's shape);
  // data NULL when not wanted.
  TensorAccess dbias;
};

// Checks `args` and describes the call; see the header comment for errors.
absl::StatusOr<AttentionCall> ReadAttentionForward(const TeplugAttentionFwdArgs& args);

// The same for a backward call: also d_o (o's shape), dq/dk/dv (the shapes
// of q/k/v; for a packed layout the members of one buffer are one buffer,
// as in the inputs) and dbias (the bias's shape; pre/post-scale only).
absl::StatusOr<BackwardCall> ReadAttentionBackward(const TeplugAttentionBwdArgs& args);

}  // namespace teplug::cpu::attention

#endif  // TEPLUG_PLUGINS_CPU_ATTENTION_ATTENTION_CALL_H_
