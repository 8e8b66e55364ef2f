#include "tools/teplug/host_tensor.h"

#include <cmath>
#include <cstring>

#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/teplug/float_format_codecs.h"

namespace teplug::cli {

HostTensor::HostTensor(std::string name, int32_t dtype, std::vector<int64_t> shape)
    : name_(std::move(name)) {
  view_ = sdk::Versioned<TeplugTensor>();
  view_.dtype = dtype;
  view_.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) view_.shape[i] = shape[i];
  bytes_.assign(static_cast<size_t>(count() * sdk::DTypeBits(dtype) / 8), 0);
  Bind();
}

void HostTensor::Bind() {
  view_.data = bytes_.data();
  view_.quant = quant_ ? &quant_->q : nullptr;
}

int64_t HostTensor::count() const {
  int64_t n = 1;
  for (int i = 0; i < view_.rank; ++i) n *= view_.shape[i];
  return n;
}
int64_t HostTensor::cols() const { return view_.rank == 0 ? 1 : view_.shape[view_.rank - 1]; }
int64_t HostTensor::rows() const { return count() / std::max<int64_t>(cols(), 1); }

HostTensor HostTensor::Clone(const std::string& name) const {
  HostTensor c;
  c.name_ = name;
  c.bytes_ = bytes_;
  c.view_ = view_;
  if (quant_) {
    c.quant_ = std::make_unique<Quant>();
    c.quant_->q = quant_->q;
    auto copy = [&](const std::unique_ptr<HostTensor>& from, const char* suffix) {
      return from ? std::make_unique<HostTensor>(from->Clone(name + suffix)) : nullptr;
    };
    c.quant_->scale = copy(quant_->scale, ".scale");
    c.quant_->scale_inv = copy(quant_->scale_inv, ".scale_inv");
    c.quant_->amax = copy(quant_->amax, ".amax");
    c.quant_->q.scale = c.quant_->scale ? c.quant_->scale->tensor() : nullptr;
    c.quant_->q.scale_inv = c.quant_->scale_inv ? c.quant_->scale_inv->tensor() : nullptr;
    c.quant_->q.amax = c.quant_->amax ? c.quant_->amax->tensor() : nullptr;
  }
  c.Bind();
  return c;
}

void HostTensor::AttachQuantization(int32_t mode) {
  quant_ = std::make_unique<Quant>();
  quant_->q = sdk::Versioned<TeplugQuantization>();
  quant_->q.mode = mode;
  if (mode == TEPLUG_SCALING_PER_TENSOR) {
    quant_->scale =
        std::make_unique<HostTensor>(name_ + ".scale", TEPLUG_DTYPE_FP32, std::vector<int64_t>{1});
    quant_->scale->SetValues({1.0});
    quant_->scale_inv = std::make_unique<HostTensor>(name_ + ".scale_inv", TEPLUG_DTYPE_FP32,
                                                     std::vector<int64_t>{1});
    quant_->amax =
        std::make_unique<HostTensor>(name_ + ".amax", TEPLUG_DTYPE_FP32, std::vector<int64_t>{1});
  } else if (mode == TEPLUG_SCALING_MXFP8_1D32) {
    quant_->scale_inv = std::make_unique<HostTensor>(
        name_ + ".scale_inv", TEPLUG_DTYPE_E8M0, std::vector<int64_t>{rows(), (cols() + 31) / 32});
  } else if (mode == TEPLUG_SCALING_BLOCK_1D128 || mode == TEPLUG_SCALING_BLOCK_2D128) {
    const int64_t grid_rows = mode == TEPLUG_SCALING_BLOCK_1D128 ? rows() : (rows() + 127) / 128;
    quant_->scale_inv =
        std::make_unique<HostTensor>(name_ + ".scale_inv", TEPLUG_DTYPE_FP32,
                                     std::vector<int64_t>{grid_rows, (cols() + 127) / 128});
  }
  quant_->q.scale = quant_->scale ? quant_->scale->tensor() : nullptr;
  quant_->q.scale_inv = quant_->scale_inv ? quant_->scale_inv->tensor() : nullptr;
  quant_->q.amax = quant_->amax ? quant_->amax->tensor() : nullptr;
  Bind();
}

