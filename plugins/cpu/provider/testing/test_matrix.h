// Test support: a host matrix (or vector) of fp32, fp16 or bf16 that owns its
// bytes and exposes them as a TeplugTensor, with optional padding between
// rows and a column stride, so tests can hand the same bytes to the cpu
// provider and to the reference oracle and compare decoded values.
#ifndef TEPLUG_PLUGINS_CPU_PROVIDER_TESTING_TEST_MATRIX_H_
#define TEPLUG_PLUGINS_CPU_PROVIDER_TESTING_TEST_MATRIX_H_

#include <cstdint>
#include <random>
#include <vector>

#include "teplug/types.h"

namespace teplug::cpu::testing {

struct MatrixLayout {
  int64_t row_padding = 0;  // extra elements after each row
  int64_t col_stride = 1;   // elements between neighbours in a row
};

class TestMatrix {
 public:
  // A [rows, cols] matrix, or a rank-1 [cols] vector when rows < 0. Strides
  // are given explicitly unless the layout is the dense one (then all zero,
  // the ABI's "row-major contiguous").
  TestMatrix(int32_t dtype, int64_t rows, int64_t cols, MatrixLayout layout = {});
  TestMatrix(const TestMatrix&) = delete;
  TestMatrix& operator=(const TestMatrix&) = delete;

  // Uniform values in [-1, 1) rounded to the dtype; padding gets a NaN, so a
  // kernel reading it shows up in the results.
  void FillRandom(std::mt19937_64& rng);
  // The logical elements, decoded, row by row.
  std::vector<double> Values() const;
  // A copy of the bytes of `other` (same dtype and shape).
  void CopyFrom(const TestMatrix& other);

  TeplugTensor* tensor() { return &tensor_; }
  int32_t dtype() const { return tensor_.dtype; }

 private:
  double Get(int64_t offset) const;
  void Set(int64_t offset, double value);
  int64_t Offset(int64_t r, int64_t c) const;

  int64_t rows_, cols_, row_stride_, col_stride_;
  bool vector_;
  std::vector<uint8_t> bytes_;
  TeplugTensor tensor_{};
};

// max |x - oracle| / max |oracle| (the main job's NormalizedMaxError).
double NormalizedMaxError(const std::vector<double>& x, const std::vector<double>& oracle);

}  // namespace teplug::cpu::testing

#endif  // TEPLUG_PLUGINS_CPU_PROVIDER_TESTING_TEST_MATRIX_H_
