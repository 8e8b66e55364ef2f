// GEMM reference against a naive oracle that first materializes op(A) and
// op(B) as dense row-major long double matrices and then runs a triple loop,
// for every combination of transposes, bias, GELU, accumulate, beta, storage
// order (row/column major with padding) and several shapes.
#include "plugins/reference/kernels/gemm_reference.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace teplug {
namespace reference {
namespace {

// A stored matrix in a buffer with padding; filler entries are random too,
// so reading outside the matrix changes results.
struct StoredMatrix {
  std::vector<double> buffer;
  int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 0;
  double at(int64_t r, int64_t c) const { return buffer[r * row_stride + c * col_stride]; }
  ConstMatrixView view() const { return {buffer.data(), row_stride, col_stride}; }
  MatrixView mutable_view() { return {buffer.data(), row_stride, col_stride}; }
};

StoredMatrix RandomStored(std::mt19937_64& rng, int64_t rows, int64_t cols,
                          bool column_major) {
  StoredMatrix m;
  m.rows = rows;
  m.cols = cols;
  if (column_major) {
    m.row_stride = 1;
    m.col_stride = rows + 1;
  } else {
    m.row_stride = cols + 2;
    m.col_stride = 1;
  }
  const int64_t size = column_major ? (rows + 1) * std::max<int64_t>(cols, 1)
                                    : std::max<int64_t>(rows, 1) * (cols + 2);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  m.buffer.resize(size);
  for (double& x : m.buffer) x = dist(rng);
  return m;
}

long double NaiveGelu(long double z) {
  const long double c = 0.7978845608028653558798921198687637L;  // sqrt(2/pi)
  return 0.5L * z * (1.0L + std::tanh(c * (z + 0.044715L * z * z * z)));
}

struct Shape {
  int64_t m, n, k;
};

TEST(GemmReferenceTest, MatchesNaiveOracleForEveryCombination) {
  std::mt19937_64 rng(31337);
  const Shape shapes[] = {{1, 1, 1}, {3, 5, 4}, {7, 2, 9}, {4, 6, 0}};
  int cases = 0;
  for (const Shape& s : shapes)
    for (int flags = 0; flags < 128; ++flags) {
      const bool ta = flags & 1, tb = flags & 2, with_bias = flags & 4,
                 gelu = flags & 8, accumulate = flags & 16,
                 nonzero_beta = flags & 32, column_major = flags & 64;
      GemmOptions o;
      o.m = s.m;
      o.n = s.n;
      o.k = s.k;
      o.transpose_a = ta;
      o.transpose_b = tb;
      o.alpha = 1.25;
      o.beta = nonzero_beta ? -0.7 : 0.0;
      o.gelu = gelu;
      o.accumulate = accumulate;
      const StoredMatrix a = RandomStored(rng, ta ? s.k : s.m, ta ? s.m : s.k, column_major);
      const StoredMatrix b = RandomStored(rng, tb ? s.n : s.k, tb ? s.k : s.n, !column_major);
      const StoredMatrix c = RandomStored(rng, s.m, s.n, column_major);
      StoredMatrix d = RandomStored(rng, s.m, s.n, !column_major);
      StoredMatrix pre = RandomStored(rng, s.m, s.n, column_major);
      const StoredMatrix d_before = d;
      std::vector<double> bias(s.n);
      for (double& x : bias) x = std::uniform_real_distribution<double>(-2, 2)(rng);
      if (with_bias) o.bias = bias.data();
      const ConstMatrixView c_view = accumulate ? ConstMatrixView{} : c.view();
      const std::string name = absl::StrFormat(
          "m=%d n=%d k=%d ta=%d tb=%d bias=%d gelu=%d acc=%d beta=%g colmajor=%d",
          s.m, s.n, s.k, ta, tb, with_bias, gelu, accumulate, o.beta, column_major);
      const absl::Status status =
          GemmReference(o, a.view(), b.view(), c_view, d.mutable_view(),
                        gelu ? pre.mutable_view() : MatrixView{});
      ASSERT_TRUE(status.ok()) << status << " " << name;

      // Oracle: dense op(A) [m][k] and op(B) [k][n] first.
      std::vector<long double> op_a(s.m * s.k), op_b(s.k * s.n);
      for (int64_t r = 0; r < s.m; ++r)
        for (int64_t kk = 0; kk < s.k; ++kk)
          op_a[r * s.k + kk] = ta ? a.at(kk, r) : a.at(r, kk);
      for (int64_t kk = 0; kk < s.k; ++kk)
        for (int64_t col = 0; col < s.n; ++col)
          op_b[kk * s.n + col] = tb ? b.at(col, kk) : b.at(kk, col);
      for (int64_t r = 0; r < s.m; ++r)
        for (int64_t col = 0; col < s.n; ++col) {
          long double acc = 0;
          for (int64_t kk = 0; kk < s.k; ++kk) acc += op_a[r * s.k + kk] * op_b[kk * s.n + col];
          long double z = 1.25L * acc;
          if (nonzero_beta) z += -0.7L * (accumulate ? d_before.at(r, col) : c.at(r, col));
          if (with_bias) z += bias[col];
          const long double want = gelu ? NaiveGelu(z) : z;
          ASSERT_NEAR(d.at(r, col), static_cast<double>(want), 1e-13 * (1 + std::fabs(static_cast<double>(want))))
              << "D(" << r << "," << col << ") " << name;
          if (gelu) {
            ASSERT_NEAR(pre.at(r, col), static_cast<double>(z), 1e-13 * (1 + std::fabs(static_cast<double>(z))))
                << "pre_gelu(" << r << "," << col << ") " << name;
          }
        }
      // Entries of D's buffer outside the matrix (padding) are untouched.
      std::vector<bool> in_matrix(d.buffer.size(), false);
      for (int64_t r = 0; r < s.m; ++r)
        for (int64_t col = 0; col < s.n; ++col)
          in_matrix[r * d.row_stride + col * d.col_stride] = true;
      for (size_t n = 0; n < d.buffer.size(); ++n) {
        if (!in_matrix[n]) {
          ASSERT_EQ(d.buffer[n], d_before.buffer[n]) << n << " " << name;
        }
      }
      ++cases;
    }
  EXPECT_EQ(cases, 4 * 128);
}

// The tanh approximation stays within 1e-3 of the exact erf GELU and has the
// expected fixed points; a wrong constant would break one of these.
TEST(GemmReferenceTest, GeluTanhApproximatesExactGelu) {
  EXPECT_EQ(GeluTanh(0.0), 0.0);
  EXPECT_NEAR(GeluTanh(10.0), 10.0, 1e-12);
  EXPECT_NEAR(GeluTanh(-10.0), 0.0, 1e-12);
  for (double z = -6; z <= 6; z += 0.01) {
    const double exact = 0.5 * z * (1 + std::erf(z / std::sqrt(2.0)));
    EXPECT_NEAR(GeluTanh(z), exact, 1e-3) << z;
  }
  // Value at 1, computed with Python: 0.5*(1+math.tanh(math.sqrt(2/math.pi)*1.044715)).
  EXPECT_NEAR(GeluTanh(1.0), 0.8411919906082768, 1e-15);
}

TEST(GemmReferenceTest, InvalidArgumentsAreRejectedWithAReason) {
  std::vector<double> buf(16, 0.5);
  const ConstMatrixView in{buf.data(), 4, 1};
  MatrixView out{buf.data(), 4, 1};
  GemmOptions o;
  o.m = o.n = o.k = 2;
  struct Case {
    GemmOptions options;
    ConstMatrixView a, c;
    MatrixView d, pre;
    std::string needle;
  };
  GemmOptions negative = o;
  negative.k = -1;
  GemmOptions gelu = o;
  gelu.gelu = true;
  GemmOptions beta = o;
  beta.beta = 1.0;
  GemmOptions accumulate = o;
  accumulate.accumulate = true;
  const Case cases[] = {
      {negative, in, {}, out, {}, "k=-1"},
      {o, {}, {}, out, {}, "operand A is null"},
      {o, in, {}, {}, {}, "output D is null"},
      {gelu, in, {}, out, {}, "pre_gelu_out"},
      {beta, in, {}, out, {}, "beta=1 needs C"},
      {accumulate, in, in, out, {}, "do not pass a separate C"},
  };
  for (const Case& c : cases) {
    const absl::Status status = GemmReference(c.options, c.a, in, c.c, c.d, c.pre);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.needle;
    EXPECT_NE(status.message().find(c.needle), std::string::npos)
        << status.message() << " lacks " << c.needle;
  }
}

}  // namespace
}  // namespace reference
}  // namespace teplug