TeplugTensor HostTensor::Reshaped(const std::vector<int64_t>& shape) const {
  TeplugTensor t = view_;
  t.rank = static_cast<int32_t>(shape.size());
  for (int i = 0; i < TEPLUG_MAX_RANK; ++i)
    t.shape[i] = i < t.rank ? shape[static_cast<size_t>(i)] : 0;
  return t;
}

float HostTensor::PerTensorScaleInv() const {
  return static_cast<float>(quant_->scale_inv->Values()[0]);
}

double HostTensor::BlockScale(int64_t row, int64_t col) const {
  const int64_t grid_cols = (cols() + 127) / 128;
  const int64_t grid_row = quant_->q.mode == TEPLUG_SCALING_BLOCK_2D128 ? row / 128 : row;
  float s;
  std::memcpy(&s, quant_->scale_inv->bytes_.data() + 4 * (grid_row * grid_cols + col / 128), 4);
  return s;
}

double HostTensor::MxScale(int64_t row, int64_t col) const {
  const int64_t blocks = (cols() + 31) / 32;
  return DecodeE8M0(quant_->scale_inv->bytes_[static_cast<size_t>(row * blocks + col / 32)]);
}

std::vector<double> HostTensor::Values() const {
  const size_t n = static_cast<size_t>(count());
  std::vector<double> out(n);
  const uint8_t* b = bytes_.data();
  switch (view_.dtype) {
    case TEPLUG_DTYPE_FP32:
      for (size_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, b + 4 * i, 4);
        out[i] = f;
      }
      return out;
    case TEPLUG_DTYPE_FP16:
    case TEPLUG_DTYPE_BF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, b + 2 * i, 2);
        out[i] = view_.dtype == TEPLUG_DTYPE_FP16 ? DecodeFp16(h) : DecodeBf16(h);
      }
      return out;
    case TEPLUG_DTYPE_E8M0:
      for (size_t i = 0; i < n; ++i) out[i] = DecodeE8M0(b[i]);
      return out;
    case TEPLUG_DTYPE_FP8_E4M3:
    case TEPLUG_DTYPE_FP8_E5M2: {
      const bool e4m3 = view_.dtype == TEPLUG_DTYPE_FP8_E4M3;
      const int32_t mode = quant_ ? quant_->q.mode : TEPLUG_SCALING_NONE;
      const bool per_tensor = mode == TEPLUG_SCALING_PER_TENSOR;
      const bool block = mode == TEPLUG_SCALING_BLOCK_1D128 || mode == TEPLUG_SCALING_BLOCK_2D128;
      const double tensor_scale = per_tensor ? PerTensorScaleInv() : 1.0;
      const int64_t c = cols();
      for (size_t i = 0; i < n; ++i) {
        const double code = e4m3 ? DecodeE4M3(b[i]) : DecodeE5M2(b[i]);
        const int64_t row = static_cast<int64_t>(i) / c, col = static_cast<int64_t>(i) % c;
        const double s = per_tensor ? tensor_scale
                         : block    ? BlockScale(row, col)
                                    : MxScale(row, col);
        out[i] = code * s;
      }
      return out;
    }
    default:
      return out;  // other dtypes are not produced by the main job
  }
}

void HostTensor::SetValues(const std::vector<double>& values) {
  uint8_t* b = bytes_.data();
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(count()); ++i) {
    if (view_.dtype == TEPLUG_DTYPE_FP32) {
      const float f = static_cast<float>(values[i]);
      std::memcpy(b + 4 * i, &f, 4);
    } else if (view_.dtype == TEPLUG_DTYPE_FP16 || view_.dtype == TEPLUG_DTYPE_BF16) {
      const uint16_t h =
          view_.dtype == TEPLUG_DTYPE_FP16 ? EncodeFp16(values[i]) : EncodeBf16(values[i]);
      std::memcpy(b + 2 * i, &h, 2);
    }
  }
}

double NormalizedMaxError(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double d = std::fabs(a[i] - b[i]);
    diff = std::isnan(d) ? INFINITY : std::max(diff, d);
    scale = std::max(scale, std::fabs(b[i]));
  }
  if (a.size() != b.size() || scale == 0) return INFINITY;
  return diff / scale;
}

}  // namespace teplug::cli
