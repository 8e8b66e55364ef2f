#include "plugins/cpu/provider/testing/test_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "plugins/reference/numerics/float_formats.h"

namespace teplug::cpu::testing {
namespace {

size_t ElementSize(int32_t dtype) { return dtype == TEPLUG_DTYPE_FP32 ? 4 : 2; }

}  // namespace

TestMatrix::TestMatrix(int32_t dtype, int64_t rows, int64_t cols, MatrixLayout layout)
    : rows_(rows < 0 ? 1 : rows),
      cols_(cols),
      row_stride_(cols * layout.col_stride + layout.row_padding),
      col_stride_(layout.col_stride),
      vector_(rows < 0) {
  bytes_.assign(static_cast<size_t>(std::max<int64_t>(rows_ * row_stride_, 1)) * ElementSize(dtype),
                0);
  tensor_.struct_size = sizeof(TeplugTensor);
  tensor_.data = bytes_.data();
  tensor_.dtype = dtype;
  const bool dense = layout.row_padding == 0 && layout.col_stride == 1;
  if (vector_) {
    tensor_.rank = 1;
    tensor_.shape[0] = cols_;
    tensor_.strides[0] = dense ? 0 : col_stride_;
  } else {
    tensor_.rank = 2;
    tensor_.shape[0] = rows_;
    tensor_.shape[1] = cols_;
    tensor_.strides[0] = dense ? 0 : row_stride_;
    tensor_.strides[1] = dense ? 0 : col_stride_;
  }
}

int64_t TestMatrix::Offset(int64_t r, int64_t c) const { return r * row_stride_ + c * col_stride_; }

double TestMatrix::Get(int64_t offset) const {
  if (tensor_.dtype == TEPLUG_DTYPE_FP32) {
    float v;
    std::memcpy(&v, bytes_.data() + offset * 4, 4);
    return v;
  }
  uint16_t bits;
  std::memcpy(&bits, bytes_.data() + offset * 2, 2);
  return tensor_.dtype == TEPLUG_DTYPE_FP16 ? reference::DecodeFp16(bits)
                                            : reference::DecodeBf16(bits);
}

void TestMatrix::Set(int64_t offset, double value) {
  if (tensor_.dtype == TEPLUG_DTYPE_FP32) {
    const float v = static_cast<float>(value);
    std::memcpy(bytes_.data() + offset * 4, &v, 4);
    return;
  }
  const uint16_t bits = tensor_.dtype == TEPLUG_DTYPE_FP16 ? reference::EncodeFp16(value)
                                                           : reference::EncodeBf16(value);
  std::memcpy(bytes_.data() + offset * 2, &bits, 2);
}

void TestMatrix::FillRandom(std::mt19937_64& rng) {
  const int64_t slots = static_cast<int64_t>(bytes_.size() / ElementSize(tensor_.dtype));
  for (int64_t i = 0; i < slots; ++i) Set(i, std::numeric_limits<double>::quiet_NaN());
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int64_t r = 0; r < rows_; ++r)
    for (int64_t c = 0; c < cols_; ++c) Set(Offset(r, c), uniform(rng));
}

std::vector<double> TestMatrix::Values() const {
  std::vector<double> v;
  v.reserve(static_cast<size_t>(rows_ * cols_));
  for (int64_t r = 0; r < rows_; ++r)
    for (int64_t c = 0; c < cols_; ++c) v.push_back(Get(Offset(r, c)));
  return v;
}

void TestMatrix::CopyFrom(const TestMatrix& other) {
  std::memcpy(bytes_.data(), other.bytes_.data(), std::min(bytes_.size(), other.bytes_.size()));
}

double NormalizedMaxError(const std::vector<double>& x, const std::vector<double>& oracle) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < oracle.size(); ++i) {
    const double diff = std::fabs(x[i] - oracle[i]);
    worst = std::isnan(diff) ? std::numeric_limits<double>::infinity() : std::max(worst, diff);
    scale = std::max(scale, std::fabs(oracle[i]));
  }
  return scale > 0 ? worst / scale : worst;
}

}  // namespace teplug::cpu::testing
