// The bf16 tile products on oneDNN against plain double sums of the same bf16
// values: plain and transposed operand views, overwriting and accumulating
// into an fp32 tile with a row stride, and the same bytes from every thread.
#include "plugins/cpu/attention/bf16_tile_matmul.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cpu/attention/scalar_formats.h"

namespace teplug::cpu::attention {
namespace {

std::vector<uint16_t> RandomBf16(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<uint16_t> out(n);
  for (uint16_t& x : out) x = FloatToBf16(u(rng));
  return out;
}

double At(const Bf16Matrix& m, int64_t i, int64_t j) {
  return Bf16ToFloat(m.data[i * m.row_stride + j * m.col_stride]);
}

// c = (accumulate ? c0 : 0) + a b, each element within fp32 accumulation's
// bound of the double sum: depth * 2^-24 * sum |a b| (and a little for c0).
void ExpectMatchesDoubleSums(const Bf16Matrix& a, const Bf16Matrix& b, bool accumulate,
                             const std::vector<float>& c0, const std::vector<float>& c,
                             int64_t c_stride) {
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t j = 0; j < b.cols; ++j) {
      double want = accumulate ? c0[i * c_stride + j] : 0.0, magnitude = std::fabs(want);
      for (int64_t k = 0; k < a.cols; ++k) {
        want += At(a, i, k) * At(b, k, j);
        magnitude += std::fabs(At(a, i, k) * At(b, k, j));
      }
      EXPECT_NEAR(c[i * c_stride + j], want, (a.cols + 2) * 0x1p-24 * magnitude + 1e-30)
          << i << ", " << j;
    }
  }
}

TEST(Bf16TileMatmulTest, PlainAndTransposedViewsMatchDoubleSums) {
  std::mt19937 rng(11);
  const int64_t m = 13, k = 37, n = 21, c_stride = 29;
  // a plain [m][k] (row stride 40); b transposed: [k][n] stored as [n][k].
  const std::vector<uint16_t> a_data = RandomBf16(m * 40, rng), b_data = RandomBf16(n * k, rng);
  const Bf16Matrix a{a_data.data(), m, k, 40, 1}, b{b_data.data(), k, n, 1, k};
  std::uniform_real_distribution<float> u(-1, 1);
  for (bool accumulate : {false, true}) {
    std::vector<float> c(m * c_stride);
    for (float& x : c) x = u(rng);
    const std::vector<float> c0 = c;
    Bf16TileMatmul(a, b, c.data(), c_stride, accumulate);
    ExpectMatchesDoubleSums(a, b, accumulate, c0, c, c_stride);
    for (int64_t i = 0; i < m; ++i) {  // columns past n untouched
      for (int64_t j = n; j < c_stride; ++j) EXPECT_EQ(c[i * c_stride + j], c0[i * c_stride + j]);
    }
  }
}

TEST(Bf16TileMatmulTest, TransposedFirstOperandMatchesDoubleSums) {
  std::mt19937 rng(12);
  const int64_t m = 40, k = 16, n = 24;
  // a: [m][k] stored as [k][m] (the backward's P^T), b plain.
  const std::vector<uint16_t> a_data = RandomBf16(k * m, rng), b_data = RandomBf16(k * n, rng);
  const Bf16Matrix a{a_data.data(), m, k, 1, m}, b{b_data.data(), k, n, n, 1};
  std::vector<float> c(m * n, 0.5f);
  const std::vector<float> c0 = c;
  Bf16TileMatmul(a, b, c.data(), n, /*accumulate=*/true);
  ExpectMatchesDoubleSums(a, b, true, c0, c, n);
}

TEST(Bf16TileMatmulTest, SameBytesOnEveryThread) {
  std::mt19937 rng(13);
  const int64_t m = 64, k = 128, n = 128;
  const std::vector<uint16_t> a_data = RandomBf16(m * k, rng), b_data = RandomBf16(k * n, rng);
  const Bf16Matrix a{a_data.data(), m, k, k, 1}, b{b_data.data(), k, n, 1, k};
  std::vector<float> want(m * n);
  Bf16TileMatmul(a, b, want.data(), n, /*accumulate=*/false);
  std::vector<std::vector<float>> got(4, std::vector<float>(m * n));
  std::vector<std::thread> threads;
  for (auto& c : got) {
    threads.emplace_back([&a, &b, &c, n] { Bf16TileMatmul(a, b, c.data(), n, false); });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& c : got) EXPECT_EQ(c, want);
}

}  // namespace
}  // namespace teplug::cpu::attention
