#include "plugins/reference/kernels/attention_score_rules.h"

#include <cstdint>
#include <cstdlib>

namespace teplug {
namespace reference {

AttentionScoreRules::AttentionScoreRules(const AttentionShape& shape,
                                         const AttentionOptions& options)
    : shape_(shape),
      options_(options),
      dropout_grid_{shape.batch, shape.hq, shape.max_sq, shape.max_skv},
      dropout_stream_{options.dropout_seed, options.dropout_offset},
      apply_dropout_(options.is_training && options.dropout_p > 0.0) {
  if (options.bias_type == AttnBiasType::kAlibi) {
    alibi_slopes_ = options.alibi_slopes.empty()
                        ? DefaultAlibiSlopes(shape.hq)
                        : options.alibi_slopes;
  }
}

int64_t AttentionScoreRules::SeqLenQ(int64_t b) const {
  return IsPaddingMask(options_.mask_type) && !options_.seqlens_q.empty()
             ? options_.seqlens_q[b]
             : shape_.max_sq;
}

int64_t AttentionScoreRules::SeqLenKv(int64_t b) const {
  return IsPaddingMask(options_.mask_type) && !options_.seqlens_kv.empty()
             ? options_.seqlens_kv[b]
             : shape_.max_skv;
}

namespace {
// delta_b of the header: where row i's diagonal meets the key axis.
int64_t DiagonalShift(AttnMaskType mask, int64_t sq, int64_t skv) {
  return UsesBottomRightDiagonal(mask) ? skv - sq : 0;
}
}  // namespace

bool AttentionScoreRules::Visible(int64_t b, int64_t i, int64_t j) const {
  const int64_t sq = SeqLenQ(b);
  const int64_t skv = SeqLenKv(b);
  if (i >= sq || j >= skv) return false;
  const int64_t diagonal = i + DiagonalShift(options_.mask_type, sq, skv);
  const int64_t right =
      IsCausalMask(options_.mask_type) ? 0 : options_.window_right;
  if (right >= 0 && j > diagonal + right) return false;
  if (options_.window_left >= 0 && j < diagonal - options_.window_left) {
    return false;
  }
  return true;
}

double AttentionScoreRules::Score(int64_t b, int64_t h, int64_t i, int64_t j,
                                  double qk) const {
  const double scale = options_.softmax_scale;
  switch (options_.bias_type) {
    case AttnBiasType::kNone:
      return qk * scale;
    case AttnBiasType::kPreScale:
      return (qk + options_.bias[BiasIndex(b, h, i, j)]) * scale;
    case AttnBiasType::kPostScale:
      return qk * scale + options_.bias[BiasIndex(b, h, i, j)];
    case AttnBiasType::kAlibi: {
      const int64_t shift =
          DiagonalShift(options_.mask_type, SeqLenQ(b), SeqLenKv(b));
      const double distance = static_cast<double>(std::llabs(i + shift - j));
      return qk * scale - alibi_slopes_[h] * distance;
    }
  }
  return qk * scale;
}

double AttentionScoreRules::BiasScoreDerivative() const {
  return options_.bias_type == AttnBiasType::kPreScale ? options_.softmax_scale
                                                       : 1.0;
}

bool AttentionScoreRules::HasBiasTensor() const {
  return options_.bias_type == AttnBiasType::kPreScale ||
         options_.bias_type == AttnBiasType::kPostScale;
}

int64_t AttentionScoreRules::BiasIndex(int64_t b, int64_t h, int64_t i,
                                       int64_t j) const {
  const int64_t bb = options_.bias_batch == 1 ? 0 : b;
  const int64_t bh = options_.bias_heads == 1 ? 0 : h;
  return ((bb * options_.bias_heads + bh) * shape_.max_sq + i) *
             shape_.max_skv +
         j;
}

double AttentionScoreRules::DropoutFactor(int64_t b, int64_t h, int64_t i,
                                          int64_t j) const {
  if (!apply_dropout_) return 1.0;
  return reference::DropoutFactor(dropout_stream_, dropout_grid_,
                                  options_.dropout_p, b, h, i, j);
}

int64_t AttentionScoreRules::QRow(int64_t b, int64_t h, int64_t i) const {
  return ((b * shape_.hq + h) * shape_.max_sq + i) * shape_.d_qk;
}

int64_t AttentionScoreRules::KRow(int64_t b, int64_t kv_head, int64_t j) const {
  return ((b * shape_.hkv + kv_head) * shape_.max_skv + j) * shape_.d_qk;
}

int64_t AttentionScoreRules::VRow(int64_t b, int64_t kv_head, int64_t j) const {
  return ((b * shape_.hkv + kv_head) * shape_.max_skv + j) * shape_.d_v;
}

int64_t AttentionScoreRules::ORow(int64_t b, int64_t h, int64_t i) const {
  return ((b * shape_.hq + h) * shape_.max_sq + i) * shape_.d_v;
}

int64_t AttentionScoreRules::LseIndex(int64_t b, int64_t h, int64_t i) const {
  return (b * shape_.hq + h) * shape_.max_sq + i;
}

}  // namespace reference
}  // namespace teplug
