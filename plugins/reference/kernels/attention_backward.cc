// AttentionBackward: dQ, dK, dV and dBias from dO, rebuilding P from LSE.
//   P_ij  = exp(s_ij - LSE_i)            (visible keys only)
//   Z_ij  = dropout factor (1 without dropout)
//   dV_j += P_ij Z_ij dO_i
//   dP_ij = Z_ij (dO_i . V_j),  D_i = dO_i . O_i  (= sum_j P_ij dP_ij)
//   dS_ij = P_ij (dP_ij - D_i)
//   dQ_i += scale dS_ij K_j,  dK_j += scale dS_ij Q_i,
//   dBias_ij += (scale for pre_scale, 1 for post_scale) dS_ij
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_format.h"
#include "plugins/reference/kernels/attention_reference.h"
#include "plugins/reference/kernels/attention_score_rules.h"

namespace teplug {
namespace reference {
namespace {

absl::Status CheckBackwardSize(const char* what, const std::vector<double>& t,
                               int64_t expected) {
  if (static_cast<int64_t>(t.size()) != expected) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "attention backward: %s has %d elements, expected %d", what, t.size(),
        expected));
  }
  return absl::OkStatus();
}

double Dot(const double* a, const double* b, int64_t n) {
  double sum = 0.0;
  for (int64_t d = 0; d < n; ++d) sum += a[d] * b[d];
  return sum;
}

}  // namespace

absl::StatusOr<AttentionGradients> AttentionBackward(
    const AttentionShape& shape, const AttentionOptions& options,
    const std::vector<double>& q, const std::vector<double>& k,
    const std::vector<double>& v, const std::vector<double>& o,
    const std::vector<double>& lse, const std::vector<double>& d_o) {
  absl::Status status = ValidateAttention(shape, options, q, k, v);
  if (!status.ok()) return status;
  const int64_t rows = shape.batch * shape.hq * shape.max_sq;
  if (!(status = CheckBackwardSize("o", o, rows * shape.d_v)).ok() ||
      !(status = CheckBackwardSize("d_o", d_o, rows * shape.d_v)).ok() ||
      !(status = CheckBackwardSize("lse", lse, rows)).ok()) {
    return status;
  }
  const AttentionScoreRules rules(shape, options);
  AttentionGradients grads;
  grads.dq.assign(q.size(), 0.0);
  grads.dk.assign(k.size(), 0.0);
  grads.dv.assign(v.size(), 0.0);
  if (rules.HasBiasTensor()) grads.dbias.assign(options.bias.size(), 0.0);
  const double scale = options.softmax_scale;
  for (int64_t b = 0; b < shape.batch; ++b) {
    for (int64_t h = 0; h < shape.hq; ++h) {
      const int64_t kv_head = rules.KvHead(h);
      for (int64_t i = 0; i < shape.max_sq; ++i) {
        const double row_lse = lse[rules.LseIndex(b, h, i)];
        if (std::isinf(row_lse) && row_lse < 0) continue;  // fully masked
        const double* q_row = &q[rules.QRow(b, h, i)];
        const double* do_row = &d_o[rules.ORow(b, h, i)];
        const double row_d = Dot(do_row, &o[rules.ORow(b, h, i)], shape.d_v);
        double* dq_row = &grads.dq[rules.QRow(b, h, i)];
        for (int64_t j = 0; j < shape.max_skv; ++j) {
          if (!rules.Visible(b, i, j)) continue;
          const double* k_row = &k[rules.KRow(b, kv_head, j)];
          const double* v_row = &v[rules.VRow(b, kv_head, j)];
          const double p = std::exp(
              rules.Score(b, h, i, j, Dot(q_row, k_row, shape.d_qk)) - row_lse);
          const double z = rules.DropoutFactor(b, h, i, j);
          double* dv_row = &grads.dv[rules.VRow(b, kv_head, j)];
          for (int64_t d = 0; d < shape.d_v; ++d) dv_row[d] += p * z * do_row[d];
          const double dp = z * Dot(do_row, v_row, shape.d_v);
          const double ds = p * (dp - row_d);
          double* dk_row = &grads.dk[rules.KRow(b, kv_head, j)];
          for (int64_t d = 0; d < shape.d_qk; ++d) {
            dq_row[d] += scale * ds * k_row[d];
            dk_row[d] += scale * ds * q_row[d];
          }
          if (rules.HasBiasTensor()) {
            grads.dbias[rules.BiasIndex(b, h, i, j)] +=
                rules.BiasScoreDerivative() * ds;
          }
        }
      }
    }
  }
  return grads;
}

}  // namespace reference
}  // namespace teplug
