#include "plugins/reference/provider/testing/abi_tensor.h"

#include <cstring>

#include "plugins/reference/numerics/float_formats.h"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider::testing {

AbiTensor::AbiTensor(int32_t dtype, std::vector<int64_t> shape) {
  tensor_ = sdk::Versioned<TeplugTensor>();
  tensor_.dtype = dtype;
  tensor_.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    tensor_.shape[i] = shape[i];
    count_ *= shape[i];
  }
  storage_.assign(static_cast<size_t>((count_ * sdk::DTypeBits(dtype) + 7) / 8) + 1, 0);
  tensor_.data = storage_.data();
  quant_ = sdk::Versioned<TeplugQuantization>();
}

void AbiTensor::Fill(const std::vector<double>& values) {
  unsigned char* p = storage_.data();
  for (int64_t i = 0; i < count_; ++i) {
    const double v = values[i];
    switch (tensor_.dtype) {
      case TEPLUG_DTYPE_FP32: {
        const float f = static_cast<float>(v);
        std::memcpy(p + 4 * i, &f, 4);
        break;
      }
      case TEPLUG_DTYPE_FP16: {
        const uint16_t h = EncodeFp16(v);
        std::memcpy(p + 2 * i, &h, 2);
        break;
      }
      case TEPLUG_DTYPE_BF16: {
        const uint16_t h = EncodeBf16(v);
        std::memcpy(p + 2 * i, &h, 2);
        break;
      }
      case TEPLUG_DTYPE_FP8_E4M3: p[i] = EncodeFp8E4M3(v, true); break;
      case TEPLUG_DTYPE_FP8_E5M2: p[i] = EncodeFp8E5M2(v, true); break;
      case TEPLUG_DTYPE_FP4_E2M1: {
        const uint8_t nibble = EncodeFp4E2M1(v, true);
        p[i / 2] = static_cast<unsigned char>(i % 2 == 0 ? (p[i / 2] & 0xF0) | nibble
                                                         : (p[i / 2] & 0x0F) | (nibble << 4));
        break;
      }
      case TEPLUG_DTYPE_INT32: {
        const int32_t x = static_cast<int32_t>(v);
        std::memcpy(p + 4 * i, &x, 4);
        break;
      }
      case TEPLUG_DTYPE_INT64: {
        const int64_t x = static_cast<int64_t>(v);
        std::memcpy(p + 8 * i, &x, 8);
        break;
      }
      default: p[i] = static_cast<unsigned char>(static_cast<int64_t>(v)); break;
    }
  }
}

std::vector<double> AbiTensor::Values() const {
  std::vector<double> out(static_cast<size_t>(count_));
  const unsigned char* p = storage_.data();
  for (int64_t i = 0; i < count_; ++i) {
    switch (tensor_.dtype) {
      case TEPLUG_DTYPE_FP32: {
        float f;
        std::memcpy(&f, p + 4 * i, 4);
        out[i] = f;
        break;
      }
      case TEPLUG_DTYPE_FP16: {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        out[i] = DecodeFp16(h);
        break;
      }
      case TEPLUG_DTYPE_BF16: {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        out[i] = DecodeBf16(h);
        break;
      }
      case TEPLUG_DTYPE_FP8_E4M3: out[i] = DecodeFp8E4M3(p[i]); break;
      case TEPLUG_DTYPE_FP8_E5M2: out[i] = DecodeFp8E5M2(p[i]); break;
      case TEPLUG_DTYPE_E8M0: out[i] = DecodeE8M0(p[i]); break;
      case TEPLUG_DTYPE_FP4_E2M1:
        out[i] = DecodeFp4E2M1(i % 2 == 0 ? (p[i / 2] & 0xF) : (p[i / 2] >> 4));
        break;
      case TEPLUG_DTYPE_INT32: {
        int32_t x;
        std::memcpy(&x, p + 4 * i, 4);
        out[i] = x;
        break;
      }
      case TEPLUG_DTYPE_INT64: {
        int64_t x;
        std::memcpy(&x, p + 8 * i, 8);
        out[i] = static_cast<double>(x);
        break;
      }
      case TEPLUG_DTYPE_INT8: out[i] = static_cast<int8_t>(p[i]); break;
      default: out[i] = p[i]; break;
    }
  }
  return out;
}

void AbiTensor::LinkQuant() {
  quant_.scale = scale_ ? scale_->get() : nullptr;
  quant_.scale_inv = scale_inv_ ? scale_inv_->get() : nullptr;
  quant_.amax = amax_ ? amax_->get() : nullptr;
  quant_.columnwise_data = columnwise_data_ ? columnwise_data_->get() : nullptr;
  quant_.columnwise_scale_inv = columnwise_scale_inv_ ? columnwise_scale_inv_->get() : nullptr;
  tensor_.quant = &quant_;
}

void AbiTensor::SetPerTensor(float scale, float scale_inv) {
  quant_.mode = TEPLUG_SCALING_PER_TENSOR;
  scale_ = Scalar(scale);
  scale_inv_ = Scalar(scale_inv);
  amax_ = Scalar(-1.0f);
  LinkQuant();
}

void AbiTensor::SetQuant(int32_t mode, std::unique_ptr<AbiTensor> scale_inv,
                         std::unique_ptr<AbiTensor> columnwise_data,
                         std::unique_ptr<AbiTensor> columnwise_scale_inv) {
  quant_.mode = mode;
  scale_inv_ = std::move(scale_inv);
  columnwise_data_ = std::move(columnwise_data);
  columnwise_scale_inv_ = std::move(columnwise_scale_inv);
  amax_ = Scalar(-1.0f);
  LinkQuant();
}

std::vector<double> RandomValues(std::mt19937_64& rng, int64_t count, double lo, double hi) {
  std::uniform_real_distribution<double> mag(lo, hi);
  std::bernoulli_distribution negative(0.5);
  std::vector<double> out(static_cast<size_t>(count));
  for (double& v : out) v = negative(rng) ? -mag(rng) : mag(rng);
  return out;
}

std::unique_ptr<AbiTensor> Scalar(float value) {
  auto t = std::make_unique<AbiTensor>(TEPLUG_DTYPE_FP32, std::vector<int64_t>{1});
  t->Fill({value});
  return t;
}

}  // namespace teplug::reference::provider::testing
