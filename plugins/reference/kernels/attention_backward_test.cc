// Attention backward against central finite differences of the forward, in
// fp64: loss L = sum(O * dO) with random dO, so dL/dx = (L(x+h) - L(x-h)) / 2h
// for every element x of Q, K, V and the bias tensor. Dropout uses a fixed
// seed, which makes the loss a smooth function of the inputs.
//
// Tolerance: h = 1e-5 on inputs of magnitude <= 1 gives truncation error
// ~h^2 * |L'''| ~ 1e-10 and rounding error ~1e-16 * |L| / h ~ 1e-11; we
// require |analytic - fd| <= 1e-7 + 1e-6 * |fd|, far above both and far below
// any real error (a wrong term changes gradients at the 1e-2 level).
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/kernels/attention_reference.h"
#include "plugins/reference/kernels/attention_test_inputs.h"

namespace teplug {
namespace reference {
namespace {

using testing::AttentionProblem;
using testing::MakeProblem;

constexpr double kStep = 1e-5;

double Loss(const AttentionProblem& p, const std::vector<double>& d_o) {
  const absl::StatusOr<AttentionForwardResult> fwd =
      AttentionForward(p.shape, p.options, p.q, p.k, p.v);
  EXPECT_TRUE(fwd.ok()) << fwd.status();
  if (!fwd.ok()) return std::nan("");
  double loss = 0;
  for (size_t n = 0; n < d_o.size(); ++n) loss += fwd->o[n] * d_o[n];
  return loss;
}

// Compares `analytic` with central differences of Loss over every element of
// the vector `select(problem)` points to. Returns the largest |gradient| seen,
// so callers can check the gradient is not trivially zero.
template <typename Select>
double CheckAgainstFiniteDifferences(const AttentionProblem& problem,
                                     const std::vector<double>& d_o,
                                     const std::vector<double>& analytic,
                                     Select select, const std::string& what) {
  AttentionProblem p = problem;
  std::vector<double>& x = select(p);
  EXPECT_EQ(analytic.size(), x.size()) << what << " " << p.name;
  double largest = 0;
  for (size_t n = 0; n < x.size() && n < analytic.size(); ++n) {
    const double saved = x[n];
    x[n] = saved + kStep;
    const double up = Loss(p, d_o);
    x[n] = saved - kStep;
    const double down = Loss(p, d_o);
    x[n] = saved;
    const double fd = (up - down) / (2 * kStep);
    EXPECT_NEAR(analytic[n], fd, 1e-7 + 1e-6 * std::fabs(fd))
        << what << "[" << n << "] " << p.name;
    largest = std::max(largest, std::fabs(fd));
  }
  return largest;
}

void CheckProblem(const AttentionProblem& p, std::mt19937_64& rng) {
  const absl::StatusOr<AttentionForwardResult> fwd =
      AttentionForward(p.shape, p.options, p.q, p.k, p.v);
  ASSERT_TRUE(fwd.ok()) << fwd.status() << " " << p.name;
  const std::vector<double> d_o = testing::RandomValues(rng, fwd->o.size(), 1.0);
  const absl::StatusOr<AttentionGradients> grads = AttentionBackward(
      p.shape, p.options, p.q, p.k, p.v, fwd->o, fwd->lse, d_o);
  ASSERT_TRUE(grads.ok()) << grads.status() << " " << p.name;
  const double dq_max = CheckAgainstFiniteDifferences(
      p, d_o, grads->dq, [](AttentionProblem& x) -> std::vector<double>& { return x.q; }, "dQ");
  const double dk_max = CheckAgainstFiniteDifferences(
      p, d_o, grads->dk, [](AttentionProblem& x) -> std::vector<double>& { return x.k; }, "dK");
  const double dv_max = CheckAgainstFiniteDifferences(
      p, d_o, grads->dv, [](AttentionProblem& x) -> std::vector<double>& { return x.v; }, "dV");
  EXPECT_GT(dq_max, 1e-3) << p.name;
  EXPECT_GT(dk_max, 1e-3) << p.name;
  EXPECT_GT(dv_max, 1e-3) << p.name;
  const bool tensor_bias = p.options.bias_type == AttnBiasType::kPreScale ||
                           p.options.bias_type == AttnBiasType::kPostScale;
  if (tensor_bias) {
    const double dbias_max = CheckAgainstFiniteDifferences(
        p, d_o, grads->dbias,
        [](AttentionProblem& x) -> std::vector<double>& { return x.options.bias; },
        "dBias");
    EXPECT_GT(dbias_max, 1e-3) << p.name;
  } else {
    EXPECT_TRUE(grads->dbias.empty()) << p.name;
  }
}

const AttentionShape kShapes[] = {
    // B, hq, hkv, max_sq, max_skv, d_qk, d_v
    {2, 4, 2, 4, 5, 3, 2},  // GQA, sq < skv
    {2, 2, 2, 5, 3, 2, 3},  // MHA, sq > skv
};
const int64_t kWindows[][2] = {{-1, -1}, {1, 1}};

TEST(AttentionBackwardTest, MatchesFiniteDifferencesForEveryOption) {
  std::mt19937_64 rng(2718);
  int cases = 0;
  for (const AttentionShape& shape : kShapes)
    for (AttnMaskType mask : testing::kAllMaskTypes)
      for (AttnBiasType bias : testing::kAllBiasTypes)
        for (const auto& window : kWindows)
          for (double dropout : {0.0, 0.25}) {
            const AttentionProblem p = MakeProblem(
                rng, shape, mask, bias, cases % 4, window[0], window[1], dropout);
            CheckProblem(p, rng);
            if (::testing::Test::HasFatalFailure()) return;
            ++cases;
          }
  EXPECT_EQ(cases, 2 * 6 * 4 * 2 * 2);
}

// Rows with no visible key and keys no row sees get exactly zero gradients.
TEST(AttentionBackwardTest, MaskedPositionsGetZeroGradients) {
  std::mt19937_64 rng(11);
  AttentionProblem p = MakeProblem(rng, kShapes[0], AttnMaskType::kPadding,
                                   AttnBiasType::kPostScale, 3, -1, -1, 0.0);
  p.options.seqlens_q = {4, 2};
  p.options.seqlens_kv = {5, 3};
  const absl::StatusOr<AttentionForwardResult> fwd =
      AttentionForward(p.shape, p.options, p.q, p.k, p.v);
  ASSERT_TRUE(fwd.ok());
  const std::vector<double> d_o = testing::RandomValues(rng, fwd->o.size(), 1.0);
  const absl::StatusOr<AttentionGradients> g = AttentionBackward(
      p.shape, p.options, p.q, p.k, p.v, fwd->o, fwd->lse, d_o);
  ASSERT_TRUE(g.ok()) << g.status();
  const AttentionShape& s = p.shape;
  for (int64_t h = 0; h < s.hq; ++h)
    for (int64_t i = 2; i < s.max_sq; ++i)
      for (int64_t d = 0; d < s.d_qk; ++d)
        EXPECT_EQ(g->dq[((1 * s.hq + h) * s.max_sq + i) * s.d_qk + d], 0.0);
  for (int64_t h = 0; h < s.hkv; ++h)
    for (int64_t j = 3; j < s.max_skv; ++j)
      for (int64_t d = 0; d < s.d_v; ++d)
        EXPECT_EQ(g->dv[((1 * s.hkv + h) * s.max_skv + j) * s.d_v + d], 0.0);
  for (int64_t h = 0; h < s.hq; ++h)
    for (int64_t i = 0; i < s.max_sq; ++i)
      for (int64_t j = 0; j < s.max_skv; ++j) {
        if (i < 2 && j < 3) continue;
        EXPECT_EQ(g->dbias[((1 * s.hq + h) * s.max_sq + i) * s.max_skv + j], 0.0);
      }
}

TEST(AttentionBackwardTest, WrongSizedForwardOutputsAreRejected) {
  std::mt19937_64 rng(13);
  const AttentionProblem p = MakeProblem(rng, kShapes[0], AttnMaskType::kNone,
                                         AttnBiasType::kNone, 0, -1, -1, 0.0);
  const absl::StatusOr<AttentionForwardResult> fwd =
      AttentionForward(p.shape, p.options, p.q, p.k, p.v);
  ASSERT_TRUE(fwd.ok());
  std::vector<double> short_lse = fwd->lse;
  short_lse.pop_back();
  const absl::StatusOr<AttentionGradients> g = AttentionBackward(
      p.shape, p.options, p.q, p.k, p.v, fwd->o, short_lse, fwd->o);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("lse has"), std::string::npos)
      << g.status().message();
}

}  // namespace
}  // namespace reference
}  // namespace teplug
