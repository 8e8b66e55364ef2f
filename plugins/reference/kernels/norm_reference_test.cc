// The fp64 norm kernels against oracles written differently: the forward
// against a per-row two-pass computation in long double (the kernel uses
// Welford's one-pass update in double), the backward against central finite
// differences of the forward's loss sum(dy * y). Inputs are random and never
// zero; rows are shifted off zero mean so LayerNorm and RMSNorm differ.
#include "plugins/reference/kernels/norm_reference.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace teplug::reference {
namespace {

std::vector<double> RandomNonZero(std::mt19937_64& rng, size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) {
    do x = u(rng);
    while (std::fabs(x) < 1e-3);
  }
  return v;
}

// y of one problem by the textbook two-pass formula, in long double, with the
// weight g passed explicitly (gamma + 1 already applied by the caller).
std::vector<double> TwoPassOracle(NormKind kind, int64_t rows, int64_t hidden,
                                  const std::vector<double>& x, const std::vector<double>& g,
                                  const std::vector<double>& beta, double eps,
                                  std::vector<double>* mu_out, std::vector<double>* rsigma_out) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    long double sum = 0;
    for (int64_t i = 0; i < hidden; ++i) sum += x[r * hidden + i];
    const long double mean = kind == NormKind::kLayerNorm ? sum / hidden : 0.0L;
    long double sq = 0;
    for (int64_t i = 0; i < hidden; ++i) {
      const long double d = x[r * hidden + i] - mean;
      sq += d * d;
    }
    const long double rs = 1.0L / std::sqrt(sq / hidden + eps);
    mu_out->push_back(static_cast<double>(mean));
    rsigma_out->push_back(static_cast<double>(rs));
    for (int64_t i = 0; i < hidden; ++i) {
      const long double b = kind == NormKind::kLayerNorm ? beta[i] : 0.0L;
      y[r * hidden + i] = static_cast<double>((x[r * hidden + i] - mean) * rs * g[i] + b);
    }
  }
  return y;
}

struct Case {
  NormKind kind;
  bool zero_centered;
  int64_t rows;
  int64_t hidden;
};

class NormReferenceTest : public ::testing::TestWithParam<Case> {};

TEST_P(NormReferenceTest, ForwardMatchesTheTwoPassOracle) {
  const Case c = GetParam();
  std::mt19937_64 rng(1234 + c.rows * 7 + c.hidden);
  const bool ln = c.kind == NormKind::kLayerNorm;
  std::vector<double> x = RandomNonZero(rng, c.rows * c.hidden, -2.0, 3.0);
  std::vector<double> gamma = RandomNonZero(rng, c.hidden, -1.5, 1.5);
  std::vector<double> beta = ln ? RandomNonZero(rng, c.hidden, -1.0, 1.0) : std::vector<double>{};
  const double eps = 1e-5;
  std::vector<double> g = gamma;
  if (c.zero_centered)
    for (double& v : g) v += 1.0;

  NormProblem p{c.kind, c.rows, c.hidden, c.zero_centered};
  absl::StatusOr<NormForwardResult> got = NormForward(p, x, gamma, beta, eps);
  ASSERT_TRUE(got.ok()) << got.status();
  std::vector<double> mu, rsigma;
  const std::vector<double> want =
      TwoPassOracle(c.kind, c.rows, c.hidden, x, g, beta, eps, &mu, &rsigma);
  // Both are within a few ulps of the exact value; 1e-12 relative leaves room
  // for Welford's and the two-pass sums to round differently.
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got->y[i], want[i], 1e-12 * (1.0 + std::fabs(want[i]))) << i;
  }
  ASSERT_EQ(got->rsigma.size(), rsigma.size());
  for (size_t r = 0; r < rsigma.size(); ++r) {
    EXPECT_NEAR(got->rsigma[r], rsigma[r], 1e-12 * rsigma[r]) << r;
    if (ln) {
      EXPECT_NEAR(got->mu[r], mu[r], 1e-12 * (1.0 + std::fabs(mu[r]))) << r;
    }
  }
  EXPECT_EQ(got->mu.empty(), !ln);
}

// sum(dy * y) of the forward, the loss whose gradient the backward returns.
double Loss(const NormProblem& p, const std::vector<double>& dy, const std::vector<double>& x,
            const std::vector<double>& gamma, const std::vector<double>& beta, double eps) {
  NormForwardResult f = *NormForward(p, x, gamma, beta, eps);
  double loss = 0;
  for (size_t i = 0; i < dy.size(); ++i) loss += dy[i] * f.y[i];
  return loss;
}

