#include "tools/teplug/independent_oracles.h"

#include <cmath>
#include <limits>

namespace teplug::cli {

std::vector<double> NaiveGemmEntries(const std::vector<double>& a, const std::vector<double>& b,
                                     int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b,
                                     const std::vector<int64_t>& flat_indices) {
  std::vector<double> out;
  out.reserve(flat_indices.size());
  for (int64_t flat : flat_indices) {
    const int64_t i = flat / n, j = flat % n;
    double sum = 0;
    for (int64_t p = 0; p < k; ++p) {
      const double av =
          trans_a ? a[static_cast<size_t>(p * m + i)] : a[static_cast<size_t>(i * k + p)];
      const double bv =
          trans_b ? b[static_cast<size_t>(j * k + p)] : b[static_cast<size_t>(p * n + j)];
      sum += av * bv;
    }
    out.push_back(sum);
  }
  return out;
}

namespace {

// Index helpers for the packed bs3hd buffer and the bshd output.
struct Index {
  const NaiveAttentionShape& s;
  size_t qkv(int64_t b, int64_t t, int64_t which, int64_t h, int64_t d) const {
    return static_cast<size_t>((((b * s.seq + t) * 3 + which) * s.heads + h) * s.head_dim + d);
  }
  size_t bshd(int64_t b, int64_t t, int64_t h, int64_t d) const {
    return static_cast<size_t>(((b * s.seq + t) * s.heads + h) * s.head_dim + d);
  }
};

// Softmax probabilities of query row i (keys 0..i, causal) and its lse.
std::vector<double> RowProbabilities(const NaiveAttentionShape& s, const Index& x,
                                     const std::vector<double>& qkv, int64_t b, int64_t h,
                                     int64_t i, double* lse) {
  std::vector<double> scores(static_cast<size_t>(i + 1));
  double max_score = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j <= i; ++j) {
    double dot = 0;
    for (int64_t d = 0; d < s.head_dim; ++d)
      dot += qkv[x.qkv(b, i, 0, h, d)] * qkv[x.qkv(b, j, 1, h, d)];
    scores[static_cast<size_t>(j)] = dot * s.scale;
    max_score = std::max(max_score, scores[static_cast<size_t>(j)]);
  }
  double sum = 0;
  for (double& v : scores) sum += (v = std::exp(v - max_score));
  for (double& v : scores) v /= sum;
  *lse = max_score + std::log(sum);
  return scores;
}

}  // namespace

void NaiveAttentionForward(const NaiveAttentionShape& s, const std::vector<double>& qkv,
                           std::vector<double>* o, std::vector<double>* lse) {
  const Index x{s};
  o->assign(static_cast<size_t>(s.batch * s.seq * s.heads * s.head_dim), 0.0);
  lse->assign(static_cast<size_t>(s.batch * s.heads * s.seq), 0.0);
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t h = 0; h < s.heads; ++h) {
      for (int64_t i = 0; i < s.seq; ++i) {
        double row_lse = 0;
        std::vector<double> p = RowProbabilities(s, x, qkv, b, h, i, &row_lse);
        (*lse)[static_cast<size_t>((b * s.heads + h) * s.seq + i)] = row_lse;
        for (int64_t d = 0; d < s.head_dim; ++d) {
          double acc = 0;
          for (int64_t j = 0; j <= i; ++j)
            acc += p[static_cast<size_t>(j)] * qkv[x.qkv(b, j, 2, h, d)];
          (*o)[x.bshd(b, i, h, d)] = acc;
        }
      }
    }
  }
}

std::vector<double> NaiveAttentionBackward(const NaiveAttentionShape& s,
                                           const std::vector<double>& qkv,
                                           const std::vector<double>& o,
                                           const std::vector<double>& d_o) {
  const Index x{s};
  std::vector<double> grad(qkv.size(), 0.0);
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t h = 0; h < s.heads; ++h) {
      for (int64_t i = 0; i < s.seq; ++i) {
        double lse = 0;
        std::vector<double> p = RowProbabilities(s, x, qkv, b, h, i, &lse);
        double delta = 0;  // rowsum(dO * O)
        for (int64_t d = 0; d < s.head_dim; ++d)
          delta += d_o[x.bshd(b, i, h, d)] * o[x.bshd(b, i, h, d)];
        for (int64_t j = 0; j <= i; ++j) {
          const double pj = p[static_cast<size_t>(j)];
          double dp = 0;  // dP_ij = dO_i . V_j
          for (int64_t d = 0; d < s.head_dim; ++d)
            dp += d_o[x.bshd(b, i, h, d)] * qkv[x.qkv(b, j, 2, h, d)];
          const double ds = pj * (dp - delta) * s.scale;
          for (int64_t d = 0; d < s.head_dim; ++d) {
            grad[x.qkv(b, i, 0, h, d)] += ds * qkv[x.qkv(b, j, 1, h, d)];  // dQ
            grad[x.qkv(b, j, 1, h, d)] += ds * qkv[x.qkv(b, i, 0, h, d)];  // dK
            grad[x.qkv(b, j, 2, h, d)] += pj * d_o[x.bshd(b, i, h, d)];    // dV
          }
        }
      }
    }
  }
  return grad;
}

}  // namespace teplug::cli
