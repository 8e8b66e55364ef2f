// The per-element rules of the reference attention (visibility, score with
// bias, dropout factor, indexing), shared by forward and backward so both use
// one definition. Internal to the attention_reference target.
#ifndef TEPLUG_PLUGINS_REFERENCE_KERNELS_ATTENTION_SCORE_RULES_H_
#define TEPLUG_PLUGINS_REFERENCE_KERNELS_ATTENTION_SCORE_RULES_H_

#include <cstdint>
#include <vector>

#include "plugins/reference/kernels/attention_reference.h"
#include "plugins/reference/kernels/dropout_mask.h"

namespace teplug {
namespace reference {

// Binds a validated shape and options and answers per-element questions.
// Precondition: ValidateAttention(shape, options, ...) passed; the bound
// objects outlive this one.
class AttentionScoreRules {
 public:
  AttentionScoreRules(const AttentionShape& shape,
                      const AttentionOptions& options);

  // Effective lengths of batch b (actual for padding masks, else max).
  int64_t SeqLenQ(int64_t b) const;
  int64_t SeqLenKv(int64_t b) const;

  // Whether key j is visible to query row i of batch b (header semantics).
  bool Visible(int64_t b, int64_t i, int64_t j) const;

  // The score s for query head h given the dot product q_i . k_j.
  double Score(int64_t b, int64_t h, int64_t i, int64_t j, double qk) const;

  // d s / d bias[b][h][i][j]: softmax_scale for pre_scale, 1 for post_scale.
  double BiasScoreDerivative() const;
  // Whether there is a bias tensor with a gradient (pre/post_scale).
  bool HasBiasTensor() const;
  // Index into the (possibly broadcast) bias tensor.
  int64_t BiasIndex(int64_t b, int64_t h, int64_t i, int64_t j) const;

  // Multiplier of P_ij: the dropout factor in training with p > 0, else 1.
  double DropoutFactor(int64_t b, int64_t h, int64_t i, int64_t j) const;

  // KV head read by query head h.
  int64_t KvHead(int64_t h) const { return h / (shape_.hq / shape_.hkv); }

  // Offsets of row starts in the canonical arrays.
  int64_t QRow(int64_t b, int64_t h, int64_t i) const;
  int64_t KRow(int64_t b, int64_t kv_head, int64_t j) const;
  int64_t VRow(int64_t b, int64_t kv_head, int64_t j) const;
  int64_t ORow(int64_t b, int64_t h, int64_t i) const;
  int64_t LseIndex(int64_t b, int64_t h, int64_t i) const;

 private:
  const AttentionShape& shape_;
  const AttentionOptions& options_;
  std::vector<double> alibi_slopes_;  // resolved slopes (alibi only)
  DropoutGrid dropout_grid_;
  DropoutStream dropout_stream_;
  bool apply_dropout_;
};

}  // namespace reference
}  // namespace teplug

#endif  // TEPLUG_PLUGINS_REFERENCE_KERNELS_ATTENTION_SCORE_RULES_H_