// Central difference of Loss with respect to v[i] (v is one of the inputs).
double Derivative(const std::function<double()>& loss, std::vector<double>* v, size_t i) {
  const double h = 1e-5 * std::max(1.0, std::fabs((*v)[i]));
  const double keep = (*v)[i];
  (*v)[i] = keep + h;
  const double up = loss();
  (*v)[i] = keep - h;
  const double down = loss();
  (*v)[i] = keep;
  return (up - down) / (2 * h);
}

TEST_P(NormReferenceTest, BackwardMatchesFiniteDifferencesOfTheForward) {
  const Case c = GetParam();
  std::mt19937_64 rng(99 + c.rows * 13 + c.hidden);
  const bool ln = c.kind == NormKind::kLayerNorm;
  std::vector<double> x = RandomNonZero(rng, c.rows * c.hidden, -2.0, 3.0);
  std::vector<double> gamma = RandomNonZero(rng, c.hidden, -1.5, 1.5);
  std::vector<double> beta = ln ? RandomNonZero(rng, c.hidden, -1.0, 1.0) : std::vector<double>{};
  const std::vector<double> dy = RandomNonZero(rng, c.rows * c.hidden, -1.0, 1.0);
  const double eps = 1e-3;
  NormProblem p{c.kind, c.rows, c.hidden, c.zero_centered};
  NormForwardResult f = *NormForward(p, x, gamma, beta, eps);
  absl::StatusOr<NormBackwardResult> got = NormBackward(p, dy, x, f.mu, f.rsigma, gamma);
  ASSERT_TRUE(got.ok()) << got.status();
  auto loss = [&] { return Loss(p, dy, x, gamma, beta, eps); };
  // Truncation error of the central difference is O(h^2) ~ 1e-10 times the
  // third derivative; rounding error ~ 1e-16 * |loss| / h ~ 1e-10. 1e-6 is
  // far above both and far below any formula mistake (O(1) here).
  constexpr double kTol = 1e-6;
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(got->dx[i], Derivative(loss, &x, i), kTol) << "dx " << i;
  }
  for (size_t i = 0; i < gamma.size(); ++i) {
    EXPECT_NEAR(got->dgamma[i], Derivative(loss, &gamma, i), kTol) << "dgamma " << i;
  }
  ASSERT_EQ(got->dbeta.size(), beta.size());
  for (size_t i = 0; i < beta.size(); ++i) {
    EXPECT_NEAR(got->dbeta[i], Derivative(loss, &beta, i), kTol) << "dbeta " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, NormReferenceTest,
                         ::testing::Values(Case{NormKind::kLayerNorm, false, 3, 37},
                                           Case{NormKind::kLayerNorm, true, 4, 16},
                                           Case{NormKind::kRmsNorm, false, 3, 37},
                                           Case{NormKind::kRmsNorm, true, 2, 64},
                                           Case{NormKind::kLayerNorm, false, 1, 1}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           const Case& c = info.param;
                           return std::string(c.kind == NormKind::kLayerNorm ? "layernorm"
                                                                             : "rmsnorm") +
                                  (c.zero_centered ? "_zc_" : "_") + std::to_string(c.rows) + "x" +
                                  std::to_string(c.hidden);
                         });

TEST(NormReferenceErrorsTest, BadSizesAndEpsilonAreNamed) {
  NormProblem p{NormKind::kLayerNorm, 2, 3, false};
  const std::vector<double> six(6, 1.5), three(3, 0.5);
  EXPECT_NE(NormForward(p, six, three, {}, 1e-5).status().message().find("beta has 0 values but 3"),
            std::string::npos);
  EXPECT_NE(NormForward(p, six, three, three, -1.0).status().message().find("epsilon -1"),
            std::string::npos);
  p.kind = NormKind::kRmsNorm;
  EXPECT_NE(
      NormForward(p, six, three, three, 0.0).status().message().find("beta has 3 values but 0"),
      std::string::npos);
  p.hidden = 0;
  EXPECT_NE(NormBackward(p, {}, {}, {}, {}, {}).status().message().find("hidden 0"),
            std::string::npos);
}

}  // namespace
}  // namespace teplug::reference
