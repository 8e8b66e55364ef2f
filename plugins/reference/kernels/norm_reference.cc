#include "plugins/reference/kernels/norm_reference.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace teplug::reference {
namespace {

absl::Status CheckSize(const char* what, const std::vector<double>& v, int64_t expected) {
  if (static_cast<int64_t>(v.size()) == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "norm reference: %s has %d values but %d are needed", what, v.size(), expected));
}

absl::Status CheckProblem(const NormProblem& p) {
  if (p.hidden < 1 || p.rows < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("norm reference: rows %d and hidden %d; rows must be >= 0 and hidden >= 1",
                        p.rows, p.hidden));
  }
  return absl::OkStatus();
}

// The weight multiplying the normalized value: gamma, or gamma + 1.
double WeightOf(const NormProblem& p, double gamma) {
  return p.zero_centered_gamma ? gamma + 1.0 : gamma;
}

// Mean and mean squared deviation of one row (Welford's update). For RMSNorm
// the "deviation" is from zero, so m2 / n is the mean square.
struct RowStats {
  double mean = 0.0;
  double variance = 0.0;
};
RowStats StatsOf(const NormProblem& p, const double* row) {
  double mean = 0.0, m2 = 0.0;
  for (int64_t i = 0; i < p.hidden; ++i) {
    const double v = row[i];
    if (p.kind == NormKind::kRmsNorm) {
      m2 += v * v;
      continue;
    }
    const double delta = v - mean;
    mean += delta / static_cast<double>(i + 1);
    m2 += delta * (v - mean);
  }
  return {mean, m2 / static_cast<double>(p.hidden)};
}

}  // namespace

absl::StatusOr<NormForwardResult> NormForward(const NormProblem& p, const std::vector<double>& x,
                                              const std::vector<double>& gamma,
                                              const std::vector<double>& beta, double epsilon) {
  if (absl::Status s = CheckProblem(p); !s.ok()) return s;
  if (!std::isfinite(epsilon) || epsilon < 0.0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("norm reference: epsilon %g must be finite and >= 0", epsilon));
  }
  const bool layernorm = p.kind == NormKind::kLayerNorm;
  if (absl::Status s = CheckSize("x", x, p.rows * p.hidden); !s.ok()) return s;
  if (absl::Status s = CheckSize("gamma", gamma, p.hidden); !s.ok()) return s;
  if (absl::Status s = CheckSize("beta", beta, layernorm ? p.hidden : 0); !s.ok()) return s;

  NormForwardResult out;
  out.y.resize(x.size());
  out.rsigma.resize(static_cast<size_t>(p.rows));
  if (layernorm) out.mu.resize(static_cast<size_t>(p.rows));
  for (int64_t r = 0; r < p.rows; ++r) {
    const double* row = x.data() + r * p.hidden;
    const RowStats stats = StatsOf(p, row);
    const double rsigma = 1.0 / std::sqrt(stats.variance + epsilon);
    out.rsigma[r] = rsigma;
    if (layernorm) out.mu[r] = stats.mean;
    for (int64_t i = 0; i < p.hidden; ++i) {
      const double xhat = (row[i] - stats.mean) * rsigma;  // mean is 0 for RMSNorm
      out.y[r * p.hidden + i] = xhat * WeightOf(p, gamma[i]) + (layernorm ? beta[i] : 0.0);
    }
  }
  return out;
}

absl::StatusOr<NormBackwardResult> NormBackward(const NormProblem& p, const std::vector<double>& dy,
                                                const std::vector<double>& x,
                                                const std::vector<double>& mu,
                                                const std::vector<double>& rsigma,
                                                const std::vector<double>& gamma) {
  if (absl::Status s = CheckProblem(p); !s.ok()) return s;
  const bool layernorm = p.kind == NormKind::kLayerNorm;
  if (absl::Status s = CheckSize("dy", dy, p.rows * p.hidden); !s.ok()) return s;
  if (absl::Status s = CheckSize("x", x, p.rows * p.hidden); !s.ok()) return s;
  if (absl::Status s = CheckSize("mu", mu, layernorm ? p.rows : 0); !s.ok()) return s;
  if (absl::Status s = CheckSize("rsigma", rsigma, p.rows); !s.ok()) return s;
  if (absl::Status s = CheckSize("gamma", gamma, p.hidden); !s.ok()) return s;

  NormBackwardResult out;
  out.dx.resize(x.size());
  out.dgamma.assign(static_cast<size_t>(p.hidden), 0.0);
  if (layernorm) out.dbeta.assign(static_cast<size_t>(p.hidden), 0.0);
  const double n = static_cast<double>(p.hidden);
  std::vector<double> xhat(static_cast<size_t>(p.hidden)), dyg(static_cast<size_t>(p.hidden));
  for (int64_t r = 0; r < p.rows; ++r) {
    const double shift = layernorm ? mu[r] : 0.0;
    double mean_dyg = 0.0, mean_dyg_xhat = 0.0;
    for (int64_t i = 0; i < p.hidden; ++i) {
      const int64_t at = r * p.hidden + i;
      xhat[i] = (x[at] - shift) * rsigma[r];
      dyg[i] = dy[at] * WeightOf(p, gamma[i]);
      mean_dyg += dyg[i];
      mean_dyg_xhat += dyg[i] * xhat[i];
      out.dgamma[i] += dy[at] * xhat[i];
      if (layernorm) out.dbeta[i] += dy[at];
    }
    mean_dyg /= n;
    mean_dyg_xhat /= n;
    for (int64_t i = 0; i < p.hidden; ++i) {
      const double centre = layernorm ? mean_dyg : 0.0;
      out.dx[r * p.hidden + i] = rsigma[r] * (dyg[i] - mean_dyg_xhat * xhat[i] - centre);
    }
  }
  return out;
}

}  // namespace teplug::reference
