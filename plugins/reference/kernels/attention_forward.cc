// AttentionForward: O and LSE by a direct two-pass softmax per query row, all
// in fp64.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "plugins/reference/kernels/attention_reference.h"
#include "plugins/reference/kernels/attention_score_rules.h"

namespace teplug {
namespace reference {

absl::StatusOr<AttentionForwardResult> AttentionForward(
    const AttentionShape& shape, const AttentionOptions& options,
    const std::vector<double>& q, const std::vector<double>& k,
    const std::vector<double>& v) {
  absl::Status status = ValidateAttention(shape, options, q, k, v);
  if (!status.ok()) return status;
  const AttentionScoreRules rules(shape, options);
  AttentionForwardResult result;
  result.o.assign(shape.batch * shape.hq * shape.max_sq * shape.d_v, 0.0);
  result.lse.assign(shape.batch * shape.hq * shape.max_sq,
                    -std::numeric_limits<double>::infinity());
  std::vector<double> scores(shape.max_skv);
  for (int64_t b = 0; b < shape.batch; ++b) {
    for (int64_t h = 0; h < shape.hq; ++h) {
      const int64_t kv_head = rules.KvHead(h);
      for (int64_t i = 0; i < shape.max_sq; ++i) {
        // Pass 1: scores of visible keys and their maximum.
        double max_score = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < shape.max_skv; ++j) {
          if (!rules.Visible(b, i, j)) continue;
          double qk = 0.0;
          const double* q_row = &q[rules.QRow(b, h, i)];
          const double* k_row = &k[rules.KRow(b, kv_head, j)];
          for (int64_t d = 0; d < shape.d_qk; ++d) qk += q_row[d] * k_row[d];
          scores[j] = rules.Score(b, h, i, j, qk);
          if (scores[j] > max_score) max_score = scores[j];
        }
        if (max_score == -std::numeric_limits<double>::infinity()) {
          continue;  // no visible key: O = 0, LSE = -inf
        }
        // Pass 2: normalizer, then O = sum_j softmax_j * dropout_j * V_j.
        double sum = 0.0;
        for (int64_t j = 0; j < shape.max_skv; ++j) {
          if (rules.Visible(b, i, j)) sum += std::exp(scores[j] - max_score);
        }
        const double lse = max_score + std::log(sum);
        result.lse[rules.LseIndex(b, h, i)] = lse;
        double* o_row = &result.o[rules.ORow(b, h, i)];
        for (int64_t j = 0; j < shape.max_skv; ++j) {
          if (!rules.Visible(b, i, j)) continue;
          const double weight =
              std::exp(scores[j] - lse) * rules.DropoutFactor(b, h, i, j);
          if (weight == 0.0) continue;
          const double* v_row = &v[rules.VRow(b, kv_head, j)];
          for (int64_t d = 0; d < shape.d_v; ++d) o_row[d] += weight * v_row[d];
        }
      }
    }
  }
  return result;
}

}  // namespace reference
}  // namespace teplug
