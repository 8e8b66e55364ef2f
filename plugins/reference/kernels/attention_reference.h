// Reference (oracle) scaled-dot-product attention, forward and backward, on
// dense fp64 host arrays with fp64 accumulation. Semantics follow
// TransformerEngine's unfused DotProductAttention; README.md in this folder is
// the long form.
//
// Canonical arrays (row-major, last index fastest; "padded" = max lengths):
//   Q [B][Hq][max_sq][d_qk]   K [B][Hkv][max_skv][d_qk]   V [B][Hkv][max_skv][d_v]
//   O [B][Hq][max_sq][d_v]    LSE [B][Hq][max_sq]
//   bias (pre/post-scale) [bias_batch][bias_heads][max_sq][max_skv] with
//        bias_batch in {1, B} and bias_heads in {1, Hq} (1 = broadcast)
// Per batch b the effective lengths (sq_b, skv_b) are seqlens_q[b] and
// seqlens_kv[b] for padding mask types and max_sq / max_skv otherwise.
// Query head h reads KV head h / (Hq / Hkv) (grouped-query attention).
//
// For query row i < sq_b and key j the score is
//   pre_scale:  s = (q_i . k_j + bias[b][h][i][j]) * scale
//   post_scale: s = (q_i . k_j) * scale + bias[b][h][i][j]
//   alibi:      s = (q_i . k_j) * scale - slope_h * |i + delta_b - j|
//   none:       s = (q_i . k_j) * scale
// where delta_b = 0 for causal and padding_causal (top-left diagonal) and
// delta_b = skv_b - sq_b for every other mask type (bottom-right diagonal).
// Key j is visible to row i iff j < skv_b, and
//   (window_left  < 0 or j >= i + delta_b - window_left) and
//   (window_right < 0 or j <= i + delta_b + window_right),
// with window_right forced to 0 by the causal mask types.
// P = softmax over visible keys; LSE_i = log(sum_j exp(s_ij)) over visible
// keys (natural log, before dropout). In training with dropout p, P_ij is
// multiplied by the dropout factor of (b, h, i, j) (dropout_mask.h: 1/(1-p)
// or 0). O_i = sum_j P_ij' V_j. Rows with no visible key, and rows
// i >= sq_b, give O = 0, LSE = -inf and zero gradients.
#ifndef TEPLUG_PLUGINS_REFERENCE_KERNELS_ATTENTION_REFERENCE_H_
#define TEPLUG_PLUGINS_REFERENCE_KERNELS_ATTENTION_REFERENCE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace teplug {
namespace reference {

// TransformerEngine's attention mask types (AttnMaskType minus "arbitrary").
enum class AttnMaskType {
  kNone,
  kPadding,
  kCausal,                    // top-left diagonal: j <= i
  kPaddingCausal,             // padding + top-left causal
  kCausalBottomRight,         // j <= i + skv - sq
  kPaddingCausalBottomRight,  // padding + bottom-right causal
};

// TransformerEngine's attention bias types.
enum class AttnBiasType { kNone, kPreScale, kPostScale, kAlibi };

// Canonical names ("padding_causal_bottom_right", "post_scale", ...), used in
// error messages and test names.
const char* AttnMaskTypeName(AttnMaskType type);
const char* AttnBiasTypeName(AttnBiasType type);

// Whether the mask type uses the per-batch actual lengths.
bool IsPaddingMask(AttnMaskType type);
// Whether the mask type is causal (forces window_right = 0).
bool IsCausalMask(AttnMaskType type);
// Whether window and ALiBi use the bottom-right diagonal (delta_b above).
bool UsesBottomRightDiagonal(AttnMaskType type);

// Problem extents.
struct AttentionShape {
  int64_t batch = 0;
  int64_t hq = 0;   // query heads
  int64_t hkv = 0;  // key/value heads; hq % hkv == 0
  int64_t max_sq = 0;
  int64_t max_skv = 0;
  int64_t d_qk = 0;
  int64_t d_v = 0;
};

// Everything besides the tensors; pass the same value to forward and
// backward.
struct AttentionOptions {
  AttnMaskType mask_type = AttnMaskType::kNone;
  AttnBiasType bias_type = AttnBiasType::kNone;
  // Pre/post-scale bias in the canonical layout above; empty otherwise.
  std::vector<double> bias;
  int64_t bias_batch = 1;  // 1 (broadcast) or batch
  int64_t bias_heads = 1;  // 1 (broadcast) or hq
  // ALiBi slopes [hq]; empty = DefaultAlibiSlopes(hq). Only with kAlibi.
  std::vector<double> alibi_slopes;
  // Multiplies q.k (see the score formulas); any finite value.
  double softmax_scale = 1.0;
  // Dropout is applied only when is_training and dropout_p > 0.
  bool is_training = false;
  double dropout_p = 0.0;  // in [0, 1)
  uint64_t dropout_seed = 0;
  uint64_t dropout_offset = 0;
  // Sliding window; -1 = unbounded on that side, otherwise >= 0.
  int64_t window_left = -1;
  int64_t window_right = -1;
  // Actual lengths per batch ([batch] each, 0 <= len <= max); empty = max
  // lengths. Only padding mask types may pass lengths below the max.
  std::vector<int64_t> seqlens_q;
  std::vector<int64_t> seqlens_kv;
};

// Forward outputs.
struct AttentionForwardResult {
  std::vector<double> o;    // [B][Hq][max_sq][d_v]
  std::vector<double> lse;  // [B][Hq][max_sq]
};

// Backward outputs; dbias has the shape of options.bias (summed over the
// broadcast axes) for pre/post-scale bias and is empty otherwise.
struct AttentionGradients {
  std::vector<double> dq;
  std::vector<double> dk;
  std::vector<double> dv;
  std::vector<double> dbias;
};

// TransformerEngine's default ALiBi slopes (get_alibi): with n the largest
// power of two <= hq, slope_h = 2^(-8(h+1)/n) for h < n, and
// slope_{n+k} = 2^(-4(2k+1)/n) for the remaining hq - n heads. For a power
// of two hq this is 2^(-8(h+1)/hq).
std::vector<double> DefaultAlibiSlopes(int64_t hq);

// Checks shape, options and tensor sizes; messages name the field and values.
absl::Status ValidateAttention(const AttentionShape& shape,
                               const AttentionOptions& options,
                               const std::vector<double>& q,
                               const std::vector<double>& k,
                               const std::vector<double>& v);

// Computes O and LSE.
absl::StatusOr<AttentionForwardResult> AttentionForward(
    const AttentionShape& shape, const AttentionOptions& options,
    const std::vector<double>& q, const std::vector<double>& k,
    const std::vector<double>& v);

// Gradients of a loss L given dO = dL/dO, using the forward's O and LSE (as
// fused kernels do: P is rebuilt from LSE and the softmax gradient uses
// rowsum(dO * O)).
absl::StatusOr<AttentionGradients> AttentionBackward(
    const AttentionShape& shape, const AttentionOptions& options,
    const std::vector<double>& q, const std::vector<double>& k,
    const std::vector<double>& v, const std::vector<double>& o,
    const std::vector<double>& lse, const std::vector<double>& d_o);

}  // namespace reference
}  // namespace teplug

#endif  // TEPLUG_PLUGINS_REFERENCE_KERNELS_ATTENTION_REFERENCE_H_
