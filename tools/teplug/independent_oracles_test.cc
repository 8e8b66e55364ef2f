// The main job's naive oracles are themselves checked: GEMM entries against
// hand-computed values, attention forward against the definition on a tiny
// case, and attention backward against central finite differences of the
// forward (so a sign or index slip in either would show).
#include "tools/teplug/independent_oracles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace teplug::cli {
namespace {

std::vector<double> Random(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

TEST(NaiveGemmTest, MatchesHandComputedEntriesWithTransposes) {
  // A = [[1, 2, 3], [4, 5, 6]] (2x3), B = [[7, 8], [9, 10], [11, 12]] (3x2).
  const std::vector<double> a = {1, 2, 3, 4, 5, 6}, b = {7, 8, 9, 10, 11, 12};
  EXPECT_EQ(NaiveGemmEntries(a, b, 2, 2, 3, false, false, {0, 1, 2, 3}),
            (std::vector<double>{58, 64, 139, 154}));
  // The same product with A stored transposed (3x2) and B stored transposed (2x3).
  const std::vector<double> at = {1, 4, 2, 5, 3, 6}, bt = {7, 9, 11, 8, 10, 12};
  EXPECT_EQ(NaiveGemmEntries(at, bt, 2, 2, 3, true, true, {3, 0}), (std::vector<double>{154, 58}));
}

TEST(NaiveAttentionTest, FirstRowAttendsOnlyToItselfAndLseIsTheLogSumExp) {
  NaiveAttentionShape s{1, 2, 1, 2, 0.5};
  // qkv [1, 2, 3, 1, 2]: token t, then q, k, v.
  const std::vector<double> qkv = {1, 2, 3, 4,  5,  6,    // token 0: q0 k0 v0
                                   7, 8, 9, 10, 11, 12};  // token 1: q1 k1 v1
  std::vector<double> o, lse;
  NaiveAttentionForward(s, qkv, &o, &lse);
  EXPECT_DOUBLE_EQ(o[0], 5);  // causal: row 0 sees only v0
  EXPECT_DOUBLE_EQ(o[1], 6);
  EXPECT_DOUBLE_EQ(lse[0], 0.5 * (1 * 3 + 2 * 4));
  const double s0 = 0.5 * (7 * 3 + 8 * 4), s1 = 0.5 * (7 * 9 + 8 * 10);
  const double m = std::max(s0, s1), z = std::exp(s0 - m) + std::exp(s1 - m);
  EXPECT_NEAR(lse[1], m + std::log(z), 1e-12);
  EXPECT_NEAR(o[2], (std::exp(s0 - m) * 5 + std::exp(s1 - m) * 11) / z, 1e-12);
}

TEST(NaiveAttentionTest, BackwardMatchesFiniteDifferencesOfForward) {
  NaiveAttentionShape s{2, 5, 2, 3, 0.7};
  const size_t n_qkv = static_cast<size_t>(s.batch * s.seq * 3 * s.heads * s.head_dim);
  const std::vector<double> qkv = Random(n_qkv, 1);
  const std::vector<double> d_o = Random(n_qkv / 3, 2);
  std::vector<double> o, lse;
  NaiveAttentionForward(s, qkv, &o, &lse);
  const std::vector<double> grad = NaiveAttentionBackward(s, qkv, o, d_o);
  // loss = sum(dO * O); d loss / d qkv[i] by central differences, every element.
  auto loss = [&](const std::vector<double>& x) {
    std::vector<double> out, l;
    NaiveAttentionForward(s, x, &out, &l);
    double sum = 0;
    for (size_t i = 0; i < out.size(); ++i) sum += d_o[i] * out[i];
    return sum;
  };
  const double h = 1e-6;
  double max_grad = 0;
  for (double g : grad) max_grad = std::max(max_grad, std::fabs(g));
  ASSERT_GT(max_grad, 0.1);  // not a vacuous comparison
  for (size_t i = 0; i < qkv.size(); ++i) {
    std::vector<double> plus = qkv, minus = qkv;
    plus[i] += h;
    minus[i] -= h;
    EXPECT_NEAR(grad[i], (loss(plus) - loss(minus)) / (2 * h), 1e-6) << "element " << i;
  }
}

}  // namespace
}  // namespace teplug::cli
