// Test-only: random attention problems (inputs, bias, lengths) shared by the
// forward and backward tests, so both sweep the same option space.
#ifndef TEPLUG_PLUGINS_REFERENCE_KERNELS_ATTENTION_TEST_INPUTS_H_
#define TEPLUG_PLUGINS_REFERENCE_KERNELS_ATTENTION_TEST_INPUTS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "plugins/reference/kernels/attention_reference.h"

namespace teplug {
namespace reference {
namespace testing {

inline constexpr AttnMaskType kAllMaskTypes[] = {
    AttnMaskType::kNone,          AttnMaskType::kPadding,
    AttnMaskType::kCausal,        AttnMaskType::kPaddingCausal,
    AttnMaskType::kCausalBottomRight, AttnMaskType::kPaddingCausalBottomRight};
inline constexpr AttnBiasType kAllBiasTypes[] = {
    AttnBiasType::kNone, AttnBiasType::kPreScale, AttnBiasType::kPostScale,
    AttnBiasType::kAlibi};

// Uniform values in [-range, range], never all zero.
inline std::vector<double> RandomValues(std::mt19937_64& rng, int64_t n,
                                        double range) {
  std::uniform_real_distribution<double> dist(-range, range);
  std::vector<double> values(n);
  for (double& x : values) x = dist(rng);
  return values;
}

// One random problem.
struct AttentionProblem {
  AttentionShape shape;
  AttentionOptions options;
  std::vector<double> q, k, v;
  std::string name;
};

// Builds a problem with random Q/K/V, a random bias of broadcast variant
// `bias_variant` (0..3: [1,1], [1,H], [B,1], [B,H]) for tensor bias types,
// random lengths for padding masks (batch 0 keeps the max lengths so that
// bottom-right and top-left diagonals differ exactly when sq != skv; the last
// batch has a shorter kv than q so that some bottom-right rows see no key).
inline AttentionProblem MakeProblem(std::mt19937_64& rng,
                                    const AttentionShape& shape,
                                    AttnMaskType mask, AttnBiasType bias,
                                    int bias_variant, int64_t window_left,
                                    int64_t window_right, double dropout_p) {
  AttentionProblem p;
  p.shape = shape;
  p.options.mask_type = mask;
  p.options.bias_type = bias;
  p.options.softmax_scale = 1.0 / std::sqrt(static_cast<double>(shape.d_qk));
  p.options.window_left = window_left;
  p.options.window_right = window_right;
  p.options.is_training = dropout_p > 0;
  p.options.dropout_p = dropout_p;
  p.options.dropout_seed = rng();
  p.options.dropout_offset = rng() % 1000;
  p.q = RandomValues(rng, shape.batch * shape.hq * shape.max_sq * shape.d_qk, 1.0);
  p.k = RandomValues(rng, shape.batch * shape.hkv * shape.max_skv * shape.d_qk, 1.0);
  p.v = RandomValues(rng, shape.batch * shape.hkv * shape.max_skv * shape.d_v, 1.0);
  if (bias == AttnBiasType::kPreScale || bias == AttnBiasType::kPostScale) {
    p.options.bias_batch = (bias_variant & 2) ? shape.batch : 1;
    p.options.bias_heads = (bias_variant & 1) ? shape.hq : 1;
    p.options.bias = RandomValues(rng,
                                  p.options.bias_batch * p.options.bias_heads *
                                      shape.max_sq * shape.max_skv,
                                  0.8);
  }
  if (bias == AttnBiasType::kAlibi && (bias_variant & 1)) {
    // Custom slopes half of the time.
    std::uniform_real_distribution<double> slope(0.05, 0.9);
    for (int64_t h = 0; h < shape.hq; ++h) p.options.alibi_slopes.push_back(slope(rng));
  }
  if (IsPaddingMask(mask)) {
    p.options.seqlens_q.push_back(shape.max_sq);
    p.options.seqlens_kv.push_back(shape.max_skv);
    for (int64_t b = 1; b < shape.batch; ++b) {
      std::uniform_int_distribution<int64_t> lq(1, shape.max_sq);
      std::uniform_int_distribution<int64_t> lkv(1, shape.max_skv);
      p.options.seqlens_q.push_back(lq(rng));
      p.options.seqlens_kv.push_back(lkv(rng));
    }
    if (shape.batch > 1) {
      p.options.seqlens_q.back() = shape.max_sq;
      p.options.seqlens_kv.back() = std::max<int64_t>(1, shape.max_sq / 2);
      if (p.options.seqlens_kv.back() > shape.max_skv) {
        p.options.seqlens_kv.back() = shape.max_skv;
      }
    }
  }
  p.name = absl::StrFormat(
      "B%d Hq%d Hkv%d sq%d skv%d dqk%d dv%d mask=%s bias=%s/%d window=(%d,%d) "
      "dropout=%g",
      shape.batch, shape.hq, shape.hkv, shape.max_sq, shape.max_skv, shape.d_qk,
      shape.d_v, AttnMaskTypeName(mask), AttnBiasTypeName(bias), bias_variant,
      window_left, window_right, dropout_p);
  return p;
}

}  // namespace testing
}  // namespace reference
}  // namespace teplug

#endif  // TEPLUG_PLUGINS_REFERENCE_KERNELS_ATTENTION_TEST_INPUTS_H_
